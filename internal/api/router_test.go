package api

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// muxRouting is the routing withRouting replaced, kept as its reference:
// every path made canonical (one trailing slash stripped, the literal
// segments of the route of its shape lower-cased) and handed to the mux.
func (s *Server) muxRouting() http.Handler {
	canonicalPath := func(p string) string {
		segs := strings.Split(p[1:], "/")
	outer:
		for _, rt := range s.compiled {
			if len(rt.segments) != len(segs) {
				continue
			}
			for i, rs := range rt.segments {
				if !isWildcard(rs) && !strings.EqualFold(rs, segs[i]) {
					continue outer
				}
			}
			for i, rs := range rt.segments {
				if !isWildcard(rs) {
					segs[i] = rs
				}
			}
			return "/" + strings.Join(segs, "/")
		}
		return p
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.EscapedPath()
		if len(p) > 1 {
			p = strings.TrimSuffix(p, "/")
		}
		if !strings.HasPrefix(p, "/") || path.Clean(p) != p {
			s.notFound(w, r)
			return
		}
		canonical := canonicalPath(p)
		if canonical == r.URL.EscapedPath() {
			s.mux.ServeHTTP(w, r)
			return
		}
		unescaped, err := url.PathUnescape(canonical)
		if err != nil {
			s.notFound(w, r)
			return
		}
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.Path, u.RawPath = unescaped, canonical
		r2.URL = &u
		s.mux.ServeHTTP(w, r2)
	})
}

// routed is what a request's routing shows: its response and the route
// the observer was told.
type routed struct {
	Status int
	Header http.Header
	Body   string
	Route  string
}

// routeBoth serves one request through the server and through the same
// server routed by the mux alone. escapedPath must parse as a request
// URI: net/http answers 400 to any other.
func routeBoth(t testing.TB, method, escapedPath string) (got, want routed) {
	h := newHarness(t)
	obs := &recordingObserver{}
	h.srv.svc.Observer = obs
	reference := h.srv.withState(h.srv.withLogging(h.srv.withRecover(h.srv.muxRouting())))
	serve := func(handler http.Handler) routed {
		u, err := url.ParseRequestURI(escapedPath)
		if err != nil {
			t.Fatal(err)
		}
		r := (&http.Request{Method: method, URL: u, RequestURI: escapedPath, Host: "example.com",
			Header: http.Header{"X-Api-Key": {merchantKey}, "X-Request-Id": {"rid"}}}).WithContext(t.Context())
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		obs.mu.Lock()
		defer obs.mu.Unlock()
		route := obs.seen[len(obs.seen)-1].Route
		return routed{w.Code, w.Header(), w.Body.String(), route}
	}
	return serve(h.srv.Handler()), serve(reference)
}

func TestRoutingAgreesWithTheMux(t *testing.T) {
	paths := []string{
		"/v1/merchant/transactions/1", "/V1/Merchant/Transactions/1", "/V1/MERCHANT/TRANSACTIONS/1/",
		"/v1/merchant/transactions/99", "/v1/merchant/transactions/abc", "/v1/merchant/transactions/%31",
		"/v1/merchant/transactions/1%2F2", "/V1/Merchant/Transactions/1%2F2", "/v1/merchant/transactions/%41%2f", "/V1/Merchant/Transactions/%41",
		"/v1/merchant/transactions/%e2%82%ac/", "/v1/merchant/transaction%73/1",
		"/V1/Merchant/Transaction%73/1", "/v1/merchant/transaction%53/1", "/v1/%6Derchant/transactions",
		"/v1/merchant/transactions", "/V1/Merchant/Transactions/", "/v1/affiliate/invoices/2", "/V1/Affiliate/Invoices/1",
		"/v1/affiliate/banners", "/healthz", "/HEALTHZ/", "/readyz", "/metrics", "/", "//", "/nowhere",
		"/v1/merchant/./transactions/1", "/v1/merchant/transactions/..", "/v1/merchant/transactions/%2E%2E",
		"/v1/affiliate/banner\u017F", "/v1/affiliate/banner%C5%BF", "/v1/merchant/transactions//1", "*", "",
		"/v1/merchant/transactions/1/2", "/v1/merchant/transactions/%20", "/v1/merchant/transactions/a b",
	}
	for _, p := range paths {
		if _, err := url.ParseRequestURI(p); err != nil {
			continue
		}
		for _, method := range []string{"GET", "HEAD", "POST", "CONNECT", "get", "BREW"} {
			got, want := routeBoth(t, method, p)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %q differs from the mux (-mux +withRouting):\n%s", method, p, diff)
			}
		}
	}
}

func FuzzRoutingAgreesWithTheMux(f *testing.F) {
	for _, seed := range []string{"/V1/Merchant/Transactions/1/", "/v1/merchant/transaction%73/%41", "/HEALTHZ", "/v1//x"} {
		f.Add("GET", seed)
	}
	f.Fuzz(func(t *testing.T, method, escapedPath string) {
		if _, err := url.ParseRequestURI(escapedPath); err != nil || method == "" {
			t.Skip()
		}
		got, want := routeBoth(t, method, escapedPath)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s %q differs from the mux (-mux +withRouting):\n%s", method, escapedPath, diff)
		}
	})
}

func TestIsClean(t *testing.T) {
	for _, p := range []string{"/", "//", "/a", "/a/", "/a//b", "/.", "/..", "/a/.", "/a/..", "/./a", "/../a", "/.a", "/..a",
		"/a.", "/a..", "/a/b/c", "/a/./b", "/%2E", "/a/b/"} {
		if got, want := isClean(p), path.Clean(p) == p; got != want {
			t.Errorf("isClean(%q) = %v, want %v", p, got, want)
		}
	}
}

func FuzzIsClean(f *testing.F) {
	f.Add("/a/../b/")
	f.Fuzz(func(t *testing.T, p string) {
		p = "/" + p
		if got, want := isClean(p), path.Clean(p) == p; got != want {
			t.Errorf("isClean(%q) = %v, want %v", p, got, want)
		}
	})
}

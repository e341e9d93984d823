package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// requestState is what the middleware learns about a request and the
// handlers, the error writer and the request log share.
type requestState struct {
	id      string
	query   query
	neg     negotiation
	ns      string // XML namespace of error bodies: the path's account type
	rw      *responseWriter
	route   string            // the route table's pattern, or routeUnmatched
	account *afftrack.Account // once authenticated
	release func()            // frees the rate limiter's concurrency slot
	gone    bool              // aborted because the client went away
}

type stateKey struct{}

// stateOf returns the state withState attached to r.
func stateOf(r *http.Request) *requestState {
	return r.Context().Value(stateKey{}).(*requestState)
}

// withState starts every request: it settles the request id, parses the
// query, negotiates the format and sets the headers every response
// carries, before anything can fail.
func (s *Server) withState(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &requestState{id: requestID(r.Header.Get("X-Request-Id")), query: parseQuery(r.URL.RawQuery), route: routeUnmatched}
		st.neg = negotiateRequest(r, st.query)
		st.ns = s.namespace(r.URL.EscapedPath())
		h := w.Header()
		h.Set("X-Request-Id", st.id)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Vary", "Accept, Content-Type")
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), stateKey{}, st)))
	})
}

// withRoute records the route pattern a request matched, for the metrics.
func withRoute(pattern string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stateOf(r).route = pattern
		next.ServeHTTP(w, r)
	})
}

// statusClientGone is the status reported (in the log and the metrics,
// never on the wire) for a request whose client went away before its
// response was complete: nginx's "client closed request".
const statusClientGone = 499

// withLogging writes one log line per request and reports it to the
// observer, even when the handler panics, and frees the rate limiter's
// slot only once the response is complete, so the concurrency limit covers
// streaming.
func (s *Server) withLogging(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r)
		rw := &responseWriter{ResponseWriter: w, head: r.Method == http.MethodHead}
		st.rw = rw
		start := time.Now()
		defer func() {
			if st.release != nil {
				st.release()
			}
			status := rw.status
			switch {
			case st.gone:
				status = statusClientGone
			case !rw.wroteHeader:
				status = http.StatusOK
			}
			duration := time.Since(start)
			attrs := []any{
				"method", r.Method,
				"url", redactedURL(r.URL),
				"status", status,
				"bytes", rw.bytes,
				"duration", duration,
				"request_id", st.id,
			}
			if st.account != nil {
				attrs = append(attrs, "account", st.account.Ref.String())
			}
			s.logger.InfoContext(r.Context(), "request", attrs...)
			s.svc.Observer.ObserveRequest(st.route, r.Method, status, duration)
		}()
		next.ServeHTTP(rw, r)
	})
}

// withRecover turns a handler's panic into a logged 500, so one bad
// request never takes the server down. If the response was already under
// way it can no longer be answered well, so the connection is aborted and
// the client sees a truncated response; so is it when the client has gone.
// A panic is a bug whoever is listening, so it is always logged as an
// internal error.
func (s *Server) withRecover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			} else if v == http.ErrAbortHandler {
				panic(v)
			}
			err := fmt.Errorf("panic: %v\n%s", v, debug.Stack())
			st := stateOf(r)
			if st.rw.wroteHeader || r.Context().Err() != nil {
				s.logInternal(r, err)
				st.gone = r.Context().Err() != nil
				panic(http.ErrAbortHandler)
			}
			s.writeError(w, r, err)
		}()
		next.ServeHTTP(w, r)
	})
}

// withCanonicalPath lets paths match case-insensitively and with a
// trailing slash: it strips one trailing slash and lower-cases the literal
// segments of the route the path has the shape of, leaving wildcard
// segments as written so error messages echo them. A path that is not
// clean names no route; it is answered 404 here, before the mux would
// redirect it.
func (s *Server) withCanonicalPath(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.EscapedPath()
		if len(p) > 1 {
			p = strings.TrimSuffix(p, "/")
		}
		if !strings.HasPrefix(p, "/") || path.Clean(p) != p {
			s.notFound(w, r)
			return
		}
		canonical := s.canonicalPath(p)
		if canonical == r.URL.EscapedPath() {
			next.ServeHTTP(w, r)
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
		next.ServeHTTP(w, r2)
	})
}

// canonicalPath returns the escaped path p with the literal segments of the
// first route of its shape lower-cased, or p unchanged when no route has
// its shape.
func (s *Server) canonicalPath(p string) string {
	segs := strings.Split(p[1:], "/")
outer:
	for _, route := range s.routeSegments {
		if len(route) != len(segs) {
			continue
		}
		for i, rs := range route {
			if !strings.HasPrefix(rs, "{") && !strings.EqualFold(rs, segs[i]) {
				continue outer
			}
		}
		for i, rs := range route {
			if !strings.HasPrefix(rs, "{") {
				segs[i] = rs
			}
		}
		return "/" + strings.Join(segs, "/")
	}
	return p
}

// namespace returns the XML namespace for a path: Affiliate when its
// account-type segment says so, Merchant otherwise (unknown paths included).
func (s *Server) namespace(escapedPath string) string {
	segs := strings.SplitN(strings.TrimPrefix(escapedPath, "/"), "/", 3)
	if len(segs) >= 2 && strings.EqualFold(segs[1], afftrack.KindAffiliate.String()) {
		return s.nsAffiliate
	}
	return s.nsMerchant
}

// requestID returns the client's request id when it is sane (1 to 128 of
// [A-Za-z0-9._-]), so a client can correlate its logs with ours, and a new
// random one otherwise, so nothing odd reaches a header or a log.
func requestID(id string) string {
	if len(id) >= 1 && len(id) <= 128 && strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == "" {
		return id
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// redactedURL returns u's path and query for the log with the value of
// every apiKey parameter, in any case of the name, replaced by REDACTED.
// It splits on ';' as well as '&' so no spelling of the query slips a key
// through.
func redactedURL(u *url.URL) string {
	p := u.EscapedPath()
	if u.RawQuery == "" {
		if u.ForceQuery {
			return p + "?"
		}
		return p
	}
	var b strings.Builder
	b.WriteString(p)
	b.WriteByte('?')
	raw := u.RawQuery
	for {
		i := strings.IndexAny(raw, "&;")
		pair := raw
		if i >= 0 {
			pair = raw[:i]
		}
		name, _, hasValue := strings.Cut(pair, "=")
		if n, err := url.QueryUnescape(name); hasValue && (err != nil || strings.EqualFold(n, "apikey")) {
			// A name that does not unescape might hide apiKey; redact it too.
			b.WriteString(name)
			b.WriteString("=REDACTED")
		} else {
			b.WriteString(pair)
		}
		if i < 0 {
			break
		}
		b.WriteByte(raw[i])
		raw = raw[i+1:]
	}
	return b.String()
}

// responseWriter records the status and size of a response for the log,
// tells the recover middleware whether the response is under way, and
// drops the body of a HEAD response so HEAD answers exactly like GET
// without one.
type responseWriter struct {
	http.ResponseWriter
	head        bool
	wroteHeader bool
	status      int
	bytes       int64
}

// WriteHeader records the status once and passes it on.
func (w *responseWriter) WriteHeader(status int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = status, true
	}
	w.ResponseWriter.WriteHeader(status)
}

// Write passes the body on, counting it, except for HEAD.
func (w *responseWriter) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.head {
		return len(p), nil
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

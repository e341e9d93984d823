package api

import (
	"net/http"
	"net/url"
	"strings"
)

// withCanonicalPath makes the request's path canonical for the mux, which
// holds every route of the table: the contract's paths match ignoring case
// and with one trailing slash, so the path is lower-cased and one trailing
// slash stripped. A path that is not clean (an empty, "." or ".." segment)
// names no route; it is a 404 here, where the mux would redirect it. The
// handlers read wildcard values with pathValue, as the client wrote them.
func (s *Server) withCanonicalPath(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		canonical, ok := canonicalPath(stateOf(r).path)
		if !ok {
			s.notFound(w, r)
			return
		}
		unescaped, err := url.PathUnescape(canonical)
		if err != nil {
			s.notFound(w, r)
			return
		}
		u := *r.URL
		u.Path, u.RawPath = unescaped, canonical
		r2 := *r
		r2.URL = &u
		next.ServeHTTP(w, &r2)
	})
}

// canonicalPath returns the escaped path p as the routes are matched: one
// trailing slash trimmed, in lower case; or false for a path no route
// takes (not clean, or not absolute).
func canonicalPath(p string) (string, bool) {
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	if !strings.HasPrefix(p, "/") || !isClean(p) {
		return "", false
	}
	return strings.ToLower(p), true
}

// isClean reports whether path.Clean(p) == p for a p that starts with a
// slash, without cleaning it: p is "/", or none of its segments is empty,
// "." or "..".
func isClean(p string) bool {
	if p == "/" {
		return true
	}
	for rest := p[1:]; ; {
		seg, after, more := strings.Cut(rest, "/")
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		if !more {
			return true
		}
		rest = after
	}
}

// withRoute records the route pattern the mux matched, for the log and
// the metrics, which must never see the raw path.
func withRoute(pattern string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stateOf(r).route = pattern
		next.ServeHTTP(w, r)
	})
}

// pathValue returns the value of the wildcard name in the request's path,
// unescaped but otherwise as the client wrote it (the mux saw it
// lower-cased), or "" when the route has no such wildcard.
func pathValue(r *http.Request, name string) string {
	i := strings.Index(stateOf(r).route, "{"+name+"}")
	if i < 0 {
		return ""
	}
	n := strings.Count(stateOf(r).route[:i], "/") // the wildcard's segment, from 1
	segs := strings.Split(strings.TrimSuffix(stateOf(r).path, "/"), "/")
	if n >= len(segs) {
		return ""
	}
	v, err := url.PathUnescape(segs[n])
	if err != nil {
		return segs[n]
	}
	return v
}

package api

import (
	"net/http"
	"net/url"
	"strings"
)

// compiledRoute is a route of the table, split for matching.
type compiledRoute struct {
	pattern  string       // as registered, e.g. /v1/merchant/transactions/{id}: the metrics' label
	segments []string     // pattern's segments, without the leading slash
	wildcard int          // index of the segment that is a wildcard such as {id}; -1 for none
	name     string       // the wildcard's name, e.g. id
	handler  http.Handler // serves GET and HEAD
}

// compileRoute splits a route of the table.
func compileRoute(rt route) compiledRoute {
	c := compiledRoute{pattern: rt.path, segments: strings.Split(rt.path[1:], "/"), wildcard: -1, handler: rt.handler}
	for i, seg := range c.segments {
		if isWildcard(seg) {
			c.wildcard, c.name = i, strings.Trim(seg, "{}")
		}
	}
	return c
}

// isWildcard reports whether a segment of the route table is a wildcard
// such as {id}.
func isWildcard(routeSegment string) bool { return strings.HasPrefix(routeSegment, "{") }

// withRouting routes a request. Paths match case-insensitively and with a
// trailing slash: as if one trailing slash were stripped and the literal
// segments of the route the path has the shape of lower-cased, leaving
// wildcard segments as written so error messages echo them. A path that
// is not clean names no route; it is answered 404 here, before the mux
// would redirect it.
//
// A path that has the shape of a route is served here, as s.mux (which
// holds every route, each wrapped by withRoute) would serve the canonical
// path:
// that route's handler for GET and HEAD, a 405 for any other method, with
// the wildcard's value unescaped as the mux does. The route table has no
// two routes of one shape, so the mux could pick no other; and serving the
// route here spares every API call the mux's own cleaning and matching,
// the canonical path's string and the URL that carries it. Any other path
// goes to the mux, with the canonical URL in place of r's own (r is the
// request withState made for this server, so no caller sees the change,
// and withLogging keeps the client's URL for the log). Handlers read the
// wildcard with pathValue, never r.PathValue.
func (s *Server) withRouting() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r)
		escaped := st.path // r.URL's, which nothing has changed yet
		p := escaped
		if len(p) > 1 {
			p = strings.TrimSuffix(p, "/")
		}
		if !strings.HasPrefix(p, "/") || !isClean(p) {
			s.notFound(w, r)
			return
		}
		rt, value, canonical := s.matchShape(p)
		if rt == nil {
			s.serveMux(w, r, p, escaped)
			return
		}
		if !canonical || p != escaped {
			// The canonical path differs from the request's, so it would
			// have been unescaped for the mux; its escapes are p's.
			if _, err := url.PathUnescape(p); err != nil {
				s.notFound(w, r)
				return
			}
		}
		st.route = rt
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			s.methodNotAllowed(w, r)
			return
		}
		if rt.wildcard >= 0 {
			if v, err := url.PathUnescape(value); err == nil {
				value = v // else the mux too keeps the segment as written
			}
			st.wildcardValue = value
		}
		rt.handler.ServeHTTP(w, r)
	})
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

// serveMux hands the mux a path of no route's shape, p being the
// request's escaped path with one trailing slash stripped.
func (s *Server) serveMux(w http.ResponseWriter, r *http.Request, p, escaped string) {
	if p == escaped {
		s.mux.ServeHTTP(w, r)
		return
	}
	unescaped, err := url.PathUnescape(p)
	if err != nil {
		s.notFound(w, r)
		return
	}
	u := *r.URL
	u.Path, u.RawPath = unescaped, p
	r.URL = &u
	s.mux.ServeHTTP(w, r)
}

// matchShape returns the first route whose shape the escaped path p has
// (as many segments, the literal ones equal to p's ignoring case), p's
// segment at its wildcard, and whether p spells every literal segment as
// the route does; a nil route when none has its shape. p starts with a
// slash.
func (s *Server) matchShape(p string) (rt *compiledRoute, wildcard string, canonical bool) {
	n := strings.Count(p, "/")
outer:
	for i := range s.compiled {
		rt := &s.compiled[i]
		if len(rt.segments) != n {
			continue
		}
		canonical, wildcard = true, ""
		rest := p[1:]
		for j, rs := range rt.segments {
			seg, after, _ := strings.Cut(rest, "/")
			rest = after
			if j == rt.wildcard {
				wildcard = seg
				continue
			}
			if !strings.EqualFold(rs, seg) {
				continue outer
			}
			canonical = canonical && rs == seg
		}
		return rt, wildcard, canonical
	}
	return nil, "", false
}

// withRoute records the route a request the mux matched and its
// wildcard's value, as withRouting does for the requests it routes.
func withRoute(rt *compiledRoute, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r)
		st.route = rt
		if rt.wildcard >= 0 {
			st.wildcardValue = r.PathValue(rt.name)
		}
		next.ServeHTTP(w, r)
	})
}

// pathValue returns the value of the wildcard name in the request's path,
// or "" when its route has none of that name.
func pathValue(r *http.Request, name string) string {
	st := stateOf(r)
	if rt := st.route; rt != nil && rt.wildcard >= 0 && rt.name == name {
		return st.wildcardValue
	}
	return ""
}

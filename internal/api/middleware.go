package api

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// requestState is what the middleware learns about a request and the
// handlers, the error writer and the request log share.
//
// It is the request's context too, the parent's with the state as a
// value, and it holds the response writer, the query's parameters and the
// header values the server sets: each request costs this one allocation
// instead of one for each of those.
type requestState struct {
	context.Context // the request's own, before withState

	id            string
	path          string // the client's escaped path, read once
	query         query
	neg           negotiation
	ns            string // XML namespace of error bodies: the path's account type
	rw            responseWriter
	route         *compiledRoute    // the route the path matched; nil for none
	wildcardValue string            // the value of the route's wildcard, for pathValue
	account       *afftrack.Account // once authenticated
	release       func()            // frees the rate limiter's concurrency slot
	gone          bool              // aborted because the client went away

	params  [4]queryParam // backs query for up to 4 parameters, as many as most calls have
	headers [9]string     // backs the values setHeader sets
	nHeader int           // headers used
}

type stateKey struct{}

// Value returns the state for stateKey and asks the parent context for
// any other key, as context.WithValue would. Deadline, Done and Err are
// the parent's, so cancellation works as before, and a context derived
// from this one finds the parent's cancellation through Value as it
// would through a context.WithValue.
func (st *requestState) Value(key any) any {
	if key == (stateKey{}) {
		return st
	}
	return st.Context.Value(key)
}

// stateOf returns the state withState attached to r.
func stateOf(r *http.Request) *requestState {
	if st, ok := r.Context().(*requestState); ok {
		return st
	}
	return r.Context().Value(stateKey{}).(*requestState)
}

// Canonical names of the headers set through setHeader, which stores
// them as given, or read through headerValue.
const (
	headerAccept             = "Accept"
	headerAPIKey             = "X-Api-Key"
	headerRequestID          = "X-Request-Id"
	headerContentTypeOptions = "X-Content-Type-Options"
	headerVary               = "Vary"
	headerContentType        = "Content-Type"
	headerContentLength      = "Content-Length"
	headerRateLimitLimit     = "X-Ratelimit-Limit"
	headerRateLimitRemaining = "X-Ratelimit-Remaining"
	headerRateLimitReset     = "X-Ratelimit-Reset"
	headerRetryAfter         = "Retry-After"
)

// headerValue is h.Get(key) for a key in canonical form, which needs no
// canonicalizing on every call.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// setHeader sets h[key], key being in canonical form, to the single value
// v, as h.Set does, but with the value slice backed by the state's array
// rather than allocated. Each slice's capacity is its length, so an Add
// to the header copies it instead of overwriting a neighbour.
func (st *requestState) setHeader(h http.Header, key, v string) {
	i := st.nHeader
	if i == len(st.headers) {
		h[key] = []string{v}
		return
	}
	st.nHeader++
	st.headers[i] = v
	h[key] = st.headers[i : i+1 : i+1]
}

// withState starts every request: it settles the request id, parses the
// query, negotiates the format and sets the headers every response
// carries, before anything can fail.
func (s *Server) withState(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &requestState{Context: r.Context(), id: requestID(headerValue(r.Header, headerRequestID))}
		st.query = parseQuery(r.URL.RawQuery, st.params[:0])
		st.neg = negotiateRequest(r, st.query)
		st.path = r.URL.EscapedPath()
		st.ns = s.namespace(st.path)
		h := w.Header()
		st.setHeader(h, headerRequestID, st.id)
		st.setHeader(h, headerContentTypeOptions, "nosniff")
		st.setHeader(h, headerVary, "Accept, Content-Type")
		next.ServeHTTP(w, r.WithContext(st))
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
		st.rw = responseWriter{ResponseWriter: w, head: r.Method == http.MethodHead}
		// withRouting may give the mux another URL; the log shows the
		// client's, whose escaped path is st.path.
		u := r.URL
		defer s.endRequest(r, u, st, time.Now())
		next.ServeHTTP(&st.rw, r)
	})
}

// endRequest frees the rate limiter's slot, logs the request line and
// reports the request to the observer.
func (s *Server) endRequest(r *http.Request, u *url.URL, st *requestState, start time.Time) {
	if st.release != nil {
		st.release()
	}
	status := st.rw.status
	switch {
	case st.gone:
		status = statusClientGone
	case !st.rw.wroteHeader:
		status = http.StatusOK
	}
	end := time.Now()
	duration := end.Sub(start)
	ctx := r.Context()
	if h := s.logger.Handler(); h.Enabled(ctx, slog.LevelInfo) {
		// The record is made here and handed to the handler, as
		// Logger.LogAttrs would, but stamped with the end just read and
		// the program counter of this line found once, sparing a clock
		// reading and a stack walk per request. Attrs rather than
		// alternating arguments: nothing is boxed in an interface, and
		// the values are the same kinds slog would have made of them.
		rec := slog.NewRecord(end, slog.LevelInfo, "request", s.requestLinePC())
		attrs := [...]slog.Attr{
			slog.String("method", r.Method),
			slog.String("url", redactedURL(st.path, u)),
			slog.Int("status", status),
			slog.Int64("bytes", st.rw.bytes),
			slog.Duration("duration", duration),
			slog.String("request_id", st.id),
			{},
		}
		n := len(attrs) - 1
		if st.account != nil {
			attrs[n] = slog.String("account", st.account.Ref.String())
			n++
		}
		rec.AddAttrs(attrs[:n]...)
		_ = h.Handle(ctx, rec)
	}
	route := routeUnmatched
	if st.route != nil {
		route = st.route.pattern
	}
	s.svc.Observer.ObserveRequest(route, r.Method, status, duration)
}

// requestLinePC returns the program counter of its caller, endRequest,
// where the request line is logged: the source a handler with AddSource
// reports. It is found once per server, as it is the same for every line.
func (s *Server) requestLinePC() uintptr {
	if pc := s.linePC.Load(); pc != 0 {
		return uintptr(pc)
	}
	var pcs [1]uintptr
	runtime.Callers(2, pcs[:]) // skip runtime.Callers and requestLinePC
	s.linePC.Store(uint64(pcs[0]))
	return pcs[0]
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

// namespace returns the XML namespace for a path: Affiliate when its
// account-type segment (the second) says so, Merchant otherwise (unknown
// paths included).
func (s *Server) namespace(escapedPath string) string {
	_, rest, ok := strings.Cut(strings.TrimPrefix(escapedPath, "/"), "/")
	if seg, _, _ := strings.Cut(rest, "/"); ok && strings.EqualFold(seg, afftrack.KindAffiliate.String()) {
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
	// A request id labels a request for correlation; it guards nothing,
	// so the runtime's generator (ChaCha8 seeded by the system, per
	// thread) serves, without crypto/rand's system call.
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	var h [2 * len(b)]byte
	hex.Encode(h[:], b[:])
	return string(h[:])
}

// redactedURL returns u's path, p being its escaped path, and query for
// the log with the value of every apiKey parameter, in any case of the
// name, replaced by REDACTED. It splits on ';' as well as '&' so no
// spelling of the query slips a key through.
func redactedURL(p string, u *url.URL) string {
	if u.RawQuery == "" {
		if u.ForceQuery {
			return p + "?"
		}
		return p
	}
	raw := u.RawQuery
	var b strings.Builder
	// Room for one key shorter than its REDACTED: one allocation in the
	// usual case.
	b.Grow(len(p) + 1 + len(raw) + len("REDACTED"))
	b.WriteString(p)
	b.WriteByte('?')
	for {
		i := pairEnd(raw)
		pair := raw
		if i >= 0 {
			pair = raw[:i]
		}
		name, _, hasValue := strings.Cut(pair, "=")
		if hasValue && isAPIKeyName(name) {
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

// pairEnd returns the index of the first '&' or ';' of a raw query, or -1.
func pairEnd(raw string) int {
	for i := 0; i < len(raw); i++ {
		if raw[i] == '&' || raw[i] == ';' {
			return i
		}
	}
	return -1
}

// isAPIKeyName reports whether the raw name of a query parameter must
// have its value redacted: it names apiKey in any case, or it does not
// unescape, so it might hide apiKey.
func isAPIKeyName(name string) bool {
	n, err := url.QueryUnescape(name)
	return err != nil || strings.EqualFold(n, "apikey")
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

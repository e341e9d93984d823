package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/afftrack/afftrack"
)

// requestState is what the middleware learns about a request and the
// handlers, the error writer and the request log share. withState puts it
// in the request's context.
type requestState struct {
	id      string
	path    string // the client's escaped path, read once
	query   query
	neg     negotiation
	ns      string // XML namespace of error bodies: the path's account type
	rw      *responseWriter
	route   string            // the route pattern the path matched; "" for none
	account *afftrack.Account // once authenticated
	release func()            // frees the rate limiter's concurrency slot
	gone    bool              // aborted because the client went away
}

type stateKey struct{}

// stateOf returns the state withState attached to r.
func stateOf(r *http.Request) *requestState {
	return r.Context().Value(stateKey{}).(*requestState)
}

// Canonical names of the headers the server sets or reads.
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

// withState starts every request: it settles the request id, parses the
// query, negotiates the format and sets the headers every response
// carries, before anything can fail.
func (s *Server) withState(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &requestState{id: requestID(r.Header.Get(headerRequestID))}
		st.query = parseQuery(r.URL.RawQuery)
		st.neg = negotiateRequest(r, st.query)
		st.path = r.URL.EscapedPath()
		st.ns = s.namespace(st.path)
		h := w.Header()
		h.Set(headerRequestID, st.id)
		h.Set(headerContentTypeOptions, "nosniff")
		h.Set(headerVary, "Accept, Content-Type")
		// No cache keeps an answer: an account's data asked for with the
		// key in X-Api-Key has the same URL as another account's, and on
		// the tracking routes (tracking.md section 2, a 404 or a 405 too)
		// a click's redirect, cookie or click id would reach the next
		// customer. The OpenAPI document sets its own.
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), stateKey{}, st)))
	})
}

// withHTTP1 answers the HTTP/2 connection preface ("PRI * HTTP/2.0"),
// which net/http hands to the handler so that an h2c server could take
// it over, 505 and closes the connection, as net/http answers any other
// HTTP/2 request sent as text: the server speaks HTTP/1 only.
func withHTTP1(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor >= 2 {
			w.Header().Set("Connection", "close")
			w.Header().Set(headerContentType, "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusHTTPVersionNotSupported)
			io.WriteString(w, "unsupported protocol version")
			return
		}
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
		st.rw = &responseWriter{ResponseWriter: w, head: r.Method == http.MethodHead,
			rc: http.NewResponseController(w), writeTimeout: s.cfg.WriteTimeout}
		defer s.endRequest(r, st, time.Now())
		next.ServeHTTP(st.rw, r)
	})
}

// endRequest frees the rate limiter's slot, logs the request line and
// reports the request to the observer.
func (s *Server) endRequest(r *http.Request, st *requestState, start time.Time) {
	if st.release != nil {
		st.release()
	}
	status := st.rw.status
	switch {
	case st.gone, st.rw.failed:
		// A handler that meets a failed write aborts (abortClientGone);
		// one that cannot, such as the metrics', is reported here alike.
		status = statusClientGone
	case !st.rw.wroteHeader:
		status = http.StatusOK
	}
	duration := time.Since(start)
	attrs := []slog.Attr{
		slog.String("method", clipped(r.Method, maxMethodQuoted)),
		slog.String("url", clipped(redactedURL(st.path, r.URL), maxLoggedText)),
		slog.Int("status", status),
		slog.Int64("bytes", st.rw.bytes),
		slog.Duration("duration", duration),
		slog.String("request_id", st.id),
	}
	if st.account != nil {
		attrs = append(attrs, slog.String("account", st.account.Ref.String()))
	}
	s.logger.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
	route := routeUnmatched
	if st.route != "" {
		route = st.route
	}
	s.svc.Observer.ObserveRequest(route, r.Method, status, duration)
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
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails on the platforms Go supports
	return hex.EncodeToString(b[:])
}

// maxLoggedText bounds a text of the client's that a log line or an
// answer quotes (a URL, a reason quoting a value): a request of 64 KiB
// of headers would otherwise write as much to the log, at no cost to its
// sender, on every path, a refused one's too.
const maxLoggedText = 2048

// clipped returns s cut to at most max bytes, at a character's start,
// saying how much was left out.
func clipped(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("…(%d more bytes)", len(s)-cut)
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
		if hasValue && isRedactedName(name) {
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

// isRedactedName reports whether the raw name of a query parameter must
// have its value redacted: it is the key parameter, or it does not
// unescape, so it might hide it, or some Unicode case mapping makes it the
// key parameter's name, or it is empty, or its letters and digits, folded,
// name a credential ("api_key", "apiKey[]", " apiKey", "token"): a client
// that spells it so may well have sent a key, though the server does not
// take it as one. Redacting a harmless value costs the log nothing.
func isRedactedName(raw string) bool {
	n, err := url.QueryUnescape(raw)
	if err != nil || n == "" || isAPIKeyName(n) || strings.EqualFold(n, paramAPIKey) ||
		isAPIKeyName(strings.ToLower(n)) || isAPIKeyName(strings.ToUpper(n)) {
		return true
	}
	folded := strings.Map(func(c rune) rune {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			return unicode.ToLower(unicode.SimpleFold(c))
		}
		return -1
	}, strings.ToLower(n))
	for _, w := range credentialWords {
		if strings.Contains(folded, w) {
			return true
		}
	}
	return false
}

// credentialWords are the words a parameter name holding a credential
// has, once folded to letters and digits.
var credentialWords = []string{"key", "token", "secret", "password", "auth"}

// paramAPIKey is the query parameter that carries the API key.
const paramAPIKey = "apiKey"

// isAPIKeyName reports whether an unescaped query parameter name is the
// key parameter. It is the one test of that, used both to find the key
// and to redact it from the log, so the two can never disagree.
func isAPIKeyName(name string) bool { return asciiEqualFold(name, paramAPIKey) }

// responseWriter records the status and size of a response for the log,
// tells the recover middleware whether the response is under way, and
// drops the body of a HEAD response so HEAD answers exactly like GET
// without one. Each write must make progress within writeTimeout: a
// client that stops reading is cut then, instead of holding its account's
// concurrency slot and a database connection for as long as it likes.
type responseWriter struct {
	http.ResponseWriter
	rc           *http.ResponseController
	writeTimeout time.Duration // 0: none
	head         bool
	wroteHeader  bool
	status       int
	bytes        int64
	failed       bool   // a write failed: the client went away or stopped reading
	beforeHeader func() // run once, as the header is written (withoutBody)
}

// WriteHeader records the status once and passes it on.
func (w *responseWriter) WriteHeader(status int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = status, true
		if w.beforeHeader != nil {
			w.beforeHeader()
		}
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
	if w.writeTimeout > 0 {
		// An error means the connection cannot take deadlines (a test's
		// recorder); the write goes on without one.
		_ = w.rc.SetWriteDeadline(time.Now().Add(w.writeTimeout))
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	if err != nil {
		w.failed = true
	}
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

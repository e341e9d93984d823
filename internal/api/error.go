package api

import (
	"errors"
	"net/http"
	"strconv"
	"sync"

	"github.com/afftrack/afftrack"
)

// The contract's fixed error texts (§6), the reference's own wording.
const (
	messageUnauthorized = "The API key is missing, invalid, or for a different account type; or the user account has been suspended or closed."
	messageNotFound     = "The requested item could not be found."
	messageRateLimited  = "The API call rate limit for the user account has been exceeded."
	messageInternal     = "An unexpected error occurred while processing your request."
)

// errorStatus maps an afftrack error code to its HTTP status. It is the one
// place that does; an unknown code is an internal error.
func errorStatus(code string) int {
	switch code {
	case afftrack.EINVALID:
		return http.StatusBadRequest
	case afftrack.EUNAUTHORIZED:
		return http.StatusUnauthorized
	case afftrack.ENOTFOUND:
		return http.StatusNotFound
	case afftrack.ENOTALLOWED:
		return http.StatusMethodNotAllowed
	case afftrack.ERATELIMIT:
		return http.StatusTooManyRequests
	case afftrack.ECONFLICT:
		return http.StatusConflict
	case afftrack.EUNAVAILABLE:
		return http.StatusServiceUnavailable
	case afftrack.EUNPROCESSABLE:
		return http.StatusUnprocessableEntity
	}
	return http.StatusInternalServerError
}

// errorMessage returns the text a client sees for err: the contract's
// fixed text for 401, 404, 429 and 500, so no cause (a key, SQL, a stack)
// ever leaks, and the error's own message otherwise.
func errorMessage(code string, err error) string {
	switch code {
	case afftrack.EUNAUTHORIZED:
		return messageUnauthorized
	case afftrack.ENOTFOUND:
		return messageNotFound
	case afftrack.ERATELIMIT:
		return messageRateLimited
	case afftrack.EINVALID, afftrack.ENOTALLOWED, afftrack.ECONFLICT, afftrack.EUNAVAILABLE, afftrack.EUNPROCESSABLE:
		return afftrack.ErrorMessage(err)
	}
	return messageInternal
}

// writeError answers r with err: its status and an error body in the
// negotiated format. An internal error's cause goes to the log with the
// request id, never to the client. An internal error met after the client
// went away (its context is canceled) is most likely that cancellation
// surfacing from a store or the rate limiter; there is no one to answer,
// so the request is aborted quietly.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := afftrack.ErrorCode(err)
	status := errorStatus(code)
	if status == http.StatusInternalServerError {
		if r.Context().Err() != nil {
			s.abortClientGone(r, err)
		}
		s.logInternal(r, err)
	}
	if status == http.StatusServiceUnavailable && carriesCause(err) {
		// The database refused (it has no space left): the client is
		// told to retry, and the operator, who must act, is told why.
		s.logger.ErrorContext(r.Context(), "unavailable", "request_id", stateOf(r).id, "error", err)
	}
	if status == http.StatusServiceUnavailable && w.Header().Get(headerRetryAfter) == "" {
		// Every 503 says when to come back; a handler may have said
		// sooner.
		w.Header().Set(headerRetryAfter, "5")
	}
	st := stateOf(r)
	buf := getBody()
	b := st.neg.open(*buf)
	b = appendErrorBody(b, st.neg.format, st.ns, errorMessage(code, err))
	s.respond(w, st, status, st.neg.close(b))
	putBody(buf, b)
}

// carriesCause reports whether the *afftrack.Error that gives err its
// code has a Cause: a database's refusal (a full disk) that the operator
// must hear of, not one of the server's own bounds or a lock another
// process holds for a while.
func carriesCause(err error) bool {
	var e *afftrack.Error
	return errors.As(err, &e) && e.Cause != nil
}

// logInternal logs an internal error with the request id. Every internal
// error passes here: the ones answered 500 and the ones that abort a
// response already under way.
func (s *Server) logInternal(r *http.Request, err error) {
	s.logger.ErrorContext(r.Context(), "internal error", "request_id", stateOf(r).id, "error", err)
}

// abortClientGone ends a request whose client went away (clientGone) with
// an aborted response, since a well-formed one would be written to no one
// (and an aborted stream must not look complete). It does not return.
func (s *Server) abortClientGone(r *http.Request, err error) {
	s.clientGone(r, err)
	panic(http.ErrAbortHandler)
}

// clientGone logs, at INFO rather than as an internal error, since nothing
// is wrong with the service, that r's client went away, and has r counted
// with status 499.
func (s *Server) clientGone(r *http.Request, err error) {
	st := stateOf(r)
	st.gone = true
	s.logger.InfoContext(r.Context(), "client went away", "request_id", st.id, "error", err)
}

// appendErrorBody appends the error document: {"Message":"..."} or
// <Error ...><Message>...</Message></Error> in namespace ns.
func appendErrorBody(b []byte, f format, ns, message string) []byte {
	if f == formatXML {
		b = appendXMLOpen(b, "Error", ns)
		b = appendXMLString(b, "Message", message)
		return appendXMLClose(b, "Error")
	}
	b = append(b, `{"Message":`...)
	b = appendJSONString(b, message)
	return append(b, '}')
}

// respond writes a complete body with its negotiated Content-Type and its
// length.
func (s *Server) respond(w http.ResponseWriter, st *requestState, status int, body []byte) {
	h := w.Header()
	h.Set(headerContentType, st.neg.contentType())
	h.Set(headerContentLength, strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// maxPooledBody is the largest body buffer kept for reuse: enough for any
// one record or error, while a large banner list's buffer goes to the
// garbage collector rather than staying in the pool.
const maxPooledBody = 64 << 10

// bodyPool holds buffers for complete bodies, so a response costs no
// buffer of its own. A buffer can go back once written: a ResponseWriter,
// like any io.Writer, keeps nothing of what it is given.
var bodyPool = sync.Pool{New: func() any {
	b := make([]byte, 0, 4096)
	return &b
}}

// getBody returns an empty buffer from the pool.
func getBody() *[]byte {
	buf := bodyPool.Get().(*[]byte)
	*buf = (*buf)[:0]
	return buf
}

// putBody returns buf to the pool, holding b, the body built in it (which
// may have outgrown it), once b has been written.
func putBody(buf *[]byte, b []byte) {
	if cap(b) > maxPooledBody {
		return
	}
	*buf = b[:0]
	bodyPool.Put(buf)
}

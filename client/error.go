package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Error is an answer other than 2xx. Use errors.As to reach it:
//
//	var apiErr *client.Error
//	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound { ... }
type Error struct {
	// StatusCode is the HTTP status: 400 a bad parameter, 401 a bad key
	// or one of the other account type, 404 an id the key may not see,
	// 409 and 422 a conversion that cannot be taken, 429 the rate limit,
	// 503 a busy server, 500 the server's own fault.
	StatusCode int

	// Message is the server's explanation, the contract's Message; a 400
	// names the parameter and what is wrong with it. When the body is not
	// the contract's error (a proxy's page, say) it holds the start of
	// the body instead.
	Message string

	// RetryAfter is how long the server asks to wait before trying again
	// (its Retry-After header, on 429 and 503); 0 when it said nothing.
	RetryAfter time.Duration

	// RequestID is the server's X-Request-Id for the call: quote it when
	// reporting a problem, the server's log line carries it.
	RequestID string
}

// Error returns the status and the server's message.
func (e *Error) Error() string {
	s := fmt.Sprintf("afftrack: %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return s
}

// maxErrorBody bounds how much of a body that is not the contract's
// error goes into Message, so an HTML page does not flood a log.
const maxErrorBody = 256

// newError reads an error answer: the contract's {"Message": "..."} body,
// or the start of whatever else came, and the Retry-After header.
func newError(resp *http.Response, body []byte) *Error {
	e := &Error{StatusCode: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id")}
	var m struct{ Message *string }
	if err := json.Unmarshal(body, &m); err == nil && m.Message != nil {
		e.Message = *m.Message
	} else {
		e.Message = truncate(strings.TrimSpace(string(body)), maxErrorBody)
	}
	e.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	return e
}

// retryAfter reads a Retry-After value: whole seconds, as afftrack sends,
// or an HTTP date, as a proxy in front of it might.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now).Round(time.Second)
	}
	return 0
}

// truncate cuts s to at most n bytes on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

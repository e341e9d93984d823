package afftrack

import (
	"errors"
	"fmt"
)

// Error codes. Each maps to exactly one HTTP status in the api package.
const (
	EINVALID       = "invalid"       // a parameter or a record could not be parsed or breaks a rule
	EUNAUTHORIZED  = "unauthorized"  // key missing, unknown, revoked, of the other kind, or account not active
	ENOTFOUND      = "not_found"     // the requested item does not exist or is not the caller's
	ENOTALLOWED    = "not_allowed"   // the path exists but not for this method
	ERATELIMIT     = "rate_limited"  // the account's call budget is spent
	ECONFLICT      = "conflict"      // the item changed, or is not in the state the request needs
	EUNPROCESSABLE = "unprocessable" // well formed, but nothing in it can be done (a conversion nothing credits)
	EUNAVAILABLE   = "unavailable"   // the server is at one of its bounds; retry shortly
	EINTERNAL      = "internal"      // anything unexpected; its cause is logged, never shown
)

// Error is the domain's error. Its Message is safe to show to a client;
// internal causes travel as ordinary wrapped errors and are reported as
// EINTERNAL.
type Error struct {
	Code    string
	Message string
	// Cause, if set, is what the operator must hear of an error the
	// client is told of by its code alone: the database's refusal behind
	// an EUNAVAILABLE (a full disk). It is logged, never shown.
	Cause error
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("afftrack error: code=%s message=%s cause=%v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("afftrack error: code=%s message=%s", e.Code, e.Message)
}

// Unwrap returns the error's Cause.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err if it is (or wraps) an *Error, EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the client-safe message of err: the Message of an
// *Error, or a generic text for anything else.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return "An unexpected error occurred while processing your request."
}

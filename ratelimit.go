package afftrack

import (
	"context"
	"time"
)

// RateDecision is a rate limiter's answer for one call.
type RateDecision struct {
	Allowed bool

	// Limit, Remaining and Reset describe the window the X-RateLimit-*
	// headers report: the 60 s window, or the 24 h window when the
	// account has no per-minute limit. HasWindow is false when the
	// account has neither.
	HasWindow bool
	Limit     int64
	Remaining int64         // calls still accepted in that window after this one
	Reset     time.Duration // until the oldest counted call leaves that window; 0 if none is counted

	// RetryAfter is set on a refusal: how long until a call could be
	// accepted (at least one second once rounded up by the caller).
	RetryAfter time.Duration
}

// RateLimiter enforces per-account call limits: rolling windows that never
// accept more than the limit in any window, and a cap on requests in
// progress. Only accepted calls count.
type RateLimiter interface {
	// Acquire decides on one call of the account at time now. When the call
	// is allowed it is counted and holds a concurrency slot until release is
	// called; release is never nil when err is nil and may be called once
	// more than needed.
	Acquire(ctx context.Context, account AccountRef, limits Limits, now time.Time) (d RateDecision, release func(), err error)

	// Peek reports the account's budget at time now as the window fields
	// of a decision (HasWindow, Limit, Remaining, Reset), counting nothing
	// and taking no slot: for the answers of calls the limits do not
	// apply to, which still tell the client its budget.
	Peek(ctx context.Context, account AccountRef, limits Limits, now time.Time) (RateDecision, error)
}

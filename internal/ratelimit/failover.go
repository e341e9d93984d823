package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/afftrack/afftrack"
)

// failoverLogEvery is the least time between two warnings of a Failover:
// an outage fails every call, and one line a minute (with a count of the
// rest) says as much as thousands would.
const failoverLogEvery = time.Minute

// failClosedRetry is the RetryAfter of a call refused because the limiter
// could not be asked.
const failClosedRetry = time.Second

// Failover decides the calls its inner limiter (the Redis one) fails on,
// so that an outage of the shared store neither breaks the API nor goes
// unnoticed. Every failure calls onError (for a metric); a warning is
// logged at most once a minute, with the number of failures since the last
// one.
//
// Fail-open (closed=false) allows the call: a 200 as if no limit applied.
// The decision has HasWindow=false, so the response carries no
// X-RateLimit headers: the budget is unknown, and headers made up for it
// would mislead a client that paces itself by them. The call is not
// counted anywhere and holds no slot.
//
// Fail-closed (closed=true) refuses the call with a 429 and RetryAfter of
// one second, again with HasWindow=false. A 503 would name the cause more
// truly, but the interface documents 429 as the answer of the rate limiter
// and a client already handles it the right way: wait Retry-After, then
// retry; a 5xx tells many clients the request is broken and not to retry.
// One second is the shortest wait Retry-After can say, so clients resume
// as soon as the store is back, and a refused retry costs the server
// nothing but one failed Redis call.
//
// A failure while the call's own context is done (the client went away) is
// not an outage: it is returned as the error, uncounted and unlogged.
type Failover struct {
	inner   afftrack.RateLimiter
	closed  bool
	logger  *slog.Logger
	onError func()
	clock   func() time.Time

	mu         sync.Mutex
	lastLog    time.Time
	logged     bool
	suppressed int // failures not logged since the last warning
}

// NewFailover wraps inner. logger nil discards the warnings, onError may be
// nil, and clock nil reads the system clock.
func NewFailover(inner afftrack.RateLimiter, closed bool, logger *slog.Logger, onError func(), clock func() time.Time) *Failover {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if onError == nil {
		onError = func() {}
	}
	if clock == nil {
		clock = time.Now
	}
	return &Failover{inner: inner, closed: closed, logger: logger, onError: onError, clock: clock}
}

// Acquire asks the inner limiter and, if it fails, decides as described on
// Failover. It returns an error only when ctx is done.
func (f *Failover) Acquire(ctx context.Context, a afftrack.AccountRef, l afftrack.Limits, now time.Time) (afftrack.RateDecision, func(), error) {
	d, release, err := f.inner.Acquire(ctx, a, l, now)
	if err == nil {
		return d, release, nil
	}
	if ctx.Err() != nil {
		return afftrack.RateDecision{}, nil, err
	}
	f.onError()
	f.warn(err)
	if f.closed {
		return afftrack.RateDecision{RetryAfter: failClosedRetry}, noRelease, nil
	}
	return afftrack.RateDecision{Allowed: true}, noRelease, nil
}

// Peek asks the inner limiter and, if it fails, reports no budget
// (HasWindow false, so no headers), counted and logged as a failure of
// Acquire is. It returns an error only when ctx is done.
func (f *Failover) Peek(ctx context.Context, a afftrack.AccountRef, l afftrack.Limits, now time.Time) (afftrack.RateDecision, error) {
	d, err := f.inner.Peek(ctx, a, l, now)
	if err == nil {
		return d, nil
	}
	if ctx.Err() != nil {
		return afftrack.RateDecision{}, err
	}
	f.onError()
	f.warn(err)
	return afftrack.RateDecision{}, nil
}

// warn logs err unless a warning was logged less than a minute ago.
func (f *Failover) warn(err error) {
	t := f.clock()
	f.mu.Lock()
	if f.logged && t.Sub(f.lastLog) < failoverLogEvery {
		f.suppressed++
		f.mu.Unlock()
		return
	}
	suppressed := f.suppressed
	f.lastLog, f.logged, f.suppressed = t, true, 0
	f.mu.Unlock()

	outcome := "allowing calls"
	if f.closed {
		outcome = "refusing calls"
	}
	f.logger.Warn("rate limiter unavailable; "+outcome+" until it answers",
		"err", err, "failures_not_logged", suppressed)
}

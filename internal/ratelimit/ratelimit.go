// Package ratelimit implements afftrack.RateLimiter: Memory, an exact
// in-process limiter for a single replica; Redis, which shares every
// account's budget between replicas; and Failover, which decides what a
// call gets while the shared limiter is unreachable.
//
// Both limiters keep the same semantics, proven by one behavioural test
// suite:
//
//   - A window accepts a call iff fewer than its limit of accepted calls
//     are stamped within it. A call stamped at t stays counted while
//     t > now-window, so a call exactly 60 s (or 24 h) after the oldest
//     counted one is accepted. No window of that length ever holds more
//     accepted calls than the limit.
//   - Only accepted calls are stamped and take a concurrency slot; a refused
//     call changes nothing.
//   - A limit of 0 (or below) means no limit on that dimension. Calls
//     accepted while a window had no limit are not remembered, so they do
//     not count when it gets one; calls accepted under a limit stay counted
//     until they leave the window, whatever the limit becomes, so lowering
//     and raising a limit never lets a burst through.
//   - Requests in progress are tracked even when Concurrent is 0, so a
//     limit set later sees them.
//   - Time never runs backwards for an account: a call whose now is older
//     than the account's newest stamp is stamped at that newest time,
//     which can only make the limiter stricter.
package ratelimit

import (
	"time"

	"github.com/afftrack/afftrack"
)

const (
	minuteWindow = 60 * time.Second
	dayWindow    = 24 * time.Hour

	// concurrencyRetry is the RetryAfter of a call refused for want of a
	// free slot: when one frees cannot be known, and a second is the
	// shortest wait the Retry-After header can say.
	concurrencyRetry = time.Second
)

var (
	_ afftrack.RateLimiter = (*Memory)(nil)
	_ afftrack.RateLimiter = (*Redis)(nil)
	_ afftrack.RateLimiter = (*Failover)(nil)
)

// noRelease is the release of a call that holds no slot.
func noRelease() {}

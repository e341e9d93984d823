package ratelimit

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afftrack/afftrack"
)

// shardBits sets the number of shards (64): enough that accounts rarely
// share a lock on a busy server, few enough that a sweep of every shard is
// cheap.
const shardBits = 6

// sweepEvery is how often, in the callers' time, a shard looks for idle
// accounts to forget. A sweep costs one pass over the shard's map, so once
// a minute keeps it negligible while bounding memory to the accounts seen
// in the last day and a minute.
const sweepEvery = time.Minute

// Memory is an exact in-process limiter: every account has a sliding log
// of the stamps of its accepted calls in each window, so no window ever
// holds more than its limit. Accounts live in shards, each a map behind its
// own mutex, so calls of different accounts rarely contend. An account is
// forgotten once it has made no call for a day and has none in progress:
// its state is then the same as a new account's.
//
// Memory never reads the system clock; every decision is made at the now
// given to Acquire. It starts no goroutine, so it needs no Close. The zero
// Memory is ready to use.
type Memory struct {
	shards [1 << shardBits]memoryShard
}

type memoryShard struct {
	mu        sync.Mutex
	accounts  map[afftrack.AccountRef]*memoryAccount
	nextSweep int64         // Unix nanoseconds
	flags     []atomic.Bool // unused released flags, see releaser
}

// flagsPerAllocation is how many calls' released flags one allocation
// holds.
const flagsPerAllocation = 64

// memoryAccount is one account's state. Its fields are guarded by its
// shard's mutex.
type memoryAccount struct {
	minute, day ring
	inflight    int64
	last        int64 // stamp of the newest accepted call, Unix nanoseconds
}

// NewMemory returns an empty in-process limiter.
func NewMemory() *Memory { return &Memory{} }

// shard returns the shard that holds account a.
func (m *Memory) shard(a afftrack.AccountRef) *memoryShard {
	h := (uint64(a.ID)<<1 | uint64(a.Kind&1)) * 0x9E3779B97F4A7C15
	return &m.shards[h>>(64-shardBits)]
}

// Acquire decides on one call of account a at now and, when it is allowed,
// counts it and takes a concurrency slot until release is called. It never
// fails.
func (m *Memory) Acquire(_ context.Context, a afftrack.AccountRef, l afftrack.Limits, now time.Time) (afftrack.RateDecision, func(), error) {
	t := now.UnixNano()
	sh := m.shard(a)
	sh.mu.Lock()
	defer sh.mu.Unlock()

	if sh.accounts == nil {
		sh.accounts = make(map[afftrack.AccountRef]*memoryAccount)
	}
	if t >= sh.nextSweep {
		sh.sweep(t)
		sh.nextSweep = t + int64(sweepEvery)
	}
	acc := sh.accounts[a]
	if acc == nil {
		acc = &memoryAccount{}
		sh.accounts[a] = acc
	}

	windows := [2]memoryWindow{
		{&acc.minute, max(l.PerMinute, 0), minuteWindow},
		{&acc.day, max(l.PerDay, 0), dayWindow},
	}
	var d afftrack.RateDecision
	d.Allowed = true
	stamp := t
	for _, w := range windows {
		w.log.prune(t - int64(w.length))
		if w.log.len() > 0 {
			stamp = max(stamp, w.log.newest())
		}
		if retry, ok := w.refusal(t); ok {
			d.Allowed = false
			d.RetryAfter = max(d.RetryAfter, retry)
		}
	}
	if l.Concurrent > 0 && acc.inflight >= l.Concurrent {
		d.Allowed = false
		d.RetryAfter = max(d.RetryAfter, concurrencyRetry)
	}

	release := noRelease
	if d.Allowed {
		for _, w := range windows {
			if w.limit > 0 {
				w.log.push(stamp, int64(w.length))
			}
		}
		acc.last = max(acc.last, stamp)
		acc.inflight++
		release = sh.releaser(acc)
	}

	if w, ok := acc.reported(l); ok {
		w.report(&d, t)
	}
	return d, release, nil
}

// reported returns the window of acc that the X-RateLimit-* headers
// report under l: the minute's, else the day's; ok is false when neither
// has a limit.
func (acc *memoryAccount) reported(l afftrack.Limits) (w memoryWindow, ok bool) {
	switch {
	case l.PerMinute > 0:
		return memoryWindow{&acc.minute, l.PerMinute, minuteWindow}, true
	case l.PerDay > 0:
		return memoryWindow{&acc.day, l.PerDay, dayWindow}, true
	}
	return memoryWindow{}, false
}

// Peek reports account a's budget at now without counting a call. It never
// fails, and remembers no account it did not know.
func (m *Memory) Peek(_ context.Context, a afftrack.AccountRef, l afftrack.Limits, now time.Time) (afftrack.RateDecision, error) {
	t := now.UnixNano()
	sh := m.shard(a)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	acc := sh.accounts[a]
	if acc == nil {
		acc = &memoryAccount{} // as a new account reads; not stored
	}
	var d afftrack.RateDecision
	if w, ok := acc.reported(l); ok {
		w.log.prune(t - int64(w.length))
		w.report(&d, t)
	}
	return d, nil
}

// releaser returns the release of a call of acc: it frees the call's slot
// once, however often it is called. sh.mu is held.
//
// The call's released flag is taken from a block of them, each flag
// serving one call only and the block living as long as any of their
// releases, so a call costs the closure alone rather than the closure
// and its flag.
func (sh *memoryShard) releaser(acc *memoryAccount) func() {
	if len(sh.flags) == 0 {
		sh.flags = make([]atomic.Bool, flagsPerAllocation)
	}
	released := &sh.flags[0]
	sh.flags = sh.flags[1:]
	return func() {
		if released.Swap(true) {
			return
		}
		sh.mu.Lock()
		acc.inflight--
		sh.mu.Unlock()
	}
}

// sweep forgets the shard's idle accounts: no call for a day, none in
// progress. Their logs are empty by then, so forgetting loses nothing; an
// account with a request in progress is kept because its release still
// points at it.
func (sh *memoryShard) sweep(t int64) {
	for ref, acc := range sh.accounts {
		if acc.inflight == 0 && acc.last <= t-int64(dayWindow) {
			delete(sh.accounts, ref)
		}
	}
}

// memoryWindow is one window of an account under the limit of this call.
type memoryWindow struct {
	log    *ring
	limit  int64
	length time.Duration
}

// refusal reports whether the window refuses a call at t and, if so, how
// long until it would accept one: until the stamp limit places from the
// newest leaves. Stamps beyond the limit (left by a higher limit) are
// still counted, which is what keeps a lowered limit exact.
func (w memoryWindow) refusal(t int64) (time.Duration, bool) {
	n := int64(w.log.len())
	if w.limit == 0 || n < w.limit {
		return 0, false
	}
	return time.Duration(w.log.at(int(n-w.limit)) + int64(w.length) - t), true
}

// report fills the decision's window fields from this window at t.
func (w memoryWindow) report(d *afftrack.RateDecision, t int64) {
	n := int64(w.log.len())
	d.HasWindow = true
	d.Limit = w.limit
	d.Remaining = max(w.limit-n, 0)
	if n > 0 {
		d.Reset = time.Duration(w.log.at(0) + int64(w.length) - t)
	}
}

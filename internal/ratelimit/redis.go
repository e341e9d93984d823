package ratelimit

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/redis/go-redis/v9"
)

var (
	//go:embed acquire.lua
	acquireLua    string
	acquireScript = redis.NewScript(acquireLua)

	//go:embed renew.lua
	renewLua    string
	renewScript = redis.NewScript(renewLua)

	//go:embed peek.lua
	peekLua    string
	peekScript = redis.NewScript(peekLua)

	//go:embed forget.lua
	forgetLua    string
	forgetScript = redis.NewScript(forgetLua)
)

// releaseTimeout bounds the Redis calls made after the request's own
// context may be gone: a release, a renewal, the cleanup of a failed
// acquire. A slot such a call fails to free is freed when its lease ends.
const releaseTimeout = 5 * time.Second

// RedisOptions configures a Redis limiter.
type RedisOptions struct {
	// Prefix starts every key; default "afftrack:rl:". An account's keys
	// are {Prefix}{merchant:42}:m, :d and :c (its minute and day windows
	// and its in-flight slots); the braces keep them in one Redis Cluster
	// slot, which the script needs.
	Prefix string

	// SlotTTL is the lease of an in-flight slot (default 2m). A replica
	// renews its leases every third of it while their requests run, so a
	// long request keeps its slot; a replica that dies stops renewing, and
	// its slots are free at most SlotTTL later.
	SlotTTL time.Duration

	// CallerClock makes the limiter decide at the now given to Acquire
	// instead of at Redis's own TIME. The windows are then exact only if
	// every replica's clock agrees; it exists for tests, which drive time.
	CallerClock bool

	// Logger receives warnings about releases and renewals that failed
	// (their slots end with their leases). Nil discards them.
	Logger *slog.Logger
}

// Redis is a limiter whose state lives in Redis, so that every replica
// draws on one budget per account. Each Acquire is one Lua script: the
// check and the count happen atomically however many replicas call at
// once, so the windows are as exact as Memory's.
//
// By default the script reads the time from Redis (TIME) and ignores the
// now given to Acquire: one clock orders every replica's calls, so a
// replica whose clock is skewed can neither overspend the budget nor
// starve the others. Times are kept in whole microseconds.
//
// Requests in progress hold leases in a sorted set scored by expiry;
// expired leases are dropped before slots are counted, so the slots of a
// dead replica come back after SlotTTL. A live replica renews the lease of
// each request every SlotTTL/3 until it is released, so a request of any
// length keeps its slot. Needs Redis 5 or later (scripts that read TIME
// before writing).
type Redis struct {
	forgets  forgets
	client   redis.UniversalClient
	prefix   string
	slotTTL  time.Duration
	caller   bool
	logger   *slog.Logger
	instance string        // random id of this limiter, unique across replicas
	seq      atomic.Uint64 // calls of this limiter, for unique tokens
}

// NewRedis returns a limiter that keeps its state in Redis through client.
func NewRedis(client redis.UniversalClient, opts RedisOptions) *Redis {
	r := &Redis{
		client:  client,
		prefix:  opts.Prefix,
		slotTTL: opts.SlotTTL,
		caller:  opts.CallerClock,
		logger:  opts.Logger,
	}
	if r.prefix == "" {
		r.prefix = "afftrack:rl:"
	}
	if r.slotTTL <= 0 {
		r.slotTTL = 2 * time.Minute
	}
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	var id [8]byte
	rand.Read(id[:]) // never fails (crypto/rand panics rather than return an error)
	r.instance = hex.EncodeToString(id[:])
	return r
}

// Acquire decides on one call of account a and, when it is allowed, counts
// it and takes a concurrency slot until release is called. now is ignored
// unless CallerClock is set. An error means Redis could not be asked or
// its answer was lost: the call holds no slot, and is counted only if the
// script ran (see Failover for what the caller then does).
func (r *Redis) Acquire(ctx context.Context, a afftrack.AccountRef, l afftrack.Limits, now time.Time) (afftrack.RateDecision, func(), error) {
	base := r.prefix + "{" + a.String() + "}:"
	token := r.instance + ":" + strconv.FormatUint(r.seq.Add(1), 36)
	keys := []string{base + "m", base + "d", base + "c", base + "x:" + token}
	at := r.timeArg(now, 0)

	res, err := acquireScript.Run(ctx, r.client, keys,
		max(l.PerMinute, 0), max(l.PerDay, 0), max(l.Concurrent, 0),
		r.slotTTL.Microseconds(), at, token).Int64Slice()
	if err == nil && len(res) != 6 {
		err = fmt.Errorf("script returned %d values, want 6", len(res))
	}
	if err != nil {
		// Unless the script surely never reached Redis, it may have run
		// and only its answer been lost: drop the slot it may hold rather
		// than block the account for SlotTTL. The stamps stay: counting a
		// call that was not served errs on the safe side.
		if !neverSent(err) {
			go r.forget(context.WithoutCancel(ctx), keys[2], keys[3], token)
		}
		return afftrack.RateDecision{}, nil, fmt.Errorf("ratelimit: redis acquire %s: %w", a, err)
	}

	d := afftrack.RateDecision{
		Allowed:    res[0] == 1,
		HasWindow:  res[1] == 1,
		Limit:      res[2],
		Remaining:  res[3],
		Reset:      time.Duration(res[4]) * time.Microsecond,
		RetryAfter: time.Duration(res[5]) * time.Microsecond,
	}
	if !d.Allowed {
		return d, noRelease, nil
	}
	return d, r.lease(context.WithoutCancel(ctx), keys[2], token, now), nil
}

// Peek reads account a's budget without counting a call: the 60 s window,
// or the 24 h one when there is no per-minute limit, as Acquire reports
// it. now is ignored unless CallerClock is set.
func (r *Redis) Peek(ctx context.Context, a afftrack.AccountRef, l afftrack.Limits, now time.Time) (afftrack.RateDecision, error) {
	var d afftrack.RateDecision
	key, length, limit := "m", minuteWindow, l.PerMinute
	switch {
	case l.PerMinute > 0:
	case l.PerDay > 0:
		key, length, limit = "d", dayWindow, l.PerDay
	default:
		return d, nil
	}
	res, err := peekScript.Run(ctx, r.client, []string{r.prefix + "{" + a.String() + "}:" + key},
		length.Microseconds(), r.timeArg(now, 0)).Int64Slice()
	if err == nil && len(res) != 2 {
		err = fmt.Errorf("script returned %d values, want 2", len(res))
	}
	if err != nil {
		return d, fmt.Errorf("ratelimit: redis peek %s: %w", a, err)
	}
	d.HasWindow, d.Limit = true, limit
	d.Remaining = max(limit-res[0], 0)
	d.Reset = time.Duration(res[1]) * time.Microsecond
	return d, nil
}

// timeArg returns the scripts' time argument: with CallerClock, now plus
// elapsed in microseconds, else "server" for Redis's TIME.
func (r *Redis) timeArg(now time.Time, elapsed time.Duration) any {
	if r.caller {
		return now.Add(elapsed).UnixMicro()
	}
	return "server"
}

// neverSent reports whether err means the command never left this
// process: no connection could be had. In an outage that is most errors,
// and they then cost no cleanup.
func neverSent(err error) bool {
	var op *net.OpError
	return errors.Is(err, redis.ErrClosed) || errors.Is(err, redis.ErrPoolTimeout) ||
		errors.Is(err, redis.ErrPoolExhausted) || (errors.As(err, &op) && op.Op == "dial")
}

// forgetEvery is how often the forgets that failed are tried again, and
// maxForgets how many are kept to try: past it, a slot a late acquire
// takes is freed when its lease ends.
var forgetEvery = time.Second

const maxForgets = 10000

// forgets are the withdrawals of failed acquires still to be made, tried
// again together, one at a time, by one goroutine while there are any.
type forgets struct {
	mu      sync.Mutex
	pending map[string]forgetting // by token
	running bool
}

// forgetting is one withdrawal still to be made.
type forgetting struct {
	slots, tombstone string
	until            time.Time // its slot's lease has ended by then
}

// forget withdraws the call of a token whose acquire failed (forget.lua).
// A stalled Redis runs the acquire when it resumes, and a slot it then
// took would block the account until its lease ends; so a withdrawal
// that fails is tried again each forgetEvery until Redis takes it or the
// lease has ended, and one under way when Redis resumes frees the slot
// at once.
func (r *Redis) forget(ctx context.Context, slots, tombstone, token string) {
	if r.forgetOne(ctx, slots, tombstone, token) {
		return
	}
	f := &r.forgets
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pending == nil {
		f.pending = map[string]forgetting{}
	}
	if len(f.pending) >= maxForgets {
		return
	}
	f.pending[token] = forgetting{slots: slots, tombstone: tombstone, until: time.Now().Add(r.slotTTL)}
	if !f.running {
		f.running = true
		go r.retryForgets()
	}
}

// forgetOne runs forget.lua once, and reports whether it is done with:
// Redis took it, or the client is closed.
func (r *Redis) forgetOne(ctx context.Context, slots, tombstone, token string) bool {
	tctx, cancel := context.WithTimeout(ctx, releaseTimeout)
	defer cancel()
	err := forgetScript.Run(tctx, r.client, []string{slots, tombstone}, token, r.slotTTL.Milliseconds()).Err()
	return err == nil || errors.Is(err, redis.ErrClosed)
}

// retryForgets tries the pending forgets each forgetEvery, stopping a
// round at the first that fails (Redis is still away), until none is
// left. It runs on a context of its own, not the first failed caller's,
// whose values it would keep for minutes.
func (r *Redis) retryForgets() {
	ctx := context.Background()
	f := &r.forgets
	for {
		time.Sleep(forgetEvery)
		f.mu.Lock()
		now := time.Now()
		round := make(map[string]forgetting, len(f.pending))
		for token, e := range f.pending {
			if now.After(e.until) {
				delete(f.pending, token)
				continue
			}
			round[token] = e
		}
		if len(round) == 0 {
			f.running = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
		for token, e := range round {
			if !r.forgetOne(ctx, e.slots, e.tombstone, token) {
				break
			}
			f.mu.Lock()
			delete(f.pending, token)
			f.mu.Unlock()
		}
	}
}

// lease returns the release of a slot: it renews the slot's lease while
// the request runs and removes the slot on the first call.
func (r *Redis) lease(ctx context.Context, key, token string, now time.Time) func() {
	s := &slot{r: r, ctx: ctx, key: key, token: token, now: now, start: time.Now()}
	s.mu.Lock()
	s.timer = time.AfterFunc(r.slotTTL/3, s.renew)
	s.mu.Unlock()
	return s.release
}

// slot is one request's in-flight slot.
type slot struct {
	r     *Redis
	ctx   context.Context // the request's values, without its cancellation
	key   string
	token string
	now   time.Time // the acquire's now and when it happened, from which
	start time.Time // renewals reckon their time with CallerClock

	mu    sync.Mutex
	timer *time.Timer
	done  bool
}

// renew extends the lease and schedules the next renewal, until the slot
// is released, its lease is lost, or the client is closed.
func (s *slot) renew() {
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()

	at := s.r.timeArg(s.now, time.Since(s.start))
	ctx, cancel := context.WithTimeout(s.ctx, releaseTimeout)
	ok, err := renewScript.Run(ctx, s.r.client, []string{s.key}, s.token, s.r.slotTTL.Microseconds(), at).Int()
	cancel()
	switch {
	case errors.Is(err, redis.ErrClosed):
		return
	case err != nil:
		s.r.logger.Warn("rate limiter: renewing an in-flight slot failed; retrying", "key", s.key, "err", err)
	case ok == 0:
		// Expired or released: a released slot stops here quietly, but an
		// expired one means the request ran unprotected for a while.
		s.mu.Lock()
		done := s.done
		s.mu.Unlock()
		if !done {
			s.r.logger.Warn("rate limiter: an in-flight slot's lease expired before it was renewed", "key", s.key)
		}
		return
	}
	s.mu.Lock()
	if !s.done {
		s.timer.Reset(s.r.slotTTL / 3)
	}
	s.mu.Unlock()
}

// release frees the slot; calls after the first do nothing.
func (s *slot) release() {
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return
	}
	s.done = true
	s.timer.Stop()
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(s.ctx, releaseTimeout)
	defer cancel()
	if err := s.r.client.ZRem(ctx, s.key, s.token).Err(); err != nil {
		s.r.logger.Warn("rate limiter: releasing an in-flight slot failed; it frees when its lease ends", "key", s.key, "err", err)
	}
}

package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/redis/go-redis/v9"
)

// redisURLEnv names the Redis server the Redis tests use; unset, they skip.
const redisURLEnv = "AFFTRACK_TEST_REDIS_URL"

// newRedisClient returns a client of the test server, closed when t ends.
func newRedisClient(t *testing.T) *redis.Client {
	t.Helper()
	url := os.Getenv(redisURLEnv)
	if url == "" {
		t.Skip(redisURLEnv + " is not set (e.g. redis://127.0.0.1:6379/0); skipping the tests that need Redis")
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("%s: %v", redisURLEnv, err)
	}
	client := redis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	return client
}

// newRedisPrefix returns a key prefix of its own for t and deletes every
// key under it when t ends.
func newRedisPrefix(t *testing.T) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	prefix := "afftrack:test:rl:" + hex.EncodeToString(b[:]) + ":"
	client := newRedisClient(t)
	t.Cleanup(func() {
		ctx := context.Background()
		iter := client.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			client.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("cleaning up %s*: %v", prefix, err)
		}
	})
	return prefix
}

// newTestRedis returns a limiter with a client of its own; opts.Prefix
// empty takes a fresh prefix.
func newTestRedis(t *testing.T, opts RedisOptions) (*Redis, *redis.Client) {
	t.Helper()
	if opts.Prefix == "" {
		opts.Prefix = newRedisPrefix(t)
	}
	client := newRedisClient(t)
	return NewRedis(client, opts), client
}

func TestRedis(t *testing.T) {
	testLimiter(t, func(t *testing.T) afftrack.RateLimiter {
		r, _ := newTestRedis(t, RedisOptions{CallerClock: true})
		return r
	})
}

func TestRedisReplicasShareOneBudget(t *testing.T) {
	const goroutines = 100
	prefix := newRedisPrefix(t)
	replicas := make([]*Redis, 2)
	for i := range replicas {
		replicas[i], _ = newTestRedis(t, RedisOptions{Prefix: prefix})
	}

	// race has the goroutines call through the replicas in turn and
	// returns the releases of the allowed calls.
	race := func(t *testing.T, l afftrack.Limits, calls int) []func() {
		var mu sync.Mutex
		var releases []func()
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := range goroutines {
			r := replicas[g%len(replicas)]
			wg.Go(func() {
				<-start
				for range calls {
					d, release, err := r.Acquire(context.Background(), merchant42, l, time.Time{})
					if err != nil {
						t.Error(err)
						return
					}
					if d.Allowed {
						mu.Lock()
						releases = append(releases, release)
						mu.Unlock()
					}
				}
			})
		}
		close(start)
		wg.Wait()
		return releases
	}

	t.Run("racing replicas accept exactly the slots in total", func(t *testing.T) {
		releases := race(t, afftrack.Limits{Concurrent: 7}, 1)
		for _, release := range releases {
			release()
		}
		if len(releases) != 7 {
			t.Errorf("%d goroutines on two replicas racing for 7 slots got %d", goroutines, len(releases))
		}
	})
	t.Run("racing replicas accept exactly the window's limit in total", func(t *testing.T) {
		const limit = 25
		releases := race(t, afftrack.Limits{PerMinute: limit, PerDay: 1000}, 5)
		for _, release := range releases {
			release()
		}
		if len(releases) != limit {
			t.Errorf("%d goroutines × 5 calls on two replicas under PerMinute %d: %d accepted", goroutines, limit, len(releases))
		}
	})
}

func TestRedisServerClockIgnoresNow(t *testing.T) {
	r, _ := newTestRedis(t, RedisOptions{})
	l := afftrack.Limits{PerMinute: 2}
	// Calls claiming to be a century apart are all made at the server's
	// time, so they share one window.
	for i, now := range []time.Time{t0, t0.AddDate(100, 0, 0), {}} {
		d, release, err := r.Acquire(context.Background(), merchant42, l, now)
		if err != nil {
			t.Fatal(err)
		}
		release()
		if want := i < 2; d.Allowed != want {
			t.Errorf("call %d: Allowed %v, want %v", i, d.Allowed, want)
		}
		if i == 2 && (d.RetryAfter <= 50*sec || d.RetryAfter > 60*sec || d.Reset != d.RetryAfter) {
			t.Errorf("call %d: RetryAfter %v and Reset %v, want both just under 60 s", i, d.RetryAfter, d.Reset)
		}
	}
}

func TestRedisKeysExpireWithTheirWindows(t *testing.T) {
	r, client := newTestRedis(t, RedisOptions{SlotTTL: 30 * sec})
	_, release, err := r.Acquire(context.Background(), merchant42, afftrack.Limits{PerMinute: 1, PerDay: 1, Concurrent: 1}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for suffix, max := range map[string]time.Duration{"m": minuteWindow, "d": dayWindow, "c": 30 * sec} {
		key := r.prefix + "{" + merchant42.String() + "}:" + suffix
		ttl, err := client.PTTL(context.Background(), key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if ttl <= max-5*sec || ttl > max {
			t.Errorf("%s expires in %v, want just under %v", key, ttl, max)
		}
	}
}

func TestRedisDeadReplicaSlotFreesAfterSlotTTL(t *testing.T) {
	l := afftrack.Limits{Concurrent: 1}
	acquire := func(t *testing.T, r *Redis, at time.Duration) bool {
		t.Helper()
		d, release, err := r.Acquire(context.Background(), merchant42, l, t0.Add(at))
		if err != nil {
			t.Fatal(err)
		}
		release()
		return d.Allowed
	}

	t.Run("with the caller's clock, the slot frees exactly SlotTTL after it was taken", func(t *testing.T) {
		prefix := newRedisPrefix(t)
		opts := RedisOptions{Prefix: prefix, SlotTTL: sec, CallerClock: true}
		dead, deadClient := newTestRedis(t, opts)
		live, _ := newTestRedis(t, opts)
		if _, _, err := dead.Acquire(context.Background(), merchant42, l, t0); err != nil {
			t.Fatal(err)
		}
		deadClient.Close() // the replica dies holding its slot

		if acquire(t, live, sec-ms) {
			t.Error("the live replica got a slot while the dead one's lease ran")
		}
		if !acquire(t, live, sec) {
			t.Error("the live replica got no slot once the dead one's lease ended")
		}
	})
	t.Run("with Redis's clock, the slot frees once SlotTTL has passed", func(t *testing.T) {
		prefix := newRedisPrefix(t)
		opts := RedisOptions{Prefix: prefix, SlotTTL: 300 * ms}
		dead, deadClient := newTestRedis(t, opts)
		live, _ := newTestRedis(t, opts)
		if _, _, err := dead.Acquire(context.Background(), merchant42, l, time.Time{}); err != nil {
			t.Fatal(err)
		}
		deadClient.Close()

		if acquire(t, live, 0) {
			t.Error("the live replica got a slot while the dead one's lease ran")
		}
		time.Sleep(400 * ms)
		if !acquire(t, live, 0) {
			t.Error("the live replica got no slot once the dead one's lease ended")
		}
	})
}

func TestRedisLongRequestKeepsItsSlot(t *testing.T) {
	prefix := newRedisPrefix(t)
	opts := RedisOptions{Prefix: prefix, SlotTTL: 300 * ms}
	a, _ := newTestRedis(t, opts)
	b, _ := newTestRedis(t, opts)
	l := afftrack.Limits{Concurrent: 1}

	_, release, err := a.Acquire(context.Background(), merchant42, l, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // more than three leases: only renewals keep the slot
	d, releaseB, err := b.Acquire(context.Background(), merchant42, l, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	releaseB()
	if d.Allowed {
		t.Error("another replica got the slot of a request still in progress")
	}

	release()
	release()
	d, releaseB, err = b.Acquire(context.Background(), merchant42, l, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	releaseB()
	if !d.Allowed {
		t.Error("the slot was not freed by release")
	}
}

// loseScriptAnswers is a client hook that lets scripts run but replaces
// their answers with an error, as a connection dropped at the wrong moment
// would.
type loseScriptAnswers struct{}

func (loseScriptAnswers) DialHook(next redis.DialHook) redis.DialHook { return next }

func (loseScriptAnswers) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (loseScriptAnswers) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if name := cmd.Name(); err == nil && (name == "evalsha" || name == "eval") {
			err = errors.New("connection reset after the script ran")
			cmd.SetErr(err)
		}
		return err
	}
}

func TestRedisLostAnswerFreesItsSlotButStaysCounted(t *testing.T) {
	prefix := newRedisPrefix(t)
	lossy, lossyClient := newTestRedis(t, RedisOptions{Prefix: prefix})
	lossyClient.AddHook(loseScriptAnswers{})
	r, client := newTestRedis(t, RedisOptions{Prefix: prefix})
	l := afftrack.Limits{PerDay: 2, Concurrent: 1}

	if _, _, err := lossy.Acquire(context.Background(), merchant42, l, time.Time{}); err == nil {
		t.Fatal("Acquire whose answer was lost returned no error")
	}
	slots := prefix + "{" + merchant42.String() + "}:c"
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * ms) {
		n, err := client.ZCard(context.Background(), slots).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slot of the call whose answer was lost is still taken after 2 s")
		}
	}
	d, release, err := r.Acquire(context.Background(), merchant42, l, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	release()
	if !d.Allowed || d.Remaining != 0 {
		t.Errorf("the next call: Allowed %v, Remaining %d; want allowed with the lost call counted (Remaining 0)", d.Allowed, d.Remaining)
	}
}

// stallScripts is a client hook standing for a Redis that stalls until
// a moment and then resumes: the first script (an acquire) fails at once,
// as past the client's timeout, and runs only at that moment, as a
// stalled server runs what it had received. With failOthers, every other
// script sent before the moment fails at once too, as it would if the
// stall outlasted the client's timeout; without it they run.
type stallScripts struct {
	until      time.Time
	failOthers bool
	once       sync.Once
	ran        chan struct{}
}

func (*stallScripts) DialHook(next redis.DialHook) redis.DialHook { return next }

func (*stallScripts) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *stallScripts) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := cmd.Name(); (name != "evalsha" && name != "eval") || time.Now().After(h.until) {
			return next(ctx, cmd)
		}
		held := false
		h.once.Do(func() { held = true })
		switch {
		case held:
			go func() {
				time.Sleep(time.Until(h.until))
				next(context.Background(), cmd)
				close(h.ran)
			}()
		case !h.failOthers:
			return next(ctx, cmd)
		}
		err := errors.New("i/o timeout")
		cmd.SetErr(err)
		return err
	}
}

// acquireLate makes one call of merchant42 through a client whose Redis
// stalls as hook says, and returns once the held acquire has run, with
// the client of another replica and the account's in-flight slots' key.
// A first call through that replica loads the scripts, so the late
// EVALSHA finds its script.
func acquireLate(t *testing.T, hook *stallScripts, l afftrack.Limits) (*Redis, *redis.Client, string) {
	t.Helper()
	prefix := newRedisPrefix(t)
	r, client := newTestRedis(t, RedisOptions{Prefix: prefix})
	d, release, err := r.Acquire(context.Background(), merchant42, l, time.Time{})
	if err != nil || !d.Allowed {
		t.Fatalf("first call: %+v, %v", d, err)
	}
	release()
	stalled, stalledClient := newTestRedis(t, RedisOptions{Prefix: prefix})
	hook.ran = make(chan struct{})
	stalledClient.AddHook(hook)
	if _, _, err := stalled.Acquire(context.Background(), merchant42, l, time.Time{}); err == nil {
		t.Fatal("Acquire during the stall returned no error")
	}
	<-hook.ran
	return r, client, prefix + "{" + merchant42.String() + "}:c"
}

func TestRedisAnAcquireThatRunsAfterItsCallGaveUpTakesNoSlot(t *testing.T) {
	l := afftrack.Limits{PerMinute: 100, Concurrent: 1}
	// The acquire runs after the caller's forget has.
	r, client, slots := acquireLate(t, &stallScripts{until: time.Now().Add(300 * ms)}, l)
	if n, err := client.ZCard(context.Background(), slots).Result(); err != nil || n != 0 {
		t.Errorf("%d slots taken after the abandoned acquire ran late (%v); want none", n, err)
	}
	d, release, err := r.Acquire(context.Background(), merchant42, l, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	release()
	if !d.Allowed {
		t.Errorf("the next call was refused (%+v): the abandoned acquire holds the account's one slot", d)
	}
}

func TestRedisFailedCallsAreErrors(t *testing.T) {
	r := NewRedis(unreachableClient(t), RedisOptions{})
	d, release, err := r.Acquire(context.Background(), merchant42, afftrack.Limits{PerMinute: 1}, t0)
	if err == nil {
		t.Fatal("Acquire against a closed port returned no error")
	}
	if release != nil || d != (afftrack.RateDecision{}) {
		t.Errorf("a failed Acquire returned decision %+v and a release", d)
	}
}

// unreachableClient returns a client of a port where nothing listens, that
// fails at once rather than retry.
func unreachableClient(t *testing.T) *redis.Client {
	client := redis.NewClient(&redis.Options{
		Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: sec, DialerRetries: 1, DialerRetryTimeout: ms,
	})
	t.Cleanup(func() { client.Close() })
	return client
}

func TestRedisFailedPeekIsAnError(t *testing.T) {
	r := NewRedis(unreachableClient(t), RedisOptions{})
	d, err := r.Peek(context.Background(), merchant42, afftrack.Limits{PerMinute: 1}, t0)
	if err == nil {
		t.Fatal("Peek against a closed port returned no error")
	}
	if d != (afftrack.RateDecision{}) {
		t.Errorf("a failed Peek returned decision %+v", d)
	}
}

func TestRedisAnAcquireThatRunsAfterALongStallHoldsItsSlotBriefly(t *testing.T) {
	// Longer than the first tries of a withdrawal, as the stalls of a
	// server under memory pressure or a failover are.
	hook := &stallScripts{until: time.Now().Add(2500 * ms), failOthers: true}
	_, client, slots := acquireLate(t, hook, afftrack.Limits{PerMinute: 100, Concurrent: 1})
	resumed := time.Now()
	for {
		n, err := client.ZCard(context.Background(), slots).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Since(resumed) > 1500*ms {
			t.Fatalf("the slot the late acquire took is still held 1.5 s after Redis resumed")
		}
		time.Sleep(10 * ms)
	}
}

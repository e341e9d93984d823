package ratelimit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

// This file is the behavioural suite every limiter passes: Memory and
// Redis run the same scenarios, so their semantics provably match.

// t0 is the suite's time zero: every call is made at t0 plus an offset.
var t0 = time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)

var (
	merchant42  = afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 42}
	merchant43  = afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 43}
	affiliate42 = afftrack.AccountRef{Kind: afftrack.KindAffiliate, ID: 42}
)

const (
	ms  = time.Millisecond
	sec = time.Second
)

// newLimiterFunc returns a limiter with no state; whatever it leaves behind
// is cleaned up when t ends.
type newLimiterFunc func(t *testing.T) afftrack.RateLimiter

// testLimiter runs the behavioural suite against the limiters newLimiter
// makes.
func testLimiter(t *testing.T, newLimiter newLimiterFunc) {
	t.Run("scenarios", func(t *testing.T) { testScenarios(t, newLimiter) })
	t.Run("concurrent callers at one instant get exactly the limit", func(t *testing.T) {
		testConcurrentWindow(t, newLimiter)
	})
	t.Run("concurrent callers get exactly the slots and release frees each once", func(t *testing.T) {
		testConcurrentSlots(t, newLimiter)
	})
	t.Run("random calls decide as a brute-force model does", func(t *testing.T) {
		testModel(t, newLimiter)
	})
	t.Run("a peek reports the budget without counting a call", func(t *testing.T) {
		testPeek(t, newLimiter)
	})
}

func testPeek(t *testing.T, newLimiter newLimiterFunc) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		limits afftrack.Limits
		calls  []time.Duration // accepted calls before the peek, since t0
		at     time.Duration
		want   afftrack.RateDecision
	}{
		{"an account never seen has its whole minute", afftrack.Limits{PerMinute: 30, PerDay: 1000}, nil, 0,
			afftrack.RateDecision{HasWindow: true, Limit: 30, Remaining: 30}},
		{"two calls leave 28, the oldest leaving 50 s later", afftrack.Limits{PerMinute: 30, PerDay: 1000, Concurrent: 1},
			[]time.Duration{0, 5 * sec}, 10 * sec, afftrack.RateDecision{HasWindow: true, Limit: 30, Remaining: 28, Reset: 50 * sec}},
		{"a spent minute reports none left, and is not refused", afftrack.Limits{PerMinute: 2},
			[]time.Duration{0, sec}, 2 * sec, afftrack.RateDecision{HasWindow: true, Limit: 2, Reset: 58 * sec}},
		{"calls older than the minute are not counted", afftrack.Limits{PerMinute: 2},
			[]time.Duration{0, sec}, 61 * sec, afftrack.RateDecision{HasWindow: true, Limit: 2, Remaining: 2}},
		{"without a per-minute limit the day is reported", afftrack.Limits{PerDay: 10},
			[]time.Duration{0}, time.Hour, afftrack.RateDecision{HasWindow: true, Limit: 10, Remaining: 9, Reset: 23 * time.Hour}},
		{"without limits there is no window", afftrack.Limits{}, []time.Duration{0}, sec, afftrack.RateDecision{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lim := newLimiter(t)
			for i, at := range tc.calls {
				d, release, err := lim.Acquire(ctx, merchant42, tc.limits, t0.Add(at))
				if err != nil || !d.Allowed {
					t.Fatalf("call %d: %+v, %v", i, d, err)
				}
				release()
			}
			for range 3 {
				got, err := lim.Peek(ctx, merchant42, tc.limits, t0.Add(tc.at))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Fatalf("Peek (-want +got):\n%s", diff)
				}
			}
			if d, release, err := lim.Acquire(ctx, merchant42, tc.limits, t0.Add(tc.at)); err != nil {
				t.Fatal(err)
			} else if tc.want.HasWindow && (tc.want.Remaining > 0) != d.Allowed {
				t.Errorf("after the peeks, a call was allowed %v with %d remaining before it", d.Allowed, tc.want.Remaining)
			} else {
				release()
			}
		})
	}
}

// accepted is the decision for an allowed call whose headers report the
// given window.
func accepted(limit, remaining int64, reset time.Duration) afftrack.RateDecision {
	return afftrack.RateDecision{Allowed: true, HasWindow: true, Limit: limit, Remaining: remaining, Reset: reset}
}

// refused is the decision for a refused call.
func refused(limit, remaining int64, reset, retry time.Duration) afftrack.RateDecision {
	return afftrack.RateDecision{HasWindow: true, Limit: limit, Remaining: remaining, Reset: reset, RetryAfter: retry}
}

// step is one call of a scenario.
type step struct {
	at      time.Duration       // since t0
	account afftrack.AccountRef // zero: merchant42
	limits  *afftrack.Limits    // nil: the scenario's
	free    []int               // steps whose slots are released, twice each, before this call
	hold    bool                // keep this call's slot (else it is released at once)
	want    afftrack.RateDecision
}

type scenario struct {
	name   string
	limits afftrack.Limits
	steps  []step
}

func limits(perMinute, perDay, concurrent int64) *afftrack.Limits {
	return &afftrack.Limits{PerMinute: perMinute, PerDay: perDay, Concurrent: concurrent}
}

var scenarios = []scenario{
	{
		name:   "a minute limit accepts its calls, then refuses until the oldest is 60 s old",
		limits: afftrack.Limits{PerMinute: 3},
		steps: []step{
			{at: 0, want: accepted(3, 2, 60*sec)},
			{at: 10 * sec, want: accepted(3, 1, 50*sec)},
			{at: 20 * sec, want: accepted(3, 0, 40*sec)},
			{at: 30 * sec, want: refused(3, 0, 30*sec, 30*sec)},
			{at: 60*sec - ms, want: refused(3, 0, ms, ms)},
			{at: 60 * sec, want: accepted(3, 0, 10*sec)},
			{at: 61 * sec, want: refused(3, 0, 9*sec, 9*sec)},
		},
	},
	{
		name:   "a day limit counts calls across minutes, and its window reports when there is no minute limit",
		limits: afftrack.Limits{PerDay: 2},
		steps: []step{
			{at: 0, want: accepted(2, 1, 24*time.Hour)},
			{at: time.Hour, want: accepted(2, 0, 23*time.Hour)},
			{at: 2 * time.Hour, want: refused(2, 0, 22*time.Hour, 22*time.Hour)},
			{at: 24*time.Hour - ms, want: refused(2, 0, ms, ms)},
			{at: 24 * time.Hour, want: accepted(2, 0, time.Hour)},
		},
	},
	{
		name:   "the day window refuses while the minute window has room, and the headers still describe the minute",
		limits: afftrack.Limits{PerMinute: 2, PerDay: 3},
		steps: []step{
			{at: 0, want: accepted(2, 1, 60*sec)},
			{at: sec, want: accepted(2, 0, 59*sec)},
			{at: 2 * sec, want: refused(2, 0, 58*sec, 58*sec)},
			{at: 60 * sec, want: accepted(2, 0, sec)},
			{at: 90 * sec, want: refused(2, 1, 30*sec, 24*time.Hour-90*sec)},
			{at: 24 * time.Hour, want: accepted(2, 1, 60*sec)},
		},
	},
	{
		name:   "RetryAfter is the later of two refusing windows",
		limits: afftrack.Limits{PerMinute: 1, PerDay: 2},
		steps: []step{
			{at: 0, want: accepted(1, 0, 60*sec)},
			{at: 60 * sec, want: accepted(1, 0, 60*sec)},
			{at: 90 * sec, want: refused(1, 0, 30*sec, 24*time.Hour-90*sec)},
		},
	},
	{
		name:   "zero on every dimension is unlimited and reports no window",
		limits: afftrack.Limits{},
		steps: []step{
			{at: 0, hold: true, want: afftrack.RateDecision{Allowed: true}},
			{at: 0, hold: true, want: afftrack.RateDecision{Allowed: true}},
			{at: 0, hold: true, want: afftrack.RateDecision{Allowed: true}},
		},
	},
	{
		name:   "refused calls consume nothing",
		limits: afftrack.Limits{PerMinute: 2},
		steps: []step{
			{at: 0, want: accepted(2, 1, 60*sec)},
			{at: 0, want: accepted(2, 0, 60*sec)},
			{at: sec, want: refused(2, 0, 59*sec, 59*sec)},
			{at: sec, want: refused(2, 0, 59*sec, 59*sec)},
			{at: 30 * sec, want: refused(2, 0, 30*sec, 30*sec)},
			{at: 60 * sec, want: accepted(2, 1, 60*sec)},
		},
	},
	{
		name:   "a clock that steps back stamps the call at the newest time, so none escapes its window early",
		limits: afftrack.Limits{PerMinute: 2},
		steps: []step{
			{at: 10 * sec, want: accepted(2, 1, 60*sec)},
			{at: 5 * sec, want: accepted(2, 0, 65*sec)},
			{at: 65 * sec, want: refused(2, 0, 5*sec, 5*sec)},
			{at: 70 * sec, want: accepted(2, 1, 60*sec)},
		},
	},
	{
		name:   "calls stamped at the newest time wait for it whatever the limit becomes",
		limits: afftrack.Limits{PerMinute: 3},
		steps: []step{
			{at: 10 * sec, want: accepted(3, 2, 60*sec)},
			{at: 5 * sec, want: accepted(3, 1, 65*sec)},
			{at: 6 * sec, want: accepted(3, 0, 64*sec)},
			{at: 30 * sec, limits: limits(1, 0, 0), want: refused(1, 0, 40*sec, 40*sec)},
		},
	},
	{
		name:   "a request in progress holds a slot, a refusal still reports the window, and release frees the slot once",
		limits: afftrack.Limits{PerMinute: 10, Concurrent: 2},
		steps: []step{
			0: {at: 0, hold: true, want: accepted(10, 9, 60*sec)},
			1: {at: sec, hold: true, want: accepted(10, 8, 59*sec)},
			2: {at: 2 * sec, want: refused(10, 8, 58*sec, sec)},
			3: {at: 3 * sec, free: []int{0}, hold: true, want: accepted(10, 7, 57*sec)},
			4: {at: 4 * sec, free: []int{0}, want: refused(10, 7, 56*sec, sec)},
			5: {at: 5 * sec, free: []int{1, 3}, want: accepted(10, 6, 55*sec)},
		},
	},
	{
		name:   "a refusal by the window and by concurrency waits for the window",
		limits: afftrack.Limits{PerMinute: 1, Concurrent: 1},
		steps: []step{
			{at: 0, hold: true, want: accepted(1, 0, 60*sec)},
			{at: sec, want: refused(1, 0, 59*sec, 59*sec)},
		},
	},
	{
		name:   "a concurrency refusal without windows says retry in a second",
		limits: afftrack.Limits{Concurrent: 1},
		steps: []step{
			{at: 0, hold: true, want: afftrack.RateDecision{Allowed: true}},
			{at: 0, want: afftrack.RateDecision{RetryAfter: sec}},
		},
	},
	{
		name:   "accounts have their own budgets, merchant and affiliate ids apart",
		limits: afftrack.Limits{PerMinute: 1, Concurrent: 1},
		steps: []step{
			{at: 0, hold: true, want: accepted(1, 0, 60*sec)},
			{at: 0, account: affiliate42, hold: true, want: accepted(1, 0, 60*sec)},
			{at: 0, account: merchant43, hold: true, want: accepted(1, 0, 60*sec)},
			{at: 0, account: merchant43, want: refused(1, 0, 60*sec, 60*sec)},
		},
	},
	{
		name:   "raising a limit keeps the calls already counted",
		limits: afftrack.Limits{PerMinute: 2},
		steps: []step{
			{at: 0, want: accepted(2, 1, 60*sec)},
			{at: sec, want: accepted(2, 0, 59*sec)},
			{at: 2 * sec, limits: limits(4, 0, 0), want: accepted(4, 1, 58*sec)},
			{at: 3 * sec, limits: limits(4, 0, 0), want: accepted(4, 0, 57*sec)},
			{at: 4 * sec, limits: limits(4, 0, 0), want: refused(4, 0, 56*sec, 56*sec)},
		},
	},
	{
		name:   "lowering a limit counts every call still in the window, so raising it again lets no burst through",
		limits: afftrack.Limits{PerMinute: 4},
		steps: []step{
			{at: 0, want: accepted(4, 3, 60*sec)},
			{at: sec, want: accepted(4, 2, 59*sec)},
			{at: 2 * sec, want: accepted(4, 1, 58*sec)},
			{at: 3 * sec, want: accepted(4, 0, 57*sec)},
			{at: 4 * sec, limits: limits(2, 0, 0), want: refused(2, 0, 56*sec, 58*sec)},
			{at: 5 * sec, want: refused(4, 0, 55*sec, 55*sec)},
			{at: 61 * sec, limits: limits(2, 0, 0), want: refused(2, 0, sec, sec)},
			{at: 62 * sec, limits: limits(2, 0, 0), want: accepted(2, 0, sec)},
			{at: 63 * sec, want: accepted(4, 2, 59*sec)},
		},
	},
	{
		name:   "a window that had no limit starts counting when it gets one",
		limits: afftrack.Limits{},
		steps: []step{
			{at: 0, want: afftrack.RateDecision{Allowed: true}},
			{at: sec, want: afftrack.RateDecision{Allowed: true}},
			{at: 2 * sec, limits: limits(2, 0, 0), want: accepted(2, 1, 60*sec)},
			{at: 3 * sec, limits: limits(2, 0, 0), want: accepted(2, 0, 59*sec)},
			{at: 4 * sec, limits: limits(2, 0, 0), want: refused(2, 0, 58*sec, 58*sec)},
		},
	},
	{
		name:   "a concurrency limit set later sees the requests already in progress",
		limits: afftrack.Limits{},
		steps: []step{
			0: {at: 0, hold: true, want: afftrack.RateDecision{Allowed: true}},
			1: {at: sec, limits: limits(0, 0, 1), want: afftrack.RateDecision{RetryAfter: sec}},
			2: {at: 2 * sec, limits: limits(0, 0, 1), free: []int{0}, want: afftrack.RateDecision{Allowed: true}},
		},
	},
	{
		name:   "negative limits are no limits",
		limits: afftrack.Limits{PerMinute: -1, PerDay: -1, Concurrent: -1},
		steps: []step{
			{at: 0, hold: true, want: afftrack.RateDecision{Allowed: true}},
			{at: 0, hold: true, want: afftrack.RateDecision{Allowed: true}},
		},
	},
}

func testScenarios(t *testing.T, newLimiter newLimiterFunc) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			lim := newLimiter(t)
			held := make(map[int]func())
			defer func() {
				for _, release := range held {
					release()
				}
			}()
			for i, s := range sc.steps {
				for _, j := range s.free {
					release := held[j]
					if release == nil {
						t.Fatalf("step %d frees step %d, which holds no slot", i, j)
					}
					release()
					release()
				}
				account, l := merchant42, sc.limits
				if s.account != (afftrack.AccountRef{}) {
					account = s.account
				}
				if s.limits != nil {
					l = *s.limits
				}
				got, release, err := lim.Acquire(context.Background(), account, l, t0.Add(s.at))
				if err != nil {
					t.Fatalf("step %d: Acquire: %v", i, err)
				}
				if release == nil {
					t.Fatalf("step %d: Acquire returned a nil release", i)
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Errorf("step %d at %v, %s %+v: decision (-want +got):\n%s", i, s.at, account, l, diff)
				}
				if s.hold {
					held[i] = release
				} else {
					release()
				}
			}
		})
	}
}

// testConcurrentWindow races goroutines at one frozen instant: whatever the
// interleaving, exactly the limit is accepted.
func testConcurrentWindow(t *testing.T, newLimiter newLimiterFunc) {
	const goroutines, calls, limit = 50, 20, 37
	lim := newLimiter(t)
	l := afftrack.Limits{PerMinute: limit, PerDay: 1000}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range goroutines {
		wg.Go(func() {
			<-start
			for range calls {
				d, release, err := lim.Acquire(context.Background(), merchant42, l, t0)
				if err != nil {
					t.Error(err)
					return
				}
				if d.Allowed {
					allowed.Add(1)
				}
				release()
			}
		})
	}
	close(start)
	wg.Wait()
	if got := allowed.Load(); got != limit {
		t.Errorf("%d goroutines × %d calls under PerMinute %d: %d accepted, want %d", goroutines, calls, limit, got, limit)
	}
}

// testConcurrentSlots has goroutines race for slots they keep, then
// release them all twice: if a second release freed anything, the next
// round would get more slots than the limit.
func testConcurrentSlots(t *testing.T, newLimiter newLimiterFunc) {
	const goroutines, slots = 50, 5
	lim := newLimiter(t)
	l := afftrack.Limits{Concurrent: slots}
	for round := range 2 {
		var mu sync.Mutex
		var releases []func()
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range goroutines {
			wg.Go(func() {
				<-start
				d, release, err := lim.Acquire(context.Background(), merchant42, l, t0)
				if err != nil {
					t.Error(err)
					return
				}
				if d.Allowed {
					mu.Lock()
					releases = append(releases, release)
					mu.Unlock()
				}
			})
		}
		close(start)
		wg.Wait()
		if len(releases) != slots {
			t.Errorf("round %d: %d goroutines racing for %d slots got %d", round, goroutines, slots, len(releases))
		}
		for _, release := range releases {
			wg.Go(release)
			wg.Go(release)
		}
		wg.Wait()
	}
}

// model is a brute-force limiter: it keeps every accepted call's time and
// counts, for each call, the calls in the window that ends at it. Calls
// come in time order, so that window is the fullest one the call can
// join. A window that had no limit at a call does not remember it, as
// documented.
type model struct {
	minute, day []time.Duration
}

func (m *model) acquire(at time.Duration, l afftrack.Limits) afftrack.RateDecision {
	windows := []struct {
		log    *[]time.Duration
		limit  int64
		length time.Duration
		in     []time.Duration
	}{
		{log: &m.minute, limit: l.PerMinute, length: minuteWindow},
		{log: &m.day, limit: l.PerDay, length: dayWindow},
	}
	d := afftrack.RateDecision{Allowed: true}
	for i := range windows {
		w := &windows[i]
		for _, s := range *w.log {
			if s > at-w.length {
				w.in = append(w.in, s)
			}
		}
		if w.limit > 0 && int64(len(w.in)) >= w.limit {
			d.Allowed = false
			d.RetryAfter = max(d.RetryAfter, w.in[int64(len(w.in))-w.limit]+w.length-at)
		}
	}
	if d.Allowed {
		for i := range windows {
			if w := &windows[i]; w.limit > 0 {
				*w.log = append(*w.log, at)
				w.in = append(w.in, at)
			}
		}
	}
	for _, w := range windows {
		if w.limit > 0 {
			d.HasWindow, d.Limit, d.Remaining = true, w.limit, max(w.limit-int64(len(w.in)), 0)
			if len(w.in) > 0 {
				d.Reset = w.in[0] + w.length - at
			}
			break
		}
	}
	return d
}

func randomLimits(rng *rand.Rand) afftrack.Limits {
	return afftrack.Limits{PerMinute: rng.Int64N(6), PerDay: rng.Int64N(25)}
}

// randomGap returns the time to the next call: often none or little, at
// times exactly a window's length (the boundary), at times hours.
func randomGap(rng *rand.Rand) time.Duration {
	switch rng.IntN(10) {
	case 0:
		return 0
	case 1:
		return ms
	case 2, 3, 4:
		return time.Duration(rng.IntN(5000)) * ms
	case 5:
		return time.Duration(rng.IntN(60000)) * ms
	case 6:
		return minuteWindow - time.Duration(rng.IntN(2))*ms
	case 7:
		return dayWindow - time.Duration(rng.IntN(2))*ms
	default:
		return time.Duration(rng.IntN(3_600_000)) * ms
	}
}

// testModel drives the limiter and the model with the same random calls
// and compares every decision. Half the runs keep their limits fixed; in
// those, the accepted calls are also checked against the limits directly,
// in every window that ends at one of them.
func testModel(t *testing.T, newLimiter newLimiterFunc) {
	const runs, calls = 12, 250
	for seed := range uint64(runs) {
		fixed := seed%2 == 0
		t.Run(fmt.Sprintf("seed %d with fixed limits %v", seed, fixed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			lim := newLimiter(t)
			var m model
			var at time.Duration
			var acceptedAt []time.Duration
			l := randomLimits(rng)
			for i := range calls {
				at += randomGap(rng)
				if !fixed && rng.IntN(15) == 0 {
					l = randomLimits(rng)
				}
				want := m.acquire(at, l)
				got, release, err := lim.Acquire(context.Background(), merchant42, l, t0.Add(at))
				if err != nil {
					t.Fatalf("call %d: Acquire: %v", i, err)
				}
				release()
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("call %d at %v under %+v: decision (-model +limiter):\n%s", i, at, l, diff)
				}
				// A peek at the same instant reports the window the call
				// reported, and counts nothing: the next calls' decisions
				// would differ from the model's if it did.
				peeked, err := lim.Peek(context.Background(), merchant42, l, t0.Add(at))
				if err != nil {
					t.Fatalf("call %d: Peek: %v", i, err)
				}
				window := want
				window.Allowed, window.RetryAfter = false, 0
				if diff := cmp.Diff(window, peeked); diff != "" {
					t.Fatalf("peek after call %d at %v under %+v (-model +limiter):\n%s", i, at, l, diff)
				}
				if got.Allowed {
					acceptedAt = append(acceptedAt, at)
				}
			}
			if fixed {
				checkWindows(t, acceptedAt, l)
			}
		})
	}
}

// checkWindows fails if any window of 60 s or 24 h holds more accepted
// calls than its limit. The fullest windows are those that end at a call.
func checkWindows(t *testing.T, acceptedAt []time.Duration, l afftrack.Limits) {
	t.Helper()
	for _, w := range []struct {
		limit  int64
		length time.Duration
	}{{l.PerMinute, minuteWindow}, {l.PerDay, dayWindow}} {
		if w.limit == 0 {
			continue
		}
		for i, end := range acceptedAt {
			n := int64(0)
			for _, s := range acceptedAt[:i+1] {
				if s > end-w.length {
					n++
				}
			}
			if n > w.limit {
				t.Fatalf("the %v window ending at %v holds %d accepted calls, limit %d", w.length, end, n, w.limit)
			}
		}
	}
}

package ratelimit

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

func TestMemory(t *testing.T) {
	testLimiter(t, func(*testing.T) afftrack.RateLimiter { return NewMemory() })
}

func TestMemoryZeroValue(t *testing.T) {
	var m Memory
	d, release, err := m.Acquire(context.Background(), merchant42, afftrack.Limits{PerMinute: 1}, t0)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if diff := cmp.Diff(accepted(1, 0, 60*sec), d); diff != "" {
		t.Errorf("decision (-want +got):\n%s", diff)
	}
}

// acquireAt makes one call at t0+at and releases it unless hold is set.
func acquireAt(t *testing.T, m *Memory, a afftrack.AccountRef, l afftrack.Limits, at time.Duration, hold bool) (afftrack.RateDecision, func()) {
	t.Helper()
	d, release, err := m.Acquire(context.Background(), a, l, t0.Add(at))
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	if !hold {
		release()
	}
	return d, release
}

// state returns account a's state, or nil if Memory holds none.
func (m *Memory) state(a afftrack.AccountRef) *memoryAccount {
	sh := m.shard(a)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.accounts[a]
}

func TestMemoryLogsGrowOnlyAsCallsArrive(t *testing.T) {
	m := NewMemory()
	for i := range 3 {
		acquireAt(t, m, merchant42, afftrack.Limits{PerDay: 1000}, time.Duration(i)*sec, false)
	}
	acc := m.state(merchant42)
	if got := len(acc.day.buf); got != minRing {
		t.Errorf("after 3 calls under PerDay 1000 the day log has %d slots, want %d", got, minRing)
	}
	if got := len(acc.minute.buf); got != 0 {
		t.Errorf("with no minute limit the minute log has %d slots, want 0", got)
	}
}

func TestMemoryLogsShrinkAsCallsExpire(t *testing.T) {
	m := NewMemory()
	l := afftrack.Limits{PerMinute: 1000}
	for i := range 256 {
		acquireAt(t, m, merchant42, l, time.Duration(i)*ms, false)
	}
	acc := m.state(merchant42)
	if got := len(acc.minute.buf); got != 256 {
		t.Fatalf("after 256 calls the minute log has %d slots, want 256", got)
	}
	// At 60.250 s the calls stamped up to 250 ms have left: 5 remain, and
	// this call makes 6.
	d, _ := acquireAt(t, m, merchant42, l, 60*sec+250*ms, false)
	if diff := cmp.Diff(accepted(1000, 994, 1*ms), d); diff != "" {
		t.Errorf("decision (-want +got):\n%s", diff)
	}
	if got := len(acc.minute.buf); got != 16 {
		t.Errorf("with 5 calls left the minute log has %d slots, want 16", got)
	}
	want := []int64{251, 252, 253, 254, 255}
	for i := range want {
		want[i] = t0.Add(time.Duration(want[i]) * ms).UnixNano()
	}
	want = append(want, t0.Add(60*sec+250*ms).UnixNano())
	var got []int64
	for i := range acc.minute.len() {
		got = append(got, acc.minute.at(i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stamps kept (-want +got):\n%s", diff)
	}
}

// sameShard returns n accounts that share merchant42's shard, merchant42
// first, so that a call of one sweeps the others.
func sameShard(m *Memory, n int) []afftrack.AccountRef {
	refs := []afftrack.AccountRef{merchant42}
	for id := int64(1000); len(refs) < n; id++ {
		ref := afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: id}
		if m.shard(ref) == m.shard(merchant42) {
			refs = append(refs, ref)
		}
	}
	return refs
}

func TestMemoryForgetsIdleAccounts(t *testing.T) {
	m := NewMemory()
	refs := sameShard(m, 4)
	idle, busy, recent, caller := refs[0], refs[1], refs[2], refs[3]
	l := afftrack.Limits{PerMinute: 5, PerDay: 100, Concurrent: 1}

	acquireAt(t, m, idle, l, 0, false)
	_, releaseBusy := acquireAt(t, m, busy, l, 0, true)
	acquireAt(t, m, recent, l, sec, false)

	held := func() []afftrack.AccountRef {
		sh := m.shard(merchant42)
		sh.mu.Lock()
		defer sh.mu.Unlock()
		var refs []afftrack.AccountRef
		for ref := range sh.accounts {
			refs = append(refs, ref)
		}
		slices.SortFunc(refs, func(a, b afftrack.AccountRef) int { return int(a.ID - b.ID) })
		return refs
	}

	t.Run("an account whose last call is exactly a day old and has none in progress is forgotten", func(t *testing.T) {
		acquireAt(t, m, caller, l, dayWindow, false)
		want := []afftrack.AccountRef{busy, recent, caller}
		if diff := cmp.Diff(want, held()); diff != "" {
			t.Errorf("accounts held (-want +got):\n%s", diff)
		}
	})
	t.Run("an account with a request in progress is kept until it is released", func(t *testing.T) {
		releaseBusy()
		acquireAt(t, m, caller, l, dayWindow+sweepEvery, false)
		want := []afftrack.AccountRef{caller}
		if diff := cmp.Diff(want, held()); diff != "" {
			t.Errorf("accounts held (-want +got):\n%s", diff)
		}
	})
}

func TestMemorySweepsAtMostOnceAMinute(t *testing.T) {
	m := NewMemory()
	refs := sameShard(m, 2)
	l := afftrack.Limits{PerMinute: 5}
	acquireAt(t, m, refs[0], l, 0, false)
	acquireAt(t, m, refs[1], l, dayWindow-30*sec, false) // the shard swept at 0; the next sweep is due at 1 min
	acquireAt(t, m, refs[1], l, dayWindow+20*sec, false) // refs[0] is idle, but no sweep is due
	if m.state(refs[0]) == nil {
		t.Fatal("the shard swept again within a minute")
	}
}

// TestMemoryReleaseFlags checks that the released flags, handed out in
// blocks, stay one per call: across several blocks, each release frees
// its own call's slot once, however often it is called, and no other.
func TestMemoryReleaseFlags(t *testing.T) {
	m := NewMemory()
	l := afftrack.Limits{}
	const calls = 3*flagsPerAllocation + 5
	releases := make([]func(), calls)
	for i := range releases {
		_, releases[i] = acquireAt(t, m, merchant42, l, 0, true)
	}
	for i, release := range releases {
		release()
		release()
		if got, want := m.state(merchant42).inflight, int64(calls-i-1); got != want {
			t.Fatalf("after %d releases, twice each: %d in progress, want %d", i+1, got, want)
		}
	}
}

func TestMemoryIsBoundedWhateverTheLimits(t *testing.T) {
	m := NewMemory()
	huge := afftrack.Limits{PerMinute: 10_000_000, PerDay: 10_000_000}
	// 200,000 calls in a day, 200 a minute on average: an exact log would
	// hold every one of them in the day window.
	const calls = 200_000
	step := 24 * time.Hour / calls
	for i := range calls {
		d, release, err := m.Acquire(context.Background(), merchant42, huge, t0.Add(time.Duration(i)*step))
		if err != nil || !d.Allowed {
			t.Fatalf("call %d refused: %+v %v", i, d, err)
		}
		release()
	}
	acc := m.shard(merchant42).accounts[merchant42]
	if got, bound := acc.day.entries(), 2*exactEntries+1; got > bound {
		t.Errorf("the day window holds %d entries, want at most %d", got, bound)
	}
	if got := acc.day.len(); got != calls {
		t.Errorf("the day window counts %d calls, want %d", got, calls)
	}
}

func TestMemoryBucketsNeverAdmitMoreThanTheExactLog(t *testing.T) {
	// A limit above exactEntries, and calls in bursts: the bucketed log
	// must refuse whenever an exact count of the last 60 s is at the limit.
	m := NewMemory()
	l := afftrack.Limits{PerMinute: 1000}
	var accepted []time.Duration
	for i := range 20_000 {
		at := time.Duration(i) * 7 * time.Millisecond
		d, release, _ := m.Acquire(context.Background(), merchant42, l, t0.Add(at))
		release()
		inWindow := 0
		for _, a := range accepted {
			if a > at-time.Minute {
				inWindow++
			}
		}
		if d.Allowed {
			if inWindow >= 1000 {
				t.Fatalf("call at %v admitted with %d calls in the last minute", at, inWindow)
			}
			accepted = append(accepted, at)
		}
	}
	if len(accepted) < 20_000*7/60_000*1000/2 {
		t.Errorf("only %d calls admitted; the buckets refuse far too much", len(accepted))
	}
}

func TestMemoryPeekRemembersNoAccount(t *testing.T) {
	m := NewMemory()
	if _, err := m.Peek(context.Background(), merchant42, afftrack.Limits{PerMinute: 30}, t0); err != nil {
		t.Fatal(err)
	}
	if m.state(merchant42) != nil {
		t.Error("a peek at an account never seen stored it")
	}
}

package clickbuf

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
)

// never is a FlushInterval no test outlives, so that only Flush and Close
// write.
const never = time.Hour

// errDown is the failure of a database that is down.
var errDown = errors.New("database is down")

// fakeWriter stores the ids of the batches it is given, in order.
type fakeWriter struct {
	// write, when set, decides the outcome of call number call (from 1)
	// before its clicks are stored; an error stores nothing.
	write func(ctx context.Context, call int) error

	mu      sync.Mutex
	calls   int
	batches [][]string
}

func (f *fakeWriter) WriteClicks(ctx context.Context, clicks []afftrack.Click) error {
	f.mu.Lock()
	f.calls++
	call := f.calls
	f.mu.Unlock()
	if f.write != nil {
		if err := f.write(ctx, call); err != nil {
			return err
		}
	}
	ids := make([]string, len(clicks))
	for i, c := range clicks {
		ids[i] = c.ID
	}
	f.mu.Lock()
	f.batches = append(f.batches, ids)
	f.mu.Unlock()
	return nil
}

// Calls returns the number of WriteClicks calls so far, failed ones too.
func (f *fakeWriter) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// Sizes returns the size of every batch stored.
func (f *fakeWriter) Sizes() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var sizes []int
	for _, b := range f.batches {
		sizes = append(sizes, len(b))
	}
	return sizes
}

// IDs returns the ids stored, in the order they were written.
func (f *fakeWriter) IDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for _, b := range f.batches {
		ids = append(ids, b...)
	}
	return ids
}

// levelCounter is a slog.Handler counting the records of each level.
type levelCounter struct {
	mu     sync.Mutex
	counts map[slog.Level]int
}

func (h *levelCounter) Enabled(context.Context, slog.Level) bool { return true }
func (h *levelCounter) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *levelCounter) WithGroup(string) slog.Handler            { return h }

func (h *levelCounter) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.counts == nil {
		h.counts = map[slog.Level]int{}
	}
	h.counts[r.Level]++
	return nil
}

func (h *levelCounter) Counts() map[slog.Level]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.counts)
}

// newBuffer returns a Buffer that is closed when the test ends, so that no
// test leaves its goroutine running.
func newBuffer(t *testing.T, w afftrack.ClickWriter, o Options) *Buffer {
	t.Helper()
	b := New(w, o)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = b.Close(ctx)
		<-b.done
	})
	return b
}

// click returns the i-th test click; ids sort in the order of i.
func click(i int) afftrack.Click {
	return afftrack.Click{ID: fmt.Sprintf("%032x", i), MerchantID: 1, AffiliateID: 2}
}

// addClicks adds clicks from..to-1 and fails the test if one is refused.
func addClicks(t *testing.T, b *Buffer, from, to int) []string {
	t.Helper()
	var ids []string
	for i := from; i < to; i++ {
		if !b.Add(click(i)) {
			t.Fatalf("Add(click %d) = false, want true", i)
		}
		ids = append(ids, click(i).ID)
	}
	return ids
}

// waitFor polls cond until it holds, failing the test if it does not
// within a deadline far beyond any healthy run.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func closeBuffer(t *testing.T, b *Buffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestBatches(t *testing.T) {
	for _, tt := range []struct {
		name      string
		maxBatch  int
		clicks    int
		wantSizes []int
	}{
		{"a batch holds at most MaxBatch clicks", 3, 8, []int{3, 3, 2}},
		{"MaxBatch 0 means 25000 clicks a batch", 0, 62500, []int{25000, 25000, 12500}},
		{"clicks that fit one batch are written in one call", 10, 10, []int{10}},
		{"nothing held writes nothing", 5, 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := &fakeWriter{}
			var onWrite atomic.Int64
			b := newBuffer(t, w, Options{FlushInterval: never, MaxBatch: tt.maxBatch,
				OnWrite: func(n int) { onWrite.Add(int64(n)) }})
			want := addClicks(t, b, 0, tt.clicks)

			if err := b.Flush(context.Background()); err != nil {
				t.Fatalf("Flush: %v", err)
			}
			if diff := cmp.Diff(tt.wantSizes, w.Sizes()); diff != "" {
				t.Errorf("batch sizes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, w.IDs()); diff != "" {
				t.Errorf("ids written (-want +got):\n%s", diff)
			}
			n := int64(tt.clicks)
			if diff := cmp.Diff(Stats{Written: n}, b.Stats()); diff != "" {
				t.Errorf("Stats (-want +got):\n%s", diff)
			}
			if got := onWrite.Load(); got != n {
				t.Errorf("OnWrite counted %d clicks, want %d", got, n)
			}
		})
	}
}

func TestTickWritesWithoutFlush(t *testing.T) {
	w := &fakeWriter{}
	b := newBuffer(t, w, Options{FlushInterval: 2 * time.Millisecond})
	want := addClicks(t, b, 0, 3)

	waitFor(t, "the clicks are written", func() bool { return b.Stats().Written == 3 })
	if diff := cmp.Diff(want, w.IDs()); diff != "" {
		t.Errorf("ids written (-want +got):\n%s", diff)
	}
}

func TestAddDoesNotBlockWhileWriting(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	w := &fakeWriter{write: func(ctx context.Context, call int) error {
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
	b := newBuffer(t, w, Options{FlushInterval: time.Millisecond})
	want := addClicks(t, b, 0, 1)
	<-started

	added := make(chan []string)
	go func() {
		var ids []string
		for i := 1; i <= 100; i++ {
			if b.Add(click(i)) {
				ids = append(ids, click(i).ID)
			}
		}
		added <- ids
	}()
	select {
	case ids := <-added:
		want = append(want, ids...)
	case <-time.After(10 * time.Second):
		t.Fatal("Add blocked while the writer was blocked")
	}
	if got := b.Stats().Held; got != 101 {
		t.Errorf("Held = %d while the writer is blocked, want 101", got)
	}

	close(release)
	closeBuffer(t, b)
	if diff := cmp.Diff(want, w.IDs()); diff != "" {
		t.Errorf("ids written (-want +got):\n%s", diff)
	}
}

func TestOverflowDropsAndCounts(t *testing.T) {
	var up atomic.Bool
	w := &fakeWriter{write: func(context.Context, int) error {
		if !up.Load() {
			return errDown
		}
		return nil
	}}
	var onDrop atomic.Int64
	b := newBuffer(t, w, Options{FlushInterval: time.Millisecond, Capacity: 10,
		OnDrop: func(n int) { onDrop.Add(int64(n)) }})
	want := addClicks(t, b, 0, 4)
	// A failed write keeps its clicks, and they still count against
	// Capacity.
	waitFor(t, "a write has failed", func() bool { return w.Calls() >= 1 })

	var got []bool
	for i := 4; i < 14; i++ {
		ok := b.Add(click(i))
		got = append(got, ok)
		if ok {
			want = append(want, click(i).ID)
		}
	}
	if diff := cmp.Diff([]bool{true, true, true, true, true, true, false, false, false, false}, got); diff != "" {
		t.Errorf("Add results past 4 held (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Stats{Held: 10, Dropped: 4}, b.Stats()); diff != "" {
		t.Errorf("Stats when full (-want +got):\n%s", diff)
	}

	up.Store(true)
	closeBuffer(t, b)
	if b.Add(click(99)) {
		t.Error("Add after Close = true, want false")
	}
	if diff := cmp.Diff(Stats{Written: 10, Dropped: 5}, b.Stats()); diff != "" {
		t.Errorf("Stats after Close (-want +got):\n%s", diff)
	}
	if got := onDrop.Load(); got != 5 {
		t.Errorf("OnDrop counted %d clicks, want 5", got)
	}
	if diff := cmp.Diff(want, w.IDs()); diff != "" {
		t.Errorf("ids written (-want +got):\n%s", diff)
	}
}

func TestFailingWriterRecovers(t *testing.T) {
	w := &fakeWriter{write: func(_ context.Context, call int) error {
		if call <= 3 {
			return errDown
		}
		return nil
	}}
	logs := &levelCounter{}
	var onError atomic.Int64
	b := newBuffer(t, w, Options{FlushInterval: time.Millisecond, MaxBatch: 2, Logger: slog.New(logs),
		OnError: func(err error) {
			if !errors.Is(err, errDown) {
				t.Errorf("OnError(%v), want an error wrapping %v", err, errDown)
			}
			onError.Add(1)
		}})
	want := addClicks(t, b, 0, 5)

	waitFor(t, "the clicks are written", func() bool { return b.Stats().Written == 5 })
	closeBuffer(t, b) // the recovery is logged after the clicks count as written
	if diff := cmp.Diff(want, w.IDs()); diff != "" {
		t.Errorf("ids written, each once (-want +got):\n%s", diff)
	}
	if got := onError.Load(); got != 3 {
		t.Errorf("OnError called %d times, want 3", got)
	}
	wantLogs := map[slog.Level]int{slog.LevelWarn: 1, slog.LevelInfo: 1}
	if diff := cmp.Diff(wantLogs, logs.Counts()); diff != "" {
		t.Errorf("log records by level (-want +got):\n%s", diff)
	}
}

func TestFlush(t *testing.T) {
	t.Run("Flush returns once the clicks are written", func(t *testing.T) {
		w := &fakeWriter{write: func(context.Context, int) error {
			time.Sleep(5 * time.Millisecond) // a write that takes time
			return nil
		}}
		b := newBuffer(t, w, Options{FlushInterval: never})
		want := addClicks(t, b, 0, 2)

		if err := b.Flush(context.Background()); err != nil {
			t.Fatalf("Flush: %v", err)
		}
		if diff := cmp.Diff(want, w.IDs()); diff != "" {
			t.Errorf("ids written when Flush returned (-want +got):\n%s", diff)
		}
	})

	t.Run("Flush with nothing held does not call the writer", func(t *testing.T) {
		w := &fakeWriter{}
		b := newBuffer(t, w, Options{FlushInterval: never})
		if err := b.Flush(context.Background()); err != nil {
			t.Fatalf("Flush: %v", err)
		}
		if got := w.Calls(); got != 0 {
			t.Errorf("WriteClicks called %d times, want 0", got)
		}
	})

	t.Run("Flush returns the writer's error and the clicks stay held", func(t *testing.T) {
		// Only the first call fails, so that the test's Close can write.
		w := &fakeWriter{write: func(_ context.Context, call int) error {
			if call == 1 {
				return errDown
			}
			return nil
		}}
		b := newBuffer(t, w, Options{FlushInterval: never})
		addClicks(t, b, 0, 3)

		if err := b.Flush(context.Background()); !errors.Is(err, errDown) {
			t.Errorf("Flush = %v, want an error wrapping %v", err, errDown)
		}
		if diff := cmp.Diff(Stats{Held: 3}, b.Stats()); diff != "" {
			t.Errorf("Stats (-want +got):\n%s", diff)
		}
	})

	t.Run("Flush gives up when its context ends", func(t *testing.T) {
		release := make(chan struct{})
		w := &fakeWriter{write: func(context.Context, int) error { <-release; return nil }}
		b := newBuffer(t, w, Options{FlushInterval: never})
		t.Cleanup(func() { close(release) }) // runs before newBuffer's Close
		addClicks(t, b, 0, 1)

		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		if err := b.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Flush = %v, want %v", err, context.DeadlineExceeded)
		}
	})

	t.Run("concurrent Flushes all see their clicks written", func(t *testing.T) {
		w := &fakeWriter{}
		b := newBuffer(t, w, Options{FlushInterval: never})
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				if !b.Add(click(g)) {
					t.Errorf("Add(click %d) = false", g)
				}
				if err := b.Flush(context.Background()); err != nil {
					t.Errorf("Flush: %v", err)
				}
				if !slices.Contains(w.IDs(), click(g).ID) {
					t.Errorf("click %d not written when its Flush returned", g)
				}
			})
		}
		wg.Wait()
	})
}

func TestCloseWritesEverything(t *testing.T) {
	w := &fakeWriter{}
	b := newBuffer(t, w, Options{FlushInterval: never})
	want := addClicks(t, b, 0, 62500)

	closeBuffer(t, b)
	if diff := cmp.Diff([]int{25000, 25000, 12500}, w.Sizes()); diff != "" {
		t.Errorf("batch sizes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, w.IDs()); diff != "" {
		t.Errorf("ids written (-want +got):\n%s", diff)
	}
	if b.Add(click(99999)) {
		t.Error("Add after Close = true, want false")
	}
	if diff := cmp.Diff(Stats{Written: 62500, Dropped: 1}, b.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	if err := b.Flush(context.Background()); err != nil {
		t.Errorf("Flush after Close = %v, want nil", err)
	}
	closeBuffer(t, b) // a second Close is harmless
}

func TestCloseRetriesUntilWritten(t *testing.T) {
	w := &fakeWriter{write: func(_ context.Context, call int) error {
		if call <= 2 {
			return errDown
		}
		return nil
	}}
	b := newBuffer(t, w, Options{FlushInterval: time.Millisecond})
	want := addClicks(t, b, 0, 3)

	closeBuffer(t, b)
	if diff := cmp.Diff(want, w.IDs()); diff != "" {
		t.Errorf("ids written (-want +got):\n%s", diff)
	}
}

func TestCloseGivesUpWhenContextEnds(t *testing.T) {
	for _, tt := range []struct {
		name  string
		write func(ctx context.Context, release <-chan struct{}) error
	}{
		{"a writer that always fails", func(context.Context, <-chan struct{}) error {
			return errDown
		}},
		{"a writer that hangs until its context ends", func(ctx context.Context, _ <-chan struct{}) error {
			<-ctx.Done()
			return ctx.Err()
		}},
		{"a writer that ignores its context", func(_ context.Context, release <-chan struct{}) error {
			<-release
			return errDown
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			w := &fakeWriter{write: func(ctx context.Context, _ int) error { return tt.write(ctx, release) }}
			b := newBuffer(t, w, Options{FlushInterval: never})
			t.Cleanup(func() { close(release) }) // runs before newBuffer's Close
			addClicks(t, b, 0, 3)

			const timeout = 50 * time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			start := time.Now()
			err := b.Close(ctx)
			elapsed := time.Since(start)

			if err == nil || !strings.Contains(err.Error(), "3 clicks not written") {
				t.Errorf("Close = %v, want an error saying 3 clicks not written", err)
			}
			// Generous for a loaded machine under -race; a Close that
			// waited for the writer would never return at all.
			if elapsed > timeout+closeGrace+2*time.Second {
				t.Errorf("Close took %v with a %v deadline", elapsed, timeout)
			}
			if b.Add(click(9)) {
				t.Error("Add after Close = true, want false")
			}
		})
	}
}

// TestCloseReportsAWriteThatEndsAsItsContextDoes: a write under way when
// Close's context ends, which completes all the same, is not reported as
// clicks lost.
func TestCloseReportsAWriteThatEndsAsItsContextDoes(t *testing.T) {
	w := &fakeWriter{write: func(context.Context, int) error {
		time.Sleep(100 * time.Millisecond) // heedless of its context, and then done
		return nil
	}}
	b := newBuffer(t, w, Options{FlushInterval: never})
	addClicks(t, b, 0, 5)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := b.Close(ctx); err != nil {
		t.Errorf("Close = %v, want nil: the write under way stored its clicks", err)
	}
	if got := b.Stats(); got != (Stats{Written: 5}) {
		t.Errorf("Stats = %+v, want all 5 written", got)
	}
}

func TestConcurrentAddLosesNothing(t *testing.T) {
	const goroutines, perGoroutine = 8, 2000
	w := &fakeWriter{}
	b := newBuffer(t, w, Options{FlushInterval: time.Millisecond, MaxBatch: 100})

	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perGoroutine {
				if !b.Add(click(g*perGoroutine + i)) {
					t.Errorf("Add(click %d) = false", g*perGoroutine+i)
					return
				}
			}
		})
	}
	wg.Wait()
	closeBuffer(t, b)

	// Every click once, and each goroutine's clicks in the order it added
	// them.
	seen := map[string]bool{}
	last := make([]string, goroutines)
	for _, id := range w.IDs() {
		if seen[id] {
			t.Fatalf("click %s written twice", id)
		}
		seen[id] = true
		var n int
		if _, err := fmt.Sscanf(id, "%x", &n); err != nil {
			t.Fatalf("id %q: %v", id, err)
		}
		g := n / perGoroutine
		if id < last[g] {
			t.Errorf("click %s of goroutine %d written after %s", id, g, last[g])
		}
		last[g] = id
	}
	if got := len(seen); got != goroutines*perGoroutine {
		t.Errorf("%d clicks written, want %d", got, goroutines*perGoroutine)
	}
	if diff := cmp.Diff(Stats{Written: goroutines * perGoroutine}, b.Stats()); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

func TestBackoff(t *testing.T) {
	for _, tt := range []struct {
		name     string
		interval time.Duration
		failures int
		want     time.Duration
	}{
		{"without failures the interval is kept", 100 * time.Millisecond, 0, 100 * time.Millisecond},
		{"one failure doubles the interval", 100 * time.Millisecond, 1, 200 * time.Millisecond},
		{"each further failure doubles it again", 100 * time.Millisecond, 3, 800 * time.Millisecond},
		{"the wait stops growing at 5 seconds", 100 * time.Millisecond, 6, 5 * time.Second},
		{"a long outage does not overflow the wait", 100 * time.Millisecond, 1000, 5 * time.Second},
		{"an interval longer than the cap is never shortened", 10 * time.Second, 3, 10 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := backoff(tt.interval, tt.failures); got != tt.want {
				t.Errorf("backoff(%v, %d) = %v, want %v", tt.interval, tt.failures, got, tt.want)
			}
		})
	}
}

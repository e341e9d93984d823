package notify

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// syncBuffer is a log destination safe for the Deliverer's goroutine and
// the test's.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitDelivered waits, for at most 10 s, until notification id is
// delivered, and returns how long that took.
func waitDelivered(outbox *fakeOutbox, id int64) time.Duration {
	start := time.Now()
	for !outbox.row(id).delivered && time.Since(start) < 10*time.Second {
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// startRun runs d.Run until the returned stop is called; stop returns
// what Run returned.
func startRun(t *testing.T, d *Deliverer) (stop func() error) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx, ctx) }()
	return func() error {
		cancel()
		return <-done
	}
}

func TestDelivererLogsAStoreOutageOnceAMinute(t *testing.T) {
	outbox := &fakeOutbox{claimErr: errors.New("database is down")}
	clock := newFakeClock()
	var logs syncBuffer
	d, _ := newTestDeliverer(outbox, clock, Options{Interval: time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	stop := startRun(t, d)
	claims := func() int {
		outbox.mu.Lock()
		defer outbox.mu.Unlock()
		return outbox.claims
	}
	waitClaims := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for claims() < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d polls after 10 s, want %d", claims(), n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitClaims(30)
	clock.Advance(time.Minute)
	waitClaims(claims() + 30)
	outbox.mu.Lock()
	outbox.claimErr = nil
	outbox.mu.Unlock()
	waitClaims(claims() + 5)
	stop()
	out := logs.String()
	if n := strings.Count(out, `msg="notification delivery" `); n != 2 {
		t.Errorf("%d failure lines for some 60 failed polls over a minute, want 2:\n%s", n, out)
	}
	if n := strings.Count(out, `msg="notification delivery resumed"`); n != 1 {
		t.Errorf("%d lines saying delivery resumed, want 1:\n%s", n, out)
	}
}

func TestDelivererRunDeliversUntilCancelled(t *testing.T) {
	recv := newReceiver(t, nil)
	outbox := &fakeOutbox{}
	now := time.Now().UTC()
	for range 25 {
		outbox.add(recv.URL, now.Add(-time.Second))
	}
	d := New(outbox, Options{AllowPrivate: true, Interval: 10 * time.Millisecond, Batch: 10})
	stop := startRun(t, d)

	deadline := time.Now().Add(10 * time.Second)
	for {
		_, delivered, _, _ := outbox.NotificationCounts(t.Context())
		if delivered == 25 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 25 delivered after 10s", delivered)
		}
		time.Sleep(5 * time.Millisecond)
	}
	outbox.add(recv.URL, time.Now().UTC())
	for time.Now().Before(deadline) && !outbox.row(26).delivered {
		time.Sleep(5 * time.Millisecond)
	}
	if !outbox.row(26).delivered {
		t.Errorf("a notification added while running was not delivered")
	}
	if err := stop(); err != nil {
		t.Errorf("Run = %v; want nil once cancelled", err)
	}
}

// TestAStopLetsTheCallsUnderWayFinish: once Run's ctx ends, it claims
// nothing more, and the calls under way go on until drain ends, so a
// clean stop does not have their receivers called again after the lease.
func TestAStopLetsTheCallsUnderWayFinish(t *testing.T) {
	for _, c := range []struct {
		name      string
		cut       bool // drain ends too
		delivered bool
	}{
		{"a call under way when the stop begins is delivered and recorded", false, true},
		{"a call still under way when the drain ends is cut, unrecorded", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			answering := make(chan struct{})
			answer := make(chan struct{})
			recv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
				close(answering)
				select {
				case <-answer:
				case <-r.Context().Done():
				}
			})
			outbox := &fakeOutbox{}
			id := outbox.add(recv.URL, time.Now().UTC().Add(-time.Second))
			d := New(outbox, Options{AllowPrivate: true, Interval: 10 * time.Millisecond})
			ctx, stop := context.WithCancel(t.Context())
			drain, cut := context.WithCancel(t.Context())
			defer cut()
			done := make(chan error, 1)
			go func() { done <- d.Run(ctx, drain) }()
			<-answering
			stop()
			outbox.add(recv.URL, time.Now().UTC().Add(-time.Second)) // due, but the stop has begun
			if c.cut {
				cut()
			} else {
				time.Sleep(50 * time.Millisecond)
				close(answer)
			}
			if err := <-done; err != nil {
				t.Errorf("Run = %v, want nil", err)
			}
			if got := outbox.row(id).delivered; got != c.delivered {
				t.Errorf("delivered = %v, want %v", got, c.delivered)
			}
			if n := recv.requests.Load(); n != 1 {
				t.Errorf("the receiver was called %d times, want once: nothing is claimed after the stop", n)
			}
		})
	}
}

// TestDelivererRunPrunesFinishedNotificationsPastKeep: Run removes the
// delivered and given-up notifications that finished more than Keep ago,
// in batches, and leaves the recent and the pending ones.
func TestDelivererRunPrunesFinishedNotificationsPastKeep(t *testing.T) {
	outbox := &fakeOutbox{}
	now := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	old := pruneBatch + 5 // more than one batch
	for i := range old + 3 {
		id := outbox.add("http://receiver.invalid/", now.Add(-48*time.Hour))
		r := outbox.rows[id-1]
		switch {
		case i < old/2:
			r.delivered, r.finished = true, now.Add(-2*time.Hour)
		case i < old:
			r.givenUp, r.finished = true, now.Add(-3*time.Hour)
		case i == old:
			r.delivered, r.finished = true, now.Add(-30*time.Minute) // within Keep
		case i == old+1:
			r.next = now.Add(time.Hour) // pending, not yet due
		default:
			r.givenUp, r.finished = true, now.Add(-time.Hour) // exactly Keep ago: kept
		}
	}
	d := New(outbox, Options{Interval: 10 * time.Millisecond, Keep: time.Hour, Now: func() time.Time { return now }})
	stop := startRun(t, d)
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, dl, g, _ := outbox.NotificationCounts(t.Context())
		if p+dl+g == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d notifications left after 10s, want 3", p+dl+g)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	for id := int64(old + 1); id <= int64(old+3); id++ {
		if outbox.row(id).pruned {
			t.Errorf("notification %d pruned, want it kept", id)
		}
	}
}

// TestOneAffiliatesHangingReceiverHoldsUpNoOtherAffiliate: an affiliate
// whose receiver answers nothing, with a backlog, takes a few of Run's
// call slots, never all, and another affiliate's notification made after
// that backlog is delivered at once.
func TestOneAffiliatesHangingReceiverHoldsUpNoOtherAffiliate(t *testing.T) {
	var hanging, most atomic.Int64
	stuck := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		n := hanging.Add(1)
		defer hanging.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-r.Context().Done()
	})
	fine := newReceiver(t, nil)
	outbox := &fakeOutbox{}
	now := time.Now().UTC()
	for range 50 {
		id := outbox.add(stuck.URL, now.Add(-time.Minute))
		outbox.rows[id-1].n.AffiliateID = 4
	}
	other := outbox.add(fine.URL, now.Add(-time.Second))
	outbox.rows[other-1].n.AffiliateID = 1

	const concurrency = 8
	d := New(outbox, Options{AllowPrivate: true, Interval: 10 * time.Millisecond, Timeout: 2 * time.Second,
		Concurrency: concurrency})
	stop := startRun(t, d)
	took := waitDelivered(outbox, other)
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !outbox.row(other).delivered || took > time.Second {
		t.Errorf("the other affiliate's notification delivered %v after %v, want within a second",
			outbox.row(other).delivered, took.Round(time.Millisecond))
	}
	if got, want := most.Load(), int64(concurrency/4); got > want {
		t.Errorf("%d calls to the hanging receiver at once, want at most %d", got, want)
	}
}

// TestHangingReceiversOfManyAffiliatesHoldUpNoOtherAffiliate: when the
// receiver of many affiliates hangs, with backlogs older than another
// affiliate's notification, it is paused after its first slow calls, so
// the other notification goes out after one round of timeouts rather
// than behind every hanging notification (a round per eight of them).
func TestHangingReceiversOfManyAffiliatesHoldUpNoOtherAffiliate(t *testing.T) {
	var calls atomic.Int64
	stuck := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		<-r.Context().Done()
	})
	fine := newReceiver(t, nil)
	outbox := &fakeOutbox{}
	now := time.Now().UTC()
	const hostile, backlog = 12, 5
	for i := range hostile * backlog {
		id := outbox.add(stuck.URL, now.Add(-time.Minute))
		outbox.rows[id-1].n.AffiliateID = int64(10 + i%hostile)
	}
	other := outbox.add(fine.URL, now.Add(-time.Second))
	outbox.rows[other-1].n.AffiliateID = 1

	const timeout = 300 * time.Millisecond
	d := New(outbox, Options{AllowPrivate: true, Interval: 10 * time.Millisecond, Timeout: timeout,
		Concurrency: 8, FirstRetry: time.Minute})
	stop := startRun(t, d)
	took := waitDelivered(outbox, other)
	time.Sleep(2 * timeout) // what a pause lets through, it lets through by now
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	// Without pauses the other notification waits for the 60 hanging
	// calls, 8 at a time: eight timeouts.
	if !outbox.row(other).delivered || took > 4*timeout {
		t.Errorf("the other affiliate's notification delivered %v after %v, want within %v",
			outbox.row(other).delivered, took.Round(time.Millisecond), 4*timeout)
	}
	if got := calls.Load(); got > 8 {
		t.Errorf("%d calls to the hanging receiver, want at most 8 (one round, then a pause)", got)
	}
}

// TestNotificationsOfAPausedReceiverAreGivenUpAfterTheRetryWindow: a
// receiver that hangs for good has each of its notifications given up
// once past the retry window, called or not.
func TestNotificationsOfAPausedReceiverAreGivenUpAfterTheRetryWindow(t *testing.T) {
	stuck := newReceiver(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	outbox := &fakeOutbox{}
	now := time.Now().UTC()
	const n = 30
	for range n {
		id := outbox.add(stuck.URL, now)
		outbox.rows[id-1].n.AffiliateID = 4
	}
	d := New(outbox, Options{AllowPrivate: true, Interval: 10 * time.Millisecond, Timeout: 100 * time.Millisecond,
		FirstRetry: 100 * time.Millisecond, RetryWindow: time.Second})
	stop := startRun(t, d)
	start := time.Now()
	for {
		_, _, givenUp, _ := outbox.NotificationCounts(t.Context())
		if givenUp == n {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("%d of %d given up 5 s after they were made, with a retry window of 1 s", givenUp, n)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// TestAPausedReceiverHoldsUpNoOneElse: once a receiver that hangs is
// paused, a notification bound elsewhere goes out at once, though the
// paused one's backlog is older: an affiliate's after it moved its
// NotificationUrl to a receiver that answers, and another affiliate's
// when the backlog is longer than a claim looks at (claims leave a paused
// receiver out, rather than claim and put off its backlog a few a poll).
func TestAPausedReceiverHoldsUpNoOneElse(t *testing.T) {
	for _, tt := range []struct {
		name      string
		backlog   int
		affiliate int64 // of the notification bound elsewhere; the backlog's is 4
		interval  time.Duration
	}{
		{"the same affiliate, moved to a receiver that answers", 8, 4, 10 * time.Millisecond},
		{"another affiliate, behind a backlog longer than a claim looks at", 200, 1, 200 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stuck := newReceiver(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
			fine := newReceiver(t, nil)
			outbox := &fakeOutbox{}
			now := time.Now().UTC()
			for range tt.backlog {
				id := outbox.add(stuck.URL, now.Add(-time.Minute))
				outbox.rows[id-1].n.AffiliateID = 4
			}
			const timeout = 200 * time.Millisecond
			d := New(outbox, Options{AllowPrivate: true, Interval: tt.interval, Timeout: timeout, FirstRetry: time.Minute})
			stop := startRun(t, d)
			time.Sleep(2 * timeout) // the first calls fail slowly: the receiver is paused
			other := outbox.add(fine.URL, time.Now().UTC())
			outbox.mu.Lock()
			outbox.rows[other-1].n.AffiliateID = tt.affiliate
			outbox.mu.Unlock()
			took := waitDelivered(outbox, other)
			if err := stop(); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if within := 2*timeout + 2*tt.interval; !outbox.row(other).delivered || took > within {
				t.Errorf("the notification bound elsewhere delivered %v after %v, want within %v",
					outbox.row(other).delivered, took.Round(time.Millisecond), within)
			}
		})
	}
}

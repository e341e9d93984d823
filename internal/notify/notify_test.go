package notify

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
)

// fakeRow is a notification of the fake outbox and its delivery state.
type fakeRow struct {
	n         afftrack.Notification
	next      time.Time
	delivered bool
	givenUp   bool
	why       string
	finished  time.Time // when delivered or given up
	pruned    bool      // removed from the outbox
}

// fakeOutbox is an in-memory afftrack.NotificationOutbox that keeps to
// the interface's contract; the SQL store has its own tests.
type fakeOutbox struct {
	mu       sync.Mutex
	rows     []*fakeRow
	claimErr error
	claims   int // calls of ClaimNotifications
}

var _ afftrack.NotificationOutbox = (*fakeOutbox)(nil)

func (f *fakeOutbox) add(url string, created time.Time) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := int64(len(f.rows) + 1)
	f.rows = append(f.rows, &fakeRow{
		n:    afftrack.Notification{ID: id, AffiliateID: 5, TransactionID: 100 + id, URL: url, Created: created},
		next: created,
	})
	return id
}

func (f *fakeOutbox) row(id int64) fakeRow {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.rows[id-1]
}

func (f *fakeOutbox) ClaimNotifications(_ context.Context, c afftrack.NotificationClaim) ([]afftrack.Notification, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.claims++
	if f.claimErr != nil {
		return nil, f.claimErr
	}
	var out []afftrack.Notification
	taken := map[int64]int{}
	due := make([]*fakeRow, 0, len(f.rows))
	for _, r := range f.rows {
		if !r.delivered && !r.givenUp && !r.next.After(c.Now) && !slices.Contains(c.Skip, r.n.AffiliateID) &&
			!slices.Contains(c.SkipReceivers, afftrack.NotificationReceiver(r.n.URL)) {
			due = append(due, r)
		}
	}
	slices.SortStableFunc(due, func(a, b *fakeRow) int { return a.next.Compare(b.next) })
	// The store looks at 8 candidates for each notification it may take,
	// the longest due first.
	due = due[:min(len(due), 8*c.Max)]
	for _, r := range due {
		if len(out) == c.Max {
			break
		}
		if c.PerAffiliate > 0 && taken[r.n.AffiliateID] == c.PerAffiliate {
			continue
		}
		taken[r.n.AffiliateID]++
		r.next = c.Now.Add(c.Lease)
		out = append(out, r.n)
	}
	return out, nil
}

func (f *fakeOutbox) NotificationDelivered(_ context.Context, id int64, at time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.rows[id-1]
	r.n.Attempts++
	r.delivered, r.finished = true, at
	return nil
}

func (f *fakeOutbox) NotificationFailed(_ context.Context, id int64, next time.Time, why string, giveUp bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.rows[id-1]
	r.n.Attempts++
	r.next, r.why, r.givenUp = next, why, giveUp
	if giveUp {
		r.finished = next
	}
	return nil
}

func (f *fakeOutbox) NotificationDeferred(_ context.Context, id int64, next time.Time, why string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.rows[id-1]
	r.next, r.why = next, why
	return nil
}

func (f *fakeOutbox) GiveUpNotifications(_ context.Context, before, at time.Time, why string, n int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var given int64
	for _, r := range f.rows {
		if int(given) < n && !r.delivered && !r.givenUp && r.n.Created.Before(before) && !r.next.After(at) {
			r.givenUp, r.finished, r.why = true, at, why
			given++
		}
	}
	return given, nil
}

func (f *fakeOutbox) NotificationCounts(context.Context) (pending, delivered, givenUp int64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rows {
		switch {
		case r.pruned:
		case r.delivered:
			delivered++
		case r.givenUp:
			givenUp++
		default:
			pending++
		}
	}
	return pending, delivered, givenUp, nil
}

func (f *fakeOutbox) PruneNotifications(_ context.Context, before time.Time, n int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var removed int64
	for _, r := range f.rows {
		if int(removed) < n && !r.pruned && (r.delivered || r.givenUp) && r.finished.Before(before) {
			r.pruned = true
			removed++
		}
	}
	return removed, nil
}

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// observed collects the outcomes a Deliverer reports.
type observed struct {
	mu       sync.Mutex
	outcomes []string
}

func (o *observed) Observe(outcome string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.outcomes = append(o.outcomes, outcome)
}

func (o *observed) get() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.outcomes)
}

// receiver is a test notification receiver on 127.0.0.1 that counts the
// requests reaching it and answers with status() (200 if nil).
type receiver struct {
	*httptest.Server
	requests atomic.Int64
	status   atomic.Int64
	mu       sync.Mutex
	seen     []*http.Request
	bodies   []string
}

func newReceiver(t *testing.T, handler http.HandlerFunc) *receiver {
	t.Helper()
	r := &receiver{}
	r.status.Store(http.StatusOK)
	r.Server = httptest.NewServer(r.handler(handler))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) handler(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		r.requests.Add(1)
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.seen = append(r.seen, req)
		r.bodies = append(r.bodies, string(body))
		r.mu.Unlock()
		if next != nil {
			next(w, req)
			return
		}
		w.WriteHeader(int(r.status.Load()))
	}
}

// newTestDeliverer returns a Deliverer of outbox on clock, allowing the
// test servers' loopback addresses, and what it observes.
func newTestDeliverer(outbox *fakeOutbox, clock *fakeClock, o Options) (*Deliverer, *observed) {
	obs := &observed{}
	o.AllowPrivate = true
	o.Now = clock.Now
	o.Observe = obs.Observe
	d := New(outbox, o)
	d.jitter = func() float64 { return 0.5 } // no jitter: waits are exact
	return d, obs
}

func TestDelivererDeliversOn2xx(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusNoContent, 299} {
		t.Run(http.StatusText(status)+" ends the notification delivered", func(t *testing.T) {
			recv := newReceiver(t, nil)
			recv.status.Store(int64(status))
			clock := newFakeClock()
			outbox := &fakeOutbox{}
			id := outbox.add(recv.URL+"/cb?tx=101&s=Approved", clock.Now())
			d, obs := newTestDeliverer(outbox, clock, Options{})

			sent, err := d.RunOnce(t.Context())
			if err != nil || sent != 1 {
				t.Fatalf("RunOnce = %d, %v; want 1, nil", sent, err)
			}
			got := outbox.row(id)
			if !got.delivered || got.n.Attempts != 1 {
				t.Errorf("row = %+v; want delivered after 1 attempt", got)
			}
			if diff := cmp.Diff([]string{OutcomeDelivered}, obs.get()); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			req := recv.seen[0]
			gotReq := []string{req.Method, req.URL.RequestURI(), req.UserAgent(), recv.bodies[0]}
			if diff := cmp.Diff([]string{"GET", "/cb?tx=101&s=Approved", afftrack.NotificationUserAgent, ""}, gotReq); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if sent, _ := d.RunOnce(t.Context()); sent != 0 {
				t.Errorf("a second poll sent %d; want 0", sent)
			}
		})
	}
}

func TestDelivererFailures(t *testing.T) {
	other := newReceiver(t, nil) // where the redirect points
	status := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		url     string // "" for the receiver's
		timeout time.Duration
		wantWhy string
	}{
		{name: "a 500 is a failure", handler: status(500), wantWhy: "HTTP 500"},
		{name: "a 404 is a failure", handler: status(404), wantWhy: "HTTP 404"},
		{name: "a 304 is a failure", handler: status(304), wantWhy: "HTTP 304"},
		{name: "a redirect is not followed and is a failure", wantWhy: "HTTP 302: redirects are not followed",
			handler: func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, other.URL+"/x", http.StatusFound) }},
		{name: "a receiver slower than the timeout is a failure", timeout: 100 * time.Millisecond, wantWhy: "Timeout",
			handler: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
		{name: "a URL of another scheme is a failure", url: "ftp://127.0.0.1/x", wantWhy: "not an http or https URL"},
		{name: "a URL without a host is a failure", url: "http:///x", wantWhy: "not an http or https URL"},
		{name: "a string that is not a URL is a failure", url: "http://[::1/x", wantWhy: "not a URL"},
		{name: "a receiver that is not listening is a failure", url: "http://" + closedAddr(t) + "/x",
			wantWhy: "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recv := newReceiver(t, tt.handler)
			url := tt.url
			if url == "" {
				url = recv.URL + "/cb"
			}
			clock := newFakeClock()
			outbox := &fakeOutbox{}
			id := outbox.add(url, clock.Now())
			d, obs := newTestDeliverer(outbox, clock, Options{Timeout: tt.timeout})

			start := time.Now()
			if _, err := d.RunOnce(t.Context()); err != nil {
				t.Fatal(err)
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("the attempt took %v", elapsed)
			}
			got := outbox.row(id)
			if got.delivered || got.givenUp || got.n.Attempts != 1 || !strings.Contains(got.why, tt.wantWhy) {
				t.Errorf("row = %+v; want failed once, why containing %q", got, tt.wantWhy)
			}
			if want := clock.Now().Add(backoffBase); !got.next.Equal(want) {
				t.Errorf("next attempt at %v; want %v", got.next, want)
			}
			if diff := cmp.Diff([]string{OutcomeFailed}, obs.get()); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
		})
	}
	if n := other.requests.Load(); n != 0 {
		t.Errorf("the redirect target got %d requests; want 0", n)
	}
}

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestDelivererGivesUpAfterTheRetryWindow(t *testing.T) {
	tests := []struct {
		name       string
		age        time.Duration
		wantGiveUp bool
		wantObs    string
	}{
		{"a notification a minute old is retried", time.Minute, false, OutcomeFailed},
		{"a notification just inside the window is retried", 24 * time.Hour, false, OutcomeFailed},
		{"a notification past the window is given up", 24*time.Hour + time.Millisecond, true, OutcomeGivenUp},
		{"a notification days old is given up", 72 * time.Hour, true, OutcomeGivenUp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recv := newReceiver(t, nil)
			recv.status.Store(http.StatusServiceUnavailable)
			clock := newFakeClock()
			outbox := &fakeOutbox{}
			id := outbox.add(recv.URL, clock.Now())
			clock.Advance(tt.age)
			d, obs := newTestDeliverer(outbox, clock, Options{})

			if _, err := d.RunOnce(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got := outbox.row(id); got.givenUp != tt.wantGiveUp {
				t.Errorf("givenUp = %v; want %v", got.givenUp, tt.wantGiveUp)
			}
			if diff := cmp.Diff([]string{tt.wantObs}, obs.get()); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDelivererGivesUpOnAReceiverDownAllDay(t *testing.T) {
	recv := newReceiver(t, nil)
	recv.status.Store(http.StatusInternalServerError)
	clock := newFakeClock()
	outbox := &fakeOutbox{}
	id := outbox.add(recv.URL, clock.Now())
	d, _ := newTestDeliverer(outbox, clock, Options{})

	for range 24*60 + 120 {
		if _, err := d.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
	}
	got := outbox.row(id)
	// 30s, 1m, 2m, ... 32m, then hourly: 8 attempts in the first 63.5
	// minutes, about one an hour after, and the one past 24 h gives up.
	if !got.givenUp || got.n.Attempts < 25 || got.n.Attempts > 35 {
		t.Errorf("row = %+v; want given up after about 30 attempts", got)
	}
	if n := recv.requests.Load(); n != int64(got.n.Attempts) {
		t.Errorf("receiver got %d requests; want one per attempt, %d", n, got.n.Attempts)
	}
}

func TestDelivererRecoversFromAReceiverOutageAndARestart(t *testing.T) {
	// The receiver answers 500 for half an hour, then is not listening
	// for another half hour, then comes back on the same address. In the
	// middle, transactions go on being created and the deliverer is
	// restarted after a crash that left claims behind. Every notification
	// must end delivered, with one outcome per attempt.
	var down atomic.Bool
	down.Store(true)
	recv := newReceiver(t, nil)
	handler := recv.handler(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	recv.Config.Handler = handler
	addr := recv.Listener.Addr().String()

	clock := newFakeClock()
	outbox := &fakeOutbox{}
	const early, late = 20, 5
	for i := range early {
		outbox.add(recv.URL+"/cb?n="+strconv.Itoa(i), clock.Now())
	}
	d, obs := newTestDeliverer(outbox, clock, Options{Batch: 7, Concurrency: 3})
	step := func(minutes int) {
		t.Helper()
		for range minutes {
			for {
				n, err := d.RunOnce(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
			}
			clock.Advance(time.Minute)
		}
	}

	step(30)
	recv.Close() // down: connections refused
	step(10)

	// New transactions, whose notifications a deliverer claims and then
	// crashes: they come back when the lease ends.
	for i := range late {
		outbox.add(recv.URL+"/cb?late="+strconv.Itoa(i), clock.Now())
	}
	crashed, err := outbox.ClaimNotifications(t.Context(), afftrack.NotificationClaim{Now: clock.Now(), Max: early + late,
		Lease: time.Minute})
	if err != nil || len(crashed) != late {
		t.Fatalf("the crashing deliverer claimed %d, %v; want the %d new ones", len(crashed), err, late)
	}
	d, obs2 := newTestDeliverer(outbox, clock, Options{Batch: 7, Concurrency: 3})
	step(20)

	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening again on %s: %v", addr, err)
	}
	back := &http.Server{Handler: handler}
	go back.Serve(l)
	t.Cleanup(func() { back.Close() })
	down.Store(false)
	step(70) // enough for the hourly backoff to come round

	pending, delivered, givenUp, _ := outbox.NotificationCounts(t.Context())
	if diff := cmp.Diff([3]int64{0, early + late, 0}, [3]int64{pending, delivered, givenUp}); diff != "" {
		t.Fatalf("pending, delivered, given up (-want +got):\n%s", diff)
	}
	var attempts int64
	for i := range early + late {
		r := outbox.row(int64(i + 1))
		// Down from minute 0 to 60: 0, 1, 2, 4, 8, 16, 32 fail, 64
		// delivers. The late ones, from 41 (the lease) to 73.
		want := 8
		if i >= early {
			want = 7
		}
		if r.n.Attempts != want {
			t.Errorf("notification %d: %d attempts; want %d", r.n.ID, r.n.Attempts, want)
		}
		attempts += int64(r.n.Attempts)
	}
	outcomes := append(obs.get(), obs2.get()...)
	if got := int64(len(outcomes)); got != attempts {
		t.Errorf("observed %d outcomes; want one per attempt, %d", got, attempts)
	}
	if got := countOf(outcomes, OutcomeDelivered); got != early+late {
		t.Errorf("observed %d deliveries; want %d", got, early+late)
	}
	// Attempts while the receiver was closed never reached it: those at
	// minutes 0 to 16 of the early ones, 6 each, and the final deliveries.
	if got, want := recv.requests.Load(), int64(early*6+early+late); got != want {
		t.Errorf("receiver got %d requests; want %d", got, want)
	}
}

func countOf(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

func TestDelivererLeavesUnfinishedCallsToTheLease(t *testing.T) {
	started := make(chan struct{})
	recv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	})
	clock := newFakeClock()
	outbox := &fakeOutbox{}
	id := outbox.add(recv.URL, clock.Now())
	d, obs := newTestDeliverer(outbox, clock, Options{})

	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	if _, err := d.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if got := outbox.row(id); got.n.Attempts != 0 || got.why != "" {
		t.Errorf("row = %+v; want the interrupted call not recorded", got)
	}
	if len(obs.get()) != 0 {
		t.Errorf("outcomes = %v; want none", obs.get())
	}
	recv.status.Store(http.StatusOK)
	recv.Config.Handler = recv.handler(nil)
	if n, _ := d.RunOnce(t.Context()); n != 0 {
		t.Errorf("sent %d while the claim holds; want 0", n)
	}
	clock.Advance(time.Minute)
	if n, _ := d.RunOnce(t.Context()); n != 1 || !outbox.row(id).delivered {
		t.Errorf("after the lease: sent %d, row %+v; want it delivered", n, outbox.row(id))
	}
}

func TestDelivererStartsNoCallThatCouldOutliveItsClaim(t *testing.T) {
	clock := newFakeClock()
	// Each call takes (on the fake clock) longer than the whole lease.
	recv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) { clock.Advance(2 * time.Minute) })
	outbox := &fakeOutbox{}
	for range 3 {
		outbox.add(recv.URL, clock.Now())
	}
	d, _ := newTestDeliverer(outbox, clock, Options{Concurrency: 1})

	sent, err := d.RunOnce(t.Context())
	if err != nil || sent != 1 {
		t.Errorf("RunOnce = %d, %v; want 1 call, the others left to their lease", sent, err)
	}
	if got := []bool{outbox.row(1).delivered, outbox.row(2).delivered, outbox.row(3).delivered}; !slices.Equal(got, []bool{true, false, false}) {
		t.Errorf("delivered = %v; want only the first", got)
	}
}

func TestDelivererReportsAStoreThatFails(t *testing.T) {
	outbox := &fakeOutbox{claimErr: errors.New("database is down")}
	d, _ := newTestDeliverer(outbox, newFakeClock(), Options{})
	if _, err := d.RunOnce(t.Context()); err == nil || !strings.Contains(err.Error(), "database is down") {
		t.Errorf("RunOnce error = %v; want the store's", err)
	}
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		name    string
		attempt int
		jitter  float64
		want    time.Duration
	}{
		{"the first retry is after 30s", 1, 0.5, 30 * time.Second},
		{"the second is after a minute", 2, 0.5, time.Minute},
		{"the wait doubles", 5, 0.5, 8 * time.Minute},
		{"the seventh is after 32 minutes", 7, 0.5, 32 * time.Minute},
		{"the eighth reaches the hour cap", 8, 0.5, time.Hour},
		{"the cap holds after many attempts", 1000, 0.5, time.Hour},
		{"the least jitter takes 20% off", 1, 0, 24 * time.Second},
		{"the most jitter adds nearly 20%", 8, 0.99999, 72 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := backoff(backoffBase, tt.attempt, tt.jitter)
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b time.Duration) bool {
				return (a - b).Abs() < 100*time.Millisecond
			})); diff != "" {
				t.Errorf("backoff(backoffBase, %d, %v) (-want +got):\n%s", tt.attempt, tt.jitter, diff)
			}
		})
	}
}

func TestShortenKeepsReasonsBoundedAndValid(t *testing.T) {
	long := strings.Repeat("é", 300)
	got := shorten(long)
	if len(got) > maxWhy+len("…") || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("shorten gave %d bytes %q", len(got), got)
	}
	if diff := cmp.Diff("HTTP 500", shorten("HTTP 500")); diff != "" {
		t.Errorf("a short reason changed (-want +got):\n%s", diff)
	}
}

func TestDelivererGivesUpAURLTooLongAtOnce(t *testing.T) {
	for _, tt := range []struct {
		name     string
		extra    int
		wantCall bool
	}{
		{"a URL of MaxURLLength bytes is sent", 0, true},
		{"a URL a byte longer is given up, not sent", 1, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recv := newReceiver(t, nil)
			clock := newFakeClock()
			outbox := &fakeOutbox{}
			u := recv.URL + "/?p="
			u += strings.Repeat("x", MaxURLLength-len(u)+tt.extra)
			id := outbox.add(u, clock.Now())
			d, obs := newTestDeliverer(outbox, clock, Options{})
			if _, err := d.RunOnce(t.Context()); err != nil {
				t.Fatal(err)
			}
			got := outbox.row(id)
			if got.delivered != tt.wantCall || got.givenUp == tt.wantCall {
				t.Errorf("delivered %v, given up %v; want delivered %v", got.delivered, got.givenUp, tt.wantCall)
			}
			want := OutcomeDelivered
			if !tt.wantCall {
				want = OutcomeGivenUp
				if !strings.Contains(got.why, "bytes long") {
					t.Errorf("why %q, want it to say the URL is too long", got.why)
				}
			}
			if diff := cmp.Diff([]string{want}, obs.get()); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
		})
	}
}

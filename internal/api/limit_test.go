package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
)

func TestRequestsWithABodyAreRefused(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(r *http.Request)
	}{
		{"a Content-Length body", func(r *http.Request) {
			r.Body = http.NoBody
			r.ContentLength = 1000
		}},
		{"a chunked body", func(r *http.Request) {
			r.ContentLength = -1
			r.TransferEncoding = []string{"chunked"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a 400 that closes the connection", func(t *testing.T) {
			h := newHarness(t)
			r := httptest.NewRequest("GET", "/V1/Merchant/Transactions/1?apiKey="+merchantKey, nil)
			tt.prepare(r)
			w := httptest.NewRecorder()
			h.srv.Handler().ServeHTTP(w, r)
			mustStatus(t, w, http.StatusBadRequest)
			if diff := cmp.Diff("the request has a body; the interface's reading functions take none", jsonMessage(w.Body.String())); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
			if got := w.Header().Get("Connection"); got != "close" {
				t.Errorf("Connection = %q, want close", got)
			}
			if got := h.limiter.acquired.Load(); got != 0 {
				t.Errorf("the rate limiter was asked %d times, want 0", got)
			}
		})
	}
}

// lookupFrom asks for a transaction with key from the peer address addr,
// with an X-Forwarded-For header if forwardedFor is not empty.
func lookupFrom(h *harness, addr, forwardedFor, key string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", "/V1/Merchant/Transactions/1", nil)
	r.RemoteAddr = addr + ":4711"
	if forwardedFor != "" {
		r.Header.Set("X-Forwarded-For", forwardedFor)
	}
	r.Header.Set("X-Api-Key", key)
	w := httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(w, r)
	return w
}

func TestAuthenticationFailuresAreBudgetedPerAddress(t *testing.T) {
	h := newHarnessConfig(t, nil, func(c *Config) { c.AuthFailuresPerMinute = 3 })
	do := func(addr, key string) *httptest.ResponseRecorder { return lookupFrom(h, addr, "", key) }
	for i := range 3 {
		mustStatus(t, do("192.0.2.1", fmt.Sprintf("guess-%d", i)), http.StatusUnauthorized)
	}
	t.Run("the address's next turn is a minute's share of the budget away, beyond the wait for it", func(t *testing.T) {
		w := do("192.0.2.1", merchantKey)
		mustStatus(t, w, http.StatusTooManyRequests)
		if got := w.Header().Get("Retry-After"); got != "20" {
			t.Errorf("Retry-After = %q, want 20 (a minute over 3; the clock stands still)", got)
		}
	})
	t.Run("another address is not", func(t *testing.T) {
		mustStatus(t, do("192.0.2.2", merchantKey), http.StatusOK)
	})
}

// TestAnAddressWhoseFailuresAreSpentIsSlowedDown: past its budget, an
// address's lookups go a minute's share of the budget apart, each
// answered as usual, so a client calling one at a time meets the
// contract's order of checks (401 before 429) however many keys it tries.
func TestAnAddressWhoseFailuresAreSpentIsSlowedDown(t *testing.T) {
	const perMinute = 300 // lookups 200 ms apart once spent
	spacing := time.Minute / perMinute
	h := newHarnessConfig(t, nil, func(c *Config) { c.AuthFailuresPerMinute = perMinute })
	started := time.Now()
	h.srv.clock = func() time.Time { return fixedNow.Add(time.Since(started)) }
	do := func(key string) *httptest.ResponseRecorder { return lookupFrom(h, "192.0.2.1", "", key) }
	for i := range perMinute {
		mustStatus(t, do(fmt.Sprintf("guess-%d", i)), http.StatusUnauthorized)
	}
	for _, c := range []struct {
		name string
		key  string
		want int
	}{
		{"a good key waits its turn and is served", merchantKey, http.StatusOK},
		{"a new guess waits its turn and is refused as unknown", "guess-new", http.StatusUnauthorized},
		{"a guess tried before waits its turn too", "guess-1", http.StatusUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			mustStatus(t, do(c.key), c.want)
			if d := time.Since(start); d < spacing/2 {
				t.Errorf("answered after %v, want about %v", d, spacing)
			}
		})
	}
	t.Run("calls at once beyond a few turns are refused with the wait", func(t *testing.T) {
		counts := map[int]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 60 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := do(fmt.Sprintf("burst-%d", i))
				mu.Lock()
				counts[w.Code]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		turns := int(slowWait/spacing) + 1
		if counts[http.StatusUnauthorized] > turns || counts[http.StatusUnauthorized]+counts[http.StatusTooManyRequests] != 60 {
			t.Errorf("answers by status %v, want at most %d 401s (the turns within %v) and the rest 429", counts, turns, slowWait)
		}
	})
	t.Run("a minute later the budget is whole again", func(t *testing.T) {
		h.srv.clock = func() time.Time { return fixedNow.Add(time.Minute + time.Since(started)) }
		start := time.Now()
		mustStatus(t, do("guess-after"), http.StatusUnauthorized)
		mustStatus(t, do(merchantKey), http.StatusOK)
		if d := time.Since(start); d > spacing/2 {
			t.Errorf("took %v, want no wait", d)
		}
	})
}

func TestATurnGivenUpIsGivenBack(t *testing.T) {
	b := newFailureBudget(300, 100) // turns 200 ms apart once spent
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return t0 }
	for i := range 300 {
		b.fail("192.0.2.1", fmt.Sprintf("guess-%d", i), t0)
	}
	left, leave := context.WithCancel(context.Background())
	leave() // the client has gone before its turn
	if wait := b.begin(left, "192.0.2.1", now); wait == 0 {
		t.Fatal("a lookup whose client left went ahead")
	}
	b.mu.Lock()
	w := b.addrs["192.0.2.1"]
	b.mu.Unlock()
	if want := t0.Add(200 * time.Millisecond); !w.next.Equal(want) || w.pending != 0 {
		t.Errorf("next turn %v with %d in flight, want %v with none: the turn given up is the next call's", w.next, w.pending, want)
	}
}

func TestARefusalsRetryAfterEndsWithTheMinute(t *testing.T) {
	b := newFailureBudget(3, 100) // turns 20 s apart once spent
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	b.fail("192.0.2.1", "guess-1", t0)
	at := t0.Add(50 * time.Second)
	b.fail("192.0.2.1", "guess-2", at)
	b.fail("192.0.2.1", "guess-3", at)
	if wait := b.begin(context.Background(), "192.0.2.1", func() time.Time { return at }); wait != 10*time.Second {
		t.Errorf("wait %v, want 10s: the budget is whole again when the minute ends", wait)
	}
}

// TestTheMinutesEndIsNoTurnForAll: calls near the end of an address's
// minute wait for their own turns like any other; the end shortens only
// the Retry-After of those refused, or guesses sent at once just before
// it would all be looked up together.
func TestTheMinutesEndIsNoTurnForAll(t *testing.T) {
	b := newFailureBudget(3, 100) // turns 20 s apart once spent
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		b.fail("192.0.2.1", fmt.Sprintf("guess-%d", i), t0)
	}
	at := func() time.Time { return t0.Add(57 * time.Second) }
	if wait := b.begin(context.Background(), "192.0.2.1", at); wait != 0 {
		t.Fatalf("the first call after the turn = %v, want it to go ahead", wait)
	}
	defer b.end("192.0.2.1", "guess-new", true, at())
	for i := range 5 {
		if wait := b.begin(context.Background(), "192.0.2.1", at); wait != 3*time.Second {
			t.Errorf("call %d at once = %v, want refused until the minute's end, 3s away", i, wait)
		}
	}
}

func TestAuthenticationFailuresCountKeysNotTriedBefore(t *testing.T) {
	h := newHarnessConfig(t, nil, func(c *Config) { c.AuthFailuresPerMinute = 3 })
	do := func(key string) *httptest.ResponseRecorder { return lookupFrom(h, "192.0.2.1", "", key) }
	t.Run("a client polling with one revoked key keeps the address open", func(t *testing.T) {
		for range 10 {
			mustStatus(t, do("revoked-key"), http.StatusUnauthorized)
		}
		mustStatus(t, do(merchantKey), http.StatusOK)
	})
	t.Run("keys failed among the last few do not count again", func(t *testing.T) {
		for range 5 {
			mustStatus(t, do("revoked-key"), http.StatusUnauthorized)
			mustStatus(t, do("mistyped-key"), http.StatusUnauthorized)
		}
		mustStatus(t, do(merchantKey), http.StatusOK)
	})
	t.Run("a third key not tried before spends the budget", func(t *testing.T) {
		mustStatus(t, do("guess-1"), http.StatusUnauthorized)
		mustStatus(t, do(merchantKey), http.StatusTooManyRequests)
	})
}

func TestAuthenticationFailuresCountEachKeyOnceAMinute(t *testing.T) {
	h := newHarnessConfig(t, nil, func(c *Config) { c.AuthFailuresPerMinute = 6 })
	do := func(key string) *httptest.ResponseRecorder { return lookupFrom(h, "192.0.2.1", "", key) }
	t.Run("a client trying its five wrong keys in turn spends five places", func(t *testing.T) {
		for range 4 {
			for _, key := range []string{"", "revoked-key", "mistyped-key", "closed-key", "wrong-kind-key"} {
				mustStatus(t, do(key), http.StatusUnauthorized)
			}
		}
		mustStatus(t, do(merchantKey), http.StatusOK)
	})
	t.Run("a sixth key spends the last", func(t *testing.T) {
		mustStatus(t, do("guess-1"), http.StatusUnauthorized)
		mustStatus(t, do(merchantKey), http.StatusTooManyRequests)
	})
}

func TestAnAddressRemembersABoundedNumberOfFailedKeys(t *testing.T) {
	b := newFailureBudget(1000, 10)
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 100 {
		b.fail("192.0.2.1", fmt.Sprintf("guess-%d", i), now)
	}
	b.mu.Lock()
	w := b.addrs["192.0.2.1"]
	b.mu.Unlock()
	if w.n != 100 || len(w.failed) != rememberedFailedKeys {
		t.Errorf("%d failures counted, %d keys remembered; want 100 and %d", w.n, len(w.failed), rememberedFailedKeys)
	}
}

func TestAuthenticationFailuresCountAnIPv6AddressByItsSlash64(t *testing.T) {
	h := newHarnessConfig(t, nil, func(c *Config) { c.AuthFailuresPerMinute = 3 })
	do := func(addr, key string) *httptest.ResponseRecorder { return lookupFrom(h, addr, "", key) }
	for i := range 3 {
		mustStatus(t, do(fmt.Sprintf("[2001:db8:1:2::%x]", i+1), fmt.Sprintf("guess-%d", i)), http.StatusUnauthorized)
	}
	t.Run("another address of the same /64 is refused", func(t *testing.T) {
		mustStatus(t, do("[2001:db8:1:2:ffff::9]", merchantKey), http.StatusTooManyRequests)
	})
	t.Run("an address of another /64 is not", func(t *testing.T) {
		mustStatus(t, do("[2001:db8:1:3::1]", merchantKey), http.StatusOK)
	})
}

func TestAuthenticationFailuresBehindATrustedProxy(t *testing.T) {
	h := newHarnessConfig(t, nil, func(c *Config) { c.AuthFailuresPerMinute = 3; c.TrustProxy = true })
	// Every request comes from the proxy, 10.0.0.1.
	do := func(forwardedFor, key string) *httptest.ResponseRecorder {
		return lookupFrom(h, "10.0.0.1", forwardedFor, key)
	}
	for i := range 3 {
		mustStatus(t, do("192.0.2.1", fmt.Sprintf("guess-%d", i)), http.StatusUnauthorized)
	}
	mustStatus(t, do("192.0.2.1, 10.0.0.1", merchantKey), http.StatusTooManyRequests)
	t.Run("another client of the proxy keeps its budget", func(t *testing.T) {
		mustStatus(t, do("192.0.2.2", merchantKey), http.StatusOK)
	})
}

func TestFailureBudgetIsBounded(t *testing.T) {
	b := newFailureBudget(5, 100)
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10_000 {
		b.fail(fmt.Sprintf("198.51.%d.%d", i/256, i%256), "guess", now)
	}
	if n := b.tracked(); n > 100 {
		t.Errorf("tracks %d addresses, want at most 100", n)
	}
	b.fail("203.0.113.9", "guess", now.Add(2*time.Minute))
	if n := b.tracked(); n != 1 {
		t.Errorf("after a minute, tracks %d addresses, want only the new one", n)
	}
}

// startBlockedList starts a list of merchantKey's over a real connection
// whose store read stops before its first row, holding its list slot, and
// returns once it has; cancel ends it, and done is closed when it has.
func startBlockedList(t *testing.T, h *harness) (cancel context.CancelFunc, done <-chan struct{}) {
	t.Helper()
	h.tx.blockAt, h.tx.blocked = 0, make(chan struct{})
	srv := httptest.NewServer(h.srv.Handler())
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+listTarget, nil)
	req.Header.Set("X-Api-Key", merchantKey)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		if res, err := srv.Client().Do(req); err == nil {
			res.Body.Close()
		}
	}()
	select {
	case <-h.tx.blocked:
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("the first list never started")
	}
	return cancel, finished
}

func TestListStreamsAreBounded(t *testing.T) {
	h := newHarnessConfig(t, nil, func(c *Config) { c.MaxListStreams = 1 })
	cancel, done := startBlockedList(t, h)
	defer cancel()
	w := h.do("GET", listTarget, "X-Api-Key", otherMerchantKey)
	mustStatus(t, w, http.StatusServiceUnavailable)
	if got := w.Header().Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After = %q, want 1", got)
	}
	if !strings.Contains(w.Body.String(), "busy") {
		t.Errorf("body %s does not say the service is busy", w.Body.String())
	}
	// Only accepted calls count: the refused one reports the budget and
	// does not spend it.
	before := w.Header().Get("X-RateLimit-Remaining")
	w = h.do("GET", listTarget, "X-Api-Key", otherMerchantKey)
	if after := w.Header().Get("X-RateLimit-Remaining"); before == "" || after != before {
		t.Errorf("X-RateLimit-Remaining %q after one refused list and %q after another, want the same", before, after)
	}
	cancel()
	<-done
}

// TestAListWaitsBrieflyForASlot: a list that finds every slot taken waits
// up to listSlotWait for one, so a burst of lists is served in turn
// rather than refused.
func TestAListWaitsBrieflyForASlot(t *testing.T) {
	h := newHarnessConfig(t, nil, func(c *Config) { c.MaxListStreams = 1 })
	cancel, done := startBlockedList(t, h)
	defer cancel()
	// The next list reads every row; the first gives its slot back a
	// moment after the next has begun to wait.
	h.tx.blocked = nil
	go func() {
		time.Sleep(listSlotWait / 4)
		cancel()
	}()
	w := h.do("GET", listTarget, "X-Api-Key", otherMerchantKey)
	mustStatus(t, w, http.StatusOK)
	<-done
}

// BenchmarkFailureBudgetFlood is a flood of new addresses on a full
// budget, each failing once within the same minute.
func BenchmarkFailureBudgetFlood(b *testing.B) {
	budget := newFailureBudget(20, maxTrackedAddresses)
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range maxTrackedAddresses {
		budget.fail(fmt.Sprintf("2001:db8::%x", i), "guess", now)
	}
	addrs := make([]string, 4096)
	for i := range addrs {
		addrs[i] = fmt.Sprintf("2001:db8:1::%x", i)
	}
	b.ResetTimer()
	for i := range b.N {
		budget.fail(addrs[i%len(addrs)], "guess", now.Add(time.Duration(i%50)*time.Second))
	}
}

// lookupsAtOnce sends n lookups from one address at once, each with the
// key keyOf gives, while the store holds every key lookup at a gate; once
// want lookups have reached the store (and a moment later no more have),
// it opens the gate and returns the answers by status.
func lookupsAtOnce(t *testing.T, h *harness, n int, keyOf func(i int) string, want int64) map[int]int {
	t.Helper()
	h.accounts.gate = make(chan struct{})
	statuses := make(chan int, n)
	for i := range n {
		go func() { statuses <- lookupFrom(h, "192.0.2.1", "", keyOf(i)).Code }()
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.accounts.lookups.Load() < want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if got := h.accounts.lookups.Load(); got != want {
		t.Errorf("%d keys reached the store while the first were looked up, want %d", got, want)
	}
	close(h.accounts.gate)
	counts := map[int]int{}
	for range n {
		counts[<-statuses]++
	}
	return counts
}

// TestGuessesSentAtOnceSpendNoMoreThanTheBudget: guesses that arrive while
// the first are still being looked up would each pass the check before any
// has failed; a lookup in flight counts against the budget, so no more
// than it reach the store.
func TestGuessesSentAtOnceSpendNoMoreThanTheBudget(t *testing.T) {
	h := newHarnessConfig(t, nil, func(c *Config) { c.AuthFailuresPerMinute = 3 })
	const guesses = 50
	counts := lookupsAtOnce(t, h, guesses, func(i int) string { return fmt.Sprintf("guess-%d", i) }, 3)
	if diff := cmp.Diff(map[int]int{http.StatusUnauthorized: 3, http.StatusTooManyRequests: guesses - 3}, counts); diff != "" {
		t.Errorf("answers by status (-want +got):\n%s", diff)
	}
	if n := h.accounts.lookups.Load(); n != 3 {
		t.Errorf("%d keys were looked up, want 3", n)
	}
	t.Run("then even a good key is refused", func(t *testing.T) {
		mustStatus(t, lookupFrom(h, "192.0.2.1", "", merchantKey), http.StatusTooManyRequests)
	})
}

// TestGoodKeysLookedUpAtOnceAreServedInTurn: an aggregator's many calls
// whose keys are looked up at once wait for the lookups in flight rather
// than being refused.
func TestGoodKeysLookedUpAtOnceAreServedInTurn(t *testing.T) {
	h := newHarnessConfig(t, nil, func(c *Config) { c.AuthFailuresPerMinute = 3 })
	counts := lookupsAtOnce(t, h, 10, func(int) string { return merchantKey }, 3)
	if diff := cmp.Diff(map[int]int{http.StatusOK: 10}, counts); diff != "" {
		t.Errorf("answers by status (-want +got):\n%s", diff)
	}
}

// TestLookupsThatSucceedLeaveTheBudgetWhole: a key that authenticates
// gives its place back uncounted, and the address is forgotten.
func TestLookupsThatSucceedLeaveTheBudgetWhole(t *testing.T) {
	h := newHarnessConfig(t, nil, func(c *Config) { c.AuthFailuresPerMinute = 3 })
	for range 10 {
		mustStatus(t, lookupFrom(h, "192.0.2.1", "", merchantKey), http.StatusOK)
	}
	if n := h.srv.authFailures.tracked(); n != 0 {
		t.Errorf("tracks %d addresses after good keys only, want 0", n)
	}
}

func TestTheHTTP2PrefaceIsAnUnsupportedVersion(t *testing.T) {
	h := newHarness(t)
	r := httptest.NewRequest("PRI", "*", nil)
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/2.0", 2, 0
	w := httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(w, r)
	mustStatus(t, w, http.StatusHTTPVersionNotSupported)
	if got := w.Header().Get("Connection"); got != "close" {
		t.Errorf("Connection = %q, want close", got)
	}
}

// TestAKeyTheCacheHoldsWaitsOnNoLookup: a key whose answer is cached needs
// no place in the budget, so lookups stalled on the store do not hold up
// the address's calls with known keys.
func TestAKeyTheCacheHoldsWaitsOnNoLookup(t *testing.T) {
	h := newHarnessConfig(t, nil, func(c *Config) { c.AuthFailuresPerMinute = 1 })
	h.accounts.cached = map[string]bool{afftrack.HashKey(merchantKey): true, afftrack.HashKey("revoked-key"): true}
	h.accounts.gate = make(chan struct{})
	stalled := make(chan int, 1)
	go func() { stalled <- lookupFrom(h, "192.0.2.1", "", "guess-1").Code }()
	for h.accounts.lookups.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	t.Run("a known key is served at once beside a stalled lookup", func(t *testing.T) {
		start := time.Now()
		mustStatus(t, lookupFrom(h, "192.0.2.1", "", merchantKey), http.StatusOK)
		if d := time.Since(start); d > busyWait/2 {
			t.Errorf("took %v, want no wait", d)
		}
	})
	close(h.accounts.gate)
	if code := <-stalled; code != http.StatusUnauthorized {
		t.Errorf("the stalled guess = %d, want 401", code)
	}
	t.Run("a key the cache holds as unknown still spends the budget", func(t *testing.T) {
		h := newHarnessConfig(t, nil, func(c *Config) { c.AuthFailuresPerMinute = 1 })
		h.accounts.cached = map[string]bool{afftrack.HashKey("revoked-key"): true}
		mustStatus(t, lookupFrom(h, "192.0.2.1", "", "revoked-key"), http.StatusUnauthorized)
		mustStatus(t, lookupFrom(h, "192.0.2.1", "", merchantKey), http.StatusTooManyRequests)
	})
}

// TestALookupThatPanicsGivesItsPlaceBack: the place a lookup takes is given
// back however the lookup ends.
func TestALookupThatPanicsGivesItsPlaceBack(t *testing.T) {
	h := newHarnessConfig(t, nil, func(c *Config) { c.AuthFailuresPerMinute = 1 })
	h.accounts.panicOn = afftrack.HashKey("the-key-that-panics")
	mustStatus(t, lookupFrom(h, "192.0.2.1", "", "the-key-that-panics"), http.StatusInternalServerError)
	start := time.Now()
	mustStatus(t, lookupFrom(h, "192.0.2.1", "", merchantKey), http.StatusOK)
	if d := time.Since(start); d > busyWait/2 {
		t.Errorf("took %v, want no wait for a place", d)
	}
}

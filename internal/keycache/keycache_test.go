package keycache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
)

// fakeAccounts authenticates from a map of key hashes and counts the
// lookups that reach it. With gate set, each lookup waits for gate to
// close (or for its context to end). Its other methods count writes.
type fakeAccounts struct {
	afftrack.AccountService // the methods not used here panic

	mu       sync.Mutex
	byHash   map[string]afftrack.Account
	failures map[string]error
	calls    map[string]int
	gate     chan struct{}
	canceled int // lookups that ended with their context
	writes   int
}

func newFake() *fakeAccounts {
	return &fakeAccounts{byHash: map[string]afftrack.Account{}, failures: map[string]error{}, calls: map[string]int{}}
}

func (f *fakeAccounts) Authenticate(ctx context.Context, keyHash string) (*afftrack.Account, error) {
	f.mu.Lock()
	f.calls[keyHash]++
	gate := f.gate
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			f.mu.Lock()
			f.canceled++
			f.mu.Unlock()
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.failures[keyHash]; err != nil {
		return nil, err
	}
	if a, ok := f.byHash[keyHash]; ok {
		return &a, nil
	}
	return nil, afftrack.Errorf(afftrack.EUNAUTHORIZED, "unknown key")
}

func (f *fakeAccounts) RevokeKey(context.Context, string, time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	return nil
}

func (f *fakeAccounts) SetAccountStatus(context.Context, afftrack.AccountRef, afftrack.AccountStatus) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	return nil
}

func (f *fakeAccounts) CreateKey(context.Context, *afftrack.Key, string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	return nil
}

// set changes what the store holds for a key.
func (f *fakeAccounts) set(keyHash string, a afftrack.Account) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.byHash[keyHash] = a
}

func (f *fakeAccounts) remove(keyHash string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.byHash, keyHash)
}

func (f *fakeAccounts) callsFor(keyHash string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[keyHash]
}

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

const (
	ttl      = 5 * time.Second
	keyOne   = "hash-of-merchant-one-key"
	keyWrong = "hash-of-a-wrong-key"
)

var merchantOne = afftrack.Account{
	Ref:    afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 1},
	Status: afftrack.AccountActive,
}

// setup returns a cache over a fake holding merchant one, on a fake clock.
func setup(t *testing.T, opts Options) (*AccountService, *fakeAccounts, *fakeClock) {
	t.Helper()
	inner := newFake()
	inner.set(keyOne, merchantOne)
	clock := &fakeClock{now: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	if opts.TTL == 0 {
		opts.TTL = ttl
	}
	opts.Clock = clock.Now
	return New(inner, opts), inner, clock
}

// mustAuthenticate fails the test unless keyHash authenticates as want.
func mustAuthenticate(t *testing.T, c *AccountService, keyHash string, want afftrack.Account) {
	t.Helper()
	got, err := c.Authenticate(context.Background(), keyHash)
	if err != nil {
		t.Fatalf("Authenticate: %v", err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Fatalf("account (-want +got):\n%s", diff)
	}
}

// mustBeUnauthorized fails the test unless keyHash is refused.
func mustBeUnauthorized(t *testing.T, c *AccountService, keyHash string) {
	t.Helper()
	if _, err := c.Authenticate(context.Background(), keyHash); afftrack.ErrorCode(err) != afftrack.EUNAUTHORIZED {
		t.Fatalf("Authenticate error = %v, want EUNAUTHORIZED", err)
	}
}

func TestCachedAnswers(t *testing.T) {
	t.Run("a known key is looked up once within the TTL", func(t *testing.T) {
		c, inner, clock := setup(t, Options{})
		for range 5 {
			mustAuthenticate(t, c, keyOne, merchantOne)
			clock.advance(time.Second - time.Nanosecond)
		}
		if got := inner.callsFor(keyOne); got != 1 {
			t.Errorf("the store was asked %d times, want 1", got)
		}
	})

	t.Run("an unknown key is looked up once within the TTL", func(t *testing.T) {
		c, inner, _ := setup(t, Options{})
		for range 5 {
			mustBeUnauthorized(t, c, keyWrong)
		}
		if got := inner.callsFor(keyWrong); got != 1 {
			t.Errorf("the store was asked %d times, want 1", got)
		}
	})

	t.Run("a key is looked up again once the TTL has passed", func(t *testing.T) {
		c, inner, clock := setup(t, Options{})
		mustAuthenticate(t, c, keyOne, merchantOne)
		clock.advance(ttl - time.Nanosecond)
		mustAuthenticate(t, c, keyOne, merchantOne)
		if got := inner.callsFor(keyOne); got != 1 {
			t.Fatalf("the store was asked %d times just before the TTL, want 1", got)
		}
		clock.advance(time.Nanosecond)
		mustAuthenticate(t, c, keyOne, merchantOne)
		if got := inner.callsFor(keyOne); got != 2 {
			t.Errorf("the store was asked %d times at the TTL, want 2", got)
		}
	})

	t.Run("a TTL of zero disables the cache", func(t *testing.T) {
		inner := newFake()
		inner.set(keyOne, merchantOne)
		c := New(inner, Options{TTL: 0})
		for range 3 {
			mustAuthenticate(t, c, keyOne, merchantOne)
			mustBeUnauthorized(t, c, keyWrong)
		}
		if got, gotWrong := inner.callsFor(keyOne), inner.callsFor(keyWrong); got != 3 || gotWrong != 3 {
			t.Errorf("the store was asked %d and %d times, want 3 and 3", got, gotWrong)
		}
	})

	t.Run("a caller changing its account does not change the cache", func(t *testing.T) {
		c, _, _ := setup(t, Options{})
		a, err := c.Authenticate(context.Background(), keyOne)
		if err != nil {
			t.Fatal(err)
		}
		a.Status, a.Ref.ID = afftrack.AccountClosed, 99
		mustAuthenticate(t, c, keyOne, merchantOne)
	})
}

func TestCachedAuthenticateGivesOnlyWhatTheCacheHolds(t *testing.T) {
	c, inner, clock := setup(t, Options{})
	if _, ok, _ := c.CachedAuthenticate(keyOne); ok {
		t.Fatal("a key never looked up is answered")
	}
	mustAuthenticate(t, c, keyOne, merchantOne)
	mustBeUnauthorized(t, c, keyWrong)
	if a, ok, err := c.CachedAuthenticate(keyOne); !ok || err != nil || a == nil || a.Ref != merchantOne.Ref {
		t.Errorf("a known key = %v, %v, %v; want merchant one", a, ok, err)
	}
	if _, ok, err := c.CachedAuthenticate(keyWrong); !ok || afftrack.ErrorCode(err) != afftrack.EUNAUTHORIZED {
		t.Errorf("an unknown key = %v, %v; want EUNAUTHORIZED", ok, err)
	}
	clock.advance(ttl)
	if _, ok, _ := c.CachedAuthenticate(keyOne); ok {
		t.Error("a key is answered once its TTL has passed")
	}
	if got := inner.callsFor(keyOne); got != 1 {
		t.Errorf("the store was asked %d times, want 1: CachedAuthenticate looks nothing up", got)
	}
}

func TestChangesTakeEffectWithinTheTTL(t *testing.T) {
	limited := merchantOne
	limited.RateLimit.PerMinute = afftrack.Some[int64](2)
	suspended := merchantOne
	suspended.Status = afftrack.AccountSuspended
	tests := []struct {
		name   string
		change func(*fakeAccounts)
		want   *afftrack.Account // nil: unauthorized
	}{
		{"a revoked key", func(f *fakeAccounts) { f.remove(keyOne) }, nil},
		{"a suspended account", func(f *fakeAccounts) { f.set(keyOne, suspended) }, &suspended},
		{"a changed rate limit", func(f *fakeAccounts) { f.set(keyOne, limited) }, &limited},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is served as before until the TTL, then as changed", func(t *testing.T) {
			c, inner, clock := setup(t, Options{})
			mustAuthenticate(t, c, keyOne, merchantOne)
			clock.advance(time.Second)
			tt.change(inner)
			clock.advance(ttl - time.Second - time.Nanosecond)
			mustAuthenticate(t, c, keyOne, merchantOne)
			clock.advance(time.Nanosecond)
			if tt.want == nil {
				mustBeUnauthorized(t, c, keyOne)
			} else {
				mustAuthenticate(t, c, keyOne, *tt.want)
			}
		})
	}

	t.Run("a new key remembered as unknown works after the TTL", func(t *testing.T) {
		c, inner, clock := setup(t, Options{})
		mustBeUnauthorized(t, c, keyWrong)
		inner.set(keyWrong, merchantOne)
		clock.advance(ttl)
		mustAuthenticate(t, c, keyWrong, merchantOne)
	})

	t.Run("the TTL counts from the start of the lookup, not its end", func(t *testing.T) {
		c, inner, clock := setup(t, Options{})
		inner.gate = make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			mustAuthenticate(t, c, keyOne, merchantOne)
		}()
		waitForWaiters(t, c, keyOne, 1)
		clock.advance(2 * time.Second) // the query is slow
		close(inner.gate)
		<-done
		clock.advance(ttl - 2*time.Second)
		mustAuthenticate(t, c, keyOne, merchantOne)
		if got := inner.callsFor(keyOne); got != 2 {
			t.Errorf("the store was asked %d times at TTL after the first lookup began, want 2", got)
		}
	})
}

func TestWritesDropTheCache(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		write func(*AccountService) error
	}{
		{"revoking a key", func(c *AccountService) error { return c.RevokeKey(ctx, "k_1", time.Now()) }},
		{"setting an account's status", func(c *AccountService) error {
			return c.SetAccountStatus(ctx, merchantOne.Ref, afftrack.AccountSuspended)
		}},
		{"creating a key", func(c *AccountService) error { return c.CreateKey(ctx, &afftrack.Key{}, keyWrong) }},
	}
	for _, tt := range tests {
		t.Run(tt.name+" through the cache applies at once", func(t *testing.T) {
			c, inner, _ := setup(t, Options{})
			mustAuthenticate(t, c, keyOne, merchantOne)
			mustBeUnauthorized(t, c, keyWrong)
			if err := tt.write(c); err != nil {
				t.Fatal(err)
			}
			inner.remove(keyOne)
			inner.set(keyWrong, merchantOne)
			mustBeUnauthorized(t, c, keyOne)
			mustAuthenticate(t, c, keyWrong, merchantOne)
			if inner.writes != 1 {
				t.Errorf("the store saw %d writes, want 1", inner.writes)
			}
		})
	}

	t.Run("a lookup under way during a write is not remembered", func(t *testing.T) {
		c, inner, _ := setup(t, Options{})
		inner.gate = make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			mustAuthenticate(t, c, keyOne, merchantOne)
		}()
		waitForWaiters(t, c, keyOne, 1)
		if err := c.RevokeKey(ctx, "k_1", time.Now()); err != nil {
			t.Fatal(err)
		}
		close(inner.gate)
		<-done
		inner.remove(keyOne)
		mustBeUnauthorized(t, c, keyOne)
	})
}

func TestFailuresAreNotRemembered(t *testing.T) {
	tests := []struct {
		name string
		err  error
	}{
		{"a store failure", errors.New("connection refused")},
		{"a not-found error", afftrack.Errorf(afftrack.ENOTFOUND, "no such key")},
		{"a canceled lookup", context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name+" reaches the store on every call", func(t *testing.T) {
			c, inner, _ := setup(t, Options{})
			inner.failures[keyOne] = tt.err
			for range 3 {
				if _, err := c.Authenticate(context.Background(), keyOne); !errors.Is(err, tt.err) {
					t.Fatalf("error = %v, want %v", err, tt.err)
				}
			}
			if got := inner.callsFor(keyOne); got != 3 {
				t.Errorf("the store was asked %d times, want 3", got)
			}
			delete(inner.failures, keyOne)
			mustAuthenticate(t, c, keyOne, merchantOne)
		})
	}
}

func TestUnknownKeysAreBounded(t *testing.T) {
	c, inner, clock := setup(t, Options{MaxNegative: 8})
	mustAuthenticate(t, c, keyOne, merchantOne)
	for i := range 1000 {
		mustBeUnauthorized(t, c, fmt.Sprintf("guess-%d", i))
		if i%100 == 0 {
			clock.advance(time.Second)
		}
	}
	c.mu.Lock()
	unknown, known := len(c.unknown), len(c.known)
	c.mu.Unlock()
	if unknown > 8 {
		t.Errorf("%d unknown keys remembered, want at most 8", unknown)
	}
	if known > 1 {
		t.Errorf("%d known keys remembered, want at most 1", known)
	}

	t.Run("a flood of guesses does not evict a known key", func(t *testing.T) {
		clock.advance(ttl) // merchant one's entry has expired by now
		mustAuthenticate(t, c, keyOne, merchantOne)
		for i := range 100 {
			mustBeUnauthorized(t, c, fmt.Sprintf("second-guess-%d", i))
		}
		mustAuthenticate(t, c, keyOne, merchantOne)
		if got := inner.callsFor(keyOne); got != 2 {
			t.Errorf("the store was asked %d times for the known key, want 2", got)
		}
	})

	t.Run("expired entries are swept", func(t *testing.T) {
		clock.advance(ttl)
		mustBeUnauthorized(t, c, "after-the-flood")
		c.mu.Lock()
		unknown, known := len(c.unknown), len(c.known)
		c.mu.Unlock()
		if unknown != 1 || known != 0 {
			t.Errorf("%d unknown and %d known keys remembered after a TTL, want 1 and 0", unknown, known)
		}
	})
}

// waitForWaiters waits until n callers wait for the lookup of keyHash.
func waitForWaiters(t *testing.T, c *AccountService, keyHash string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		f := c.flights[keyHash]
		got := 0
		if f != nil {
			got = f.waiters
		}
		c.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d callers wait for %s, want %d", got, keyHash, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestConcurrentLookups(t *testing.T) {
	t.Run("a burst for one key makes one lookup", func(t *testing.T) {
		c, inner, _ := setup(t, Options{})
		inner.gate = make(chan struct{})
		const callers = 50
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() { mustAuthenticate(t, c, keyOne, merchantOne) })
		}
		waitForWaiters(t, c, keyOne, callers)
		close(inner.gate)
		wg.Wait()
		if got := inner.callsFor(keyOne); got != 1 {
			t.Errorf("the store was asked %d times, want 1", got)
		}
	})

	t.Run("a caller that gives up leaves the others their answer", func(t *testing.T) {
		c, inner, _ := setup(t, Options{})
		inner.gate = make(chan struct{})
		ctx, cancel := context.WithCancel(context.Background())
		quitter := make(chan error, 1)
		go func() {
			_, err := c.Authenticate(ctx, keyOne)
			quitter <- err
		}()
		waitForWaiters(t, c, keyOne, 1)
		stayer := make(chan struct{})
		go func() {
			defer close(stayer)
			mustAuthenticate(t, c, keyOne, merchantOne)
		}()
		waitForWaiters(t, c, keyOne, 2)
		cancel()
		if err := <-quitter; !errors.Is(err, context.Canceled) {
			t.Errorf("the caller that gave up got %v, want context.Canceled", err)
		}
		close(inner.gate)
		<-stayer
		if got := inner.callsFor(keyOne); got != 1 {
			t.Errorf("the store was asked %d times, want 1", got)
		}
	})

	t.Run("a lookup no one waits for any more is canceled", func(t *testing.T) {
		c, inner, _ := setup(t, Options{})
		inner.gate = make(chan struct{})
		defer close(inner.gate)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := c.Authenticate(ctx, keyOne)
			done <- err
		}()
		waitForWaiters(t, c, keyOne, 1)
		cancel()
		<-done
		deadline := time.Now().Add(10 * time.Second)
		for {
			inner.mu.Lock()
			canceled := inner.canceled
			inner.mu.Unlock()
			if canceled == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the abandoned lookup was not canceled")
			}
			time.Sleep(time.Millisecond)
		}
	})

	t.Run("many keys, callers and writes at once keep every answer right", func(t *testing.T) {
		inner := newFake()
		for i := range 10 {
			inner.set(fmt.Sprintf("key-%d", i), afftrack.Account{Ref: afftrack.AccountRef{Kind: afftrack.KindAffiliate, ID: int64(i)}})
		}
		c := New(inner, Options{TTL: time.Millisecond, MaxNegative: 4})
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 300 {
					k := (g + i) % 14 // keys 10 to 13 are unknown
					a, err := c.Authenticate(context.Background(), fmt.Sprintf("key-%d", k))
					switch {
					case k >= 10 && afftrack.ErrorCode(err) != afftrack.EUNAUTHORIZED:
						t.Errorf("unknown key %d: %v, %v", k, a, err)
					case k < 10 && (err != nil || a.Ref.ID != int64(k)):
						t.Errorf("key %d: %v, %v", k, a, err)
					}
					if i%50 == 0 {
						_ = c.RevokeKey(context.Background(), "k_x", time.Now())
					}
				}
			})
		}
		wg.Wait()
	})
}

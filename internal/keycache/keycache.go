// Package keycache keeps API-key lookups off the database on the hot
// path. AccountService wraps any afftrack.AccountService and reuses the
// answers of Authenticate, found and not found, for a bounded time.
//
// The bound: an answer is reused until TTL after the lookup that produced
// it started, so a change in the store (a revoked or new key, a suspended,
// closed or reactivated account, a new rate limit) is seen by every
// replica at most TTL after it was committed. Writes made through the
// wrapper itself drop the whole cache at once.
//
// Unknown keys are remembered too, so a client repeating a wrong key does
// not cost a query per call; at most MaxNegative of them are kept, so a
// flood of random keys cannot exhaust memory. Concurrent lookups of one
// key share a single query. Failures other than EUNAUTHORIZED (a store
// that is down) are never remembered.
package keycache

import (
	"context"
	"sync"
	"time"

	"github.com/afftrack/afftrack"
)

// Defaults of Options.
const (
	DefaultTTL         = 5 * time.Second
	DefaultMaxNegative = 10000
)

// Options configures an AccountService.
type Options struct {
	// TTL is how long an answer is reused, counted from the start of the
	// lookup that produced it. 0 (or less) disables the cache: every call
	// reaches the store.
	TTL time.Duration

	// MaxNegative is the most unknown keys remembered at once; 0 means
	// DefaultMaxNegative. Known keys need no cap: there are only as many
	// as the store holds, and expired ones are swept.
	MaxNegative int

	// Clock reads the time; nil is time.Now.
	Clock afftrack.Clock
}

// AccountService is an afftrack.AccountService whose Authenticate answers
// from a cache. Every other method goes to the wrapped service; the
// methods that change keys or account status drop the cache afterwards.
type AccountService struct {
	inner       afftrack.AccountService
	ttl         time.Duration
	maxNegative int
	clock       afftrack.Clock

	mu         sync.Mutex
	known      map[string]entry   // key hash -> account
	unknown    map[string]entry   // key hash -> EUNAUTHORIZED error
	flights    map[string]*flight // lookups in progress
	generation uint64             // bumped by writes, so older lookups are not stored
	lastSweep  time.Time
}

// entry is one remembered answer.
type entry struct {
	account *afftrack.Account
	err     error
	expires time.Time
}

// flight is a lookup in progress, shared by every caller that wants the
// same key meanwhile.
type flight struct {
	done       chan struct{} // closed once account and err are set
	account    *afftrack.Account
	err        error
	started    time.Time
	generation uint64
	waiters    int                // callers still waiting
	cancel     context.CancelFunc // ends the lookup once no one waits
}

// New returns a caching AccountService over inner.
func New(inner afftrack.AccountService, opts Options) *AccountService {
	if opts.MaxNegative <= 0 {
		opts.MaxNegative = DefaultMaxNegative
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	return &AccountService{
		inner:       inner,
		ttl:         opts.TTL,
		maxNegative: opts.MaxNegative,
		clock:       opts.Clock,
		known:       map[string]entry{},
		unknown:     map[string]entry{},
		flights:     map[string]*flight{},
	}
}

// Authenticate returns the account of the key whose hash is given, from
// the cache when a fresh answer is there. The account returned is the
// caller's own copy.
//
// The lookup runs apart from any one caller: a caller whose context ends
// returns at once with its error while the others keep waiting, and the
// lookup itself is canceled only when no one waits for it any more.
func (c *AccountService) Authenticate(ctx context.Context, keyHash string) (*afftrack.Account, error) {
	if c.ttl <= 0 {
		return c.inner.Authenticate(ctx, keyHash)
	}
	now := c.clock()
	c.mu.Lock()
	if e, ok := c.known[keyHash]; ok && now.Before(e.expires) {
		c.mu.Unlock()
		return clone(e.account), nil
	}
	if e, ok := c.unknown[keyHash]; ok && now.Before(e.expires) {
		c.mu.Unlock()
		return nil, e.err
	}
	f := c.flights[keyHash]
	if f == nil {
		f = c.start(ctx, keyHash, now)
	}
	f.waiters++
	c.mu.Unlock()

	select {
	case <-f.done:
		return clone(f.account), f.err
	case <-ctx.Done():
		c.mu.Lock()
		f.waiters--
		if f.waiters == 0 {
			f.cancel()
			if c.flights[keyHash] == f {
				// A caller arriving now must not join a lookup that is
				// being canceled.
				delete(c.flights, keyHash)
			}
		}
		c.mu.Unlock()
		return nil, ctx.Err()
	}
}

// CachedAuthenticate returns the fresh answer the cache holds for the key
// whose hash is given, as Authenticate would: its account, or its error;
// ok is false when Authenticate would have to look the key up. A caller
// that counts lookups against a budget (the API's, of failed
// authentications) can so tell a key that waits on no store.
func (c *AccountService) CachedAuthenticate(keyHash string) (account *afftrack.Account, ok bool, err error) {
	if c.ttl <= 0 {
		return nil, false, nil
	}
	now := c.clock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.known[keyHash]; ok && now.Before(e.expires) {
		return clone(e.account), true, nil
	}
	if e, ok := c.unknown[keyHash]; ok && now.Before(e.expires) {
		return nil, true, e.err
	}
	return nil, false, nil
}

// start begins a lookup of keyHash. c.mu is held.
func (c *AccountService) start(ctx context.Context, keyHash string, now time.Time) *flight {
	// The lookup keeps ctx's values (request-scoped loggers, traces) but
	// not its cancellation, which belongs to one caller of many.
	lookupCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f := &flight{done: make(chan struct{}), started: now, generation: c.generation, cancel: cancel}
	c.flights[keyHash] = f
	go c.fly(lookupCtx, keyHash, f)
	return f
}

// fly runs the lookup of f, remembers its answer and hands it to the
// waiters.
func (c *AccountService) fly(ctx context.Context, keyHash string, f *flight) {
	account, err := c.inner.Authenticate(ctx, keyHash)
	f.cancel()
	now := c.clock()

	c.mu.Lock()
	f.account, f.err = clone(account), err
	if c.flights[keyHash] == f {
		delete(c.flights, keyHash)
	}
	// A write through this service since the lookup started may have
	// changed its answer: hand it to those who asked, keep it for no one.
	if f.generation == c.generation {
		c.remember(keyHash, f, now)
	}
	c.mu.Unlock()
	close(f.done)
}

// remember stores the answer of f if it is one to keep and still fresh.
// c.mu is held.
func (c *AccountService) remember(keyHash string, f *flight, now time.Time) {
	e := entry{account: f.account, err: f.err, expires: f.started.Add(c.ttl)}
	if !now.Before(e.expires) {
		return
	}
	c.sweep(now)
	// An answer from a lookup that started later (one whose earlier
	// flight was abandoned) is the fresher one; keep it.
	switch afftrack.ErrorCode(f.err) {
	case "":
		if old, ok := c.known[keyHash]; !ok || old.expires.Before(e.expires) {
			c.known[keyHash] = e
			delete(c.unknown, keyHash)
		}
	case afftrack.EUNAUTHORIZED:
		if old, ok := c.unknown[keyHash]; !ok || old.expires.Before(e.expires) {
			if !ok && len(c.unknown) >= c.maxNegative {
				evictOne(c.unknown)
			}
			c.unknown[keyHash] = e
			delete(c.known, keyHash)
		}
	}
}

// sweep drops expired entries, at most once a TTL so that a full cache
// costs one pass per TTL, not one per call. c.mu is held.
func (c *AccountService) sweep(now time.Time) {
	if now.Sub(c.lastSweep) < c.ttl {
		return
	}
	c.lastSweep = now
	for _, m := range []map[string]entry{c.known, c.unknown} {
		for k, e := range m {
			if !now.Before(e.expires) {
				delete(m, k)
			}
		}
	}
}

// evictOne drops one entry of a full map. Which one hardly matters: a map
// full of unexpired unknown keys is a flood of guesses, and any entry is
// as likely as another to be asked again.
func evictOne(m map[string]entry) {
	for k := range m {
		delete(m, k)
		return
	}
}

// invalidate forgets every answer, and every answer of a lookup under way,
// after a write through this service. c.mu is not held.
func (c *AccountService) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation++
	clear(c.known)
	clear(c.unknown)
}

// clone returns a copy of a, so no caller can change a remembered account.
func clone(a *afftrack.Account) *afftrack.Account {
	if a == nil {
		return nil
	}
	cp := *a
	return &cp
}

// FindMerchant calls the wrapped service.
func (c *AccountService) FindMerchant(ctx context.Context, id int64) (*afftrack.Merchant, error) {
	return c.inner.FindMerchant(ctx, id)
}

// FindAffiliate calls the wrapped service.
func (c *AccountService) FindAffiliate(ctx context.Context, id int64) (*afftrack.Affiliate, error) {
	return c.inner.FindAffiliate(ctx, id)
}

// CreateMerchant calls the wrapped service. A new account has no keys, so
// nothing cached can be stale.
func (c *AccountService) CreateMerchant(ctx context.Context, m *afftrack.Merchant) error {
	return c.inner.CreateMerchant(ctx, m)
}

// CreateAffiliate calls the wrapped service, like CreateMerchant.
func (c *AccountService) CreateAffiliate(ctx context.Context, a *afftrack.Affiliate) error {
	return c.inner.CreateAffiliate(ctx, a)
}

// SetAccountStatus calls the wrapped service and drops the cache, so the
// new status applies at once here.
func (c *AccountService) SetAccountStatus(ctx context.Context, ref afftrack.AccountRef, status afftrack.AccountStatus) error {
	defer c.invalidate()
	return c.inner.SetAccountStatus(ctx, ref, status)
}

// CreateKey calls the wrapped service and drops the cache, which may
// remember the new key as unknown.
func (c *AccountService) CreateKey(ctx context.Context, k *afftrack.Key, keyHash string) error {
	defer c.invalidate()
	return c.inner.CreateKey(ctx, k, keyHash)
}

// ListKeys calls the wrapped service.
func (c *AccountService) ListKeys(ctx context.Context, ref afftrack.AccountRef) ([]*afftrack.Key, error) {
	return c.inner.ListKeys(ctx, ref)
}

// RevokeKey calls the wrapped service and drops the cache: only the key's
// id is known here, not its hash.
func (c *AccountService) RevokeKey(ctx context.Context, id string, at time.Time) error {
	defer c.invalidate()
	return c.inner.RevokeKey(ctx, id, at)
}

// Package linkcache keeps what the tracking redirect knows about links in
// memory, so a click costs no database read once its link has been seen,
// and redirects keep working from what the process knows while the
// database is down.
package linkcache

import (
	"context"
	"sync"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.TrackingService = (*Cache)(nil)

// Defaults of Options.
const (
	DefaultTTL          = 30 * time.Second
	DefaultMaxEntries   = 100_000
	DefaultRefreshLimit = time.Second
)

// Options tune a Cache. The zero value takes the defaults.
type Options struct {
	// TTL is how long an answer is reused before it is asked again; a
	// changed program or membership applies within it.
	TTL time.Duration
	// MaxEntries bounds the links held, and apart from them the unknown
	// links remembered, so a client asking for random ids cannot grow the
	// cache without end, nor push out the links that work.
	MaxEntries int
	// RefreshLimit bounds how long a click waits for the store to
	// refresh an answer held from before: past it the old answer is
	// served, as when the store fails, since a database that hangs (a
	// lock, a full pool) fails no call.
	RefreshLimit time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// OnStale, if set, is called when a stale answer is served: the
	// store failed or took longer than RefreshLimit, or another click of
	// the link was asking it. For metrics.
	OnStale func()
}

// Cache wraps a TrackingService's FindLink.
type Cache struct {
	next afftrack.TrackingService
	opts Options

	mu sync.Mutex
	// links holds the links that credit their affiliate; others, apart,
	// the keys the store did not know and the links that credit no one
	// (an affiliate that has not joined): anyone can make those up by the
	// hundred thousand from small sequential ids, and a scan of them must
	// evict only its own kind, not the links a database outage needs.
	links, others map[afftrack.LinkKey]entry
	// refreshing holds the held keys whose refresh is under way: other
	// clicks of the link are answered from what is held meanwhile rather
	// than each queue for the store.
	refreshing map[afftrack.LinkKey]bool
}

type entry struct {
	link *afftrack.Link
	err  error // ENOTFOUND, cached too so a scan of unknown ids is cheap
	at   time.Time
}

// New returns a cache in front of next.
func New(next afftrack.TrackingService, o Options) *Cache {
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.RefreshLimit <= 0 {
		o.RefreshLimit = DefaultRefreshLimit
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Cache{next: next, opts: o, links: map[afftrack.LinkKey]entry{}, others: map[afftrack.LinkKey]entry{},
		refreshing: map[afftrack.LinkKey]bool{}}
}

// FindLink answers from the cache while the answer is fresh, else asks the
// store. When the store fails (it is down) or takes longer than
// RefreshLimit, an answer held from before is served however old it is: a
// redirect to where the link led a while ago beats no redirect, or a late
// one. One click of a held link refreshes it at a time; the others are
// answered from what is held. The returned Link is shared: callers must
// not change it.
func (c *Cache) FindLink(ctx context.Context, k afftrack.LinkKey) (*afftrack.Link, error) {
	now := c.opts.Now()
	c.mu.Lock()
	e, held := c.links[k]
	if !held {
		e, held = c.others[k]
	}
	fresh := held && now.Sub(e.at) < c.opts.TTL
	if held && !fresh {
		if c.refreshing[k] {
			c.mu.Unlock()
			if c.opts.OnStale != nil {
				c.opts.OnStale()
			}
			return e.link, e.err
		}
		c.refreshing[k] = true
		defer func() {
			c.mu.Lock()
			delete(c.refreshing, k)
			c.mu.Unlock()
		}()
	}
	c.mu.Unlock()
	if fresh {
		return e.link, e.err
	}
	if held {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.RefreshLimit)
		defer cancel()
	}
	link, err := c.next.FindLink(ctx, k)
	if err != nil && afftrack.ErrorCode(err) != afftrack.ENOTFOUND {
		if held {
			if c.opts.OnStale != nil {
				c.opts.OnStale()
			}
			return e.link, e.err
		}
		return nil, err
	}
	c.mu.Lock()
	into, other := c.links, c.others
	if err != nil || !link.Eligible {
		into, other = c.others, c.links
	}
	delete(other, k)
	if _, ok := into[k]; !ok && len(into) >= c.opts.MaxEntries {
		// Evict one entry; map iteration order is as good as random
		// here, and never worse than a scan of every entry.
		for old := range into {
			delete(into, old)
			break
		}
	}
	into[k] = entry{link: link, err: err, at: now}
	c.mu.Unlock()
	return link, err
}

// IPHashKey asks the store: it is read once when the server starts.
func (c *Cache) IPHashKey(ctx context.Context) ([]byte, error) { return c.next.IPHashKey(ctx) }

// Len returns the number of links held, unknown ones included, for tests
// and metrics.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.links) + len(c.others)
}

package linkcache_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/linkcache"
)

// store answers FindLink from a map and counts the questions; down makes
// it fail as a store whose database is unreachable.
type store struct {
	links map[afftrack.LinkKey]*afftrack.Link
	asked int
	down  bool
}

func (s *store) FindLink(_ context.Context, k afftrack.LinkKey) (*afftrack.Link, error) {
	s.asked++
	if s.down {
		return nil, errors.New("dial tcp: connection refused")
	}
	if l, ok := s.links[k]; ok {
		return l, nil
	}
	return nil, afftrack.Errorf(afftrack.ENOTFOUND, "no such link")
}

func (s *store) IPHashKey(context.Context) ([]byte, error) { return []byte("0123456789abcdef"), nil }

var (
	known   = afftrack.LinkKey{AffiliateID: 1, Kind: afftrack.LinkTextLink, TargetID: 2}
	unknown = afftrack.LinkKey{AffiliateID: 1, Kind: afftrack.LinkBanner, TargetID: 99}
)

func setup() (*store, *linkcache.Cache, *time.Time, *int) {
	s := &store{links: map[afftrack.LinkKey]*afftrack.Link{known: {MerchantID: 2, TargetURL: "https://shop.example/", Eligible: true}}}
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	stale := 0
	c := linkcache.New(s, linkcache.Options{TTL: time.Minute, MaxEntries: 3, Now: func() time.Time { return now },
		OnStale: func() { stale++ }})
	return s, c, &now, &stale
}

func TestCache(t *testing.T) {
	ctx := context.Background()
	t.Run("a link is read once while its answer is fresh", func(t *testing.T) {
		s, c, now, _ := setup()
		for range 3 {
			l, err := c.FindLink(ctx, known)
			if err != nil || l.MerchantID != 2 {
				t.Fatalf("FindLink = %v, %v", l, err)
			}
			*now = now.Add(20 * time.Second)
		}
		if s.asked != 1 {
			t.Errorf("the store was asked %d times in 40 s, want 1", s.asked)
		}
		*now = now.Add(time.Minute)
		c.FindLink(ctx, known)
		if s.asked != 2 {
			t.Errorf("the store was asked %d times after the TTL, want 2", s.asked)
		}
	})
	t.Run("an unknown link is remembered as unknown", func(t *testing.T) {
		s, c, _, _ := setup()
		for range 2 {
			if _, err := c.FindLink(ctx, unknown); afftrack.ErrorCode(err) != afftrack.ENOTFOUND {
				t.Fatalf("err = %v, want ENOTFOUND", err)
			}
		}
		if s.asked != 1 {
			t.Errorf("the store was asked %d times, want 1", s.asked)
		}
	})
	t.Run("a stale answer is served while the store is down", func(t *testing.T) {
		s, c, now, stale := setup()
		want, _ := c.FindLink(ctx, known)
		s.down = true
		*now = now.Add(24 * time.Hour)
		got, err := c.FindLink(ctx, known)
		if err != nil {
			t.Fatalf("FindLink during the outage: %v", err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("stale link (-want +got):\n%s", diff)
		}
		if *stale != 1 {
			t.Errorf("OnStale called %d times, want 1", *stale)
		}
	})
	t.Run("a link never seen fails while the store is down", func(t *testing.T) {
		s, c, _, _ := setup()
		s.down = true
		if _, err := c.FindLink(ctx, known); err == nil || afftrack.ErrorCode(err) != afftrack.EINTERNAL {
			t.Errorf("err = %v, want the store's failure", err)
		}
	})
	t.Run("the cache holds at most MaxEntries unknown links", func(t *testing.T) {
		_, c, _, _ := setup()
		for id := int64(1); id <= 50; id++ {
			c.FindLink(ctx, afftrack.LinkKey{AffiliateID: id, Kind: afftrack.LinkBanner, TargetID: id})
		}
		if n := c.Len(); n != 3 {
			t.Errorf("the cache holds %d links, want 3", n)
		}
	})
	t.Run("the cache holds at most MaxEntries known links", func(t *testing.T) {
		s, c, _, _ := setup()
		for id := int64(1); id <= 50; id++ {
			k := afftrack.LinkKey{AffiliateID: id, Kind: afftrack.LinkTextLink, TargetID: 2}
			s.links[k] = &afftrack.Link{MerchantID: 2, TargetURL: "https://shop.example/", Eligible: true}
			c.FindLink(ctx, k)
		}
		if n := c.Len(); n != 3 {
			t.Errorf("the cache holds %d links, want 3", n)
		}
	})
	t.Run("a flood of unknown links leaves the known ones for an outage", func(t *testing.T) {
		s, c, now, _ := setup()
		if _, err := c.FindLink(ctx, known); err != nil {
			t.Fatal(err)
		}
		for id := int64(100); id < 1100; id++ {
			c.FindLink(ctx, afftrack.LinkKey{AffiliateID: id, Kind: afftrack.LinkBanner, TargetID: id})
		}
		s.down = true
		*now = now.Add(time.Hour)
		if l, err := c.FindLink(ctx, known); err != nil || l.MerchantID != 2 {
			t.Errorf("the known link during the outage: %v, %v; want it served", l, err)
		}
	})
	t.Run("a flood of links that credit no one leaves the crediting ones for an outage", func(t *testing.T) {
		s, c, now, _ := setup()
		if _, err := c.FindLink(ctx, known); err != nil {
			t.Fatal(err)
		}
		for id := int64(100); id < 1100; id++ {
			k := afftrack.LinkKey{AffiliateID: id, Kind: afftrack.LinkTextLink, TargetID: 2}
			s.links[k] = &afftrack.Link{MerchantID: 2, TargetURL: "https://shop.example/"} // not joined
			c.FindLink(ctx, k)
		}
		s.down = true
		*now = now.Add(time.Hour)
		if l, err := c.FindLink(ctx, known); err != nil || l.MerchantID != 2 {
			t.Errorf("the crediting link during the outage: %v, %v; want it served", l, err)
		}
	})
	t.Run("a link that went away is unknown, and one that came is known", func(t *testing.T) {
		s, c, now, _ := setup()
		c.FindLink(ctx, known)
		delete(s.links, known)
		*now = now.Add(time.Hour)
		if _, err := c.FindLink(ctx, known); afftrack.ErrorCode(err) != afftrack.ENOTFOUND {
			t.Errorf("a removed link: %v, want ENOTFOUND", err)
		}
		s.links[unknown] = &afftrack.Link{MerchantID: 3}
		c.FindLink(ctx, unknown)
		*now = now.Add(time.Hour)
		if l, err := c.FindLink(ctx, unknown); err != nil || l.MerchantID != 3 {
			t.Errorf("a link made later: %v, %v", l, err)
		}
		if n := c.Len(); n != 2 {
			t.Errorf("the cache holds %d entries, want 2 (one of each)", n)
		}
	})
}

// hangingStore answers from its store until hang is set: then every
// FindLink waits for its context to end, as a store behind a lock or a
// full pool does.
type hangingStore struct {
	*store
	hang    bool
	waiting chan struct{}
}

func (h *hangingStore) FindLink(ctx context.Context, k afftrack.LinkKey) (*afftrack.Link, error) {
	if !h.hang {
		return h.store.FindLink(ctx, k)
	}
	h.waiting <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestAHeldLinkIsServedWhenTheStoreHangs(t *testing.T) {
	s, _, _, _ := setup()
	h := &hangingStore{store: s, waiting: make(chan struct{}, 10)}
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var stale atomic.Int64
	c := linkcache.New(h, linkcache.Options{TTL: time.Minute, RefreshLimit: 100 * time.Millisecond,
		Now: func() time.Time { return now }, OnStale: func() { stale.Add(1) }})
	if _, err := c.FindLink(context.Background(), known); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	h.hang = true

	done := make(chan error, 1)
	start := time.Now()
	go func() {
		l, err := c.FindLink(context.Background(), known)
		if err == nil && l.MerchantID != 2 {
			err = errors.New("not the held link")
		}
		done <- err
	}()
	<-h.waiting // the first click refreshes the link
	l, err := c.FindLink(context.Background(), known)
	if err != nil || l.MerchantID != 2 {
		t.Errorf("a click during the refresh: %v, %v; want the held link at once", l, err)
	}
	if err := <-done; err != nil {
		t.Errorf("the refreshing click: %v; want the held link", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("the refreshing click took %v, want about the RefreshLimit of 100ms", took)
	}
	if len(h.waiting) != 0 {
		t.Errorf("%d more clicks waited on the store, want only the one refreshing", len(h.waiting))
	}
	if n := stale.Load(); n != 2 {
		t.Errorf("%d stale answers counted, want 2 (the click during the refresh, the refresh that timed out)", n)
	}
}

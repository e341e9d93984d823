package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/clickbuf"
	"github.com/afftrack/afftrack/internal/geoip"
	"github.com/afftrack/afftrack/internal/linkcache"
	"github.com/afftrack/afftrack/internal/metrics"
	"github.com/afftrack/afftrack/internal/notify"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// trackingParts are the tracking engine's parts that serve builds and
// stops.
type trackingParts struct {
	lifecycle   *sqlstore.LifecycleService
	links       *linkcache.Cache
	clicks      *clickbuf.Buffer
	conversions *sqlstore.ConversionService
	geo         *geoip.DB // nil without --geoip
	ipKey       []byte
	now         func() time.Time // the network's wall clock
	loc         *time.Location
	outbox      *sqlstore.NotificationService
	metrics     *metrics.Metrics
}

// openGeoIP opens the country database of --geoip, if any. serve opens
// it before the database, so that a wrong path creates and migrates
// nothing.
func openGeoIP(cfg serveConfig) (*geoip.DB, error) {
	if cfg.GeoIP == "" {
		return nil, nil
	}
	geo, err := geoip.Open(cfg.GeoIP)
	if err != nil {
		return nil, fmt.Errorf("--geoip: %w", err)
	}
	return geo, nil
}

// newTracking builds the tracking engine on db and geo (nil: no country
// database): the link cache, the click buffer and the conversion service.
// geo stays its opener's to close.
func newTracking(ctx context.Context, cfg serveConfig, db *sqlstore.DB, geo *geoip.DB, loc *time.Location,
	logger *slog.Logger, m *metrics.Metrics) (*trackingParts, error) {
	store := sqlstore.NewClickService(db)
	key, err := store.IPHashKey(ctx)
	if err != nil {
		return nil, err
	}
	tr := &trackingParts{ipKey: key, geo: geo}
	tr.links = linkcache.New(store, linkcache.Options{OnStale: m.LinkStale})
	tr.clicks = clickbuf.New(store, clickbuf.Options{
		FlushInterval: cfg.ClickFlush,
		Capacity:      cfg.ClickBuffer,
		Logger:        logger,
		OnWrite:       m.ClicksWritten,
		OnDrop:        m.ClicksDropped,
	})
	if err := m.RegisterClicksHeld(func() float64 { return float64(tr.clicks.Stats().Held) }); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	now := func() time.Time { return afftrack.WallClock(time.Now(), loc) }
	tr.conversions = sqlstore.NewConversionService(db, cfg.Currency, now)
	tr.lifecycle = sqlstore.NewLifecycleService(db, cfg.Currency, now)
	tr.now, tr.loc, tr.metrics = now, loc, m
	tr.outbox = sqlstore.NewNotificationService(db)
	if err := m.RegisterNotifications(tr.outbox.NotificationCounts); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return tr, nil
}

// startWork starts the work beside the API, until ctx ends: delivering
// affiliates' notifications, and locking transactions whose validation
// date has come, every --lifecycle-interval. Several replicas may run it
// at once; each transaction changes once. The notification calls under way
// when ctx ends go on until drain ends.
func (tr *trackingParts) startWork(ctx, drain context.Context, cfg serveConfig, logger *slog.Logger) *sync.WaitGroup {
	var wg sync.WaitGroup
	deliverer := notify.New(tr.outbox, notify.Options{AllowPrivate: cfg.NotifyPrivate, Location: tr.loc,
		Logger: logger, Observe: tr.metrics.NotificationAttempt, FirstRetry: cfg.NotifyRetry})
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = deliverer.Run(ctx, drain) // returns when ctx ends and the calls under way have
	}()
	if cfg.LifecycleEvery > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(cfg.LifecycleEvery)
			defer t.Stop()
			for {
				if n, err := tr.lifecycle.LockDue(ctx, tr.now()); err != nil && ctx.Err() == nil {
					logger.Error("lifecycle: locking due transactions failed", "error", err)
				} else if n > 0 {
					logger.Info("lifecycle: locked transactions whose validation date came", "count", n)
				}
				if n, err := tr.lifecycle.ReleasePrepaid(ctx, tr.now()); err != nil && ctx.Err() == nil {
					logger.Error("lifecycle: approving prepaid programs' Locked transactions failed", "error", err)
				} else if n > 0 {
					logger.Info("lifecycle: approved Locked transactions of prepaid programs", "count", n)
				}
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		}()
	}
	return &wg
}

// close releases what newTracking opened. A clean stop has closed the
// click buffer already, within the shutdown timeout; this covers a serve
// that fails on its way up, with a bound of its own.
func (tr *trackingParts) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = tr.clicks.Close(ctx)
}

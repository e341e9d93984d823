package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/clickbuf"
	"github.com/afftrack/afftrack/internal/geoip"
	"github.com/afftrack/afftrack/internal/linkcache"
	"github.com/afftrack/afftrack/internal/metrics"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// trackingParts are the tracking engine's parts that serve builds and
// stops.
type trackingParts struct {
	links       *linkcache.Cache
	clicks      *clickbuf.Buffer
	conversions *sqlstore.ConversionService
	geo         *geoip.DB // nil without --geoip
	ipKey       []byte
}

// newTracking builds the tracking engine on db: the link cache, the click
// buffer, the conversion service and the country database.
func newTracking(ctx context.Context, cfg serveConfig, db *sqlstore.DB, loc *time.Location, logger *slog.Logger,
	m *metrics.Metrics) (*trackingParts, error) {
	store := sqlstore.NewClickService(db)
	key, err := store.IPHashKey(ctx)
	if err != nil {
		return nil, err
	}
	tr := &trackingParts{ipKey: key}
	if cfg.GeoIP != "" {
		if tr.geo, err = geoip.Open(cfg.GeoIP); err != nil {
			return nil, fmt.Errorf("--geoip: %w", err)
		}
	}
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
	tr.conversions = sqlstore.NewConversionService(db, cfg.Currency,
		func() time.Time { return afftrack.WallClock(time.Now(), loc) })
	return tr, nil
}

// close releases what newTracking opened. A clean stop has closed the
// click buffer already, within the shutdown timeout; this covers a serve
// that fails on its way up, with a bound of its own.
func (tr *trackingParts) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = tr.clicks.Close(ctx)
	if tr.geo != nil {
		tr.geo.Close()
	}
}

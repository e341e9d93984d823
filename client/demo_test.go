package client

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/api"
	"github.com/afftrack/afftrack/internal/clickbuf"
	"github.com/afftrack/afftrack/internal/demo"
	"github.com/afftrack/afftrack/internal/linkcache"
	"github.com/afftrack/afftrack/internal/ratelimit"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// The demo network in process, as `afftrack serve --demo` serves it (see
// cmd/afftrack/serve.go), for the example and the strict-decoding tests:
// a test binary of this package cannot run the afftrack command, and an
// in-process server needs no port of its own. Rate limits are off, so
// the tests can call as often as they like. It is exported only to this
// package's tests (example_test.go is package client_test).

var (
	demoOnce sync.Once
	demoURL  string
	demoErr  error
)

// DemoServerURL returns the base URL of the demo network, started on the
// first call and kept for the test binary's life; it panics if the
// server cannot start, which an Example has no other way to report.
func DemoServerURL() string {
	demoOnce.Do(func() { demoURL, demoErr = startDemo() })
	if demoErr != nil {
		panic(demoErr)
	}
	return demoURL
}

// startDemo builds the demo server on an in-memory SQLite database.
func startDemo() (string, error) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, "sqlite::memory:")
	if err != nil {
		return "", err
	}
	if err := db.Migrate(ctx); err != nil {
		return "", err
	}
	d, err := demo.Dataset(time.UTC)
	if err != nil {
		return "", err
	}
	if _, err := sqlstore.NewImportService(db).Import(ctx, d); err != nil {
		return "", fmt.Errorf("demo data: %w", err)
	}
	clicks := sqlstore.NewClickService(db)
	key, err := clicks.IPHashKey(ctx)
	if err != nil {
		return "", err
	}
	now := func() time.Time { return afftrack.WallClock(time.Now(), time.UTC) }
	svc := api.Services{
		Accounts:      sqlstore.NewAccountService(db),
		Transactions:  sqlstore.NewTransactionService(db),
		Banners:       sqlstore.NewBannerService(db),
		Invoices:      sqlstore.NewInvoiceService(db),
		RateLimiter:   ratelimit.NewMemory(),
		Ready:         db.Ping,
		Tracking:      linkcache.New(clicks, linkcache.Options{}),
		Clicks:        clickbuf.New(clicks, clickbuf.Options{FlushInterval: 10 * time.Millisecond, Capacity: 1000}),
		Conversions:   sqlstore.NewConversionService(db, "AUD", now),
		Lifecycle:     sqlstore.NewLifecycleService(db, "AUD", now),
		Offers:        sqlstore.NewOfferService(db),
		Reports:       sqlstore.NewReportService(db),
		Catalog:       sqlstore.NewCatalogService(db),
		MerchantViews: sqlstore.NewMerchantViewService(db),
		IPHashKey:     key,
	}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	srv.Config.Handler = api.NewServer(api.Config{PublicURL: base, Currency: "AUD", Location: time.UTC,
		ClickFlush: 10 * time.Millisecond}, svc, nil, time.Now).Handler()
	srv.Start()
	return base, nil
}

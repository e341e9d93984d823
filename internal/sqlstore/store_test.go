package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// eachBackend runs fn as a subtest on a fresh migrated database of every
// backend storetest offers.
func eachBackend(t *testing.T, fn func(t *testing.T, db *sqlstore.DB)) {
	t.Helper()
	for _, b := range storetest.Backends(t) {
		t.Run(b, func(t *testing.T) { fn(t, storetest.Open(t, b)) })
	}
}

// dt parses a datetime the way the service's input does.
func dt(t testing.TB, s string) time.Time {
	t.Helper()
	in, err := afftrack.ParseDateTime(s)
	if err != nil {
		t.Fatalf("dt(%q): %v", s, err)
	}
	return in.Wall
}

// mustImport imports d and fails the test on error.
func mustImport(t testing.TB, db *sqlstore.DB, d *afftrack.Dataset) afftrack.ImportSummary {
	t.Helper()
	sum, err := sqlstore.NewImportService(db).Import(context.Background(), d)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return sum
}

// wantError fails the test unless err is an afftrack error with the given
// code and message.
func wantError(t testing.TB, err error, code, message string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s %q", code, message)
	}
	if got := afftrack.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
	if got := afftrack.ErrorMessage(err); got != message {
		t.Fatalf("error message = %q, want %q", got, message)
	}
}

// countRows returns the number of rows of a table.
func countRows(t testing.TB, db *sqlstore.DB, table string) int64 {
	t.Helper()
	var n int64
	if err := db.SQL().QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// Key secrets of the fixture's accounts.
const (
	secretMerchant1  = "merchant-one-secret"
	secretMerchant2  = "merchant-two-secret"
	secretAffiliate1 = "affiliate-one-secret"
	secretAffiliate2 = "affiliate-two-secret"
)

// fixture returns a small network: two merchants, three affiliates,
// transactions around the days of March 2024, banners and invoices.
//
// Merchant 1's transactions, by DateCreated:
//
//	100  2024-02-29 23:59:59.999  (just before March)
//	101  2024-03-01 00:00:00.000  Paid, every field set, 2 items
//	102  2024-03-02 09:30         Pending, nulls, no items
//	103  2024-03-02 09:30         Locked (same time as 102: id orders)
//	104  2024-03-31 23:59:59.999  Void
//	105  2024-04-01 00:00:00.000  Approved (just after March)
//
// Merchant 2 has transaction 201 in March.
func fixture(t testing.TB) *afftrack.Dataset {
	t.Helper()
	item := func(sku string, n int64) afftrack.TransactionItem {
		return afftrack.TransactionItem{Sku: sku, Quantity: n, ReportedSaleValue: 5000, SaleValue: 5000,
			Commission: 500, Name: "Widget " + sku, Brand: "Acme", Category: "Tools"}
	}
	t101 := afftrack.Transaction{
		ID: 101, MerchantID: 1,
		DateCreated: dt(t, "2024-03-01T00:00:00.000"), DateModified: dt(t, "2024-03-05T12:00:00.000"),
		ConsumptionDate: dt(t, "2024-03-01T00:00:00.000"), ValidationDate: dt(t, "2024-03-06T08:15:30.250"),
		AffiliateID: 1, TrafficType: afftrack.TrafficTypeWebsite, TrafficSource: "example.com",
		CreativeType: afftrack.CreativeTypeTextLink, CreativeID: afftrack.Some[int64](7),
		CreativeName: afftrack.Some("Spring Sale"), CustomerCountryCode: "AU", CustomerCountryName: "Australia",
		CustomerIPAddress: "0123456789abcdef0123456789abcdef", CustomerType: afftrack.CustomerTypeNew,
		OrderID: "ORD-1", AdditionalNotes: afftrack.Some("first order"),
		TrackingMethod: afftrack.TrackingMethodCookie, SaleValue: 1000000, Commission: 100000, OverrideFee: 1,
		ReportedCurrencyCode: "AUD", ReportedCurrencyName: "Australian Dollar", ReportedSaleValue: 1000000,
		TrafficSourceApproved: true, Status2: afftrack.Status2Paid, InvoiceID: afftrack.Some[int64](501),
		CouponCode: afftrack.Some("SPRING"), PlacementID: afftrack.Some[int64](3),
		PlacementName: afftrack.Some("Header"),
		Items:         []afftrack.TransactionItem{item("A-1", 1), item("B-2", 3)},
	}
	t101.Items[1].CartItemReference = afftrack.Some("ref-1")
	t101.Items[1].CartItemReference4 = afftrack.Some("ref-4")
	base := func(id, merchant, affiliate int64, created, modified string, s afftrack.TransactionStatus2) afftrack.Transaction {
		return afftrack.Transaction{
			ID: id, MerchantID: merchant, AffiliateID: affiliate,
			DateCreated: dt(t, created), DateModified: dt(t, modified),
			ConsumptionDate: dt(t, created), ValidationDate: dt(t, modified),
			TrafficType: afftrack.TrafficTypeWebsite, TrafficSource: "example.com",
			CreativeType: afftrack.CreativeTypeTextLink, CreativeName: afftrack.Some("Summer"),
			CustomerCountryCode: "AU", CustomerCountryName: "Australia",
			CustomerIPAddress: "ffffffffffffffffffffffffffffffff", CustomerType: afftrack.CustomerTypeNew,
			OrderID: fmt.Sprintf("ORD-%d", id), TrackingMethod: afftrack.TrackingMethodCookie,
			SaleValue: 200000, Commission: 20000, ReportedCurrencyCode: "AUD",
			ReportedCurrencyName: "Australian Dollar", ReportedSaleValue: 200000,
			TrafficSourceApproved: true, Status2: s,
			Items: []afftrack.TransactionItem{item("C-3", 2)},
		}
	}
	t102 := base(102, 1, 2, "2024-03-02T09:30:00", "2024-03-02T09:30:00", afftrack.Status2Pending)
	t102.TrafficType = afftrack.TrafficTypeEmailList
	t102.TrafficSource = "newsletter"
	t102.CreativeType = afftrack.CreativeTypeBanner
	t102.CreativeName = afftrack.Null[string]{}
	t102.CustomerCountryCode, t102.CustomerCountryName = "NZ", "New Zealand"
	t102.CustomerType = afftrack.CustomerTypeReturn
	t102.TrackingMethod = afftrack.TrackingMethodManual
	t102.TrafficSourceApproved = false
	t102.AmendedReason = afftrack.AmendedReasonPartialOrderReturn
	t102.SaleValue, t102.Commission, t102.OverrideFee, t102.ReportedSaleValue = -150000, math.MinInt64, math.MaxInt64, 0
	t102.Items = nil
	t103 := base(103, 1, 1, "2024-03-02T09:30:00", "2024-03-01T08:00:00", afftrack.Status2Locked)
	t103.CreativeName = afftrack.Some("")
	t104 := base(104, 1, 2, "2024-03-31T23:59:59.999", "2024-04-01T00:00:00", afftrack.Status2Void)
	t104.VoidReason = afftrack.VoidReasonCancelledOrder
	t105 := base(105, 1, 1, "2024-04-01T00:00:00", "2024-03-03T00:00:00", afftrack.Status2Approved)
	t100 := base(100, 1, 1, "2024-02-29T23:59:59.999", "2024-03-04T00:00:00", afftrack.Status2Approved)
	t201 := base(201, 2, 2, "2024-03-10T10:00:00", "2024-03-10T10:00:00", afftrack.Status2Pending)

	rec := func(t afftrack.Transaction) afftrack.TransactionRecord {
		return afftrack.TransactionRecord{Transaction: t}
	}
	banner := func(id, merchant int64, group string, w, h int64) afftrack.Banner {
		return afftrack.Banner{ID: id, MerchantID: merchant, DateCreated: dt(t, "2024-01-02T03:04:05.006"),
			DateModified: dt(t, "2024-01-03T00:00:00"), GroupName: group, Name: fmt.Sprintf("Banner %d", id),
			TargetURL: "https://shop.example/", Width: w, Height: h,
			ImageURL: fmt.Sprintf("https://img.example/%d.png", id), AltText: "Shop <now>"}
	}
	return &afftrack.Dataset{
		Merchants: []afftrack.MerchantRecord{
			{Merchant: afftrack.Merchant{ID: 1, Name: "Example Pty Ltd", AvatarURL: "https://img.example/m1.png",
				Status: afftrack.AccountActive}, APIKeys: []string{secretMerchant1}},
			{Merchant: afftrack.Merchant{ID: 2, Name: "Other Shop", AvatarURL: "https://img.example/m2.png",
				Status: afftrack.AccountActive, RateLimit: afftrack.RateLimit{PerMinute: afftrack.Some[int64](60),
					PerDay: afftrack.Some[int64](0), Concurrent: afftrack.Some[int64](2)}},
				APIKeys: []string{secretMerchant2}},
		},
		Affiliates: []afftrack.AffiliateRecord{
			{Affiliate: afftrack.Affiliate{ID: 1, ContactName: "John Smith", BusinessName: "Smith Media",
				Status: afftrack.AccountActive, GSTRegistered: true}, APIKeys: []string{secretAffiliate1}},
			{Affiliate: afftrack.Affiliate{ID: 2, ContactName: "Jane Doe", BusinessName: "Doe Pty Ltd",
				Status: afftrack.AccountSuspended, RateLimit: afftrack.RateLimit{PerDay: afftrack.Some[int64](5)}},
				APIKeys: []string{secretAffiliate2}},
			{Affiliate: afftrack.Affiliate{ID: 3, ContactName: "No Memberships", BusinessName: "Lonely",
				Status: afftrack.AccountActive}},
		},
		Memberships: []afftrack.Membership{
			{AffiliateID: 1, MerchantID: 1, Status: afftrack.MembershipJoined},
			{AffiliateID: 1, MerchantID: 2, Status: afftrack.MembershipInvited},
			{AffiliateID: 2, MerchantID: 2, Status: afftrack.MembershipJoined},
			{AffiliateID: 2, MerchantID: 1, Status: afftrack.MembershipPending},
		},
		// Not in id or date order, so the store has to order them.
		Transactions: []afftrack.TransactionRecord{
			rec(t104), rec(t201), rec(t102), rec(t105), rec(t101), rec(t100), rec(t103),
		},
		Banners: []afftrack.Banner{
			banner(12, 1, "Spring", 728, 90), banner(11, 1, "Spring", 468, 60), banner(13, 1, "Autumn", 300, 100),
			banner(21, 2, "Spring", 468, 60),
		},
		Invoices: []afftrack.Invoice{
			{ID: 501, AffiliateID: 1, DateCreated: dt(t, "2024-03-31T00:00:00"), DatePaid: dt(t, "2024-04-02T10:00:00"),
				Number: "INV-501", Description: "March commission", SubTotal: 100000, GST: afftrack.Some[afftrack.Money](10000),
				Total: 110000},
			{ID: 502, AffiliateID: 2, DateCreated: dt(t, "2024-03-31T00:00:00"), DatePaid: dt(t, "2024-04-02T10:00:00"),
				Number: "INV-502", Description: "March commission", SubTotal: 50000, GST: afftrack.Some[afftrack.Money](5000),
				Total: 55000},
			{ID: 503, AffiliateID: 1, DateCreated: dt(t, "2024-04-30T00:00:00"), DatePaid: dt(t, "2024-05-02T10:00:00"),
				Number: "INV-503", Description: "April, GST not charged", SubTotal: 70000, Total: 70000},
		},
	}
}

// loaded returns a fresh database of the backend holding the fixture.
func loaded(t *testing.T, db *sqlstore.DB) *afftrack.Dataset {
	t.Helper()
	d := fixture(t)
	mustImport(t, db, d)
	return d
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	t.Run("refuses a URL of an unknown scheme without echoing it", func(t *testing.T) {
		for _, dsn := range []string{"mysql://user:hunter2@host/db", "", "sqlite:", "sqlite:a?b.db",
			"postgres://user:hunter2@host:bad/db", "postgresql://user:hunter2@[::1/db"} {
			db, err := sqlstore.Open(ctx, dsn)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) succeeded", dsn)
			}
			if dsn != "" && strings.Contains(err.Error(), "hunter2") {
				t.Errorf("Open(%q) error %q repeats the password", dsn, err)
			}
		}
	})
	t.Run("gives each in-memory database its own data, shared by its connections", func(t *testing.T) {
		a, err := sqlstore.Open(ctx, "sqlite::memory:")
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b, err := sqlstore.Open(ctx, "sqlite::memory:")
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		for _, db := range []*sqlstore.DB{a, b} {
			if err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
		}
		mustImport(t, a, fixture(t))
		// Several connections at once, each must see the import.
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := a.SQL().Conn(ctx)
				if err != nil {
					errs <- err
					return
				}
				defer c.Close()
				var n int64
				if err := c.QueryRowContext(ctx, `SELECT COUNT(*) FROM merchants`).Scan(&n); err != nil {
					errs <- err
				} else if n != 2 {
					errs <- fmt.Errorf("a connection sees %d merchants, want 2", n)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if n := countRows(t, b, "merchants"); n != 0 {
			t.Errorf("the second in-memory database sees %d merchants, want 0", n)
		}
		if a.Dialect() != "sqlite" {
			t.Errorf("Dialect() = %q, want sqlite", a.Dialect())
		}
	})
	t.Run("sets the SQLite pragmas on every connection", func(t *testing.T) {
		db := storetest.Open(t, storetest.SQLite)
		want := map[string]string{"journal_mode": "wal", "foreign_keys": "1", "busy_timeout": "5000", "synchronous": "1",
			"cache_size": "-8192", "temp_store": "2", "journal_size_limit": "67108864"}
		for i := range 3 {
			c, err := db.SQL().Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for pragma, v := range want {
				var got string
				if err := c.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got != v {
					t.Errorf("connection %d: PRAGMA %s = %q, want %q", i, pragma, got, v)
				}
			}
		}
	})
}

// TestAPoolOfOne: a pool asked for one connection still opens, migrates
// and serves on every backend, in-memory SQLite included; a migration on
// PostgreSQL holds its lock on one connection while it works on another.
func TestAPoolOfOne(t *testing.T) {
	for _, b := range append(storetest.Backends(t), "memory") {
		t.Run(b+" opens, migrates and answers", func(t *testing.T) {
			dsn := "sqlite::memory:"
			if b != "memory" {
				dsn = storetest.URL(t, b)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			db, err := sqlstore.Open(ctx, dsn, sqlstore.Options{MaxOpenConns: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Migrate(ctx); err != nil {
				t.Fatalf("Migrate: %v", err)
			}
			if err := db.Ping(ctx); err != nil {
				t.Fatalf("Ping: %v", err)
			}
		})
	}
}

func TestPool(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		// A burst of requests in flight, as a load of 8 concurrent clients
		// makes; once it is over, its connections must wait idle for the
		// next rather than be closed and reopened.
		const burst = 8
		ctx := context.Background()
		conns := make([]*sql.Conn, burst)
		for i := range conns {
			c, err := db.SQL().Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			conns[i] = c
		}
		for _, c := range conns {
			c.Close()
		}
		if got := db.SQL().Stats().Idle; got < burst {
			t.Errorf("idle connections after a burst of %d = %d, want %d or more", burst, got, burst)
		}
	})
}

func TestPing(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		if err := db.Ping(context.Background()); err != nil {
			t.Fatalf("Ping: %v", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		start := time.Now()
		if err := db.Ping(ctx); err == nil {
			t.Error("Ping with a cancelled context succeeded")
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("Ping with a cancelled context took %v", d)
		}
	})
}

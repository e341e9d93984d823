package api

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
)

// Keys of the fixture accounts. They are long and distinctive so a test
// can assert they never show up in a log.
const (
	merchantKey          = "mk-SECRET-merchant-one-0123456789"
	otherMerchantKey     = "mk-SECRET-merchant-two-0123456789"
	suspendedMerchantKey = "mk-SECRET-merchant-suspended-0123"
	affiliateKey         = "ak-SECRET-affiliate-one-012345678"
	closedAffiliateKey   = "ak-SECRET-affiliate-closed-012345"
	publicURL            = "http://localhost:8080"
	nsMerchant           = publicURL + "/V1/Merchant"
	nsAffiliate          = publicURL + "/V1/Affiliate"
)

// fakeAccounts authenticates from a map of key hashes. Its other methods
// are not used by the api package and panic through the nil embedded
// interface.
type fakeAccounts struct {
	afftrack.AccountService
	byHash map[string]*afftrack.Account
	err    error
	// With gate set, a lookup counts itself in lookups and waits for the
	// gate to close, as a lookup on a slow store does.
	gate    chan struct{}
	lookups atomic.Int64
	// cached are the key hashes CachedAuthenticate answers, as a key
	// cache holding them would; panicOn is a key hash whose lookup panics.
	cached  map[string]bool
	panicOn string
}

func (f *fakeAccounts) CachedAuthenticate(keyHash string) (*afftrack.Account, bool, error) {
	if !f.cached[keyHash] {
		return nil, false, nil
	}
	if a, ok := f.byHash[keyHash]; ok {
		return a, true, nil
	}
	return nil, true, afftrack.Errorf(afftrack.EUNAUTHORIZED, "unknown key")
}

func (f *fakeAccounts) Authenticate(_ context.Context, keyHash string) (*afftrack.Account, error) {
	if keyHash == f.panicOn {
		panic("a lookup that fails in a way nobody foresaw")
	}
	if f.gate != nil {
		f.lookups.Add(1)
		<-f.gate
	}
	if f.err != nil {
		return nil, f.err
	}
	if a, ok := f.byHash[keyHash]; ok {
		return a, nil
	}
	return nil, afftrack.Errorf(afftrack.EUNAUTHORIZED, "unknown key")
}

// fakeTransactions serves transactions from a slice the way a store
// would: the merchant's own, in the date range, matching the filter,
// ordered by the date property then Id, one reused value at a time.
type fakeTransactions struct {
	list      []afftrack.Transaction
	failAfter int   // with err: fail after this many transactions
	err       error // returned by FindTransactions (after failAfter rows)
	panicByID bool
	onRow     func() // called before each row is handed over
	// With blocked set, the read stops before row blockAt, closes blocked
	// and waits for the request to end, as a store read does when the
	// client disconnects.
	blockAt int
	blocked chan struct{}
	lastMu  sync.Mutex
	last    afftrack.TransactionFilter
}

func (f *fakeTransactions) FindTransactionByID(_ context.Context, merchantID, id int64) (*afftrack.Transaction, error) {
	if f.panicByID {
		panic("fake store exploded")
	}
	for i := range f.list {
		if t := f.list[i]; t.ID == id && t.MerchantID == merchantID {
			return &t, nil
		}
	}
	return nil, afftrack.Errorf(afftrack.ENOTFOUND, "transaction %d not found", id)
}

func (f *fakeTransactions) FindTransactions(ctx context.Context, flt afftrack.TransactionFilter, fn func(*afftrack.Transaction) error) error {
	f.lastMu.Lock()
	f.last = flt
	f.lastMu.Unlock()
	date := func(t *afftrack.Transaction) time.Time {
		if flt.DateProperty == afftrack.ByDateModified {
			return t.DateModified
		}
		return t.DateCreated
	}
	var rows []*afftrack.Transaction
	for i := range f.list {
		t := &f.list[i]
		if d := date(t); t.MerchantID == flt.MerchantID && !d.Before(flt.From) && d.Before(flt.Until()) && flt.Match(t) {
			rows = append(rows, t)
		}
	}
	slices.SortStableFunc(rows, func(a, b *afftrack.Transaction) int {
		if c := date(a).Compare(date(b)); c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	})
	var reused afftrack.Transaction
	for i, t := range rows {
		if f.blocked != nil && i == f.blockAt {
			close(f.blocked)
			<-ctx.Done()
			return ctx.Err()
		}
		if f.err != nil && i == f.failAfter {
			return f.err
		}
		if f.onRow != nil {
			f.onRow()
		}
		reused = *t
		reused.Items = append(reused.Items[:0], t.Items...)
		if err := fn(&reused); err != nil {
			return err
		}
	}
	return f.err
}

func (f *fakeTransactions) lastFilter() afftrack.TransactionFilter {
	f.lastMu.Lock()
	defer f.lastMu.Unlock()
	return f.last
}

// fakeBanners serves the banners of merchants the affiliate joined.
type fakeBanners struct {
	list   []afftrack.Banner
	joined map[[2]int64]bool // {affiliate, merchant}
	err    error
}

func (f *fakeBanners) FindBanners(_ context.Context, flt afftrack.BannerFilter) ([]*afftrack.Banner, error) {
	if f.err != nil {
		return nil, f.err
	}
	var out []*afftrack.Banner
	for i := range f.list {
		b := &f.list[i]
		if f.joined[[2]int64{flt.AffiliateID, b.MerchantID}] && flt.Match(b) {
			out = append(out, b)
		}
	}
	return out, nil
}

// fakeInvoices serves invoices by affiliate.
type fakeInvoices struct {
	list []afftrack.Invoice
}

func (f *fakeInvoices) FindInvoiceByID(_ context.Context, affiliateID, id int64) (*afftrack.Invoice, error) {
	for i := range f.list {
		if inv := f.list[i]; inv.ID == id && inv.AffiliateID == affiliateID {
			return &inv, nil
		}
	}
	return nil, afftrack.Errorf(afftrack.ENOTFOUND, "invoice %d not found", id)
}

func (f *fakeInvoices) FindInvoices(_ context.Context, affiliateID int64, from, to time.Time) ([]*afftrack.Invoice, error) {
	out := []*afftrack.Invoice{}
	for i := range f.list {
		if inv := f.list[i]; inv.AffiliateID == affiliateID && !inv.DateCreated.Before(from) && inv.DateCreated.Before(to.AddDate(0, 0, 1)) {
			out = append(out, &inv)
		}
	}
	return out, nil
}

// fakeLimiter answers with decide (allowed with a 60 s window by default)
// and counts acquisitions and releases.
type fakeLimiter struct {
	decide   func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision
	err      error
	acquired atomic.Int64
	released atomic.Int64
	mu       sync.Mutex
	limits   []afftrack.Limits
	nows     []time.Time
}

func (f *fakeLimiter) Acquire(_ context.Context, ref afftrack.AccountRef, l afftrack.Limits, now time.Time) (afftrack.RateDecision, func(), error) {
	if f.err != nil {
		return afftrack.RateDecision{}, nil, f.err
	}
	f.mu.Lock()
	f.limits = append(f.limits, l)
	f.nows = append(f.nows, now)
	f.mu.Unlock()
	d := afftrack.RateDecision{Allowed: true, HasWindow: true, Limit: 30, Remaining: 29, Reset: 60 * time.Second}
	if f.decide != nil {
		d = f.decide(ref, l)
	}
	f.acquired.Add(1)
	var once sync.Once
	return d, func() { once.Do(func() { f.released.Add(1) }) }, nil
}

// Peek reports a full 60 s window, or err.
func (f *fakeLimiter) Peek(context.Context, afftrack.AccountRef, afftrack.Limits, time.Time) (afftrack.RateDecision, error) {
	if f.err != nil {
		return afftrack.RateDecision{}, f.err
	}
	return afftrack.RateDecision{HasWindow: true, Limit: 30, Remaining: 30}, nil
}

// lockedBuffer is a log sink safe for the concurrent writes of a live
// server.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// fixedNow is the fake clock's time.
var fixedNow = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// harness is a Server over fakes holding the fixture data.
type harness struct {
	srv      *Server
	accounts *fakeAccounts
	tx       *fakeTransactions
	banners  *fakeBanners
	invoices *fakeInvoices
	limiter  *fakeLimiter
	ready    error
	logs     *lockedBuffer
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	return newHarnessWith(t, nil)
}

// newHarnessWith is newHarness with the services edited by edit, if not
// nil, before the server is built.
func newHarnessWith(t testing.TB, edit func(*Services)) *harness {
	t.Helper()
	return newHarnessConfig(t, edit, nil)
}

// newHarnessConfig is newHarnessWith with the server's configuration
// edited by editConfig, if not nil.
func newHarnessConfig(t testing.TB, edit func(*Services), editConfig func(*Config)) *harness {
	t.Helper()
	h := &harness{
		accounts: &fakeAccounts{byHash: map[string]*afftrack.Account{}},
		tx:       &fakeTransactions{list: fixtureTransactions()},
		banners:  &fakeBanners{list: fixtureBanners(), joined: map[[2]int64]bool{{1, 1}: true, {1, 2}: true}},
		invoices: &fakeInvoices{list: fixtureInvoices()},
		limiter:  &fakeLimiter{},
		logs:     &lockedBuffer{},
	}
	for key, a := range map[string]afftrack.Account{
		merchantKey:          {Ref: afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 1}, Status: afftrack.AccountActive},
		otherMerchantKey:     {Ref: afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 2}, Status: afftrack.AccountActive},
		suspendedMerchantKey: {Ref: afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 3}, Status: afftrack.AccountSuspended},
		affiliateKey:         {Ref: afftrack.AccountRef{Kind: afftrack.KindAffiliate, ID: 1}, Status: afftrack.AccountActive},
		closedAffiliateKey:   {Ref: afftrack.AccountRef{Kind: afftrack.KindAffiliate, ID: 2}, Status: afftrack.AccountClosed},
	} {
		h.accounts.byHash[afftrack.HashKey(key)] = &a
	}
	svc := Services{
		Accounts:     h.accounts,
		Transactions: h.tx,
		Banners:      h.banners,
		Invoices:     h.invoices,
		RateLimiter:  h.limiter,
		Ready:        func(context.Context) error { return h.ready },
	}
	if edit != nil {
		edit(&svc)
	}
	cfg := Config{PublicURL: publicURL, DefaultLimits: afftrack.Limits{PerMinute: 30, PerDay: 1000, Concurrent: 1}}
	if editConfig != nil {
		editConfig(&cfg)
	}
	logger := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h.srv = NewServer(cfg, svc, logger, func() time.Time { return fixedNow })
	return h
}

// do serves one request; header holds alternating names and values.
func (h *harness) do(method, target string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Add(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(w, r)
	return w
}

// errStore is an internal failure a store might report.
var errStore = errors.New("SELECT failed: connection reset by peer")

// dt returns a fixture datetime.
func dt(s string) time.Time {
	t, err := time.Parse("2006-01-02T15:04:05.000", s)
	if err != nil {
		panic(err)
	}
	return t
}

// fixtureTransactions holds the interface's status patterns for merchant
// 1 (Paid with invoice and three items, Void with a reason, Pending with
// an amended reason and no items) and one transaction of merchant 2.
func fixtureTransactions() []afftrack.Transaction {
	paid := afftrack.Transaction{
		ID: 1, MerchantID: 1,
		DateCreated: dt("2000-01-01T00:00:00.000"), DateModified: dt("2000-01-02T10:20:30.123"),
		ConsumptionDate: dt("2000-01-01T00:00:00.000"), ValidationDate: dt("2000-01-03T00:00:00.000"),
		AffiliateID: 1, AffiliateContactName: "John Smith", AffiliateBusinessName: "Example Pty Ltd",
		TrafficType: afftrack.TrafficTypeWebsite, TrafficSource: "https://www.example.com/",
		CreativeType:        afftrack.CreativeTypeTextLink,
		CustomerCountryCode: "AUS", CustomerCountryName: "Australia",
		CustomerIPAddress: "0123456789abcdef0123456789abcdef", CustomerType: afftrack.CustomerTypeNew,
		OrderID: "T0001", TrackingMethod: afftrack.TrackingMethodCookie,
		SaleValue: 1000000, Commission: 100000, OverrideFee: 25000,
		ReportedCurrencyCode: "AUD", ReportedCurrencyName: "Australian Dollar", ReportedSaleValue: 1000000,
		TrafficSourceApproved: true, Status2: afftrack.Status2Paid, InvoiceID: afftrack.Some[int64](12345),
		CouponCode: afftrack.Some("FREE101"),
		Items: []afftrack.TransactionItem{
			{Sku: "P0001", Quantity: 1, ReportedSaleValue: 5000, SaleValue: 5000, Commission: 500,
				Name: "Example Product 1", Brand: "Example Brand 1", Category: "Clothing"},
			{Sku: "P0002", Quantity: 1, ReportedSaleValue: 2500, SaleValue: 2500, Commission: 250,
				Name: "Example Product 2", Brand: "Example Brand 1", Category: "Shoes"},
			{Sku: "P0003", Quantity: 1, ReportedSaleValue: 2500, SaleValue: 2500, Commission: 250,
				Name: "Example Product 3", Brand: "Example Brand 2", Category: "Jewellery",
				CartItemReference: afftrack.Some("cart-3")},
		},
	}
	void := paid
	void.ID, void.OrderID = 2, "T0002"
	void.DateCreated, void.DateModified = dt("2000-01-01T12:00:00.000"), dt("2000-01-05T00:00:00.000")
	void.AffiliateID, void.AffiliateContactName, void.AffiliateBusinessName = 2, "Jane Doe", "Sample Pty Ltd"
	void.CustomerType, void.TrafficSourceApproved = afftrack.CustomerTypeReturn, false
	void.Status2, void.InvoiceID, void.VoidReason = afftrack.Status2Void, afftrack.Null[int64]{}, afftrack.VoidReasonCancelledOrder
	void.CouponCode, void.Items = afftrack.Null[string]{}, nil
	void.CreativeID, void.CreativeName = afftrack.Some[int64](7), afftrack.Some("Spring <sale> & more")
	pending := void
	pending.ID, pending.OrderID = 3, "T0003"
	pending.DateCreated, pending.DateModified = dt("2000-01-02T23:59:59.999"), dt("2000-01-02T23:59:59.999")
	pending.AffiliateID, pending.AffiliateContactName, pending.AffiliateBusinessName = 3, "John Citizen", "Citizen & Co"
	pending.Status2, pending.VoidReason, pending.AmendedReason = afftrack.Status2Pending, 0, afftrack.AmendedReasonPartialOrderReturn
	pending.CreativeID, pending.CreativeName = afftrack.Null[int64]{}, afftrack.Null[string]{}
	pending.AdditionalNotes = afftrack.Some("Line one\nsaid \"hi\"\u2028</script>")
	pending.PlacementID, pending.PlacementName = afftrack.Some[int64](4), afftrack.Some("Footer")
	other := paid
	other.ID, other.MerchantID, other.OrderID = 4, 2, "X0004"
	return []afftrack.Transaction{paid, void, pending, other}
}

// fixtureBanners holds banners of merchants 1 and 2 (joined by affiliate
// 1) and of merchant 3 (not joined).
func fixtureBanners() []afftrack.Banner {
	return []afftrack.Banner{
		{ID: 1, DateCreated: dt("2000-01-01T00:00:00.000"), DateModified: dt("2000-01-01T00:00:00.000"),
			MerchantID: 1, MerchantName: "Example Pty Ltd", MerchantAvatarURL: "https://c.example.com/Avatars/0.png",
			GroupName: " Default Group", Name: "Banner 1", TargetURL: "https://www.example.com/",
			Width: 468, Height: 60, ImageURL: "https://t.example.com/a/1/1", AltText: "Example Pty Ltd Banner"},
		{ID: 2, DateCreated: dt("2000-02-01T00:00:00.000"), DateModified: dt("2000-02-03T04:05:06.789"),
			MerchantID: 2, MerchantName: "Sample & Sons", MerchantAvatarURL: "https://c.example.com/Avatars/2.png",
			GroupName: "Summer", Name: "Odd one", TargetURL: "https://www.example.org/?a=1&b=2",
			Width: 400, Height: 70, ImageURL: "https://t.example.com/a/2/2?x=\"y\"", AltText: `"><script>alert(1)</script>`},
		{ID: 3, DateCreated: dt("2000-03-01T00:00:00.000"), DateModified: dt("2000-03-01T00:00:00.000"),
			MerchantID: 3, MerchantName: "Hidden Ltd", GroupName: "G", Name: "Not joined",
			Width: 160, Height: 600},
	}
}

// fixtureInvoices holds an invoice with GST and one without for affiliate
// 1, and one of affiliate 2.
func fixtureInvoices() []afftrack.Invoice {
	return []afftrack.Invoice{
		{ID: 1, AffiliateID: 1, DateCreated: dt("2000-01-01T00:00:00.000"), DatePaid: dt("2000-01-01T00:00:00.000"),
			Number: "CF-1-0001", Description: "Commissions up to 1/01/2000", SubTotal: 1000000, Total: 1000000},
		{ID: 2, AffiliateID: 1, DateCreated: dt("2000-02-01T00:00:00.000"), DatePaid: dt("2000-02-02T09:30:00.500"),
			Number: "CF-1-0002", Description: "Commissions up to 1/02/2000", SubTotal: 1000000,
			GST: afftrack.Some[afftrack.Money](100000), Total: 1100000},
		{ID: 3, AffiliateID: 2, DateCreated: dt("2000-03-01T00:00:00.000"), DatePaid: dt("2000-03-01T00:00:00.000"),
			Number: "CF-2-0001", Description: "Other affiliate", SubTotal: 10000, Total: 10000},
	}
}

// mustStatus fails the test unless w has the wanted status.
func mustStatus(t *testing.T, w *httptest.ResponseRecorder, want int) {
	t.Helper()
	if w.Code != want {
		t.Fatalf("status = %d, want %d; body: %s", w.Code, want, w.Body.String())
	}
}

package api_test

// A tracking network served the way `afftrack serve` wires it, on a real
// in-memory SQLite store, for the click, conversion and pixel tests.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/api"
	"github.com/afftrack/afftrack/internal/clickbuf"
	"github.com/afftrack/afftrack/internal/geoip"
	"github.com/afftrack/afftrack/internal/geoip/geoiptest"
	"github.com/afftrack/afftrack/internal/importfile"
	"github.com/afftrack/afftrack/internal/linkcache"
	"github.com/afftrack/afftrack/internal/ratelimit"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// Keys of the tracking network's accounts.
const (
	trMerchant1Key  = "tr-merchant-1-key-0123456789abcdef"
	trMerchant2Key  = "tr-merchant-2-key-0123456789abcdef"
	trAffiliate1Key = "tr-affiliate-1-key-0123456789abcdef"
)

// The network's destinations.
const (
	trTarget1     = "https://shop.example.com/landing?ref=net" // merchant 1's program (has a query)
	trBanner1     = "https://promo.bannerhost.example/summer"  // banner 1 of merchant 1 (another host)
	trTarget2     = "https://m2.example.net/"                  // merchant 2's program
	trBanner2     = "https://m2.example.net/banner"            // banner 2 of merchant 2
	trAllowedHost = "partner.example"                          // merchant 1's AllowedDomains
	trBrowserUA   = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
	trGooglebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	trGeoAddress  = "203.0.113.7" // in the test geoip database: Australia
)

// trNetwork is the import file of the tracking tests:
//   - merchant 1 Active, default ClickAppend, CookieDays 30, AllowedDomains partner.example;
//   - merchant 2 Active, a ClickAppend with every shortcode, CookieDays 7;
//   - merchant 3 Closed (with a program); merchant 4 Active without a program;
//   - affiliate 1 Active, Joined to 1 and 2; affiliate 2 Active, Pending on 1;
//     affiliate 3 Suspended, Joined to 1; affiliate 4 Active, no membership;
//   - banners 1 (merchant 1) and 2 (merchant 2); banner 3 of merchant 3;
//   - coupon AFF1ONLY: exclusive to affiliate 1 at merchant 1.
const trNetwork = `{
  "Merchants": [
    {"Id": 1, "Name": "Shop One", "AvatarUrl": "https://cdn.example.com/1.png", "Status": "Active",
     "ApiKeys": ["` + trMerchant1Key + `"],
     "Program": {"TargetUrl": "` + trTarget1 + `", "AllowedDomains": ["` + trAllowedHost + `"],
                 "CookieDays": 30, "Commission": {"Percent": 10}}},
    {"Id": 2, "Name": "Shop Two", "AvatarUrl": "https://cdn.example.com/2.png", "Status": "Active",
     "ApiKeys": ["` + trMerchant2Key + `"],
     "Program": {"TargetUrl": "` + trTarget2 + `", "CookieDays": 7,
                 "ClickAppend": "utm_source=afftrack&cid=[ClickId]&aff=[AffiliateId]&cr=[CreativeId]&ct=[CreativeType]&u1=[UniqueId]&u4=[UniqueId4]",
                 "Commission": {"Flat": 5}}},
    {"Id": 3, "Name": "Closed Shop", "AvatarUrl": "https://cdn.example.com/3.png", "Status": "Closed",
     "Program": {"TargetUrl": "https://closed.example.com/", "Commission": {"Percent": 10}}},
    {"Id": 4, "Name": "No Program", "AvatarUrl": "https://cdn.example.com/4.png", "Status": "Active"}
  ],
  "Affiliates": [
    {"Id": 1, "ContactName": "Ann Active", "BusinessName": "Ann Pty Ltd", "Status": "Active",
     "ApiKeys": ["` + trAffiliate1Key + `"]},
    {"Id": 2, "ContactName": "Pat Pending", "BusinessName": "", "Status": "Active"},
    {"Id": 3, "ContactName": "Sue Suspended", "BusinessName": "", "Status": "Suspended"},
    {"Id": 4, "ContactName": "Nat Notjoined", "BusinessName": "", "Status": "Active"}
  ],
  "Memberships": [
    {"AffiliateId": 1, "MerchantId": 1, "Status": "Joined", "TrafficSource": "https://ann.example.org/"},
    {"AffiliateId": 1, "MerchantId": 2, "Status": "Joined", "TrafficType": "Email List"},
    {"AffiliateId": 1, "MerchantId": 3, "Status": "Joined"},
    {"AffiliateId": 1, "MerchantId": 4, "Status": "Joined"},
    {"AffiliateId": 2, "MerchantId": 1, "Status": "Pending"},
    {"AffiliateId": 3, "MerchantId": 1, "Status": "Joined"}
  ],
  "Banners": [
    {"MerchantId": 1, "Id": 1, "DateCreated": "2024-01-01T00:00:00.000", "DateModified": "2024-01-01T00:00:00.000",
     "GroupName": "Default", "Name": "Summer banner", "TargetUrl": "` + trBanner1 + `",
     "Width": 468, "Height": 60, "ImageUrl": "https://cdn.example.com/b1.png", "AltText": "Summer"},
    {"MerchantId": 2, "Id": 2, "DateCreated": "2024-01-01T00:00:00.000", "DateModified": "2024-01-01T00:00:00.000",
     "GroupName": "Default", "Name": "Two banner", "TargetUrl": "` + trBanner2 + `",
     "Width": 728, "Height": 90, "ImageUrl": "https://cdn.example.com/b2.png", "AltText": "Two"},
    {"MerchantId": 3, "Id": 3, "DateCreated": "2024-01-01T00:00:00.000", "DateModified": "2024-01-01T00:00:00.000",
     "GroupName": "Default", "Name": "Closed banner", "TargetUrl": "https://closed.example.com/b",
     "Width": 728, "Height": 90, "ImageUrl": "https://cdn.example.com/b3.png", "AltText": "Closed"}
  ],
  "Coupons": [
    {"MerchantId": 1, "Id": 1, "Code": "AFF1ONLY", "Description": "Ann's readers", "AffiliateId": 1}
  ],
  "CurrencyRates": [
    {"Code": "USD", "Date": "2020-01-01", "Rate": 1.5}
  ]
}`

// trOptions tune a tracking test server.
type trOptions struct {
	publicURL     string // "" is the test server's own URL
	trackingRoot  bool   // the tracking base is the server's root, not {public-url}/t
	trustProxy    bool
	flushInterval time.Duration // 0 is 5 ms
	limits        afftrack.Limits
	backend       string // "" is sqlite::memory:; else a storetest backend
	// clicks, if set, takes the clicks instead of a buffer writing them
	// to the store.
	clicks api.ClickSink
	// logger, if set, receives the server's log; nil discards it.
	logger *slog.Logger
	// observer, if set, is told what the server reports.
	observer api.Observer
}

// trEnv is a tracking network served over a real connection.
type trEnv struct {
	t      testing.TB
	db     *sqlstore.DB
	srv    *httptest.Server
	client *http.Client
	server *api.Server
	ipKey  []byte
}

// newTrackingEnv builds the server as `afftrack serve` does, on a fresh
// in-memory store holding trNetwork, and serves it with httptest.
func newTrackingEnv(t testing.TB, o trOptions) *trEnv {
	t.Helper()
	ctx := context.Background()
	var db *sqlstore.DB
	if o.backend != "" {
		db = storetest.Open(t, o.backend)
	} else {
		var err error
		if db, err = sqlstore.Open(ctx, "sqlite::memory:"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
	}
	d, err := importfile.Parse(strings.NewReader(trNetwork), time.UTC)
	if err != nil {
		t.Fatalf("parse the network: %v", err)
	}
	if _, err := sqlstore.NewImportService(db).Import(ctx, d); err != nil {
		t.Fatalf("import the network: %v", err)
	}

	geoPath := filepath.Join(t.TempDir(), "country.mmdb")
	if err := geoiptest.Write(geoPath, map[string]string{"203.0.113.0/24": "AU", "2001:db8::/32": "NZ"}); err != nil {
		t.Fatal(err)
	}
	geo, err := geoip.Open(geoPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { geo.Close() })

	store := sqlstore.NewClickService(db)
	key, err := store.IPHashKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	flush := o.flushInterval
	if flush == 0 {
		flush = 5 * time.Millisecond
	}
	clicks := o.clicks
	if clicks == nil {
		buf := clickbuf.New(store, clickbuf.Options{FlushInterval: flush})
		t.Cleanup(func() {
			cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := buf.Close(cctx); err != nil {
				t.Errorf("closing the click buffer: %v", err)
			}
		})
		clicks = buf
	}
	clock := func() time.Time { return afftrack.WallClock(time.Now(), time.UTC) }

	e := &trEnv{t: t, db: db, ipKey: key}
	var handler http.Handler
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	publicURL := o.publicURL
	if publicURL == "" {
		publicURL = e.srv.URL
	}
	trackingBase := ""
	if o.trackingRoot {
		trackingBase = e.srv.URL
	}
	e.server = api.NewServer(api.Config{
		PublicURL:       publicURL,
		TrackingBaseURL: trackingBase,
		Currency:        "AUD",
		Location:        time.UTC,
		TrustProxy:      o.trustProxy,
		DefaultLimits:   o.limits,
	}, api.Services{
		Accounts:     sqlstore.NewAccountService(db),
		Transactions: sqlstore.NewTransactionService(db),
		Banners:      sqlstore.NewBannerService(db),
		Invoices:     sqlstore.NewInvoiceService(db),
		RateLimiter:  ratelimit.NewMemory(),
		Tracking:     linkcache.New(store, linkcache.Options{}),
		Clicks:       clicks,
		Conversions:  sqlstore.NewConversionService(db, "AUD", clock),
		Countries:    geo,
		IPHashKey:    key,
		Observer:     o.observer,
	}, o.logger, time.Now)
	handler = e.server.Handler()
	e.client = &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return e
}

// trResponse is an answer with its body read.
type trResponse struct {
	*http.Response
	body string
}

// do sends a request with the header pairs given and reads the answer.
// A path is relative to the server.
func (e *trEnv) do(method, path string, body io.Reader, header ...string) trResponse {
	e.t.Helper()
	target := path
	if strings.HasPrefix(path, "/") {
		target = e.srv.URL + path
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return trResponse{resp, string(b)}
}

// click follows a tracking link as a browser would (without following the
// redirect).
func (e *trEnv) click(path string, header ...string) trResponse {
	e.t.Helper()
	return e.do(http.MethodGet, path, nil, append([]string{"User-Agent", trBrowserUA}, header...)...)
}

// creditedClick clicks path and returns the click id of its redirect,
// read from its afftrack_click parameter.
func (e *trEnv) creditedClick(path string) string {
	e.t.Helper()
	r := e.click(path)
	if r.StatusCode != http.StatusFound {
		e.t.Fatalf("GET %s: %d %s", path, r.StatusCode, r.body)
	}
	id := clickIDOf(r.Header.Get("Location"))
	if !afftrack.IsClickID(id) {
		e.t.Fatalf("GET %s: no click id in Location %q", path, r.Header.Get("Location"))
	}
	return id
}

// clickIDOf returns the value of afftrack_click in a destination.
func clickIDOf(location string) string {
	_, after, ok := strings.Cut(location, "afftrack_click=")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(after, "&")
	return id
}

// convert posts a conversion body with merchant 1's key (or the header
// pairs given instead).
func (e *trEnv) convert(body string, header ...string) trResponse {
	e.t.Helper()
	if len(header) == 0 {
		header = []string{"X-Api-Key", trMerchant1Key}
	}
	return e.do(http.MethodPost, "/V1/Merchant/Conversions", strings.NewReader(body),
		append([]string{"Content-Type", "application/json"}, header...)...)
}

// clickRow is a clicks row as stored.
type clickRow struct {
	ID, Referer, IPHash, CountryCode, CountryName string
	MerchantID, AffiliateID, CreativeType         int64
	CreativeID                                    sql.NullInt64
	Bot, Credited                                 bool
	UniqueIDs                                     [4]string
	TrafficType                                   int64
}

const clickRowColumns = `id, merchant_id, affiliate_id, creative_type, creative_id, referer, ip_hash,
	country_code, country_name, bot, credited, unique_id, unique_id2, unique_id3, unique_id4, traffic_type`

// waitClick polls the clicks table for the row where column = value,
// since clicks are written behind the redirect.
func (e *trEnv) waitClick(column, value string) clickRow {
	e.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var c clickRow
		err := e.db.SQL().QueryRow(`SELECT `+clickRowColumns+` FROM clicks WHERE `+column+` = $1`, value).Scan(
			&c.ID, &c.MerchantID, &c.AffiliateID, &c.CreativeType, &c.CreativeID, &c.Referer, &c.IPHash,
			&c.CountryCode, &c.CountryName, &c.Bot, &c.Credited,
			&c.UniqueIDs[0], &c.UniqueIDs[1], &c.UniqueIDs[2], &c.UniqueIDs[3], &c.TrafficType)
		if err == nil {
			return c
		}
		if !errors.Is(err, sql.ErrNoRows) {
			e.t.Fatalf("reading click %s=%q: %v", column, value, err)
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no click with %s=%q was written within 5 s", column, value)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// transactionCount counts the stored transactions of merchant 1 with the
// OrderId.
func (e *trEnv) transactionCount(orderID string) int {
	e.t.Helper()
	var n int
	if err := e.db.SQL().QueryRow(`SELECT COUNT(*) FROM transactions WHERE merchant_id = 1 AND order_id = $1`,
		orderID).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// trTransaction is what the tests read of a transaction's JSON.
type trTransaction struct {
	Id             int64
	AffiliateId    int64
	OrderId        string
	TrackingMethod string
	CreativeType   string
	CreativeId     *int64
	SaleValue      json.Number
	Commission     json.Number
	Status2        string
	Items          []struct {
		Sku       string
		Quantity  int64
		SaleValue json.Number
		Category  string
	}
}

// findTransaction returns merchant 1's transaction with the OrderId from
// its transaction list, or nil.
func (e *trEnv) findTransaction(orderID string) *trTransaction {
	e.t.Helper()
	r := e.do(http.MethodGet, "/V1/Merchant/Transactions?fromDate=2000-01-01&toDate=2100-01-01", nil,
		"X-Api-Key", trMerchant1Key)
	if r.StatusCode != http.StatusOK {
		e.t.Fatalf("transaction list: %d %s", r.StatusCode, r.body)
	}
	var list []trTransaction
	dec := json.NewDecoder(strings.NewReader(r.body))
	dec.UseNumber()
	if err := dec.Decode(&list); err != nil {
		e.t.Fatalf("transaction list: %v", err)
	}
	for i := range list {
		if list[i].OrderId == orderID {
			return &list[i]
		}
	}
	return nil
}

// message returns the Message of a JSON error body, or "" if it is none.
func message(body string) string {
	var m struct{ Message *string }
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.Message == nil {
		return ""
	}
	return *m.Message
}

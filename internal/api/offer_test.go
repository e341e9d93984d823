package api_test

import (
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/api"
	"github.com/afftrack/afftrack/internal/importfile"
	"github.com/afftrack/afftrack/internal/ratelimit"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// Keys of the offer network.
const (
	ofMerchant1Key  = "of-merchant-1-key-0123456789abcdef"
	ofAffiliate1Key = "of-affiliate-1-key-0123456789abcdef"
	ofAffiliate2Key = "of-affiliate-2-key-0123456789abcdef"
	ofAffiliate3Key = "of-affiliate-3-key-0123456789abcdef"
)

// ofNetwork: merchant 1 (Joined by affiliates 1 and 2; affiliate 3
// Pending) and merchant 2 (Joined by affiliate 1).
//   - coupons 1 A1 (affiliate 1's, markup in its text), 2 ALL (public), 3 A2 (affiliate 2's),
//     4 OLD (ended yesterday), 5 of merchant 2;
//   - promotions 1 public ending today, 2 affiliate 1's, 3 affiliate 2's, 4 created tomorrow.
const ofNetwork = `{
  "Merchants": [
    {"Id": 1, "Name": "Shop <One> & Co", "AvatarUrl": "https://cdn.example.com/1.png", "Status": "Active",
     "ApiKeys": ["` + ofMerchant1Key + `"],
     "Program": {"TargetUrl": "https://shop.example.com/", "AllowedDomains": ["partner.example"],
                 "Commission": {"Percent": 10}}},
    {"Id": 2, "Name": "Shop Two", "AvatarUrl": "https://cdn.example.com/2.png", "Status": "Active",
     "Program": {"TargetUrl": "https://two.example/", "Commission": {"Percent": 10}}}
  ],
  "Affiliates": [
    {"Id": 1, "ContactName": "Ann Lee", "BusinessName": "Lee Media", "Status": "Active", "ApiKeys": ["` + ofAffiliate1Key + `"]},
    {"Id": 2, "ContactName": "Bob Roe", "BusinessName": "", "Status": "Active", "ApiKeys": ["` + ofAffiliate2Key + `"]},
    {"Id": 3, "ContactName": "Cat Poe", "BusinessName": "Poe Pages", "Status": "Active", "ApiKeys": ["` + ofAffiliate3Key + `"]}
  ],
  "Memberships": [
    {"AffiliateId": 1, "MerchantId": 1, "Status": "Joined"},
    {"AffiliateId": 1, "MerchantId": 2, "Status": "Joined"},
    {"AffiliateId": 2, "MerchantId": 1, "Status": "Joined"},
    {"AffiliateId": 3, "MerchantId": 1, "Status": "Pending"}
  ],
  "Coupons": [
    {"MerchantId": 1, "Id": 1, "Code": "A1", "Description": "Ann's <b>10%</b> off", "AffiliateId": 1,
     "DateCreated": "2024-01-01T00:00:00", "DateModified": "2024-01-02T00:00:00"},
    {"MerchantId": 1, "Id": 2, "Code": "ALL", "Description": "5% off for all", "TargetUrl": "https://deals.partner.example/all",
     "TermsAndConditions": "One per order.", "StartDate": "2024-02-01", "EndDate": "2024-12-31",
     "DateCreated": "2024-01-05T10:20:30.456", "DateModified": "2024-01-06T00:00:00"},
    {"MerchantId": 1, "Id": 3, "Code": "A2", "Description": "Bob's", "AffiliateId": 2,
     "DateCreated": "2024-01-01T00:00:00", "DateModified": "2024-01-01T00:00:00"},
    {"MerchantId": 1, "Id": 4, "Code": "OLD", "Description": "Gone", "EndDate": "2024-06-14",
     "DateCreated": "2024-01-01T00:00:00", "DateModified": "2024-01-01T00:00:00"},
    {"MerchantId": 2, "Id": 5, "Code": "TWO", "Description": "Shop two's",
     "DateCreated": "2024-01-01T00:00:00", "DateModified": "2024-01-01T00:00:00"}
  ],
  "Promotions": [
    {"MerchantId": 1, "Id": 1, "Description": "Ends today", "EndDate": "2024-06-15", "TargetUrl": "https://shop.example.com/today",
     "DateCreated": "2024-02-01T00:00:00", "DateModified": "2024-02-01T00:00:00"},
    {"MerchantId": 1, "Id": 2, "Description": "Ann's own", "AffiliateId": 1,
     "DateCreated": "2024-03-01T00:00:00", "DateModified": "2024-03-02T00:00:00"},
    {"MerchantId": 1, "Id": 3, "Description": "Bob's own", "AffiliateId": 2,
     "DateCreated": "2024-03-01T00:00:00", "DateModified": "2024-03-01T00:00:00"},
    {"MerchantId": 1, "Id": 4, "Description": "Not yet", "DateCreated": "2024-06-16T00:00:00", "DateModified": "2024-06-16T00:00:00"}
  ]
}`

// offerServer serves ofNetwork on a fresh SQLite store, with the clock at
// 2024-06-15T12:00:00: coupons and promotions are shown from their
// creation through their EndDate's day.
func offerServer(t *testing.T) http.Handler {
	t.Helper()
	db := storetest.Open(t, storetest.SQLite)
	d, err := importfile.Parse(strings.NewReader(ofNetwork), time.UTC)
	if err != nil {
		t.Fatalf("parse the network: %v", err)
	}
	imp := sqlstore.NewImportService(db)
	imp.Now = func() time.Time { return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) }
	if _, err := imp.Import(context.Background(), d); err != nil {
		t.Fatalf("import the network: %v", err)
	}
	now := time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC)
	return api.NewServer(api.Config{PublicURL: "http://test"}, api.Services{
		Accounts:     sqlstore.NewAccountService(db),
		Transactions: sqlstore.NewTransactionService(db),
		Banners:      sqlstore.NewBannerService(db),
		Invoices:     sqlstore.NewInvoiceService(db),
		Offers:       sqlstore.NewOfferService(db),
		RateLimiter:  ratelimit.NewMemory(),
	}, nil, func() time.Time { return now }).Handler()
}

// offerGet serves a GET with the key.
func offerGet(h http.Handler, key, target string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("X-Api-Key", key)
	h.ServeHTTP(rec, req)
	return rec
}

// offerGolden compares got with testdata/name, or rewrites it under the
// package's -update flag.
func offerGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

func TestOfferGoldenBodies(t *testing.T) {
	h := offerServer(t)
	tests := []struct{ name, key, target string }{
		{"offers_affiliate_coupons", ofAffiliate1Key, "/V1/Affiliate/Coupons"},
		{"offers_affiliate_promotions", ofAffiliate1Key, "/V1/Affiliate/Promotions"},
		{"offers_affiliate_promotion", ofAffiliate1Key, "/V1/Affiliate/Promotions/2?targetUrl=" +
			url.QueryEscape("https://www.partner.example/a?x=1&y=%2B") + "&uniqueId=post 17&uniqueId3=" + url.QueryEscape("a+b&c=<d>")},
		{"offers_affiliate_promotion_plain", ofAffiliate1Key, "/V1/Affiliate/Promotions/1"},
		{"offers_merchant_coupons", ofMerchant1Key, "/V1/Merchant/Coupons"},
		{"offers_merchant_promotions", ofMerchant1Key, "/V1/Merchant/Promotions"},
		{"offers_merchant_coupons_empty", ofMerchant1Key, "/V1/Merchant/Coupons?affiliateId=3"},
	}
	formats := []struct{ ext, query, contentType string }{
		{".json", "", "application/json; charset=utf-8"},
		{".xml", "contentType=application/xml", "application/xml; charset=utf-8"},
		{".js", "callback=jQuery123.done", "text/javascript; charset=utf-8"},
	}
	for _, tt := range tests {
		for _, f := range formats {
			t.Run(tt.name+f.ext, func(t *testing.T) {
				target := strings.ReplaceAll(tt.target, " ", "%20")
				if f.query != "" {
					sep := "?"
					if strings.Contains(target, "?") {
						sep = "&"
					}
					target += sep + f.query
				}
				w := offerGet(h, tt.key, target)
				if w.Code != http.StatusOK {
					t.Fatalf("%s: %d %s", target, w.Code, w.Body)
				}
				if got := w.Header().Get("Content-Type"); got != f.contentType {
					t.Errorf("Content-Type %q, want %q", got, f.contentType)
				}
				offerGolden(t, tt.name+f.ext, w.Body.Bytes())
			})
		}
	}
}

func TestOfferVisibilityAndErrors(t *testing.T) {
	h := offerServer(t)
	ids := func(t *testing.T, key, target string) string {
		t.Helper()
		w := offerGet(h, key, target)
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", target, w.Code, w.Body)
		}
		var got []string
		for _, part := range strings.Split(w.Body.String(), `{"Id":`)[1:] {
			got = append(got, part[:strings.IndexByte(part, ',')])
		}
		return strings.Join(got, ",")
	}
	lists := []struct{ name, key, target, want string }{
		{"an affiliate sees public and its own coupons of Joined merchants, through EndDate's day", ofAffiliate1Key, "/V1/Affiliate/Coupons", "1,2,5"},
		{"another affiliate sees its own, not affiliate 1's", ofAffiliate2Key, "/V1/Affiliate/Coupons", "2,3"},
		{"a Pending membership sees nothing", ofAffiliate3Key, "/V1/Affiliate/Coupons", ""},
		{"merchantId", ofAffiliate1Key, "/V1/Affiliate/Coupons?merchantId=2", "5"},
		{"merchantName, any case", ofAffiliate1Key, "/V1/Affiliate/Coupons?MerchantName=shop%20two", "5"},
		{"promotions: ends today shown, not yet created hidden", ofAffiliate1Key, "/V1/Affiliate/Promotions", "1,2"},
		{"promotions of affiliate 2", ofAffiliate2Key, "/V1/Affiliate/Promotions", "1,3"},
		{"a merchant sees all its own, any dates", ofMerchant1Key, "/V1/Merchant/Promotions", "1,2,3,4"},
		{"affiliateId: the assigned affiliate", ofMerchant1Key, "/V1/Merchant/Coupons?affiliateId=2", "3"},
		{"affiliateContactName, any case", ofMerchant1Key, "/V1/Merchant/Coupons?affiliateContactName=ANN%20LEE", "1"},
		{"affiliateBusinessName never matches a public one", ofMerchant1Key, "/V1/Merchant/Promotions?affiliateBusinessName=lee%20media", "2"},
	}
	for _, tt := range lists {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(t, tt.key, tt.target); got != tt.want {
				t.Errorf("%s: ids %q, want %q", tt.target, got, tt.want)
			}
		})
	}
	long := strings.Repeat("é", 256)
	statuses := []struct {
		name, key, target string
		status            int
		message           string
	}{
		{"another affiliate's assigned promotion is a 404", ofAffiliate1Key, "/V1/Affiliate/Promotions/3", 404, ""},
		{"a promotion not yet created is a 404", ofAffiliate1Key, "/V1/Affiliate/Promotions/4", 404, ""},
		{"an unknown promotion is a 404", ofAffiliate1Key, "/V1/Affiliate/Promotions/99", 404, ""},
		{"a Pending member's promotion is a 404", ofAffiliate3Key, "/V1/Affiliate/Promotions/1", 404, ""},
		{"an id that is not an integer", ofAffiliate1Key, "/V1/Affiliate/Promotions/x", 400, ""},
		{"a merchantId that is not an integer", ofAffiliate1Key, "/V1/Affiliate/Coupons?merchantId=one", 400, ""},
		{"an affiliateId that is not an integer", ofMerchant1Key, "/V1/Merchant/Promotions?affiliateId=one", 400, ""},
		{"targetUrl not http(s)", ofAffiliate1Key, "/V1/Affiliate/Promotions/1?targetUrl=javascript:alert(1)", 400,
			`targetUrl: "javascript:alert(1)" is not an http or https URL`},
		{"targetUrl over 2,048 bytes", ofAffiliate1Key,
			"/V1/Affiliate/Promotions/1?targetUrl=https://shop.example.com/" + strings.Repeat("a", 2025), 400,
			"targetUrl: is 2050 bytes long; at most 2048"},
		{"targetUrl with a space", ofAffiliate1Key, "/V1/Affiliate/Promotions/1?targetUrl=https://shop.example.com/a%20b", 400,
			`targetUrl: "https://shop.example.com/a b" holds a space, a control character or a backslash, which a link must percent-encode`},
		{"targetUrl on a host the program does not allow", ofAffiliate1Key,
			"/V1/Affiliate/Promotions/1?targetUrl=https://evil.example/", 400,
			`targetUrl: "https://evil.example/" is not on a host the program allows`},
		{"targetUrl on a look-alike host", ofAffiliate1Key,
			"/V1/Affiliate/Promotions/1?targetUrl=https://shop.example.com.evil.test/", 400, ""},
		{"the landing URL passes", ofAffiliate1Key, "/V1/Affiliate/Promotions/1?targetUrl=https://shop.example.com/", 200, ""},
		{"uniqueId of 255 characters passes", ofAffiliate1Key, "/V1/Affiliate/Promotions/1?uniqueId4=" + url.QueryEscape(long[2:]), 200, ""},
		{"uniqueId over 255 characters", ofAffiliate1Key, "/V1/Affiliate/Promotions/1?uniqueId2=" + url.QueryEscape(long), 400,
			"uniqueId2: is 256 characters long; at most 255 are allowed"},
		{"a merchant key on the affiliate's function", ofMerchant1Key, "/V1/Affiliate/Coupons", 401, ""},
		{"an affiliate key on the merchant's function", ofAffiliate1Key, "/V1/Merchant/Coupons", 401, ""},
		{"no Coupons/{id}", ofAffiliate1Key, "/V1/Affiliate/Coupons/1", 404, ""},
	}
	for _, tt := range statuses {
		t.Run(tt.name, func(t *testing.T) {
			w := offerGet(h, tt.key, tt.target)
			if w.Code != tt.status {
				t.Fatalf("%s: %d %s, want %d", tt.target, w.Code, w.Body, tt.status)
			}
			if tt.message != "" && message(w.Body.String()) != tt.message {
				t.Errorf("message %q, want %q", message(w.Body.String()), tt.message)
			}
		})
	}
}

// ofClickNetwork adds to the tracking network (trNetwork) a promotion
// landing on an allowed host, one assigned to affiliate 1, and affiliate
// 4 Joined to merchant 1.
const ofClickNetwork = `{
  "Memberships": [{"AffiliateId": 4, "MerchantId": 1, "Status": "Joined"}],
  "Coupons": [{"MerchantId": 1, "Id": 2, "Code": "PUBLIC", "Description": "For all"}],
  "Promotions": [
    {"MerchantId": 1, "Id": 7, "Description": "Partner week", "TargetUrl": "https://week.partner.example/p"},
    {"MerchantId": 2, "Id": 8, "Description": "Ann only", "AffiliateId": 1}
  ]
}`

// TestOfferClicks: the c and o routes credit like banner clicks, as a
// Coupon or Promotion with the record's id, landing on its TargetUrl; a
// conversion credited by one records the creative.
func TestOfferClicks(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	d, err := importfile.Parse(strings.NewReader(ofClickNetwork), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqlstore.NewImportService(e.db).Import(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	creative := func(t *testing.T, c clickRow, ct afftrack.CreativeType, id int64, credited bool) {
		t.Helper()
		if c.CreativeType != int64(ct) || !c.CreativeID.Valid || c.CreativeID.Int64 != id || c.Credited != credited {
			t.Errorf("click %+v, want creative %v %d, credited %v", c, ct, id, credited)
		}
	}

	t.Run("a coupon link lands on the coupon's TargetUrl and credits a conversion", func(t *testing.T) {
		r := e.click("/t/1/c/1?UniqueId=sub")
		loc := r.Header.Get("Location")
		if r.StatusCode != http.StatusFound || !strings.HasPrefix(loc, trTarget1+"&afftrack_click=") {
			t.Fatalf("%d Location %q, want 302 to %s&afftrack_click=<id>", r.StatusCode, loc, trTarget1)
		}
		id := clickIDOf(loc)
		creative(t, e.waitClick("id", id), afftrack.CreativeTypeCoupon, 1, true)
		cr := e.convert(`{"ClickId":"` + id + `","OrderId":"COUPON-CLICK","SaleValue":100}`)
		if cr.StatusCode != http.StatusCreated {
			t.Fatalf("conversion: %d %s", cr.StatusCode, cr.body)
		}
		tr := e.findTransaction("COUPON-CLICK")
		if tr == nil || tr.AffiliateId != 1 || tr.CreativeType != "Coupon" || tr.CreativeId == nil || *tr.CreativeId != 1 ||
			tr.TrackingMethod != "Server" {
			t.Fatalf("transaction %+v, want affiliate 1's, Coupon 1, Server", tr)
		}
		var name string
		if err := e.db.SQL().QueryRow(`SELECT creative_name FROM transactions WHERE order_id = $1`,
			"COUPON-CLICK").Scan(&name); err != nil || name != "AFF1ONLY" {
			t.Errorf("CreativeName %q (%v), want the coupon's Code AFF1ONLY", name, err)
		}
	})
	t.Run("a promotion link lands on its TargetUrl, deep links to allowed hosts", func(t *testing.T) {
		id := e.creditedClick("/t/1/o/7")
		creative(t, e.waitClick("id", id), afftrack.CreativeTypePromotion, 7, true)
		deep := "https://shop.example.com/deep"
		r := e.click("/t/1/o/7?Url=" + url.QueryEscape(deep))
		if loc := r.Header.Get("Location"); !strings.HasPrefix(loc, deep+"?afftrack_click=") {
			t.Errorf("Location %q, want %s?afftrack_click=<id>", loc, deep)
		}
		r = e.click("/t/1/o/7")
		if loc := r.Header.Get("Location"); !strings.HasPrefix(loc, "https://week.partner.example/p?afftrack_click=") {
			t.Errorf("Location %q, want the promotion's TargetUrl", loc)
		}
	})
	t.Run("a promotion of merchant 2 credits merchant 2 with its ClickAppend", func(t *testing.T) {
		r := e.click("/t/1/o/8")
		loc := r.Header.Get("Location")
		if !strings.HasPrefix(loc, trTarget2+"?utm_source=afftrack&cid=") || !strings.Contains(loc, "&cr=8&ct=Promotion&") {
			t.Fatalf("Location %q", loc)
		}
	})
	t.Run("one assigned to another affiliate does not credit, but leads on", func(t *testing.T) {
		r := e.click("/t/4/c/1?UniqueId=x4")
		if r.StatusCode != http.StatusFound || r.Header.Get("Location") != trTarget1 || len(r.Header.Values("Set-Cookie")) != 0 {
			t.Fatalf("%d Location %q cookies %q, want an uncredited 302 to %s", r.StatusCode, r.Header.Get("Location"),
				r.Header.Values("Set-Cookie"), trTarget1)
		}
		creative(t, e.waitClick("unique_id", "x4"), afftrack.CreativeTypeCoupon, 1, false)
		// Its public coupon credits affiliate 4.
		id := e.creditedClick("/t/4/c/2")
		c := e.waitClick("id", id)
		creative(t, c, afftrack.CreativeTypeCoupon, 2, true)
		if c.AffiliateID != 4 {
			t.Errorf("click of affiliate %d, want 4", c.AffiliateID)
		}
	})
	t.Run("unknown records are 404", func(t *testing.T) {
		for _, p := range []string{"/t/1/c/99", "/t/1/o/99", "/t/1/o/1", "/t/1/c/x"} {
			if r := e.click(p); r.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s: %d, want 404", p, r.StatusCode)
			}
		}
	})
}

package api

// Fuzz tests of the tracking routes. This file is an internal test (package
// api) so FuzzConversionBody can call the parser directly; FuzzClickQuery
// serves its requests through the real handler on a real in-memory store.

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/clickbuf"
	"github.com/afftrack/afftrack/internal/importfile"
	"github.com/afftrack/afftrack/internal/linkcache"
	"github.com/afftrack/afftrack/internal/ratelimit"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// tfConversionSeeds are valid and invalid conversion bodies.
var tfConversionSeeds = []string{
	`{"ClickId":"0123456789abcdef0123456789abcdef","OrderId":"o-1","SaleValue":120.5}`,
	`{"clickid":"0123456789ABCDEF0123456789ABCDEF","orderid":"o-1","SALEVALUE":25,"CurrencyCode":"usd","CustomerType":"return"}`,
	`{"OrderId":"o-2","CouponCode":"AFF1ONLY","Items":[{"Sku":"A","Quantity":2,"SaleValue":10.5,"Category":"Shoes"},{"SaleValue":4.5}]}`,
	`{"OrderId":"o-3","SaleValue":15,"Items":[{"SaleValue":10.5},{"SaleValue":4.5}],"ConsumptionDate":"2024-01-02T03:04:05.678+10:00",` +
		`"AdditionalNotes":"n","CustomerCountryCode":"AU"}`,
	`{"OrderId":null,"SaleValue":null,"Items":null}`,
	"{\"OrderId\":\"a\xff\",\"SaleValue\":1}", `{"OrderId":"a\ud800","SaleValue":1}`, `{"OrderId":"a\ud83d\ude00","SaleValue":1}`,
	`{"OrderId":"a","SaleValue":01}`,
	`hello`, ``, `[]`, `[{"OrderId":"a","SaleValue":1}]`, `{"OrderId":"a","SaleValue":1}{}`, `{"OrderId":"a","SaleValue":1} 1`,
	`{"OrderId":"a",`, `{"OrderId":"a","SaleValue":1,"Colour":"red"}`,
	`{"OrderId":"a","orderid":"b","SaleValue":1}`, `{"SaleValue":1}`, `{"OrderId":12345,"SaleValue":1}`,
	`{"OrderId":"a","SaleValue":"10"}`, `{"OrderId":"a","SaleValue":-1}`, `{"OrderId":"a","SaleValue":0}`,
	`{"OrderId":"a","SaleValue":1.23456}`, `{"OrderId":"a","SaleValue":1e3}`, `{"OrderId":"a","SaleValue":1E-2}`,
	`{"OrderId":"a","SaleValue":100,"Items":[{"SaleValue":50}]}`, `{"OrderId":"a","Items":{}}`,
	`{"OrderId":"a","Items":[{"SaleValue":1,"Colour":"red"}]}`, `{"OrderId":"a","Items":[{"SaleValue":1,"Quantity":0}]}`,
	`{"OrderId":"a","Items":[{"SaleValue":1,"Quantity":1.5}]}`, `{"OrderId":"a","Items":[{"SaleValue":1.234}]}`,
	`{"OrderId":"a","Items":[{"SaleValue":0}]}`, `{"OrderId":"a","SaleValue":1,"CurrencyCode":"XYZ"}`,
	`{"OrderId":"a","SaleValue":1,"CustomerType":"Old"}`, `{"OrderId":"a","SaleValue":1,"ClickId":"nothex"}`,
	`{"OrderId":"a","SaleValue":1,"ConsumptionDate":"yesterday"}`, `{"OrderId":"a","SaleValue":1,"CustomerCountryCode":"ZZ"}`,
	`{"OrderId":"a","SaleValue":99999999999999999999999999}`, `{"OrderId":"a","SaleValue":1,"ConsumptionDate":"9999-12-31T23:59:59-12:00"}`,
	`{"OrderId":"a","Items":[{"SaleValue":9999999999999999},{"SaleValue":9999999999999999}]}`,
	"{\"OrderId\":\"\xff\",\"SaleValue\":1}", `{"OrderId":"\ud800","SaleValue":1}`,
}

// FuzzConversionBody: whatever the body, the parser and the checks end in
// a conversion that keeps the contract's bounds or an EINVALID error (a
// 400), never a panic.
func FuzzConversionBody(f *testing.F) {
	for _, s := range tfConversionSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := parseConversionBody(body)
		if err != nil {
			if afftrack.ErrorCode(err) != afftrack.EINVALID || afftrack.ErrorMessage(err) == "" {
				t.Fatalf("parse error %v (code %q), want an EINVALID with a message", err, afftrack.ErrorCode(err))
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("a body that is not one valid JSON document was accepted: %q", body)
		}
		c, err := in.conversion(7, "AUD", time.UTC)
		if err != nil {
			if afftrack.ErrorCode(err) != afftrack.EINVALID || afftrack.ErrorMessage(err) == "" {
				t.Fatalf("conversion error %v (code %q), want an EINVALID with a message", err, afftrack.ErrorCode(err))
			}
			return
		}
		if c == nil {
			t.Fatal("no conversion and no error")
		}
		switch {
		case c.MerchantID != 7:
			t.Fatalf("MerchantID %d", c.MerchantID)
		case c.OrderID == "" || utf8.RuneCountInString(c.OrderID) > afftrack.MaxOrderIDLength:
			t.Fatalf("OrderID %q accepted", c.OrderID)
		case !utf8.ValidString(c.OrderID + c.CouponCode + c.AdditionalNotes.Value):
			t.Fatalf("text that is not UTF-8 accepted: %q", c.OrderID+c.CouponCode+c.AdditionalNotes.Value)
		case strings.ContainsRune(c.OrderID+c.CouponCode+c.AdditionalNotes.Value, utf8.RuneError) &&
			!bytes.Contains(body, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`)):
			// Only a U+FFFD the body wrote may come out: the decoder's own
			// replacement of bad bytes would merge different OrderIds.
			t.Fatalf("U+FFFD made of a body that held none: %q", body)
		case c.SaleValue > afftrack.MaxSaleValue:
			t.Fatalf("SaleValue %d above the largest sale accepted", c.SaleValue)
		case c.ClickID != "" && !afftrack.IsClickID(c.ClickID):
			t.Fatalf("ClickID %q accepted", c.ClickID)
		case c.SaleValue <= 0:
			t.Fatalf("SaleValue %d accepted", c.SaleValue)
		case len(c.CurrencyCode) != 3:
			t.Fatalf("CurrencyCode %q accepted", c.CurrencyCode)
		}
		if _, ok := afftrack.CurrencyName(c.CurrencyCode); !ok {
			t.Fatalf("CurrencyCode %q accepted", c.CurrencyCode)
		}
		var sum int64
		for _, it := range c.Items {
			if it.Quantity < 1 || it.SaleValue < 0 {
				t.Fatalf("item %+v accepted", it)
			}
			sum += int64(it.SaleValue)
		}
		if len(c.Items) > 0 && int64(c.SaleValue) != sum*100 {
			t.Fatalf("SaleValue %d is not the items' sum %d", c.SaleValue, sum)
		}
		// What is accepted has a stable fingerprint: the same body parsed
		// again is the same conversion (a retry answers 200, not 409).
		in2, err := parseConversionBody(body)
		if err != nil {
			t.Fatalf("second parse: %v", err)
		}
		c2, err := in2.conversion(7, "AUD", time.UTC)
		if err != nil || c2.Fingerprint() != c.Fingerprint() {
			t.Fatalf("the same body parsed twice differs: %v", err)
		}
	})
}

// tfNetwork is FuzzClickQuery's network: merchant 1 (deep links to
// partner.example), banner 1 of merchant 1 on another host, merchant 2
// with a ClickAppend of every shortcode and banner 2; affiliate 1 joined
// to both, affiliate 2 joined to none.
const tfNetwork = `{
  "Merchants": [
    {"Id": 1, "Name": "Shop One", "AvatarUrl": "https://cdn.example.com/1.png", "Status": "Active",
     "Program": {"TargetUrl": "https://shop.example.com/landing?ref=net", "AllowedDomains": ["partner.example"],
                 "Commission": {"Percent": 10}}},
    {"Id": 2, "Name": "Shop Two", "AvatarUrl": "https://cdn.example.com/2.png", "Status": "Active",
     "Program": {"TargetUrl": "https://m2.example.net/#top",
                 "ClickAppend": "cid=[ClickId]&aff=[AffiliateId]&cr=[CreativeId]&ct=[CreativeType]&u=[UniqueId]&u2=[UniqueId2]&u3=[UniqueId3]&u4=[UniqueId4]",
                 "Commission": {"Flat": 5}}}
  ],
  "Affiliates": [
    {"Id": 1, "ContactName": "Ann", "BusinessName": "", "Status": "Active"},
    {"Id": 2, "ContactName": "Nat", "BusinessName": "", "Status": "Active"}
  ],
  "Memberships": [
    {"AffiliateId": 1, "MerchantId": 1, "Status": "Joined"},
    {"AffiliateId": 1, "MerchantId": 2, "Status": "Joined"}
  ],
  "Banners": [
    {"MerchantId": 1, "Id": 1, "DateCreated": "2024-01-01T00:00:00.000", "DateModified": "2024-01-01T00:00:00.000",
     "GroupName": "G", "Name": "B1", "TargetUrl": "https://promo.bannerhost.example/summer",
     "Width": 468, "Height": 60, "ImageUrl": "https://cdn.example.com/b1.png", "AltText": "B1"},
    {"MerchantId": 2, "Id": 2, "DateCreated": "2024-01-01T00:00:00.000", "DateModified": "2024-01-01T00:00:00.000",
     "GroupName": "G", "Name": "B2", "TargetUrl": "https://m2.example.net/banner?x=1#frag",
     "Width": 728, "Height": 90, "ImageUrl": "https://cdn.example.com/b2.png", "AltText": "B2"}
  ]
}`

// tfLinks are the click paths FuzzClickQuery picks from, with the hosts a
// redirect of each may lead to (a host matches its subdomains).
var tfLinks = []struct {
	path    string
	allowed []string
}{
	{"/t/1/b/1", []string{"promo.bannerhost.example", "shop.example.com", "partner.example"}},
	{"/t/1/t/1", []string{"shop.example.com", "partner.example"}},
	{"/t/1/b/2", []string{"m2.example.net"}},
	{"/t/1/t/2", []string{"m2.example.net"}},
	{"/t/2/t/1", []string{"shop.example.com", "partner.example"}}, // not joined: uncredited
	{"/t/9/t/1", nil}, // unknown affiliate: 404
}

// FuzzClickQuery: whatever query a click carries, the real handler answers
// 302, 404 or 503, never another 5xx or a panic, and a redirect leads only
// to an allowed host.
func FuzzClickQuery(f *testing.F) {
	for _, s := range []string{
		"", "UniqueId=a&UniqueId2=b&UniqueId3=c&UniqueId4=d", "Url=https%3A%2F%2Fdeals.partner.example%2Fx%3Fy%3D1",
		"url=https://evil.com/", "Url=%2F%2Fevil.com", "Url=javascript:alert(1)", "Url=https:%5C%5Cevil.com",
		"Url=https%3A%2F%2Fpartner.example%40evil.com%2F", "Url=https%3A%2F%2F%2565vil.com%2F",
		"Url=https%3A%2F%2Fpartner.example%0D%0ASet-Cookie:x=1", "Url=data:text/html,x", "%zz=1&Url=%",
		"UniqueId=" + strings.Repeat("%FF", 300), "UniqueId=%00&UniqueId2=%ED%A0%80", "Url=https://partner.example.&Url=https://evil.com",
		"Url=https://[::1]:80/", "Url=http://0x7f.1/", "Url=https://xn--pple-43d.com/", "a=b;Url=https://evil.com",
		"apiKey=x&callback=alert&contentType=text/html",
	} {
		for i := range tfLinks {
			f.Add(uint8(i), s)
		}
	}
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, "sqlite::memory:")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		f.Fatal(err)
	}
	d, err := importfile.Parse(strings.NewReader(tfNetwork), time.UTC)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := sqlstore.NewImportService(db).Import(ctx, d); err != nil {
		f.Fatal(err)
	}
	store := sqlstore.NewClickService(db)
	key, err := store.IPHashKey(ctx)
	if err != nil {
		f.Fatal(err)
	}
	var writeErr atomic.Value
	clicks := clickbuf.New(store, clickbuf.Options{FlushInterval: 5 * time.Millisecond,
		OnError: func(err error) { writeErr.Store(err.Error()) }})
	f.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = clicks.Close(cctx)
	})
	h := NewServer(Config{PublicURL: "http://track.example", Currency: "AUD", Location: time.UTC}, Services{
		Accounts:     sqlstore.NewAccountService(db),
		Transactions: sqlstore.NewTransactionService(db),
		Banners:      sqlstore.NewBannerService(db),
		Invoices:     sqlstore.NewInvoiceService(db),
		RateLimiter:  ratelimit.NewMemory(),
		Tracking:     linkcache.New(store, linkcache.Options{}),
		Clicks:       clicks,
		Conversions:  sqlstore.NewConversionService(db, "AUD", time.Now),
		IPHashKey:    key,
	}, nil, time.Now).Handler()

	f.Fuzz(func(t *testing.T, pick uint8, raw string) {
		link := tfLinks[int(pick)%len(tfLinks)]
		req := httptest.NewRequest(http.MethodGet, link.path, nil)
		req.URL.RawQuery = raw
		req.RequestURI = link.path + "?" + raw
		req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		switch rec.Code {
		case http.StatusFound:
		case http.StatusNotFound, http.StatusServiceUnavailable:
			if link.allowed != nil && rec.Code == http.StatusNotFound {
				t.Fatalf("%s?%s: 404 on a link that exists: %s", link.path, raw, rec.Body)
			}
			return
		default:
			t.Fatalf("%s?%s: status %d %s, want 302, 404 or 503", link.path, raw, rec.Code, rec.Body)
		}
		loc := rec.Header().Get("Location")
		if strings.ContainsFunc(loc, func(r rune) bool { return r < ' ' || r == 0x7f || r == '\\' }) {
			t.Fatalf("%s?%s: Location %q holds a control character or backslash", link.path, raw, loc)
		}
		u, err := url.Parse(loc)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Opaque != "" {
			t.Fatalf("%s?%s: Location %q is not a plain http(s) URL", link.path, raw, loc)
		}
		host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
		ok := false
		for _, a := range link.allowed {
			if host == a || strings.HasSuffix(host, "."+a) {
				ok = true
			}
		}
		if !ok {
			t.Fatalf("%s?%s: Location %q leads to %q, not one of %v", link.path, raw, loc, host, link.allowed)
		}
		if e, _ := writeErr.Load().(string); e != "" {
			t.Fatalf("writing clicks failed: %s", e)
		}
	})
}

// FuzzValidationsBody: a validations body is refused as a whole (an
// EINVALID with a message), or read into at most MaxValidations rows, each
// with an Action of its own or a Problem that changes nothing, never a
// panic; a row read whole keeps only the fields its Action takes.
func FuzzValidationsBody(f *testing.F) {
	for _, s := range []string{
		`[{"Id": 1, "Action": "Approve"}]`,
		`[{"OrderId": "A-1", "Action": "Void", "VoidReason": "Cancelled Order"}]`,
		`[{"orderid": "A-2", "action": "amend", "amendedReason": "incorrect sale value", "SaleValue": 50.5,` +
			` "Items": [{"Sku": "X", "SaleValue": 50.5}]}]`,
		`[{"OrderId": "A-3", "Action": "Approve", "SaleValue": 5, "Items": []}]`,
		"\ufeff[]", `[1, "x", null, {}]`, `{}`, `[{"Id": -1}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rows, err := parseValidations(body)
		if err != nil {
			if afftrack.ErrorCode(err) != afftrack.EINVALID || afftrack.ErrorMessage(err) == "" {
				t.Fatalf("parse error %v (code %q), want an EINVALID with a message", err, afftrack.ErrorCode(err))
			}
			return
		}
		if len(rows) > afftrack.MaxValidations {
			t.Fatalf("%d rows accepted", len(rows))
		}
		for i, v := range rows {
			if v.Problem != "" {
				continue
			}
			switch v.Action {
			case afftrack.ActionApprove:
				if v.VoidReason != 0 || v.AmendedReason != 0 || v.SaleValue.Valid || v.Items != nil {
					t.Fatalf("row %d: an Approve kept another Action's field: %+v", i, v)
				}
			case afftrack.ActionVoid:
				if v.AmendedReason != 0 || v.SaleValue.Valid || v.Items != nil {
					t.Fatalf("row %d: a Void kept another Action's field: %+v", i, v)
				}
			case afftrack.ActionAmend:
				if v.VoidReason != 0 {
					t.Fatalf("row %d: an Amend kept a VoidReason: %+v", i, v)
				}
			}
			if v.SaleValue.Valid && (v.SaleValue.Value <= 0 || v.SaleValue.Value > afftrack.MaxSaleValue) {
				t.Fatalf("row %d: SaleValue %d accepted", i, v.SaleValue.Value)
			}
		}
	})
}

package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

func TestConversionCreated(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	id := e.creditedClick("/t/1/b/1")
	body := fmt.Sprintf(`{"ClickId":%q,"OrderId":"order-1","SaleValue":120.5,"CustomerType":"Return"}`, id)
	r := e.convert(body)
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("status %d %s, want 201", r.StatusCode, r.body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	loc := r.Header.Get("Location")
	if !strings.HasPrefix(loc, e.srv.URL+"/V1/Merchant/Transactions/") {
		t.Fatalf("Location %q, want %s/V1/Merchant/Transactions/{id}", loc, e.srv.URL)
	}
	got := e.do(http.MethodGet, loc, nil, "X-Api-Key", trMerchant1Key)
	if got.StatusCode != http.StatusOK || got.body != r.body {
		t.Errorf("the 201's body is not GET Location's:\n201: %s\nGET: %d %s", r.body, got.StatusCode, got.body)
	}
	var tx trTransaction
	if err := json.Unmarshal([]byte(r.body), &tx); err != nil {
		t.Fatal(err)
	}
	if tx.AffiliateId != 1 || tx.TrackingMethod != "Server" || tx.CreativeType != "Banner" ||
		tx.CreativeId == nil || *tx.CreativeId != 1 || tx.Status2 != "Pending" || tx.OrderId != "order-1" {
		t.Errorf("transaction %+v", tx)
	}
	if !strings.Contains(r.body, `"SaleValue":120.5000`) || !strings.Contains(r.body, `"Commission":12.0500`) {
		t.Errorf("amounts: %s", r.body)
	}

	t.Run("the same again is 200 with the same body", func(t *testing.T) {
		again := e.convert(body)
		if again.StatusCode != http.StatusOK || again.body != r.body {
			t.Errorf("repeat: %d %s\nwant 200 %s", again.StatusCode, again.body, r.body)
		}
		if again.Header.Get("Location") != loc {
			t.Errorf("repeat Location %q, want %q", again.Header.Get("Location"), loc)
		}
		if n := e.transactionCount("order-1"); n != 1 {
			t.Errorf("%d transactions stored for order-1", n)
		}
	})
	t.Run("other content with the same OrderId is 409", func(t *testing.T) {
		c := e.convert(fmt.Sprintf(`{"ClickId":%q,"OrderId":"order-1","SaleValue":99}`, id))
		if c.StatusCode != http.StatusConflict || message(c.body) == "" {
			t.Errorf("%d %s, want 409 with a Message", c.StatusCode, c.body)
		}
	})
	t.Run("XML", func(t *testing.T) {
		x := e.convert(fmt.Sprintf(`{"ClickId":%q,"OrderId":"order-xml","SaleValue":10}`, id),
			"X-Api-Key", trMerchant1Key, "Accept", "application/xml")
		if x.StatusCode != http.StatusCreated {
			t.Fatalf("%d %s", x.StatusCode, x.body)
		}
		if ct := x.Header.Get("Content-Type"); ct != "application/xml; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		if !strings.HasPrefix(x.body, "<Transaction ") {
			t.Errorf("body %s", x.body)
		}
		got := e.do(http.MethodGet, x.Header.Get("Location"), nil, "X-Api-Key", trMerchant1Key, "Accept", "application/xml")
		if got.body != x.body {
			t.Errorf("the 201's XML is not GET Location's:\n201: %s\nGET: %s", x.body, got.body)
		}
		again := e.convert(fmt.Sprintf(`{"ClickId":%q,"OrderId":"order-xml","SaleValue":10}`, id),
			"X-Api-Key", trMerchant1Key, "Accept", "application/xml")
		if again.StatusCode != http.StatusOK || again.body != x.body {
			t.Errorf("XML repeat: %d %s", again.StatusCode, again.body)
		}
	})
	t.Run("an exclusive coupon credits without a click", func(t *testing.T) {
		c := e.convert(`{"OrderId":"coupon-1","SaleValue":50,"CouponCode":"AFF1ONLY"}`)
		if c.StatusCode != http.StatusCreated {
			t.Fatalf("%d %s", c.StatusCode, c.body)
		}
		var tx trTransaction
		_ = json.Unmarshal([]byte(c.body), &tx)
		if tx.TrackingMethod != "Clickless" || tx.AffiliateId != 1 || tx.CreativeType != "Coupon" {
			t.Errorf("coupon transaction %+v", tx)
		}
	})
}

func TestConversionNotCreditable(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	r2 := e.click("/t/1/t/2") // merchant 2's click; its ClickAppend names it cid
	other, _, _ := strings.Cut(strings.TrimPrefix(r2.Header.Get("Location"), trTarget2+"?utm_source=afftrack&cid="), "&")
	e.waitClick("id", other)
	e.do(http.MethodGet, "/t/4/t/1?UniqueId=nc-uncredited", nil, "User-Agent", trBrowserUA)
	uncredited := e.waitClick("unique_id", "nc-uncredited").ID
	for _, tt := range []struct{ name, body string }{
		{"no click and no coupon", `{"OrderId":"nc-1","SaleValue":10}`},
		{"an unknown click", `{"OrderId":"nc-2","SaleValue":10,"ClickId":"0123456789abcdef0123456789abcdef"}`},
		{"another merchant's click", fmt.Sprintf(`{"OrderId":"nc-3","SaleValue":10,"ClickId":%q}`, other)},
		{"an uncredited click", fmt.Sprintf(`{"OrderId":"nc-4","SaleValue":10,"ClickId":%q}`, uncredited)},
		{"a public or unknown coupon", `{"OrderId":"nc-5","SaleValue":10,"CouponCode":"NOPE"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.convert(tt.body)
			if r.StatusCode != http.StatusUnprocessableEntity || message(r.body) == "" {
				t.Errorf("%d %s, want 422 with a Message", r.StatusCode, r.body)
			}
			var order struct{ OrderId string }
			_ = json.Unmarshal([]byte(tt.body), &order)
			if n := e.transactionCount(order.OrderId); n != 0 {
				t.Errorf("%d transactions stored", n)
			}
		})
	}
}

func TestConversionAuthAndMethod(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	body := `{"OrderId":"auth-1","SaleValue":10,"CouponCode":"AFF1ONLY"}`
	for _, tt := range []struct {
		name   string
		header []string
	}{
		{"no key", []string{"Accept", "application/json"}},
		{"an affiliate's key", []string{"X-Api-Key", trAffiliate1Key}},
		{"an unknown key", []string{"X-Api-Key", "no-such-key-0123456789abcdef"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.convert(body, tt.header...)
			if r.StatusCode != http.StatusUnauthorized || message(r.body) == "" {
				t.Errorf("%d %s, want 401", r.StatusCode, r.body)
			}
		})
	}
	if n := e.transactionCount("auth-1"); n != 0 {
		t.Errorf("an unauthenticated conversion was stored")
	}
	t.Run("the key as apiKey works", func(t *testing.T) {
		r := e.do(http.MethodPost, "/V1/Merchant/Conversions?apiKey="+trMerchant1Key, strings.NewReader(body))
		if r.StatusCode != http.StatusCreated {
			t.Errorf("%d %s", r.StatusCode, r.body)
		}
	})
	t.Run("GET is 405", func(t *testing.T) {
		for _, path := range []string{"/V1/Merchant/Conversions", "/v1/merchant/conversions/"} {
			r := e.do(http.MethodGet, path, nil, "X-Api-Key", trMerchant1Key)
			if r.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("GET %s: %d, want 405", path, r.StatusCode)
			}
			if allow := r.Header.Get("Allow"); allow != "POST" {
				t.Errorf("GET %s: Allow %q, want POST", path, allow)
			}
			if message(r.body) == "" {
				t.Errorf("GET %s: body %s", path, r.body)
			}
		}
	})
}

func TestConversionBadRequest(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	id := e.creditedClick("/t/1/t/1")
	valid := func(extra string) string {
		return fmt.Sprintf(`{"ClickId":%q,"OrderId":"bad-x","SaleValue":10%s}`, id, extra)
	}
	items := func(items string) string {
		return fmt.Sprintf(`{"ClickId":%q,"OrderId":"bad-x","Items":%s}`, id, items)
	}
	tests := []struct {
		name, body, field string
	}{
		{"not JSON", `hello`, "body"},
		{"empty", ``, "body"},
		{"a JSON array", `[{"OrderId":"a","SaleValue":1}]`, "body"},
		{"two JSON values", valid("") + `{}`, "body"},
		{"two JSON values, the second a number", valid("") + ` 1`, "body"},
		{"trailing garbage after the object", valid("") + `x`, "body"},
		{"a stray bracket after the object", valid("") + `]`, "body"},
		{"truncated", `{"OrderId":"a",`, "JSON"},
		{"an unknown field", valid(`,"Colour":"red"`), "Colour"},
		{"a duplicate field in another case", valid(`,"orderid":"b"`), "OrderId"},
		{"OrderId missing", fmt.Sprintf(`{"ClickId":%q,"SaleValue":10}`, id), "OrderId"},
		{"OrderId empty", fmt.Sprintf(`{"ClickId":%q,"OrderId":"","SaleValue":10}`, id), "OrderId"},
		{"OrderId too long", fmt.Sprintf(`{"ClickId":%q,"OrderId":%q,"SaleValue":10}`, id, strings.Repeat("o", 256)), "OrderId"},
		{"OrderId a number", fmt.Sprintf(`{"ClickId":%q,"OrderId":12345,"SaleValue":10}`, id), "OrderId"},
		{"OrderId an object", fmt.Sprintf(`{"ClickId":%q,"OrderId":{},"SaleValue":10}`, id), "OrderId"},
		{"SaleValue a string", fmt.Sprintf(`{"ClickId":%q,"OrderId":"b","SaleValue":"10"}`, id), "SaleValue"},
		{"SaleValue negative", fmt.Sprintf(`{"ClickId":%q,"OrderId":"b","SaleValue":-1}`, id), "SaleValue"},
		{"SaleValue 0", fmt.Sprintf(`{"ClickId":%q,"OrderId":"b","SaleValue":0}`, id), "SaleValue"},
		{"SaleValue 5 fractional digits", fmt.Sprintf(`{"ClickId":%q,"OrderId":"b","SaleValue":1.23456}`, id), "SaleValue"},
		{"SaleValue a boolean", fmt.Sprintf(`{"ClickId":%q,"OrderId":"b","SaleValue":true}`, id), "SaleValue"},
		{"SaleValue missing", fmt.Sprintf(`{"ClickId":%q,"OrderId":"b"}`, id), "SaleValue"},
		{"SaleValue not the Items' sum", valid(`,"Items":[{"SaleValue":4},{"SaleValue":5}]`), "SaleValue"},
		{"Items not an array", items(`{"SaleValue":10}`), "Items"},
		{"Items an array of numbers", items(`[1]`), "Items"},
		{"an item's unknown field", items(`[{"SaleValue":10,"Colour":"red"}]`), "Colour"},
		{"an item's Quantity 0", items(`[{"SaleValue":10,"Quantity":0}]`), "Quantity"},
		{"an item's Quantity 1.5", items(`[{"SaleValue":10,"Quantity":1.5}]`), "Quantity"},
		{"an item's Quantity a string", items(`[{"SaleValue":10,"Quantity":"2"}]`), "Quantity"},
		{"an item's SaleValue 3 fractional digits", items(`[{"SaleValue":1.234}]`), "SaleValue"},
		{"an item without SaleValue", items(`[{"Sku":"A"}]`), "SaleValue"},
		{"CurrencyCode XYZ", valid(`,"CurrencyCode":"XYZ"`), "CurrencyCode"},
		{"CustomerType Old", valid(`,"CustomerType":"Old"`), "CustomerType"},
		{"ClickId not hex", `{"ClickId":"nothex","OrderId":"b","SaleValue":10}`, "ClickId"},
		{"ConsumptionDate yesterday", valid(`,"ConsumptionDate":"yesterday"`), "ConsumptionDate"},
		{"ConsumptionDate so late the validation date passes 9999", valid(`,"ConsumptionDate":"9999-12-31"`), "ConsumptionDate"},
		{"OrderId of 256 characters", fmt.Sprintf(`{"ClickId":%q,"OrderId":%q,"SaleValue":10}`, id, strings.Repeat("€", 256)), "OrderId"},
		{"CustomerCountryCode ZZ", valid(`,"CustomerCountryCode":"ZZ"`), "CustomerCountryCode"},
		{"OrderId with invalid UTF-8", fmt.Sprintf("{\"ClickId\":%q,\"OrderId\":\"b\xff\",\"SaleValue\":10}", id), "OrderId"},
		{"OrderId with a lone surrogate", fmt.Sprintf(`{"ClickId":%q,"OrderId":"b\ud800","SaleValue":10}`, id), "OrderId"},
		{"OrderId with a lone low surrogate", fmt.Sprintf(`{"ClickId":%q,"OrderId":"b\uDC00x","SaleValue":10}`, id), "OrderId"},
		{"OrderId with a high surrogate before a letter", fmt.Sprintf(`{"ClickId":%q,"OrderId":"b\ud83dx","SaleValue":10}`, id), "OrderId"},
		{"AdditionalNotes with invalid UTF-8", valid("," + "\"AdditionalNotes\":\"\xfe\""), "AdditionalNotes"},
		{"SaleValue with a leading zero", fmt.Sprintf(`{"ClickId":%q,"OrderId":"b","SaleValue":01}`, id), "SaleValue"},
		{"SaleValue in hexadecimal", fmt.Sprintf(`{"ClickId":%q,"OrderId":"b","SaleValue":0x10}`, id), "SaleValue"},
		{"an empty field name", valid(`,"":1`), `""`},
		{"Items adding up past the largest sale", items(`[` + strings.TrimSuffix(strings.Repeat(`{"SaleValue":999999999999.99},`, 2), ",") + `]`), "SaleValue"},
		{"a body over 64 KiB", valid(`,"AdditionalNotes":"` + strings.Repeat("n", 70<<10) + `"`), "65536"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.convert(tt.body)
			msg := message(r.body)
			if r.StatusCode != http.StatusBadRequest {
				t.Fatalf("%d %s, want 400 naming %s", r.StatusCode, r.body, tt.field)
			}
			if !strings.Contains(msg, tt.field) {
				t.Errorf("message %q does not name %s", msg, tt.field)
			}
		})
	}
	t.Run("a boolean where a number goes is told so", func(t *testing.T) {
		r := e.convert(fmt.Sprintf(`{"ClickId":%q,"OrderId":"b","SaleValue":true}`, id))
		if msg := message(r.body); msg != "SaleValue: must be a JSON number" {
			t.Errorf("message %q, want %q", msg, "SaleValue: must be a JSON number")
		}
	})
	if n := e.transactionCount("bad-x") + e.transactionCount("b"); n != 0 {
		t.Errorf("%d transactions stored by bad requests", n)
	}
}

func TestConversionFieldNamesIgnoreCase(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	id := e.creditedClick("/t/1/t/1")
	r := e.convert(fmt.Sprintf(`{"clickid":%q,"orderid":"ci-1","SALEVALUE":25,"items":[{"SKU":"A","saleValue":25,"QUANTITY":2,"category":"Shoes"}]}`, id))
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("%d %s", r.StatusCode, r.body)
	}
	var tx trTransaction
	if err := json.Unmarshal([]byte(r.body), &tx); err != nil {
		t.Fatal(err)
	}
	if tx.OrderId != "ci-1" || tx.SaleValue != "25.0000" || len(tx.Items) != 1 || tx.Items[0].Sku != "A" ||
		tx.Items[0].Quantity != 2 || tx.Items[0].Category != "Shoes" || tx.AffiliateId != 1 {
		t.Errorf("transaction %+v", tx)
	}
}

// TestConversionOrderIdCountsCharacters: OrderId's bound is 255
// characters (tracking.md section 3), whatever bytes they take.
func TestConversionOrderIdCountsCharacters(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	id := e.creditedClick("/t/1/t/1")
	order := strings.Repeat("€", 255) // 765 bytes
	r := e.convert(fmt.Sprintf(`{"ClickId":%q,"OrderId":%q,"SaleValue":10}`, id, order))
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("%d %s, want 201", r.StatusCode, r.body)
	}
	if n := e.transactionCount(order); n != 1 {
		t.Errorf("%d transactions of the OrderId, want 1", n)
	}
}

func TestConversionsAreNotRateLimited(t *testing.T) {
	e := newTrackingEnv(t, trOptions{limits: afftrack.Limits{PerMinute: 1}})
	for i := range 3 {
		id := e.creditedClick("/t/1/t/1")
		r := e.convert(fmt.Sprintf(`{"ClickId":%q,"OrderId":"rl-%d","SaleValue":10}`, id, i))
		if r.StatusCode != http.StatusCreated {
			t.Fatalf("conversion %d: %d %s, want 201", i+1, r.StatusCode, r.body)
		}
	}
	list := "/V1/Merchant/Transactions?fromDate=2000-01-01&toDate=2100-01-01"
	if r := e.do(http.MethodGet, list, nil, "X-Api-Key", trMerchant1Key); r.StatusCode != http.StatusOK {
		t.Fatalf("first list after three conversions: %d, want 200 (conversions must not use the budget)", r.StatusCode)
	}
	if r := e.do(http.MethodGet, list, nil, "X-Api-Key", trMerchant1Key); r.StatusCode != http.StatusTooManyRequests {
		t.Errorf("second list: %d, want 429", r.StatusCode)
	}
	id := e.creditedClick("/t/1/t/1")
	r := e.convert(fmt.Sprintf(`{"ClickId":%q,"OrderId":"rl-after","SaleValue":10}`, id))
	if r.StatusCode != http.StatusCreated {
		t.Errorf("a conversion while the list is limited: %d %s, want 201", r.StatusCode, r.body)
	}
	// Contract section 5: every authenticated answer reports the budget,
	// a conversion's too, though it spends none.
	if got := [3]string{r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"),
		r.Header.Get("X-RateLimit-Reset")}; got[0] != "1" || got[1] != "0" || got[2] == "" || got[2] == "0" {
		t.Errorf("a conversion after the minute's call: X-RateLimit-Limit, -Remaining, -Reset %q, want 1, 0 and the seconds left", got)
	}
}

func TestConversionReportsTheBudgetItDoesNotSpend(t *testing.T) {
	e := newTrackingEnv(t, trOptions{limits: afftrack.Limits{PerMinute: 30}})
	for i := range 2 {
		id := e.creditedClick("/t/1/t/1")
		r := e.convert(fmt.Sprintf(`{"ClickId":%q,"OrderId":"budget-%d","SaleValue":10}`, id, i))
		if r.StatusCode != http.StatusCreated {
			t.Fatalf("conversion %d: %d %s", i, r.StatusCode, r.body)
		}
		got := [3]string{r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"), r.Header.Get("X-RateLimit-Reset")}
		if want := [3]string{"30", "30", "0"}; got != want {
			t.Errorf("conversion %d: X-RateLimit-Limit, -Remaining, -Reset %q, want %q", i, got, want)
		}
	}
	r := e.convert(`{"OrderId":"budget-bad","SaleValue":"ten"}`)
	if r.StatusCode != http.StatusBadRequest || r.Header.Get("X-RateLimit-Remaining") != "30" {
		t.Errorf("a malformed conversion: %d with X-RateLimit-Remaining %q, want 400 and 30", r.StatusCode,
			r.Header.Get("X-RateLimit-Remaining"))
	}
	if r := e.convert(`{"OrderId":"x","SaleValue":10}`, "X-Api-Key", "wrong"); r.Header.Get("X-RateLimit-Limit") != "" {
		t.Errorf("an unauthenticated conversion carries X-RateLimit-Limit %q", r.Header.Get("X-RateLimit-Limit"))
	}
}

// TestConversionTextWithNUL: a JSON string may hold \u0000; bad input of
// any kind is a 4xx, never a 5xx (contract section 6), on every backend.
// Runs on PostgreSQL too when storetest.PostgresEnv is set.
func TestConversionTextWithNUL(t *testing.T) {
	for _, backend := range storetest.Backends(t) {
		t.Run(backend, func(t *testing.T) {
			e := newTrackingEnv(t, trOptions{backend: backend})
			for i, extra := range []string{`"OrderId":"nul\u0000-1"`, `"OrderId":"nul-2","AdditionalNotes":"a\u0000b"`,
				`"OrderId":"nul-3","Items":[{"Sku":"\u0000","SaleValue":10}]`} {
				id := e.creditedClick("/t/1/t/1")
				r := e.convert(fmt.Sprintf(`{"ClickId":%q,"SaleValue":10,%s}`, id, extra))
				if r.StatusCode >= 500 {
					t.Errorf("body %d (%s): %d %s, want 201 or a 4xx", i, extra, r.StatusCode, r.body)
				}
			}
		})
	}
}

// TestConversionAnnouncingTooLargeABody announces a body beyond the bound
// and sends none of it: it is refused at once, without waiting for the
// body that never comes.
func TestConversionAnnouncingTooLargeABody(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	res, b := rawConversion(t, e, "Content-Length: 100000000\r\n\r\n")
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "larger than 65536 bytes") {
		t.Errorf("%d %s, want 400 saying the body is too large", res.StatusCode, b)
	}
	if !res.Close { // ReadResponse takes Connection: close into Close
		t.Error("the connection is kept, want it closed: the body was not read")
	}
}

// unwritableClicks holds clicks it cannot write, as a click buffer does
// while the database refuses writes.
type unwritableClicks struct{}

func (unwritableClicks) Add(afftrack.Click) bool { return true }
func (unwritableClicks) Flush(context.Context) error {
	return errors.New("write clicks: database or disk is full")
}

// TestConversionOfAClickNotYetWritable: a conversion whose click may be
// among those this process holds but cannot write is a 503 to retry, not
// a 422 that tells the merchant nothing will ever credit it.
func TestConversionOfAClickNotYetWritable(t *testing.T) {
	e := newTrackingEnv(t, trOptions{clicks: unwritableClicks{}})
	id := e.creditedClick("/t/1/b/1")
	r := e.convert(fmt.Sprintf(`{"ClickId":%q,"OrderId":"held-1","SaleValue":10}`, id))
	if r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" ||
		!strings.Contains(message(r.body), "Send the conversion again") {
		t.Errorf("conversion of a held click: %d, Retry-After %q, %s; want a 503 to retry", r.StatusCode,
			r.Header.Get("Retry-After"), r.body)
	}
	if n := e.transactionCount("held-1"); n != 0 {
		t.Errorf("%d transactions stored, want none", n)
	}
}

// TestConversionWithAMalformedChunkedBody: a chunked body that is not
// well formed is refused at once, saying so, not blamed on the clock.
func TestConversionWithAMalformedChunkedBody(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	for _, tt := range []struct{ name, chunks string }{
		{"a chunk size that is not a number", "zz\r\n{}\r\n0\r\n\r\n"},
		{"a chunk longer than its size", "2\r\n{\"OrderId\":1}\r\n0\r\n\r\n"},
	} {
		t.Run(tt.name+" is a 400 saying the encoding is malformed", func(t *testing.T) {
			res, b := rawConversion(t, e, "Transfer-Encoding: chunked\r\n\r\n"+tt.chunks)
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "chunked encoding is malformed") {
				t.Errorf("%d %s, want 400 saying the chunked encoding is malformed", res.StatusCode, b)
			}
		})
	}
}

// rawConversion sends merchant 1's conversion over a connection of its
// own, its request line and key written here and the rest (the body's
// framing headers, the blank line, the body) as given, and returns the
// answer, read within 5 s (the body's own deadline is 10 s).
func rawConversion(t *testing.T, e *trEnv, rest string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /V1/Merchant/Conversions HTTP/1.1\r\nHost: x\r\nX-Api-Key: %s\r\n"+
		"Content-Type: application/json\r\n%s", trMerchant1Key, rest)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer within 5 s: %v", err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, b
}

// TestABodyAfterAByteOrderMark: a UTF-8 byte order mark before a JSON
// body, which some platforms' writers put first, is skipped, as RFC 8259
// allows, for a conversion and for validations alike.
func TestABodyAfterAByteOrderMark(t *testing.T) {
	e := newValidationEnv(t, afftrack.Limits{})
	t.Run("a conversion is recorded", func(t *testing.T) {
		r := e.convert("\ufeff" + `{"OrderId":"BOM-1","SaleValue":5,"CouponCode":"AFF1ONLY"}`)
		if r.StatusCode != http.StatusCreated {
			t.Errorf("status %d %s, want 201", r.StatusCode, r.body)
		}
	})
	t.Run("validations are applied", func(t *testing.T) {
		r := e.validate("", "\ufeff"+`[{"OrderId":"BOM-1","Action":"Approve"}]`)
		if r.StatusCode != http.StatusOK || !strings.Contains(r.body, `"Status2":"Locked","Error":null`) {
			t.Errorf("status %d %s, want 200 and the row Locked", r.StatusCode, r.body)
		}
	})
	t.Run("a mark anywhere else is no JSON", func(t *testing.T) {
		r := e.convert(" \ufeff" + `{"OrderId":"BOM-2","SaleValue":5,"CouponCode":"AFF1ONLY"}`)
		if r.StatusCode != http.StatusBadRequest {
			t.Errorf("status %d %s, want 400", r.StatusCode, r.body)
		}
	})
}

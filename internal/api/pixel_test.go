package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
)

// checkPixel checks that r is the pixel: 200, a 43-byte GIF, not cached.
func checkPixel(t *testing.T, r trResponse) {
	t.Helper()
	if r.StatusCode != http.StatusOK {
		t.Errorf("status %d, want 200", r.StatusCode)
	}
	if ct := r.Header.Get("Content-Type"); ct != "image/gif" {
		t.Errorf("Content-Type %q, want image/gif", ct)
	}
	if len(r.body) != 43 || !strings.HasPrefix(r.body, "GIF89a") {
		t.Errorf("body %q (%d bytes), want a 43-byte GIF89a", r.body, len(r.body))
	}
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	if r.Header.Get("Location") != "" || len(r.Header.Values("Set-Cookie")) != 0 {
		t.Errorf("the pixel redirects or sets a cookie: %v", r.Header)
	}
}

func TestPixel(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})

	t.Run("ClickId in the query", func(t *testing.T) {
		id := e.creditedClick("/t/1/b/1")
		r := e.click("/t/px/1?ClickId=" + id + "&OrderId=px-1&SaleValue=19.95")
		checkPixel(t, r)
		tx := e.findTransaction("px-1")
		if tx == nil {
			t.Fatal("the pixel's conversion was not stored")
		}
		if tx.TrackingMethod != "Cookie" || tx.AffiliateId != 1 || tx.SaleValue != "19.9500" || tx.CreativeType != "Banner" {
			t.Errorf("transaction %+v, want affiliate 1, Cookie, 19.9500", tx)
		}
	})

	t.Run("click from the cookie the redirect set", func(t *testing.T) {
		click := e.click("/t/1/t/1")
		set := click.Header.Get("Set-Cookie")
		cookie, _, _ := strings.Cut(set, ";")
		if !strings.HasPrefix(cookie, "afftrack_1=") {
			t.Fatalf("Set-Cookie %q", set)
		}
		r := e.click("/t/px/1?orderid=px-2&salevalue=15&Sku=A&Quantity=2&ItemSaleValue=10.50&Category=Shoes"+
			"&Sku=B&Quantity=1&ItemSaleValue=4.50&Category=Hats", "Cookie", cookie)
		checkPixel(t, r)
		tx := e.findTransaction("px-2")
		if tx == nil {
			t.Fatal("the pixel's conversion was not stored")
		}
		if tx.TrackingMethod != "Cookie" || tx.AffiliateId != 1 || tx.SaleValue != "15.0000" || tx.CreativeType != "Text Link" {
			t.Errorf("transaction %+v", tx)
		}
		if len(tx.Items) != 2 ||
			tx.Items[0].Sku != "A" || tx.Items[0].Quantity != 2 || tx.Items[0].SaleValue != "10.50" || tx.Items[0].Category != "Shoes" ||
			tx.Items[1].Sku != "B" || tx.Items[1].Quantity != 1 || tx.Items[1].SaleValue != "4.50" || tx.Items[1].Category != "Hats" {
			t.Errorf("items %+v, want A x2 10.50 Shoes, B x1 4.50 Hats", tx.Items)
		}
	})

	t.Run("items alone give the SaleValue", func(t *testing.T) {
		id := e.creditedClick("/t/1/t/1")
		checkPixel(t, e.click("/t/px/1?ClickId="+id+"&OrderId=px-3&Sku=A&ItemSaleValue=7&Sku=B&ItemSaleValue=3"))
		if tx := e.findTransaction("px-3"); tx == nil || tx.SaleValue != "10.0000" || len(tx.Items) != 2 {
			t.Errorf("transaction %+v, want SaleValue 10.0000 from two items", tx)
		}
	})

	t.Run("an item parameter left empty keeps its item's place", func(t *testing.T) {
		id := e.creditedClick("/t/1/t/1")
		checkPixel(t, e.click("/t/px/1?ClickId="+id+"&OrderId=px-empty&ItemSaleValue=100&ItemSaleValue=1"+
			"&Category=&Category=Hats&Sku=&Sku=B&Quantity=&Quantity=5&Name=&Brand="))
		tx := e.findTransaction("px-empty")
		if tx == nil {
			t.Fatal("the pixel's conversion was not stored")
		}
		if len(tx.Items) != 2 ||
			tx.Items[0].Sku != "" || tx.Items[0].Quantity != 1 || tx.Items[0].SaleValue != "100.00" || tx.Items[0].Category != "" ||
			tx.Items[1].Sku != "B" || tx.Items[1].Quantity != 5 || tx.Items[1].SaleValue != "1.00" || tx.Items[1].Category != "Hats" {
			t.Errorf("items %+v, want 100.00 of no Sku or Category x1, then B x5 1.00 Hats", tx.Items)
		}
	})

	t.Run("items whose every parameter is empty are none", func(t *testing.T) {
		id := e.creditedClick("/t/1/t/1")
		checkPixel(t, e.click("/t/px/1?ClickId="+id+"&OrderId=px-no-items&SaleValue=12&Sku=&ItemSaleValue=&Category="))
		if tx := e.findTransaction("px-no-items"); tx == nil || tx.SaleValue != "12.0000" || len(tx.Items) != 0 {
			t.Errorf("transaction %+v, want SaleValue 12.0000 and no items", tx)
		}
	})

	t.Run("items whose every parameter is empty do not count toward the 500", func(t *testing.T) {
		id := e.creditedClick("/t/1/t/1")
		checkPixel(t, e.click("/t/px/1?ClickId="+id+"&OrderId=px-empty-501&SaleValue=12"+strings.Repeat("&Sku=&ItemSaleValue=", 501)))
		if tx := e.findTransaction("px-empty-501"); tx == nil || len(tx.Items) != 0 {
			t.Errorf("transaction %+v, want one without items", tx)
		}
	})

	t.Run("the query's ClickId wins over the cookie", func(t *testing.T) {
		id := e.creditedClick("/t/1/t/1")
		checkPixel(t, e.click("/t/px/1?ClickId="+id+"&OrderId=px-4&SaleValue=5",
			"Cookie", "afftrack_1=ffffffffffffffffffffffffffffffff"))
		if tx := e.findTransaction("px-4"); tx == nil {
			t.Error("not stored")
		}
	})

	id := e.creditedClick("/t/1/t/1")
	for _, tt := range []struct {
		name, path, order string
		header            []string
	}{
		{"no OrderId", "/t/px/1?ClickId=" + id + "&SaleValue=10", "", nil},
		{"a bad SaleValue", "/t/px/1?ClickId=" + id + "&OrderId=px-bad-1&SaleValue=abc", "px-bad-1", nil},
		{"an unknown click", "/t/px/1?ClickId=0123456789abcdef0123456789abcdef&OrderId=px-bad-2&SaleValue=10", "px-bad-2", nil},
		{"no click at all", "/t/px/1?OrderId=px-bad-3&SaleValue=10", "px-bad-3", nil},
		{"a cookie of another merchant", "/t/px/1?OrderId=px-bad-4&SaleValue=10", "px-bad-4", []string{"Cookie", "afftrack_2=" + id}},
		{"a bad ClickId", "/t/px/1?ClickId=nothex&OrderId=px-bad-5&SaleValue=10", "px-bad-5", nil},
		{"an item's Quantity 0", "/t/px/1?ClickId=" + id + "&OrderId=px-bad-6&Sku=A&Quantity=0&ItemSaleValue=1", "px-bad-6", nil},
		{"a non-numeric merchant", "/t/px/abc?ClickId=" + id + "&OrderId=px-bad-7&SaleValue=10", "px-bad-7", nil},
		{"an unknown merchant", "/t/px/999?ClickId=" + id + "&OrderId=px-bad-8&SaleValue=10", "", nil},
		{"a huge merchant id", "/t/px/99999999999999999999?OrderId=x", "", nil},
		{"501 items", "/t/px/1?ClickId=" + id + "&OrderId=px-bad-12" + strings.Repeat("&Sku=s&ItemSaleValue=1", 501), "px-bad-12", nil},
		{"a SaleValue given twice", "/t/px/1?ClickId=" + id + "&OrderId=px-bad-9&SaleValue=5&salevalue=6", "px-bad-9", nil},
		{"an OrderId given twice", "/t/px/1?ClickId=" + id + "&OrderId=px-bad-10&OrderId=px-bad-11&SaleValue=5", "px-bad-10", nil},
		{"garbage in the query", "/t/px/1?%zz=%zz&OrderId=" + url.QueryEscape("\x00") + "&SaleValue=1e400", "", nil},
		{"a CurrencyCode not correctly percent-encoded", "/t/px/1?ClickId=" + id + "&OrderId=px-bad-13&SaleValue=5&CurrencyCode=USD%zz", "px-bad-13", nil},
		{"a Category not correctly percent-encoded", "/t/px/1?ClickId=" + id + "&OrderId=px-bad-14&Sku=A&ItemSaleValue=1&category=Shoes%zz", "px-bad-14", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checkPixel(t, e.click(tt.path, tt.header...))
			if tt.order != "" {
				if n := e.transactionCount(tt.order); n != 0 {
					t.Errorf("%d transactions stored for a bad pixel", n)
				}
			}
		})
	}
	t.Run("a notification of this service is answered the GIF and records nothing", func(t *testing.T) {
		r := e.do(http.MethodGet, "/t/px/1?ClickId="+id+"&OrderId=px-loop&SaleValue=5", nil,
			"User-Agent", afftrack.NotificationUserAgent)
		checkPixel(t, r)
		if n := e.transactionCount("px-loop"); n != 0 {
			t.Errorf("a notification made %d transactions, want none", n)
		}
	})
	t.Run("a GET with a body is answered the GIF and records nothing", func(t *testing.T) {
		for _, path := range []string{"/t/px/1", "/T/PX/1", "/t/px/1/", "/t/px/1%2F"} {
			r := e.do(http.MethodGet, path+"?ClickId="+id+"&OrderId=px-body&SaleValue=5", strings.NewReader("x=1"),
				"User-Agent", trBrowserUA)
			checkPixel(t, r)
			if !r.Close { // the client takes Connection: close into Close
				t.Errorf("%s: the connection is kept, want it closed: the body is not read", path)
			}
		}
		if n := e.transactionCount("px-body"); n != 0 {
			t.Errorf("a GET with a body made %d transactions, want none", n)
		}
	})
	t.Run("a GET with a body to a path the pixel's route does not take is the API's 400", func(t *testing.T) {
		for _, path := range []string{"/t/px/", "/t/px/..", "/t%2Fpx/1", "/t/px/1/2"} {
			r := e.do(http.MethodGet, path, strings.NewReader("x=1"), "User-Agent", trBrowserUA)
			if r.StatusCode != http.StatusBadRequest || r.Header.Get("Content-Type") == "image/gif" {
				t.Errorf("%s: %d %s, want the API's 400", path, r.StatusCode, r.Header.Get("Content-Type"))
			}
		}
	})
	t.Run("HEAD answers the GIF's headers and records nothing", func(t *testing.T) {
		r := e.do(http.MethodHead, "/t/px/1?ClickId="+id+"&OrderId=px-head&SaleValue=5", nil)
		if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "image/gif" {
			t.Errorf("HEAD: %d %q", r.StatusCode, r.Header.Get("Content-Type"))
		}
		if n := e.transactionCount("px-head"); n != 0 {
			t.Errorf("HEAD stored %d transactions", n)
		}
	})
	t.Run("a field given twice with the same value is one", func(t *testing.T) {
		checkPixel(t, e.click("/t/px/1?ClickId="+id+"&OrderId=px-twice&SaleValue=5&SaleValue=5"))
		if n := e.transactionCount("px-twice"); n != 1 {
			t.Errorf("%d transactions stored, want 1", n)
		}
	})
}

// conversionObserver records the conversions' outcomes a server reports.
type conversionObserver struct {
	mu          sync.Mutex
	conversions []string
}

func (o *conversionObserver) ObserveRequest(string, string, int, time.Duration) {}
func (o *conversionObserver) RateLimited(afftrack.AccountKind)                  {}
func (o *conversionObserver) Conversion(outcome string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.conversions = append(o.conversions, outcome)
}

// TestRefusedPixelsAreCountedAsInvalid: a pixel refused before its
// conversion reaches the store is counted, as tracking.md says every
// pixel's outcome is.
func TestRefusedPixelsAreCountedAsInvalid(t *testing.T) {
	obs := &conversionObserver{}
	e := newTrackingEnv(t, trOptions{observer: obs})
	checkPixel(t, e.click("/t/px/1?OrderId=px-c-1&SaleValue=abc"))
	checkPixel(t, e.click("/t/px/abc?OrderId=px-c-2&SaleValue=1"))
	checkPixel(t, e.do(http.MethodGet, "/t/px/1?OrderId=px-c-3&SaleValue=1", nil,
		"User-Agent", afftrack.NotificationUserAgent))
	checkPixel(t, e.do(http.MethodGet, "/t/px/1?OrderId=px-c-4&SaleValue=1", strings.NewReader("x")))
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if diff := cmp.Diff([]string{"invalid", "invalid", "invalid", "invalid"}, obs.conversions); diff != "" {
		t.Errorf("conversions counted (-want +got):\n%s", diff)
	}
}

func TestRefusedConversionsAreCounted(t *testing.T) {
	obs := &conversionObserver{}
	e := newTrackingEnv(t, trOptions{observer: obs})
	for _, body := range []string{`garbage`, `{"OrderId":"","SaleValue":1}`, `{"OrderId":"c-1","SaleValue":1,"CurrencyCode":"XXX"}`} {
		if r := e.convert(body); r.StatusCode/100 != 4 {
			t.Fatalf("%s: %d, want a 4xx", body, r.StatusCode)
		}
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if diff := cmp.Diff([]string{"invalid", "invalid", "invalid"}, obs.conversions); diff != "" {
		t.Errorf("conversions counted (-want +got):\n%s", diff)
	}
}

// TestStoreFailuresOnTrackingPathsAreLoggedAsInternalErrors: the pixel
// and a link's redirect answer a GIF and a page of their own, not the
// API's error body, but a store failure behind them is logged as every
// other internal error is, for an operator who alerts on those.
func TestStoreFailuresOnTrackingPathsAreLoggedAsInternalErrors(t *testing.T) {
	for _, tt := range []struct{ name, path string }{
		{"a pixel's conversion", "/t/px/1?OrderId=px-failed&SaleValue=5&ClickId=0123456789abcdef0123456789abcdef"},
		{"a link not seen before", "/t/1/t/2"},
	} {
		t.Run(tt.name+" logs the store's failure as an internal error", func(t *testing.T) {
			logs := &logSink{}
			e := newTrackingEnv(t, trOptions{logger: slog.New(slog.NewTextHandler(logs, nil))})
			if err := e.db.Close(); err != nil {
				t.Fatal(err)
			}
			e.click(tt.path)
			if got := logs.String(); !strings.Contains(got, `level=ERROR msg="internal error"`) {
				t.Errorf("log has no internal error line:\n%s", got)
			}
		})
	}
}

// logSink keeps a live server's log lines, written concurrently.
type logSink struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestAVisitorWhoLeftIsNoInternalError: a click or a pixel whose visitor
// went away while the store was asked is logged as a client gone, not as
// an internal error, as every other request is.
func TestAVisitorWhoLeftIsNoInternalError(t *testing.T) {
	for _, tt := range []struct{ name, path string }{
		{"a link not seen before", "/t/1/t/2"},
		{"a pixel's conversion", "/t/px/1?OrderId=px-gone&SaleValue=5&ClickId=0123456789abcdef0123456789abcdef"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logs := &logSink{}
			e := newTrackingEnv(t, trOptions{logger: slog.New(slog.NewTextHandler(logs, nil))})
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			req := httptest.NewRequestWithContext(ctx, http.MethodGet, tt.path, nil)
			req.Header.Set("User-Agent", trBrowserUA)
			func() {
				defer func() {
					if p := recover(); p != nil && p != http.ErrAbortHandler {
						panic(p)
					}
				}()
				e.server.Handler().ServeHTTP(httptest.NewRecorder(), req)
			}()
			if got := logs.String(); strings.Contains(got, "internal error") || !strings.Contains(got, "client went away") {
				t.Errorf("a visitor who left was not logged as a client gone:\n%s", got)
			}
		})
	}
}

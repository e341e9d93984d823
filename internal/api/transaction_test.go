package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

const listTarget = "/V1/Merchant/Transactions?fromDate=2000-01-01&toDate=2000-01-31"

func TestTransactionsParameterErrors(t *testing.T) {
	tests := []struct {
		name  string
		query string
		want  string
	}{
		{"a missing fromDate", "toDate=2000-01-01", `fromDate: is required`},
		{"an empty fromDate", "fromDate=&toDate=2000-01-01", `fromDate: is required`},
		{"an impossible fromDate", "fromDate=2024-13-01&toDate=2000-01-01", `fromDate: "2024-13-01" is not a date; use YYYY-MM-DD`},
		{"a fromDate of another shape", "fromDate=01/02/2024&toDate=2000-01-01", `fromDate: "01/02/2024" is not a date; use YYYY-MM-DD`},
		{"a missing toDate", "fromDate=2000-01-01", `toDate: is required`},
		{"a February 30th toDate", "fromDate=2000-01-01&toDate=2023-02-30", `toDate: "2023-02-30" is not a date; use YYYY-MM-DD`},
		{"a bad dateProperty", "fromDate=2000-01-01&toDate=2000-01-02&dateProperty=Foo", `dateProperty: "Foo" is not one of DateCreated, DateModified`},
		{"a non-integer affiliateId", "fromDate=2000-01-01&toDate=2000-01-02&affiliateId=x", `affiliateId: "x" is not an integer`},
		{"a signed affiliateId", "fromDate=2000-01-01&toDate=2000-01-02&affiliateId=%2B5", `affiliateId: "+5" is not an integer`},
		{"a decimal affiliateId", "fromDate=2000-01-01&toDate=2000-01-02&affiliateId=1.0", `affiliateId: "1.0" is not an integer`},
		{"an affiliateId beyond int64", "fromDate=2000-01-01&toDate=2000-01-02&affiliateId=9223372036854775808", `affiliateId: "9223372036854775808" is out of range`},
		{"an unknown trafficType", "fromDate=2000-01-01&toDate=2000-01-02&trafficType=Radio", `trafficType: "Radio" is not one of Website, Email List, Social Media Page, Search, Mobile App, Other`},
		{"an unknown creativeType", "fromDate=2000-01-01&toDate=2000-01-02&creativeType=Video", `creativeType: "Video" is not one of Text Link, Banner, Coupon, Promotion, Data Feed`},
		{"a non-integer creativeId", "fromDate=2000-01-01&toDate=2000-01-02&creativeId=-", `creativeId: "-" is not an integer`},
		{"an unknown customerType", "fromDate=2000-01-01&toDate=2000-01-02&customerType=Old", `customerType: "Old" is not one of New, Return`},
		{"an unknown trackingMethod", "fromDate=2000-01-01&toDate=2000-01-02&trackingMethod=Pixel", `trackingMethod: "Pixel" is not one of Affiliate, Clickless, Cookie, Manual, Mobile App, Server, Other`},
		{"a non-boolean trafficSourceApproved", "fromDate=2000-01-01&toDate=2000-01-02&trafficSourceApproved=yes", `trafficSourceApproved: "yes" is not a boolean; use true or false`},
		{"an unknown status", "fromDate=2000-01-01&toDate=2000-01-02&status=Paid", `status: "Paid" is not one of Pending, Approved, Void`},
		{"an unknown status2", "fromDate=2000-01-01&toDate=2000-01-02&status2=X", `status2: "X" is not one of Pending, Locked, Approved, Paid, Void`},
		{"a non-integer invoiceId", "fromDate=2000-01-01&toDate=2000-01-02&invoiceId=12a", `invoiceId: "12a" is not an integer`},
		{"an unknown voidReason", "fromDate=2000-01-01&toDate=2000-01-02&voidReason=Boredom", `voidReason: "Boredom" is not one of Attributed to Different Channel, Cancelled Order, Compliance Breach, Fraudulent Transaction, Non-Commissionable Transaction, Order Nonfulfillment, Payment Authorisation Failed, Repeated / Duplicate Order, Returned Order / Unclaimed Shipment, Self Referral, Test Transaction`},
		{"an unknown amendedReason", "fromDate=2000-01-01&toDate=2000-01-02&amendedReason=Whim", `amendedReason: "Whim" is not one of Cart Items Edited, Incorrect Commission, Incorrect Currency, Incorrect Sale Value, Partial Order Return`},
		{"a badly escaped fromDate", "fromDate=2000-01-01%zz&toDate=2000-01-02", `fromDate: "2000-01-01%zz" is not correctly percent-encoded`},
		{"a badly escaped status2", "fromDate=2000-01-01&toDate=2000-01-02&status2=Void%zz", `status2: "Void%zz" is not correctly percent-encoded`},
		{"a badly escaped affiliateId", "fromDate=2000-01-01&toDate=2000-01-02&affiliateId=2%25%", `affiliateId: "2%25%" is not correctly percent-encoded`},
		{"a badly escaped orderId", "fromDate=2000-01-01&toDate=2000-01-02&orderId=T1%G0", `orderId: "T1%G0" is not correctly percent-encoded`},
		{"an orderId with NUL", "fromDate=2000-01-01&toDate=2000-01-02&orderId=T1%00x", `orderId: holds a control character or invalid UTF-8, which no stored text has`},
		{"an affiliateContactName of invalid UTF-8", "fromDate=2000-01-01&toDate=2000-01-02&affiliateContactName=%FF", `affiliateContactName: holds a control character or invalid UTF-8, which no stored text has`},
		{"the first bad parameter in table order", "fromDate=2000-01-01&toDate=2000-01-02&amendedReason=Whim&affiliateId=x", `affiliateId: "x" is not an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a 400 naming it", func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", "/V1/Merchant/Transactions?"+tt.query, "X-Api-Key", merchantKey)
			mustStatus(t, w, http.StatusBadRequest)
			if diff := cmp.Diff(tt.want, jsonMessage(w.Body.String())); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTransactionsFilter(t *testing.T) {
	day := func(s string) time.Time { return dt(s + "T00:00:00.000") }
	tests := []struct {
		name  string
		query string
		want  afftrack.TransactionFilter
	}{
		{"dates keep only their date and zone is ignored", "fromDate=2000-01-01T23:30:00%2B10:00&toDate=2000-01-31%2012:00",
			afftrack.TransactionFilter{MerchantID: 1, From: day("2000-01-01"), To: day("2000-01-31")}},
		{"dates in the wrong order are swapped", "fromDate=2000-02-01&toDate=2000-01-01T05:00Z",
			afftrack.TransactionFilter{MerchantID: 1, From: day("2000-01-01"), To: day("2000-02-01")}},
		{"dateProperty ignores case", "fromDate=2000-01-01&toDate=2000-01-01&dateProperty=datemodified",
			afftrack.TransactionFilter{MerchantID: 1, From: day("2000-01-01"), To: day("2000-01-01"), DateProperty: afftrack.ByDateModified}},
		{"every filter is read, names in any case, empty values absent, first non-empty value wins",
			"FROMDATE=2000-01-01&todate=2000-01-02&DateProperty=DateCreated&AffiliateId=&affiliateid=-7&affiliateId=9" +
				"&affiliateContactName=john+smith&affiliateBusinessName=Example%20Pty%20Ltd&trafficType=email%20list" +
				"&trafficSource=https://x.example/&creativeType=BANNER&creativeId=0&creativeName=Spring" +
				"&customerCountryCode=aus&customerCountryName=Australia&customerIpAddress=0123&customerType=return" +
				"&orderId=T0001&trackingMethod=mobile+app&trafficSourceApproved=FALSE&status=void&status2=paid" +
				"&invoiceId=12345&voidReason=self%20referral&amendedReason=incorrect%20currency&unknown=1",
			afftrack.TransactionFilter{
				MerchantID: 1, From: day("2000-01-01"), To: day("2000-01-02"),
				AffiliateID:           afftrack.Some[int64](-7),
				AffiliateContactName:  afftrack.Some("john smith"),
				AffiliateBusinessName: afftrack.Some("Example Pty Ltd"),
				TrafficType:           afftrack.TrafficTypeEmailList,
				TrafficSource:         afftrack.Some("https://x.example/"),
				CreativeType:          afftrack.CreativeTypeBanner,
				CreativeID:            afftrack.Some[int64](0),
				CreativeName:          afftrack.Some("Spring"),
				CustomerCountryCode:   afftrack.Some("aus"),
				CustomerCountryName:   afftrack.Some("Australia"),
				CustomerIPAddress:     afftrack.Some("0123"),
				CustomerType:          afftrack.CustomerTypeReturn,
				OrderID:               afftrack.Some("T0001"),
				TrackingMethod:        afftrack.TrackingMethodMobileApp,
				TrafficSourceApproved: afftrack.Some(false),
				Status:                afftrack.StatusVoid,
				Status2:               afftrack.Status2Paid,
				InvoiceID:             afftrack.Some[int64](12345),
				VoidReason:            afftrack.VoidReasonSelfReferral,
				AmendedReason:         afftrack.AmendedReasonIncorrectCurrency,
			}},
		{"integers reach the int64 limits", "fromDate=2000-01-01&toDate=2000-01-01&affiliateId=-9223372036854775808&invoiceId=9223372036854775807",
			afftrack.TransactionFilter{MerchantID: 1, From: day("2000-01-01"), To: day("2000-01-01"),
				AffiliateID: afftrack.Some[int64](-9223372036854775808), InvoiceID: afftrack.Some[int64](9223372036854775807)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", "/V1/Merchant/Transactions?"+tt.query, "X-Api-Key", merchantKey)
			mustStatus(t, w, http.StatusOK)
			if diff := cmp.Diff(tt.want, h.tx.lastFilter()); diff != "" {
				t.Errorf("filter (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTransactionsList(t *testing.T) {
	ids := func(body string) []string {
		var out []string
		for _, part := range strings.Split(body, `{"Id":`)[1:] {
			out = append(out, part[:strings.IndexByte(part, ',')])
		}
		return out
	}
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"a merchant sees only its own transactions, by date then id", "fromDate=2000-01-01&toDate=2000-01-31", []string{"1", "2", "3"}},
		{"the range includes the whole of toDate", "fromDate=2000-01-02&toDate=2000-01-02", []string{"3"}},
		{"dateProperty DateModified ranges over DateModified", "fromDate=2000-01-05&toDate=2000-01-05&dateProperty=DateModified", []string{"2"}},
		{"text filters match the whole value in any case", listTarget[strings.IndexByte(listTarget, '?')+1:] + "&affiliateBusinessName=example+pty+ltd", []string{"1"}},
		{"a text filter never matches part of a value", listTarget[strings.IndexByte(listTarget, '?')+1:] + "&affiliateBusinessName=example", nil},
		{"status filters on the derived status", listTarget[strings.IndexByte(listTarget, '?')+1:] + "&status=Approved", []string{"1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", "/V1/Merchant/Transactions?"+tt.query, "X-Api-Key", merchantKey)
			mustStatus(t, w, http.StatusOK)
			if diff := cmp.Diff(tt.want, ids(w.Body.String())); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTransactionByID(t *testing.T) {
	tests := []struct {
		name       string
		path       string
		wantStatus int
		wantBody   string
	}{
		{"an own transaction is returned", "/V1/Merchant/Transactions/2", 200, `{"Id":2,`},
		{"another merchant's transaction is not found", "/V1/Merchant/Transactions/4", 404, `{"Message":"The requested item could not be found."}`},
		{"a transaction that does not exist is not found", "/V1/Merchant/Transactions/99", 404, `{"Message":"The requested item could not be found."}`},
		{"a non-integer id is a 400", "/V1/Merchant/Transactions/abc", 400, `{"Message":"id: \"abc\" is not an integer"}`},
		{"an id beyond int64 is a 400", "/V1/Merchant/Transactions/99999999999999999999", 400, `{"Message":"id: \"99999999999999999999\" is out of range"}`},
		{"the id is echoed as written, not lower-cased", "/v1/merchant/transactions/ABC", 400, `{"Message":"id: \"ABC\" is not an integer"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", tt.path, "X-Api-Key", merchantKey)
			mustStatus(t, w, tt.wantStatus)
			if !strings.HasPrefix(w.Body.String(), tt.wantBody) {
				t.Errorf("body = %s, want prefix %s", w.Body.String(), tt.wantBody)
			}
		})
	}
}

func TestTransactionsStreaming(t *testing.T) {
	t.Run("the list is written as rows arrive and the rate-limit slot is held until the end", func(t *testing.T) {
		h := newHarness(t)
		rows := 0
		h.tx.onRow = func() {
			rows++
			if got := h.limiter.released.Load(); got != 0 {
				t.Errorf("slot released during row %d, want held until the response is complete", rows)
			}
		}
		w := h.do("GET", listTarget, "X-Api-Key", merchantKey)
		mustStatus(t, w, http.StatusOK)
		if rows != 3 {
			t.Errorf("rows = %d, want 3", rows)
		}
		if got := h.limiter.released.Load(); got != 1 {
			t.Errorf("released = %d after the response, want 1", got)
		}
	})

	t.Run("a store failing before any row is a 500", func(t *testing.T) {
		h := newHarness(t)
		h.tx.err, h.tx.failAfter = errStore, 0
		w := h.do("GET", listTarget, "X-Api-Key", merchantKey)
		mustStatus(t, w, http.StatusInternalServerError)
		if diff := cmp.Diff(`{"Message":"`+messageInternal+`"}`, w.Body.String()); diff != "" {
			t.Errorf("body (-want +got):\n%s", diff)
		}
		if !strings.Contains(h.logs.String(), errStore.Error()) {
			t.Errorf("the cause is not logged:\n%s", h.logs.String())
		}
	})

	t.Run("a store's refusal with its cause is a 503 to retry, and its cause is logged", func(t *testing.T) {
		h := newHarness(t)
		h.tx.err, h.tx.failAfter = &afftrack.Error{Code: afftrack.EUNAVAILABLE, Message: "no space left", Cause: errStore}, 0
		w := h.do("GET", listTarget, "X-Api-Key", merchantKey)
		mustStatus(t, w, http.StatusServiceUnavailable)
		if w.Header().Get("Retry-After") == "" || jsonMessage(w.Body.String()) != "no space left" {
			t.Errorf("Retry-After %q, body %s; want a Retry-After and the refusal's message",
				w.Header().Get("Retry-After"), w.Body.String())
		}
		if logs := h.logs.String(); !strings.Contains(logs, "level=ERROR msg=unavailable") || !strings.Contains(logs, errStore.Error()) {
			t.Errorf("the cause is not logged as an error:\n%s", logs)
		}
	})

	t.Run("a bound of the server's own, wrapped or not, is a 503 with no error logged", func(t *testing.T) {
		h := newHarness(t)
		h.tx.err, h.tx.failAfter = fmt.Errorf("record: %w", afftrack.Errorf(afftrack.EUNAVAILABLE, "busy")), 0
		w := h.do("GET", listTarget, "X-Api-Key", merchantKey)
		mustStatus(t, w, http.StatusServiceUnavailable)
		if logs := h.logs.String(); strings.Contains(logs, "level=ERROR") {
			t.Errorf("an error is logged:\n%s", logs)
		}
	})

	t.Run("a store failing mid-stream aborts the response so the client sees it truncated", func(t *testing.T) {
		h := newHarness(t)
		h.tx.err, h.tx.failAfter = errStore, 2
		srv := httptest.NewServer(h.srv.Handler())
		defer srv.Close()
		req, _ := http.NewRequest("GET", srv.URL+listTarget, nil)
		req.Header.Set("X-Api-Key", merchantKey)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("status = %d, want 200 (the stream had started)", res.StatusCode)
		}
		body, err := io.ReadAll(res.Body)
		if err == nil {
			t.Fatalf("the body read completely, want a truncated response; body: %s", body)
		}
		if !strings.HasPrefix(string(body), `[{"Id":1,`) || strings.HasSuffix(string(body), "]") {
			t.Errorf("body = %s, want the rows so far and no closing bracket", body)
		}
		if !strings.Contains(h.logs.String(), errStore.Error()) {
			t.Errorf("the cause is not logged:\n%s", h.logs.String())
		}
		if got := h.limiter.released.Load(); got != 1 {
			t.Errorf("released = %d after the abort, want 1", got)
		}
	})

	t.Run("HEAD runs the list without a body", func(t *testing.T) {
		h := newHarness(t)
		get := h.do("GET", listTarget, "X-Api-Key", merchantKey)
		head := h.do("HEAD", listTarget, "X-Api-Key", merchantKey)
		mustStatus(t, head, http.StatusOK)
		if head.Body.Len() != 0 {
			t.Errorf("HEAD body = %q, want empty", head.Body.String())
		}
		if got, want := head.Header().Get("Content-Type"), get.Header().Get("Content-Type"); got != want {
			t.Errorf("HEAD Content-Type = %q, want %q as for GET", got, want)
		}
	})
}

func TestTransactionsClientGone(t *testing.T) {
	tests := []struct {
		name    string
		blockAt int
	}{
		{"a client gone before any row is logged at INFO and not as an internal error", 0},
		{"a client gone mid-stream is logged at INFO and not as an internal error", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := &recordingObserver{requests: make(chan observed, 1)}
			h := newHarnessWith(t, func(s *Services) { s.Observer = obs })
			h.tx.blockAt, h.tx.blocked = tt.blockAt, make(chan struct{})
			srv := httptest.NewServer(h.srv.Handler())
			defer srv.Close()

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+listTarget, nil)
			req.Header.Set("X-Api-Key", merchantKey)
			req.Header.Set("X-Request-Id", "gone-1")
			clientErr := make(chan error, 1)
			go func() {
				res, err := srv.Client().Do(req)
				if err == nil {
					_, err = io.ReadAll(res.Body)
					res.Body.Close()
				}
				clientErr <- err
			}()
			select {
			case <-h.tx.blocked:
			case <-time.After(10 * time.Second):
				t.Fatal("the store read never started")
			}
			cancel()
			var got observed
			select {
			case got = <-obs.requests:
			case <-time.After(10 * time.Second):
				t.Fatal("the request did not end after the client went away")
			}
			if err := <-clientErr; err == nil {
				t.Error("the client read a complete response, want its request canceled")
			}

			want := observed{"/v1/merchant/transactions", "GET", statusClientGone}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("observed (-want +got):\n%s", diff)
			}
			logs := h.logs.String()
			for _, want := range []string{`level=INFO msg="client went away" request_id=gone-1`, "context canceled", "status=499"} {
				if !strings.Contains(logs, want) {
					t.Errorf("log lacks %q:\n%s", want, logs)
				}
			}
			for _, unwanted := range []string{"internal error", "level=ERROR"} {
				if strings.Contains(logs, unwanted) {
					t.Errorf("log holds %q:\n%s", unwanted, logs)
				}
			}
			if got := h.limiter.released.Load(); got != 1 {
				t.Errorf("released = %d after the client went away, want 1", got)
			}
		})
	}
}

// TestBadlyEscapedFormatParameters: a contentType or callback that does
// not unescape names no format and no function, so it is refused as
// written, never dropped in favour of the default.
func TestBadlyEscapedFormatParameters(t *testing.T) {
	for _, q := range []string{"contentType=application/xml%zz", "callback=cb%zz"} {
		t.Run(q+" is a 400", func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", "/V1/Merchant/Transactions?fromDate=2000-01-01&toDate=2000-01-02&"+q, "X-Api-Key", merchantKey)
			mustStatus(t, w, http.StatusBadRequest)
			if msg := jsonMessage(w.Body.String()); !strings.Contains(msg, "%zz") {
				t.Errorf("message %q does not quote the value", msg)
			}
		})
	}
}

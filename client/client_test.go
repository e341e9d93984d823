package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // the zone tests must not depend on the machine's zoneinfo

	"github.com/google/go-cmp/cmp"
)

// recorder is a test server that answers every request with one canned
// response and keeps what it was asked.
type recorder struct {
	mu     sync.Mutex
	reqs   []*http.Request
	bodies []string
	status int
	header http.Header
	body   string
	*httptest.Server
}

func newRecorder(t *testing.T, status int, body string, header ...string) *recorder {
	t.Helper()
	r := &recorder{status: status, body: body, header: http.Header{}}
	for i := 0; i+1 < len(header); i += 2 {
		r.header.Set(header[i], header[i+1])
	}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, req)
		r.bodies = append(r.bodies, string(b))
		r.mu.Unlock()
		for k, v := range r.header {
			w.Header()[k] = v
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
		}
		w.WriteHeader(r.status)
		body := r.body
		if body == "" {
			// No canned body: what the path's function answers when
			// empty, an object for /{id} and an array for a list.
			body = "[]"
			if last := req.URL.Path[strings.LastIndexByte(req.URL.Path, '/')+1:]; last != "" && last[0] >= '0' && last[0] <= '9' {
				body = "{}"
			}
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(r.Close)
	return r
}

// last returns the last request and its body.
func (r *recorder) last(t *testing.T) (*http.Request, string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		t.Fatal("the server was not called")
	}
	return r.reqs[len(r.reqs)-1], r.bodies[len(r.bodies)-1]
}

func TestAnswersOtherThan2xxBecomeErrors(t *testing.T) {
	long := "<html>" + strings.Repeat("x", 400) + "</html>"
	tests := []struct {
		name   string
		status int
		body   string
		header []string
		want   *Error
	}{
		{"a 401 carries the contract's message", 401,
			`{"Message":"The API key is missing, invalid, or for a different account type; or the user account has been suspended or closed."}`,
			[]string{"X-Request-Id", "req-1"},
			&Error{StatusCode: 401, Message: "The API key is missing, invalid, or for a different account type; or the user account has been suspended or closed.", RequestID: "req-1"}},
		{"a 404 names no more than the contract says", 404, `{"Message":"The requested item could not be found."}`, nil,
			&Error{StatusCode: 404, Message: "The requested item could not be found."}},
		{"a 429 says how long to wait", 429, `{"Message":"The API call rate limit for the user account has been exceeded."}`,
			[]string{"Retry-After", "7"},
			&Error{StatusCode: 429, Message: "The API call rate limit for the user account has been exceeded.", RetryAfter: 7 * time.Second}},
		{"a 503 from a busy server says when to retry", 503, `{"Message":"The service is busy; retry in a few seconds."}`,
			[]string{"Retry-After", "1"},
			&Error{StatusCode: 503, Message: "The service is busy; retry in a few seconds.", RetryAfter: time.Second}},
		{"a 400 keeps the parameter the server names", 400, `{"Message":"fromDate: \"2024-13-01\" is not a date; use YYYY-MM-DD"}`, nil,
			&Error{StatusCode: 400, Message: `fromDate: "2024-13-01" is not a date; use YYYY-MM-DD`}},
		{"a proxy's page becomes the message, cut short", 502, long, []string{"Content-Type", "text/html"},
			&Error{StatusCode: 502, Message: long[:maxErrorBody] + "..."}},
		{"a nonsense Retry-After is no wait at all", 429, `{"Message":"slow down"}`, []string{"Retry-After", "soon"},
			&Error{StatusCode: 429, Message: "slow down"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, tt.status, tt.body, tt.header...)
			_, err := New(srv.URL, "k").Merchant().Transaction(context.Background(), 1)
			var got *Error
			if !errors.As(fmt.Errorf("wrapped: %w", err), &got) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetryAfterReadsSecondsAndDates(t *testing.T) {
	now := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, value string
		want        time.Duration
	}{
		{"whole seconds are a duration", "30", 30 * time.Second},
		{"an HTTP date counts down from now", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"a date in the past is no wait", now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"a negative number is no wait", "-5", 0},
		{"no header is no wait", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryAfter(tt.value, now); got != tt.want {
				t.Errorf("retryAfter(%q) = %v, want %v", tt.value, got, tt.want)
			}
		})
	}
}

func TestErrorTextNamesStatusMessageAndWait(t *testing.T) {
	err := &Error{StatusCode: 429, Message: "The API call rate limit for the user account has been exceeded.", RetryAfter: 3 * time.Second}
	want := "afftrack: 429 Too Many Requests: The API call rate limit for the user account has been exceeded. (retry after 3s)"
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestParametersAreEncodedInTheInterfaceOrder(t *testing.T) {
	sydney, err := time.LoadLocation("Australia/Sydney")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		name string
		call func(c *Client) error
		path string
		raw  string // the raw query, exactly
	}{
		{"a zero parameter struct sends no query at all",
			func(c *Client) error {
				_, err := c.Merchant().Transactions(ctx, MerchantTransactionsParams{})
				return err
			},
			"/V1/Merchant/Transactions", ""},
		{"every merchant filter is sent, spaces as %20 and reserved characters escaped",
			func(c *Client) error {
				_, err := c.Merchant().Transactions(ctx, MerchantTransactionsParams{
					From: time.Date(2024, 1, 1, 23, 30, 0, 0, sydney), To: time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC),
					DateProperty: ByDateModified, AffiliateID: 2, AffiliateContactName: "Jane Doe",
					AffiliateBusinessName: "Smith & Sons / Co+", TrafficType: TrafficTypeSocialMediaPage,
					TrafficSource: "https://social.example.com/a?b=c", CreativeType: CreativeTypeTextLink, CreativeID: 7,
					CreativeName: "Ünïcode 100%", CustomerCountryCode: "AUS", CustomerCountryName: "Australia",
					CustomerIPAddress: "0123456789abcdef0123456789abcdef", CustomerType: CustomerTypeReturn,
					OrderID: "T#1", TrackingMethod: TrackingMethodMobileApp, TrafficSourceApproved: new(false),
					Status: StatusApproved, Status2: Status2Paid, InvoiceID: 12345,
					VoidReason: VoidReasonDuplicateOrder, AmendedReason: AmendedReasonPartialOrderReturn,
				})
				return err
			},
			"/V1/Merchant/Transactions",
			"fromDate=2024-01-01&toDate=2024-01-31&dateProperty=DateModified&affiliateId=2&affiliateContactName=Jane%20Doe" +
				"&affiliateBusinessName=Smith%20%26%20Sons%20%2F%20Co%2B&trafficType=Social%20Media%20Page" +
				"&trafficSource=https%3A%2F%2Fsocial.example.com%2Fa%3Fb%3Dc&creativeType=Text%20Link&creativeId=7" +
				"&creativeName=%C3%9Cn%C3%AFcode%20100%25&customerCountryCode=AUS&customerCountryName=Australia" +
				"&customerIpAddress=0123456789abcdef0123456789abcdef&customerType=Return&orderId=T%231" +
				"&trackingMethod=Mobile%20App&trafficSourceApproved=false&status=Approved&status2=Paid&invoiceId=12345" +
				"&voidReason=Repeated%20%2F%20Duplicate%20Order&amendedReason=Partial%20Order%20Return"},
		{"every affiliate filter is sent, its sub-ids included",
			func(c *Client) error {
				_, err := c.Affiliate().Transactions(ctx, AffiliateTransactionsParams{
					From: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC),
					DateProperty: ByDateCreated, MerchantID: 1, MerchantName: "Example Pty Ltd",
					TrafficType: TrafficTypeWebsite, TrafficSource: "blog", CreativeType: CreativeTypeBanner, CreativeID: 1,
					CreativeName: "Banner 1", CustomerCountryCode: "NZL", CustomerCountryName: "New Zealand",
					CustomerType: CustomerTypeNew, OrderID: "T0001", UniqueID: "a b", UniqueID2: "c", UniqueID3: "d",
					UniqueID4: "e", TrackingMethod: TrackingMethodCookie, TrafficSourceApproved: new(true),
					Status: StatusVoid, Status2: Status2Void, InvoiceID: 9, VoidReason: VoidReasonCancelledOrder,
				})
				return err
			},
			"/V1/Affiliate/Transactions",
			"fromDate=2024-02-29&toDate=2024-03-01&dateProperty=DateCreated&merchantId=1&merchantName=Example%20Pty%20Ltd" +
				"&trafficType=Website&trafficSource=blog&creativeType=Banner&creativeId=1&creativeName=Banner%201" +
				"&customerCountryCode=NZL&customerCountryName=New%20Zealand&customerType=New&orderId=T0001" +
				"&uniqueId=a%20b&uniqueId2=c&uniqueId3=d&uniqueId4=e&trackingMethod=Cookie&trafficSourceApproved=true" +
				"&status=Void&status2=Void&invoiceId=9&voidReason=Cancelled%20Order"},
		{"a tracking link's target and sub-ids are escaped",
			func(c *Client) error {
				_, err := c.Affiliate().Merchant(ctx, 1, LinkParams{TargetURL: "https://www.example.com/shoes?size=42",
					UniqueID: "post 17", UniqueID2: "x&y", UniqueID3: "z", UniqueID4: "ü"})
				return err
			},
			"/V1/Affiliate/Merchants/1",
			"targetUrl=https%3A%2F%2Fwww.example.com%2Fshoes%3Fsize%3D42&uniqueId=post%2017&uniqueId2=x%26y&uniqueId3=z&uniqueId4=%C3%BC"},
		{"a banner's link takes the same parameters",
			func(c *Client) error {
				_, err := c.Affiliate().Banner(ctx, 2, LinkParams{UniqueID: "summer"})
				return err
			},
			"/V1/Affiliate/Banners/2", "uniqueId=summer"},
		{"a promotion's link takes the same parameters",
			func(c *Client) error { _, err := c.Affiliate().Promotion(ctx, 3, LinkParams{}); return err },
			"/V1/Affiliate/Promotions/3", ""},
		{"the affiliate's banner filters are sent",
			func(c *Client) error {
				_, err := c.Affiliate().Banners(ctx, BannersParams{MerchantID: 2, MerchantName: "Sample Outdoor Co",
					GroupName: " Default Group", Size: "Leaderboard", Width: 728, Height: 90})
				return err
			},
			"/V1/Affiliate/Banners",
			"merchantId=2&merchantName=Sample%20Outdoor%20Co&groupName=%20Default%20Group&size=Leaderboard&width=728&height=90"},
		{"the merchant's banner filters are sent, a false DefaultForSize included",
			func(c *Client) error {
				_, err := c.Merchant().Banners(ctx, MerchantBannersParams{BannerGroupID: 1, BannerGroupName: "Summer Sale Banners",
					Size: "640x100", Width: 640, Height: 100, DefaultForSize: new(false)})
				return err
			},
			"/V1/Merchant/Banners",
			"bannerGroupId=1&bannerGroupName=Summer%20Sale%20Banners&size=640x100&width=640&height=100&defaultForSize=false"},
		{"the merchants filters are sent",
			func(c *Client) error {
				_, err := c.Affiliate().Merchants(ctx, MerchantsParams{CommissionType: DollarPerLead, Category: "Family",
					NewCategory: "Clothing & Accessories / Shoes", Status: MerchantNotJoined})
				return err
			},
			"/V1/Affiliate/Merchants",
			"commissionType=Dollar%20per%20Lead&category=Family&newCategory=Clothing%20%26%20Accessories%20%2F%20Shoes&status=Not%20Joined"},
		{"the affiliate's offer filters are sent",
			func(c *Client) error {
				_, err := c.Affiliate().Coupons(ctx, OffersParams{MerchantID: 1, MerchantName: "a"})
				return err
			},
			"/V1/Affiliate/Coupons", "merchantId=1&merchantName=a"},
		{"the merchant's offer filters are sent",
			func(c *Client) error {
				_, err := c.Merchant().Promotions(ctx, MerchantOffersParams{AffiliateID: 1, AffiliateContactName: "john smith",
					AffiliateBusinessName: "Example Pty Ltd"})
				return err
			},
			"/V1/Merchant/Promotions", "affiliateId=1&affiliateContactName=john%20smith&affiliateBusinessName=Example%20Pty%20Ltd"},
		{"the affiliates filter is sent",
			func(c *Client) error {
				_, err := c.Merchant().Affiliates(ctx, AffiliatesParams{Status: AffiliateApproved})
				return err
			},
			"/V1/Merchant/Affiliates", "status=Approved"},
		{"an invoice range keeps its calendar dates and the number",
			func(c *Client) error {
				_, err := c.Affiliate().Invoices(ctx, InvoicesParams{From: time.Date(2024, 2, 1, 0, 0, 0, 0, sydney),
					To: time.Date(2024, 2, 29, 23, 59, 59, 0, sydney), Number: "CF-2-0001"})
				return err
			},
			"/V1/Affiliate/Invoices", "fromDate=2024-02-01&toDate=2024-02-29&number=CF-2-0001"},
		{"a report sends its range",
			func(c *Client) error {
				_, err := c.Merchant().AffiliateReport(ctx, ReportParams{From: time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC),
					To: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)})
				return err
			},
			"/V1/Merchant/Reports/Affiliate", "fromDate=2024-01-31&toDate=2024-01-01"},
		{"the traffic type report has its own path",
			func(c *Client) error { _, err := c.Affiliate().TrafficTypeReport(ctx, ReportParams{}); return err },
			"/V1/Affiliate/Reports/TrafficType", ""},
		{"the merchant report has its own path",
			func(c *Client) error { _, err := c.Affiliate().MerchantReport(ctx, ReportParams{}); return err },
			"/V1/Affiliate/Reports/Merchant", ""},
		{"banner groups take no parameters",
			func(c *Client) error { _, err := c.Merchant().BannerGroups(ctx); return err },
			"/V1/Merchant/BannerGroups", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, 200, "")
			if err := tt.call(New(srv.URL+"/", "k")); err != nil {
				t.Fatal(err)
			}
			req, _ := srv.last(t)
			if req.Method != http.MethodGet || req.URL.Path != tt.path {
				t.Errorf("request %s %s, want GET %s", req.Method, req.URL.Path, tt.path)
			}
			if req.URL.RawQuery != tt.raw {
				t.Errorf("query\n got %s\nwant %s", req.URL.RawQuery, tt.raw)
			}
		})
	}
}

func TestIDsGoIntoThePath(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		call func(c *Client) error
		path string
	}{
		{"a merchant's transaction", func(c *Client) error { _, err := c.Merchant().Transaction(ctx, 42); return err }, "/V1/Merchant/Transactions/42"},
		{"an affiliate's transaction", func(c *Client) error { _, err := c.Affiliate().Transaction(ctx, 42); return err }, "/V1/Affiliate/Transactions/42"},
		{"an invoice", func(c *Client) error { _, err := c.Affiliate().Invoice(ctx, 2); return err }, "/V1/Affiliate/Invoices/2"},
		{"an affiliate", func(c *Client) error { _, err := c.Merchant().Affiliate(ctx, 3); return err }, "/V1/Merchant/Affiliates/3"},
		{"a merchant's banner", func(c *Client) error { _, err := c.Merchant().Banner(ctx, 4); return err }, "/V1/Merchant/Banners/4"},
		{"a banner group", func(c *Client) error { _, err := c.Merchant().BannerGroup(ctx, 5); return err }, "/V1/Merchant/BannerGroups/5"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is asked for by its id in the path", func(t *testing.T) {
			srv := newRecorder(t, 200, "")
			if err := tt.call(New(srv.URL, "k")); err != nil {
				t.Fatal(err)
			}
			if req, _ := srv.last(t); req.URL.Path != tt.path || req.URL.RawQuery != "" {
				t.Errorf("asked %s?%s, want %s", req.URL.Path, req.URL.RawQuery, tt.path)
			}
		})
	}
}

// countingTransport counts the requests that went through it.
type countingTransport struct{ n int }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n++
	return http.DefaultTransport.RoundTrip(r)
}

func TestRequestsCarryTheKeyInAHeaderAndAskForJSON(t *testing.T) {
	tests := []struct {
		name   string
		opts   []Option
		wantUA string
	}{
		{"the default client names itself", nil, defaultUserAgent},
		{"a User-Agent option replaces the name", []Option{WithUserAgent("shop-sync/2.0")}, "shop-sync/2.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, 200, "[]")
			transport := &countingTransport{}
			opts := append([]Option{WithHTTPClient(&http.Client{Transport: transport})}, tt.opts...)
			if _, err := New(srv.URL, "secret-key", opts...).Affiliate().Banners(context.Background(), BannersParams{}); err != nil {
				t.Fatal(err)
			}
			req, _ := srv.last(t)
			got := map[string]string{"X-Api-Key": req.Header.Get("X-Api-Key"), "Accept": req.Header.Get("Accept"),
				"User-Agent": req.Header.Get("User-Agent")}
			want := map[string]string{"X-Api-Key": "secret-key", "Accept": "application/json", "User-Agent": tt.wantUA}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			if strings.Contains(req.URL.String(), "secret-key") {
				t.Errorf("the key is in the URL %s", req.URL)
			}
			if transport.n != 1 {
				t.Errorf("the given http.Client made %d requests, want 1", transport.n)
			}
		})
	}
}

func TestAConversionIsSentAsTheContractsJSON(t *testing.T) {
	sydney, _ := time.LoadLocation("Australia/Sydney")
	tx := `{"Id":9,"DateCreated":"2024-01-02T03:04:05.000","DateModified":"2024-01-02T03:04:05.000","ConsumptionDate":"2024-01-02T03:04:05.000","ValidationDate":"2024-01-16T03:04:05.000","AffiliateId":1,"AffiliateContactName":"John Smith","AffiliateBusinessName":"","TrafficType":"Website","TrafficSource":"","CreativeType":"Text Link","CreativeId":null,"CreativeName":null,"CustomerCountryCode":"","CustomerCountryName":"","CustomerIpAddress":"","CustomerType":"New","OrderId":"O-1","AdditionalNotes":null,"TrackingMethod":"Server","SaleValue":120.0000,"Commission":15.0000,"OverrideFee":3.7500,"ReportedCurrencyCode":"AUD","ReportedCurrencyName":"Australian Dollar","ReportedSaleValue":120.0000,"TrafficSourceApproved":true,"Status":"Pending","Status2":"Pending","InvoiceId":null,"VoidReason":null,"AmendedReason":null,"CouponCode":null,"PlacementId":null,"PlacementName":null,"Items":[]}`
	conv := Conversion{
		ClickID: "0123456789abcdef0123456789abcdef", OrderID: "O-1", CurrencyCode: "AUD", CustomerType: CustomerTypeReturn,
		ConsumptionDate: time.Date(2024, 1, 2, 3, 4, 5, 6e6, sydney), AdditionalNotes: "gift <wrapped>",
		Items: []ConversionItem{{Sku: "RUN-1", SaleValue: "120.00", Category: "Shoes"}, {Sku: "SK-2", Quantity: 2, SaleValue: "0.00"}},
	}
	wantBody := `{"ClickId":"0123456789abcdef0123456789abcdef","OrderId":"O-1","CurrencyCode":"AUD","CustomerType":"Return",` +
		`"ConsumptionDate":"2024-01-02T03:04:05.006+11:00","AdditionalNotes":"gift \u003cwrapped\u003e",` +
		`"Items":[{"Sku":"RUN-1","SaleValue":120.00,"Category":"Shoes"},{"Sku":"SK-2","Quantity":2,"SaleValue":0.00}]}`
	tests := []struct {
		name        string
		status      int
		wantCreated bool
	}{
		{"a 201 is a new transaction", http.StatusCreated, true},
		{"a 200 is the stored transaction of a retry", http.StatusOK, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, tt.status, tx, "Location", "http://localhost:8080/V1/Merchant/Transactions/9")
			got, err := New(srv.URL, "k").Merchant().RecordConversion(context.Background(), conv)
			if err != nil {
				t.Fatal(err)
			}
			req, body := srv.last(t)
			if req.Method != http.MethodPost || req.URL.Path != "/V1/Merchant/Conversions" ||
				req.Header.Get("Content-Type") != "application/json" {
				t.Errorf("request %s %s with Content-Type %q", req.Method, req.URL.Path, req.Header.Get("Content-Type"))
			}
			if body != wantBody {
				t.Errorf("body\n got %s\nwant %s", body, wantBody)
			}
			if got.Created != tt.wantCreated || got.Location != "http://localhost:8080/V1/Merchant/Transactions/9" ||
				got.Transaction.ID != 9 || got.Transaction.Commission != "15.0000" {
				t.Errorf("result %+v", got)
			}
		})
	}
}

func TestValidationsAreSentAsAnArray(t *testing.T) {
	tests := []struct {
		name     string
		rows     []Validation
		wantBody string
	}{
		{"no rows is an empty array, not null", nil, `[]`},
		{"each action sends only its own fields",
			[]Validation{{ID: 3, Action: ActionApprove}, {OrderID: "T0003", Action: ActionVoid, VoidReason: VoidReasonTestTransaction},
				{ID: 5, Action: ActionAmend, AmendedReason: AmendedReasonIncorrectSaleValue, SaleValue: "30.5000"}},
			`[{"Id":3,"Action":"Approve"},{"OrderId":"T0003","Action":"Void","VoidReason":"Test Transaction"},` +
				`{"Id":5,"Action":"Amend","AmendedReason":"Incorrect Sale Value","SaleValue":30.5000}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRecorder(t, 200, `[{"Id":3,"OrderId":"T0003","Status2":"Locked","Error":null},{"Id":null,"OrderId":"X","Status2":null,"Error":"no such transaction"}]`)
			got, err := New(srv.URL, "k").Merchant().Validate(context.Background(), tt.rows)
			if err != nil {
				t.Fatal(err)
			}
			if _, body := srv.last(t); body != tt.wantBody {
				t.Errorf("body\n got %s\nwant %s", body, tt.wantBody)
			}
			want := []ValidationResult{
				{ID: new(int64(3)), OrderID: new("T0003"), Status2: new(Status2Locked)},
				{OrderID: new("X"), Error: new("no such transaction")},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			if got[0].Err() != nil || got[1].Err() == nil || got[1].Err().Error() != "no such transaction" {
				t.Errorf("Err() = %v, %v", got[0].Err(), got[1].Err())
			}
		})
	}
}

func TestACancelledCallIsNotAnAPIError(t *testing.T) {
	srv := newRecorder(t, 200, "[]")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(srv.URL, "k").Merchant().BannerGroups(ctx)
	var apiErr *Error
	if err == nil || errors.As(err, &apiErr) || !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want a context.Canceled that is no *Error", err)
	}
}

package api

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// fixtureReports holds report lines for affiliate 1 and merchant 1; their
// sums need rounding half away from zero.
func fixtureReports() *fakeReports {
	metrics := afftrack.ReportMetrics{ClicksTotal: 12, ClicksBot: 3,
		TransactionsPending: 2, TransactionsApproved: 1, TransactionsVoid: 1,
		SaleValuePending: 100150, SaleValueApproved: 200149, SaleValueVoid: -150,
		CommissionPending: 10075, CommissionApproved: 20149, CommissionVoid: -49,
		OverridePending: 50, OverrideApproved: 0, OverrideVoid: -50}
	return &fakeReports{
		trafficType: map[int64][]afftrack.TrafficTypeReport{1: {
			{TrafficType: afftrack.TrafficTypeWebsite, ReportMetrics: metrics},
			{TrafficType: afftrack.TrafficTypeSocialMediaPage, ReportMetrics: afftrack.ReportMetrics{ClicksTotal: 1}},
		}},
		merchant: map[int64][]afftrack.MerchantReport{1: {
			{MerchantID: 1, MerchantName: "Example Pty Ltd", MerchantAvatarURL: "https://img.example/m1.png", ReportMetrics: metrics},
			{MerchantID: 2, MerchantName: "Tom & Jerry <Shop>", MerchantAvatarURL: "https://img.example/m2.png?a=1&b=2",
				ReportMetrics: afftrack.ReportMetrics{ClicksTotal: 1, ClicksBot: 1}},
		}},
		affiliate: map[int64][]afftrack.AffiliateReport{1: {
			{AffiliateID: 1, AffiliateContactName: "John Smith", AffiliateBusinessName: "Smith Media", ReportMetrics: metrics},
			{AffiliateID: 2, AffiliateContactName: "Jane Doe", ReportMetrics: afftrack.ReportMetrics{TransactionsApproved: 1,
				SaleValueApproved: 1234567, CommissionApproved: 123457, OverrideApproved: 12345}},
		}},
	}
}

// reportHarness is a harness whose server serves fixtureReports through
// the report routes.
func reportHarness(t *testing.T) (*harness, *fakeReports, http.Handler) {
	t.Helper()
	reports := fixtureReports()
	h := newHarnessWith(t, func(s *Services) { s.Reports = reports })
	return h, reports, h.srv.Handler()
}

// serve serves one GET of target through handler with the given key.
func serve(handler http.Handler, target, key string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	if key != "" {
		r.Header.Set("X-Api-Key", key)
	}
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, r)
	return w
}

func TestReportGoldenBodies(t *testing.T) {
	tests := []struct {
		name, target, key string
	}{
		{"report_traffic_type", "/V1/Affiliate/Reports/TrafficType?fromDate=2024-06-01&toDate=2024-06-30", affiliateKey},
		{"report_merchant", "/V1/Affiliate/Reports/Merchant?fromDate=2024-06-01&toDate=2024-06-30", affiliateKey},
		{"report_affiliate", "/V1/Merchant/Reports/Affiliate?fromDate=2024-06-01&toDate=2024-06-30", merchantKey},
		{"report_affiliate_empty", "/V1/Merchant/Reports/Affiliate?fromDate=2024-06-01&toDate=2024-06-30", otherMerchantKey},
	}
	formats := []struct{ ext, query, contentType string }{
		{".json", "", contentTypeJSON},
		{".xml", "&contentType=application/xml", contentTypeXML},
		{".js", "&callback=jQuery123.done", contentTypeJSONP},
	}
	for _, tt := range tests {
		for _, f := range formats {
			t.Run(tt.name+f.ext+" is exact", func(t *testing.T) {
				_, _, handler := reportHarness(t)
				w := serve(handler, tt.target+f.query, tt.key)
				mustStatus(t, w, http.StatusOK)
				if got := w.Header().Get("Content-Type"); got != f.contentType {
					t.Errorf("Content-Type = %q, want %q", got, f.contentType)
				}
				golden(t, tt.name+f.ext, w.Body.Bytes())
			})
		}
	}
}

func TestReportParameters(t *testing.T) {
	paths := []struct{ path, key, otherKindKey string }{
		{"/V1/Affiliate/Reports/TrafficType", affiliateKey, merchantKey},
		{"/v1/affiliate/reports/merchant/", affiliateKey, merchantKey},
		{"/V1/Merchant/Reports/Affiliate", merchantKey, affiliateKey},
	}
	for _, p := range paths {
		t.Run(p.path, func(t *testing.T) {
			_, reports, handler := reportHarness(t)
			for _, c := range []struct {
				query, message string
				status         int
			}{
				{"", "fromDate", 400},
				{"?fromDate=2024-06-01", "toDate", 400},
				{"?fromDate=2024-06-01&toDate=", "toDate", 400},
				{"?fromDate=2024-13-01&toDate=2024-06-30", "fromDate", 400},
				{"?FromDate=2024-06-30T10:00:00Z&TODATE=2024-06-01&ignored=1", "", 200},
			} {
				w := serve(handler, p.path+c.query, p.key)
				mustStatus(t, w, c.status)
				if c.status == 400 && !strings.HasPrefix(jsonMessageOf(t, w), c.message+": ") {
					t.Errorf("%s: message %q does not name %s", c.query, w.Body.String(), c.message)
				}
			}
			// Reversed dates are swapped; the time is cut off.
			if want := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC); !reports.from.Equal(want) {
				t.Errorf("from = %v, want %v", reports.from, want)
			}
			if want := time.Date(2024, 6, 30, 0, 0, 0, 0, time.UTC); !reports.to.Equal(want) {
				t.Errorf("to = %v, want %v", reports.to, want)
			}
			mustStatus(t, serve(handler, p.path+"?fromDate=2024-06-01&toDate=2024-06-30", p.otherKindKey), 401)
			mustStatus(t, serve(handler, p.path+"?fromDate=2024-06-01&toDate=2024-06-30", ""), 401)
			reports.err = errStore
			w := serve(handler, p.path+"?fromDate=2024-06-01&toDate=2024-06-30", p.key)
			mustStatus(t, w, 500)
			if strings.Contains(w.Body.String(), "SELECT") {
				t.Errorf("500 leaks the cause: %s", w.Body.String())
			}
		})
	}
}

// jsonMessageOf returns an error body's Message.
func jsonMessageOf(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var e struct{ Message string }
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
		t.Fatalf("%s: %v", w.Body.String(), err)
	}
	return e.Message
}

// TestNoAccountSeesAnotherAccountsReport serves random networks from a
// real store: each account's report lines hold exactly the counts of its
// own clicks and transactions, per counterparty.
func TestNoAccountSeesAnotherAccountsReport(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprintf("network %d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed*31))
			const merchants, affiliates = 3, 4
			d := &afftrack.Dataset{}
			key := func(kind string, id int64) string { return fmt.Sprintf("%s-%d-report-key-0123456789", kind, id) }
			for m := int64(1); m <= merchants; m++ {
				d.Merchants = append(d.Merchants, afftrack.MerchantRecord{Merchant: afftrack.Merchant{ID: m,
					Name: fmt.Sprintf("M%d", m), AvatarURL: "https://img.example/m.png", Status: afftrack.AccountActive},
					APIKeys: []string{key("m", m)}})
			}
			for a := int64(1); a <= affiliates; a++ {
				d.Affiliates = append(d.Affiliates, afftrack.AffiliateRecord{Affiliate: afftrack.Affiliate{ID: a,
					ContactName: fmt.Sprintf("A%d", a), Status: afftrack.AccountActive}, APIKeys: []string{key("a", a)}})
			}
			// counts[m][a] = {clicks, bots, transactions}
			var counts [merchants + 1][affiliates + 1][3]int64
			at := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
			for i := range 60 {
				m, a := rng.Int64N(merchants)+1, rng.Int64N(affiliates)+1
				when := at.Add(time.Duration(rng.Int64N(int64(30 * 24 * time.Hour))))
				bot := rng.IntN(3) == 0
				d.Clicks = append(d.Clicks, afftrack.Click{ID: fmt.Sprintf("%032x", i+1), Time: when, MerchantID: m,
					AffiliateID: a, CreativeType: afftrack.CreativeTypeTextLink, Bot: bot,
					TrafficType: afftrack.TrafficTypeWebsite})
				counts[m][a][0]++
				if bot {
					counts[m][a][1]++
				}
			}
			for i := range 40 {
				m, a := rng.Int64N(merchants)+1, rng.Int64N(affiliates)+1
				when := at.Add(time.Duration(rng.Int64N(int64(30 * 24 * time.Hour)))).Truncate(time.Millisecond)
				d.Transactions = append(d.Transactions, afftrack.TransactionRecord{Transaction: afftrack.Transaction{
					ID: int64(i + 1), MerchantID: m, AffiliateID: a, DateCreated: when, DateModified: when,
					ConsumptionDate: when, ValidationDate: when, TrafficType: afftrack.TrafficTypeWebsite,
					CreativeType: afftrack.CreativeTypeTextLink, CustomerCountryCode: "AU", CustomerCountryName: "Australia",
					CustomerType: afftrack.CustomerTypeNew, OrderID: fmt.Sprint(i), TrackingMethod: afftrack.TrackingMethodCookie,
					SaleValue: 10000, Commission: 1000, ReportedCurrencyCode: "AUD", ReportedCurrencyName: "Australian Dollar",
					ReportedSaleValue: 10000, Status2: afftrack.Status2Pending}})
				counts[m][a][2]++
			}
			db := storetest.Open(t, storetest.SQLite)
			if _, err := sqlstore.NewImportService(db).Import(context.Background(), d); err != nil {
				t.Fatal(err)
			}
			h := newHarnessWith(t, func(s *Services) {
				s.Accounts = sqlstore.NewAccountService(db)
				s.Reports = sqlstore.NewReportService(db)
			})
			h.limiter.decide = nil
			handler := h.srv.Handler()
			type line struct {
				MerchantId, AffiliateId                     int64
				ClicksTotal, ClicksBot, TransactionsPending int64
			}
			get := func(path, key string) map[[2]int64][3]int64 {
				w := serve(handler, path+"?fromDate=2024-06-01&toDate=2024-07-31", key)
				mustStatus(t, w, 200)
				var lines []line
				if err := json.Unmarshal(w.Body.Bytes(), &lines); err != nil {
					t.Fatal(err)
				}
				got := map[[2]int64][3]int64{}
				for _, l := range lines {
					got[[2]int64{l.MerchantId, l.AffiliateId}] = [3]int64{l.ClicksTotal, l.ClicksBot, l.TransactionsPending}
				}
				return got
			}
			for a := int64(1); a <= affiliates; a++ {
				want := map[[2]int64][3]int64{}
				for m := int64(1); m <= merchants; m++ {
					if c := counts[m][a]; c != [3]int64{} {
						want[[2]int64{m, 0}] = c
					}
				}
				if got := get("/V1/Affiliate/Reports/Merchant", key("a", a)); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("affiliate %d: got %v, want %v", a, got, want)
				}
			}
			for m := int64(1); m <= merchants; m++ {
				want := map[[2]int64][3]int64{}
				for a := int64(1); a <= affiliates; a++ {
					if c := counts[m][a]; c != [3]int64{} {
						want[[2]int64{0, a}] = c
					}
				}
				if got := get("/V1/Merchant/Reports/Affiliate", key("m", m)); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("merchant %d: got %v, want %v", m, got, want)
				}
			}
		})
	}
}

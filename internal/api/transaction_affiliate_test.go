package api

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

const affiliateListTarget = "/V1/Affiliate/Transactions?fromDate=2000-01-01&toDate=2000-01-31"

// TestAffiliateTransactionGoldenBodies pins the exact bytes of the
// affiliate view in the three formats, as TestGoldenBodies does for the
// merchant's.
func TestAffiliateTransactionGoldenBodies(t *testing.T) {
	tests := []struct {
		name   string
		target string
		status int
	}{
		{"affiliate_transactions", affiliateListTarget, 200},
		{"affiliate_transactions_empty", "/V1/Affiliate/Transactions?fromDate=2010-01-01&toDate=2010-01-02", 200},
		{"affiliate_transaction", "/V1/Affiliate/Transactions/1", 200},
	}
	formats := []struct {
		ext, query, contentType string
	}{
		{".json", "", contentTypeJSON},
		{".xml", "contentType=application/xml", contentTypeXML},
		{".js", "callback=jQuery123.done", contentTypeJSONP},
	}
	for _, tt := range tests {
		for _, f := range formats {
			t.Run(tt.name+f.ext+" is exact", func(t *testing.T) {
				h := newHarness(t)
				target := tt.target
				if f.query != "" {
					sep := "?"
					if strings.Contains(target, "?") {
						sep = "&"
					}
					target += sep + f.query
				}
				w := h.do("GET", target, "X-Api-Key", affiliateKey)
				mustStatus(t, w, tt.status)
				if got := w.Header().Get("Content-Type"); got != f.contentType {
					t.Errorf("Content-Type = %q, want %q", got, f.contentType)
				}
				golden(t, tt.name+f.ext, w.Body.Bytes())
			})
		}
	}
}

func TestAffiliateTransactionsParameterErrors(t *testing.T) {
	const dates = "fromDate=2000-01-01&toDate=2000-01-02"
	tests := []struct {
		name  string
		query string
		want  string
	}{
		{"a missing fromDate", "toDate=2000-01-01", `fromDate: is required`},
		{"an impossible fromDate", "fromDate=2024-13-01&toDate=2000-01-01", `fromDate: "2024-13-01" is not a date; use YYYY-MM-DD`},
		{"a missing toDate", "fromDate=2000-01-01", `toDate: is required`},
		{"a February 30th toDate", "fromDate=2000-01-01&toDate=2023-02-30", `toDate: "2023-02-30" is not a date; use YYYY-MM-DD`},
		{"a bad dateProperty", dates + "&dateProperty=Foo", `dateProperty: "Foo" is not one of DateCreated, DateModified`},
		{"a non-integer merchantId", dates + "&merchantId=x", `merchantId: "x" is not an integer`},
		{"a merchantId beyond int64", dates + "&merchantId=9223372036854775808", `merchantId: "9223372036854775808" is out of range`},
		{"an unknown trafficType", dates + "&trafficType=Radio", `trafficType: "Radio" is not one of Website, Email List, Social Media Page, Search, Mobile App, Other`},
		{"an unknown creativeType", dates + "&creativeType=Video", `creativeType: "Video" is not one of Text Link, Banner, Coupon, Promotion, Data Feed`},
		{"a non-integer creativeId", dates + "&creativeId=-", `creativeId: "-" is not an integer`},
		{"an unknown customerType", dates + "&customerType=Old", `customerType: "Old" is not one of New, Return`},
		{"an unknown trackingMethod", dates + "&trackingMethod=Pixel", `trackingMethod: "Pixel" is not one of Affiliate, Clickless, Cookie, Manual, Mobile App, Server, Other`},
		{"a non-boolean trafficSourceApproved", dates + "&trafficSourceApproved=yes", `trafficSourceApproved: "yes" is not a boolean; use true or false`},
		{"an unknown status", dates + "&status=Paid", `status: "Paid" is not one of Pending, Approved, Void`},
		{"an unknown status2", dates + "&status2=X", `status2: "X" is not one of Pending, Locked, Approved, Paid, Void`},
		{"a non-integer invoiceId", dates + "&invoiceId=12a", `invoiceId: "12a" is not an integer`},
		{"an unknown voidReason", dates + "&voidReason=Boredom", `voidReason: "Boredom" is not one of Attributed to Different Channel, Cancelled Order, Compliance Breach, Fraudulent Transaction, Non-Commissionable Transaction, Order Nonfulfillment, Payment Authorisation Failed, Repeated / Duplicate Order, Returned Order / Unclaimed Shipment, Self Referral, Test Transaction`},
		{"the first bad parameter in the reference's order", dates + "&voidReason=Boredom&merchantId=x", `merchantId: "x" is not an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a 400 naming it", func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", "/V1/Affiliate/Transactions?"+tt.query, "X-Api-Key", affiliateKey)
			mustStatus(t, w, http.StatusBadRequest)
			if diff := cmp.Diff(tt.want, jsonMessage(w.Body.String())); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("the merchant's own parameters are not the affiliate's: ignored, even when bad", func(t *testing.T) {
		h := newHarness(t)
		w := h.do("GET", affiliateListTarget+"&amendedReason=Whim&affiliateId=x&customerIpAddress=0", "X-Api-Key", affiliateKey)
		mustStatus(t, w, http.StatusOK)
	})
}

func TestAffiliateTransactionFilter(t *testing.T) {
	day := func(s string) time.Time { return dt(s + "T00:00:00.000") }
	tests := []struct {
		name  string
		query string
		want  afftrack.AffiliateTransactionFilter
	}{
		{"dates keep only their date, are swapped, dateProperty ignores case",
			"fromDate=2000-02-01T23:30:00%2B10:00&toDate=2000-01-01T05:00Z&dateProperty=datemodified",
			afftrack.AffiliateTransactionFilter{AffiliateID: 7, From: day("2000-01-01"), To: day("2000-02-01"),
				DateProperty: afftrack.ByDateModified}},
		{"every filter is read, names in any case, empty values absent, amendedReason ignored",
			"FROMDATE=2000-01-01&todate=2000-01-02&MerchantId=&merchantid=-3&merchantName=example+pty+ltd" +
				"&trafficType=email%20list&trafficSource=https://x.example/&creativeType=BANNER&creativeId=0" +
				"&creativeName=Spring&customerCountryCode=aus&customerCountryName=Australia&customerType=return" +
				"&orderId=T0001&UNIQUEID=a&uniqueId2=b%20c&uniqueid3=&uniqueId4=d&trackingMethod=mobile+app" +
				"&trafficSourceApproved=FALSE&status=void&status2=paid&invoiceId=12345&voidReason=self%20referral" +
				"&amendedReason=incorrect%20currency",
			afftrack.AffiliateTransactionFilter{
				AffiliateID: 7, From: day("2000-01-01"), To: day("2000-01-02"),
				MerchantID:            afftrack.Some[int64](-3),
				MerchantName:          afftrack.Some("example pty ltd"),
				TrafficType:           afftrack.TrafficTypeEmailList,
				TrafficSource:         afftrack.Some("https://x.example/"),
				CreativeType:          afftrack.CreativeTypeBanner,
				CreativeID:            afftrack.Some[int64](0),
				CreativeName:          afftrack.Some("Spring"),
				CustomerCountryCode:   afftrack.Some("aus"),
				CustomerCountryName:   afftrack.Some("Australia"),
				CustomerType:          afftrack.CustomerTypeReturn,
				OrderID:               afftrack.Some("T0001"),
				UniqueIDs:             [4]afftrack.Null[string]{afftrack.Some("a"), afftrack.Some("b c"), {}, afftrack.Some("d")},
				TrackingMethod:        afftrack.TrackingMethodMobileApp,
				TrafficSourceApproved: afftrack.Some(false),
				Status:                afftrack.StatusVoid,
				Status2:               afftrack.Status2Paid,
				InvoiceID:             afftrack.Some[int64](12345),
				VoidReason:            afftrack.VoidReasonSelfReferral,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := affiliateTransactionFilter(parseQuery(tt.query), 7)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("filter (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAffiliateTransactionsList(t *testing.T) {
	ids := func(body string) []string {
		var out []string
		for _, part := range strings.Split(body, `{"Id":`)[1:] {
			out = append(out, part[:strings.IndexByte(part, ',')])
		}
		return out
	}
	q := affiliateListTarget[strings.IndexByte(affiliateListTarget, '?')+1:]
	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"an affiliate sees its own transactions of every merchant, by date then id", q, []string{"1", "4"}},
		{"merchantName matches the merchant's whole name in any case", q + "&merchantName=SAMPLE+%26+sons", []string{"4"}},
		{"merchantName never matches part of it", q + "&merchantName=sample", nil},
		{"merchantId", q + "&merchantId=1", []string{"1"}},
		{"uniqueId matches the click's sub-id in any case", q + "&uniqueId=Newsletter-2000-01", []string{"1"}},
		{"uniqueId2 never matches null", q + "&uniqueId2=x", nil},
		{"another affiliate's transactions are absent whatever the filter", q + "&orderId=T0002", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", "/V1/Affiliate/Transactions?"+tt.query, "X-Api-Key", affiliateKey)
			mustStatus(t, w, http.StatusOK)
			if diff := cmp.Diff(tt.want, ids(w.Body.String())); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAffiliateTransactionByID(t *testing.T) {
	notFound := `{"Message":"The requested item could not be found."}`
	tests := []struct {
		name       string
		path       string
		key        string
		wantStatus int
		wantBody   string
	}{
		{"an own transaction is returned", "/V1/Affiliate/Transactions/4", affiliateKey, 200, `{"Id":4,`},
		{"another affiliate's transaction is not found", "/V1/Affiliate/Transactions/2", affiliateKey, 404, notFound},
		{"a transaction that does not exist is not found", "/V1/Affiliate/Transactions/99", affiliateKey, 404, notFound},
		{"a non-integer id is a 400", "/v1/affiliate/transactions/ABC", affiliateKey, 400, `{"Message":"id: \"ABC\" is not an integer"}`},
		{"an id beyond int64 is a 400", "/V1/Affiliate/Transactions/99999999999999999999", affiliateKey, 400, `{"Message":"id: \"99999999999999999999\" is out of range"}`},
		{"a merchant key is a 401", "/V1/Affiliate/Transactions/1", merchantKey, 401, `{"Message":"The API key`},
		{"a closed affiliate is a 401", "/V1/Affiliate/Transactions/2", closedAffiliateKey, 401, `{"Message":"The API key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", tt.path, "X-Api-Key", tt.key)
			mustStatus(t, w, tt.wantStatus)
			if !strings.HasPrefix(w.Body.String(), tt.wantBody) {
				t.Errorf("body = %s, want prefix %s", w.Body.String(), tt.wantBody)
			}
		})
	}
	t.Run("a merchant key on the list is a 401", func(t *testing.T) {
		h := newHarness(t)
		mustStatus(t, h.do("GET", affiliateListTarget, "X-Api-Key", merchantKey), http.StatusUnauthorized)
	})
}

func TestAffiliateTransactionsStreaming(t *testing.T) {
	t.Run("the list takes a list slot, written as rows arrive, the rate-limit slot held until the end", func(t *testing.T) {
		h := newHarnessConfig(t, nil, func(c *Config) { c.MaxListStreams = 1 })
		rows := 0
		h.tx.onRow = func() {
			rows++
			if got := h.limiter.released.Load(); got != 0 {
				t.Errorf("slot released during row %d, want held until the response is complete", rows)
			}
			if _, ok := h.srv.acquireList(context.Background(), 0); ok {
				t.Errorf("a list slot was free during row %d, want the list to hold the only one", rows)
			}
		}
		w := h.do("GET", affiliateListTarget, "X-Api-Key", affiliateKey)
		mustStatus(t, w, http.StatusOK)
		if rows != 2 {
			t.Errorf("rows = %d, want 2", rows)
		}
		release, ok := h.srv.acquireList(context.Background(), 0)
		if !ok {
			t.Fatal("the list slot was not given back")
		}
		release()
	})

	t.Run("a store failing mid-stream aborts the response so the client sees it truncated", func(t *testing.T) {
		h := newHarness(t)
		// Enough rows that what precedes the failure leaves the server's
		// own buffer (2 KB) before it.
		for id := int64(10); id < 20; id++ {
			tx := h.tx.list[0]
			tx.ID = id
			h.tx.list = append(h.tx.list, tx)
		}
		h.tx.err, h.tx.failAfter = errStore, 5
		srv := httptest.NewServer(h.srv.Handler())
		defer srv.Close()
		req, _ := http.NewRequest("GET", srv.URL+affiliateListTarget, nil)
		req.Header.Set("X-Api-Key", affiliateKey)
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
	})

	t.Run("a store failing before any row is a 500", func(t *testing.T) {
		h := newHarness(t)
		h.tx.err, h.tx.failAfter = errStore, 0
		w := h.do("GET", affiliateListTarget, "X-Api-Key", affiliateKey)
		mustStatus(t, w, http.StatusInternalServerError)
	})
}

// The affiliate view's mirrors for encoding/json and encoding/xml, as
// encode_json_test.go and encode_xml_test.go have the merchant's.

type jsonAffiliateItem struct {
	Sku               string
	Quantity          int64
	ReportedSaleValue json.Number
	SaleValue         json.Number
	Commission        json.Number
	Name              string
	Brand             string
	Category          string
}

type jsonAffiliateTransaction struct {
	ID                    int64 `json:"Id"`
	DateCreated           string
	DateModified          string
	ConsumptionDate       string
	ValidationDate        string
	MerchantID            int64 `json:"MerchantId"`
	MerchantName          string
	MerchantAvatarURL     string `json:"MerchantAvatarUrl"`
	TrafficType           string
	TrafficSource         string
	CreativeType          string
	CreativeID            *int64 `json:"CreativeId"`
	CreativeName          *string
	CustomerCountryCode   string
	CustomerCountryName   string
	CustomerType          string
	OrderID               string `json:"OrderId"`
	AdditionalNotes       *string
	UniqueID              *string `json:"UniqueId"`
	UniqueID2             *string `json:"UniqueId2"`
	UniqueID3             *string `json:"UniqueId3"`
	UniqueID4             *string `json:"UniqueId4"`
	TrackingMethod        string
	SaleValue             json.Number
	Commission            json.Number
	ReportedCurrencyCode  string
	ReportedCurrencyName  string
	ReportedSaleValue     json.Number
	TrafficSourceApproved bool
	Status                string
	Status2               string
	InvoiceID             *int64 `json:"InvoiceId"`
	Paid                  bool
	VoidReason            *string
	AmendedReason         *string
	CouponCode            *string
	PlacementID           *int64 `json:"PlacementId"`
	PlacementName         *string
	Items                 []jsonAffiliateItem
}

func toJSONAffiliateTransaction(t *afftrack.Transaction) jsonAffiliateTransaction {
	items := []jsonAffiliateItem{}
	for _, it := range t.Items {
		items = append(items, jsonAffiliateItem{
			Sku: it.Sku, Quantity: it.Quantity,
			ReportedSaleValue: json.Number(it.ReportedSaleValue.String()), SaleValue: json.Number(it.SaleValue.String()),
			Commission: json.Number(it.Commission.String()), Name: it.Name, Brand: it.Brand, Category: it.Category,
		})
	}
	return jsonAffiliateTransaction{
		ID: t.ID, DateCreated: t.DateCreated.Format(wireDateTime), DateModified: t.DateModified.Format(wireDateTime),
		ConsumptionDate: t.ConsumptionDate.Format(wireDateTime), ValidationDate: t.ValidationDate.Format(wireDateTime),
		MerchantID: t.MerchantID, MerchantName: t.MerchantName, MerchantAvatarURL: t.MerchantAvatarURL,
		TrafficType: t.TrafficType.String(), TrafficSource: t.TrafficSource, CreativeType: t.CreativeType.String(),
		CreativeID: nullPtr(t.CreativeID), CreativeName: nullPtr(t.CreativeName),
		CustomerCountryCode: t.CustomerCountryCode, CustomerCountryName: t.CustomerCountryName,
		CustomerType: t.CustomerType.String(), OrderID: t.OrderID, AdditionalNotes: nullPtr(t.AdditionalNotes),
		UniqueID: nullPtr(t.UniqueIDs[0]), UniqueID2: nullPtr(t.UniqueIDs[1]), UniqueID3: nullPtr(t.UniqueIDs[2]),
		UniqueID4: nullPtr(t.UniqueIDs[3]), TrackingMethod: t.TrackingMethod.String(),
		SaleValue: json.Number(t.SaleValue.String()), Commission: json.Number(t.Commission.String()),
		ReportedCurrencyCode: t.ReportedCurrencyCode, ReportedCurrencyName: t.ReportedCurrencyName,
		ReportedSaleValue: json.Number(t.ReportedSaleValue.String()), TrafficSourceApproved: t.TrafficSourceApproved,
		Status: t.Status().String(), Status2: t.Status2.String(), InvoiceID: nullPtr(t.InvoiceID),
		Paid: t.Status2 == afftrack.Status2Paid, VoidReason: enumPtr(t.VoidReason == 0, t.VoidReason.String()),
		AmendedReason: enumPtr(t.AmendedReason == 0, t.AmendedReason.String()), CouponCode: nullPtr(t.CouponCode),
		Items: items,
	}
}

type xmlAffiliateItem struct {
	Sku               string
	Quantity          int64
	ReportedSaleValue string
	SaleValue         string
	Commission        string
	Name              string
	Brand             string
	Category          string
}

type xmlAffiliateTransaction struct {
	XMLName               xml.Name
	ID                    int64 `xml:"Id"`
	DateCreated           string
	DateModified          string
	ConsumptionDate       string
	ValidationDate        string
	MerchantID            int64 `xml:"MerchantId"`
	MerchantName          string
	MerchantAvatarURL     string `xml:"MerchantAvatarUrl"`
	TrafficType           string
	TrafficSource         string
	CreativeType          string
	CreativeID            xmlNullString `xml:"CreativeId"`
	CreativeName          xmlNullString
	CustomerCountryCode   string
	CustomerCountryName   string
	CustomerType          string
	OrderID               string `xml:"OrderId"`
	AdditionalNotes       xmlNullString
	UniqueID              xmlNullString `xml:"UniqueId"`
	UniqueID2             xmlNullString `xml:"UniqueId2"`
	UniqueID3             xmlNullString `xml:"UniqueId3"`
	UniqueID4             xmlNullString `xml:"UniqueId4"`
	TrackingMethod        string
	SaleValue             string
	Commission            string
	ReportedCurrencyCode  string
	ReportedCurrencyName  string
	ReportedSaleValue     string
	TrafficSourceApproved bool
	Status                string
	Status2               string
	InvoiceID             xmlNullString `xml:"InvoiceId"`
	Paid                  bool
	VoidReason            xmlNullString
	AmendedReason         xmlNullString
	CouponCode            xmlNullString
	PlacementID           xmlNullString `xml:"PlacementId"`
	PlacementName         xmlNullString
	Items                 []xmlAffiliateItem `xml:"Items>TransactionItem"`
}

func toXMLAffiliateTransaction(t *afftrack.Transaction, ns string) xmlAffiliateTransaction {
	var items []xmlAffiliateItem
	for _, it := range t.Items {
		items = append(items, xmlAffiliateItem{
			Sku: validXML(it.Sku), Quantity: it.Quantity, ReportedSaleValue: it.ReportedSaleValue.String(),
			SaleValue: it.SaleValue.String(), Commission: it.Commission.String(), Name: validXML(it.Name),
			Brand: validXML(it.Brand), Category: validXML(it.Category),
		})
	}
	text := func(n afftrack.Null[string]) xmlNullString { return xmlNull(n, validXML) }
	return xmlAffiliateTransaction{
		XMLName: xml.Name{Space: ns, Local: "Transaction"},
		ID:      t.ID, DateCreated: t.DateCreated.Format(wireDateTime), DateModified: t.DateModified.Format(wireDateTime),
		ConsumptionDate: t.ConsumptionDate.Format(wireDateTime), ValidationDate: t.ValidationDate.Format(wireDateTime),
		MerchantID: t.MerchantID, MerchantName: validXML(t.MerchantName), MerchantAvatarURL: validXML(t.MerchantAvatarURL),
		TrafficType: t.TrafficType.String(), TrafficSource: validXML(t.TrafficSource), CreativeType: t.CreativeType.String(),
		CreativeID: xmlNull(t.CreativeID, itoa), CreativeName: text(t.CreativeName),
		CustomerCountryCode: validXML(t.CustomerCountryCode), CustomerCountryName: validXML(t.CustomerCountryName),
		CustomerType: t.CustomerType.String(), OrderID: validXML(t.OrderID), AdditionalNotes: text(t.AdditionalNotes),
		UniqueID: text(t.UniqueIDs[0]), UniqueID2: text(t.UniqueIDs[1]), UniqueID3: text(t.UniqueIDs[2]),
		UniqueID4: text(t.UniqueIDs[3]), TrackingMethod: t.TrackingMethod.String(),
		SaleValue: t.SaleValue.String(), Commission: t.Commission.String(),
		ReportedCurrencyCode: validXML(t.ReportedCurrencyCode), ReportedCurrencyName: validXML(t.ReportedCurrencyName),
		ReportedSaleValue: t.ReportedSaleValue.String(), TrafficSourceApproved: t.TrafficSourceApproved,
		Status: t.Status().String(), Status2: t.Status2.String(), InvoiceID: xmlNull(t.InvoiceID, itoa),
		Paid:          t.Status2 == afftrack.Status2Paid,
		VoidReason:    xmlEnum(t.VoidReason == 0, t.VoidReason.String()),
		AmendedReason: xmlEnum(t.AmendedReason == 0, t.AmendedReason.String()),
		CouponCode:    text(t.CouponCode), PlacementID: xmlNullString{Nil: true}, PlacementName: xmlNullString{Nil: true},
		Items: items,
	}
}

// randomAffiliateTransaction is a random transaction as the affiliate
// reads fill it.
func randomAffiliateTransaction(rng *rand.Rand) afftrack.Transaction {
	t := randomTransaction(rng)
	t.MerchantID, t.MerchantName, t.MerchantAvatarURL = rng.Int64(), randomString(rng), randomString(rng)
	for i := range t.UniqueIDs {
		t.UniqueIDs[i] = randomNullString(rng)
	}
	return t
}

func TestAffiliateTransactionEncodersAgreeWithTheStandardLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var txs []afftrack.Transaction
	for _, tx := range fixtureTransactions() {
		txs = append(txs, affiliateView(tx))
	}
	for range 300 {
		txs = append(txs, randomAffiliateTransaction(rng))
	}
	t.Run("JSON is what encoding/json writes of the mirror", func(t *testing.T) {
		for i := range txs {
			got := appendAffiliateTransactionJSON(nil, &txs[i])
			if want := marshalJSON(t, toJSONAffiliateTransaction(&txs[i])); !bytes.Equal(got, want) {
				t.Fatalf("transaction %d: differs from encoding/json:\n got %s\nwant %s", i, got, want)
			}
		}
	})
	t.Run("XML decodes with encoding/xml into the mirror", func(t *testing.T) {
		for i := range txs {
			out := appendAffiliateTransactionXML(nil, &txs[i], nsAffiliate)
			var got xmlAffiliateTransaction
			if err := xml.Unmarshal(out, &got); err != nil {
				t.Fatalf("transaction %d: output is not XML: %v\n%s", i, err, out)
			}
			if diff := cmp.Diff(toXMLAffiliateTransaction(&txs[i], nsAffiliate), got); diff != "" {
				t.Fatalf("transaction %d: decoded output differs (-want +got):\n%s\n%s", i, diff, out)
			}
		}
	})
	buf := make([]byte, 0, 64<<10)
	for _, enc := range []struct {
		name string
		fn   func(b []byte, t *afftrack.Transaction) []byte
	}{
		{"JSON", appendAffiliateTransactionJSON},
		{"XML", func(b []byte, t *afftrack.Transaction) []byte { return appendAffiliateTransactionXML(b, t, "") }},
	} {
		t.Run(enc.name+" encoding into a reused buffer allocates nothing", func(t *testing.T) {
			allocs := testing.AllocsPerRun(100, func() {
				for i := range txs {
					buf = enc.fn(buf[:0], &txs[i])
				}
			})
			if allocs != 0 {
				t.Errorf("%v allocations per run, want 0", allocs)
			}
		})
	}
}

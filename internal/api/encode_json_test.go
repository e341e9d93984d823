package api

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

// The mirrors below describe the wire shape with encoding/json and
// encoding/xml tags. encoding/json must produce byte for byte what the
// hand-written encoders produce, and both standard decoders must read the
// hand-written output back into the same values.

type jsonItem struct {
	Sku                string
	Quantity           int64
	ReportedSaleValue  json.Number
	SaleValue          json.Number
	Commission         json.Number
	Name               string
	Brand              string
	Category           string
	CartItemReference  *string
	CartItemReference2 *string
	CartItemReference3 *string
	CartItemReference4 *string
}

type jsonTransaction struct {
	ID                    int64 `json:"Id"`
	DateCreated           string
	DateModified          string
	ConsumptionDate       string
	ValidationDate        string
	AffiliateID           int64 `json:"AffiliateId"`
	AffiliateContactName  string
	AffiliateBusinessName string
	TrafficType           string
	TrafficSource         string
	CreativeType          string
	CreativeID            *int64 `json:"CreativeId"`
	CreativeName          *string
	CustomerCountryCode   string
	CustomerCountryName   string
	CustomerIPAddress     string `json:"CustomerIpAddress"`
	CustomerType          string
	OrderID               string `json:"OrderId"`
	AdditionalNotes       *string
	TrackingMethod        string
	SaleValue             json.Number
	Commission            json.Number
	OverrideFee           json.Number
	ReportedCurrencyCode  string
	ReportedCurrencyName  string
	ReportedSaleValue     json.Number
	TrafficSourceApproved bool
	Status                string
	Status2               string
	InvoiceID             *int64 `json:"InvoiceId"`
	VoidReason            *string
	AmendedReason         *string
	CouponCode            *string
	PlacementID           *int64 `json:"PlacementId"`
	PlacementName         *string
	Items                 []jsonItem
}

type jsonBanner struct {
	ID                int64 `json:"Id"`
	DateCreated       string
	DateModified      string
	MerchantID        int64 `json:"MerchantId"`
	MerchantName      string
	MerchantAvatarURL string `json:"MerchantAvatarUrl"`
	GroupName         string
	Name              string
	TargetURL         string `json:"TargetUrl"`
	Size              string
	Width             int64
	Height            int64
	ImageURL          string `json:"ImageUrl"`
	AltText           string
	TrackingURL       string `json:"TrackingUrl"`
	TrackingCode      string
}

type jsonInvoice struct {
	ID          int64 `json:"Id"`
	DateCreated string
	DatePaid    string
	Number      string
	Description string
	SubTotal    json.Number
	GST         *json.Number
	Total       json.Number
}

const wireDateTime = "2006-01-02T15:04:05.000"

func nullPtr[T any](n afftrack.Null[T]) *T {
	if !n.Valid {
		return nil
	}
	return &n.Value
}

func enumPtr(zero bool, name string) *string {
	if zero {
		return nil
	}
	return &name
}

func toJSONTransaction(t *afftrack.Transaction) jsonTransaction {
	items := []jsonItem{}
	for _, it := range t.Items {
		items = append(items, jsonItem{
			Sku: it.Sku, Quantity: it.Quantity,
			ReportedSaleValue: json.Number(it.ReportedSaleValue.String()), SaleValue: json.Number(it.SaleValue.String()),
			Commission: json.Number(it.Commission.String()), Name: it.Name, Brand: it.Brand, Category: it.Category,
			CartItemReference: nullPtr(it.CartItemReference), CartItemReference2: nullPtr(it.CartItemReference2),
			CartItemReference3: nullPtr(it.CartItemReference3), CartItemReference4: nullPtr(it.CartItemReference4),
		})
	}
	return jsonTransaction{
		ID: t.ID, DateCreated: t.DateCreated.Format(wireDateTime), DateModified: t.DateModified.Format(wireDateTime),
		ConsumptionDate: t.ConsumptionDate.Format(wireDateTime), ValidationDate: t.ValidationDate.Format(wireDateTime),
		AffiliateID: t.AffiliateID, AffiliateContactName: t.AffiliateContactName, AffiliateBusinessName: t.AffiliateBusinessName,
		TrafficType: t.TrafficType.String(), TrafficSource: t.TrafficSource, CreativeType: t.CreativeType.String(),
		CreativeID: nullPtr(t.CreativeID), CreativeName: nullPtr(t.CreativeName),
		CustomerCountryCode: t.CustomerCountryCode, CustomerCountryName: t.CustomerCountryName,
		CustomerIPAddress: t.CustomerIPAddress, CustomerType: t.CustomerType.String(), OrderID: t.OrderID,
		AdditionalNotes: nullPtr(t.AdditionalNotes), TrackingMethod: t.TrackingMethod.String(),
		SaleValue: json.Number(t.SaleValue.String()), Commission: json.Number(t.Commission.String()),
		OverrideFee: json.Number(t.OverrideFee.String()), ReportedCurrencyCode: t.ReportedCurrencyCode,
		ReportedCurrencyName: t.ReportedCurrencyName, ReportedSaleValue: json.Number(t.ReportedSaleValue.String()),
		TrafficSourceApproved: t.TrafficSourceApproved, Status: t.Status().String(), Status2: t.Status2.String(),
		InvoiceID: nullPtr(t.InvoiceID), VoidReason: enumPtr(t.VoidReason == 0, t.VoidReason.String()),
		AmendedReason: enumPtr(t.AmendedReason == 0, t.AmendedReason.String()), CouponCode: nullPtr(t.CouponCode),
		PlacementID: nullPtr(t.PlacementID), PlacementName: nullPtr(t.PlacementName), Items: items,
	}
}

func toJSONBanner(b *afftrack.Banner, trackingURL string) jsonBanner {
	return jsonBanner{
		ID: b.ID, DateCreated: b.DateCreated.Format(wireDateTime), DateModified: b.DateModified.Format(wireDateTime),
		MerchantID: b.MerchantID, MerchantName: b.MerchantName, MerchantAvatarURL: b.MerchantAvatarURL,
		GroupName: b.GroupName, Name: b.Name, TargetURL: b.TargetURL, Size: b.Size(), Width: b.Width, Height: b.Height,
		ImageURL: b.ImageURL, AltText: b.AltText, TrackingURL: trackingURL, TrackingCode: bannerTrackingCode(b, trackingURL),
	}
}

func toJSONInvoice(inv *afftrack.Invoice) jsonInvoice {
	j := jsonInvoice{
		ID: inv.ID, DateCreated: inv.DateCreated.Format(wireDateTime), DatePaid: inv.DatePaid.Format(wireDateTime),
		Number: inv.Number, Description: inv.Description,
		SubTotal: json.Number(inv.SubTotal.String()), Total: json.Number(inv.Total.String()),
	}
	if inv.GST.Valid {
		n := json.Number(inv.GST.Value.String())
		j.GST = &n
	}
	return j
}

func marshalJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAppendJSONStringEscapesExactlyAsEncodingJSON(t *testing.T) {
	cases := []string{
		"", "plain", `"quoted" \ back`, "\b\f\n\r\t", "\x00\x01\x1f\x7f", "<script>&</script>", "\u2028\u2029",
		"\xff", "a\xc3", "\xe2\x80\xa8", "\xed\xa0\x80", "日本😀", "\ufffd\ufffe\uffff",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		cases = append(cases, randomString(rng))
	}
	for _, s := range cases {
		want := marshalJSON(t, s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestAppendJSONStringFindsEveryEscapeWherever(t *testing.T) {
	for _, s := range oneAtEveryPosition() {
		want := marshalJSON(t, s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendJSONString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain text of some length", `a"b\\c<d>e&f`, "\x00\x1f\x7f\n", "\u2028\u2029", "\xff\xc3(", "日本😀\ufffd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); !bytes.Equal(got[1:], want) {
			t.Fatalf("appendJSONString(%q) = %s, want %s", s, got[1:], want)
		}
	})
}

func TestJSONEncodersAgreeWithEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	txs := fixtureTransactions()
	for range 300 {
		txs = append(txs, randomTransaction(rng))
	}
	for i := range txs {
		tx := &txs[i]
		got := appendTransactionJSON(nil, tx)
		want := toJSONTransaction(tx)
		if wantBytes := marshalJSON(t, want); !bytes.Equal(got, wantBytes) {
			t.Fatalf("transaction %d: appendTransactionJSON differs from encoding/json:\n got %s\nwant %s", i, got, wantBytes)
		}
		var back jsonTransaction
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("transaction %d: output is not valid JSON: %v\n%s", i, err, got)
		}
		if diff := cmp.Diff(toJSONTransaction(sanitizedJSON(tx)), back); diff != "" {
			t.Fatalf("transaction %d: decoded output differs (-want +got):\n%s", i, diff)
		}
	}

	banners := fixtureBanners()
	for range 200 {
		banners = append(banners, randomBanner(rng))
	}
	for i := range banners {
		bn := &banners[i]
		url := bannerTrackingURL("http://localhost:8080/t", 7, bn.ID)
		got := appendBannerJSON(nil, bn, url)
		if want := marshalJSON(t, toJSONBanner(bn, url)); !bytes.Equal(got, want) {
			t.Fatalf("banner %d: appendBannerJSON differs from encoding/json:\n got %s\nwant %s", i, got, want)
		}
	}

	invoices := fixtureInvoices()
	for range 200 {
		invoices = append(invoices, randomInvoice(rng))
	}
	for i := range invoices {
		inv := &invoices[i]
		got := appendInvoiceJSON(nil, inv)
		if want := marshalJSON(t, toJSONInvoice(inv)); !bytes.Equal(got, want) {
			t.Fatalf("invoice %d: appendInvoiceJSON differs from encoding/json:\n got %s\nwant %s", i, got, want)
		}
		var back jsonInvoice
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("invoice %d: output is not valid JSON: %v", i, err)
		}
	}
}

// sanitizedJSON returns a copy of t with every string as a JSON decoder
// reads it back: invalid UTF-8 replaced by U+FFFD.
func sanitizedJSON(t *afftrack.Transaction) *afftrack.Transaction {
	c := *t
	c.Items = append([]afftrack.TransactionItem(nil), t.Items...)
	mapStrings(&c, validUTF8)
	return &c
}

// validUTF8 replaces each invalid byte of s with U+FFFD, as encoding/json
// does.
func validUTF8(s string) string { return string([]rune(s)) }

// mapStrings applies fix to every string field of t.
func mapStrings(t *afftrack.Transaction, fix func(string) string) {
	for _, p := range []*string{&t.AffiliateContactName, &t.AffiliateBusinessName, &t.TrafficSource,
		&t.CustomerCountryCode, &t.CustomerCountryName, &t.CustomerIPAddress, &t.OrderID,
		&t.ReportedCurrencyCode, &t.ReportedCurrencyName} {
		*p = fix(*p)
	}
	for _, p := range []*afftrack.Null[string]{&t.CreativeName, &t.AdditionalNotes, &t.CouponCode, &t.PlacementName} {
		p.Value = fix(p.Value)
	}
	for i := range t.Items {
		it := &t.Items[i]
		it.Sku, it.Name, it.Brand, it.Category = fix(it.Sku), fix(it.Name), fix(it.Brand), fix(it.Category)
		for _, p := range []*afftrack.Null[string]{&it.CartItemReference, &it.CartItemReference2,
			&it.CartItemReference3, &it.CartItemReference4} {
			p.Value = fix(p.Value)
		}
	}
}

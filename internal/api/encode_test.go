package api

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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

// randomString mixes what JSON and XML must escape or repair: quotes,
// backslashes, markup characters, every kind of control character,
// U+2028 and U+2029, multi-byte runes and invalid UTF-8.
func randomString(rng *rand.Rand) string {
	pieces := []string{
		"a", "Z", "0", " ", `"`, `\`, "/", "<", ">", "&", "'", "\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f",
		"\x7f", "\u2028", "\u2029", "é", "€", "日本", "😀", "\xff", "\xc3", "\xe2\x80", "\ufffe", "\uffff", "\ufffd",
		"]]>", "&amp;", "</script>",
	}
	var b strings.Builder
	for n := rng.IntN(12); n > 0; n-- {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

func randomNullString(rng *rand.Rand) afftrack.Null[string] {
	if rng.IntN(3) == 0 {
		return afftrack.Null[string]{}
	}
	return afftrack.Some(randomString(rng))
}

func randomNullInt(rng *rand.Rand) afftrack.Null[int64] {
	if rng.IntN(3) == 0 {
		return afftrack.Null[int64]{}
	}
	return afftrack.Some(rng.Int64() - rng.Int64())
}

func randomTime(rng *rand.Rand) time.Time {
	return time.Date(1+rng.IntN(9999), time.Month(1+rng.IntN(12)), 1+rng.IntN(28),
		rng.IntN(24), rng.IntN(60), rng.IntN(60), rng.IntN(1000)*1e6, time.UTC)
}

func randomTransaction(rng *rand.Rand) afftrack.Transaction {
	s := func() string { return randomString(rng) }
	m := func() afftrack.Money { return afftrack.Money(rng.Int64() - rng.Int64()) }
	im := func() afftrack.ItemMoney { return afftrack.ItemMoney(rng.Int64N(1e9) - 5e8) }
	t := afftrack.Transaction{
		ID: rng.Int64(), DateCreated: randomTime(rng), DateModified: randomTime(rng),
		ConsumptionDate: randomTime(rng), ValidationDate: randomTime(rng), AffiliateID: rng.Int64(),
		AffiliateContactName: s(), AffiliateBusinessName: s(),
		TrafficType: afftrack.TrafficType(1 + rng.IntN(6)), TrafficSource: s(),
		CreativeType: afftrack.CreativeType(1 + rng.IntN(5)), CreativeID: randomNullInt(rng),
		CreativeName: randomNullString(rng), CustomerCountryCode: s(), CustomerCountryName: s(),
		CustomerIPAddress: s(), CustomerType: afftrack.CustomerType(1 + rng.IntN(2)), OrderID: s(),
		AdditionalNotes: randomNullString(rng), TrackingMethod: afftrack.TrackingMethod(1 + rng.IntN(7)),
		SaleValue: m(), Commission: m(), OverrideFee: m(), ReportedCurrencyCode: s(), ReportedCurrencyName: s(),
		ReportedSaleValue: m(), TrafficSourceApproved: rng.IntN(2) == 0,
		Status2: afftrack.TransactionStatus2(1 + rng.IntN(5)), InvoiceID: randomNullInt(rng),
		VoidReason: afftrack.VoidReason(rng.IntN(12)), AmendedReason: afftrack.AmendedReason(rng.IntN(6)),
		CouponCode: randomNullString(rng), PlacementID: randomNullInt(rng), PlacementName: randomNullString(rng),
	}
	for n := rng.IntN(4); n > 0; n-- {
		t.Items = append(t.Items, afftrack.TransactionItem{
			Sku: s(), Quantity: rng.Int64N(100) - 5, ReportedSaleValue: im(), SaleValue: im(), Commission: im(),
			Name: s(), Brand: s(), Category: s(),
			CartItemReference: randomNullString(rng), CartItemReference2: randomNullString(rng),
			CartItemReference3: randomNullString(rng), CartItemReference4: randomNullString(rng),
		})
	}
	return t
}

func randomBanner(rng *rand.Rand) afftrack.Banner {
	s := func() string { return randomString(rng) }
	return afftrack.Banner{
		ID: rng.Int64(), DateCreated: randomTime(rng), DateModified: randomTime(rng), MerchantID: rng.Int64(),
		MerchantName: s(), MerchantAvatarURL: s(), GroupName: s(), Name: s(), TargetURL: s(),
		Width: rng.Int64N(1000), Height: rng.Int64N(1000), ImageURL: s(), AltText: s(),
	}
}

func randomInvoice(rng *rand.Rand) afftrack.Invoice {
	inv := afftrack.Invoice{
		ID: rng.Int64(), DateCreated: randomTime(rng), DatePaid: randomTime(rng), Number: randomString(rng),
		Description: randomString(rng), SubTotal: afftrack.Money(rng.Int64()), Total: afftrack.Money(-rng.Int64()),
	}
	if rng.IntN(2) == 0 {
		inv.GST = afftrack.Some(afftrack.Money(rng.Int64N(1e12)))
	}
	return inv
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

type xmlNullString struct {
	Nil   bool   `xml:"nil,attr"`
	Value string `xml:",chardata"`
}

type xmlItem struct {
	Sku                string
	Quantity           int64
	ReportedSaleValue  string
	SaleValue          string
	Commission         string
	Name               string
	Brand              string
	Category           string
	CartItemReference  xmlNullString
	CartItemReference2 xmlNullString
	CartItemReference3 xmlNullString
	CartItemReference4 xmlNullString
}

type xmlTransaction struct {
	XMLName               xml.Name
	ID                    int64 `xml:"Id"`
	DateCreated           string
	DateModified          string
	ConsumptionDate       string
	ValidationDate        string
	AffiliateID           int64 `xml:"AffiliateId"`
	AffiliateContactName  string
	AffiliateBusinessName string
	TrafficType           string
	TrafficSource         string
	CreativeType          string
	CreativeID            xmlNullString `xml:"CreativeId"`
	CreativeName          xmlNullString
	CustomerCountryCode   string
	CustomerCountryName   string
	CustomerIPAddress     string `xml:"CustomerIpAddress"`
	CustomerType          string
	OrderID               string `xml:"OrderId"`
	AdditionalNotes       xmlNullString
	TrackingMethod        string
	SaleValue             string
	Commission            string
	OverrideFee           string
	ReportedCurrencyCode  string
	ReportedCurrencyName  string
	ReportedSaleValue     string
	TrafficSourceApproved bool
	Status                string
	Status2               string
	InvoiceID             xmlNullString `xml:"InvoiceId"`
	VoidReason            xmlNullString
	AmendedReason         xmlNullString
	CouponCode            xmlNullString
	PlacementID           xmlNullString `xml:"PlacementId"`
	PlacementName         xmlNullString
	Items                 []xmlItem `xml:"Items>TransactionItem"`
}

type xmlBanner struct {
	ID                int64 `xml:"Id"`
	DateCreated       string
	DateModified      string
	MerchantID        int64 `xml:"MerchantId"`
	MerchantName      string
	MerchantAvatarURL string `xml:"MerchantAvatarUrl"`
	GroupName         string
	Name              string
	TargetURL         string `xml:"TargetUrl"`
	Size              string
	Width             int64
	Height            int64
	ImageURL          string `xml:"ImageUrl"`
	AltText           string
	TrackingURL       string `xml:"TrackingUrl"`
	TrackingCode      string
}

type xmlBannerArray struct {
	XMLName xml.Name
	Banners []xmlBanner `xml:"Banner"`
}

type xmlInvoice struct {
	XMLName     xml.Name
	ID          int64 `xml:"Id"`
	DateCreated string
	DatePaid    string
	Number      string
	Description string
	SubTotal    string
	GST         xmlNullString
	Total       string
}

// validXML returns s as an XML decoder reads the encoder's output back:
// what XML 1.0 cannot carry is U+FFFD.
func validXML(s string) string {
	var b strings.Builder
	for _, r := range s {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0xFFFE || r == 0xFFFF {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

func xmlNull[T any](n afftrack.Null[T], format func(T) string) xmlNullString {
	if !n.Valid {
		return xmlNullString{Nil: true}
	}
	return xmlNullString{Value: format(n.Value)}
}

func xmlEnum(zero bool, name string) xmlNullString {
	if zero {
		return xmlNullString{Nil: true}
	}
	return xmlNullString{Value: name}
}

func itoa(v int64) string  { return string(appendJSONNullInt(nil, afftrack.Some(v))) }
func same(s string) string { return s }

func toXMLTransaction(t *afftrack.Transaction, ns string) xmlTransaction {
	var items []xmlItem
	for _, it := range t.Items {
		items = append(items, xmlItem{
			Sku: it.Sku, Quantity: it.Quantity, ReportedSaleValue: it.ReportedSaleValue.String(),
			SaleValue: it.SaleValue.String(), Commission: it.Commission.String(), Name: it.Name, Brand: it.Brand,
			Category: it.Category, CartItemReference: xmlNull(it.CartItemReference, same),
			CartItemReference2: xmlNull(it.CartItemReference2, same),
			CartItemReference3: xmlNull(it.CartItemReference3, same),
			CartItemReference4: xmlNull(it.CartItemReference4, same),
		})
	}
	return xmlTransaction{
		XMLName: xml.Name{Space: ns, Local: "Transaction"},
		ID:      t.ID, DateCreated: t.DateCreated.Format(wireDateTime), DateModified: t.DateModified.Format(wireDateTime),
		ConsumptionDate: t.ConsumptionDate.Format(wireDateTime), ValidationDate: t.ValidationDate.Format(wireDateTime),
		AffiliateID: t.AffiliateID, AffiliateContactName: t.AffiliateContactName, AffiliateBusinessName: t.AffiliateBusinessName,
		TrafficType: t.TrafficType.String(), TrafficSource: t.TrafficSource, CreativeType: t.CreativeType.String(),
		CreativeID: xmlNull(t.CreativeID, itoa), CreativeName: xmlNull(t.CreativeName, same),
		CustomerCountryCode: t.CustomerCountryCode, CustomerCountryName: t.CustomerCountryName,
		CustomerIPAddress: t.CustomerIPAddress, CustomerType: t.CustomerType.String(), OrderID: t.OrderID,
		AdditionalNotes: xmlNull(t.AdditionalNotes, same), TrackingMethod: t.TrackingMethod.String(),
		SaleValue: t.SaleValue.String(), Commission: t.Commission.String(), OverrideFee: t.OverrideFee.String(),
		ReportedCurrencyCode: t.ReportedCurrencyCode, ReportedCurrencyName: t.ReportedCurrencyName,
		ReportedSaleValue: t.ReportedSaleValue.String(), TrafficSourceApproved: t.TrafficSourceApproved,
		Status: t.Status().String(), Status2: t.Status2.String(), InvoiceID: xmlNull(t.InvoiceID, itoa),
		VoidReason:    xmlEnum(t.VoidReason == 0, t.VoidReason.String()),
		AmendedReason: xmlEnum(t.AmendedReason == 0, t.AmendedReason.String()),
		CouponCode:    xmlNull(t.CouponCode, same), PlacementID: xmlNull(t.PlacementID, itoa),
		PlacementName: xmlNull(t.PlacementName, same), Items: items,
	}
}

func TestXMLEncodersDecodeWithEncodingXML(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	txs := fixtureTransactions()
	for range 300 {
		txs = append(txs, randomTransaction(rng))
	}
	for i := range txs {
		tx := &txs[i]
		out := appendTransactionXML(nil, tx, nsMerchant)
		var got xmlTransaction
		if err := xml.Unmarshal(out, &got); err != nil {
			t.Fatalf("transaction %d: output is not XML: %v\n%s", i, err, out)
		}
		want := *tx
		want.Items = append([]afftrack.TransactionItem(nil), tx.Items...)
		mapStrings(&want, validXML)
		if diff := cmp.Diff(toXMLTransaction(&want, nsMerchant), got); diff != "" {
			t.Fatalf("transaction %d: decoded output differs (-want +got):\n%s\n%s", i, diff, out)
		}
	}

	banners := fixtureBanners()
	for range 200 {
		banners = append(banners, randomBanner(rng))
	}
	for i := range banners {
		bn := &banners[i]
		url := bannerTrackingURL("http://localhost:8080/t", 7, bn.ID)
		out := appendXMLOpen(nil, "BannerArray", nsAffiliate)
		out = appendBannerXML(out, bn, url)
		out = appendXMLClose(out, "BannerArray")
		var got xmlBannerArray
		if err := xml.Unmarshal(out, &got); err != nil {
			t.Fatalf("banner %d: output is not XML: %v\n%s", i, err, out)
		}
		j := toJSONBanner(bn, url)
		want := xmlBannerArray{XMLName: xml.Name{Space: nsAffiliate, Local: "BannerArray"}, Banners: []xmlBanner{{
			ID: j.ID, DateCreated: j.DateCreated, DateModified: j.DateModified, MerchantID: j.MerchantID,
			MerchantName: validXML(j.MerchantName), MerchantAvatarURL: validXML(j.MerchantAvatarURL),
			GroupName: validXML(j.GroupName), Name: validXML(j.Name), TargetURL: validXML(j.TargetURL),
			Size: j.Size, Width: j.Width, Height: j.Height, ImageURL: validXML(j.ImageURL),
			AltText: validXML(j.AltText), TrackingURL: j.TrackingURL, TrackingCode: validXML(j.TrackingCode),
		}}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("banner %d: decoded output differs (-want +got):\n%s", i, diff)
		}
	}

	invoices := fixtureInvoices()
	for range 200 {
		invoices = append(invoices, randomInvoice(rng))
	}
	for i := range invoices {
		inv := &invoices[i]
		out := appendInvoiceXML(nil, inv, nsAffiliate)
		var got xmlInvoice
		if err := xml.Unmarshal(out, &got); err != nil {
			t.Fatalf("invoice %d: output is not XML: %v\n%s", i, err, out)
		}
		want := xmlInvoice{
			XMLName: xml.Name{Space: nsAffiliate, Local: "Invoice"},
			ID:      inv.ID, DateCreated: inv.DateCreated.Format(wireDateTime), DatePaid: inv.DatePaid.Format(wireDateTime),
			Number: validXML(inv.Number), Description: validXML(inv.Description), SubTotal: inv.SubTotal.String(),
			GST: xmlNull(inv.GST, afftrack.Money.String), Total: inv.Total.String(),
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("invoice %d: decoded output differs (-want +got):\n%s", i, diff)
		}
	}
}

func TestXMLTextEscaping(t *testing.T) {
	tests := []struct {
		name string
		in   string
		attr bool
		want string
	}{
		{"markup characters are escaped", `a<b>&c"d'`, false, `a&lt;b&gt;&amp;c"d'`},
		{"quotes are escaped in attributes", `a"b`, true, `a&quot;b`},
		{"carriage returns survive parsing", "a\r\nb", false, "a&#xD;\nb"},
		{"tabs and newlines stay as written", "a\tb\nc", false, "a\tb\nc"},
		{"characters XML cannot carry become U+FFFD", "a\x00b\x1fc\ufffed\xffe", false, "a\ufffdb\ufffdc\ufffdd\ufffde"},
		{"other text is written as is", "日本 😀 \u2028", false, "日本 😀 \u2028"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, string(appendXMLText(nil, tt.in, tt.attr))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAppendDateTime(t *testing.T) {
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), "2000-01-01T00:00:00.000"},
		{time.Date(2024, 12, 31, 23, 59, 59, 999_999_999, time.UTC), "2024-12-31T23:59:59.999"},
		{time.Date(1, 2, 3, 4, 5, 6, 7_000_000, time.UTC), "0001-02-03T04:05:06.007"},
		{time.Date(999, 10, 11, 12, 13, 14, 50_000_000, time.UTC), "0999-10-11T12:13:14.050"},
	}
	for _, tt := range tests {
		t.Run("formats "+tt.want, func(t *testing.T) {
			if got := string(appendDateTime(nil, tt.in)); got != tt.want {
				t.Errorf("appendDateTime = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTransactionEncodersDoNotAllocate(t *testing.T) {
	txs := fixtureTransactions()
	buf := make([]byte, 0, 64<<10)
	for _, enc := range []struct {
		name string
		fn   func(b []byte, t *afftrack.Transaction) []byte
	}{
		{"JSON", appendTransactionJSON},
		{"XML", func(b []byte, t *afftrack.Transaction) []byte { return appendTransactionXML(b, t, "") }},
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

// benchTransactions are realistic rows: the fixtures' status patterns.
func benchTransactions() []afftrack.Transaction { return fixtureTransactions()[:3] }

func BenchmarkTransactionJSON(b *testing.B) {
	txs := benchTransactions()
	buf := make([]byte, 0, 16<<10)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = appendTransactionJSON(buf[:0], &txs[i%len(txs)])
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkTransactionJSONEncodingJSON(b *testing.B) {
	var wire []jsonTransaction
	for _, t := range benchTransactions() {
		wire = append(wire, toJSONTransaction(&t))
	}
	enc := json.NewEncoder(io.Discard)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := enc.Encode(&wire[i%len(wire)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTransactionXML(b *testing.B) {
	txs := benchTransactions()
	buf := make([]byte, 0, 16<<10)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = appendTransactionXML(buf[:0], &txs[i%len(txs)], "")
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkTransactionXMLEncodingXML(b *testing.B) {
	var wire []xmlTransaction
	for _, t := range benchTransactions() {
		wire = append(wire, toXMLTransaction(&t, ""))
	}
	var out bytes.Buffer
	enc := xml.NewEncoder(&out)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		out.Reset()
		if err := enc.Encode(&wire[i%len(wire)]); err != nil {
			b.Fatal(err)
		}
	}
}

package api

import (
	"encoding/xml"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

// xmlNullString reads a nullable element: its text, or i:nil="true".
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

// referenceXMLText is appendXMLText written the obvious way, a rune at a
// time, to check the word-at-a-time one against.
func referenceXMLText(s string, attr bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == 0xFFFE, r == 0xFFFF, r < 0x20 && r != '\t' && r != '\n' && r != '\r':
			b.WriteRune(utf8.RuneError)
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"' && attr:
			b.WriteString("&quot;")
		case r == '\r':
			b.WriteString("&#xD;")
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func TestAppendXMLTextFindsEveryEscapeWherever(t *testing.T) {
	for _, s := range oneAtEveryPosition() {
		for _, attr := range []bool{false, true} {
			if got, want := string(appendXMLText(nil, s, attr)), referenceXMLText(s, attr); got != want {
				t.Fatalf("appendXMLText(%q, %v) = %q, want %q", s, attr, got, want)
			}
		}
	}
}

func FuzzAppendXMLText(f *testing.F) {
	for _, s := range []string{"", "plain text of some length", `a"b'c<d>e&f`, "\x00\x1f\x7f\r\n\t", "\ufffe\uffff", "\xff\xc3(", "日本😀\ufffd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, attr := range []bool{false, true} {
			got := appendXMLText([]byte("x"), s, attr)
			if want := referenceXMLText(s, attr); string(got[1:]) != want {
				t.Fatalf("appendXMLText(%q, %v) = %q, want %q", s, attr, got[1:], want)
			}
		}
		// And a parser reads the text back as the contract promises.
		var back struct {
			Text string `xml:",chardata"`
		}
		if err := xml.Unmarshal(append(append([]byte("<a>"), appendXMLText(nil, s, false)...), "</a>"...), &back); err != nil {
			t.Fatalf("appendXMLText(%q) does not parse: %v", s, err)
		}
		if want := validXML(s); back.Text != want {
			t.Fatalf("appendXMLText(%q) reads back as %q, want %q", s, back.Text, want)
		}
	})
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

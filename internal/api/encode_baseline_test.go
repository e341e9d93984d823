package api

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

// The benchmarks of encode_bench_test.go measure the hand-written encoders against what a
// service built on encoding/json or encoding/xml has to do for the same
// response, on the same transactions, in the same run, so the speed-up is
// a ratio of two figures measured side by side:
//
//   - ours: appendTransactionJSON / appendTransactionXML from the domain
//     transaction into a reused buffer, then one Write to io.Discard.
//   - encoding_json / encoding_xml (the baseline): per transaction, convert
//     the domain value into a wire struct the standard encoder can write in
//     the contract's form, then encode it. Converting is part of the cost
//     because encoding/json cannot write the contract from the domain type:
//     datetimes need the .fff layout (time.Time marshals as RFC 3339 with a
//     zone), money needs exactly 4 or 2 fractional digits (an int64 of
//     ten-thousandths is not a number the client reads; a float64 loses
//     exactness and digits), nullable fields need pointers, Status is
//     derived, enumerations are names, and XML nulls need i:nil. The
//     baseline is written the efficient way: one wire struct reused (its
//     Items slice too), pointers into the domain value rather than copies,
//     datetimes and amounts formatted into a stack buffer with one string
//     allocation each (the least a string field allows; a MarshalJSON
//     method would allocate as much and encoding/json would then re-scan
//     its output), one Encoder reused and writing to io.Discard.
//   - encoding_json_marshal_only / encoding_xml_marshal_only: the wire
//     structs are built before the timer starts and only Encode is
//     measured, for transparency: the lower bound of the standard
//     encoders' cost, which no real service reaches.
//
// TestBenchmarkBaselinesWriteTheContract checks that every baseline
// writes what ours writes: the same bytes for JSON (bar the newline
// json.Encoder ends a value with), and for XML the same document up to the
// spellings encoding/xml cannot be told to use (an empty element as
// <X></X> rather than <X />, and character references for quotes, tabs
// and newlines).

// baselineJSON is the wire form a service on encoding/json would fill from
// each transaction. The unexported fields are storage the pointers of the
// nullable enumerations point into, so filling it allocates nothing but the
// formatted datetimes and amounts.
type baselineJSON struct {
	wire                      jsonTransaction
	voidReason, amendedReason string
}

// fill converts t into b.wire, reusing b's storage. The pointers point into
// t, which the caller keeps alive until the wire form is encoded.
func (b *baselineJSON) fill(t *afftrack.Transaction) {
	w := &b.wire
	items := w.Items[:0]
	for i := range t.Items {
		it := &t.Items[i]
		items = append(items, jsonItem{
			Sku: it.Sku, Quantity: it.Quantity, ReportedSaleValue: itemNumber(it.ReportedSaleValue),
			SaleValue: itemNumber(it.SaleValue), Commission: itemNumber(it.Commission),
			Name: it.Name, Brand: it.Brand, Category: it.Category,
			CartItemReference: nullRef(&it.CartItemReference), CartItemReference2: nullRef(&it.CartItemReference2),
			CartItemReference3: nullRef(&it.CartItemReference3), CartItemReference4: nullRef(&it.CartItemReference4),
		})
	}
	*w = jsonTransaction{
		ID: t.ID, DateCreated: wireTime(t.DateCreated), DateModified: wireTime(t.DateModified),
		ConsumptionDate: wireTime(t.ConsumptionDate), ValidationDate: wireTime(t.ValidationDate),
		AffiliateID: t.AffiliateID, AffiliateContactName: t.AffiliateContactName,
		AffiliateBusinessName: t.AffiliateBusinessName, TrafficType: t.TrafficType.String(),
		TrafficSource: t.TrafficSource, CreativeType: t.CreativeType.String(), CreativeID: nullRef(&t.CreativeID),
		CreativeName: nullRef(&t.CreativeName), CustomerCountryCode: t.CustomerCountryCode,
		CustomerCountryName: t.CustomerCountryName, CustomerIPAddress: t.CustomerIPAddress,
		CustomerType: t.CustomerType.String(), OrderID: t.OrderID, AdditionalNotes: nullRef(&t.AdditionalNotes),
		TrackingMethod: t.TrackingMethod.String(), SaleValue: moneyNumber(t.SaleValue),
		Commission: moneyNumber(t.Commission), OverrideFee: moneyNumber(t.OverrideFee),
		ReportedCurrencyCode: t.ReportedCurrencyCode, ReportedCurrencyName: t.ReportedCurrencyName,
		ReportedSaleValue: moneyNumber(t.ReportedSaleValue), TrafficSourceApproved: t.TrafficSourceApproved,
		Status: t.Status().String(), Status2: t.Status2.String(), InvoiceID: nullRef(&t.InvoiceID),
		CouponCode: nullRef(&t.CouponCode), PlacementID: nullRef(&t.PlacementID),
		PlacementName: nullRef(&t.PlacementName), Items: items,
	}
	if t.VoidReason != 0 {
		b.voidReason = t.VoidReason.String()
		w.VoidReason = &b.voidReason
	}
	if t.AmendedReason != 0 {
		b.amendedReason = t.AmendedReason.String()
		w.AmendedReason = &b.amendedReason
	}
}

// nullRef points at a nullable value in place, or is nil for null.
func nullRef[T any](n *afftrack.Null[T]) *T {
	if !n.Valid {
		return nil
	}
	return &n.Value
}

// wireTime formats a datetime with one allocation, the string itself.
func wireTime(t time.Time) string {
	var buf [32]byte
	return string(t.AppendFormat(buf[:0], wireDateTime))
}

// moneyNumber and itemNumber format an amount with one allocation.
func moneyNumber(m afftrack.Money) json.Number {
	var buf [24]byte
	return json.Number(afftrack.AppendFixed(buf[:0], int64(m), afftrack.MoneyScale))
}

func itemNumber(m afftrack.ItemMoney) json.Number {
	var buf [24]byte
	return json.Number(afftrack.AppendFixed(buf[:0], int64(m), afftrack.ItemMoneyScale))
}

// xmlNilText and xmlNilInt write a nullable element the contract's way as
// far as encoding/xml can: i:nil="true" and no content for null.
type xmlNilText struct {
	Nil   string  `xml:"i:nil,attr,omitempty"`
	Value *string `xml:",chardata"`
}

type xmlNilInt struct {
	Nil   string `xml:"i:nil,attr,omitempty"`
	Value *int64 `xml:",chardata"`
}

func nilText(n *afftrack.Null[string]) xmlNilText {
	if !n.Valid {
		return xmlNilText{Nil: "true"}
	}
	return xmlNilText{Value: &n.Value}
}

func nilInt(n *afftrack.Null[int64]) xmlNilInt {
	if !n.Valid {
		return xmlNilInt{Nil: "true"}
	}
	return xmlNilInt{Value: &n.Value}
}

type xmlWireItem struct {
	Sku                string
	Quantity           int64
	ReportedSaleValue  string
	SaleValue          string
	Commission         string
	Name               string
	Brand              string
	Category           string
	CartItemReference  xmlNilText
	CartItemReference2 xmlNilText
	CartItemReference3 xmlNilText
	CartItemReference4 xmlNilText
}

// xmlWireTransaction is the wire form a service on encoding/xml would fill.
// Items is a wrapper so an empty list still writes its element.
type xmlWireTransaction struct {
	XMLName               xml.Name `xml:"Transaction"`
	ID                    int64    `xml:"Id"`
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
	CreativeID            xmlNilInt `xml:"CreativeId"`
	CreativeName          xmlNilText
	CustomerCountryCode   string
	CustomerCountryName   string
	CustomerIPAddress     string `xml:"CustomerIpAddress"`
	CustomerType          string
	OrderID               string `xml:"OrderId"`
	AdditionalNotes       xmlNilText
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
	InvoiceID             xmlNilInt `xml:"InvoiceId"`
	VoidReason            xmlNilText
	AmendedReason         xmlNilText
	CouponCode            xmlNilText
	PlacementID           xmlNilInt `xml:"PlacementId"`
	PlacementName         xmlNilText
	Items                 struct {
		Item []xmlWireItem `xml:"TransactionItem"`
	}
}

// baselineXML is the reused wire form and the storage its enumeration
// pointers point into.
type baselineXML struct {
	wire                      xmlWireTransaction
	voidReason, amendedReason string
}

// fill converts t into b.wire, reusing b's storage.
func (b *baselineXML) fill(t *afftrack.Transaction) {
	w := &b.wire
	items := w.Items.Item[:0]
	for i := range t.Items {
		it := &t.Items[i]
		items = append(items, xmlWireItem{
			Sku: it.Sku, Quantity: it.Quantity, ReportedSaleValue: string(itemNumber(it.ReportedSaleValue)),
			SaleValue: string(itemNumber(it.SaleValue)), Commission: string(itemNumber(it.Commission)),
			Name: it.Name, Brand: it.Brand, Category: it.Category,
			CartItemReference: nilText(&it.CartItemReference), CartItemReference2: nilText(&it.CartItemReference2),
			CartItemReference3: nilText(&it.CartItemReference3), CartItemReference4: nilText(&it.CartItemReference4),
		})
	}
	*w = xmlWireTransaction{
		ID: t.ID, DateCreated: wireTime(t.DateCreated), DateModified: wireTime(t.DateModified),
		ConsumptionDate: wireTime(t.ConsumptionDate), ValidationDate: wireTime(t.ValidationDate),
		AffiliateID: t.AffiliateID, AffiliateContactName: t.AffiliateContactName,
		AffiliateBusinessName: t.AffiliateBusinessName, TrafficType: t.TrafficType.String(),
		TrafficSource: t.TrafficSource, CreativeType: t.CreativeType.String(), CreativeID: nilInt(&t.CreativeID),
		CreativeName: nilText(&t.CreativeName), CustomerCountryCode: t.CustomerCountryCode,
		CustomerCountryName: t.CustomerCountryName, CustomerIPAddress: t.CustomerIPAddress,
		CustomerType: t.CustomerType.String(), OrderID: t.OrderID, AdditionalNotes: nilText(&t.AdditionalNotes),
		TrackingMethod: t.TrackingMethod.String(), SaleValue: string(moneyNumber(t.SaleValue)),
		Commission: string(moneyNumber(t.Commission)), OverrideFee: string(moneyNumber(t.OverrideFee)),
		ReportedCurrencyCode: t.ReportedCurrencyCode, ReportedCurrencyName: t.ReportedCurrencyName,
		ReportedSaleValue: string(moneyNumber(t.ReportedSaleValue)), TrafficSourceApproved: t.TrafficSourceApproved,
		Status: t.Status().String(), Status2: t.Status2.String(), InvoiceID: nilInt(&t.InvoiceID),
		VoidReason: xmlNilText{Nil: "true"}, AmendedReason: xmlNilText{Nil: "true"},
		CouponCode: nilText(&t.CouponCode), PlacementID: nilInt(&t.PlacementID), PlacementName: nilText(&t.PlacementName),
	}
	w.Items.Item = items
	if t.VoidReason != 0 {
		b.voidReason = t.VoidReason.String()
		w.VoidReason = xmlNilText{Value: &b.voidReason}
	}
	if t.AmendedReason != 0 {
		b.amendedReason = t.AmendedReason.String()
		w.AmendedReason = xmlNilText{Value: &b.amendedReason}
	}
}

// xmlSpellings maps encoding/xml's spellings to ours, for comparing
// documents that differ only in how they spell the same content.
var xmlSpellings = strings.NewReplacer(`i:nil="true"></`, `i:nil="true" /></`, "<Items></Items>", "<Items />",
	"&#34;", `"`, "&#39;", "'", "&#xA;", "\n", "&#x9;", "\t")

// normalizeXML rewrites encoding/xml's output in our spellings: each
// i:nil element's end tag is dropped after the self-closing form is made.
func normalizeXML(s string) string {
	s = xmlSpellings.Replace(s)
	var b strings.Builder
	for {
		i := strings.Index(s, `i:nil="true" /></`)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		i += len(`i:nil="true" />`)
		b.WriteString(s[:i])
		s = s[i+strings.IndexByte(s[i:], '>')+1:]
	}
}

func TestBenchmarkBaselinesWriteTheContract(t *testing.T) {
	txs := benchTransactions(benchSet)
	var escapes int
	for i := range txs {
		ours := appendTransactionJSON(nil, &txs[i])
		if bytes.ContainsAny(ours, `\`) {
			escapes++
		}
	}
	t.Run("the benchmark set has a few strings to escape, not many", func(t *testing.T) {
		if escapes == 0 || escapes > benchSet/2 {
			t.Errorf("%d of %d transactions need an escape", escapes, benchSet)
		}
	})
	t.Run("the encoding/json baseline writes our bytes", func(t *testing.T) {
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		var b baselineJSON
		for i := range txs {
			out.Reset()
			b.fill(&txs[i])
			if err := enc.Encode(&b.wire); err != nil {
				t.Fatal(err)
			}
			want := string(appendTransactionJSON(nil, &txs[i])) + "\n"
			if diff := cmp.Diff(want, out.String()); diff != "" {
				t.Fatalf("transaction %d (-ours +baseline):\n%s", i, diff)
			}
		}
	})
	t.Run("the encoding/xml baseline writes our document", func(t *testing.T) {
		var out bytes.Buffer
		enc := xml.NewEncoder(&out)
		var b baselineXML
		for i := range txs {
			out.Reset()
			b.fill(&txs[i])
			if err := enc.Encode(&b.wire); err != nil {
				t.Fatal(err)
			}
			want := string(appendTransactionXML(nil, &txs[i], ""))
			if diff := cmp.Diff(want, normalizeXML(out.String())); diff != "" {
				t.Fatalf("transaction %d (-ours +baseline):\n%s", i, diff)
			}
		}
	})
}

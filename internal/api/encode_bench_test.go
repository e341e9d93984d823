package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
)

// benchSet is the number of distinct transactions a per-transaction
// benchmark cycles through.
const benchSet = 100

// benchWords are the ASCII text of realistic rows; a few carry a character
// JSON or XML must escape, as real business names and notes do.
var benchWords = struct {
	contacts, businesses, sources, countries, currencies, products, brands, categories, notes []string
}{
	contacts: []string{"John Smith", "Jane Doe", "Olivia Brown", "Liam Wilson", "Noah Taylor", "Mia Anderson"},
	businesses: []string{"Example Pty Ltd", "Smith & Co", "Coupon Hub", "Deals Daily Pty Ltd", "The Gift Guide",
		"Brown Media Group"},
	sources: []string{"https://www.example.com/", "https://blog.example.org/best-running-shoes-2024",
		"https://deals.example.net/?utm_source=newsletter", "https://www.instagram.com/examplestyle"},
	countries:  []string{"AUS", "Australia", "NZL", "New Zealand", "USA", "United States", "GBR", "United Kingdom"},
	currencies: []string{"AUD", "Australian Dollar", "NZD", "New Zealand Dollar", "USD", "US Dollar"},
	products: []string{"Trail Running Shoe", "Merino Crew Neck", "Leather Wallet", "Silver Pendant 45cm",
		"Cotton Tee 3-Pack", "Rain Jacket"},
	brands:     []string{"Example Brand", "Northwind", "Acme", "Contoso Outdoor"},
	categories: []string{"Shoes", "Clothing", "Accessories", "Jewellery", "Outdoor"},
	notes:      []string{"Gift wrapped", `Customer asked for "express" delivery`, "Split payment\nsecond card"},
}

// benchTransactions returns n realistic transactions: 0 to 5 items, some
// nullable fields null, statuses that keep the domain's invariants, plain
// ASCII text with an occasional character to escape.
func benchTransactions(n int) []afftrack.Transaction {
	rng := rand.New(rand.NewPCG(2024, 7))
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	pair := func(s []string) (string, string) { i := rng.IntN(len(s)/2) * 2; return s[i], s[i+1] }
	some := func(p int, s string) afftrack.Null[string] {
		if rng.IntN(100) < p {
			return afftrack.Some(s)
		}
		return afftrack.Null[string]{}
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	txs := make([]afftrack.Transaction, n)
	for i := range txs {
		created := start.Add(time.Duration(rng.Int64N(int64(365 * 24 * time.Hour)))).Truncate(time.Millisecond)
		t := afftrack.Transaction{
			ID: 1_000_000 + int64(i), MerchantID: 17,
			DateCreated: created, DateModified: created.Add(time.Duration(rng.Int64N(int64(20 * 24 * time.Hour)))).Truncate(time.Millisecond),
			ConsumptionDate: created.Truncate(24 * time.Hour), ValidationDate: created.Truncate(24*time.Hour).AddDate(0, 0, 30),
			AffiliateID: 1 + rng.Int64N(5000), AffiliateContactName: pick(benchWords.contacts),
			AffiliateBusinessName: pick(benchWords.businesses), TrafficType: afftrack.TrafficType(1 + rng.IntN(6)),
			TrafficSource: pick(benchWords.sources), CreativeType: afftrack.CreativeType(1 + rng.IntN(5)),
			CustomerIPAddress: fmt.Sprintf("%016x%016x", rng.Uint64(), rng.Uint64()),
			CustomerType:      afftrack.CustomerType(1 + rng.IntN(2)),
			OrderID:           "ORD-" + strconv.Itoa(100000+rng.IntN(900000)),
			AdditionalNotes:   some(10, pick(benchWords.notes)), TrackingMethod: afftrack.TrackingMethod(1 + rng.IntN(7)),
			TrafficSourceApproved: rng.IntN(4) != 0, CouponCode: some(25, "SAVE"+strconv.Itoa(5+rng.IntN(40))),
		}
		t.CustomerCountryCode, t.CustomerCountryName = pair(benchWords.countries)
		t.ReportedCurrencyCode, t.ReportedCurrencyName = pair(benchWords.currencies)
		if rng.IntN(2) == 0 {
			t.CreativeID, t.CreativeName = afftrack.Some(1+rng.Int64N(900)), afftrack.Some("Spring Sale 728x90")
		}
		if rng.IntN(4) == 0 {
			t.PlacementID, t.PlacementName = afftrack.Some(1+rng.Int64N(50)), afftrack.Some("Homepage Sidebar")
		}
		t.SaleValue = afftrack.Money(10_000 + rng.Int64N(50_000_000))
		t.ReportedSaleValue = t.SaleValue
		t.Commission = t.SaleValue / 10
		t.OverrideFee = t.SaleValue / 40
		switch t.Status2 = afftrack.TransactionStatus2(1 + rng.IntN(5)); t.Status2 {
		case afftrack.Status2Paid:
			t.InvoiceID = afftrack.Some(5000 + rng.Int64N(1000))
		case afftrack.Status2Void:
			t.VoidReason = afftrack.VoidReason(1 + rng.IntN(11))
		}
		if rng.IntN(10) == 0 {
			t.AmendedReason = afftrack.AmendedReason(1 + rng.IntN(5))
		}
		for range rng.IntN(6) {
			price := afftrack.ItemMoney(100 + rng.Int64N(50_000))
			t.Items = append(t.Items, afftrack.TransactionItem{
				Sku: "SKU-" + strconv.Itoa(10000+rng.IntN(90000)), Quantity: 1 + rng.Int64N(3),
				ReportedSaleValue: price, SaleValue: price, Commission: price / 10,
				Name: pick(benchWords.products), Brand: pick(benchWords.brands), Category: pick(benchWords.categories),
				CartItemReference: some(30, "line-"+strconv.Itoa(rng.IntN(100))),
			})
		}
		txs[i] = t
	}
	return txs
}

// meanSize returns the mean size of ours, for MB/s figures that compare
// across encoders writing the same content.
func meanSize(txs []afftrack.Transaction, enc func([]byte, *afftrack.Transaction) []byte) int64 {
	var n int
	for i := range txs {
		n += len(enc(nil, &txs[i]))
	}
	return int64(n / len(txs))
}

func appendTransactionXMLItem(b []byte, t *afftrack.Transaction) []byte {
	return appendTransactionXML(b, t, "")
}

// BenchmarkTransactionJSON encodes one transaction per op, cycling through
// benchSet of them. The speed-up is encoding_json's sec/op over ours; what
// each sub-benchmark includes is set out in encode_baseline_test.go.
func BenchmarkTransactionJSON(b *testing.B) {
	txs := benchTransactions(benchSet)
	size := meanSize(txs, appendTransactionJSON)
	b.Run("ours", func(b *testing.B) {
		buf := make([]byte, 0, 16<<10)
		b.SetBytes(size)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			buf = appendTransactionJSON(buf[:0], &txs[i%len(txs)])
			_, _ = io.Discard.Write(buf)
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		var w baselineJSON
		enc := json.NewEncoder(io.Discard)
		b.SetBytes(size)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			w.fill(&txs[i%len(txs)])
			if err := enc.Encode(&w.wire); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json_marshal_only", func(b *testing.B) {
		wire := make([]baselineJSON, len(txs))
		for i := range txs {
			wire[i].fill(&txs[i])
		}
		enc := json.NewEncoder(io.Discard)
		b.SetBytes(size)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if err := enc.Encode(&wire[i%len(wire)].wire); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTransactionXML is BenchmarkTransactionJSON for XML: the
// speed-up is encoding_xml's sec/op over ours.
func BenchmarkTransactionXML(b *testing.B) {
	txs := benchTransactions(benchSet)
	size := meanSize(txs, appendTransactionXMLItem)
	b.Run("ours", func(b *testing.B) {
		buf := make([]byte, 0, 16<<10)
		b.SetBytes(size)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			buf = appendTransactionXML(buf[:0], &txs[i%len(txs)], "")
			_, _ = io.Discard.Write(buf)
		}
	})
	b.Run("encoding_xml", func(b *testing.B) {
		var w baselineXML
		enc := xml.NewEncoder(io.Discard)
		b.SetBytes(size)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			w.fill(&txs[i%len(txs)])
			if err := enc.Encode(&w.wire); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_xml_marshal_only", func(b *testing.B) {
		wire := make([]baselineXML, len(txs))
		for i := range txs {
			wire[i].fill(&txs[i])
		}
		enc := xml.NewEncoder(io.Discard)
		b.SetBytes(size)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if err := enc.Encode(&wire[i%len(wire)].wire); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// discardResponse is a ResponseWriter that throws the body away, so a list
// benchmark measures the stream and not a recorder's growing buffer.
type discardResponse struct{ h http.Header }

func (w discardResponse) Header() http.Header         { return w.h }
func (w discardResponse) Write(p []byte) (int, error) { return len(p), nil }
func (w discardResponse) WriteHeader(int)             {}

// listSize is the length of the list the list benchmarks write.
const listSize = 1000

// BenchmarkTransactionList writes a whole list of listSize transactions
// per op through transactionStream, the handler's own path: the buffer
// reused per row, the bufio.Writer, the array's opening and closing. The
// baselines write the same list with a reused wire struct and a reused
// standard Encoder into the same kind of bufio.Writer.
func BenchmarkTransactionList(b *testing.B) {
	txs := benchTransactions(listSize)
	var jsonSize, xmlSize int64
	for i := range txs {
		jsonSize += int64(len(appendTransactionJSON(nil, &txs[i]))) + 1
		xmlSize += int64(len(appendTransactionXML(nil, &txs[i], "")))
	}
	for _, f := range []struct {
		name string
		neg  negotiation
		size int64
	}{
		{"JSON", negotiation{format: formatJSON}, jsonSize},
		{"XML", negotiation{format: formatXML}, xmlSize},
	} {
		b.Run(f.name+"/ours", func(b *testing.B) {
			st := &requestState{neg: f.neg, ns: nsMerchant}
			w := discardResponse{h: http.Header{}}
			b.SetBytes(f.size)
			b.ReportAllocs()
			for b.Loop() {
				ts := newTransactionStream(w, st, merchantEncoding)
				for i := range txs {
					if err := ts.write(&txs[i]); err != nil {
						b.Fatal(err)
					}
				}
				ts.finish()
				ts.release()
			}
		})
	}
	b.Run("JSON/encoding_json", func(b *testing.B) {
		var w baselineJSON
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		b.SetBytes(jsonSize)
		b.ReportAllocs()
		for b.Loop() {
			bw := bufio.NewWriterSize(io.Discard, streamBufferSize)
			_ = bw.WriteByte('[')
			for i := range txs {
				if i > 0 {
					_ = bw.WriteByte(',')
				}
				out.Reset()
				w.fill(&txs[i])
				if err := enc.Encode(&w.wire); err != nil {
					b.Fatal(err)
				}
				_, _ = bw.Write(out.Bytes()[:out.Len()-1]) // the contract's JSON is compact: no newline
			}
			_ = bw.WriteByte(']')
			_ = bw.Flush()
		}
	})
	b.Run("XML/encoding_xml", func(b *testing.B) {
		var w baselineXML
		b.SetBytes(xmlSize)
		b.ReportAllocs()
		for b.Loop() {
			bw := bufio.NewWriterSize(io.Discard, streamBufferSize)
			_, _ = bw.WriteString(`<TransactionArray xmlns:i="` + xsiNamespace + `" xmlns="` + nsMerchant + `">`)
			enc := xml.NewEncoder(bw)
			for i := range txs {
				w.fill(&txs[i])
				if err := enc.Encode(&w.wire); err != nil {
					b.Fatal(err)
				}
			}
			_, _ = bw.WriteString("</TransactionArray>")
			_ = bw.Flush()
		}
	})
}

package api

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/afftrack/afftrack"
)

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

// oneAtEveryPosition returns strings of plain letters of many lengths,
// around and across the eight-byte words the escapers check at once, with
// one piece (every ASCII byte, and runes and bytes beyond ASCII) at every
// position: where a word-at-a-time scan can miss a byte, this finds it.
func oneAtEveryPosition() []string {
	var pieces []string
	for c := range utf8.RuneSelf {
		pieces = append(pieces, string(rune(c)))
	}
	pieces = append(pieces, "é", "€", "😀", "\u2028", "\u2029", "\ufffd", "\ufffe", "\uffff", "\xff", "\xc3", "\xe2\x80")
	var out []string
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 17, 23, 24, 25, 31, 32, 33} {
		for p := 0; p <= n; p++ {
			for _, piece := range pieces {
				out = append(out, strings.Repeat("a", p)+piece+strings.Repeat("b", n-p))
			}
		}
	}
	return out
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

func TestTransactionEncodersDoNotAllocate(t *testing.T) {
	txs := append(fixtureTransactions(), benchTransactions(benchSet)...)
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

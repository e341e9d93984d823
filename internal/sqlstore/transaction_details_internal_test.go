package sqlstore

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

// randomTransaction returns a transaction with every field drawn from r,
// extremes and nulls included, as a stored one reads back (UTC
// milliseconds, non-nil items, no affiliate names).
func randomTransaction(r *rand.Rand) *afftrack.Transaction {
	ints := []int64{0, 1, -1, 127, 128, -129, math.MaxInt64, math.MinInt64, 1 << 40}
	num := func() int64 {
		if r.IntN(2) == 0 {
			return ints[r.IntN(len(ints))]
		}
		return r.Int64() >> r.IntN(64)
	}
	texts := []string{"", "a", "Café & Co <x>", strings.Repeat("é", 200), "\x00\x1f\xff", "日本"}
	text := func() string { return texts[r.IntN(len(texts))] }
	nullText := func() afftrack.Null[string] {
		if r.IntN(3) == 0 {
			return afftrack.Null[string]{}
		}
		return afftrack.Null[string]{Value: text(), Valid: true}
	}
	nullInt := func() afftrack.Null[int64] {
		if r.IntN(3) == 0 {
			return afftrack.Null[int64]{}
		}
		return afftrack.Null[int64]{Value: num(), Valid: true}
	}
	date := func() time.Time { return time.UnixMilli(r.Int64N(1<<45) - 1<<44).UTC() }
	enum := func() uint8 { return uint8(r.IntN(256)) }
	t := &afftrack.Transaction{
		ID: num(), MerchantID: num(), DateCreated: date(), DateModified: date(), ConsumptionDate: date(),
		ValidationDate: date(), AffiliateID: num(), TrafficType: afftrack.TrafficType(enum()),
		TrafficSource: text(), CreativeType: afftrack.CreativeType(enum()), CreativeID: nullInt(),
		CreativeName: nullText(), CustomerCountryCode: text(), CustomerCountryName: text(),
		CustomerIPAddress: text(), CustomerType: afftrack.CustomerType(enum()), OrderID: text(),
		AdditionalNotes: nullText(), TrackingMethod: afftrack.TrackingMethod(enum()),
		SaleValue: afftrack.Money(num()), Commission: afftrack.Money(num()), OverrideFee: afftrack.Money(num()),
		ReportedCurrencyCode: text(), ReportedCurrencyName: text(), ReportedSaleValue: afftrack.Money(num()),
		TrafficSourceApproved: r.IntN(2) == 0, Status2: afftrack.TransactionStatus2(enum()), InvoiceID: nullInt(),
		VoidReason: afftrack.VoidReason(enum()), AmendedReason: afftrack.AmendedReason(enum()),
		CouponCode: nullText(), PlacementID: nullInt(), PlacementName: nullText(),
		Items: []afftrack.TransactionItem{},
	}
	for range r.IntN(7) {
		t.Items = append(t.Items, afftrack.TransactionItem{
			Sku: text(), Quantity: num(), ReportedSaleValue: afftrack.ItemMoney(num()),
			SaleValue: afftrack.ItemMoney(num()), Commission: afftrack.ItemMoney(num()), Name: text(),
			Brand: text(), Category: text(), CartItemReference: nullText(), CartItemReference2: nullText(),
			CartItemReference3: nullText(), CartItemReference4: nullText(),
		})
	}
	return t
}

func TestTransactionDetails(t *testing.T) {
	t.Run("every field of a thousand random transactions reads back as written", func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		got := &afftrack.Transaction{}
		for range 1000 {
			want := randomTransaction(r)
			if err := readDetails(got, string(appendDetails(nil, want))); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("round trip (-want +got):\n%s", diff)
			}
		}
	})
	t.Run("the affiliate's names are kept from the value read into", func(t *testing.T) {
		got := &afftrack.Transaction{AffiliateContactName: "Ann", AffiliateBusinessName: "Ann's"}
		if err := readDetails(got, string(appendDetails(nil, &afftrack.Transaction{ID: 7}))); err != nil {
			t.Fatal(err)
		}
		if got.ID != 7 || got.AffiliateContactName != "Ann" || got.AffiliateBusinessName != "Ann's" {
			t.Errorf("got id %d, names %q and %q", got.ID, got.AffiliateContactName, got.AffiliateBusinessName)
		}
	})
	t.Run("a transaction without items reads back with an empty, non-nil slice", func(t *testing.T) {
		got := &afftrack.Transaction{}
		if err := readDetails(got, string(appendDetails(nil, &afftrack.Transaction{}))); err != nil {
			t.Fatal(err)
		}
		if got.Items == nil || len(got.Items) != 0 {
			t.Errorf("items = %#v, want empty and non-nil", got.Items)
		}
	})
	t.Run("every cut of a valid form is an error, not a panic", func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for range 50 {
			b := string(appendDetails(nil, randomTransaction(r)))
			for i := range len(b) {
				if err := readDetails(&afftrack.Transaction{}, b[:i]); err == nil {
					t.Fatalf("the first %d of %d bytes read without an error", i, len(b))
				}
			}
		}
	})
	bad := []struct {
		name, details, want string
	}{
		{"an unknown version", "\x02", "unknown version 2"},
		{"no data at all", "", "ends inside a field"},
		{"bytes after the last field", string(appendDetails(nil, &afftrack.Transaction{})) + "x", "1 bytes after the last field"},
		{"a varint beyond 64 bits", "\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", "overflows 64 bits"},
		{"a boolean of 2", withBadBool(), "boolean neither 0 nor 1"},
		{"an item count beyond the data", string(appendDetails(nil, &afftrack.Transaction{}))[:len(appendDetails(nil, &afftrack.Transaction{}))-1] + "\xff\x01", "item count beyond the data"},
	}
	for _, tt := range bad {
		t.Run(tt.name+" is an error", func(t *testing.T) {
			err := readDetails(&afftrack.Transaction{}, tt.details)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

// withBadBool returns a zero transaction's form with the byte of
// TrafficSourceApproved, where the forms of false and true differ, set to 2.
func withBadBool() string {
	no := appendDetails(nil, &afftrack.Transaction{})
	yes := appendDetails(nil, &afftrack.Transaction{TrafficSourceApproved: true})
	for i := range no {
		if no[i] != yes[i] {
			no[i] = 2
			break
		}
	}
	return string(no)
}

// FuzzReadDetails checks that no input makes readDetails panic, and that
// whatever it accepts writes and reads back to the same transaction.
func FuzzReadDetails(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 8 {
		f.Add(appendDetails(nil, randomTransaction(r)))
	}
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		got := &afftrack.Transaction{}
		if err := readDetails(got, string(b)); err != nil {
			return
		}
		again := &afftrack.Transaction{}
		if err := readDetails(again, string(appendDetails(nil, got))); err != nil {
			t.Fatalf("a transaction read from the fuzzer's bytes does not read back: %v", err)
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Fatalf("second round trip (-want +got):\n%s", diff)
		}
	})
}

// BenchmarkReadDetails reports the cost of decoding one transaction's
// details, with 0 to 6 items, into a reused value, as the lists do.
func BenchmarkReadDetails(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	var forms []string
	for range 64 {
		forms = append(forms, string(appendDetails(nil, randomTransaction(r))))
	}
	t := &afftrack.Transaction{}
	i := 0
	for b.Loop() {
		if err := readDetails(t, forms[i%len(forms)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

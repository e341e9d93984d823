package sqlstore

import (
	"errors"
	"fmt"

	"github.com/afftrack/afftrack"
)

// A transaction is stored as one row: the columns the queries search and
// order by (id, merchant, affiliate, the two dates) and a details column
// holding the whole transaction, items included, in the compact binary
// form below. The lists are the service's main work, and reading 48
// columns one by one from a join's row per item made a SQLite list seven
// times slower than decoding one value per transaction
// (BenchmarkFindTransactions: 70,199 against 519,599 transactions/s); a
// load writes one narrow row instead of a wide one and 1.8 item rows.
//
// The form, version 1: the byte 1, then every field of the Transaction in
// declaration order except the affiliate's names (which come from the
// affiliates table, so a renamed affiliate shows on every transaction):
//   - an integer, a datetime (milliseconds since the epoch, UTC) or money
//     (the domain's integer units) is a zig-zag varint;
//   - an enumeration is a uvarint of its value, 0 for a null one;
//   - a boolean is a byte, 0 or 1;
//   - a string is a uvarint length then its bytes; a nullable string is a
//     uvarint length+1 then its bytes, 0 for null;
//   - a nullable integer is a byte, 0 for null, else 1 and the varint;
//   - the items are a uvarint count then each item's fields, in order.
// Fields are never skipped or reordered: a change is a new version, which
// the reader must keep accepting for as long as rows of the old one may
// exist.

// detailsVersion is the first byte of the form appendDetails writes.
const detailsVersion = 1

// appendDetails appends t's details to b.
func appendDetails(b []byte, t *afftrack.Transaction) []byte {
	b = append(b, detailsVersion)
	b = appendInt(b, t.ID)
	b = appendInt(b, t.MerchantID)
	b = appendInt(b, toMillis(t.DateCreated))
	b = appendInt(b, toMillis(t.DateModified))
	b = appendInt(b, toMillis(t.ConsumptionDate))
	b = appendInt(b, toMillis(t.ValidationDate))
	b = appendInt(b, t.AffiliateID)
	b = appendUint(b, uint64(t.TrafficType))
	b = appendString(b, t.TrafficSource)
	b = appendUint(b, uint64(t.CreativeType))
	b = appendNullInt(b, t.CreativeID)
	b = appendNullString(b, t.CreativeName)
	b = appendString(b, t.CustomerCountryCode)
	b = appendString(b, t.CustomerCountryName)
	b = appendString(b, t.CustomerIPAddress)
	b = appendUint(b, uint64(t.CustomerType))
	b = appendString(b, t.OrderID)
	b = appendNullString(b, t.AdditionalNotes)
	b = appendUint(b, uint64(t.TrackingMethod))
	b = appendInt(b, int64(t.SaleValue))
	b = appendInt(b, int64(t.Commission))
	b = appendInt(b, int64(t.OverrideFee))
	b = appendString(b, t.ReportedCurrencyCode)
	b = appendString(b, t.ReportedCurrencyName)
	b = appendInt(b, int64(t.ReportedSaleValue))
	b = appendBool(b, t.TrafficSourceApproved)
	b = appendUint(b, uint64(t.Status2))
	b = appendNullInt(b, t.InvoiceID)
	b = appendUint(b, uint64(t.VoidReason))
	b = appendUint(b, uint64(t.AmendedReason))
	b = appendNullString(b, t.CouponCode)
	b = appendNullInt(b, t.PlacementID)
	b = appendNullString(b, t.PlacementName)
	b = appendUint(b, uint64(len(t.Items)))
	for i := range t.Items {
		it := &t.Items[i]
		b = appendString(b, it.Sku)
		b = appendInt(b, it.Quantity)
		b = appendInt(b, int64(it.ReportedSaleValue))
		b = appendInt(b, int64(it.SaleValue))
		b = appendInt(b, int64(it.Commission))
		b = appendString(b, it.Name)
		b = appendString(b, it.Brand)
		b = appendString(b, it.Category)
		b = appendNullString(b, it.CartItemReference)
		b = appendNullString(b, it.CartItemReference2)
		b = appendNullString(b, it.CartItemReference3)
		b = appendNullString(b, it.CartItemReference4)
	}
	return b
}

// readDetails overwrites every field of t but the affiliate's names from
// the details s, reusing t's items' capacity. Its strings are substrings
// of s, so a caller that copies a row's bytes into one string once pays
// one allocation per transaction. Anything but a whole, well-formed
// version 1 form is an error, and t is then unspecified.
func readDetails(t *afftrack.Transaction, s string) error {
	d := detailsReader{s: s}
	if v := d.byte(); v != detailsVersion {
		if d.err == nil {
			d.err = fmt.Errorf("unknown version %d", v)
		}
		return d.fail()
	}
	contact, business := t.AffiliateContactName, t.AffiliateBusinessName
	*t = afftrack.Transaction{
		ID:                    d.int(),
		MerchantID:            d.int(),
		DateCreated:           fromMillis(d.int()),
		DateModified:          fromMillis(d.int()),
		ConsumptionDate:       fromMillis(d.int()),
		ValidationDate:        fromMillis(d.int()),
		AffiliateID:           d.int(),
		AffiliateContactName:  contact,
		AffiliateBusinessName: business,
		TrafficType:           afftrack.TrafficType(d.enum()),
		TrafficSource:         d.string(),
		CreativeType:          afftrack.CreativeType(d.enum()),
		CreativeID:            d.nullInt(),
		CreativeName:          d.nullString(),
		CustomerCountryCode:   d.string(),
		CustomerCountryName:   d.string(),
		CustomerIPAddress:     d.string(),
		CustomerType:          afftrack.CustomerType(d.enum()),
		OrderID:               d.string(),
		AdditionalNotes:       d.nullString(),
		TrackingMethod:        afftrack.TrackingMethod(d.enum()),
		SaleValue:             afftrack.Money(d.int()),
		Commission:            afftrack.Money(d.int()),
		OverrideFee:           afftrack.Money(d.int()),
		ReportedCurrencyCode:  d.string(),
		ReportedCurrencyName:  d.string(),
		ReportedSaleValue:     afftrack.Money(d.int()),
		TrafficSourceApproved: d.bool(),
		Status2:               afftrack.TransactionStatus2(d.enum()),
		InvoiceID:             d.nullInt(),
		VoidReason:            afftrack.VoidReason(d.enum()),
		AmendedReason:         afftrack.AmendedReason(d.enum()),
		CouponCode:            d.nullString(),
		PlacementID:           d.nullInt(),
		PlacementName:         d.nullString(),
		Items:                 t.Items[:0],
	}
	n := d.uint()
	// Each item takes at least 12 bytes, so a count beyond what is left
	// is malformed: checking first keeps a corrupt count from allocating.
	if n > uint64(len(d.s)-d.i)/12 {
		d.setErr(errors.New("item count beyond the data"))
		return d.fail()
	}
	if t.Items == nil {
		// Never nil, so an encoder writes [] for a transaction without items.
		t.Items = make([]afftrack.TransactionItem, 0, n)
	}
	for range n {
		t.Items = append(t.Items, afftrack.TransactionItem{
			Sku:                d.string(),
			Quantity:           d.int(),
			ReportedSaleValue:  afftrack.ItemMoney(d.int()),
			SaleValue:          afftrack.ItemMoney(d.int()),
			Commission:         afftrack.ItemMoney(d.int()),
			Name:               d.string(),
			Brand:              d.string(),
			Category:           d.string(),
			CartItemReference:  d.nullString(),
			CartItemReference2: d.nullString(),
			CartItemReference3: d.nullString(),
			CartItemReference4: d.nullString(),
		})
	}
	if d.err == nil && d.i != len(d.s) {
		d.setErr(fmt.Errorf("%d bytes after the last field", len(d.s)-d.i))
	}
	return d.fail()
}

// detailsReader reads the fields of a details form in turn. The first
// malformed field sets err; every read after it returns a zero value, so
// readDetails checks once at the end.
type detailsReader struct {
	s   string
	i   int
	err error
}

func (d *detailsReader) setErr(err error) {
	if d.err == nil {
		d.err = fmt.Errorf("at byte %d: %w", d.i, err)
	}
}

// fail wraps err, if any, for readDetails's caller.
func (d *detailsReader) fail() error {
	if d.err == nil {
		return nil
	}
	return fmt.Errorf("transaction details: %w", d.err)
}

var errShortDetails = errors.New("the data ends inside a field")

func (d *detailsReader) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.i >= len(d.s) {
		d.setErr(errShortDetails)
		return 0
	}
	c := d.s[d.i]
	d.i++
	return c
}

func (d *detailsReader) uint() uint64 {
	// Most fields are one byte: lengths, enumerations, small numbers.
	if d.i < len(d.s) && d.s[d.i] < 0x80 {
		c := d.s[d.i]
		d.i++
		return uint64(c)
	}
	return d.uintSlow()
}

func (d *detailsReader) uintSlow() uint64 {
	if d.err != nil {
		return 0
	}
	var v uint64
	for i, shift := d.i, uint(0); i < len(d.s); i, shift = i+1, shift+7 {
		c := d.s[i]
		if shift == 63 && c > 1 {
			d.setErr(errors.New("varint overflows 64 bits"))
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			d.i = i + 1
			return v
		}
	}
	d.setErr(errShortDetails)
	return 0
}

func (d *detailsReader) int() int64 {
	u := d.uint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *detailsReader) enum() uint8 {
	u := d.uint()
	if u > 255 {
		d.setErr(fmt.Errorf("enumeration value %d", u))
		return 0
	}
	return uint8(u)
}

func (d *detailsReader) bool() bool {
	switch d.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.setErr(errors.New("boolean neither 0 nor 1"))
	return false
}

// text reads n bytes as a substring.
func (d *detailsReader) text(n uint64) string {
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.s)-d.i) {
		d.setErr(errShortDetails)
		return ""
	}
	v := d.s[d.i : d.i+int(n)]
	d.i += int(n)
	return v
}

func (d *detailsReader) string() string { return d.text(d.uint()) }

func (d *detailsReader) nullString() afftrack.Null[string] {
	n := d.uint()
	if n == 0 || d.err != nil {
		return afftrack.Null[string]{}
	}
	return afftrack.Null[string]{Value: d.text(n - 1), Valid: true}
}

func (d *detailsReader) nullInt() afftrack.Null[int64] {
	if !d.bool() {
		return afftrack.Null[int64]{}
	}
	return afftrack.Null[int64]{Value: d.int(), Valid: true}
}

func appendUint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendInt(b []byte, v int64) []byte { return appendUint(b, uint64(v<<1)^uint64(v>>63)) }

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendString(b []byte, s string) []byte {
	return append(appendUint(b, uint64(len(s))), s...)
}

func appendNullString(b []byte, s afftrack.Null[string]) []byte {
	if !s.Valid {
		return append(b, 0)
	}
	return append(appendUint(b, uint64(len(s.Value))+1), s.Value...)
}

func appendNullInt(b []byte, n afftrack.Null[int64]) []byte {
	if !n.Valid {
		return append(b, 0)
	}
	return appendInt(append(b, 1), n.Value)
}

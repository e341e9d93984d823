package sqlstore

import (
	"errors"
	"fmt"
)

// The details form of migration 0002, version 1, frozen here for the two
// migrations that use it: 0002 writes it from 0001's columns and 0003 reads
// it back into columns again. Nothing outside the migrations may call this
// code, and nothing here may change: a migration must do tomorrow exactly
// what it did when it was released, whatever the live code becomes. It
// works on column values as the drivers return them, not on domain types,
// for the same reason.
//
// The form: the byte 1, then the transaction's columns in the order of
// detailsColumns, then a uvarint count of items and each item's columns in
// the order of detailsItemColumns:
//   - detailsInt (an integer, a datetime in milliseconds, money in the
//     domain's units) is a zig-zag varint;
//   - detailsEnum is a uvarint of the value, 0 for NULL;
//   - detailsBool is a byte, 0 or 1;
//   - detailsText is a uvarint length then the bytes; detailsNullText is a
//     uvarint length+1 then the bytes, 0 for NULL;
//   - detailsNullInt is a byte, 0 for NULL, else 1 and the varint.

// detailsKind is how one column is written in the details form.
type detailsKind uint8

const (
	detailsInt detailsKind = iota
	detailsEnum
	detailsBool
	detailsText
	detailsNullText
	detailsNullInt
)

// detailsColumn is one column of the details form and its 0001 name.
type detailsColumn struct {
	name string
	kind detailsKind
}

// detailsColumns are the transaction columns of the form, in its order,
// which is also the order of 0001's and 0003's transactions tables.
var detailsColumns = [...]detailsColumn{
	{"id", detailsInt}, {"merchant_id", detailsInt}, {"date_created", detailsInt},
	{"date_modified", detailsInt}, {"consumption_date", detailsInt}, {"validation_date", detailsInt},
	{"affiliate_id", detailsInt}, {"traffic_type", detailsEnum}, {"traffic_source", detailsText},
	{"creative_type", detailsEnum}, {"creative_id", detailsNullInt}, {"creative_name", detailsNullText},
	{"customer_country_code", detailsText}, {"customer_country_name", detailsText},
	{"customer_ip_address", detailsText}, {"customer_type", detailsEnum}, {"order_id", detailsText},
	{"additional_notes", detailsNullText}, {"tracking_method", detailsEnum}, {"sale_value", detailsInt},
	{"commission", detailsInt}, {"override_fee", detailsInt}, {"reported_currency_code", detailsText},
	{"reported_currency_name", detailsText}, {"reported_sale_value", detailsInt},
	{"traffic_source_approved", detailsBool}, {"status2", detailsEnum}, {"invoice_id", detailsNullInt},
	{"void_reason", detailsEnum}, {"amended_reason", detailsEnum}, {"coupon_code", detailsNullText},
	{"placement_id", detailsNullInt}, {"placement_name", detailsNullText},
}

// detailsItemColumns are the item columns of the form, in its order, which
// is also the order of 0001's and 0003's transaction_items after
// transaction_id and position.
var detailsItemColumns = [...]detailsColumn{
	{"sku", detailsText}, {"quantity", detailsInt}, {"reported_sale_value", detailsInt},
	{"sale_value", detailsInt}, {"commission", detailsInt}, {"name", detailsText}, {"brand", detailsText},
	{"category", detailsText}, {"cart_item_reference", detailsNullText}, {"cart_item_reference2", detailsNullText},
	{"cart_item_reference3", detailsNullText}, {"cart_item_reference4", detailsNullText},
}

// Where the enumerations that 0001 stores as NULL for "none" are.
var detailsNullableEnums = map[string]bool{"void_reason": true, "amended_reason": true}

// appendDetailsValues appends the form of one transaction, given its
// column values and its items' column values as the drivers return them:
// int64 (or bool for a PostgreSQL BOOLEAN), string or []byte, nil for NULL.
func appendDetailsValues(b []byte, tx []any, items [][]any) ([]byte, error) {
	b = append(b, 1)
	var err error
	for i, c := range detailsColumns {
		if b, err = appendDetailsValue(b, c, tx[i]); err != nil {
			return nil, err
		}
	}
	b = appendDetailsUvarint(b, uint64(len(items)))
	for _, it := range items {
		for i, c := range detailsItemColumns {
			if b, err = appendDetailsValue(b, c, it[i]); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

func appendDetailsValue(b []byte, c detailsColumn, v any) ([]byte, error) {
	switch c.kind {
	case detailsInt:
		n, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("%s: unexpected %T value", c.name, v)
		}
		return appendDetailsUvarint(b, uint64(n<<1)^uint64(n>>63)), nil
	case detailsEnum:
		if v == nil {
			return append(b, 0), nil
		}
		n, ok := v.(int64)
		if !ok || n < 0 || n > 255 {
			return nil, fmt.Errorf("%s: unexpected %T value %v", c.name, v, v)
		}
		return appendDetailsUvarint(b, uint64(n)), nil
	case detailsBool:
		switch v {
		case true, int64(1):
			return append(b, 1), nil
		case false, int64(0):
			return append(b, 0), nil
		}
		return nil, fmt.Errorf("%s: unexpected %T value %v", c.name, v, v)
	case detailsText, detailsNullText:
		var s string
		switch v := v.(type) {
		case nil:
			if c.kind == detailsNullText {
				return append(b, 0), nil
			}
			return nil, fmt.Errorf("%s: unexpected NULL", c.name)
		case string:
			s = v
		case []byte:
			s = string(v)
		default:
			return nil, fmt.Errorf("%s: unexpected %T value", c.name, v)
		}
		n := uint64(len(s))
		if c.kind == detailsNullText {
			n++
		}
		return append(appendDetailsUvarint(b, n), s...), nil
	case detailsNullInt:
		if v == nil {
			return append(b, 0), nil
		}
		n, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("%s: unexpected %T value", c.name, v)
		}
		return appendDetailsUvarint(append(b, 1), uint64(n<<1)^uint64(n>>63)), nil
	}
	return nil, fmt.Errorf("%s: unknown kind %d", c.name, c.kind)
}

func appendDetailsUvarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// readDetailsValues reads one transaction's form into column values ready
// to be written: int64, bool (traffic_source_approved), string, or nil for
// NULL, with 0001's NULL for an enumeration that is none where 0001 had
// one.
func readDetailsValues(form []byte) (tx []any, items [][]any, err error) {
	d := detailsDecoder{b: form}
	if v := d.byte(); d.err == nil && v != 1 {
		return nil, nil, fmt.Errorf("transaction details: unknown version %d", v)
	}
	tx = make([]any, len(detailsColumns))
	for i, c := range detailsColumns {
		tx[i] = d.value(c)
	}
	n := d.uvarint()
	if d.err == nil && n > uint64(len(d.b)-d.i) {
		d.err = errors.New("item count beyond the data")
	}
	for range n {
		if d.err != nil {
			break
		}
		it := make([]any, len(detailsItemColumns))
		for i, c := range detailsItemColumns {
			it[i] = d.value(c)
		}
		items = append(items, it)
	}
	if d.err == nil && d.i != len(d.b) {
		d.err = fmt.Errorf("%d bytes after the last field", len(d.b)-d.i)
	}
	if d.err != nil {
		return nil, nil, fmt.Errorf("transaction details at byte %d: %w", d.i, d.err)
	}
	return tx, items, nil
}

// detailsDecoder reads a form field by field; the first error sticks.
type detailsDecoder struct {
	b   []byte
	i   int
	err error
}

var errShortDetails = errors.New("the data ends inside a field")

func (d *detailsDecoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.i >= len(d.b) {
		d.err = errShortDetails
		return 0
	}
	c := d.b[d.i]
	d.i++
	return c
}

func (d *detailsDecoder) uvarint() uint64 {
	var v uint64
	for shift := uint(0); d.err == nil; shift += 7 {
		c := d.byte()
		if shift == 63 && c > 1 {
			d.err = errors.New("varint overflows 64 bits")
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	return 0
}

func (d *detailsDecoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *detailsDecoder) text(n uint64) string {
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)-d.i) {
		d.err = errShortDetails
		return ""
	}
	s := string(d.b[d.i : d.i+int(n)])
	d.i += int(n)
	return s
}

func (d *detailsDecoder) value(c detailsColumn) any {
	switch c.kind {
	case detailsInt:
		return d.varint()
	case detailsEnum:
		n := d.uvarint()
		if n == 0 && detailsNullableEnums[c.name] {
			return nil
		}
		return int64(n)
	case detailsBool:
		switch d.byte() {
		case 0:
			return false
		case 1:
			return true
		}
		if d.err == nil {
			d.err = errors.New("boolean neither 0 nor 1")
		}
		return nil
	case detailsText:
		return d.text(d.uvarint())
	case detailsNullText:
		n := d.uvarint()
		if n == 0 {
			return nil
		}
		return d.text(n - 1)
	case detailsNullInt:
		if d.byte() == 0 {
			return nil
		}
		return d.varint()
	}
	d.err = fmt.Errorf("%s: unknown kind %d", c.name, c.kind)
	return nil
}

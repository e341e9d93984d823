package sqlstore

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/afftrack/afftrack"
)

// A transaction's items are rows of transaction_items, the data every
// query over items (a report by category, a check) reads. The reads of
// whole transactions, a lookup and the lists, read transactions.items_cache
// instead: the same items, encoded by appendItemsCache and written by the
// same statement that writes the transaction's columns. Reading them from
// transaction_items costs one index probe per transaction into a page of
// its own (a merchant's transactions of a day are scattered among every
// other merchant's), and on SQLite thirteen column reads per item; it was
// half of a one-day list's time on both engines (docs/performance.md).
//
// items_cache is never the truth: migration 0005 derives it from
// transaction_items, the import writes both, and nothing else writes
// items. A test checks that the two agree after every write path
// (TestItemsCacheMatchesItems).
//
// Format 1, frozen because migration 0005 writes it: empty for a
// transaction without items; otherwise the byte 1, the number of items as
// a uvarint, then for each item the itemCacheValues values of
// itemCacheColumns, each a tag byte (0 NULL, 1 integer, 2 text) followed
// by a zig-zag varint for an integer or a uvarint length and the UTF-8
// bytes for a text. A new format is a new version byte, read beside this
// one, and a migration that rewrites the column.

// itemsCacheFormat is the version byte of format 1.
const itemsCacheFormat = 1

// itemCacheColumns are the columns of transaction_items an item's values
// come from, in the order of the cache (every column but the key).
const itemCacheColumns = `sku, quantity, reported_sale_value, sale_value, commission, name, brand, category,
	cart_item_reference, cart_item_reference2, cart_item_reference3, cart_item_reference4`

// itemCacheValues is the number of columns in itemCacheColumns.
const itemCacheValues = 12

// Tags of a value in the cache.
const (
	cacheNull = 0
	cacheInt  = 1
	cacheText = 2
)

// appendItemsCache appends the format-1 cache of the items whose driver
// values vals holds, itemCacheValues per item in the order of
// itemCacheColumns: int64, string or nil, as the columns are written
// (and as both drivers read them). It takes driver values rather than
// afftrack.TransactionItem so that migration 0005 keeps its meaning
// whatever the domain type becomes.
func appendItemsCache(dst []byte, vals []any) ([]byte, error) {
	if len(vals)%itemCacheValues != 0 {
		return nil, fmt.Errorf("items cache: %d values, not a multiple of %d", len(vals), itemCacheValues)
	}
	if len(vals) == 0 {
		return dst, nil
	}
	dst = append(dst, itemsCacheFormat)
	dst = binary.AppendUvarint(dst, uint64(len(vals)/itemCacheValues))
	for i, v := range vals {
		switch v := v.(type) {
		case nil:
			dst = append(dst, cacheNull)
		case int64:
			dst = binary.AppendVarint(append(dst, cacheInt), v)
		case string:
			dst = binary.AppendUvarint(append(dst, cacheText), uint64(len(v)))
			dst = append(dst, v...)
		case []byte: // a driver may read TEXT as bytes
			dst = binary.AppendUvarint(append(dst, cacheText), uint64(len(v)))
			dst = append(dst, v...)
		default:
			return nil, fmt.Errorf("items cache: value %d of item %d: unexpected %T", i%itemCacheValues,
				i/itemCacheValues+1, v)
		}
	}
	return dst, nil
}

// errItemsCache is the error of a cache that is not format 1.
var errItemsCache = errors.New("items cache: malformed")

// itemsCacheReader decodes a cache into items. The texts of all items are
// substrings of one string made of the cache, one allocation per
// transaction instead of one per text.
type itemsCacheReader struct {
	s   string
	off int
	bad bool
}

// readItemsCache appends the items of the cache b to items.
func readItemsCache(b []byte, items []afftrack.TransactionItem) ([]afftrack.TransactionItem, error) {
	if len(b) == 0 {
		return items, nil
	}
	if b[0] != itemsCacheFormat {
		return items, fmt.Errorf("items cache: format %d, want %d", b[0], itemsCacheFormat)
	}
	r := itemsCacheReader{s: string(b), off: 1}
	n := r.uvarint()
	// An item takes a byte at least, so a larger count is corrupt, and the
	// loop below stops at the first value missing.
	if r.bad || n == 0 || n > uint64(len(b)) {
		return items, errItemsCache
	}
	for range n {
		if r.bad {
			break
		}
		items = append(items, afftrack.TransactionItem{
			Sku:                r.text(),
			Quantity:           r.int(),
			ReportedSaleValue:  afftrack.ItemMoney(r.int()),
			SaleValue:          afftrack.ItemMoney(r.int()),
			Commission:         afftrack.ItemMoney(r.int()),
			Name:               r.text(),
			Brand:              r.text(),
			Category:           r.text(),
			CartItemReference:  r.nullText(),
			CartItemReference2: r.nullText(),
			CartItemReference3: r.nullText(),
			CartItemReference4: r.nullText(),
		})
	}
	if r.bad || r.off != len(r.s) {
		return items, errItemsCache
	}
	return items, nil
}

func (r *itemsCacheReader) tag() byte {
	if r.off >= len(r.s) {
		r.bad = true
		return cacheNull
	}
	t := r.s[r.off]
	r.off++
	return t
}

func (r *itemsCacheReader) uvarint() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		if r.off >= len(r.s) {
			break
		}
		c := r.s[r.off]
		r.off++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			// Only the shortest form is accepted, so a cache has one
			// reading and one encoding.
			if shift > 0 && c == 0 || shift == 63 && c > 1 {
				break
			}
			return v
		}
	}
	r.bad = true
	return 0
}

func (r *itemsCacheReader) int() int64 {
	if r.tag() != cacheInt {
		r.bad = true
		return 0
	}
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *itemsCacheReader) text() string {
	if r.tag() != cacheText {
		r.bad = true
		return ""
	}
	return r.rest()
}

func (r *itemsCacheReader) nullText() afftrack.Null[string] {
	switch r.tag() {
	case cacheNull:
		return afftrack.Null[string]{}
	case cacheText:
		return afftrack.Null[string]{Value: r.rest(), Valid: true}
	}
	r.bad = true
	return afftrack.Null[string]{}
}

// rest reads the length and bytes of a text.
func (r *itemsCacheReader) rest() string {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.s)-r.off) {
		r.bad = true
		return ""
	}
	s := r.s[r.off : r.off+int(n)]
	r.off += int(n)
	return s
}

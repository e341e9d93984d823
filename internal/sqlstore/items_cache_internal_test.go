package sqlstore

import (
	"testing"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

// itemValues is what the import writes for items: their driver values,
// less the key.
func itemValues(items []afftrack.TransactionItem) []any {
	var vals []any
	for i := range items {
		vals = append(vals, itemArgs(nil, 1, i+1, &items[i])[2:]...)
	}
	return vals
}

func TestItemsCacheRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		items []afftrack.TransactionItem
	}{
		{"no items is an empty cache", nil},
		{"one item with every reference NULL", []afftrack.TransactionItem{{Sku: "A", Quantity: 1, Name: "n", Brand: "b",
			Category: "c"}}},
		{"extreme amounts and texts keep their value", []afftrack.TransactionItem{
			{Sku: "", Quantity: 1 << 62, ReportedSaleValue: -1 << 63, SaleValue: 1<<63 - 1, Commission: -1,
				Name: "é\x00\"<&>", Brand: string(make([]byte, 300)), Category: "☃",
				CartItemReference: afftrack.Some(""), CartItemReference4: afftrack.Some("r4")},
			{Sku: "B", Quantity: 2, CartItemReference2: afftrack.Some("r2"), CartItemReference3: afftrack.Some("r3")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache, err := appendItemsCache([]byte{}, itemValues(tt.items))
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.items) == 0 && len(cache) != 0 {
				t.Errorf("cache of no items is %x, want empty", cache)
			}
			got, err := readItemsCache(cache, []afftrack.TransactionItem{})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.items
			if want == nil {
				want = []afftrack.TransactionItem{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("a value of another type is refused", func(t *testing.T) {
		vals := itemValues([]afftrack.TransactionItem{{Sku: "A"}})
		vals[1] = 1.5
		if _, err := appendItemsCache(nil, vals); err == nil {
			t.Error("a float value was encoded")
		}
	})
}

// FuzzReadItemsCache checks that no cache, however corrupt, makes the
// reader panic or read past its end, and that whatever it accepts encodes
// back to the same bytes.
func FuzzReadItemsCache(f *testing.F) {
	seed, _ := appendItemsCache(nil, itemValues([]afftrack.TransactionItem{
		{Sku: "A", Quantity: 2, Name: "n", Brand: "b", Category: "c", CartItemReference2: afftrack.Some("r")},
	}))
	f.Add(seed)
	f.Add([]byte{})
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{2, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		items, err := readItemsCache(b, nil)
		if err != nil {
			return
		}
		again, err := appendItemsCache([]byte{}, itemValues(items))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(b, again, cmp.Comparer(func(x, y []byte) bool { return string(x) == string(y) })); diff != "" {
			t.Errorf("accepted cache re-encodes differently (-read +encoded):\n%s", diff)
		}
	})
}

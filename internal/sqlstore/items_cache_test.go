package sqlstore_test

import (
	"context"
	"testing"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/google/go-cmp/cmp"
)

// itemsOfTable reads transaction id's items from transaction_items, the
// truth the cache derives from.
func itemsOfTable(t *testing.T, db *sqlstore.DB, id int64) []afftrack.TransactionItem {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT sku, quantity, reported_sale_value, sale_value, commission, name, brand,
		category, cart_item_reference, cart_item_reference2, cart_item_reference3, cart_item_reference4
		FROM transaction_items WHERE transaction_id = $1 ORDER BY position`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	items := []afftrack.TransactionItem{}
	for rows.Next() {
		var it afftrack.TransactionItem
		var reported, sale, commission int64
		var refs [4]*string
		if err := rows.Scan(&it.Sku, &it.Quantity, &reported, &sale, &commission, &it.Name, &it.Brand, &it.Category,
			&refs[0], &refs[1], &refs[2], &refs[3]); err != nil {
			t.Fatal(err)
		}
		it.ReportedSaleValue, it.SaleValue, it.Commission = afftrack.ItemMoney(reported), afftrack.ItemMoney(sale),
			afftrack.ItemMoney(commission)
		for i, dst := range []*afftrack.Null[string]{&it.CartItemReference, &it.CartItemReference2,
			&it.CartItemReference3, &it.CartItemReference4} {
			if refs[i] != nil {
				*dst = afftrack.Some(*refs[i])
			}
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return items
}

// checkItemsCache checks that every stored transaction reads back, through
// its items cache, the items transaction_items holds for it.
func checkItemsCache(t *testing.T, db *sqlstore.DB) {
	t.Helper()
	ctx := context.Background()
	s := sqlstore.NewTransactionService(db)
	rows, err := db.SQL().Query(`SELECT id, merchant_id FROM transactions ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var keys [][2]int64
	for rows.Next() {
		var k [2]int64
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	rows.Close()
	if len(keys) == 0 {
		t.Fatal("no transactions stored")
	}
	for _, k := range keys {
		got, err := s.FindTransactionByID(ctx, k[1], k[0])
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(itemsOfTable(t, db, k[0]), got.Items); diff != "" {
			t.Errorf("transaction %d: items of the cache differ from transaction_items (-table +cache):\n%s", k[0], diff)
		}
	}
}

func TestItemsCacheMatchesItems(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := fixture(t)
		mustImport(t, db, d)
		t.Run("after an import of new transactions", func(t *testing.T) { checkItemsCache(t, db) })

		// A second import replaces stored transactions: more items, fewer,
		// none, and items where there were none.
		again := &afftrack.Dataset{}
		for i, rec := range d.Transactions {
			tr := rec.Transaction
			switch i % 4 {
			case 0:
				tr.Items = append(tr.Items, afftrack.TransactionItem{Sku: "NEW-é", Quantity: 7,
					ReportedSaleValue: -1, SaleValue: 1 << 40, Commission: 0, Name: "", Brand: "Ünïcode", Category: "x",
					CartItemReference3: afftrack.Some("")})
			case 1:
				tr.Items = nil
			case 2:
				if len(tr.Items) > 1 {
					tr.Items = tr.Items[:1]
				}
			case 3:
				tr.Items = []afftrack.TransactionItem{{Sku: "S", Quantity: 1, Name: "n", Brand: "b", Category: "c"}}
			}
			again.Transactions = append(again.Transactions, afftrack.TransactionRecord{Transaction: tr})
		}
		mustImport(t, db, again)
		t.Run("after an import that replaces transactions", func(t *testing.T) { checkItemsCache(t, db) })
	})
}

package sqlstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/google/go-cmp/cmp"
)

func TestAnImportNeverReplacesATrackedTransaction(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		conversionLoaded(t, db)
		s := sqlstore.NewConversionService(db, "AUD", trackingClock(t))
		c := afftrack.Conversion{MerchantID: 1, OrderID: "TRACKED-1", SaleValue: 100000, CurrencyCode: "AUD",
			CustomerType: afftrack.CustomerTypeNew, ClickID: testClickID(clickBanner)}
		tracked, _ := recordConversion(t, s, db, c)
		c2 := c
		c2.OrderID = "TRACKED-2"
		tracked2, _ := recordConversion(t, s, db, c2)

		untracked := *tracked
		untracked.ID, untracked.OrderID = tracked2.ID+100, "IMPORTED-1"
		replacing := *tracked
		replacing.OrderID, replacing.SaleValue = "IMPORTED-2", 600000
		replacing2 := *tracked2
		replacing2.OrderID = "IMPORTED-3"
		_, err := sqlstore.NewImportService(db).Import(ctx, &afftrack.Dataset{Transactions: []afftrack.TransactionRecord{
			{Transaction: untracked}, {Transaction: replacing2}, {Transaction: replacing}}})

		t.Run("the import is refused, naming the first such record and the sale it would replace", func(t *testing.T) {
			wantCode(t, err, afftrack.EINVALID)
			if want := `Transactions[1].Id:`; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `"TRACKED-2"`) {
				t.Errorf("error = %q, want it to name %s and OrderId TRACKED-2", err, want)
			}
		})
		t.Run("nothing of the file is written", func(t *testing.T) {
			_, err := sqlstore.NewTransactionService(db).FindTransactionByID(ctx, 1, untracked.ID)
			wantCode(t, err, afftrack.ENOTFOUND)
		})
		t.Run("the conversion's retry still finds its own transaction", func(t *testing.T) {
			retry := c
			got, created, err := s.RecordConversion(ctx, &retry)
			if err != nil || created {
				t.Fatalf("RecordConversion again = created %v, %v; want the stored transaction", created, err)
			}
			if diff := cmp.Diff(tracked, got); diff != "" {
				t.Errorf("transaction (-want +got):\n%s", diff)
			}
		})
		t.Run("a transaction replaced before imports refused is a conflict, not another sale", func(t *testing.T) {
			if _, err := db.SQL().Exec(`UPDATE transactions SET order_id = 'IMPORTED-3' WHERE id = $1`, tracked.ID); err != nil {
				t.Fatal(err)
			}
			retry := c
			got, _, err := s.RecordConversion(ctx, &retry)
			if got != nil {
				t.Errorf("got transaction %d (OrderId %q), want none", got.ID, got.OrderID)
			}
			wantCode(t, err, afftrack.ECONFLICT)
		})
	})
}

package sqlstore_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// TestNetworkVoidRecordsTheAmountsItVoids: on PostgreSQL an amendment
// may commit while a void runs and leave the transaction Pending with
// other amounts; the void's history must record the amounts it voided,
// not those it read before. SQLite's writes are serial.
func TestNetworkVoidRecordsTheAmountsItVoids(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		if db.Dialect() != "postgres" {
			t.Skip("SQLite's writes are serial: nothing commits while a void runs")
		}
		ctx := context.Background()
		lcLoaded(t, db)
		n := newLCNet(t, db)
		mustImport(t, db, &afftrack.Dataset{Transactions: []afftrack.TransactionRecord{
			lcImported(t, 801, 2, "2024-06-01T00:00:00", "2024-09-01T00:00:00", afftrack.Status2Pending)}})

		// An amendment in flight: the row changed and locked, not yet committed.
		amending, err := db.SQL().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer amending.Rollback()
		if _, err := amending.Exec(`UPDATE transactions SET sale_value = 40000, commission = 4000 WHERE id = 801`); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			done <- n.lc.Void(ctx, 801, afftrack.VoidReasonCancelledOrder, afftrack.ActorOperator, dt(t, "2024-06-22T08:00:00"))
		}()
		waitForLockWait(t, db)
		if err := amending.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("Void: %v", err)
		}
		var got [4]int64
		if err := db.SQL().QueryRow(`SELECT from_sale_value, to_sale_value, from_commission, to_commission
			FROM transaction_events WHERE transaction_id = 801 AND to_status = $1`, int64(afftrack.Status2Void)).
			Scan(&got[0], &got[1], &got[2], &got[3]); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([4]int64{40000, 40000, 4000, 4000}, got); diff != "" {
			t.Errorf("the void's amounts (sale from, to; commission from, to) (-want +got):\n%s", diff)
		}
	})
}

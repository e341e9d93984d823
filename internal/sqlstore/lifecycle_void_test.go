package sqlstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

func TestNetworkVoid(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		lcLoaded(t, db)
		n := newLCNet(t, db)
		states := []afftrack.TransactionStatus2{afftrack.Status2Pending, afftrack.Status2Locked, afftrack.Status2Approved,
			afftrack.Status2Paid, afftrack.Status2Void}
		var imported afftrack.Dataset
		for i, s := range states {
			imported.Transactions = append(imported.Transactions,
				lcImported(t, int64(801+i), 2, "2024-06-01T00:00:00", "2024-09-01T00:00:00", s))
		}
		mustImport(t, db, &imported)
		read := func(id int64) *afftrack.Transaction { return n.read(&afftrack.Transaction{ID: id, MerchantID: 2}) }
		at := dt(t, "2024-06-22T08:00:00")

		for i, s := range states[:3] {
			id := int64(801 + i)
			t.Run(fmt.Sprintf("a %s transaction is voided with the reason", s), func(t *testing.T) {
				before := read(id)
				if err := n.lc.Void(ctx, id, afftrack.VoidReasonSelfReferral, afftrack.ActorOperator, at); err != nil {
					t.Fatalf("Void: %v", err)
				}
				want := *before
				want.Status2, want.VoidReason, want.DateModified = afftrack.Status2Void, afftrack.VoidReasonSelfReferral, at
				if diff := cmp.Diff(&want, read(id)); diff != "" {
					t.Errorf("transaction (-want +got):\n%s", diff)
				}
				wantEvents := []afftrack.TransactionEvent{event(before, at, afftrack.ActorOperator, s, afftrack.Status2Void,
					"Self Referral")}
				if diff := cmp.Diff(wantEvents, n.history(id)); diff != "" {
					t.Errorf("history (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]notificationRow{notified(before, "Void", "10.0000")}, notificationsOf(t, db, id)); diff != "" {
					t.Errorf("notifications (-want +got):\n%s", diff)
				}
			})
		}
		tests := []struct {
			name   string
			id     int64
			reason afftrack.VoidReason
			code   string
		}{
			{"a Paid transaction cannot be voided", 804, afftrack.VoidReasonCancelledOrder, afftrack.ECONFLICT},
			{"a Void transaction cannot be voided again", 805, afftrack.VoidReasonCancelledOrder, afftrack.ECONFLICT},
			{"an unknown transaction is not found", 987654321, afftrack.VoidReasonCancelledOrder, afftrack.ENOTFOUND},
			{"a void without a reason is invalid", 801 + 10, 0, afftrack.EINVALID},
		}
		mustImport(t, db, &afftrack.Dataset{Transactions: []afftrack.TransactionRecord{
			lcImported(t, 811, 2, "2024-06-01T00:00:00", "2024-09-01T00:00:00", afftrack.Status2Pending)}})
		for _, tt := range tests {
			t.Run(tt.name+" and changes nothing", func(t *testing.T) {
				events, notifications := countRows(t, db, "transaction_events"), countRows(t, db, "notifications")
				var before *afftrack.Transaction
				if tt.code != afftrack.ENOTFOUND {
					before = read(tt.id)
				}
				err := n.lc.Void(ctx, tt.id, tt.reason, afftrack.ActorOperator, at)
				wantCode(t, err, tt.code)
				if before != nil {
					if diff := cmp.Diff(before, read(tt.id)); diff != "" {
						t.Errorf("transaction changed (-before +after):\n%s", diff)
					}
				}
				if got := countRows(t, db, "transaction_events"); got != events {
					t.Errorf("%d events, want %d as before", got, events)
				}
				if got := countRows(t, db, "notifications"); got != notifications {
					t.Errorf("%d notifications, want %d as before", got, notifications)
				}
			})
		}
	})
}

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

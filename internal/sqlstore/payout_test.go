package sqlstore_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// TestPayoutSumsAreExact: an affiliate's Approved commissions are added
// exactly on every engine, even when a running total would pass the
// int64 range on the way to one that fits; a total beyond the range
// stops the run naming the affiliate, and pays no one.
func TestPayoutSumsAreExact(t *testing.T) {
	tests := []struct {
		name    string
		amounts []afftrack.Money
		want    afftrack.Money // affiliate 2's invoice SubTotal, 0 for none
		wantErr string
	}{
		{"the largest commission, a little more, then minus the largest, pay the little more",
			[]afftrack.Money{math.MaxInt64, 1, -math.MaxInt64}, 1, ""},
		{"commissions adding up to nothing pay nothing", []afftrack.Money{math.MaxInt64, -math.MaxInt64}, 0, ""},
		{"commissions adding up below the smallest amount are not due, and stop no one",
			[]afftrack.Money{-math.MaxInt64, -math.MaxInt64}, 0, ""},
		{"commissions adding up past the largest amount stop the run",
			[]afftrack.Money{math.MaxInt64, 1}, 0, "affiliate 2: the Approved commission up to 2024-06-30 adds up beyond the largest amount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
				d := reportDataset(t)
				addLikeTheVoid(d, len(tt.amounts), func(i int, tr *afftrack.Transaction) {
					tr.Status2, tr.Commission = afftrack.Status2Approved, tt.amounts[i]
				})
				d.Transactions = slices.Delete(d.Transactions, 4, 5)
				mustImport(t, db, d)
				ctx := context.Background()
				payouts, err := sqlstore.NewPayoutService(db).RunPayouts(ctx, afftrack.PayoutRun{UpTo: dt(t, "2024-06-30"),
					InvoicePrefix: "AT", Now: dt(t, "2024-07-01"), Actor: afftrack.ActorOperator})
				if tt.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("RunPayouts: error %v, want one saying %q", err, tt.wantErr)
					}
					var paid int64
					if err := db.SQL().QueryRow(`SELECT COUNT(*) FROM transactions WHERE status2 = $1`,
						int64(afftrack.Status2Paid)).Scan(&paid); err != nil {
						t.Fatal(err)
					}
					if paid != 1 { // the imported tx 4 only
						t.Errorf("%d transactions Paid after a refused run, want the 1 imported so", paid)
					}
					return
				}
				if err != nil {
					t.Fatalf("RunPayouts: %v", err)
				}
				var got afftrack.Money
				for _, p := range payouts {
					if p.Invoice.AffiliateID == 2 {
						got = p.Invoice.SubTotal
					}
				}
				if got != tt.want {
					t.Errorf("affiliate 2's invoice SubTotal %s, want %s", got, tt.want)
				}
			})
		})
	}
}

// TestPayoutTotalWithGSTBeyondTheRange: an invoice whose commission fits
// but whose Total with GST does not stops the run, naming the affiliate,
// rather than paying a wrapped Total.
func TestPayoutTotalWithGSTBeyondTheRange(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		d := reportDataset(t)
		for i := range d.Affiliates {
			if d.Affiliates[i].Affiliate.ID == 2 {
				d.Affiliates[i].Affiliate.GSTRegistered = true
			}
		}
		addLikeTheVoid(d, 1, func(_ int, tr *afftrack.Transaction) {
			tr.Status2, tr.Commission = afftrack.Status2Approved, 9_000_000_000_000_000_000
		})
		mustImport(t, db, d)
		_, err := sqlstore.NewPayoutService(db).RunPayouts(context.Background(), afftrack.PayoutRun{UpTo: dt(t, "2024-06-30"),
			InvoicePrefix: "AT", GSTPercent: 100000, Now: dt(t, "2024-07-01"), Actor: afftrack.ActorOperator})
		if err == nil || !strings.Contains(err.Error(), "affiliate 2: the commission 900000000000000.0000 and its GST") {
			t.Errorf("RunPayouts: error %v, want one naming affiliate 2's commission and GST", err)
		}
	})
}

// TestPayoutNumbersPassImportedOnes: an imported invoice may hold the
// number the affiliate's count of invoices would give next; the run's
// invoice takes the next number free instead of a second of the same.
func TestPayoutNumbersPassImportedOnes(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		d := reportDataset(t)
		addLikeTheVoid(d, 1, func(i int, tr *afftrack.Transaction) {
			tr.Status2, tr.Commission = afftrack.Status2Approved, 12500
		})
		d.Transactions = slices.Delete(d.Transactions, 4, 5)
		// Affiliate 2's only invoice is its second by number.
		d.Invoices = append(d.Invoices, afftrack.Invoice{ID: 700, AffiliateID: 2, DateCreated: dt(t, "2024-01-31"),
			DatePaid: dt(t, "2024-01-31"), Number: "AT-2-0002", Description: "Commissions up to 31/01/2024",
			SubTotal: 10000, Total: 10000})
		mustImport(t, db, d)
		payouts, err := sqlstore.NewPayoutService(db).RunPayouts(context.Background(), afftrack.PayoutRun{
			UpTo: dt(t, "2024-06-30"), InvoicePrefix: "AT", Now: dt(t, "2024-07-01"), Actor: afftrack.ActorOperator})
		if err != nil {
			t.Fatalf("RunPayouts: %v", err)
		}
		var got []string
		for _, p := range payouts {
			if p.Invoice.AffiliateID == 2 {
				got = append(got, p.Invoice.Number)
			}
		}
		if diff := cmp.Diff([]string{"AT-2-0003"}, got); diff != "" {
			t.Errorf("affiliate 2's new invoice numbers (-want +got):\n%s", diff)
		}
	})
}

// TestPayoutMinimumHoldsAgainstAVoidDuringTheRun: on PostgreSQL a run
// reads the sums due before it pays anyone, and a commission voided in
// between, by a connection that does not wait for the run, must not leave
// an affiliate paid less than the minimum. SQLite's writes are serial, so
// nothing can come between there.
func TestPayoutMinimumHoldsAgainstAVoidDuringTheRun(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		if db.Dialect() != "postgres" {
			t.Skip("SQLite's writes are serial: nothing comes between a run's sums and its payments")
		}
		ctx := context.Background()
		d := reportDataset(t)
		// Affiliate 3 is due 0.1000 (tx 9) and 0.0500 more: 0.1500, above
		// the minimum of 0.1200 until tx 9 is voided.
		addLikeTheVoid(d, 1, func(_ int, tr *afftrack.Transaction) {
			tr.ID, tr.MerchantID, tr.AffiliateID = 10, 2, 3
			tr.Status2, tr.Commission = afftrack.Status2Approved, 500
		})
		mustImport(t, db, d)

		// Holding affiliate 1's tx 3 stops the run at affiliate 1, after
		// it has read the sums.
		holder, err := db.SQL().BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Rollback()
		if _, err := holder.Exec(`SELECT id FROM transactions WHERE id = 3 FOR UPDATE`); err != nil {
			t.Fatal(err)
		}
		type result struct {
			payouts []afftrack.Payout
			err     error
		}
		done := make(chan result, 1)
		go func() {
			p, err := sqlstore.NewPayoutService(db).RunPayouts(ctx, afftrack.PayoutRun{UpTo: dt(t, "2024-06-30"),
				InvoicePrefix: "AT", Minimum: 1200, Now: dt(t, "2024-07-01"), Actor: afftrack.ActorOperator})
			done <- result{p, err}
		}()
		waitForLockWait(t, db)
		if _, err := db.SQL().Exec(`UPDATE transactions SET status2 = $1 WHERE id = 9`, int64(afftrack.Status2Void)); err != nil {
			t.Fatal(err)
		}
		if err := holder.Rollback(); err != nil {
			t.Fatal(err)
		}
		r := <-done
		if r.err != nil {
			t.Fatalf("RunPayouts: %v", r.err)
		}
		var paid []int64
		for _, p := range r.payouts {
			paid = append(paid, p.Invoice.AffiliateID)
		}
		if diff := cmp.Diff([]int64{1}, paid); diff != "" {
			t.Errorf("affiliates paid (-want +got):\n%s", diff)
		}
		var status int64
		if err := db.SQL().QueryRow(`SELECT status2 FROM transactions WHERE id = 10`).Scan(&status); err != nil {
			t.Fatal(err)
		}
		if got := afftrack.TransactionStatus2(status); got != afftrack.Status2Approved {
			t.Errorf("affiliate 3's remaining 0.0500 is %s, want it Approved, unpaid", got)
		}
	})
}

// waitForLockWait waits until a session of db's database waits for a
// row lock.
func waitForLockWait(t *testing.T, db *sqlstore.DB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := db.SQL().QueryRow(`SELECT COUNT(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no session came to wait for the row lock within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

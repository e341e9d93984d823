package sqlstore_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

func TestUpdateTransactionStatus(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		loaded(t, db)
		s := sqlstore.NewTransactionService(db)
		at := dt(t, "2024-06-01T10:00:00")
		// 102 is Pending in the fixture.
		approve := afftrack.TransactionStatusChange{MerchantID: 1, ID: 102,
			From: afftrack.Status2Pending, To: afftrack.Status2Approved, At: at}

		t.Run("of two concurrent changes of one transaction exactly one wins", func(t *testing.T) {
			const n = 8
			errs := make([]error, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					c := approve
					if i%2 == 1 {
						c.To, c.VoidReason = afftrack.Status2Void, afftrack.VoidReasonCancelledOrder
					}
					errs[i] = s.UpdateTransactionStatus(ctx, c)
				}()
			}
			close(start)
			wg.Wait()
			won := 0
			for _, err := range errs {
				switch afftrack.ErrorCode(err) {
				case "":
					won++
				case afftrack.ECONFLICT:
				default:
					t.Errorf("unexpected error: %v", err)
				}
			}
			if won != 1 {
				t.Fatalf("%d changes won, want 1: %v", won, errs)
			}
			got, err := s.FindTransactionByID(ctx, 1, 102)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status2 != afftrack.Status2Approved && got.Status2 != afftrack.Status2Void {
				t.Errorf("status2 = %v, want the winner's", got.Status2)
			}
			if !got.DateModified.Equal(at) {
				t.Errorf("DateModified = %v, want %v", got.DateModified, at)
			}
		})
		t.Run("a change from a status the transaction has left is a conflict", func(t *testing.T) {
			err := s.UpdateTransactionStatus(ctx, approve)
			if afftrack.ErrorCode(err) != afftrack.ECONFLICT || !strings.Contains(afftrack.ErrorMessage(err), "not Pending") {
				t.Errorf("got %v, want a conflict saying it is not Pending", err)
			}
		})
		t.Run("another merchant's transaction is not found", func(t *testing.T) {
			c := approve
			c.MerchantID = 2
			wantError(t, s.UpdateTransactionStatus(ctx, c), afftrack.ENOTFOUND, "transaction 102 not found")
		})
		t.Run("a change that would break an invariant is refused", func(t *testing.T) {
			c := afftrack.TransactionStatusChange{MerchantID: 1, ID: 103, From: afftrack.Status2Locked,
				To: afftrack.Status2Void, At: at}
			wantError(t, s.UpdateTransactionStatus(ctx, c), afftrack.EINVALID,
				"VoidReason: a Void transaction must have a VoidReason")
		})
	})
}

func TestFindTransactionsFoldsEveryScript(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := loaded(t, db)
		tr := transactionIn(t, d, 101)
		tr.ID = 901
		tr.CreativeName = afftrack.Some("ÉTÉ Ünïcode Straße")
		mustImport(t, db, &afftrack.Dataset{Transactions: []afftrack.TransactionRecord{{Transaction: tr}}})
		tr.ID = 902
		tr.CreativeName = afftrack.Some("Νίκος")
		mustImport(t, db, &afftrack.Dataset{Transactions: []afftrack.TransactionRecord{{Transaction: tr}}})
		for _, tt := range []struct {
			name, filter string
			want         []int64
		}{
			{"accented Latin in lower case finds it in upper case", "été ünïcode straße", []int64{901}},
			{"an upper-case Greek word finds it with its final sigma", "ΝΊΚΟΣ", []int64{902}},
			{"a lower-case Greek word with a middle sigma finds the final one", "νίκοσ", []int64{902}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				f := march(t, afftrack.ByDateCreated)
				f.CreativeName = afftrack.Some(tt.filter)
				if diff := cmp.Diff(tt.want, listIDs(t, db, f)); diff != "" {
					t.Errorf("creativeName %q: ids (-want +got):\n%s", tt.filter, diff)
				}
			})
		}
	})
}

func TestCheckTimeZone(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		if err := db.CheckTimeZone(ctx, "Australia/Sydney"); err != nil {
			t.Fatalf("first use: %v", err)
		}
		if err := db.CheckTimeZone(ctx, "Australia/Sydney"); err != nil {
			t.Fatalf("same zone again: %v", err)
		}
		wantError(t, db.CheckTimeZone(ctx, "Europe/Paris"), afftrack.EINVALID,
			"the database was created for time zone Australia/Sydney; --timezone Europe/Paris would shift every datetime (run with --timezone Australia/Sydney)")
	})
}

func TestAFailedImportTakesBackTheTimeZoneItRecorded(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		imp := sqlstore.NewImportService(db)
		imp.TimeZone = "UTC"
		_, err := imp.Import(ctx, &afftrack.Dataset{Memberships: []afftrack.Membership{{AffiliateID: 1, MerchantID: 1}}})
		if err == nil {
			t.Fatal("an import of a membership of accounts that do not exist succeeded")
		}
		if zone, err := db.NetworkTimeZone(ctx, "Australia/Sydney", true); err != nil || zone != "Australia/Sydney" {
			t.Fatalf("after the failed import: NetworkTimeZone = %q, %v; want none recorded", zone, err)
		}

		imp.TimeZone = "Australia/Sydney"
		if _, err := imp.Import(ctx, &afftrack.Dataset{}); err != nil {
			t.Fatalf("the import under the corrected zone: %v", err)
		}
		wantError(t, db.CheckTimeZone(ctx, "UTC"), afftrack.EINVALID,
			"the database was created for time zone Australia/Sydney; --timezone UTC would shift every datetime (run with --timezone Australia/Sydney)")

		imp.TimeZone = "Europe/Paris"
		_, err = imp.Import(ctx, &afftrack.Dataset{})
		wantError(t, err, afftrack.EINVALID,
			"the database was created for time zone Australia/Sydney; --timezone Europe/Paris would shift every datetime (run with --timezone Australia/Sydney)")
	})
}

// TestAServeStartingDuringAFirstImportDoesNotWaitForIt: on PostgreSQL an
// import runs beside everything else; the zone it records must not hold
// up a serve that checks the same zone until the import ends.
func TestAServeStartingDuringAFirstImportDoesNotWaitForIt(t *testing.T) {
	if len(storetest.Backends(t)) < 2 {
		t.Skip("PostgreSQL only: on SQLite an import holds the one write lock")
	}
	db := storetest.Open(t, storetest.Postgres)
	ctx := context.Background()
	imp := sqlstore.NewImportService(db)
	imp.TimeZone = "Australia/Sydney"
	midway, finish := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		first := true
		_, err := imp.ImportChunks(ctx, func() (*afftrack.Dataset, error) {
			if first {
				first = false
				return &afftrack.Dataset{Merchants: []afftrack.MerchantRecord{{Merchant: afftrack.Merchant{ID: 1, Name: "Shop"}}}}, nil
			}
			close(midway)
			<-finish
			return nil, errors.New("the file ends badly")
		})
		done <- err
	}()
	<-midway
	quick, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := db.CheckTimeZone(quick, "Australia/Sydney"); err != nil {
		t.Errorf("CheckTimeZone beside the import: %v", err)
	}
	close(finish)
	if err := <-done; err == nil {
		t.Fatal("the import succeeded")
	}
	// The serve relies on the zone: the failed import leaves it.
	wantError(t, db.CheckTimeZone(ctx, "UTC"), afftrack.EINVALID,
		"the database was created for time zone Australia/Sydney; --timezone UTC would shift every datetime (run with --timezone Australia/Sydney)")
}

func TestCheckCurrency(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		if err := db.CheckCurrency(ctx, "NZD"); err != nil {
			t.Fatalf("first use: %v", err)
		}
		if err := db.CheckCurrency(ctx, "NZD"); err != nil {
			t.Fatalf("same currency again: %v", err)
		}
		wantError(t, db.CheckCurrency(ctx, "AUD"), afftrack.EINVALID,
			"the database's amounts are in NZD; --currency AUD would misstate every one of them (run with --currency NZD)")
	})
}

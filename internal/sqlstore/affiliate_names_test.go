package sqlstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// TestAffiliateNames checks that the names a transaction shows are its
// affiliate's as of the read, though the store caches them: after a
// rename by an import through the same DB or through another one (another
// process, as `afftrack import` is beside a running server).
func TestAffiliateNames(t *testing.T) {
	ctx := context.Background()
	for _, b := range storetest.Backends(t) {
		t.Run(b, func(t *testing.T) {
			url := storetest.URL(t, b)
			open := func() *sqlstore.DB {
				db, err := sqlstore.Open(ctx, url)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				if err := db.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				return db
			}
			server, importer := open(), open()
			d := fixture(t)
			mustImport(t, importer, d)
			tr := d.Transactions[0].Transaction
			s := sqlstore.NewTransactionService(server)
			names := func() (string, string) {
				t.Helper()
				got, err := s.FindTransactionByID(ctx, tr.MerchantID, tr.ID)
				if err != nil {
					t.Fatal(err)
				}
				f := afftrack.TransactionFilter{MerchantID: tr.MerchantID, From: dt(t, "2000-01-01"), To: dt(t, "2099-12-31")}
				if err := s.FindTransactions(ctx, f, func(l *afftrack.Transaction) error {
					if l.ID == tr.ID && (l.AffiliateContactName != got.AffiliateContactName ||
						l.AffiliateBusinessName != got.AffiliateBusinessName) {
						t.Errorf("the list shows %q and %q, the lookup %q and %q", l.AffiliateContactName,
							l.AffiliateBusinessName, got.AffiliateContactName, got.AffiliateBusinessName)
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				return got.AffiliateContactName, got.AffiliateBusinessName
			}
			rename := func(via *sqlstore.DB, contact, business string) {
				t.Helper()
				for _, a := range d.Affiliates {
					if a.ID == tr.AffiliateID {
						a.ContactName, a.BusinessName = contact, business
						mustImport(t, via, &afftrack.Dataset{Affiliates: []afftrack.AffiliateRecord{a}})
						return
					}
				}
				t.Fatalf("no affiliate %d in the fixture", tr.AffiliateID)
			}
			want := withNames(d, tr)
			if c, bn := names(); c != want.AffiliateContactName || bn != want.AffiliateBusinessName {
				t.Fatalf("names %q and %q, want %q and %q", c, bn, want.AffiliateContactName, want.AffiliateBusinessName)
			}
			for i, step := range []struct {
				via               *sqlstore.DB
				contact, business string
			}{
				{importer, "Renamed by another process", "Other Pty Ltd"},
				{server, "Renamed by the same one", "Same Pty Ltd"},
				{importer, "And back", "Back Pty Ltd"},
			} {
				rename(step.via, step.contact, step.business)
				if c, bn := names(); c != step.contact || bn != step.business {
					t.Errorf("after rename %d, names %q and %q, want %q and %q", i, c, bn, step.contact, step.business)
				}
			}
		})
	}
}

// TestAffiliateNamesConcurrently reads transactions from several
// goroutines while affiliates are renamed, for the race detector, and
// checks that every read shows names the affiliate had.
func TestAffiliateNamesConcurrently(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		d := loaded(t, db)
		tr := d.Transactions[0].Transaction
		var aff afftrack.AffiliateRecord
		for _, a := range d.Affiliates {
			if a.ID == tr.AffiliateID {
				aff = a
			}
		}
		valid := map[string]bool{aff.ContactName: true}
		for i := range 20 {
			valid[fmt.Sprint("Renamed ", i)] = true
		}
		s := sqlstore.NewTransactionService(db)
		done := make(chan struct{})
		errs := make(chan error, 8)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					select {
					case <-done:
						return
					default:
					}
					got, err := s.FindTransactionByID(ctx, tr.MerchantID, tr.ID)
					if err == nil && !valid[got.AffiliateContactName] {
						err = fmt.Errorf("names %q, never the affiliate's", got.AffiliateContactName)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
		for i := range 20 {
			a := aff
			a.ContactName = fmt.Sprint("Renamed ", i)
			mustImport(t, db, &afftrack.Dataset{Affiliates: []afftrack.AffiliateRecord{a}})
		}
		close(done)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		got, err := s.FindTransactionByID(ctx, tr.MerchantID, tr.ID)
		if err != nil || got.AffiliateContactName != "Renamed 19" {
			t.Errorf("after the renames: %v, %v; want the last name", got, err)
		}
	})
}

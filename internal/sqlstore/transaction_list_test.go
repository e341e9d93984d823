package sqlstore_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// pagedTransactions returns n transactions of merchant 1 and one affiliate
// whose dates come seven at a time, in an id order apart from their date
// order, so that pages of a list end inside a date.
func pagedTransactions(t testing.TB, n int) []afftrack.TransactionRecord {
	return datedTransactions(t, n, func(i int) int { return i / 7 })
}

// datedTransactions returns n transactions of merchant 1 and one
// affiliate, the ith created minute(i) minutes into 2024 and modified as
// many minutes before the last's creation, in an id order apart from their
// date order.
func datedTransactions(t testing.TB, n int, minute func(i int) int) []afftrack.TransactionRecord {
	recs := benchTransactions(t, n)
	start := dt(t, "2024-01-01")
	for i := range recs {
		tr := &recs[i].Transaction
		tr.ID = int64(10_000 + (i*7919)%n)
		tr.DateCreated = start.Add(time.Duration(minute(i)) * time.Minute)
		tr.DateModified = start.Add(time.Duration(minute(n-1)-minute(i)) * time.Minute)
	}
	return recs
}

func TestListsLongerThanAPage(t *testing.T) {
	const n = 2500 // two pages and a half
	layouts := []struct {
		name   string
		minute func(i int) int
	}{
		{"dates of seven transactions", func(i int) int { return i / 7 }},
		// The first page then holds two dates, the second one, the third
		// the rest of that date and another: each way a page starts.
		{"a date of 2,200 transactions between two smaller", func(i int) int {
			switch {
			case i < 100:
				return 0
			case i < 2300:
				return 1
			}
			return 2
		}},
	}
	for _, l := range layouts {
		t.Run("of "+l.name, func(t *testing.T) {
			eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
				mustImport(t, db, fixture(t))
				recs := datedTransactions(t, n, l.minute)
				mustImport(t, db, &afftrack.Dataset{Transactions: recs})
				s := sqlstore.NewTransactionService(db)
				for name, p := range map[string]afftrack.DateProperty{"DateCreated": afftrack.ByDateCreated, "DateModified": afftrack.ByDateModified} {
					t.Run("every transaction comes once, in order of "+name+" then id", func(t *testing.T) {
						date := func(tr *afftrack.Transaction) time.Time {
							if p == afftrack.ByDateModified {
								return tr.DateModified
							}
							return tr.DateCreated
						}
						want := make([]int64, 0, n)
						sorted := slices.Clone(recs)
						slices.SortFunc(sorted, func(a, b afftrack.TransactionRecord) int {
							return cmp.Or(date(&a.Transaction).Compare(date(&b.Transaction)), cmp.Compare(a.ID, b.ID))
						})
						for _, r := range sorted {
							want = append(want, r.ID)
						}
						got := make([]int64, 0, n)
						f := afftrack.TransactionFilter{MerchantID: 1, From: dt(t, "2024-01-01"), To: dt(t, "2024-01-31"), DateProperty: p}
						if err := s.FindTransactions(context.Background(), f, func(tr *afftrack.Transaction) error {
							got = append(got, tr.ID)
							return nil
						}); err != nil {
							t.Fatal(err)
						}
						if !slices.Equal(want, got) {
							t.Errorf("%d ids, want %d in order", len(got), len(want))
						}
						agot := make([]int64, 0, n)
						af := afftrack.AffiliateTransactionFilter{AffiliateID: recs[0].AffiliateID, From: f.From, To: f.To, DateProperty: p}
						if err := s.FindAffiliateTransactions(context.Background(), af, func(tr *afftrack.Transaction) error {
							agot = append(agot, tr.ID)
							return nil
						}); err != nil {
							t.Fatal(err)
						}
						if !slices.Equal(want, agot) {
							t.Errorf("the affiliate's list: %d ids, want the same %d in order", len(agot), len(want))
						}
					})
				}
				t.Run("every statement of a page has a page's bound", func(t *testing.T) {
					// A text that varied with the rows before would take a
					// place among the statements kept prepared for each text.
					for _, text := range db.PreparedTexts() {
						if _, limit, ok := strings.Cut(text, " LIMIT "); ok && limit != "1000" {
							t.Errorf("a statement of LIMIT %s is kept prepared: %s", limit, text)
						}
					}
				})
			})
		})
	}
}

// TestAListHoldsNoSnapshotWhileItsRowsAreHandedOn: on SQLite, a list's
// reader ends its read transaction before handing on a page, so a client
// slow to take the rows does not stop checkpoints (the write-ahead log
// would grow as long as it takes).
func TestAListHoldsNoSnapshotWhileItsRowsAreHandedOn(t *testing.T) {
	db := storetest.Open(t, storetest.SQLite)
	mustImport(t, db, fixture(t))
	mustImport(t, db, &afftrack.Dataset{Transactions: pagedTransactions(t, 1500)})
	s := sqlstore.NewTransactionService(db)
	ctx := context.Background()
	f := afftrack.TransactionFilter{MerchantID: 1, From: dt(t, "2024-01-01"), To: dt(t, "2024-01-31")}
	checked := false
	err := s.FindTransactions(ctx, f, func(tr *afftrack.Transaction) error {
		if checked {
			return nil
		}
		checked = true
		if _, err := db.SQL().ExecContext(ctx, `UPDATE merchants SET name = name || '' WHERE id = 1`); err != nil {
			return err
		}
		var busy, logged, done int
		if err := db.SQL().QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &done); err != nil {
			return err
		}
		if busy != 0 {
			t.Errorf("a checkpoint while the list hands on its rows was blocked (busy %d): the list holds a snapshot", busy)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAListOfLargeCartsComesWhole: pages end early at a bound of items,
// so memory stays bounded for carts of hundreds of items, and the list
// still comes whole, in order.
func TestAListOfLargeCartsComesWhole(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		mustImport(t, db, fixture(t))
		recs := pagedTransactions(t, 30)
		for i := range recs {
			tr := &recs[i].Transaction
			items := make([]afftrack.TransactionItem, 400)
			for j := range items {
				items[j] = tr.Items[0]
				items[j].Sku = fmt.Sprintf("sku-%d-%d", tr.ID, j)
			}
			tr.Items = items
		}
		mustImport(t, db, &afftrack.Dataset{Transactions: recs})
		s := sqlstore.NewTransactionService(db)
		var got []int64
		f := afftrack.TransactionFilter{MerchantID: 1, From: dt(t, "2024-01-01"), To: dt(t, "2024-01-31")}
		if err := s.FindTransactions(context.Background(), f, func(tr *afftrack.Transaction) error {
			if len(tr.Items) != 400 || tr.Items[399].Sku != fmt.Sprintf("sku-%d-399", tr.ID) {
				t.Errorf("transaction %d came with %d items, not its own 400", tr.ID, len(tr.Items))
			}
			got = append(got, tr.ID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != 30 {
			t.Errorf("%d transactions, want 30", len(got))
		}
		seen := map[int64]bool{}
		for _, id := range got {
			if seen[id] {
				t.Errorf("transaction %d came twice", id)
			}
			seen[id] = true
		}
	})
}

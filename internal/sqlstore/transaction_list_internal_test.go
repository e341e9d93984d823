package sqlstore

import (
	"context"
	"strings"
	"testing"

	"github.com/afftrack/afftrack"
)

// TestAPageAfterAnotherSeeksItsPlaceInTheIndex: on SQLite, each statement
// of a page after a page of one date enters the index of (merchant, date,
// id) where the page starts, so a date shared by many rows is not read
// again from its start for each of their pages (SQLite seeks a row value
// (date, id) > (d, i) by its date alone).
func TestAPageAfterAnotherSeeksItsPlaceInTheIndex(t *testing.T) {
	db := migratedSQLite(t)
	f := afftrack.TransactionFilter{MerchantID: 1, DateProperty: afftrack.ByDateCreated}
	q, err := transactionListQuery(&f, db.dialect)
	if err != nil {
		t.Fatal(err)
	}
	same, sameArgs := q.sameDate(cursor{date: 1_700_000_000_000, id: 42, oneDate: true})
	later, laterArgs := q.later(1_700_000_000_000)
	tests := []struct {
		name, text string
		args       []any
		want       string
	}{
		{"the rest of a date starts at the last id read", same, sameArgs,
			"transactions_merchant_created (merchant_id=? AND date_created=? AND id>?)"},
		{"the later dates start after the last date read", later, laterArgs,
			"transactions_merchant_created (merchant_id=? AND date_created>? AND date_created<?)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if plan := queryPlan(t, db, tt.text, tt.args...); !strings.Contains(plan, tt.want) {
				t.Errorf("plan:\n%s\nwant a search of %s", plan, tt.want)
			}
		})
	}
}

// TestAValidationByOrderIDSeeksItsTransaction: on SQLite, a validation
// row naming its transaction by OrderId finds it through the index of
// (merchant, OrderId), not by reading every transaction of the merchant.
func TestAValidationByOrderIDSeeksItsTransaction(t *testing.T) {
	db := migratedSQLite(t)
	plan := queryPlan(t, db, validatedByOrderID, int64(1), "ORDER-1")
	if want := "transactions_merchant_order (merchant_id=? AND order_id=?)"; !strings.Contains(plan, want) {
		t.Errorf("plan:\n%s\nwant a search of %s", plan, want)
	}
}

// queryPlan returns SQLite's plan of the query text with args, a line
// a step.
func queryPlan(t *testing.T, db *DB, text string, args ...any) string {
	t.Helper()
	rows, err := db.sql.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+text, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// migratedSQLite opens a new SQLite file with every migration applied,
// closed when the test ends.
func migratedSQLite(t *testing.T) *DB {
	t.Helper()
	db := openTestSQLite(t)
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

package sqlstore_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// TestMigration0010 writes accounts in the layout of migration 0009 and
// checks that 0010, which rebuilds merchants and affiliates on SQLite,
// keeps every value and every reference to them, and leaves foreign keys
// checked on every connection of the pool.
func TestMigration0010(t *testing.T) {
	ctx := context.Background()
	const (
		merchants  = `SELECT id, name, avatar_url, status, rate_per_minute, rate_per_day, rate_concurrent, date_created, date_modified, summary, new_category, new_category2, new_category3 FROM merchants ORDER BY id`
		affiliates = `SELECT id, contact_name, business_name, status, gst_registered, rate_per_minute, rate_per_day, rate_concurrent, notification_url, date_created, date_modified FROM affiliates ORDER BY id`
		references = `SELECT ms.affiliate_id, a.contact_name, ms.merchant_id, m.name FROM memberships ms
			JOIN affiliates a ON a.id = ms.affiliate_id JOIN merchants m ON m.id = ms.merchant_id ORDER BY 1, 3`
	)
	for _, b := range storetest.Backends(t) {
		t.Run(b, func(t *testing.T) {
			db := openMigratedTo(t, b, 9)
			for _, q := range []string{
				`INSERT INTO merchants (id, name, avatar_url, status, rate_per_minute, rate_per_day, rate_concurrent,
					date_created, date_modified, summary, new_category, new_category2, new_category3) VALUES
					(7, 'Seven', 'https://seven.example/a.png', 1, 30, 1000, 2, 100, 200, 'Shoes', 'Fashion', NULL, 'Kids'),
					(9000000000, 'Big', '', 2, NULL, NULL, NULL, 300, 400, '', NULL, NULL, NULL)`,
				`INSERT INTO affiliates (id, contact_name, business_name, status, gst_registered, rate_per_minute,
					rate_per_day, rate_concurrent, notification_url, date_created, date_modified) VALUES
					(3, 'Ann', 'Ann Pty', 1, TRUE, 10, NULL, 1, 'https://ann.example/n', 500, 600),
					(8000000000, 'Bob', '', 4, FALSE, NULL, NULL, NULL, '', 700, 800)`,
				`INSERT INTO memberships (affiliate_id, merchant_id, status) VALUES (3, 7, 1), (8000000000, 7, 2), (3, 9000000000, 1)`,
			} {
				if _, err := db.SQL().ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			before := []any{readAll(t, db, merchants), readAll(t, db, affiliates), readAll(t, db, references)}
			if err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			after := []any{readAll(t, db, merchants), readAll(t, db, affiliates), readAll(t, db, references)}
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("merchants, affiliates and memberships after 0010 (-before +after):\n%s", diff)
			}
			if b == "sqlite" {
				var indexes int64
				scanRow(t, db, `SELECT COUNT(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('merchants', 'affiliates')`, nil, &indexes)
				if indexes != 0 {
					t.Errorf("merchants and affiliates have %d indexes, want none beside their rowid", indexes)
				}
			}
			// Hold more connections than the migration used, so that its
			// own, back in the pool, is among them.
			var conns []*sql.Conn
			for range 8 {
				c, err := db.SQL().Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				conns = append(conns, c)
			}
			for i, c := range conns {
				_, err := c.ExecContext(ctx, `INSERT INTO memberships (affiliate_id, merchant_id, status) VALUES (99, 7, 1)`)
				if err == nil {
					t.Errorf("connection %d: a membership of a missing affiliate was stored; foreign keys are off", i)
				}
			}
		})
	}
}

// readAll returns every row of q, each value as the driver gave it.
func readAll(t *testing.T, db *sqlstore.DB, q string) [][]any {
	t.Helper()
	rows, err := db.SQL().Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var all [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		all = append(all, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return all
}

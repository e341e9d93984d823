package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// The Go step of migration 0003 (migrations/0003_relational_transactions.sql):
// it reads 0002's rows, by then in transactions_0002, decodes each one's
// details with the frozen reader of migrate_details.go, writes the
// transaction's columns and its items, and drops the old table and the
// names cache's table_versions. Like 0002's step it reads by pages of ids
// and uses no live code.

// migrateRelationalTransactions is the Go step of migration 0003.
func migrateRelationalTransactions(ctx context.Context, tx *sql.Tx, d dialect, _ time.Time) error {
	var cols, itemCols []string
	for _, c := range detailsColumns {
		cols = append(cols, c.name)
	}
	for _, c := range detailsItemColumns {
		itemCols = append(itemCols, c.name)
	}
	insert, err := tx.PrepareContext(ctx, `INSERT INTO transactions (`+strings.Join(cols, ", ")+`)
		VALUES (`+numberedParams(len(cols))+`)`)
	if err != nil {
		return err
	}
	defer insert.Close()
	insertItem, err := tx.PrepareContext(ctx, `INSERT INTO transaction_items (transaction_id, position, `+
		strings.Join(itemCols, ", ")+`) VALUES (`+numberedParams(2+len(itemCols))+`)`)
	if err != nil {
		return err
	}
	defer insertItem.Close()
	after := int64(-1 << 63)
	for {
		ids, forms, err := readPage0002(ctx, tx, after)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			break
		}
		for k, form := range forms {
			vals, items, err := readDetailsValues(form)
			if err != nil {
				return fmt.Errorf("transaction %d: %w", ids[k], err)
			}
			if _, err := insert.ExecContext(ctx, vals...); err != nil {
				return fmt.Errorf("write transaction %d: %w", ids[k], err)
			}
			for pos, it := range items {
				args := append([]any{ids[k], int64(pos + 1)}, it...)
				if _, err := insertItem.ExecContext(ctx, args...); err != nil {
					return fmt.Errorf("write transaction %d item %d: %w", ids[k], pos+1, err)
				}
			}
		}
		after = ids[len(ids)-1]
	}
	drops := []string{`DROP TABLE transactions_0002`, `DROP TABLE table_versions`}
	if d.name() == dialectPostgres {
		// Without statistics of the tables just filled, PostgreSQL plans
		// the lists' join to the items as a scan of all of them.
		drops = append(drops, `ANALYZE transactions, transaction_items`)
	}
	for _, q := range drops {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// readPage0002 reads the ids and details of the next page of 0002's
// transactions after an id.
func readPage0002(ctx context.Context, tx *sql.Tx, after int64) (ids []int64, forms [][]byte, err error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, details FROM transactions_0002 WHERE id > $1 ORDER BY id LIMIT $2`,
		after, migrationPageSize)
	if err != nil {
		return nil, nil, fmt.Errorf("read transactions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var form []byte
		if err := rows.Scan(&id, &form); err != nil {
			return nil, nil, fmt.Errorf("read transactions: %w", err)
		}
		ids, forms = append(ids, id), append(forms, form)
	}
	return ids, forms, rows.Err()
}

// numberedParams returns "$1, $2, ..., $n".
func numberedParams(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", i)
	}
	return b.String()
}

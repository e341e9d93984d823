package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// The Go step of migration 0002 (migrations/0002_transaction_details.*.sql):
// it reads 0001's transactions and items, by then in transactions_0001 and
// transaction_items, writes each transaction as a row of 0002's table with
// its details in the frozen form of migrate_details.go, and drops the old
// tables. It reads by pages of ids, because a transaction cannot read a
// query's rows on PostgreSQL while it writes. Like every released
// migration it uses no live code: what it reads and writes is spelled out
// here.

// migrationPageSize is how many transactions a converting step reads and
// writes at once.
const migrationPageSize = 500

// migrateTransactionDetails is the Go step of migration 0002.
func migrateTransactionDetails(ctx context.Context, tx *sql.Tx, _ dialect, _ time.Time) error {
	var cols, itemCols []string
	for _, c := range detailsColumns {
		cols = append(cols, "t."+c.name)
	}
	for _, c := range detailsItemColumns {
		itemCols = append(itemCols, "i."+c.name)
	}
	// One row per item, or one with NULL item columns for a transaction
	// without items, in order of id and position.
	read := `SELECT ` + strings.Join(cols, ", ") + `, i.position, ` + strings.Join(itemCols, ", ") + `
	FROM (SELECT * FROM transactions_0001 WHERE id > $1 ORDER BY id LIMIT $2) t
	LEFT JOIN transaction_items i ON i.transaction_id = t.id
	ORDER BY t.id, i.position`
	insert, err := tx.PrepareContext(ctx, `INSERT INTO transactions (id, merchant_id, affiliate_id, date_created,
		date_modified, details) VALUES ($1, $2, $3, $4, $5, $6)`)
	if err != nil {
		return err
	}
	defer insert.Close()
	n, ni := len(detailsColumns), len(detailsItemColumns)
	after := int64(-1 << 63)
	for {
		page, err := readPage0001(ctx, tx, read, after, n, ni)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		for _, p := range page {
			form, err := appendDetailsValues(nil, p.tx, p.items)
			if err != nil {
				return fmt.Errorf("transaction %v: %w", p.tx[0], err)
			}
			// id, merchant_id, affiliate_id, date_created, date_modified
			if _, err := insert.ExecContext(ctx, p.tx[0], p.tx[1], p.tx[6], p.tx[2], p.tx[3], form); err != nil {
				return fmt.Errorf("write transaction %v: %w", p.tx[0], err)
			}
		}
		after = page[len(page)-1].tx[0].(int64)
	}
	for _, q := range []string{`DROP TABLE transaction_items`, `DROP TABLE transactions_0001`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// transaction0001 is one transaction as 0001 stored it: its columns' values
// and each item's.
type transaction0001 struct {
	tx    []any
	items [][]any
}

// readPage0001 reads the next page of 0001's transactions after an id; n
// and ni are the numbers of transaction and item columns of the query.
func readPage0001(ctx context.Context, tx *sql.Tx, query string, after int64, n, ni int) ([]transaction0001, error) {
	rows, err := tx.QueryContext(ctx, query, after, migrationPageSize)
	if err != nil {
		return nil, fmt.Errorf("read transactions: %w", err)
	}
	defer rows.Close()
	var page []transaction0001
	for rows.Next() {
		vals := make([]any, n+1+ni)
		dest := make([]any, len(vals))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read transactions: %w", err)
		}
		id, ok := vals[0].(int64)
		if !ok {
			return nil, fmt.Errorf("read transactions: id: unexpected %T value", vals[0])
		}
		if len(page) == 0 || page[len(page)-1].tx[0] != any(id) {
			page = append(page, transaction0001{tx: vals[:n:n]})
		}
		if vals[n] != nil { // the item's position
			last := &page[len(page)-1]
			last.items = append(last.items, vals[n+1:])
		}
	}
	return page, rows.Err()
}

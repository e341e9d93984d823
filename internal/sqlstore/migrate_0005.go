package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
)

// The Go step of migration 0005 (migrations/0005_items_cache.*.sql): it
// reads transaction_items in key order, by pages, and writes each
// transaction's items_cache with the frozen format-1 encoder of
// items_cache.go, from the driver values as read.

// migrateItemsCache is the Go step of migration 0005.
func migrateItemsCache(ctx context.Context, tx *sql.Tx, d dialect) error {
	update, err := tx.PrepareContext(ctx, `UPDATE transactions SET items_cache = $1 WHERE id = $2`)
	if err != nil {
		return err
	}
	defer update.Close()
	var (
		current int64 // the transaction whose values vals holds
		vals    []any
	)
	write := func() error {
		if len(vals) == 0 {
			return nil
		}
		cache, err := appendItemsCache(nil, vals)
		if err != nil {
			return fmt.Errorf("transaction %d: %w", current, err)
		}
		if _, err := update.ExecContext(ctx, cache, current); err != nil {
			return fmt.Errorf("write transaction %d: %w", current, err)
		}
		vals = vals[:0]
		return nil
	}
	after := [2]int64{-1 << 63, 0} // the last (transaction_id, position) read
	for {
		// A page is read whole before it is written: PostgreSQL runs one
		// statement at a time on the transaction's connection.
		page, err := readItemsPage0005(ctx, tx, after)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		for _, row := range page {
			id, _ := row[0].(int64)
			if id != current {
				if err := write(); err != nil {
					return err
				}
				current = id
			}
			vals = append(vals, row[2:]...)
		}
		last := page[len(page)-1]
		after[0], _ = last[0].(int64)
		after[1], _ = last[1].(int64)
	}
	return write()
}

// readItemsPage0005 reads the next page of item rows after a key, each
// row its key and then the values of itemCacheColumns.
func readItemsPage0005(ctx context.Context, tx *sql.Tx, after [2]int64) ([][]any, error) {
	rows, err := tx.QueryContext(ctx, `SELECT transaction_id, position, `+itemCacheColumns+`
		FROM transaction_items
		WHERE transaction_id > $1 OR (transaction_id = $1 AND position > $2)
		ORDER BY transaction_id, position LIMIT $3`, after[0], after[1], migrationPageSize)
	if err != nil {
		return nil, fmt.Errorf("read items: %w", err)
	}
	defer rows.Close()
	var page [][]any
	for rows.Next() {
		row := make([]any, 2+itemCacheValues)
		dest := make([]any, len(row))
		for i := range dest {
			dest[i] = &row[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read items: %w", err)
		}
		page = append(page, row)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read items: %w", err)
	}
	return page, nil
}

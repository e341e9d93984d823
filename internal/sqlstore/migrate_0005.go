package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// The Go step of migration 0005 (migrations/0005_items_cache.*.sql): it
// reads transaction_items in key order, by pages, and writes each
// transaction's items_cache with the frozen format-1 encoder of
// items_cache.go, from the driver values as read.

// migrateItemsCache is the Go step of migration 0005.
func migrateItemsCache(ctx context.Context, tx *sql.Tx, d dialect, _ time.Time) error {
	var (
		current int64 // the transaction whose values vals holds
		vals    []any
		pending []any // id, cache, id, cache, ... encoded and not yet written
		update  *sql.Stmt
	)
	if d.name() != dialectPostgres {
		// A statement per row costs SQLite a call, not a round trip.
		st, err := tx.PrepareContext(ctx, `UPDATE transactions SET items_cache = $1 WHERE id = $2`)
		if err != nil {
			return err
		}
		defer st.Close()
		update = st
	}
	write := func() error {
		if len(vals) == 0 {
			return nil
		}
		cache, err := appendItemsCache(nil, vals)
		if err != nil {
			return fmt.Errorf("transaction %d: %w", current, err)
		}
		pending = append(pending, current, cache)
		vals = vals[:0]
		return nil
	}
	flush := func() error {
		defer func() { pending = pending[:0] }()
		if len(pending) == 0 {
			return nil
		}
		if update != nil {
			for i := 0; i < len(pending); i += 2 {
				if _, err := update.ExecContext(ctx, pending[i+1], pending[i]); err != nil {
					return fmt.Errorf("write transaction %d: %w", pending[i], err)
				}
			}
			return nil
		}
		// On PostgreSQL one UPDATE per page, a round trip per 500 rows
		// rather than per row.
		var b strings.Builder
		b.WriteString(`UPDATE transactions AS t SET items_cache = v.c FROM (VALUES `)
		for i := 0; i < len(pending); i += 2 {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "($%d::BIGINT, $%d::BYTEA)", i+1, i+2)
		}
		b.WriteString(`) AS v (id, c) WHERE t.id = v.id`)
		if _, err := tx.ExecContext(ctx, b.String(), pending...); err != nil {
			return fmt.Errorf("write transactions %d..%d: %w", pending[0], pending[len(pending)-2], err)
		}
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
		if err := flush(); err != nil {
			return err
		}
		last := page[len(page)-1]
		after[0], _ = last[0].(int64)
		after[1], _ = last[1].(int64)
	}
	if err := write(); err != nil {
		return err
	}
	return flush()
}

// readItemsPage0005 reads the next page of item rows after a key, each
// row its key and then the values of itemCacheColumns.
func readItemsPage0005(ctx context.Context, tx *sql.Tx, after [2]int64) ([][]any, error) {
	// A row-value comparison, which both engines search the primary key
	// with; PostgreSQL reads the equivalent OR as a filter over every row
	// before the key, which made the step quadratic.
	rows, err := tx.QueryContext(ctx, `SELECT transaction_id, position, `+itemCacheColumns+`
		FROM transaction_items
		WHERE (transaction_id, position) > ($1, $2)
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

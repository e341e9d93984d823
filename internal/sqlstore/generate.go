package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/generate"
)

// GenerateTransactions makes the transactions, their items and the
// invoices a generate.Bulk describes inside the database engine, with
// INSERT ... SELECT statements over a recursive sequence, in one database
// transaction. Binding every value from Go caps a load far below what the
// engine can write; rows computed by SQL cost a fraction of that.
//
// The records are drawn by the engine's own deterministic pseudo-random
// expressions (one multiplicative congruential stream per group of
// traits, seeded from the Bulk's seed) from the Bulk's tables, which
// go into TEMP tables of the loading connection. So one Bulk always gives
// the same rows, with Next's distributions but not its records.
//
// It runs on SQLite only (PostgreSQL loads the generator's chunks through
// Import): it relies on SQLite's integer arithmetic, math functions and
// printf, and switches foreign key checks off for its connection, since
// items go in before the transactions whose totals are their sums. The
// database must hold the Bulk's merchants and affiliates and no
// transactions, items or invoices with its ids. The transactions' indexes
// other than the primary key are dropped for the load and rebuilt after
// it, in the same database transaction.
func (db *DB) GenerateTransactions(ctx context.Context, b *generate.Bulk) (GenerateResult, error) {
	var res GenerateResult
	if db.Dialect() != dialectSQLite {
		return res, afftrack.Errorf(afftrack.EINVALID, "generate: transactions are generated in the database on SQLite only; use Import on %s", db.Dialect())
	}
	if b.Transactions == 0 {
		return res, nil
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return res, fmt.Errorf("generate: %w", err)
	}
	defer conn.Close()
	// Pragmas and TEMP tables belong to the connection, which goes back to
	// the pool: restore the pragmas as they were (the pool may have set
	// them its own way) and drop the tables whatever happens. A fresh
	// context, because ctx may be the reason for leaving.
	//
	// A generated database is rebuilt rather than recovered, so the load
	// skips the syncs of the checkpoint its commit sets off, and keeps
	// its pages in memory until then.
	pragmas := []struct{ name, load string }{
		{"foreign_keys", "OFF"}, {"cache_size", "-1048576"}, {"temp_store", "MEMORY"}, {"synchronous", "OFF"},
	}
	restore := dropGenTables()
	defer func() {
		cleanup := context.WithoutCancel(ctx)
		for _, q := range restore {
			conn.ExecContext(cleanup, q) //nolint:errcheck // best effort on the way out
		}
	}()
	for _, p := range pragmas {
		var was string
		if err := conn.QueryRowContext(ctx, "PRAGMA "+p.name).Scan(&was); err != nil {
			return res, fmt.Errorf("generate: read pragma %s: %w", p.name, err)
		}
		restore = append(restore, "PRAGMA "+p.name+" = "+was)
	}
	for _, q := range dropGenTables() {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return res, fmt.Errorf("generate: %s: %w", q, err)
		}
	}
	for _, p := range pragmas {
		if _, err := conn.ExecContext(ctx, "PRAGMA "+p.name+" = "+p.load); err != nil {
			return res, fmt.Errorf("generate: pragma %s: %w", p.name, err)
		}
	}
	if err := loadGenTables(ctx, conn, b); err != nil {
		return res, err
	}

	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("generate: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	indexes, err := dropTransactionIndexes(ctx, tx)
	if err != nil {
		return res, err
	}
	q := genQuery{b: b}
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(rowid), 0) FROM transaction_items").Scan(&q.itemBase); err != nil {
		return res, fmt.Errorf("generate: items: %w", err)
	}
	r, err := tx.ExecContext(ctx, q.items())
	if err != nil {
		return res, fmt.Errorf("generate: items: %w", err)
	}
	n, _ := r.RowsAffected()
	res.Items = int(n)
	if r, err = tx.ExecContext(ctx, q.transactions()); err != nil {
		return res, fmt.Errorf("generate: transactions: %w", err)
	}
	n, _ = r.RowsAffected()
	res.Transactions = int(n)
	if r, err = tx.ExecContext(ctx, q.invoices()); err != nil {
		return res, fmt.Errorf("generate: invoices: %w", err)
	}
	n, _ = r.RowsAffected()
	res.Invoices = int(n)
	for _, ix := range indexes {
		if _, err := tx.ExecContext(ctx, ix); err != nil {
			return res, fmt.Errorf("generate: rebuild index: %s: %w", ix, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return res, fmt.Errorf("generate: commit: %w", err)
	}
	return res, nil
}

// GenerateResult is what GenerateTransactions stored.
type GenerateResult struct {
	Transactions, Items, Invoices int
}

// genTables are the TEMP tables GenerateTransactions draws on.
var genTables = []string{
	"gen_day (k INTEGER PRIMARY KEY, day_ms INTEGER, cnt INTEGER, pay_ms INTEGER, vmonth INTEGER)",
	"gen_month (k INTEGER PRIMARY KEY, created_ms INTEGER, paid_ms INTEGER, ym TEXT, label TEXT)",
	"gen_merchant (hi INTEGER PRIMARY KEY, id INTEGER, members INTEGER, member_off INTEGER, member_step INTEGER, " +
		"cur_code TEXT, cur_name TEXT, per10k INTEGER, rate_bp INTEGER, override INTEGER, prefix TEXT, " +
		"coupon1 TEXT, coupon2 TEXT, product_off INTEGER, product_n INTEGER, banner_off INTEGER, banner_n INTEGER, textlink INTEGER)",
	"gen_affiliate (id INTEGER PRIMARY KEY, traffic_type INTEGER, source TEXT, gst INTEGER)",
	"gen_product (k INTEGER PRIMARY KEY, sku TEXT, name TEXT, brand TEXT, category TEXT, price INTEGER)",
	"gen_banner (k INTEGER PRIMARY KEY, id INTEGER, name TEXT)",
	"gen_pos (p INTEGER PRIMARY KEY)",
}

func dropGenTables() []string {
	qs := make([]string, len(genTables))
	for i, t := range genTables {
		qs[i] = "DROP TABLE IF EXISTS temp." + t[:strings.IndexByte(t, ' ')]
	}
	return qs
}

// loadGenTables creates the TEMP tables and fills them from b.
func loadGenTables(ctx context.Context, conn *sql.Conn, b *generate.Bulk) error {
	for _, t := range genTables {
		if _, err := conn.ExecContext(ctx, "CREATE TEMP TABLE "+t); err != nil {
			return fmt.Errorf("generate: create %s: %w", t, err)
		}
	}
	var days, months, merchants, affiliates, products, banners, pos [][]any
	for k, d := range b.Days {
		days = append(days, []any{k, d.Date.UnixMilli(), d.Transactions, d.Paid.UnixMilli(), d.Month})
	}
	for k, m := range b.Months {
		months = append(months, []any{k, m.Created.UnixMilli(), m.Paid.UnixMilli(), m.Number, m.Description})
	}
	prevHi := int64(0)
	for rank, m := range b.Merchants {
		// A merchant is drawn when the stream's value (below mcgModulus)
		// is under its hi and at or over the previous rank's.
		hi := max(int64(math.Round(m.Share*mcgModulus)), prevHi+1)
		if rank == len(b.Merchants)-1 {
			hi = max(mcgModulus, prevHi+1)
		}
		prevHi = hi
		if len(m.Coupons) == 0 || len(m.Products) == 0 || len(m.Banners) == 0 {
			return fmt.Errorf("generate: merchant %d needs coupons, products and banners", m.ID)
		}
		merchants = append(merchants, []any{hi, m.ID, m.Members, m.MemberOff, m.MemberStep, m.CurrencyCode, m.CurrencyName,
			m.Per10k, m.RateBP, m.OverrideFee, m.OrderPrefix, m.Coupons[0], m.Coupons[len(m.Coupons)-1],
			len(products), len(m.Products), len(banners), len(m.Banners), m.TextLinkBase})
		for _, p := range m.Products {
			products = append(products, []any{len(products), p.Sku, p.Name, p.Brand, p.Category, p.Price})
		}
		for _, x := range m.Banners {
			banners = append(banners, []any{len(banners), x.ID, x.Name})
		}
	}
	for i, a := range b.AffiliateSources {
		affiliates = append(affiliates, []any{i + 1, a.TrafficType, a.Source, a.GST})
	}
	for _, c := range b.ItemCounts {
		if c.Value > int64(len(pos)) {
			for p := len(pos) + 1; p <= int(c.Value); p++ {
				pos = append(pos, []any{p})
			}
		}
	}
	for _, t := range []struct {
		name string
		rows [][]any
	}{
		{"gen_day", days}, {"gen_month", months}, {"gen_merchant", merchants}, {"gen_affiliate", affiliates},
		{"gen_product", products}, {"gen_banner", banners}, {"gen_pos", pos},
	} {
		if err := insertRows(ctx, conn, t.name, t.rows); err != nil {
			return err
		}
	}
	return nil
}

// insertRows inserts rows into a TEMP table, many to a statement.
func insertRows(ctx context.Context, conn *sql.Conn, table string, rows [][]any) error {
	for len(rows) > 0 {
		n := min(len(rows), 500)
		var q strings.Builder
		q.WriteString("INSERT INTO temp." + table + " VALUES ")
		args := make([]any, 0, n*len(rows[0]))
		for i, row := range rows[:n] {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteByte('(')
			for j, v := range row {
				if j > 0 {
					q.WriteByte(',')
				}
				// Positional: the driver binds $n parameters by name,
				// which costs the whole list per parameter.
				args = append(args, v)
				q.WriteByte('?')
			}
			q.WriteByte(')')
		}
		if _, err := conn.ExecContext(ctx, q.String(), args...); err != nil {
			return fmt.Errorf("generate: fill %s: %w", table, err)
		}
		rows = rows[n:]
	}
	return nil
}

// dropTransactionIndexes drops the transactions' secondary indexes and
// returns the statements that rebuild them: building an index once over
// sorted rows is far cheaper than keeping it up to date row by row.
func dropTransactionIndexes(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx,
		"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'transactions' AND sql IS NOT NULL ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("generate: list indexes: %w", err)
	}
	var names, defs []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return nil, fmt.Errorf("generate: list indexes: %w", err)
		}
		names, defs = append(names, name), append(defs, def)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("generate: list indexes: %w", err)
	}
	for _, name := range names {
		if _, err := tx.ExecContext(ctx, `DROP INDEX "`+name+`"`); err != nil {
			return nil, fmt.Errorf("generate: drop index %s: %w", name, err)
		}
	}
	return defs, nil
}

// GeneratedDays counts the transactions GenerateTransactions made from b
// per merchant and day, with the lookup transactions of the Mid
// merchant's days: what the generator's BulkSummary needs.
func (db *DB) GeneratedDays(ctx context.Context, b *generate.Bulk) ([]generate.DayLoad, error) {
	conn := db.sql
	last := b.FirstID + int64(b.Transactions) - 1
	lookups := map[int64]int64{}
	rows, err := conn.QueryContext(ctx, `SELECT date_created / 86400000, min(id),
		min(CASE WHEN EXISTS (SELECT 1 FROM transaction_items i WHERE i.transaction_id = t.id AND i.position = 2) THEN id END)
		FROM transactions t WHERE merchant_id = $1 AND id BETWEEN $2 AND $3 GROUP BY 1`, b.Mid, b.FirstID, last)
	if err != nil {
		return nil, fmt.Errorf("generate: lookups: %w", err)
	}
	for rows.Next() {
		var day, first int64
		var two sql.NullInt64
		if err := rows.Scan(&day, &first, &two); err != nil {
			rows.Close()
			return nil, fmt.Errorf("generate: lookups: %w", err)
		}
		lookups[day] = first
		if two.Valid {
			lookups[day] = two.Int64
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("generate: lookups: %w", err)
	}

	rows, err = conn.QueryContext(ctx, `SELECT merchant_id, date_created / 86400000, count(*)
		FROM transactions WHERE id BETWEEN $1 AND $2 GROUP BY 1, 2`, b.FirstID, last)
	if err != nil {
		return nil, fmt.Errorf("generate: days: %w", err)
	}
	defer rows.Close()
	var days []generate.DayLoad
	for rows.Next() {
		var l generate.DayLoad
		var day int64
		if err := rows.Scan(&l.MerchantID, &day, &l.Transactions); err != nil {
			return nil, fmt.Errorf("generate: days: %w", err)
		}
		l.Date = time.UnixMilli(day * 86400000).UTC()
		if l.MerchantID == b.Mid {
			l.Lookup = lookups[day]
		}
		days = append(days, l)
	}
	if err := rows.Err(); err != nil {
		return nil, errors.Join(errors.New("generate: days"), err)
	}
	return days, nil
}

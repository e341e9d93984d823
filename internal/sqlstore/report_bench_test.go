package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// Report benchmark sizes: AFFTRACK_REPORT_BENCH_TX transactions and ten
// times as many clicks over 2024, spread over benchMerchants merchants and
// benchAffiliates affiliates.
const (
	benchMerchants  = 10
	benchAffiliates = 100
)

// reportBenchDB fills a fresh database of the backend with n transactions
// and 10n clicks, written by the database itself (INSERT ... SELECT over
// a counter) so the set-up takes seconds, not an import's minutes.
func reportBenchDB(b *testing.B, backend string, n int) *sqlstore.DB {
	b.Helper()
	db := storetest.Open(b, backend)
	d := &afftrack.Dataset{}
	for m := int64(1); m <= benchMerchants; m++ {
		d.Merchants = append(d.Merchants, afftrack.MerchantRecord{Merchant: afftrack.Merchant{ID: m,
			Name: fmt.Sprintf("Merchant %d", m), AvatarURL: "https://img.example/m.png", Status: afftrack.AccountActive}})
	}
	for a := int64(1); a <= benchAffiliates; a++ {
		d.Affiliates = append(d.Affiliates, afftrack.AffiliateRecord{Affiliate: afftrack.Affiliate{ID: a,
			ContactName: fmt.Sprintf("Affiliate %d", a), Status: afftrack.AccountActive}})
	}
	mustImport(b, db, d)
	year := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	const yearMs = 366 * 24 * 3600 * 1000
	counter := `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %d) `
	clickID := `printf('%032x', i)`
	if db.Dialect() == "postgres" {
		counter = `WITH s(i) AS (SELECT generate_series(CAST(1 AS BIGINT), %d)) `
		clickID = `lpad(to_hex(i), 32, '0')`
	}
	ctx := context.Background()
	exec := func(q string) {
		if _, err := db.SQL().ExecContext(ctx, q); err != nil {
			b.Fatalf("%v\n%s", err, q)
		}
	}
	// Pseudo-random spreads: multiplicative hashes of i.
	exec(fmt.Sprintf(counter, n) + `INSERT INTO transactions (id, merchant_id, date_created, date_modified,
		consumption_date, validation_date, affiliate_id, traffic_type, traffic_source, creative_type,
		customer_country_code, customer_country_name, customer_ip_address, customer_type, order_id,
		tracking_method, sale_value, commission, override_fee, reported_currency_code, reported_currency_name,
		reported_sale_value, traffic_source_approved, status2)
	SELECT i, 1 + (i * 7919) % ` + strconv.Itoa(benchMerchants) + `, ` + strconv.FormatInt(year, 10) + ` + (i * 104729) % ` + strconv.Itoa(yearMs) + `, 0, 0, 0,
		1 + (i * 15485863) % ` + strconv.Itoa(benchAffiliates) + `, 1 + i % 6, 'example.com', 1, 'AU', 'Australia', '', 1, 'ORD',
		3, (i * 7727) % 1000000, (i * 7727) % 100000, (i * 31) % 1000, 'AUD', 'Australian Dollar', 0, TRUE, 1 + (i * 13) % 5
	FROM s`)
	exec(fmt.Sprintf(counter, 10*n) + `INSERT INTO clicks (id, created, merchant_id, affiliate_id, creative_type,
		referer, ip_hash, country_code, country_name, bot, credited, unique_id, unique_id2, unique_id3, unique_id4, traffic_type)
	SELECT ` + clickID + `, ` + strconv.FormatInt(year, 10) + ` + (i * 104729) % ` + strconv.Itoa(yearMs) + `,
		1 + (i * 7919) % ` + strconv.Itoa(benchMerchants) + `, 1 + (i * 15485863) % ` + strconv.Itoa(benchAffiliates) + `, 1,
		'', '', '', '', i % 10 = 0, i % 10 <> 0, '', '', '', '', 1 + i % 6
	FROM s`)
	if db.Dialect() == "postgres" {
		exec(`ANALYZE transactions`)
		exec(`ANALYZE clicks`)
	} else {
		exec(`ANALYZE`)
	}
	return db
}

// The plain GROUP BY queries a report needs, run straight through the
// driver: the yardstick of the report methods (no names, no merge).
const (
	plainTxByAffiliate = `SELECT %s, status2, COUNT(*), SUM(sale_value), SUM(commission), SUM(override_fee)
	FROM transactions WHERE %s = $1 AND date_created >= $2 AND date_created < $3 GROUP BY %s, status2`
	plainClicksByAffiliate = `SELECT %s, bot, COUNT(*)
	FROM clicks WHERE %s = $1 AND created >= $2 AND created < $3 GROUP BY %s, bot`
)

// plainReport runs the two plain queries grouped by key for the account
// column, scanning every grouped row.
func plainReport(ctx context.Context, db *sql.DB, account, key string, id, from, to int64) (int, error) {
	rows := 0
	for _, q := range []string{plainTxByAffiliate, plainClicksByAffiliate} {
		r, err := db.QueryContext(ctx, fmt.Sprintf(q, key, account, key), id, from, to)
		if err != nil {
			return 0, err
		}
		cols, _ := r.Columns()
		dest := make([]any, len(cols))
		for i := range dest {
			dest[i] = new(sql.RawBytes)
		}
		for r.Next() {
			if err := r.Scan(dest...); err != nil {
				r.Close()
				return 0, err
			}
			rows++
		}
		r.Close()
		if err := r.Err(); err != nil {
			return 0, err
		}
	}
	return rows, nil
}

// BenchmarkReports times a year's report of each kind against the plain
// GROUP BY queries on the same data. AFFTRACK_REPORT_BENCH_TX sets the
// transactions (default 200,000; clicks are ten times as many). Compare
// ns/op of the "store" and "plain" pairs; the ratio plain/store is the
// report's relative speed.
func BenchmarkReports(b *testing.B) {
	n := 200_000
	if v, err := strconv.Atoi(os.Getenv("AFFTRACK_REPORT_BENCH_TX")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	from, to := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)
	start, end := from.UnixMilli(), to.AddDate(0, 0, 1).UnixMilli()
	for _, backend := range storetest.Backends(b) {
		b.Run(backend, func(b *testing.B) {
			db := reportBenchDB(b, backend, n)
			rs := sqlstore.NewReportService(db)
			cases := []struct {
				name         string
				account, key string
				id           int64
				store        func() (int, error)
			}{
				{"affiliate_by_merchant", "affiliate_id", "merchant_id", 7, func() (int, error) {
					l, err := rs.MerchantReport(ctx, 7, from, to)
					return len(l), err
				}},
				{"affiliate_by_traffic_type", "affiliate_id", "traffic_type", 7, func() (int, error) {
					l, err := rs.TrafficTypeReport(ctx, 7, from, to)
					return len(l), err
				}},
				{"merchant_by_affiliate", "merchant_id", "affiliate_id", 3, func() (int, error) {
					l, err := rs.AffiliateReport(ctx, 3, from, to)
					return len(l), err
				}},
			}
			for _, c := range cases {
				b.Run(c.name+"/store", func(b *testing.B) {
					for b.Loop() {
						if lines, err := c.store(); err != nil || lines == 0 {
							b.Fatalf("%d lines, %v", lines, err)
						}
					}
				})
				b.Run(c.name+"/plain", func(b *testing.B) {
					for b.Loop() {
						if rows, err := plainReport(ctx, db.SQL(), c.account, c.key, c.id, start, end); err != nil || rows == 0 {
							b.Fatalf("%d rows, %v", rows, err)
						}
					}
				})
			}
		})
	}
}

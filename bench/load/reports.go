package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/afftrack/afftrack/internal/sqlstore"
)

// reportRuns is how many times each report and its plain queries run.
const reportRuns = 20

// reportTarget is the least ratio of the report's speed to the plain
// queries'.
const reportTarget = 0.8

// The plain GROUP BY queries each report is made of, run here straight
// through database/sql and scanned into nothing: what the database alone
// costs. They sum each amount with one plain SUM, where internal/sqlstore
// (report.go) sums its upper and lower 32 bits apart so a sum is exact on
// SQLite too, so the ratio also shows what that costs. $1 is the
// account, $2 and $3 the range in milliseconds.
var plainReportQueries = map[string][2]string{
	"traffic type": {`SELECT traffic_type, status2, COUNT(*),
		CAST(SUM(sale_value) AS BIGINT), CAST(SUM(commission) AS BIGINT)
	FROM transactions
	WHERE affiliate_id = $1 AND date_created >= $2 AND date_created < $3
	GROUP BY traffic_type, status2`, `SELECT traffic_type, bot, COUNT(*)
	FROM clicks
	WHERE affiliate_id = $1 AND created >= $2 AND created < $3
	GROUP BY traffic_type, bot`},
	"merchant": {`SELECT g.merchant_id, m.name, m.avatar_url, g.status2, g.n, g.sale, g.commission
	FROM (SELECT merchant_id, status2, COUNT(*) AS n,
			CAST(SUM(sale_value) AS BIGINT) AS sale, CAST(SUM(commission) AS BIGINT) AS commission
		FROM transactions
		WHERE affiliate_id = $1 AND date_created >= $2 AND date_created < $3
		GROUP BY merchant_id, status2) g
	JOIN merchants m ON m.id = g.merchant_id`, `SELECT g.merchant_id, m.name, m.avatar_url, g.bot, g.n
	FROM (SELECT merchant_id, bot, COUNT(*) AS n
		FROM clicks
		WHERE affiliate_id = $1 AND created >= $2 AND created < $3
		GROUP BY merchant_id, bot) g
	JOIN merchants m ON m.id = g.merchant_id`},
	"affiliate": {`SELECT g.affiliate_id, a.contact_name, a.business_name, g.status2, g.n,
		g.sale, g.commission, g.override_fee
	FROM (SELECT affiliate_id, status2, COUNT(*) AS n,
			CAST(SUM(sale_value) AS BIGINT) AS sale, CAST(SUM(commission) AS BIGINT) AS commission,
			CAST(SUM(override_fee) AS BIGINT) AS override_fee
		FROM transactions
		WHERE merchant_id = $1 AND date_created >= $2 AND date_created < $3
		GROUP BY affiliate_id, status2) g
	JOIN affiliates a ON a.id = g.affiliate_id`, `SELECT g.affiliate_id, a.contact_name, a.business_name, g.bot, g.n
	FROM (SELECT affiliate_id, bot, COUNT(*) AS n
		FROM clicks
		WHERE merchant_id = $1 AND created >= $2 AND created < $3
		GROUP BY affiliate_id, bot) g
	JOIN affiliates a ON a.id = g.affiliate_id`},
}

// reportCase is one report measured: a service method on an account.
type reportCase struct {
	kind    string // key of plainReportQueries
	account string // "affiliate 123"
	id      int64
	run     func(ctx context.Context, id int64, from, to time.Time) (int, error)
}

// measureReports times, in this process against the backend's database
// (no HTTP), each report of sqlstore.ReportService over the network's
// whole period for a mid-sized account, beside its plain GROUP BY queries
// run through database/sql, alternating the two reportRuns times.
func (b *bench) measureReports(ctx context.Context, be backend) error {
	name := func(kind string) string { return "report by " + kind + ", whole period in-process " + be.Name }
	wanted := false
	for kind := range plainReportQueries {
		wanted = wanted || b.wants(name(kind))
	}
	if !wanted {
		return nil
	}
	db, err := sqlstore.Open(ctx, be.DSN)
	if err != nil {
		return err
	}
	defer db.Close()
	affiliate, err := midAffiliate(ctx, db.SQL())
	if err != nil {
		return err
	}
	merchant := b.summary.Mid.ID
	svc := sqlstore.NewReportService(db)
	n := b.cfg.Network
	from, to := n.Start, n.Start.AddDate(0, 0, n.Days-1)
	cases := []reportCase{
		{"traffic type", "affiliate", affiliate, func(ctx context.Context, id int64, from, to time.Time) (int, error) {
			r, err := svc.TrafficTypeReport(ctx, id, from, to)
			return len(r), err
		}},
		{"merchant", "affiliate", affiliate, func(ctx context.Context, id int64, from, to time.Time) (int, error) {
			r, err := svc.MerchantReport(ctx, id, from, to)
			return len(r), err
		}},
		{"affiliate", "merchant", merchant, func(ctx context.Context, id int64, from, to time.Time) (int, error) {
			r, err := svc.AffiliateReport(ctx, id, from, to)
			return len(r), err
		}},
	}
	for _, c := range cases {
		if !b.wants(name(c.kind)) {
			continue
		}
		fmt.Fprintln(b.progress, "load: measuring", name(c.kind))
		r, err := measureReport(ctx, db.SQL(), c, from, to)
		r.Backend = be.Name
		if err != nil {
			return fmt.Errorf("%s: %w", name(c.kind), err)
		}
		b.rows = append(b.rows, r)
	}
	return nil
}

// midAffiliate returns the affiliate ranked at the first percentile by
// transactions: a sizeable account, not the network's largest.
func midAffiliate(ctx context.Context, db *sql.DB) (int64, error) {
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT COUNT(DISTINCT affiliate_id) FROM transactions`).Scan(&n); err != nil {
		return 0, fmt.Errorf("mid-sized affiliate: %w", err)
	}
	var id int64
	err := db.QueryRowContext(ctx, `SELECT affiliate_id FROM transactions GROUP BY affiliate_id
		ORDER BY COUNT(*) DESC, affiliate_id LIMIT 1 OFFSET $1`, n/100).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("mid-sized affiliate: %w", err)
	}
	return id, nil
}

// measureReport runs the report and its plain queries in turn, one warm-up
// each then reportRuns timed, and returns the row: "requests" are reports.
func measureReport(ctx context.Context, db *sql.DB, c reportCase, from, to time.Time) (row, error) {
	start := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, time.UTC).UnixMilli()
	end := time.Date(to.Year(), to.Month(), to.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1).UnixMilli()
	r := row{Scenario: "report by " + c.kind + ", whole period", Format: "in-process", Target: reportTarget}
	var lines, plainRows int
	var storeTimes, plainTimes []time.Duration
	for i := range reportRuns + 1 {
		t0 := time.Now()
		n, err := c.run(ctx, c.id, from, to)
		if err != nil {
			return r, err
		}
		took := time.Since(t0)
		t0 = time.Now()
		m, err := plainQueries(ctx, db, plainReportQueries[c.kind], c.id, start, end)
		if err != nil {
			return r, err
		}
		plainTook := time.Since(t0)
		if i > 0 { // the first is a warm-up
			storeTimes, plainTimes = append(storeTimes, took), append(plainTimes, plainTook)
		}
		lines, plainRows = n, m
	}
	r.Afftrack, r.Baseline = timesResult(storeTimes), timesResult(plainTimes)
	r.Note = fmt.Sprintf("%s %d: %d report lines from %d grouped rows; %d runs each, alternating, in this process against the database (no HTTP); baseline: the same GROUP BY queries through database/sql",
		c.account, c.id, lines, plainRows, reportRuns)
	if lines == 0 {
		r.Note += "; EMPTY report"
	}
	return r, nil
}

// plainQueries runs the queries for the account and range, scanning
// every column, and returns the rows read.
func plainQueries(ctx context.Context, db *sql.DB, queries [2]string, id, start, end int64) (int, error) {
	n := 0
	for _, q := range queries {
		rows, err := db.QueryContext(ctx, q, id, start, end)
		if err != nil {
			return 0, err
		}
		cols, err := rows.Columns()
		if err != nil {
			rows.Close()
			return 0, err
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return 0, err
			}
			n++
		}
		if err := rows.Close(); err != nil {
			return 0, err
		}
		if err := rows.Err(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// timesResult summarises run times as a result: runs per second of the
// total, median and slowest.
func timesResult(times []time.Duration) result {
	var total time.Duration
	for _, d := range times {
		total += d
	}
	s := slices.Clone(times)
	slices.Sort(s)
	r := result{Requests: int64(len(s))}
	if total > 0 {
		r.RequestsPerS = float64(len(s)) / total.Seconds()
	}
	if len(s) > 0 {
		r.P50, r.P99 = s[len(s)/2], s[len(s)-1]
	}
	return r
}

package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/generate"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// The tracking scenarios (tracking.md sections 2 and 3): the click
// redirect and the merchant's server-to-server conversion, each measured
// on afftrack served with its default settings and, in the same run with
// the same wrk script, on a bare net/http handler that does the least the
// same answer needs. Both run over many accounts at random: thousands of
// (affiliate, link) pairs, and the keys of every merchant they belong to.

// The tracking scenarios' names, as --only matches them with the format
// and the backend.
const (
	clickScenario      = "click redirect, random links"
	clickFormat        = "302"
	conversionScenario = "conversion, random merchants"
	conversionFormat   = "JSON"
)

// The tracking issue's targets: ratios to the bare handlers' requests/s.
const (
	clickTarget      = 0.70
	conversionTarget = 0.50
)

// trackingLinks is how many distinct (affiliate, link) pairs the click
// scenario spreads its requests over: well inside the link cache's
// default 100,000 entries, as a busy network's links of the last
// half-minute would be.
const trackingLinks = sampleCount

// creditCount is how many clicks the conversion scenario makes before it
// runs, and how many exclusive coupons it creates: the conversions credit
// each half of them at random.
const creditCount = 2_000

// benchCouponID is the first id of the coupons the benchmark creates. They
// are rewritten, by id, on every run with the same seed.
const benchCouponID = 900_000_001

// userAgents are browsers' User-Agent headers: a click comes from a
// browser, and afftrack classifies every one (crawler or not), which costs
// what it costs for what browsers send. wrk sends no User-Agent of its own.
var userAgents = []string{
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
	"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0",
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
	"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36",
	"Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1",
}

// trackingPlan is what the tracking scenarios drive: credited links and
// the exclusive coupons made for them.
type trackingPlan struct {
	links      []trackingLink
	coupons    []credit // CouponCode credits, one per coupon created
	merchants  int      // distinct merchants among the links
	affiliates int      // distinct affiliates among the links
}

// trackingLink is a credited tracking link: an Active affiliate Joined to
// an Active merchant whose program has a landing page and pays.
type trackingLink struct {
	Path     string // /t/{affiliateId}/b/{bannerId} or /t/{affiliateId}/t/{merchantId}
	Merchant int64
}

// credit is what a conversion names to be credited: a click id or an
// exclusive coupon code, of the merchant whose key reports it.
type credit struct {
	Merchant     int64
	Field, Value string // "ClickId" or "CouponCode", and its value
}

// wants reports whether --only asks for the run named name ("scenario
// format backend").
func (b *bench) wants(name string) bool { return b.cfg.Only == nil || b.cfg.Only.MatchString(name) }

// measureTracking measures the click and conversion scenarios the
// --only flag asks for on the backend. What the runs add to the database
// (clicks, conversions and their transactions) is deleted afterwards, so
// a reused database stays the network it was generated as; the programs
// and coupons the benchmark gives the network stay, and are rewritten
// alike by the next run.
func (b *bench) measureTracking(ctx context.Context, be backend) error {
	clicks := b.wants(clickScenario + " " + clickFormat + " " + be.Name)
	conversions := b.wants(conversionScenario + " " + conversionFormat + " " + be.Name)
	if !clicks && !conversions {
		return nil
	}
	fmt.Fprintln(b.progress, "load: preparing the tracking scenarios on", be.Name)
	start := time.Now()
	plan, mark, err := prepareTracking(ctx, be.DSN, b.cfg.Network)
	if err != nil {
		return err
	}
	defer func() {
		if err := mark.cleanUp(context.WithoutCancel(ctx), be.DSN, start); err != nil {
			fmt.Fprintln(b.progress, "load:", err)
		}
	}()
	if clicks {
		name := clickScenario + " " + clickFormat + " " + be.Name
		fmt.Fprintln(b.progress, "load: measuring", name)
		r, err := b.measureClicks(ctx, be, plan)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b.rows = append(b.rows, r)
	}
	if conversions {
		name := conversionScenario + " " + conversionFormat + " " + be.Name
		fmt.Fprintln(b.progress, "load: measuring", name)
		r, err := b.measureConversions(ctx, be, plan)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b.rows = append(b.rows, r)
	}
	return nil
}

// prepareTracking migrates the database to the schema serve expects,
// gives every merchant without a program one that pays 10% (the generator
// makes none), creates creditCount exclusive coupons, locks the
// transactions due as serve's schedule would, and draws the scenarios'
// links. The draws are seeded, so two runs drive the same
// links. mark is where the database stood, for cleanUp.
func prepareTracking(ctx context.Context, dsn string, n generate.Config) (*trackingPlan, *dbMark, error) {
	db, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return nil, nil, fmt.Errorf("migrate: %w", err)
	}
	q := db.SQL()
	var missing []int64
	if err := queryInts(ctx, q, &missing, `SELECT m.id FROM merchants m
		WHERE NOT EXISTS (SELECT 1 FROM programs p WHERE p.merchant_id = m.id) ORDER BY m.id`); err != nil {
		return nil, nil, fmt.Errorf("find merchants without a program: %w", err)
	}
	d := &afftrack.Dataset{}
	for _, id := range missing {
		d.Programs = append(d.Programs, benchProgram(id))
	}

	// Credited pairs: the links of these are the ones users click.
	var pairs []int64 // affiliate, merchant, affiliate, merchant, ...
	if err := queryInts(ctx, q, &pairs, `SELECT ms.affiliate_id, ms.merchant_id FROM memberships ms
		JOIN affiliates a ON a.id = ms.affiliate_id AND a.status = 1
		JOIN merchants m ON m.id = ms.merchant_id AND m.status = 1
		LEFT JOIN programs p ON p.merchant_id = ms.merchant_id
		WHERE ms.status = 1 AND (p.merchant_id IS NULL
			OR p.target_url <> '' AND (p.commission_percent IS NOT NULL OR p.commission_flat IS NOT NULL))
		ORDER BY ms.merchant_id, ms.affiliate_id`); err != nil {
		return nil, nil, fmt.Errorf("find memberships: %w", err)
	}
	if len(pairs) == 0 {
		return nil, nil, fmt.Errorf("the network has no Joined membership of an Active affiliate and merchant")
	}
	var bannerRows []int64 // banner, merchant, ...
	if err := queryInts(ctx, q, &bannerRows, `SELECT id, merchant_id FROM banners ORDER BY id`); err != nil {
		return nil, nil, fmt.Errorf("find banners: %w", err)
	}
	banners := map[int64][]int64{}
	for i := 0; i < len(bannerRows); i += 2 {
		banners[bannerRows[i+1]] = append(banners[bannerRows[i+1]], bannerRows[i])
	}

	r := rand.New(rand.NewPCG(n.Seed, 7))
	plan := &trackingPlan{}
	merchants, affiliates := map[int64]bool{}, map[int64]bool{}
	for range trackingLinks {
		i := 2 * r.IntN(len(pairs)/2)
		aff, m := pairs[i], pairs[i+1]
		path := fmt.Sprintf("/t/%d/t/%d", aff, m)
		if bs := banners[m]; len(bs) > 0 && r.IntN(2) == 0 {
			path = fmt.Sprintf("/t/%d/b/%d", aff, bs[r.IntN(len(bs))])
		}
		plan.links = append(plan.links, trackingLink{Path: path, Merchant: m})
		merchants[m], affiliates[aff] = true, true
	}
	plan.merchants, plan.affiliates = len(merchants), len(affiliates)
	codes := map[string]bool{}
	for i := range creditCount {
		j := 2 * r.IntN(len(pairs)/2)
		aff, m := pairs[j], pairs[j+1]
		code := fmt.Sprintf("LOAD%dX%d", aff, m)
		if codes[code] { // a merchant's codes are distinct
			code = fmt.Sprintf("%sN%d", code, i)
		}
		codes[code] = true
		d.Coupons = append(d.Coupons, afftrack.Coupon{ID: int64(benchCouponID + i), MerchantID: m, Code: code,
			Description: "load benchmark", AffiliateID: afftrack.Some(aff)})
		plan.coupons = append(plan.coupons, credit{Merchant: m, Field: "CouponCode", Value: code})
	}
	if _, err := sqlstore.NewImportService(db).Import(ctx, d); err != nil {
		return nil, nil, fmt.Errorf("create programs and coupons: %w", err)
	}
	if db.Dialect() == "postgres" {
		// As autovacuum would some time after a load (see analyzePostgres).
		if _, err := q.ExecContext(ctx, `ANALYZE memberships, banners, programs, program_domains, program_rules,
			coupons, clicks, conversions`); err != nil {
			return nil, nil, fmt.Errorf("analyze: %w", err)
		}
	}
	// The scheduled locking the served network runs every minute, run
	// to the end first: a generated network holds a year of Pending
	// transactions whose validation date has passed, and locking them
	// (a hundred thousand on the default network) would otherwise fall
	// into the first measured run. A network that has been served is
	// past that, and so is a reused database after its first run.
	clock := func() time.Time { return afftrack.WallClock(time.Now(), time.UTC) } // serve's default zone
	if _, err := sqlstore.NewLifecycleService(db, "AUD", clock).LockDue(ctx, clock()); err != nil {
		return nil, nil, fmt.Errorf("lock the transactions due: %w", err)
	}
	mark, err := markDB(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	return plan, mark, nil
}

// benchProgram is the program the benchmark gives a merchant that has
// none: a landing page of its own, a 30-day cookie, 10% commission and a
// ClickAppend, as a merchant would set it, so a credited redirect carries
// its click id.
func benchProgram(merchant int64) afftrack.Program {
	return afftrack.Program{
		MerchantID:     merchant,
		TargetURL:      fmt.Sprintf("https://www.merchant%d.example.com/", merchant),
		AllowedDomains: []string{fmt.Sprintf("merchant%d.example.com", merchant)},
		CookieDays:     30,
		ValidationDays: 30,
		ClickAppend:    "clickref=[ClickId]&affid=[AffiliateId]",
		Commission:     afftrack.CommissionRule{Percent: afftrack.Some(afftrack.Percent(10_0000))},
	}
}

// queryInts appends the integer columns of every row of the query to out,
// row after row.
func queryInts(ctx context.Context, db *sql.DB, out *[]int64, query string, args ...any) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]int64, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		*out = append(*out, vals...)
	}
	return rows.Err()
}

// dbMark is where the database stood before the tracking scenarios ran.
type dbMark struct {
	maxTransaction int64
}

// markDB notes the database's last transaction id.
func markDB(ctx context.Context, db *sqlstore.DB) (*dbMark, error) {
	m := &dbMark{}
	if err := db.SQL().QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM transactions`).Scan(&m.maxTransaction); err != nil {
		return nil, fmt.Errorf("read the last transaction id: %w", err)
	}
	return m, nil
}

// cleanUp deletes what the tracking scenarios added: the transactions
// after the mark with their events, notifications, conversions and
// items, and the clicks made
// since start, and the baseline's table should a failed run have left it.
func (m *dbMark) cleanUp(ctx context.Context, dsn string, start time.Time) error {
	db, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	// The clicks' times are wall clocks of the network's zone: UTC, as
	// the benchmark serves it (serve's default --timezone).
	since := start.Add(-time.Second).UnixMilli()
	for _, q := range []struct {
		sql string
		arg any
	}{
		{`DELETE FROM notifications WHERE transaction_id > $1`, m.maxTransaction},
		{`DELETE FROM transaction_events WHERE transaction_id > $1`, m.maxTransaction},
		{`DELETE FROM conversions WHERE transaction_id > $1`, m.maxTransaction},
		{`DELETE FROM transaction_items WHERE transaction_id > $1`, m.maxTransaction},
		{`DELETE FROM transactions WHERE id > $1`, m.maxTransaction},
		{`DELETE FROM clicks WHERE created >= $1`, since},
		{`DROP TABLE IF EXISTS ` + baselineTable, nil},
	} {
		args := []any{q.arg}
		if q.arg == nil {
			args = nil
		}
		if _, err := db.SQL().ExecContext(ctx, q.sql, args...); err != nil {
			return fmt.Errorf("delete what the tracking scenarios added: %w", err)
		}
	}
	return nil
}

// countRows returns count(*) of a table, with an optional WHERE clause.
func countRows(ctx context.Context, dsn, table, where string, args ...any) (int64, error) {
	db, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	q := `SELECT count(*) FROM ` + table
	if where != "" {
		q += ` WHERE ` + where
	}
	var n int64
	if err := db.SQL().QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count %s: %w", table, err)
	}
	return n, nil
}

// drive runs wrk against url: the warm-up with warmScript, then the
// measured run with script, recording a perf profile of pid (when not 0
// and --perf is set) under name. It returns both runs' results.
func (b *bench) drive(ctx context.Context, url, warmScript, script, name string, pid int) (warm, measured result, profile []string, err error) {
	wcfg := b.cfg.Load
	wcfg.Duration = b.cfg.Warmup
	if wcfg.Duration >= time.Second {
		if warm, err = b.wrk.run(ctx, wcfg, url, warmScript); err != nil {
			return warm, measured, nil, err
		}
	}
	var prof *perfRun
	if b.cfg.Perf != "" && pid != 0 {
		if prof, err = startPerf(ctx, b.cfg.Perf, name, pid, b.cfg.Load.Duration); err != nil {
			return warm, measured, nil, err
		}
	}
	measured, err = b.wrk.run(ctx, b.cfg.Load, url, script)
	if prof != nil {
		if perr := prof.finish(ctx); err == nil {
			err = perr
		}
		profile = prof.top
	}
	return warm, measured, profile, err
}

// writeScript writes a wrk script into the temporary directory.
func (b *bench) writeScript(name, text string) (string, error) {
	path := filepath.Join(b.dir, name+".lua")
	return path, os.WriteFile(path, []byte(text), 0o644)
}

// trackingFailures returns up to five of the server's request lines
// whose status is 4xx or 5xx, and up to three of its error lines, which
// say why.
func trackingFailures(srv *server) string {
	b, err := os.ReadFile(srv.logPath)
	if err != nil {
		return err.Error()
	}
	var requests, errs []string
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		switch {
		case strings.Contains(line, "msg=request") && (strings.Contains(line, "status=4") || strings.Contains(line, "status=5")):
			if len(requests) < 5 {
				requests = append(requests, line)
			}
		case strings.Contains(line, "level=ERROR") && len(errs) < 3:
			errs = append(errs, line)
		}
	}
	return strings.Join(append(requests, errs...), "\n")
}

// noRedirectClient returns a client that returns redirects instead of
// following them.
func noRedirectClient() *http.Client {
	return &http.Client{
		Timeout:       time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

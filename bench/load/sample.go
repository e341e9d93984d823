package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/afftrack/afftrack/internal/generate"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// samples are the requests a scenario spreads its load over, so that the
// benchmark measures what users do (random transactions of many
// merchants) rather than one hot row.
type samples struct {
	lookups []string // /V1/Merchant/Transactions/{id}?apiKey=... of random transactions
	days    []string // one-day lists of random days of mid-sized merchants
}

// sampleCount is how many distinct requests a random scenario draws from.
const sampleCount = 10_000

// sample draws the scenarios' requests from the generated database: every
// transaction id is read with its merchant, so each request names a
// transaction of the key's own merchant. The draws are seeded, so two runs
// ask for the same requests.
func sample(ctx context.Context, dsn string, s generate.Summary, n generate.Config) (*samples, error) {
	db, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var total int64
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM transactions`).Scan(&total); err != nil {
		return nil, fmt.Errorf("sample: %w", err)
	}
	step := max(1, total/sampleCount)
	// Only merchants that are Active (1): a suspended or closed one's key is
	// refused, and refusals would count against the client's address.
	rows, err := db.SQL().QueryContext(ctx, `SELECT t.id, t.merchant_id FROM transactions t
		JOIN merchants m ON m.id = t.merchant_id AND m.status = 1
		WHERE t.id % $1 = 0 ORDER BY t.id`, step)
	if err != nil {
		return nil, fmt.Errorf("sample: %w", err)
	}
	defer rows.Close()
	out := &samples{}
	for rows.Next() {
		var id, merchant int64
		if err := rows.Scan(&id, &merchant); err != nil {
			return nil, fmt.Errorf("sample: %w", err)
		}
		out.lookups = append(out.lookups, fmt.Sprintf("/V1/Merchant/Transactions/%d?apiKey=%s", id, generate.MerchantKey(merchant)))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sample: %w", err)
	}

	// Mid-sized merchants: within a factor of two of the summary's, whose
	// typical day holds about a hundred transactions.
	rows, err = db.SQL().QueryContext(ctx, `SELECT t.merchant_id FROM transactions t
		JOIN merchants m ON m.id = t.merchant_id AND m.status = 1
		GROUP BY t.merchant_id HAVING count(*) BETWEEN $1 AND $2 ORDER BY t.merchant_id`,
		s.Mid.Transactions/2, s.Mid.Transactions*2)
	if err != nil {
		return nil, fmt.Errorf("sample: %w", err)
	}
	defer rows.Close()
	var mids []int64
	for rows.Next() {
		var m int64
		if err := rows.Scan(&m); err != nil {
			return nil, fmt.Errorf("sample: %w", err)
		}
		mids = append(mids, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sample: %w", err)
	}
	if len(mids) == 0 {
		mids = []int64{s.Mid.ID}
	}
	r := rand.New(rand.NewPCG(n.Seed, 42))
	for range sampleCount {
		m := mids[r.IntN(len(mids))]
		day := n.Start.AddDate(0, 0, r.IntN(n.Days)).Format(time.DateOnly)
		out.days = append(out.days, fmt.Sprintf("/V1/Merchant/Transactions?apiKey=%s&fromDate=%s&toDate=%s",
			generate.MerchantKey(m), day, day))
	}
	return out, nil
}

// luaScript is a wrk script whose every request asks for one of paths,
// drawn at random (seeded, so runs repeat).
func luaScript(paths []string) string {
	var b strings.Builder
	b.WriteString("local paths = {\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "  %q,\n", p)
	}
	b.WriteString("}\nmath.randomseed(1)\nrequest = function()\n  return wrk.format(nil, paths[math.random(#paths)])\nend\n")
	return b.String()
}

// setMerchantLimits removes every merchant's own rate limits, so the
// server's defaults apply, or (unlimited) sets them to none, as the
// generator made them.
func setMerchantLimits(ctx context.Context, dsn string, unlimited bool) error {
	db, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	q := `UPDATE merchants SET rate_per_minute = NULL, rate_per_day = NULL, rate_concurrent = NULL`
	if unlimited {
		q = `UPDATE merchants SET rate_per_minute = 0, rate_per_day = 0, rate_concurrent = 0`
	}
	if _, err := db.SQL().ExecContext(ctx, q); err != nil {
		return fmt.Errorf("set the merchants' rate limits: %w", err)
	}
	return nil
}

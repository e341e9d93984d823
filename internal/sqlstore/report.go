package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.ReportService = (*ReportService)(nil)

// ReportService implements afftrack.ReportService. The database does the
// aggregating: each report is two GROUP BY queries, one over the
// account's transactions (by key and Status2) and one over its clicks (by
// key and bot), each reading one range of an (account, date) index. Their
// few grouped rows are merged here by key; no transaction or click row
// is ever read into Go.
type ReportService struct {
	db *DB
}

// NewReportService returns a ReportService on db.
func NewReportService(db *DB) *ReportService { return &ReportService{db: db} }

// The report queries. $1 is the account, $2 and $3 the range in
// milliseconds, [from, to). Amounts are summed by sumAmount, exactly on
// both engines; a sum beyond an amount's range is refused when the parts
// are put back together.
var (
	reportTrafficTypeTransactions = `SELECT traffic_type, status2, COUNT(*),
		` + sumAmount("sale_value") + `, ` + sumAmount("commission") + `
	FROM transactions
	WHERE affiliate_id = $1 AND date_created >= $2 AND date_created < $3
	GROUP BY traffic_type, status2`

	reportMerchantTransactions = `SELECT g.merchant_id, m.name, m.avatar_url, g.status2, g.n,
		g.sale_value_hi, g.sale_value_lo, g.commission_hi, g.commission_lo
	FROM (SELECT merchant_id, status2, COUNT(*) AS n,
			` + sumAmount("sale_value") + `, ` + sumAmount("commission") + `
		FROM transactions
		WHERE affiliate_id = $1 AND date_created >= $2 AND date_created < $3
		GROUP BY merchant_id, status2) g
	JOIN merchants m ON m.id = g.merchant_id`

	reportAffiliateTransactions = `SELECT g.affiliate_id, a.contact_name, a.business_name, g.status2, g.n,
		g.sale_value_hi, g.sale_value_lo, g.commission_hi, g.commission_lo, g.override_fee_hi, g.override_fee_lo
	FROM (SELECT affiliate_id, status2, COUNT(*) AS n,
			` + sumAmount("sale_value") + `, ` + sumAmount("commission") + `, ` + sumAmount("override_fee") + `
		FROM transactions
		WHERE merchant_id = $1 AND date_created >= $2 AND date_created < $3
		GROUP BY affiliate_id, status2) g
	JOIN affiliates a ON a.id = g.affiliate_id`
)

// The click queries count; they sum no amount.
const (
	reportTrafficTypeClicks = `SELECT traffic_type, bot, COUNT(*)
	FROM clicks
	WHERE affiliate_id = $1 AND created >= $2 AND created < $3
	GROUP BY traffic_type, bot`

	reportMerchantClicks = `SELECT g.merchant_id, m.name, m.avatar_url, g.bot, g.n
	FROM (SELECT merchant_id, bot, COUNT(*) AS n
		FROM clicks
		WHERE affiliate_id = $1 AND created >= $2 AND created < $3
		GROUP BY merchant_id, bot) g
	JOIN merchants m ON m.id = g.merchant_id`

	reportAffiliateClicks = `SELECT g.affiliate_id, a.contact_name, a.business_name, g.bot, g.n
	FROM (SELECT affiliate_id, bot, COUNT(*) AS n
		FROM clicks
		WHERE merchant_id = $1 AND created >= $2 AND created < $3
		GROUP BY affiliate_id, bot) g
	JOIN affiliates a ON a.id = g.affiliate_id`
)

// reportRange returns the range of from's day to the end of to's day in
// milliseconds, [start, end).
func reportRange(from, to time.Time) (int64, int64) {
	day := func(t time.Time) time.Time {
		y, m, d := t.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
	}
	return toMillis(day(from)), toMillis(day(to).AddDate(0, 0, 1))
}

// reportLines collects the lines of one report by key. A line's amounts
// are kept in 128 bits per derived Status until the end, so a Status
// whose groups (Pending and Locked, Approved and Paid) add up to an
// amount in range is exact even when one group alone is beyond it.
type reportLines[K cmp.Ordered, L any] struct {
	byKey   map[K]*reportLine[L]
	metrics func(*L) *afftrack.ReportMetrics
}

// reportLine is one line and the sums its transactions add to it.
type reportLine[L any] struct {
	line     L
	byStatus [3]statusSums // by afftrack.TransactionStatus - 1
}

// statusSums is one derived Status's count and sale, commission and
// override sums in a line.
type statusSums struct {
	n    int64
	sums [3]amountSum
}

// newReportLines returns an empty report whose lines hold their metrics
// where metrics says.
func newReportLines[K cmp.Ordered, L any](metrics func(*L) *afftrack.ReportMetrics) *reportLines[K, L] {
	return &reportLines[K, L]{byKey: map[K]*reportLine[L]{}, metrics: metrics}
}

// entry returns the line of key, made by make if it is new.
func (r *reportLines[K, L]) entry(key K, make func() L) *reportLine[L] {
	e, ok := r.byKey[key]
	if !ok {
		e = &reportLine[L]{line: make()}
		r.byKey[key] = e
	}
	return e
}

// line returns the metrics of key's line, made by make if it is new.
func (r *reportLines[K, L]) line(key K, make func() L) *afftrack.ReportMetrics {
	return r.metrics(&r.entry(key, make).line)
}

// addTransactions adds one grouped row of n transactions of stored state
// s, and their sale, commission and override part-sums, to key's line.
func (r *reportLines[K, L]) addTransactions(key K, make func() L, s afftrack.TransactionStatus2, n int64, parts ...amountParts) {
	e := r.entry(key, make)
	st := s.Status()
	if st == 0 {
		return
	}
	ss := &e.byStatus[st-1]
	ss.n += n
	for i, p := range parts {
		ss.sums[i].addParts(p.hi, p.lo)
	}
}

// sorted returns the lines ordered by key, their amounts checked against
// an amount's range: afftrack.ErrReportOutOfRange if one is beyond it.
func (r *reportLines[K, L]) sorted() ([]L, error) {
	keys := make([]K, 0, len(r.byKey))
	for k := range r.byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]L, 0, len(keys))
	for _, k := range keys {
		e := r.byKey[k]
		for i, ss := range e.byStatus {
			if ss.n == 0 {
				continue
			}
			var m [3]afftrack.Money
			for j, sum := range ss.sums {
				v, ok := sum.money()
				if !ok {
					return nil, afftrack.ErrReportOutOfRange
				}
				m[j] = v
			}
			if err := r.metrics(&e.line).AddTransactions(statusOf[i], ss.n, m[0], m[1], m[2]); err != nil {
				return nil, err
			}
		}
		out = append(out, e.line)
	}
	return out, nil
}

// statusOf is a stored state of each derived Status, by Status - 1, for
// AddTransactions.
var statusOf = [3]afftrack.TransactionStatus2{afftrack.Status2Pending, afftrack.Status2Approved, afftrack.Status2Void}

// each runs query and scan on every grouped row. A sum beyond an
// amount's range is afftrack.ErrReportOutOfRange, whether found when its
// parts are put together, when groups are merged, or by the database
// (a part-sum of more rows than any network has).
func (s *ReportService) each(ctx context.Context, what, query string, args []any, scan func(*sql.Rows) error) error {
	err := func() error {
		rows, err := s.db.query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}()
	switch {
	case err == nil, errors.Is(err, afftrack.ErrReportOutOfRange):
		return err
	case s.db.dialect.isOutOfRange(err):
		return afftrack.ErrReportOutOfRange
	}
	return fmt.Errorf("%s report: %w", what, err)
}

// addClicks adds n clicks, bots if bot.
func addClicks(m *afftrack.ReportMetrics, bot bool, n int64) {
	m.ClicksTotal += n
	if bot {
		m.ClicksBot += n
	}
}

// TrafficTypeReport implements afftrack.ReportService.
func (s *ReportService) TrafficTypeReport(ctx context.Context, affiliateID int64, from, to time.Time) ([]afftrack.TrafficTypeReport, error) {
	start, end := reportRange(from, to)
	args := []any{affiliateID, start, end}
	lines := newReportLines[afftrack.TrafficType, afftrack.TrafficTypeReport](
		func(l *afftrack.TrafficTypeReport) *afftrack.ReportMetrics { return &l.ReportMetrics })
	var tt, status2 uint8
	var n int64
	var sale, commission amountParts
	var bot bool
	err := s.each(ctx, "traffic type", reportTrafficTypeTransactions, args, func(rows *sql.Rows) error {
		if err := rows.Scan(&tt, &status2, &n, &sale.hi, &sale.lo, &commission.hi, &commission.lo); err != nil {
			return err
		}
		key := afftrack.TrafficType(tt)
		lines.addTransactions(key, func() afftrack.TrafficTypeReport { return afftrack.TrafficTypeReport{TrafficType: key} },
			afftrack.TransactionStatus2(status2), n, sale, commission)
		return nil
	})
	if err == nil {
		err = s.each(ctx, "traffic type", reportTrafficTypeClicks, args, func(rows *sql.Rows) error {
			if err := rows.Scan(&tt, &bot, &n); err != nil {
				return err
			}
			key := afftrack.TrafficType(tt)
			addClicks(lines.line(key, func() afftrack.TrafficTypeReport { return afftrack.TrafficTypeReport{TrafficType: key} }), bot, n)
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	return lines.sorted()
}

// MerchantReport implements afftrack.ReportService.
func (s *ReportService) MerchantReport(ctx context.Context, affiliateID int64, from, to time.Time) ([]afftrack.MerchantReport, error) {
	start, end := reportRange(from, to)
	args := []any{affiliateID, start, end}
	lines := newReportLines[int64, afftrack.MerchantReport](
		func(l *afftrack.MerchantReport) *afftrack.ReportMetrics { return &l.ReportMetrics })
	var id, n int64
	var sale, commission amountParts
	var name, avatar string
	var status2 uint8
	var bot bool
	newLine := func() afftrack.MerchantReport {
		return afftrack.MerchantReport{MerchantID: id, MerchantName: name, MerchantAvatarURL: avatar}
	}
	err := s.each(ctx, "merchant", reportMerchantTransactions, args, func(rows *sql.Rows) error {
		if err := rows.Scan(&id, &name, &avatar, &status2, &n, &sale.hi, &sale.lo, &commission.hi, &commission.lo); err != nil {
			return err
		}
		lines.addTransactions(id, newLine, afftrack.TransactionStatus2(status2), n, sale, commission)
		return nil
	})
	if err == nil {
		err = s.each(ctx, "merchant", reportMerchantClicks, args, func(rows *sql.Rows) error {
			if err := rows.Scan(&id, &name, &avatar, &bot, &n); err != nil {
				return err
			}
			addClicks(lines.line(id, newLine), bot, n)
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	return lines.sorted()
}

// AffiliateReport implements afftrack.ReportService.
func (s *ReportService) AffiliateReport(ctx context.Context, merchantID int64, from, to time.Time) ([]afftrack.AffiliateReport, error) {
	start, end := reportRange(from, to)
	args := []any{merchantID, start, end}
	lines := newReportLines[int64, afftrack.AffiliateReport](
		func(l *afftrack.AffiliateReport) *afftrack.ReportMetrics { return &l.ReportMetrics })
	var id, n int64
	var sale, commission, override amountParts
	var contact, business string
	var status2 uint8
	var bot bool
	newLine := func() afftrack.AffiliateReport {
		return afftrack.AffiliateReport{AffiliateID: id, AffiliateContactName: contact, AffiliateBusinessName: business}
	}
	err := s.each(ctx, "affiliate", reportAffiliateTransactions, args, func(rows *sql.Rows) error {
		if err := rows.Scan(&id, &contact, &business, &status2, &n, &sale.hi, &sale.lo, &commission.hi, &commission.lo,
			&override.hi, &override.lo); err != nil {
			return err
		}
		lines.addTransactions(id, newLine, afftrack.TransactionStatus2(status2), n, sale, commission, override)
		return nil
	})
	if err == nil {
		err = s.each(ctx, "affiliate", reportAffiliateClicks, args, func(rows *sql.Rows) error {
			if err := rows.Scan(&id, &contact, &business, &bot, &n); err != nil {
				return err
			}
			addClicks(lines.line(id, newLine), bot, n)
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	return lines.sorted()
}

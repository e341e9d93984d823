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

// reportLines collects the lines of one report by key.
type reportLines[K cmp.Ordered, L any] struct {
	byKey   map[K]*L
	metrics func(*L) *afftrack.ReportMetrics
}

// line returns the line of key, made by make if it is new.
func (r *reportLines[K, L]) line(key K, make func() L) *afftrack.ReportMetrics {
	l, ok := r.byKey[key]
	if !ok {
		v := make()
		l = &v
		r.byKey[key] = l
	}
	return r.metrics(l)
}

// sorted returns the lines ordered by key.
func (r *reportLines[K, L]) sorted() []L {
	keys := make([]K, 0, len(r.byKey))
	for k := range r.byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]L, 0, len(keys))
	for _, k := range keys {
		out = append(out, *r.byKey[k])
	}
	return out
}

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

// groupSums puts one grouped row's sale, commission and override sums
// back together. Each is exact; merging the groups of one derived Status
// (Pending and Locked, Approved and Paid) adds two exact sums, which a
// checked add refuses only when their total does not fit.
func groupSums(sale, commission, override amountParts) ([3]afftrack.Money, error) {
	var out [3]afftrack.Money
	for i, p := range [3]amountParts{sale, commission, override} {
		v, ok := partsMoney(p.hi, p.lo)
		if !ok {
			return out, afftrack.ErrReportOutOfRange
		}
		out[i] = v
	}
	return out, nil
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
	lines := reportLines[afftrack.TrafficType, afftrack.TrafficTypeReport]{byKey: map[afftrack.TrafficType]*afftrack.TrafficTypeReport{},
		metrics: func(l *afftrack.TrafficTypeReport) *afftrack.ReportMetrics { return &l.ReportMetrics }}
	var tt, status2 uint8
	var n int64
	var sale, commission amountParts
	var bot bool
	err := s.each(ctx, "traffic type", reportTrafficTypeTransactions, args, func(rows *sql.Rows) error {
		if err := rows.Scan(&tt, &status2, &n, &sale.hi, &sale.lo, &commission.hi, &commission.lo); err != nil {
			return err
		}
		sums, err := groupSums(sale, commission, amountParts{})
		if err != nil {
			return err
		}
		key := afftrack.TrafficType(tt)
		return lines.line(key, func() afftrack.TrafficTypeReport { return afftrack.TrafficTypeReport{TrafficType: key} }).
			AddTransactions(afftrack.TransactionStatus2(status2), n, sums[0], sums[1], 0)
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
	return lines.sorted(), nil
}

// MerchantReport implements afftrack.ReportService.
func (s *ReportService) MerchantReport(ctx context.Context, affiliateID int64, from, to time.Time) ([]afftrack.MerchantReport, error) {
	start, end := reportRange(from, to)
	args := []any{affiliateID, start, end}
	lines := reportLines[int64, afftrack.MerchantReport]{byKey: map[int64]*afftrack.MerchantReport{},
		metrics: func(l *afftrack.MerchantReport) *afftrack.ReportMetrics { return &l.ReportMetrics }}
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
		sums, err := groupSums(sale, commission, amountParts{})
		if err != nil {
			return err
		}
		return lines.line(id, newLine).AddTransactions(afftrack.TransactionStatus2(status2), n, sums[0], sums[1], 0)
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
	return lines.sorted(), nil
}

// AffiliateReport implements afftrack.ReportService.
func (s *ReportService) AffiliateReport(ctx context.Context, merchantID int64, from, to time.Time) ([]afftrack.AffiliateReport, error) {
	start, end := reportRange(from, to)
	args := []any{merchantID, start, end}
	lines := reportLines[int64, afftrack.AffiliateReport]{byKey: map[int64]*afftrack.AffiliateReport{},
		metrics: func(l *afftrack.AffiliateReport) *afftrack.ReportMetrics { return &l.ReportMetrics }}
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
		sums, err := groupSums(sale, commission, override)
		if err != nil {
			return err
		}
		return lines.line(id, newLine).AddTransactions(afftrack.TransactionStatus2(status2), n, sums[0], sums[1], sums[2])
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
	return lines.sorted(), nil
}

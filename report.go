package afftrack

import (
	"context"
	"time"
)

// ReportMetrics is the metric block of a report line (v1-surface.md
// section 5): activity of one key in a date range. Sums are exact; they
// are rounded to two digits (RoundCents) only when written.
type ReportMetrics struct {
	// ImpressionsTotal and ImpressionsBot are always 0: afftrack records
	// no impressions.
	ImpressionsTotal, ImpressionsBot int64
	// ClicksTotal counts the clicks recorded in the range, bots included;
	// ClicksBot the bots' among them.
	ClicksTotal, ClicksBot int64
	// Transactions created in the range, by derived Status.
	TransactionsPending, TransactionsApproved, TransactionsVoid int64
	SaleValuePending, SaleValueApproved, SaleValueVoid          Money
	CommissionPending, CommissionApproved, CommissionVoid       Money
	// OverridePending ... OverrideVoid sum OverrideFee; only the
	// merchant's AffiliateReport shows them.
	OverridePending, OverrideApproved, OverrideVoid Money
}

// ErrReportOutOfRange is a report whose sums pass the largest amount
// the interface carries (922,337,203,685,477.5807): sums are exact, so
// one that cannot be written is refused rather than wrapped or rounded.
var ErrReportOutOfRange = &Error{Code: EUNPROCESSABLE,
	Message: "The report's sums exceed the largest amount the interface can write, 922337203685477.5807; a shorter range may keep them within it."}

// AddTransactions adds n transactions of stored state s and their sums,
// or returns ErrReportOutOfRange, leaving m as it was, when a sum would
// pass the int64 range.
func (m *ReportMetrics) AddTransactions(s TransactionStatus2, n int64, sale, commission, override Money) error {
	var count *int64
	var sums [3]*Money
	switch s.Status() {
	case StatusPending:
		count, sums = &m.TransactionsPending, [3]*Money{&m.SaleValuePending, &m.CommissionPending, &m.OverridePending}
	case StatusApproved:
		count, sums = &m.TransactionsApproved, [3]*Money{&m.SaleValueApproved, &m.CommissionApproved, &m.OverrideApproved}
	case StatusVoid:
		count, sums = &m.TransactionsVoid, [3]*Money{&m.SaleValueVoid, &m.CommissionVoid, &m.OverrideVoid}
	default:
		return nil
	}
	add := [3]Money{sale, commission, override}
	var out [3]Money
	for i, sum := range sums {
		v, ok := addInt64(int64(*sum), int64(add[i]))
		if !ok {
			return ErrReportOutOfRange
		}
		out[i] = Money(v)
	}
	*count += n
	for i, sum := range sums {
		*sum = out[i]
	}
	return nil
}

// TrafficTypeReport is one line of the affiliate's report by TrafficType.
type TrafficTypeReport struct {
	TrafficType TrafficType
	ReportMetrics
}

// MerchantReport is one line of the affiliate's report by merchant; the
// name and avatar are the merchant account's now.
type MerchantReport struct {
	MerchantID        int64
	MerchantName      string
	MerchantAvatarURL string
	ReportMetrics
}

// AffiliateReport is one line of the merchant's report by affiliate; the
// names are the affiliate account's now (BusinessName "" is written null).
type AffiliateReport struct {
	AffiliateID           int64
	AffiliateContactName  string
	AffiliateBusinessName string
	ReportMetrics
}

// ReportService aggregates an account's clicks and transactions over a
// date range: from 00:00 of from's day to the end of to's day (the
// caller orders them), clicks by their time, transactions by
// DateCreated. There is a line for each key with a click or a
// transaction in the range, ordered by the key.
type ReportService interface {
	// TrafficTypeReport is the affiliate's activity by TrafficType: a
	// click under the one it stored when recorded, a transaction under
	// its own.
	TrafficTypeReport(ctx context.Context, affiliateID int64, from, to time.Time) ([]TrafficTypeReport, error)
	// MerchantReport is the affiliate's activity by merchant.
	MerchantReport(ctx context.Context, affiliateID int64, from, to time.Time) ([]MerchantReport, error)
	// AffiliateReport is the merchant's activity by affiliate.
	AffiliateReport(ctx context.Context, merchantID int64, from, to time.Time) ([]AffiliateReport, error)
}

// RoundCents returns m in hundredths, rounded half away from zero: the
// two-digit form of a report's sums.
func RoundCents(m Money) int64 {
	q, r := int64(m)/100, int64(m)%100
	switch {
	case r >= 50:
		q++
	case r <= -50:
		q--
	}
	return q
}

package afftrack

import (
	"context"
	"time"
)

// Of returns p percent of m, rounded half away from zero at Money's scale,
// and false when it does not fit.
func (p Percent) Of(m Money) (Money, bool) {
	v, ok := mulDivRound(int64(m), int64(p), percentDivisor)
	return Money(v), ok
}

// PayoutRun is one payout run's terms (tracking.md section 7).
type PayoutRun struct {
	// UpTo is the last day (midnight) whose Approved transactions are
	// paid: those created before the next midnight.
	UpTo time.Time
	// Minimum is the least an affiliate's unpaid commission must reach to
	// be paid now; what is less waits for a later run.
	Minimum Money
	// InvoicePrefix starts each invoice's Number: PREFIX-AFFILIATE-0001.
	InvoicePrefix string
	// GSTPercent is the GST added for a GST-registered affiliate.
	GSTPercent Percent
	Now        time.Time // the invoices' DateCreated and DatePaid
	Actor      Actor
}

// Payout is one affiliate's invoice of a run.
type Payout struct {
	Invoice      Invoice
	ContactName  string
	BusinessName string
	Transactions int
}

// PayoutService pays affiliates.
type PayoutService interface {
	// RunPayouts makes one invoice per affiliate whose Approved commission
	// up to run.UpTo reaches run.Minimum (and is above zero), and marks
	// those transactions Paid with its InvoiceId, all in one database
	// transaction. Runs exclude each other, so a run repeated, or two at
	// once, pays nothing twice.
	RunPayouts(ctx context.Context, run PayoutRun) ([]Payout, error)
}

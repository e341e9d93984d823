package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.PayoutService = (*PayoutService)(nil)

// PayoutService implements afftrack.PayoutService.
type PayoutService struct {
	db *DB
}

// NewPayoutService returns a PayoutService on db.
func NewPayoutService(db *DB) *PayoutService { return &PayoutService{db: db} }

// RunPayouts pays every affiliate due, in one database transaction that
// excludes other runs (dialect.lockPayouts): a second run, at once or
// later, finds the transactions Paid and pays nothing twice. Each
// affiliate's transactions are paid by one guarded UPDATE, and its
// invoice is made of what that UPDATE paid.
func (s *PayoutService) RunPayouts(ctx context.Context, run afftrack.PayoutRun) ([]afftrack.Payout, error) {
	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return nil, fmt.Errorf("payouts: %w", err)
	}
	defer release()
	defer rollback(tx)
	if err := s.db.dialect.lockPayouts(ctx, tx); err != nil {
		return nil, fmt.Errorf("payouts: %w", err)
	}
	end := toMillis(run.UpTo.AddDate(0, 0, 1))
	due, err := s.due(ctx, tx, run, end)
	if err != nil {
		return nil, fmt.Errorf("payouts: %w", err)
	}
	var nextID int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM invoices`).Scan(&nextID); err != nil {
		return nil, fmt.Errorf("payouts: %w", err)
	}
	var payouts []afftrack.Payout
	for _, affiliateID := range due {
		if err := newID("invoice", nextID); err != nil {
			return nil, err
		}
		p, err := s.pay(ctx, tx, run, affiliateID, nextID, end)
		if err != nil {
			return nil, fmt.Errorf("payouts: affiliate %d: %w", affiliateID, err)
		}
		if p != nil {
			payouts = append(payouts, *p)
			nextID++
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("payouts: commit: %w", err)
	}
	return payouts, nil
}

// due returns the affiliates whose Approved commission created before
// end adds up to the run's minimum and more than 0. The sums are exact on
// both engines (sumAmount); one beyond an amount's range stops the run
// naming its affiliate, rather than paying a wrong amount.
func (s *PayoutService) due(ctx context.Context, q queryer, run afftrack.PayoutRun, end int64) ([]int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT affiliate_id, `+sumAmount("commission")+`
	FROM transactions
	WHERE status2 = $1 AND date_created < $2
	GROUP BY affiliate_id
	ORDER BY affiliate_id`, int64(afftrack.Status2Approved), end)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var due []int64
	for rows.Next() {
		var id int64
		var sum amountParts
		if err := rows.Scan(&id, &sum.hi, &sum.lo); err != nil {
			return nil, err
		}
		var total amountSum
		total.addParts(sum.hi, sum.lo)
		m, ok := total.money()
		if !ok && total.negative() {
			continue // below the range: it can reach no minimum
		}
		if !ok {
			return nil, fmt.Errorf("affiliate %d: the Approved commission up to %s adds up beyond the largest amount, %s",
				id, run.UpTo.Format(time.DateOnly), afftrack.Money(math.MaxInt64))
		}
		if m >= run.Minimum && m > 0 {
			due = append(due, id)
		}
	}
	return due, rows.Err()
}

// pay pays one affiliate's due transactions by invoice id, or returns nil
// when none was left to pay.
func (s *PayoutService) pay(ctx context.Context, q queryer, run afftrack.PayoutRun, affiliateID, id, end int64) (*afftrack.Payout, error) {
	p := &afftrack.Payout{Invoice: afftrack.Invoice{ID: id, AffiliateID: affiliateID, DateCreated: run.Now, DatePaid: run.Now}}
	var registered bool
	if err := q.QueryRowContext(ctx, `SELECT contact_name, business_name, gst_registered FROM affiliates WHERE id = $1`,
		affiliateID).Scan(&p.ContactName, &p.BusinessName, &registered); err != nil {
		return nil, err
	}
	number, err := s.nextInvoiceNumber(ctx, q, run, affiliateID)
	if err != nil {
		return nil, err
	}
	// The sums due were read before: on PostgreSQL a void or an amendment
	// committed since may have left less to pay than the run's minimum.
	// The affiliate's Approved rows are locked and summed again first, so
	// what the UPDATE pays is at least that sum. (A savepoint to undo a
	// short payment would cost a subtransaction per affiliate, which slows
	// every snapshot of the server once a run passes 64 of them.)
	if due, err := s.stillDue(ctx, q, run, affiliateID, end); err != nil || !due {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, `UPDATE transactions SET status2 = $1, invoice_id = $2, date_modified = $3
	WHERE affiliate_id = $4 AND status2 = $5 AND date_created < $6
	RETURNING id, sale_value, commission`, int64(afftrack.Status2Paid), id, toMillis(run.Now), affiliateID,
		int64(afftrack.Status2Approved), end)
	if err != nil {
		return nil, err
	}
	var events []afftrack.TransactionEvent
	var ids []int64
	var subTotal amountSum
	for rows.Next() {
		var tid, sale, commission int64
		if err := rows.Scan(&tid, &sale, &commission); err != nil {
			rows.Close()
			return nil, err
		}
		subTotal.add(commission)
		ids = append(ids, tid)
		events = append(events, afftrack.TransactionEvent{TransactionID: tid, At: run.Now, Actor: run.Actor,
			From: afftrack.Status2Approved, To: afftrack.Status2Paid, FromSaleValue: afftrack.Money(sale),
			ToSaleValue: afftrack.Money(sale), FromCommission: afftrack.Money(commission),
			ToCommission: afftrack.Money(commission), Reason: "paid by invoice " + number})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var ok bool
	if p.Invoice.SubTotal, ok = subTotal.money(); !ok {
		return nil, errors.New("the Approved commission adds up beyond the largest amount")
	}
	p.Transactions = len(ids)
	p.Invoice.Number = number
	p.Invoice.Description = "Commissions up to " + run.UpTo.Format("02/01/2006")
	p.Invoice.Total = p.Invoice.SubTotal
	var gst any
	if registered {
		g, ok := run.GSTPercent.Of(p.Invoice.SubTotal)
		if !ok {
			return nil, fmt.Errorf("GST of %s is out of range", p.Invoice.SubTotal)
		}
		p.Invoice.GST = afftrack.Some(g)
		if p.Invoice.Total, ok = p.Invoice.Total.Add(g); !ok {
			return nil, fmt.Errorf("the commission %s and its GST %s add up beyond the largest amount", p.Invoice.SubTotal, g)
		}
		gst = int64(g)
	}
	inv := &p.Invoice
	if _, err := q.ExecContext(ctx, upsertInvoice, inv.ID, inv.AffiliateID, toMillis(inv.DateCreated),
		toMillis(inv.DatePaid), inv.Number, inv.Description, int64(inv.SubTotal), gst, int64(inv.Total)); err != nil {
		return nil, err
	}
	if err := insertEvents(ctx, q, s.db.dialect, events); err != nil {
		return nil, err
	}
	return p, enqueueNotifications(ctx, q, s.db.dialect, ids, run.Now)
}

// stillDue locks the affiliate's Approved transactions created before
// end and reports whether their commission still reaches the run's
// minimum and more than 0.
func (s *PayoutService) stillDue(ctx context.Context, q queryer, run afftrack.PayoutRun, affiliateID, end int64) (bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT t.commission FROM transactions t
	WHERE t.affiliate_id = $1 AND t.status2 = $2 AND t.date_created < $3`+s.db.dialect.forUpdate(),
		affiliateID, int64(afftrack.Status2Approved), end)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var sum amountSum
	for rows.Next() {
		var commission int64
		if err := rows.Scan(&commission); err != nil {
			return false, err
		}
		sum.add(commission)
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	m, ok := sum.money()
	return ok && m >= run.Minimum && m > 0, nil
}

// nextInvoiceNumber numbers the affiliate's next invoice: its count of
// invoices plus one, or the next after that no invoice of the affiliate
// has yet, since an import may have brought numbers of the sequence out
// of order. Each taken number is passed once, so the search ends.
func (s *PayoutService) nextInvoiceNumber(ctx context.Context, q queryer, run afftrack.PayoutRun, affiliateID int64) (string, error) {
	var count int64
	if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM invoices WHERE affiliate_id = $1`, affiliateID).Scan(&count); err != nil {
		return "", err
	}
	for n := count + 1; ; n++ {
		number := invoiceNumber(run, affiliateID, n)
		var taken int64
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM invoices WHERE affiliate_id = $1 AND number = $2`,
			affiliateID, number).Scan(&taken); err != nil {
			return "", err
		}
		if taken == 0 {
			return number, nil
		}
	}
}

// invoiceNumber is PREFIX-AFFILIATE-NNNN, NNNN the affiliate's n-th invoice.
func invoiceNumber(run afftrack.PayoutRun, affiliateID, n int64) string {
	return fmt.Sprintf("%s-%d-%04d", run.InvoicePrefix, affiliateID, n)
}

package client

import (
	"context"
	"time"
)

// Invoice is a payout to the affiliate: the commissions of the
// transactions it paid, with GST for a GST-registered affiliate.
type Invoice struct {
	ID          int64     `json:"Id"`
	DateCreated time.Time `json:"DateCreated"`
	DatePaid    time.Time `json:"DatePaid"`
	Number      string    `json:"Number"`
	Description string    `json:"Description"`
	SubTotal    Decimal   `json:"SubTotal"`
	GST         *Decimal  `json:"GST"` // nil while the affiliate is not registered for GST
	Total       Decimal   `json:"Total"`
}

// InvoicesParams choose an affiliate's invoices by the day they were
// created: From and To are required; Number, when not empty, keeps the
// invoice with that number (ignoring case).
type InvoicesParams struct {
	From, To time.Time
	Number   string
}

// Invoices lists the affiliate's invoices created in the range, oldest
// first.
func (a AffiliateAPI) Invoices(ctx context.Context, p InvoicesParams) ([]Invoice, error) {
	var q query
	q.date("fromDate", p.From)
	q.date("toDate", p.To)
	q.str("number", p.Number)
	return list[Invoice](ctx, a.c, "/V1/Affiliate/Invoices", q)
}

// Invoice returns one of the affiliate's invoices; another affiliate's is
// a 404.
func (a AffiliateAPI) Invoice(ctx context.Context, id int64) (*Invoice, error) {
	return one[Invoice](ctx, a.c, idPath("/V1/Affiliate/Invoices", id), nil)
}

package afftrack

import (
	"context"
	"time"
)

// Invoice is a statement of commission paid to an affiliate.
type Invoice struct {
	ID          int64
	AffiliateID int64
	DateCreated time.Time
	DatePaid    time.Time
	Number      string
	Description string
	SubTotal    Money
	GST         Null[Money] // null where the affiliate is not registered for GST
	Total       Money
}

// InvoiceService reads invoices.
type InvoiceService interface {
	// FindInvoiceByID returns the affiliate's invoice with the given id, or
	// ENOTFOUND if it does not exist or is another affiliate's. GST is null
	// when the affiliate is not registered for GST.
	FindInvoiceByID(ctx context.Context, affiliateID, id int64) (*Invoice, error)

	// FindInvoices returns the affiliate's invoices created on the days
	// from to to (whole days), oldest first.
	FindInvoices(ctx context.Context, affiliateID int64, from, to time.Time) ([]*Invoice, error)
}

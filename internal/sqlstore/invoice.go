package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.InvoiceService = (*InvoiceService)(nil)

// InvoiceService implements afftrack.InvoiceService.
type InvoiceService struct {
	db *DB
}

// NewInvoiceService returns an InvoiceService on db.
func NewInvoiceService(db *DB) *InvoiceService { return &InvoiceService{db: db} }

// selectInvoice reads an affiliate's invoice and the affiliate's GST
// registration.
const selectInvoice = `SELECT i.date_created, i.date_paid, i.number, i.description,
		i.sub_total, i.gst, i.total, a.gst_registered
	FROM invoices i
	JOIN affiliates a ON a.id = i.affiliate_id
	WHERE i.id = $1 AND i.affiliate_id = $2`

// FindInvoiceByID returns the affiliate's invoice with the given id;
// another affiliate's is ENOTFOUND like a missing one. GST is null when the
// affiliate is not registered for GST now, whatever the invoice stored, so
// a change of registration shows at once.
func (s *InvoiceService) FindInvoiceByID(ctx context.Context, affiliateID, id int64) (*afftrack.Invoice, error) {
	inv := &afftrack.Invoice{ID: id, AffiliateID: affiliateID}
	var created, paid, subTotal, total int64
	var gst sql.Null[int64]
	var registered bool
	err := s.db.queryRow(ctx, selectInvoice, id, affiliateID).Scan(&created, &paid, &inv.Number,
		&inv.Description, &subTotal, &gst, &total, &registered)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound()
	} else if err != nil {
		return nil, fmt.Errorf("find invoice %d: %w", id, err)
	}
	inv.DateCreated, inv.DatePaid = fromMillis(created), fromMillis(paid)
	inv.SubTotal, inv.Total = afftrack.Money(subTotal), afftrack.Money(total)
	if registered && gst.Valid {
		inv.GST = afftrack.Some(afftrack.Money(gst.V))
	}
	return inv, nil
}

// FindInvoices returns the affiliate's invoices created from from to the
// end of to's day, oldest first. GST shows as FindInvoiceByID shows it.
func (s *InvoiceService) FindInvoices(ctx context.Context, affiliateID int64, from, to time.Time) ([]*afftrack.Invoice, error) {
	rows, err := s.db.query(ctx, `SELECT i.id, i.date_created, i.date_paid, i.number, i.description,
		i.sub_total, i.gst, i.total, a.gst_registered
	FROM invoices i
	JOIN affiliates a ON a.id = i.affiliate_id
	WHERE i.affiliate_id = $1 AND i.date_created >= $2 AND i.date_created < $3
	ORDER BY i.date_created, i.id`, affiliateID, toMillis(from), toMillis(to.AddDate(0, 0, 1)))
	if err != nil {
		return nil, fmt.Errorf("find invoices: %w", err)
	}
	defer rows.Close()
	invoices := []*afftrack.Invoice{}
	for rows.Next() {
		inv := &afftrack.Invoice{AffiliateID: affiliateID}
		var created, paid, subTotal, total int64
		var gst sql.Null[int64]
		var registered bool
		if err := rows.Scan(&inv.ID, &created, &paid, &inv.Number, &inv.Description, &subTotal, &gst, &total,
			&registered); err != nil {
			return nil, fmt.Errorf("find invoices: %w", err)
		}
		inv.DateCreated, inv.DatePaid = fromMillis(created), fromMillis(paid)
		inv.SubTotal, inv.Total = afftrack.Money(subTotal), afftrack.Money(total)
		if registered && gst.Valid {
			inv.GST = afftrack.Some(afftrack.Money(gst.V))
		}
		invoices = append(invoices, inv)
	}
	return invoices, rows.Err()
}

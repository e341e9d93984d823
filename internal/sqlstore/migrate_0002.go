package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/afftrack/afftrack"
)

// The Go step of migration 0002 (migrations/0002_transaction_details.*.sql):
// it reads 0001's transactions and items, now in transactions_0001 and
// transaction_items, writes each transaction as a row of the new table,
// and drops the old ones. It reads by pages of ids, because a transaction
// cannot read a query's rows on PostgreSQL while it writes.

// v1PageSize is how many transactions the step reads and writes at once.
const v1PageSize = 500

// selectV1Transactions reads 0001's transactions after an id with their
// items, one row per item (one row with null item columns for a
// transaction without items), in order of id and position.
const selectV1Transactions = `SELECT t.id, t.merchant_id, t.date_created, t.date_modified, t.consumption_date,
	t.validation_date, t.affiliate_id, '', '', t.traffic_type, t.traffic_source,
	t.creative_type, t.creative_id, t.creative_name, t.customer_country_code, t.customer_country_name,
	t.customer_ip_address, t.customer_type, t.order_id, t.additional_notes, t.tracking_method, t.sale_value,
	t.commission, t.override_fee, t.reported_currency_code, t.reported_currency_name, t.reported_sale_value,
	t.traffic_source_approved, t.status2, t.invoice_id, t.void_reason, t.amended_reason, t.coupon_code,
	t.placement_id, t.placement_name,
	i.position, i.sku, i.quantity, i.reported_sale_value, i.sale_value, i.commission, i.name, i.brand,
	i.category, i.cart_item_reference, i.cart_item_reference2, i.cart_item_reference3, i.cart_item_reference4
FROM (SELECT * FROM transactions_0001 WHERE id > $1 ORDER BY id LIMIT $2) t
LEFT JOIN transaction_items i ON i.transaction_id = t.id
ORDER BY t.id, i.position`

// migrateTransactionDetails is the Go step of migration 0002.
func migrateTransactionDetails(ctx context.Context, tx *sql.Tx, d dialect) error {
	im := &importer{ctx: ctx, tx: tx, dialect: d, stmts: map[string]*sql.Stmt{}}
	defer im.close()
	r := newV1Row()
	after := int64(-1 << 63)
	for {
		page, err := readV1Page(ctx, tx, r, after)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		b := newTransactionBatch(im)
		for i := range page {
			if err := b.add(&page[i], i); err != nil {
				return err
			}
		}
		if err := b.flush(); err != nil {
			return err
		}
		after = page[len(page)-1].ID
	}
	for _, q := range []string{`DROP TABLE transaction_items`, `DROP TABLE transactions_0001`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// readV1Page reads the next page of 0001's transactions after an id.
func readV1Page(ctx context.Context, tx *sql.Tx, r *v1Row, after int64) ([]afftrack.Transaction, error) {
	rows, err := tx.QueryContext(ctx, selectV1Transactions, after, v1PageSize)
	if err != nil {
		return nil, fmt.Errorf("read transactions: %w", err)
	}
	defer rows.Close()
	var page []afftrack.Transaction
	for rows.Next() {
		if err := r.scan(rows); err != nil {
			return nil, fmt.Errorf("read transactions: %w", err)
		}
		if len(page) == 0 || r.id() != page[len(page)-1].ID {
			page = append(page, afftrack.Transaction{})
			if err := r.fill(&page[len(page)-1]); err != nil {
				return nil, fmt.Errorf("read transaction %d: %w", r.id(), err)
			}
		}
		if err := r.addItem(&page[len(page)-1]); err != nil {
			return nil, fmt.Errorf("read transaction %d: %w", r.id(), err)
		}
	}
	return page, rows.Err()
}

// v1Row is the scan target of one row of selectV1Transactions. One is
// reused for every row. Every column is scanned into an
// interface value as the driver returns it and converted here: the
// conversions database/sql makes for typed destinations (reflection for
// integers, a Scanner call for each nullable column) cost more than the
// driver's own work for a list's thousands of values.
type v1Row struct {
	columns
	dest []any
}

// Positions of the columns of selectTransactions.
const (
	colID = iota
	colMerchantID
	colDateCreated
	colDateModified
	colConsumptionDate
	colValidationDate
	colAffiliateID
	colContactName
	colBusinessName
	colTrafficType
	colTrafficSource
	colCreativeType
	colCreativeID
	colCreativeName
	colCountryCode
	colCountryName
	colIPAddress
	colCustomerType
	colOrderID
	colAdditionalNotes
	colTrackingMethod
	colSaleValue
	colCommission
	colOverrideFee
	colCurrencyCode
	colCurrencyName
	colReportedSaleValue
	colTrafficSourceApproved
	colStatus2
	colInvoiceID
	colVoidReason
	colAmendedReason
	colCouponCode
	colPlacementID
	colPlacementName
	colPosition
	colSku
	colQuantity
	colItemReported
	colItemSale
	colItemCommission
	colName
	colBrand
	colCategory
	colRef1
	colRef2
	colRef3
	colRef4
	v1RowColumns
)

func newV1Row() *v1Row {
	r := &v1Row{columns: columns{vals: make([]any, v1RowColumns)}}
	r.dest = make([]any, v1RowColumns)
	for i := range r.dest {
		r.dest[i] = &r.vals[i]
	}
	return r
}

// scan reads the current row of rows.
func (r *v1Row) scan(rows *sql.Rows) error { return rows.Scan(r.dest...) }

// id is the row's transaction id.
func (r *v1Row) id() int64 { return r.int(colID) }

// fill overwrites every field of t from the row's transaction columns and
// empties its items, keeping their capacity. A column of an unexpected
// type is an error.
func (r *v1Row) fill(t *afftrack.Transaction) error {
	*t = afftrack.Transaction{
		ID:                    r.int(colID),
		MerchantID:            r.int(colMerchantID),
		DateCreated:           fromMillis(r.int(colDateCreated)),
		DateModified:          fromMillis(r.int(colDateModified)),
		ConsumptionDate:       fromMillis(r.int(colConsumptionDate)),
		ValidationDate:        fromMillis(r.int(colValidationDate)),
		AffiliateID:           r.int(colAffiliateID),
		AffiliateContactName:  r.text(colContactName),
		AffiliateBusinessName: r.text(colBusinessName),
		TrafficType:           afftrack.TrafficType(r.int(colTrafficType)),
		TrafficSource:         r.text(colTrafficSource),
		CreativeType:          afftrack.CreativeType(r.int(colCreativeType)),
		CreativeID:            r.nullInt(colCreativeID),
		CreativeName:          r.nullText(colCreativeName),
		CustomerCountryCode:   r.text(colCountryCode),
		CustomerCountryName:   r.text(colCountryName),
		CustomerIPAddress:     r.text(colIPAddress),
		CustomerType:          afftrack.CustomerType(r.int(colCustomerType)),
		OrderID:               r.text(colOrderID),
		AdditionalNotes:       r.nullText(colAdditionalNotes),
		TrackingMethod:        afftrack.TrackingMethod(r.int(colTrackingMethod)),
		SaleValue:             afftrack.Money(r.int(colSaleValue)),
		Commission:            afftrack.Money(r.int(colCommission)),
		OverrideFee:           afftrack.Money(r.int(colOverrideFee)),
		ReportedCurrencyCode:  r.text(colCurrencyCode),
		ReportedCurrencyName:  r.text(colCurrencyName),
		ReportedSaleValue:     afftrack.Money(r.int(colReportedSaleValue)),
		TrafficSourceApproved: r.bool(colTrafficSourceApproved),
		Status2:               afftrack.TransactionStatus2(r.int(colStatus2)),
		InvoiceID:             r.nullInt(colInvoiceID),
		VoidReason:            afftrack.VoidReason(r.nullInt(colVoidReason).Value),
		AmendedReason:         afftrack.AmendedReason(r.nullInt(colAmendedReason).Value),
		CouponCode:            r.nullText(colCouponCode),
		PlacementID:           r.nullInt(colPlacementID),
		PlacementName:         r.nullText(colPlacementName),
		Items:                 t.Items[:0],
	}
	if t.Items == nil {
		// Never nil, so an encoder writes [] for a transaction without items.
		t.Items = []afftrack.TransactionItem{}
	}
	return r.err()
}

// addItem appends the row's item, if it has one, to t.
func (r *v1Row) addItem(t *afftrack.Transaction) error {
	if r.vals[colPosition] == nil {
		return nil
	}
	t.Items = append(t.Items, afftrack.TransactionItem{
		Sku:                r.text(colSku),
		Quantity:           r.int(colQuantity),
		ReportedSaleValue:  afftrack.ItemMoney(r.int(colItemReported)),
		SaleValue:          afftrack.ItemMoney(r.int(colItemSale)),
		Commission:         afftrack.ItemMoney(r.int(colItemCommission)),
		Name:               r.text(colName),
		Brand:              r.text(colBrand),
		Category:           r.text(colCategory),
		CartItemReference:  r.nullText(colRef1),
		CartItemReference2: r.nullText(colRef2),
		CartItemReference3: r.nullText(colRef3),
		CartItemReference4: r.nullText(colRef4),
	})
	return r.err()
}

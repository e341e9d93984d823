package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/afftrack/afftrack"
)

var _ afftrack.TransactionService = (*TransactionService)(nil)

// TransactionService implements afftrack.TransactionService.
type TransactionService struct {
	db *DB
}

// NewTransactionService returns a TransactionService on db.
func NewTransactionService(db *DB) *TransactionService { return &TransactionService{db: db} }

// selectTransactions reads transactions with their affiliate's names and
// their items, one row per item (one row with null item columns for a
// transaction without items). Callers add WHERE and ORDER BY, always
// ordering a transaction's rows together and by position.
const selectTransactions = `SELECT t.id, t.merchant_id, t.date_created, t.date_modified, t.consumption_date,
	t.validation_date, t.affiliate_id, a.contact_name, a.business_name, t.traffic_type, t.traffic_source,
	t.creative_type, t.creative_id, t.creative_name, t.customer_country_code, t.customer_country_name,
	t.customer_ip_address, t.customer_type, t.order_id, t.additional_notes, t.tracking_method, t.sale_value,
	t.commission, t.override_fee, t.reported_currency_code, t.reported_currency_name, t.reported_sale_value,
	t.traffic_source_approved, t.status2, t.invoice_id, t.void_reason, t.amended_reason, t.coupon_code,
	t.placement_id, t.placement_name,
	i.position, i.sku, i.quantity, i.reported_sale_value, i.sale_value, i.commission, i.name, i.brand,
	i.category, i.cart_item_reference, i.cart_item_reference2, i.cart_item_reference3, i.cart_item_reference4
FROM transactions t
JOIN affiliates a ON a.id = t.affiliate_id
LEFT JOIN transaction_items i ON i.transaction_id = t.id
`

// selectTransactionByID reads one transaction of a merchant.
const selectTransactionByID = selectTransactions + `WHERE t.id = $1 AND t.merchant_id = $2 ORDER BY i.position`

// transactionRow is the scan target of one row of selectTransactions. One
// is reused for every row of a query. Every column is scanned into an
// interface value as the driver returns it and converted here: the
// conversions database/sql makes for typed destinations (reflection for
// integers, a Scanner call for each nullable column) cost more than the
// driver's own work for a list's thousands of values.
type transactionRow struct {
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
	transactionRowColumns
)

func newTransactionRow() *transactionRow {
	r := &transactionRow{columns: columns{vals: make([]any, transactionRowColumns)}}
	r.dest = make([]any, transactionRowColumns)
	for i := range r.dest {
		r.dest[i] = &r.vals[i]
	}
	return r
}

// scan reads the current row of rows.
func (r *transactionRow) scan(rows *sql.Rows) error { return rows.Scan(r.dest...) }

// id is the row's transaction id.
func (r *transactionRow) id() int64 { return r.int(colID) }

// fill overwrites every field of t from the row's transaction columns and
// empties its items, keeping their capacity. A column of an unexpected
// type is an error.
func (r *transactionRow) fill(t *afftrack.Transaction) error {
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
func (r *transactionRow) addItem(t *afftrack.Transaction) error {
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

// FindTransactionByID returns the merchant's transaction with the given id;
// another merchant's is ENOTFOUND like a missing one.
func (s *TransactionService) FindTransactionByID(ctx context.Context, merchantID, id int64) (*afftrack.Transaction, error) {
	rows, err := s.db.query(ctx, selectTransactionByID, id, merchantID)
	if err != nil {
		return nil, fmt.Errorf("find transaction %d: %w", id, err)
	}
	defer rows.Close()
	r := newTransactionRow()
	var t *afftrack.Transaction
	for rows.Next() {
		if err := r.scan(rows); err != nil {
			return nil, fmt.Errorf("find transaction %d: %w", id, err)
		}
		if t == nil {
			t = &afftrack.Transaction{}
			if err := r.fill(t); err != nil {
				return nil, fmt.Errorf("find transaction %d: %w", id, err)
			}
		}
		if err := r.addItem(t); err != nil {
			return nil, fmt.Errorf("find transaction %d: %w", id, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find transaction %d: %w", id, err)
	}
	if t == nil {
		return nil, notFound()
	}
	return t, nil
}

// FindTransactions streams the merchant's transactions in the filter's
// range, ordered by the date property then id. It reads one joined row per
// item, assembles each transaction in one reused value as its rows arrive,
// and hands it to fn once the next transaction's first row (or the end)
// shows it complete, so memory holds one transaction whatever the range.
//
// Exact integer and enumeration filters are also given to the database so
// it skips what cannot match; f.Match still decides, in Go, so text
// filters compare the same way on every engine.
func (s *TransactionService) FindTransactions(ctx context.Context, f afftrack.TransactionFilter,
	fn func(*afftrack.Transaction) error) error {
	query, args, err := transactionListQuery(&f)
	if err != nil {
		return err
	}
	rows, err := s.db.query(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("find transactions: %w", err)
	}
	defer rows.Close()
	r := newTransactionRow()
	t := &afftrack.Transaction{}
	have := false
	emit := func() error {
		if have && f.Match(t) {
			return fn(t)
		}
		return nil
	}
	for rows.Next() {
		if err := r.scan(rows); err != nil {
			return fmt.Errorf("find transactions: %w", err)
		}
		if !have || r.id() != t.ID {
			if err := emit(); err != nil {
				return err
			}
			if err := r.fill(t); err != nil {
				return fmt.Errorf("find transactions: %w", err)
			}
			have = true
		}
		if err := r.addItem(t); err != nil {
			return fmt.Errorf("find transactions: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find transactions: %w", err)
	}
	return emit()
}

// transactionListQuery builds the list query of f. Only fixed SQL
// fragments are concatenated; every value is a parameter.
func transactionListQuery(f *afftrack.TransactionFilter) (string, []any, error) {
	var col string
	switch f.DateProperty {
	case afftrack.ByDateCreated:
		col = "t.date_created"
	case afftrack.ByDateModified:
		col = "t.date_modified"
	default:
		return "", nil, afftrack.Errorf(afftrack.EINVALID, "dateProperty: unknown date property %d", f.DateProperty)
	}
	var b strings.Builder
	b.WriteString(selectTransactions)
	b.WriteString("WHERE t.merchant_id = $1 AND " + col + " >= $2 AND " + col + " < $3")
	args := []any{f.MerchantID, toMillis(f.From), toMillis(f.Until())}
	eq := func(column string, v any) {
		args = append(args, v)
		b.WriteString(" AND " + column + " = $" + strconv.Itoa(len(args)))
	}
	if f.AffiliateID.Valid {
		eq("t.affiliate_id", f.AffiliateID.Value)
	}
	if f.TrafficType != 0 {
		eq("t.traffic_type", int64(f.TrafficType))
	}
	if f.CreativeType != 0 {
		eq("t.creative_type", int64(f.CreativeType))
	}
	if f.CreativeID.Valid {
		eq("t.creative_id", f.CreativeID.Value)
	}
	if f.CustomerType != 0 {
		eq("t.customer_type", int64(f.CustomerType))
	}
	if f.TrackingMethod != 0 {
		eq("t.tracking_method", int64(f.TrackingMethod))
	}
	if f.TrafficSourceApproved.Valid {
		eq("t.traffic_source_approved", f.TrafficSourceApproved.Value)
	}
	if f.Status2 != 0 {
		eq("t.status2", int64(f.Status2))
	}
	if f.InvoiceID.Valid {
		eq("t.invoice_id", f.InvoiceID.Value)
	}
	if f.VoidReason != 0 {
		eq("t.void_reason", int64(f.VoidReason))
	}
	if f.AmendedReason != 0 {
		eq("t.amended_reason", int64(f.AmendedReason))
	}
	b.WriteString(" ORDER BY " + col + ", t.id, i.position")
	return b.String(), args, nil
}

// The write side of transactions, used by Import: transactions are written
// in batches, many rows per statement, because a file may hold a million
// and one statement per row costs a round trip per row.

const (
	transactionColumns = 33
	itemColumns        = 14
)

const insertTransactions = `INSERT INTO transactions (id, merchant_id, date_created, date_modified,
	consumption_date, validation_date, affiliate_id, traffic_type, traffic_source, creative_type, creative_id,
	creative_name, customer_country_code, customer_country_name, customer_ip_address, customer_type, order_id,
	additional_notes, tracking_method, sale_value, commission, override_fee, reported_currency_code,
	reported_currency_name, reported_sale_value, traffic_source_approved, status2, invoice_id, void_reason,
	amended_reason, coupon_code, placement_id, placement_name)
VALUES `

const upsertTransactionsConflict = `
ON CONFLICT (id) DO UPDATE SET merchant_id = excluded.merchant_id, date_created = excluded.date_created,
	date_modified = excluded.date_modified, consumption_date = excluded.consumption_date,
	validation_date = excluded.validation_date, affiliate_id = excluded.affiliate_id,
	traffic_type = excluded.traffic_type, traffic_source = excluded.traffic_source,
	creative_type = excluded.creative_type, creative_id = excluded.creative_id,
	creative_name = excluded.creative_name, customer_country_code = excluded.customer_country_code,
	customer_country_name = excluded.customer_country_name, customer_ip_address = excluded.customer_ip_address,
	customer_type = excluded.customer_type, order_id = excluded.order_id,
	additional_notes = excluded.additional_notes, tracking_method = excluded.tracking_method,
	sale_value = excluded.sale_value, commission = excluded.commission, override_fee = excluded.override_fee,
	reported_currency_code = excluded.reported_currency_code,
	reported_currency_name = excluded.reported_currency_name, reported_sale_value = excluded.reported_sale_value,
	traffic_source_approved = excluded.traffic_source_approved, status2 = excluded.status2,
	invoice_id = excluded.invoice_id, void_reason = excluded.void_reason, amended_reason = excluded.amended_reason,
	coupon_code = excluded.coupon_code, placement_id = excluded.placement_id, placement_name = excluded.placement_name`

const insertItems = `INSERT INTO transaction_items (transaction_id, position, sku, quantity, reported_sale_value,
	sale_value, commission, name, brand, category, cart_item_reference, cart_item_reference2,
	cart_item_reference3, cart_item_reference4)
VALUES `

// transactionBatch collects checked transactions of an import and writes
// them with multi-row statements: an upsert of the transactions, a delete
// of the items of those stored before, and inserts of the new items. A
// batch never holds two
// transactions of one id (the database could not apply both in one
// statement), so a later duplicate flushes the batch first and then
// replaces the earlier one, as the file's order says.
type transactionBatch struct {
	im          *importer
	txs         []*afftrack.Transaction
	ids         map[int64]struct{}
	first, last int               // indexes in the file, for error messages
	args        []any             // reused between statements
	text        map[[2]int]string // statement texts by kind and rows

	// Rows per statement, from the dialect's parameter budget.
	txRows, itemRows int
}

func newTransactionBatch(im *importer, maxParams int) *transactionBatch {
	return &transactionBatch{im: im, ids: map[int64]struct{}{}, text: map[[2]int]string{},
		txRows: max(1, maxParams/transactionColumns), itemRows: max(1, maxParams/itemColumns)}
}

// add queues t, the file's transaction at index, writing the batch first
// if it is full or holds t's id.
func (b *transactionBatch) add(t *afftrack.Transaction, index int) error {
	if _, dup := b.ids[t.ID]; dup || len(b.txs) == b.txRows {
		if err := b.flush(); err != nil {
			return err
		}
	}
	if len(b.txs) == 0 {
		b.first = index
	}
	b.last = index
	b.txs = append(b.txs, t)
	b.ids[t.ID] = struct{}{}
	return nil
}

// flush writes the queued transactions.
func (b *transactionBatch) flush() error {
	if len(b.txs) == 0 {
		return nil
	}
	if err := b.write(); err != nil {
		return fmt.Errorf("import Transactions[%d..%d]: %w", b.first, b.last, err)
	}
	b.txs = b.txs[:0]
	clear(b.ids)
	return nil
}

// Statement kinds, keys of transactionBatch.text.
const (
	stmtUpsertTransactions = iota
	stmtStoredTransactions
	stmtDeleteItems
	stmtInsertItems
)

// statement returns the text of a statement kind for rows rows.
func (b *transactionBatch) statement(kind, rows int) string {
	if q, ok := b.text[[2]int{kind, rows}]; ok {
		return q
	}
	var q string
	switch kind {
	case stmtUpsertTransactions:
		q = insertTransactions + placeholders(rows, transactionColumns) + upsertTransactionsConflict
	case stmtStoredTransactions:
		q = `SELECT id FROM transactions WHERE id IN ` + placeholders(1, rows)
	case stmtDeleteItems:
		q = `DELETE FROM transaction_items WHERE transaction_id IN ` + placeholders(1, rows)
	case stmtInsertItems:
		q = insertItems + placeholders(rows, itemColumns)
	}
	b.text[[2]int{kind, rows}] = q
	return q
}

// write upserts the batch's transactions and replaces their items.
func (b *transactionBatch) write() error {
	stored, err := b.stored()
	if err != nil {
		return err
	}
	args := b.args[:0]
	for _, t := range b.txs {
		args = append(args, t.ID, t.MerchantID, toMillis(t.DateCreated), toMillis(t.DateModified),
			toMillis(t.ConsumptionDate), toMillis(t.ValidationDate), t.AffiliateID, int64(t.TrafficType),
			t.TrafficSource, int64(t.CreativeType), nullInt(t.CreativeID), nullText(t.CreativeName),
			t.CustomerCountryCode, t.CustomerCountryName, t.CustomerIPAddress, int64(t.CustomerType), t.OrderID,
			nullText(t.AdditionalNotes), int64(t.TrackingMethod), int64(t.SaleValue), int64(t.Commission),
			int64(t.OverrideFee), t.ReportedCurrencyCode, t.ReportedCurrencyName, int64(t.ReportedSaleValue),
			t.TrafficSourceApproved, int64(t.Status2), nullInt(t.InvoiceID), nullEnum(t.VoidReason),
			nullEnum(t.AmendedReason), nullText(t.CouponCode), nullInt(t.PlacementID), nullText(t.PlacementName))
	}
	if err := b.im.exec(b.statement(stmtUpsertTransactions, len(b.txs)), args...); err != nil {
		return err
	}
	// Items are replaced whole: a transaction that had more items before
	// must not keep the extra ones.
	if len(stored) > 0 {
		args = args[:0]
		for _, id := range stored {
			args = append(args, id)
		}
		if err := b.im.exec(b.statement(stmtDeleteItems, len(stored)), args...); err != nil {
			return err
		}
	}
	args = args[:0]
	rows := 0
	for _, t := range b.txs {
		for pos, it := range t.Items {
			args = append(args, t.ID, int64(pos), it.Sku, it.Quantity, int64(it.ReportedSaleValue),
				int64(it.SaleValue), int64(it.Commission), it.Name, it.Brand, it.Category,
				nullText(it.CartItemReference), nullText(it.CartItemReference2), nullText(it.CartItemReference3),
				nullText(it.CartItemReference4))
			if rows++; rows == b.itemRows {
				if err := b.im.exec(b.statement(stmtInsertItems, rows), args...); err != nil {
					return err
				}
				args, rows = args[:0], 0
			}
		}
	}
	if rows > 0 {
		if err := b.im.exec(b.statement(stmtInsertItems, rows), args...); err != nil {
			return err
		}
	}
	clear(args[:cap(args)]) // let the batch's strings go
	b.args = args[:0]
	return nil
}

// stored returns the ids of the batch that are stored already, before
// this import or earlier in it: only their items need deleting, so a fresh
// load deletes nothing. This matters beyond the saved statements: on
// PostgreSQL a table filled in the import's own transaction has no
// statistics, and a delete of a hundred ids from it is planned as a
// sequential scan, which would make a large load quadratic. This lookup
// goes through the primary key, which the planner knows is unique.
func (b *transactionBatch) stored() ([]int64, error) {
	st, err := b.im.stmt(b.statement(stmtStoredTransactions, len(b.txs)))
	if err != nil {
		return nil, err
	}
	args := b.args[:0]
	for _, t := range b.txs {
		args = append(args, t.ID)
	}
	rows, err := st.QueryContext(b.im.ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// placeholders returns rows parenthesised lists of cols parameters,
// numbered from $1: "($1, $2), ($3, $4)".
func placeholders(rows, cols int) string {
	var b strings.Builder
	n := 1
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			n++
		}
		b.WriteByte(')')
	}
	return b.String()
}

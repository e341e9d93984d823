package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

var (
	_ afftrack.TransactionService       = (*TransactionService)(nil)
	_ afftrack.TransactionStatusService = (*TransactionService)(nil)
)

// TransactionService implements afftrack.TransactionService.
type TransactionService struct {
	db *DB
}

// NewTransactionService returns a TransactionService on db.
func NewTransactionService(db *DB) *TransactionService { return &TransactionService{db: db} }

// selectTransactions reads transactions with their affiliate's names and
// their items' cache (items_cache.go), one row per transaction. Callers
// add WHERE and, for a list, an ORDER BY that ends in t.id (listQuery).
const selectTransactions = `SELECT t.id, t.merchant_id, t.date_created, t.date_modified, t.consumption_date,
	t.validation_date, t.affiliate_id, a.contact_name, a.business_name, t.traffic_type, t.traffic_source,
	t.creative_type, t.creative_id, t.creative_name, t.customer_country_code, t.customer_country_name,
	t.customer_ip_address, t.customer_type, t.order_id, t.additional_notes, t.tracking_method, t.sale_value,
	t.commission, t.override_fee, t.reported_currency_code, t.reported_currency_name, t.reported_sale_value,
	t.traffic_source_approved, t.status2, t.invoice_id, t.void_reason, t.amended_reason, t.coupon_code,
	t.placement_id, t.placement_name, t.items_cache
FROM transactions t
JOIN affiliates a ON a.id = t.affiliate_id
`

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
	colItemsCache
	transactionRowColumns
)

// selectTransactionByID reads one transaction of a merchant.
const selectTransactionByID = selectTransactions + `WHERE t.id = $1 AND t.merchant_id = $2`

// FindTransactionByID returns the merchant's transaction with the given id;
// another merchant's is ENOTFOUND like a missing one.
func (s *TransactionService) FindTransactionByID(ctx context.Context, merchantID, id int64) (*afftrack.Transaction, error) {
	return s.findOne(ctx, merchantView, selectTransactionByID, id, merchantID)
}

// FindTransactions streams the merchant's transactions that match f,
// ordered by the date property then id, a page at a time (listQuery), so
// memory holds one page whatever the range. Every filter is applied by
// the database.
func (s *TransactionService) FindTransactions(ctx context.Context, f afftrack.TransactionFilter,
	fn func(*afftrack.Transaction) error) error {
	q, err := transactionListQuery(&f, s.db.dialect)
	if err != nil {
		return err
	}
	return s.stream(ctx, merchantView, q, fn)
}

// transactionView is one view's row of a transaction: how many columns its
// SELECT reads, which one holds the items' cache, and how the others fill
// a Transaction.
type transactionView struct {
	columns, itemsCache int
	fill                func(c *columns, t *afftrack.Transaction)
}

// merchantView reads the rows of selectTransactions.
var merchantView = transactionView{columns: transactionRowColumns, itemsCache: colItemsCache, fill: fillTransaction}

// findOne reads the one transaction query finds in view v, or ENOTFOUND.
func (s *TransactionService) findOne(ctx context.Context, v transactionView, query string, id int64, owner int64) (*afftrack.Transaction, error) {
	rows, err := s.db.query(ctx, query, id, owner)
	if err != nil {
		return nil, fmt.Errorf("find transaction %d: %w", id, err)
	}
	defer rows.Close()
	var found *afftrack.Transaction
	var one afftrack.Transaction
	err = scanTransactions(rows, v, func() *afftrack.Transaction { return &one }, func(t *afftrack.Transaction) error {
		found = t
		return nil
	})
	switch {
	case err != nil:
		return nil, fmt.Errorf("find transaction %d: %w", id, err)
	case found == nil:
		return nil, notFound()
	}
	return found, nil
}

// scanTransactions reads the rows of view v, each into the transaction
// next returns, and calls fn with it. next may return the same value
// every time, or one of a page; its items' capacity is reused.
func scanTransactions(rows *sql.Rows, v transactionView, next func() *afftrack.Transaction, fn func(*afftrack.Transaction) error) error {
	c := columns{vals: make([]any, v.columns)}
	var cache sql.RawBytes // decoded before the next row, so never copied
	dest := make([]any, v.columns)
	for i := range dest {
		dest[i] = &c.vals[i]
	}
	dest[v.itemsCache] = &cache
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		t := next()
		v.fill(&c, t)
		if err := c.err(); err != nil {
			return err
		}
		items, err := readItemsCache(cache, t.Items)
		if err != nil {
			return fmt.Errorf("transaction %d: %w", t.ID, err)
		}
		t.Items = items
		if err := fn(t); err != nil {
			return err
		}
	}
	return rows.Err()
}

// fillTransaction overwrites every field of t from the row's transaction
// columns and empties its items, keeping their capacity.
func fillTransaction(c *columns, t *afftrack.Transaction) {
	items := t.Items[:0]
	if items == nil {
		// Never nil, so an encoder writes [] for a transaction without items.
		items = []afftrack.TransactionItem{}
	}
	*t = afftrack.Transaction{
		ID:                    c.int(colID),
		MerchantID:            c.int(colMerchantID),
		DateCreated:           fromMillis(c.int(colDateCreated)),
		DateModified:          fromMillis(c.int(colDateModified)),
		ConsumptionDate:       fromMillis(c.int(colConsumptionDate)),
		ValidationDate:        fromMillis(c.int(colValidationDate)),
		AffiliateID:           c.int(colAffiliateID),
		AffiliateContactName:  c.text(colContactName),
		AffiliateBusinessName: c.text(colBusinessName),
		TrafficType:           afftrack.TrafficType(c.int(colTrafficType)),
		TrafficSource:         c.text(colTrafficSource),
		CreativeType:          afftrack.CreativeType(c.int(colCreativeType)),
		CreativeID:            c.nullInt(colCreativeID),
		CreativeName:          c.nullText(colCreativeName),
		CustomerCountryCode:   c.text(colCountryCode),
		CustomerCountryName:   c.text(colCountryName),
		CustomerIPAddress:     c.text(colIPAddress),
		CustomerType:          afftrack.CustomerType(c.int(colCustomerType)),
		OrderID:               c.text(colOrderID),
		AdditionalNotes:       c.nullText(colAdditionalNotes),
		TrackingMethod:        afftrack.TrackingMethod(c.int(colTrackingMethod)),
		SaleValue:             afftrack.Money(c.int(colSaleValue)),
		Commission:            afftrack.Money(c.int(colCommission)),
		OverrideFee:           afftrack.Money(c.int(colOverrideFee)),
		ReportedCurrencyCode:  c.text(colCurrencyCode),
		ReportedCurrencyName:  c.text(colCurrencyName),
		ReportedSaleValue:     afftrack.Money(c.int(colReportedSaleValue)),
		TrafficSourceApproved: c.bool(colTrafficSourceApproved),
		Status2:               afftrack.TransactionStatus2(c.int(colStatus2)),
		InvoiceID:             c.nullInt(colInvoiceID),
		VoidReason:            afftrack.VoidReason(c.nullInt(colVoidReason).Value),
		AmendedReason:         afftrack.AmendedReason(c.nullInt(colAmendedReason).Value),
		CouponCode:            c.nullText(colCouponCode),
		PlacementID:           c.nullInt(colPlacementID),
		PlacementName:         c.nullText(colPlacementName),
		Items:                 items,
	}
}

// transactionListQuery builds the list query of f. Only fixed SQL
// fragments are concatenated; every value is a parameter.
func transactionListQuery(f *afftrack.TransactionFilter, d dialect) (listQuery, error) {
	w := whereBuilder{d: d}
	col, err := w.start(selectTransactions, "t.merchant_id", f.MerchantID, f.DateProperty, f.From, f.Until())
	if err != nil {
		return listQuery{}, err
	}
	w.int("t.affiliate_id", f.AffiliateID)
	w.text("a.contact_name", f.AffiliateContactName)
	w.text("a.business_name", f.AffiliateBusinessName)
	w.enum("t.traffic_type", uint8(f.TrafficType))
	w.text("t.traffic_source", f.TrafficSource)
	w.enum("t.creative_type", uint8(f.CreativeType))
	w.int("t.creative_id", f.CreativeID)
	w.text("t.creative_name", f.CreativeName)
	w.text("t.customer_country_code", f.CustomerCountryCode)
	w.text("t.customer_country_name", f.CustomerCountryName)
	w.text("t.customer_ip_address", f.CustomerIPAddress)
	w.enum("t.customer_type", uint8(f.CustomerType))
	w.text("t.order_id", f.OrderID)
	w.enum("t.tracking_method", uint8(f.TrackingMethod))
	if f.TrafficSourceApproved.Valid {
		w.cond("t.traffic_source_approved = ", f.TrafficSourceApproved.Value)
	}
	w.status("t.status2", f.Status)
	w.enum("t.status2", uint8(f.Status2))
	w.int("t.invoice_id", f.InvoiceID)
	w.enum("t.void_reason", uint8(f.VoidReason))
	w.enum("t.amended_reason", uint8(f.AmendedReason))
	return w.list(col, f.DateProperty), nil
}

// whereBuilder adds the conditions of a list's optional filters.
type whereBuilder struct {
	d    dialect
	b    strings.Builder
	args []any
}

// start writes the list query's SELECT and its range of one account's
// transactions on the date property, and returns that date's column, for
// the ORDER BY.
func (w *whereBuilder) start(selectText, accountColumn string, accountID int64, p afftrack.DateProperty,
	from, until time.Time) (string, error) {
	var col string
	switch p {
	case afftrack.ByDateCreated:
		col = "t.date_created"
	case afftrack.ByDateModified:
		col = "t.date_modified"
	default:
		return "", afftrack.Errorf(afftrack.EINVALID, "dateProperty: unknown date property %d", p)
	}
	w.b.WriteString(selectText)
	// listQuery.from moves the start, $2, from page to page.
	w.b.WriteString("WHERE " + accountColumn + " = $1 AND " + col + " >= $2 AND " + col + " < $3")
	w.args = []any{accountID, toMillis(from), toMillis(until)}
	return col, nil
}

// status filters on the derived Status, 0 being no filter: each Status is
// a set of Status2 values, of the column status2.
func (w *whereBuilder) status(status2 string, s afftrack.TransactionStatus) {
	if s == 0 {
		return
	}
	var in []string
	for _, s2 := range afftrack.TransactionStatus2Values() {
		if s2.Status() == s {
			w.args = append(w.args, int64(s2))
			in = append(in, "$"+strconv.Itoa(len(w.args)))
		}
	}
	if len(in) == 0 {
		w.b.WriteString(" AND 1 = 0") // no such Status: nothing matches
		return
	}
	w.b.WriteString(" AND " + status2 + " IN (" + strings.Join(in, ", ") + ")")
}

// cond adds " AND <expr>$n" with v as parameter n.
func (w *whereBuilder) cond(expr string, v any) {
	w.args = append(w.args, v)
	w.b.WriteString(" AND " + expr + "$" + strconv.Itoa(len(w.args)))
}

func (w *whereBuilder) int(column string, v afftrack.Null[int64]) {
	if v.Valid {
		w.cond(column+" = ", v.Value)
	}
}

// enum filters on an enumeration; 0 is no filter.
func (w *whereBuilder) enum(column string, v uint8) {
	if v != 0 {
		w.cond(column+" = ", int64(v))
	}
}

// text matches the whole value ignoring case; NULL never matches.
func (w *whereBuilder) text(column string, v afftrack.Null[string]) {
	if !v.Valid {
		return
	}
	w.args = append(w.args, v.Value)
	w.b.WriteString(" AND " + w.d.fold(column) + " = " + w.d.fold("$"+strconv.Itoa(len(w.args))))
}

// UpdateTransactionStatus applies c in one guarded UPDATE: it changes the
// transaction only while its status is still c.From, so of two concurrent
// changes of one transaction exactly one wins, and the other gets
// ECONFLICT.
func (s *TransactionService) UpdateTransactionStatus(ctx context.Context, c afftrack.TransactionStatusChange) error {
	if err := c.Validate(); err != nil {
		return err
	}
	res, err := s.db.sql.ExecContext(ctx, `UPDATE transactions
		SET status2 = $1, void_reason = $2, invoice_id = $3, date_modified = $4
		WHERE id = $5 AND merchant_id = $6 AND status2 = $7`,
		int64(c.To), nullEnum(uint8(c.VoidReason)), nullInt(c.InvoiceID), toMillis(c.At),
		c.ID, c.MerchantID, int64(c.From))
	if err != nil {
		return fmt.Errorf("change transaction %d: %w", c.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("change transaction %d: %w", c.ID, err)
	} else if n == 1 {
		return nil
	}
	var now int64
	err = s.db.sql.QueryRowContext(ctx, `SELECT status2 FROM transactions WHERE id = $1 AND merchant_id = $2`,
		c.ID, c.MerchantID).Scan(&now)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return afftrack.Errorf(afftrack.ENOTFOUND, "transaction %d not found", c.ID)
	case err != nil:
		return fmt.Errorf("change transaction %d: %w", c.ID, err)
	}
	return afftrack.Errorf(afftrack.ECONFLICT, "transaction %d is %s, not %s", c.ID,
		afftrack.TransactionStatus2(now), c.From)
}

// nullEnum is the argument for a nullable enumeration column, 0 being NULL.
func nullEnum(v uint8) any {
	if v == 0 {
		return nil
	}
	return int64(v)
}

// The write side of transactions, used by Import: transactions and their
// items are written in batches, many rows per statement, because a file
// may hold a million and one statement per row costs a round trip per row
// on PostgreSQL and a call into the engine on SQLite.

// transactionColumnList is the column list an import writes, in the order
// of transactionArgs.
const transactionColumnList = `id, merchant_id, date_created, date_modified, consumption_date, validation_date,
	affiliate_id, traffic_type, traffic_source, creative_type, creative_id, creative_name, customer_country_code,
	customer_country_name, customer_ip_address, customer_type, order_id, additional_notes, tracking_method,
	sale_value, commission, override_fee, reported_currency_code, reported_currency_name, reported_sale_value,
	traffic_source_approved, status2, invoice_id, void_reason, amended_reason, coupon_code, placement_id,
	placement_name, items_cache, unique_id, unique_id2, unique_id3, unique_id4`

// transactionColumns is the number of columns in transactionColumnList.
const transactionColumns = 38

// transactionArgs appends t's values in the order of transactionColumnList,
// cache being the cache of its items.
func transactionArgs(args []any, t *afftrack.Transaction, cache []byte) []any {
	return append(args, t.ID, t.MerchantID, toMillis(t.DateCreated), toMillis(t.DateModified),
		toMillis(t.ConsumptionDate), toMillis(t.ValidationDate), t.AffiliateID, int64(t.TrafficType),
		t.TrafficSource, int64(t.CreativeType), nullInt(t.CreativeID), nullText(t.CreativeName),
		t.CustomerCountryCode, t.CustomerCountryName, t.CustomerIPAddress, int64(t.CustomerType), t.OrderID,
		nullText(t.AdditionalNotes), int64(t.TrackingMethod), int64(t.SaleValue), int64(t.Commission),
		int64(t.OverrideFee), t.ReportedCurrencyCode, t.ReportedCurrencyName, int64(t.ReportedSaleValue),
		t.TrafficSourceApproved, int64(t.Status2), nullInt(t.InvoiceID), nullEnum(uint8(t.VoidReason)),
		nullEnum(uint8(t.AmendedReason)), nullText(t.CouponCode), nullInt(t.PlacementID), nullText(t.PlacementName), cache,
		nullText(t.UniqueIDs[0]), nullText(t.UniqueIDs[1]), nullText(t.UniqueIDs[2]), nullText(t.UniqueIDs[3]))
}

// upsertTransactionsConflict makes a multi-row insert replace the stored
// transactions of the same ids.
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
	coupon_code = excluded.coupon_code, placement_id = excluded.placement_id, placement_name = excluded.placement_name,
	items_cache = excluded.items_cache, unique_id = excluded.unique_id, unique_id2 = excluded.unique_id2,
	unique_id3 = excluded.unique_id3, unique_id4 = excluded.unique_id4`

// itemColumnList is the column list of an item row, in the order of
// itemArgs.
const itemColumnList = `transaction_id, position, sku, quantity, reported_sale_value, sale_value, commission,
	name, brand, category, cart_item_reference, cart_item_reference2, cart_item_reference3, cart_item_reference4`

// itemColumns is the number of columns in itemColumnList.
const itemColumns = 14

// itemArgs appends the values of item it, at position (from 1), of
// transaction id.
func itemArgs(args []any, id int64, position int, it *afftrack.TransactionItem) []any {
	return append(args, id, int64(position), it.Sku, it.Quantity, int64(it.ReportedSaleValue),
		int64(it.SaleValue), int64(it.Commission), it.Name, it.Brand, it.Category, nullText(it.CartItemReference),
		nullText(it.CartItemReference2), nullText(it.CartItemReference3), nullText(it.CartItemReference4))
}

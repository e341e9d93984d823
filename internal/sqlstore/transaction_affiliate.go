package sqlstore

import (
	"context"

	"github.com/afftrack/afftrack"
)

// The affiliate view of transactions (v1-surface.md section 3): an
// affiliate's own transactions, of any merchant, whatever its membership
// or the merchant's status now, with the merchant's name and avatar and
// the click's UniqueIds. The columns the view does not show (the
// affiliate's names, customer_ip_address, override_fee) are not read, so
// they never reach the value an encoder sees; nor are placement_id and
// placement_name, which the view writes null (there are no placements).

// selectAffiliateTransactions reads transactions in the affiliate view,
// one row per transaction, items from the cache (items_cache.go). Callers
// add WHERE and, for a list, an ORDER BY that ends in t.id.
const selectAffiliateTransactions = `SELECT t.id, t.merchant_id, m.name, m.avatar_url, t.date_created,
	t.date_modified, t.consumption_date, t.validation_date, t.affiliate_id, t.traffic_type, t.traffic_source,
	t.creative_type, t.creative_id, t.creative_name, t.customer_country_code, t.customer_country_name,
	t.customer_type, t.order_id, t.additional_notes, t.unique_id, t.unique_id2, t.unique_id3, t.unique_id4,
	t.tracking_method, t.sale_value, t.commission, t.reported_currency_code, t.reported_currency_name,
	t.reported_sale_value, t.traffic_source_approved, t.status2, t.invoice_id, t.void_reason, t.amended_reason,
	t.coupon_code, t.items_cache
FROM transactions t
JOIN merchants m ON m.id = t.merchant_id
`

// Positions of the columns of selectAffiliateTransactions.
const (
	affColID = iota
	affColMerchantID
	affColMerchantName
	affColMerchantAvatarURL
	affColDateCreated
	affColDateModified
	affColConsumptionDate
	affColValidationDate
	affColAffiliateID
	affColTrafficType
	affColTrafficSource
	affColCreativeType
	affColCreativeID
	affColCreativeName
	affColCountryCode
	affColCountryName
	affColCustomerType
	affColOrderID
	affColAdditionalNotes
	affColUniqueID // 4 columns: unique_id ... unique_id4
	affColUniqueID2
	affColUniqueID3
	affColUniqueID4
	affColTrackingMethod
	affColSaleValue
	affColCommission
	affColCurrencyCode
	affColCurrencyName
	affColReportedSaleValue
	affColTrafficSourceApproved
	affColStatus2
	affColInvoiceID
	affColVoidReason
	affColAmendedReason
	affColCouponCode
	affColItemsCache
	affiliateTransactionRowColumns
)

// selectAffiliateTransactionByID reads one transaction of an affiliate.
const selectAffiliateTransactionByID = selectAffiliateTransactions + `WHERE t.id = $1 AND t.affiliate_id = $2`

// FindAffiliateTransactionByID returns the affiliate's transaction with
// the given id in the affiliate view; another affiliate's is ENOTFOUND
// like a missing one.
func (s *TransactionService) FindAffiliateTransactionByID(ctx context.Context, affiliateID, id int64) (*afftrack.Transaction, error) {
	return s.findOne(ctx, affiliateView, selectAffiliateTransactionByID, id, affiliateID)
}

// FindAffiliateTransactions streams the affiliate's transactions that
// match f in the affiliate view, ordered by the date property then id,
// a page at a time (listQuery), handed to fn. Every filter is applied by the
// database; the range runs on the index transactions_affiliate_created
// (or _modified).
func (s *TransactionService) FindAffiliateTransactions(ctx context.Context, f afftrack.AffiliateTransactionFilter,
	fn func(*afftrack.Transaction) error) error {
	q, err := affiliateTransactionListQuery(&f, s.db.dialect)
	if err != nil {
		return err
	}
	return s.stream(ctx, affiliateView, q, fn)
}

// affiliateView reads the rows of selectAffiliateTransactions.
var affiliateView = transactionView{columns: affiliateTransactionRowColumns, itemsCache: affColItemsCache,
	fill: fillAffiliateTransaction}

// fillAffiliateTransaction overwrites every field of t from the row's
// columns and empties its items, keeping their capacity. The fields the
// affiliate view lacks are zero.
func fillAffiliateTransaction(c *columns, t *afftrack.Transaction) {
	items := t.Items[:0]
	if items == nil {
		// Never nil, so an encoder writes [] for a transaction without items.
		items = []afftrack.TransactionItem{}
	}
	*t = afftrack.Transaction{
		ID:                  c.int(affColID),
		MerchantID:          c.int(affColMerchantID),
		MerchantName:        c.text(affColMerchantName),
		MerchantAvatarURL:   c.text(affColMerchantAvatarURL),
		DateCreated:         fromMillis(c.int(affColDateCreated)),
		DateModified:        fromMillis(c.int(affColDateModified)),
		ConsumptionDate:     fromMillis(c.int(affColConsumptionDate)),
		ValidationDate:      fromMillis(c.int(affColValidationDate)),
		AffiliateID:         c.int(affColAffiliateID),
		TrafficType:         afftrack.TrafficType(c.int(affColTrafficType)),
		TrafficSource:       c.text(affColTrafficSource),
		CreativeType:        afftrack.CreativeType(c.int(affColCreativeType)),
		CreativeID:          c.nullInt(affColCreativeID),
		CreativeName:        c.nullText(affColCreativeName),
		CustomerCountryCode: c.text(affColCountryCode),
		CustomerCountryName: c.text(affColCountryName),
		CustomerType:        afftrack.CustomerType(c.int(affColCustomerType)),
		OrderID:             c.text(affColOrderID),
		AdditionalNotes:     c.nullText(affColAdditionalNotes),
		UniqueIDs: [4]afftrack.Null[string]{c.nullText(affColUniqueID), c.nullText(affColUniqueID2),
			c.nullText(affColUniqueID3), c.nullText(affColUniqueID4)},
		TrackingMethod:        afftrack.TrackingMethod(c.int(affColTrackingMethod)),
		SaleValue:             afftrack.Money(c.int(affColSaleValue)),
		Commission:            afftrack.Money(c.int(affColCommission)),
		ReportedCurrencyCode:  c.text(affColCurrencyCode),
		ReportedCurrencyName:  c.text(affColCurrencyName),
		ReportedSaleValue:     afftrack.Money(c.int(affColReportedSaleValue)),
		TrafficSourceApproved: c.bool(affColTrafficSourceApproved),
		Status2:               afftrack.TransactionStatus2(c.int(affColStatus2)),
		InvoiceID:             c.nullInt(affColInvoiceID),
		VoidReason:            afftrack.VoidReason(c.nullInt(affColVoidReason).Value),
		AmendedReason:         afftrack.AmendedReason(c.nullInt(affColAmendedReason).Value),
		CouponCode:            c.nullText(affColCouponCode),
		Items:                 items,
	}
}

// uniqueIDColumns are the columns of the UniqueIds, in order.
var uniqueIDColumns = [4]string{"t.unique_id", "t.unique_id2", "t.unique_id3", "t.unique_id4"}

// affiliateTransactionListQuery builds the list query of f, its filters
// in the order of v1-surface.md section 2.1. Only fixed SQL fragments are
// concatenated; every value is a parameter.
func affiliateTransactionListQuery(f *afftrack.AffiliateTransactionFilter, d dialect) (listQuery, error) {
	w := whereBuilder{d: d}
	col, err := w.start(selectAffiliateTransactions, "t.affiliate_id", f.AffiliateID, f.DateProperty, f.From, f.Until())
	if err != nil {
		return listQuery{}, err
	}
	w.int("t.merchant_id", f.MerchantID)
	w.text("m.name", f.MerchantName)
	w.enum("t.traffic_type", uint8(f.TrafficType))
	w.text("t.traffic_source", f.TrafficSource)
	w.enum("t.creative_type", uint8(f.CreativeType))
	w.int("t.creative_id", f.CreativeID)
	w.text("t.creative_name", f.CreativeName)
	w.text("t.customer_country_code", f.CustomerCountryCode)
	w.text("t.customer_country_name", f.CustomerCountryName)
	w.enum("t.customer_type", uint8(f.CustomerType))
	w.text("t.order_id", f.OrderID)
	for i, u := range f.UniqueIDs {
		w.text(uniqueIDColumns[i], u)
	}
	w.enum("t.tracking_method", uint8(f.TrackingMethod))
	if f.TrafficSourceApproved.Valid {
		w.cond("t.traffic_source_approved = ", f.TrafficSourceApproved.Value)
	}
	w.status("t.status2", f.Status)
	w.enum("t.status2", uint8(f.Status2))
	w.int("t.invoice_id", f.InvoiceID)
	w.enum("t.void_reason", uint8(f.VoidReason))
	return w.list(col, f.DateProperty), nil
}

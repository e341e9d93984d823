package client

import (
	"context"
	"time"
)

// Transaction is a sale as its merchant sees it (GET
// /V1/Merchant/Transactions). Amounts are in the network's currency
// unless named Reported.
type Transaction struct {
	ID                    int64          `json:"Id"`
	DateCreated           time.Time      `json:"DateCreated"`
	DateModified          time.Time      `json:"DateModified"`
	ConsumptionDate       time.Time      `json:"ConsumptionDate"`
	ValidationDate        time.Time      `json:"ValidationDate"` // when a Pending transaction locks by itself
	AffiliateID           int64          `json:"AffiliateId"`
	AffiliateContactName  string         `json:"AffiliateContactName"`
	AffiliateBusinessName string         `json:"AffiliateBusinessName"`
	TrafficType           TrafficType    `json:"TrafficType"`
	TrafficSource         string         `json:"TrafficSource"`
	CreativeType          CreativeType   `json:"CreativeType"`
	CreativeID            *int64         `json:"CreativeId"`
	CreativeName          *string        `json:"CreativeName"`
	CustomerCountryCode   string         `json:"CustomerCountryCode"`
	CustomerCountryName   string         `json:"CustomerCountryName"`
	CustomerIPAddress     string         `json:"CustomerIpAddress"` // a keyed hash, never the address itself
	CustomerType          CustomerType   `json:"CustomerType"`
	OrderID               string         `json:"OrderId"`
	AdditionalNotes       *string        `json:"AdditionalNotes"`
	TrackingMethod        TrackingMethod `json:"TrackingMethod"`
	SaleValue             Decimal        `json:"SaleValue"`
	Commission            Decimal        `json:"Commission"`
	OverrideFee           Decimal        `json:"OverrideFee"` // the network's fee on top of the commission
	ReportedCurrencyCode  string         `json:"ReportedCurrencyCode"`
	ReportedCurrencyName  string         `json:"ReportedCurrencyName"`
	ReportedSaleValue     Decimal        `json:"ReportedSaleValue"`
	TrafficSourceApproved bool           `json:"TrafficSourceApproved"`
	// Deprecated: Status cannot tell Locked from Pending or Paid from
	// Approved; use Status2.
	Status        TransactionStatus  `json:"Status"`
	Status2       TransactionStatus2 `json:"Status2"`
	InvoiceID     *int64             `json:"InvoiceId"`
	VoidReason    *VoidReason        `json:"VoidReason"`
	AmendedReason *AmendedReason     `json:"AmendedReason"`
	CouponCode    *string            `json:"CouponCode"`
	PlacementID   *int64             `json:"PlacementId"`
	PlacementName *string            `json:"PlacementName"`
	Items         []TransactionItem  `json:"Items"`
}

// TransactionItem is one line of a merchant's transaction. Amounts have
// two fractional digits.
type TransactionItem struct {
	Sku                string  `json:"Sku"`
	Quantity           int64   `json:"Quantity"`
	ReportedSaleValue  Decimal `json:"ReportedSaleValue"`
	SaleValue          Decimal `json:"SaleValue"`
	Commission         Decimal `json:"Commission"`
	Name               string  `json:"Name"`
	Brand              string  `json:"Brand"`
	Category           string  `json:"Category"`
	CartItemReference  *string `json:"CartItemReference"`
	CartItemReference2 *string `json:"CartItemReference2"`
	CartItemReference3 *string `json:"CartItemReference3"`
	CartItemReference4 *string `json:"CartItemReference4"`
}

// AffiliateTransaction is a sale as the affiliate who earned it sees it
// (GET /V1/Affiliate/Transactions): the merchant in place of the
// affiliate, its own sub-ids, whether it is paid; no customer address
// hash and no network fee.
type AffiliateTransaction struct {
	ID                    int64          `json:"Id"`
	DateCreated           time.Time      `json:"DateCreated"`
	DateModified          time.Time      `json:"DateModified"`
	ConsumptionDate       time.Time      `json:"ConsumptionDate"`
	ValidationDate        *time.Time     `json:"ValidationDate"` // nullable in the interface; afftrack always sets it
	MerchantID            int64          `json:"MerchantId"`
	MerchantName          string         `json:"MerchantName"`
	MerchantAvatarURL     string         `json:"MerchantAvatarUrl"`
	TrafficType           TrafficType    `json:"TrafficType"`
	TrafficSource         string         `json:"TrafficSource"`
	CreativeType          CreativeType   `json:"CreativeType"`
	CreativeID            *int64         `json:"CreativeId"`
	CreativeName          *string        `json:"CreativeName"`
	CustomerCountryCode   string         `json:"CustomerCountryCode"`
	CustomerCountryName   string         `json:"CustomerCountryName"`
	CustomerType          CustomerType   `json:"CustomerType"`
	OrderID               string         `json:"OrderId"`
	AdditionalNotes       *string        `json:"AdditionalNotes"`
	UniqueID              *string        `json:"UniqueId"` // the sub-ids of the click that made the sale
	UniqueID2             *string        `json:"UniqueId2"`
	UniqueID3             *string        `json:"UniqueId3"`
	UniqueID4             *string        `json:"UniqueId4"`
	TrackingMethod        TrackingMethod `json:"TrackingMethod"`
	SaleValue             Decimal        `json:"SaleValue"`
	Commission            Decimal        `json:"Commission"`
	ReportedCurrencyCode  string         `json:"ReportedCurrencyCode"`
	ReportedCurrencyName  string         `json:"ReportedCurrencyName"`
	ReportedSaleValue     Decimal        `json:"ReportedSaleValue"`
	TrafficSourceApproved bool           `json:"TrafficSourceApproved"`
	// Deprecated: Status cannot tell Locked from Pending or Paid from
	// Approved; use Status2.
	Status        TransactionStatus          `json:"Status"`
	Status2       TransactionStatus2         `json:"Status2"`
	InvoiceID     *int64                     `json:"InvoiceId"`
	Paid          bool                       `json:"Paid"` // Status2 is Paid
	VoidReason    *VoidReason                `json:"VoidReason"`
	AmendedReason *AmendedReason             `json:"AmendedReason"`
	CouponCode    *string                    `json:"CouponCode"`
	PlacementID   *int64                     `json:"PlacementId"`
	PlacementName *string                    `json:"PlacementName"`
	Items         []AffiliateTransactionItem `json:"Items"`
}

// AffiliateTransactionItem is one line of an affiliate's transaction:
// the merchant's item without the merchant's cart references.
type AffiliateTransactionItem struct {
	Sku               string  `json:"Sku"`
	Quantity          int64   `json:"Quantity"`
	ReportedSaleValue Decimal `json:"ReportedSaleValue"`
	SaleValue         Decimal `json:"SaleValue"`
	Commission        Decimal `json:"Commission"`
	Name              string  `json:"Name"`
	Brand             string  `json:"Brand"`
	Category          string  `json:"Category"`
}

// MerchantTransactionsParams choose a merchant's transactions. From and
// To are required; every other field is a filter, absent when zero (nil
// for TrafficSourceApproved). Text filters match the whole value,
// ignoring case; filters combine with AND.
type MerchantTransactionsParams struct {
	From, To              time.Time    // whole days, inclusive; only the calendar date counts
	DateProperty          DateProperty // which date the range applies to; DateCreated when empty
	AffiliateID           int64
	AffiliateContactName  string
	AffiliateBusinessName string
	TrafficType           TrafficType
	TrafficSource         string
	CreativeType          CreativeType
	CreativeID            int64
	CreativeName          string
	CustomerCountryCode   string
	CustomerCountryName   string
	CustomerIPAddress     string // the hash, as the transactions show it
	CustomerType          CustomerType
	OrderID               string
	TrackingMethod        TrackingMethod
	TrafficSourceApproved *bool
	// Deprecated: Status matches the coarse status; use Status2.
	Status        TransactionStatus
	Status2       TransactionStatus2
	InvoiceID     int64
	VoidReason    VoidReason
	AmendedReason AmendedReason
}

// query returns the parameters in the interface's order.
func (p *MerchantTransactionsParams) query() query {
	var q query
	q.date("fromDate", p.From)
	q.date("toDate", p.To)
	q.str("dateProperty", string(p.DateProperty))
	q.int("affiliateId", p.AffiliateID)
	q.str("affiliateContactName", p.AffiliateContactName)
	q.str("affiliateBusinessName", p.AffiliateBusinessName)
	q.str("trafficType", string(p.TrafficType))
	q.str("trafficSource", p.TrafficSource)
	q.str("creativeType", string(p.CreativeType))
	q.int("creativeId", p.CreativeID)
	q.str("creativeName", p.CreativeName)
	q.str("customerCountryCode", p.CustomerCountryCode)
	q.str("customerCountryName", p.CustomerCountryName)
	q.str("customerIpAddress", p.CustomerIPAddress)
	q.str("customerType", string(p.CustomerType))
	q.str("orderId", p.OrderID)
	q.str("trackingMethod", string(p.TrackingMethod))
	q.bool("trafficSourceApproved", p.TrafficSourceApproved)
	q.str("status", string(p.Status))
	q.str("status2", string(p.Status2))
	q.int("invoiceId", p.InvoiceID)
	q.str("voidReason", string(p.VoidReason))
	q.str("amendedReason", string(p.AmendedReason))
	return q
}

// AffiliateTransactionsParams choose an affiliate's transactions, as
// [MerchantTransactionsParams] do a merchant's; the filters are the
// affiliate view's.
type AffiliateTransactionsParams struct {
	From, To            time.Time    // whole days, inclusive; only the calendar date counts
	DateProperty        DateProperty // which date the range applies to; DateCreated when empty
	MerchantID          int64
	MerchantName        string
	TrafficType         TrafficType
	TrafficSource       string
	CreativeType        CreativeType
	CreativeID          int64
	CreativeName        string
	CustomerCountryCode string
	CustomerCountryName string
	CustomerType        CustomerType
	OrderID             string
	// UniqueID ... UniqueID4 match the sub-ids the affiliate put on its
	// links.
	UniqueID, UniqueID2, UniqueID3, UniqueID4 string
	TrackingMethod                            TrackingMethod
	TrafficSourceApproved                     *bool
	// Deprecated: Status matches the coarse status; use Status2.
	Status     TransactionStatus
	Status2    TransactionStatus2
	InvoiceID  int64
	VoidReason VoidReason
}

// query returns the parameters in the interface's order.
func (p *AffiliateTransactionsParams) query() query {
	var q query
	q.date("fromDate", p.From)
	q.date("toDate", p.To)
	q.str("dateProperty", string(p.DateProperty))
	q.int("merchantId", p.MerchantID)
	q.str("merchantName", p.MerchantName)
	q.str("trafficType", string(p.TrafficType))
	q.str("trafficSource", p.TrafficSource)
	q.str("creativeType", string(p.CreativeType))
	q.int("creativeId", p.CreativeID)
	q.str("creativeName", p.CreativeName)
	q.str("customerCountryCode", p.CustomerCountryCode)
	q.str("customerCountryName", p.CustomerCountryName)
	q.str("customerType", string(p.CustomerType))
	q.str("orderId", p.OrderID)
	q.str("uniqueId", p.UniqueID)
	q.str("uniqueId2", p.UniqueID2)
	q.str("uniqueId3", p.UniqueID3)
	q.str("uniqueId4", p.UniqueID4)
	q.str("trackingMethod", string(p.TrackingMethod))
	q.bool("trafficSourceApproved", p.TrafficSourceApproved)
	q.str("status", string(p.Status))
	q.str("status2", string(p.Status2))
	q.int("invoiceId", p.InvoiceID)
	q.str("voidReason", string(p.VoidReason))
	return q
}

// Transactions lists the merchant's transactions whose date falls in the
// range, ordered by that date, then Id. There is no paging: the server
// answers the whole range, so split a long one into several calls.
func (m MerchantAPI) Transactions(ctx context.Context, p MerchantTransactionsParams) ([]Transaction, error) {
	return list[Transaction](ctx, m.c, "/V1/Merchant/Transactions", p.query())
}

// Transaction returns one of the merchant's transactions; another
// merchant's is a 404, as one that does not exist.
func (m MerchantAPI) Transaction(ctx context.Context, id int64) (*Transaction, error) {
	return one[Transaction](ctx, m.c, idPath("/V1/Merchant/Transactions", id), nil)
}

// Transactions lists the affiliate's transactions whose date falls in
// the range, with every merchant, ordered by that date, then Id.
func (a AffiliateAPI) Transactions(ctx context.Context, p AffiliateTransactionsParams) ([]AffiliateTransaction, error) {
	return list[AffiliateTransaction](ctx, a.c, "/V1/Affiliate/Transactions", p.query())
}

// Transaction returns one of the affiliate's transactions; another
// affiliate's is a 404.
func (a AffiliateAPI) Transaction(ctx context.Context, id int64) (*AffiliateTransaction, error) {
	return one[AffiliateTransaction](ctx, a.c, idPath("/V1/Affiliate/Transactions", id), nil)
}

package afftrack

import (
	"context"
	"strings"
	"time"
)

// Transaction is a sale (or lead) an affiliate referred to a merchant.
// Its fields follow the interface's Transaction in order.
type Transaction struct {
	ID                    int64
	MerchantID            int64
	MerchantName          string // from the merchant's account; filled by the affiliate reads only
	MerchantAvatarURL     string // from the merchant's account; filled by the affiliate reads only
	DateCreated           time.Time
	DateModified          time.Time
	ConsumptionDate       time.Time
	ValidationDate        time.Time
	AffiliateID           int64
	AffiliateContactName  string // from the affiliate's account
	AffiliateBusinessName string // from the affiliate's account
	TrafficType           TrafficType
	TrafficSource         string
	CreativeType          CreativeType
	CreativeID            Null[int64]
	CreativeName          Null[string]
	CustomerCountryCode   string
	CustomerCountryName   string
	CustomerIPAddress     string
	CustomerType          CustomerType
	OrderID               string
	AdditionalNotes       Null[string]
	// UniqueIDs are the click's UniqueId ... UniqueId4, the affiliate's
	// own sub-ids; filled by the affiliate reads only.
	UniqueIDs             [4]Null[string]
	TrackingMethod        TrackingMethod
	SaleValue             Money
	Commission            Money
	OverrideFee           Money
	ReportedCurrencyCode  string
	ReportedCurrencyName  string
	ReportedSaleValue     Money
	TrafficSourceApproved bool
	Status2               TransactionStatus2
	InvoiceID             Null[int64]
	VoidReason            VoidReason    // 0 is null
	AmendedReason         AmendedReason // 0 is null
	CouponCode            Null[string]
	PlacementID           Null[int64]
	PlacementName         Null[string]
	Items                 []TransactionItem
}

// Status returns the deprecated Status, derived from Status2.
func (t *Transaction) Status() TransactionStatus { return t.Status2.Status() }

// TransactionItem is one line of a transaction's cart.
type TransactionItem struct {
	Sku                string
	Quantity           int64
	ReportedSaleValue  ItemMoney
	SaleValue          ItemMoney
	Commission         ItemMoney
	Name               string
	Brand              string
	Category           string
	CartItemReference  Null[string]
	CartItemReference2 Null[string]
	CartItemReference3 Null[string]
	CartItemReference4 Null[string]
}

// Validate checks the status invariants: Paid has an InvoiceId; Void has a
// VoidReason and no InvoiceId; no other status has an InvoiceId; only Void
// has a VoidReason. The error names the offending field.
func (t *Transaction) Validate() error {
	switch {
	case t.Status2 == 0:
		return Errorf(EINVALID, "Status2: is required; use one of %s", TransactionStatus2Names())
	case t.Status2 == Status2Paid && !t.InvoiceID.Valid:
		return Errorf(EINVALID, "InvoiceId: a Paid transaction must have an InvoiceId")
	case t.Status2 != Status2Paid && t.InvoiceID.Valid:
		return Errorf(EINVALID, "InvoiceId: only a Paid transaction has an InvoiceId, this one is %s", t.Status2)
	case t.Status2 == Status2Void && t.VoidReason == 0:
		return Errorf(EINVALID, "VoidReason: a Void transaction must have a VoidReason")
	case t.Status2 != Status2Void && t.VoidReason != 0:
		return Errorf(EINVALID, "VoidReason: only a Void transaction has a VoidReason, this one is %s", t.Status2)
	}
	return nil
}

// TransactionStatusChange moves one of a merchant's transactions from one
// Status2 to another, stamping DateModified. A store applies it only while
// the transaction is still From, so concurrent changes cannot both win.
type TransactionStatusChange struct {
	MerchantID, ID int64
	From, To       TransactionStatus2
	VoidReason     VoidReason  // required when To is Void
	InvoiceID      Null[int64] // required when To is Paid
	At             time.Time   // the new DateModified
}

// Validate checks that the change ends in a state that keeps the
// transaction's invariants (see Transaction.Validate).
func (c *TransactionStatusChange) Validate() error {
	if c.From == 0 || c.To == 0 {
		return Errorf(EINVALID, "Status2: is required; use one of %s", TransactionStatus2Names())
	}
	t := Transaction{Status2: c.To, VoidReason: c.VoidReason, InvoiceID: c.InvoiceID}
	return t.Validate()
}

// DateProperty names the transaction date a list's range applies to.
type DateProperty uint8

// DateProperty values.
const (
	ByDateCreated DateProperty = iota
	ByDateModified
)

// TransactionFilter selects a merchant's transactions. From and To are
// whole days; a transaction matches when From 00:00 <= its date < To+1 day
// 00:00. Every other field that is set must match too.
type TransactionFilter struct {
	MerchantID   int64
	From, To     time.Time // dates at midnight, From <= To
	DateProperty DateProperty

	AffiliateID           Null[int64]
	AffiliateContactName  Null[string]
	AffiliateBusinessName Null[string]
	TrafficType           TrafficType // 0: any
	TrafficSource         Null[string]
	CreativeType          CreativeType // 0: any
	CreativeID            Null[int64]
	CreativeName          Null[string]
	CustomerCountryCode   Null[string]
	CustomerCountryName   Null[string]
	CustomerIPAddress     Null[string]
	CustomerType          CustomerType // 0: any
	OrderID               Null[string]
	TrackingMethod        TrackingMethod // 0: any
	TrafficSourceApproved Null[bool]
	Status                TransactionStatus  // 0: any
	Status2               TransactionStatus2 // 0: any
	InvoiceID             Null[int64]
	VoidReason            VoidReason    // 0: any
	AmendedReason         AmendedReason // 0: any
}

// Until returns the exclusive end of the filter's range: the midnight after To.
func (f *TransactionFilter) Until() time.Time { return f.To.AddDate(0, 0, 1) }

// Match reports whether t satisfies every filter other than the merchant
// and the date range, which a store applies in its query. Text filters
// match the whole value, ignoring case; a filter on a nullable field never
// matches null.
func (f *TransactionFilter) Match(t *Transaction) bool {
	return (!f.AffiliateID.Valid || f.AffiliateID.Value == t.AffiliateID) &&
		textMatch(f.AffiliateContactName, t.AffiliateContactName, true) &&
		textMatch(f.AffiliateBusinessName, t.AffiliateBusinessName, true) &&
		(f.TrafficType == 0 || f.TrafficType == t.TrafficType) &&
		textMatch(f.TrafficSource, t.TrafficSource, true) &&
		(f.CreativeType == 0 || f.CreativeType == t.CreativeType) &&
		(!f.CreativeID.Valid || t.CreativeID == f.CreativeID) &&
		textMatch(f.CreativeName, t.CreativeName.Value, t.CreativeName.Valid) &&
		textMatch(f.CustomerCountryCode, t.CustomerCountryCode, true) &&
		textMatch(f.CustomerCountryName, t.CustomerCountryName, true) &&
		textMatch(f.CustomerIPAddress, t.CustomerIPAddress, true) &&
		(f.CustomerType == 0 || f.CustomerType == t.CustomerType) &&
		textMatch(f.OrderID, t.OrderID, true) &&
		(f.TrackingMethod == 0 || f.TrackingMethod == t.TrackingMethod) &&
		(!f.TrafficSourceApproved.Valid || f.TrafficSourceApproved.Value == t.TrafficSourceApproved) &&
		(f.Status == 0 || f.Status == t.Status()) &&
		(f.Status2 == 0 || f.Status2 == t.Status2) &&
		(!f.InvoiceID.Valid || t.InvoiceID == f.InvoiceID) &&
		(f.VoidReason == 0 || f.VoidReason == t.VoidReason) &&
		(f.AmendedReason == 0 || f.AmendedReason == t.AmendedReason)
}

// textMatch reports whether an optional text filter matches a value that
// may be null (valid false).
func textMatch(filter Null[string], value string, valid bool) bool {
	return !filter.Valid || (valid && strings.EqualFold(filter.Value, value))
}

// AffiliateTransactionFilter selects an affiliate's transactions, of
// every merchant, whatever its membership or the merchant's status now.
// From, To and DateProperty work as in TransactionFilter; every other field
// that is set must match too. It is a type of its own rather than
// TransactionFilter with an account kind: the two views filter on
// different fields (the merchant's name, the UniqueIds; no AmendedReason).
type AffiliateTransactionFilter struct {
	AffiliateID  int64
	From, To     time.Time // dates at midnight, From <= To
	DateProperty DateProperty

	MerchantID            Null[int64]
	MerchantName          Null[string]
	TrafficType           TrafficType // 0: any
	TrafficSource         Null[string]
	CreativeType          CreativeType // 0: any
	CreativeID            Null[int64]
	CreativeName          Null[string]
	CustomerCountryCode   Null[string]
	CustomerCountryName   Null[string]
	CustomerType          CustomerType // 0: any
	OrderID               Null[string]
	UniqueIDs             [4]Null[string] // uniqueId ... uniqueId4
	TrackingMethod        TrackingMethod  // 0: any
	TrafficSourceApproved Null[bool]
	Status                TransactionStatus  // 0: any
	Status2               TransactionStatus2 // 0: any
	InvoiceID             Null[int64]
	VoidReason            VoidReason // 0: any
}

// Until returns the exclusive end of the filter's range: the midnight after To.
func (f *AffiliateTransactionFilter) Until() time.Time { return f.To.AddDate(0, 0, 1) }

// Match reports whether t, as the affiliate reads return it, satisfies
// every filter other than the affiliate and the date range, which a store
// applies in its query. Text filters match the whole value, ignoring case;
// a filter on a nullable field never matches null.
func (f *AffiliateTransactionFilter) Match(t *Transaction) bool {
	for i, u := range f.UniqueIDs {
		if !textMatch(u, t.UniqueIDs[i].Value, t.UniqueIDs[i].Valid) {
			return false
		}
	}
	return (!f.MerchantID.Valid || f.MerchantID.Value == t.MerchantID) &&
		textMatch(f.MerchantName, t.MerchantName, true) &&
		(f.TrafficType == 0 || f.TrafficType == t.TrafficType) &&
		textMatch(f.TrafficSource, t.TrafficSource, true) &&
		(f.CreativeType == 0 || f.CreativeType == t.CreativeType) &&
		(!f.CreativeID.Valid || t.CreativeID == f.CreativeID) &&
		textMatch(f.CreativeName, t.CreativeName.Value, t.CreativeName.Valid) &&
		textMatch(f.CustomerCountryCode, t.CustomerCountryCode, true) &&
		textMatch(f.CustomerCountryName, t.CustomerCountryName, true) &&
		(f.CustomerType == 0 || f.CustomerType == t.CustomerType) &&
		textMatch(f.OrderID, t.OrderID, true) &&
		(f.TrackingMethod == 0 || f.TrackingMethod == t.TrackingMethod) &&
		(!f.TrafficSourceApproved.Valid || f.TrafficSourceApproved.Value == t.TrafficSourceApproved) &&
		(f.Status == 0 || f.Status == t.Status()) &&
		(f.Status2 == 0 || f.Status2 == t.Status2) &&
		(!f.InvoiceID.Valid || t.InvoiceID == f.InvoiceID) &&
		(f.VoidReason == 0 || f.VoidReason == t.VoidReason)
}

// TransactionService reads transactions: a merchant's (the merchant view)
// and an affiliate's (the affiliate view).
type TransactionService interface {
	// FindTransactionByID returns the merchant's transaction with the
	// given id, or ENOTFOUND if it does not exist or is another merchant's.
	FindTransactionByID(ctx context.Context, merchantID, id int64) (*Transaction, error)

	// FindTransactions calls fn with each matching transaction in order of
	// the date property, then Id, as it reads them, so no list is held in
	// memory. The *Transaction (and its Items) is reused between calls: fn
	// must not keep it. An error from fn stops the read and is returned.
	FindTransactions(ctx context.Context, f TransactionFilter, fn func(*Transaction) error) error

	// FindAffiliateTransactionByID returns the affiliate's transaction
	// with the given id, of any merchant, or ENOTFOUND if it does not
	// exist or is another affiliate's. It fills what the affiliate view
	// shows: MerchantName, MerchantAvatarURL and UniqueIDs, but not the
	// affiliate's names, CustomerIPAddress, OverrideFee, PlacementID or
	// PlacementName, which stay zero (the view has no placements).
	FindAffiliateTransactionByID(ctx context.Context, affiliateID, id int64) (*Transaction, error)

	// FindAffiliateTransactions is FindTransactions for an affiliate: it
	// streams the affiliate's matching transactions, filled as by
	// FindAffiliateTransactionByID, in order of the date property, then
	// Id, in one reused value that fn must not keep.
	FindAffiliateTransactions(ctx context.Context, f AffiliateTransactionFilter, fn func(*Transaction) error) error
}

// TransactionStatusService changes transactions' statuses.
type TransactionStatusService interface {
	// UpdateTransactionStatus applies c if the transaction is still
	// c.From: ENOTFOUND if the merchant has no such transaction,
	// ECONFLICT if its status is no longer c.From.
	UpdateTransactionStatus(ctx context.Context, c TransactionStatusChange) error
}

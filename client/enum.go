package client

// The enumerations of the interface, as string types. The constants are
// the values the contract names; a value outside them still decodes, so
// a server that grows a value does not break an older client.

// TrafficType is the kind of an affiliate's traffic source; it is also
// the Type of a [TrafficSource].
type TrafficType string

// The traffic types.
const (
	TrafficTypeWebsite         TrafficType = "Website"
	TrafficTypeEmailList       TrafficType = "Email List"
	TrafficTypeSocialMediaPage TrafficType = "Social Media Page"
	TrafficTypeSearch          TrafficType = "Search"
	TrafficTypeMobileApp       TrafficType = "Mobile App"
	TrafficTypeOther           TrafficType = "Other"
)

// CreativeType is what the customer clicked.
type CreativeType string

// The creative types.
const (
	CreativeTypeTextLink  CreativeType = "Text Link"
	CreativeTypeBanner    CreativeType = "Banner"
	CreativeTypeCoupon    CreativeType = "Coupon"
	CreativeTypePromotion CreativeType = "Promotion"
	CreativeTypeDataFeed  CreativeType = "Data Feed"
)

// CustomerType says whether the customer bought from the merchant before.
type CustomerType string

// The customer types.
const (
	CustomerTypeNew    CustomerType = "New"
	CustomerTypeReturn CustomerType = "Return"
)

// TrackingMethod is how the sale was attributed to the affiliate.
type TrackingMethod string

// The tracking methods.
const (
	TrackingMethodAffiliate TrackingMethod = "Affiliate"
	TrackingMethodClickless TrackingMethod = "Clickless"
	TrackingMethodCookie    TrackingMethod = "Cookie"
	TrackingMethodManual    TrackingMethod = "Manual"
	TrackingMethodMobileApp TrackingMethod = "Mobile App"
	TrackingMethodServer    TrackingMethod = "Server"
	TrackingMethodOther     TrackingMethod = "Other"
)

// TransactionStatus is the deprecated, coarse status of a transaction,
// derived from its [TransactionStatus2]; it cannot tell Locked from
// Pending or Paid from Approved.
type TransactionStatus string

// The coarse statuses.
const (
	StatusPending  TransactionStatus = "Pending"
	StatusApproved TransactionStatus = "Approved"
	StatusVoid     TransactionStatus = "Void"
)

// TransactionStatus2 is a transaction's state in its lifecycle: Pending
// until the merchant approves it or its validation date comes (Locked),
// Approved once the network has the merchant's money, Paid once invoiced
// to the affiliate, or Void.
type TransactionStatus2 string

// The transaction states.
const (
	Status2Pending  TransactionStatus2 = "Pending"
	Status2Locked   TransactionStatus2 = "Locked"
	Status2Approved TransactionStatus2 = "Approved"
	Status2Paid     TransactionStatus2 = "Paid"
	Status2Void     TransactionStatus2 = "Void"
)

// VoidReason says why a transaction was voided.
type VoidReason string

// The void reasons.
const (
	VoidReasonAttributedToDifferentChannel VoidReason = "Attributed to Different Channel"
	VoidReasonCancelledOrder               VoidReason = "Cancelled Order"
	VoidReasonComplianceBreach             VoidReason = "Compliance Breach"
	VoidReasonFraudulentTransaction        VoidReason = "Fraudulent Transaction"
	VoidReasonNonCommissionable            VoidReason = "Non-Commissionable Transaction"
	VoidReasonOrderNonfulfillment          VoidReason = "Order Nonfulfillment"
	VoidReasonPaymentAuthorisationFailed   VoidReason = "Payment Authorisation Failed"
	VoidReasonDuplicateOrder               VoidReason = "Repeated / Duplicate Order"
	VoidReasonReturnedOrder                VoidReason = "Returned Order / Unclaimed Shipment"
	VoidReasonSelfReferral                 VoidReason = "Self Referral"
	VoidReasonTestTransaction              VoidReason = "Test Transaction"
)

// AmendedReason says why a merchant changed a transaction's amounts.
type AmendedReason string

// The amended reasons.
const (
	AmendedReasonCartItemsEdited     AmendedReason = "Cart Items Edited"
	AmendedReasonIncorrectCommission AmendedReason = "Incorrect Commission"
	AmendedReasonIncorrectCurrency   AmendedReason = "Incorrect Currency"
	AmendedReasonIncorrectSaleValue  AmendedReason = "Incorrect Sale Value"
	AmendedReasonPartialOrderReturn  AmendedReason = "Partial Order Return"
)

// DateProperty names the transaction date a list's range applies to.
type DateProperty string

// The date properties; the empty DateProperty means DateCreated.
const (
	ByDateCreated  DateProperty = "DateCreated"
	ByDateModified DateProperty = "DateModified"
)

// MerchantType is how a merchant's program pays: its CommissionType.
type MerchantType string

// The merchant types.
const (
	PercentPerSale MerchantType = "Percent per Sale"
	DollarPerSale  MerchantType = "Dollar per Sale"
	DollarPerLead  MerchantType = "Dollar per Lead"
)

// MerchantStatus is an affiliate's membership of a merchant's program,
// as the affiliate sees it.
type MerchantStatus string

// The membership statuses; only Joined lets the affiliate earn.
const (
	MerchantJoined    MerchantStatus = "Joined"
	MerchantInvited   MerchantStatus = "Invited"
	MerchantNotJoined MerchantStatus = "Not Joined"
	MerchantPending   MerchantStatus = "Pending"
)

// AffiliateStatus is an affiliate's membership of the program, as the
// merchant sees it: Approved is a Joined membership.
type AffiliateStatus string

// The affiliate statuses.
const (
	AffiliateApproved AffiliateStatus = "Approved"
	AffiliateInvited  AffiliateStatus = "Invited"
	AffiliatePending  AffiliateStatus = "Pending"
)

// TrafficSourceStatus is the merchant's verdict on a traffic source.
type TrafficSourceStatus string

// The traffic source statuses.
const (
	TrafficSourceApproved TrafficSourceStatus = "Approved"
	TrafficSourceDeclined TrafficSourceStatus = "Declined"
	TrafficSourcePending  TrafficSourceStatus = "Pending"
)

// ValidationAction is what a merchant does to a Pending transaction.
type ValidationAction string

// The validation actions: Approve locks it, Void voids it (with a
// VoidReason), Amend changes its amounts (with an AmendedReason).
const (
	ActionApprove ValidationAction = "Approve"
	ActionVoid    ValidationAction = "Void"
	ActionAmend   ValidationAction = "Amend"
)

package afftrack

import "strings"

// The interface's enumerations are small unsigned integers whose zero value
// means "none" (null, for the nullable ones). The numbers are stored in the
// database, so an existing value never changes its number; new values are
// appended.

// TrafficType is the kind of an affiliate's traffic source.
type TrafficType uint8

// TrafficType values.
const (
	TrafficTypeWebsite TrafficType = iota + 1
	TrafficTypeEmailList
	TrafficTypeSocialMediaPage
	TrafficTypeSearch
	TrafficTypeMobileApp
	TrafficTypeOther
)

var trafficTypeNames = []string{"", "Website", "Email List", "Social Media Page", "Search", "Mobile App", "Other"}

// CreativeType is the kind of creative that led to a transaction.
type CreativeType uint8

// CreativeType values.
const (
	CreativeTypeTextLink CreativeType = iota + 1
	CreativeTypeBanner
	CreativeTypeCoupon
	CreativeTypePromotion
	CreativeTypeDataFeed
)

var creativeTypeNames = []string{"", "Text Link", "Banner", "Coupon", "Promotion", "Data Feed"}

// CustomerType says whether the customer had bought from the merchant before.
type CustomerType uint8

// CustomerType values.
const (
	CustomerTypeNew CustomerType = iota + 1
	CustomerTypeReturn
)

var customerTypeNames = []string{"", "New", "Return"}

// TrackingMethod is how the sale was attributed to the affiliate.
type TrackingMethod uint8

// TrackingMethod values.
const (
	TrackingMethodAffiliate TrackingMethod = iota + 1
	TrackingMethodClickless
	TrackingMethodCookie
	TrackingMethodManual
	TrackingMethodMobileApp
	TrackingMethodServer
	TrackingMethodOther
)

var trackingMethodNames = []string{"", "Affiliate", "Clickless", "Cookie", "Manual", "Mobile App", "Server", "Other"}

// TransactionStatus2 is the stored state of a transaction.
type TransactionStatus2 uint8

// TransactionStatus2 values.
const (
	Status2Pending TransactionStatus2 = iota + 1
	Status2Locked
	Status2Approved
	Status2Paid
	Status2Void
)

var status2Names = []string{"", "Pending", "Locked", "Approved", "Paid", "Void"}

// TransactionStatus is the deprecated status, derived from TransactionStatus2
// and never stored.
type TransactionStatus uint8

// TransactionStatus values.
const (
	StatusPending TransactionStatus = iota + 1
	StatusApproved
	StatusVoid
)

var statusNames = []string{"", "Pending", "Approved", "Void"}

// Status derives the deprecated Status from s: Pending and Locked give
// Pending, Approved and Paid give Approved, Void gives Void.
func (s TransactionStatus2) Status() TransactionStatus {
	switch s {
	case Status2Pending, Status2Locked:
		return StatusPending
	case Status2Approved, Status2Paid:
		return StatusApproved
	case Status2Void:
		return StatusVoid
	}
	return 0
}

// VoidReason says why a transaction was voided. Zero is null.
type VoidReason uint8

// VoidReason values.
const (
	VoidReasonAttributedToDifferentChannel VoidReason = iota + 1
	VoidReasonCancelledOrder
	VoidReasonComplianceBreach
	VoidReasonFraudulentTransaction
	VoidReasonNonCommissionableTransaction
	VoidReasonOrderNonfulfillment
	VoidReasonPaymentAuthorisationFailed
	VoidReasonRepeatedDuplicateOrder
	VoidReasonReturnedOrderUnclaimedShipment
	VoidReasonSelfReferral
	VoidReasonTestTransaction
)

var voidReasonNames = []string{"", "Attributed to Different Channel", "Cancelled Order", "Compliance Breach",
	"Fraudulent Transaction", "Non-Commissionable Transaction", "Order Nonfulfillment",
	"Payment Authorisation Failed", "Repeated / Duplicate Order", "Returned Order / Unclaimed Shipment",
	"Self Referral", "Test Transaction"}

// AmendedReason says why a transaction was amended. Zero is null.
type AmendedReason uint8

// AmendedReason values.
const (
	AmendedReasonCartItemsEdited AmendedReason = iota + 1
	AmendedReasonIncorrectCommission
	AmendedReasonIncorrectCurrency
	AmendedReasonIncorrectSaleValue
	AmendedReasonPartialOrderReturn
)

var amendedReasonNames = []string{"", "Cart Items Edited", "Incorrect Commission", "Incorrect Currency",
	"Incorrect Sale Value", "Partial Order Return"}

// AccountStatus is the state of a merchant or affiliate account. Only an
// Active account's keys authenticate.
type AccountStatus uint8

// AccountStatus values.
const (
	AccountActive AccountStatus = iota + 1
	AccountSuspended
	AccountClosed
)

var accountStatusNames = []string{"", "Active", "Suspended", "Closed"}

// MembershipStatus is the state of an affiliate's relation to a merchant.
// Only Joined lets the affiliate see the merchant's banners.
type MembershipStatus uint8

// MembershipStatus values.
const (
	MembershipJoined MembershipStatus = iota + 1
	MembershipInvited
	MembershipNotJoined
	MembershipPending
)

var membershipStatusNames = []string{"", "Joined", "Invited", "Not Joined", "Pending"}

// MerchantType is how a program pays: v1-surface.md section 2.2's
// CommissionType of a merchant.
type MerchantType uint8

// MerchantType values.
const (
	MerchantTypePercentPerSale MerchantType = iota + 1
	MerchantTypeDollarPerSale
	MerchantTypeDollarPerLead
)

var merchantTypeNames = []string{"", "Percent per Sale", "Dollar per Sale", "Dollar per Lead"}

// TrafficSourceStatus is a merchant's verdict on one of an affiliate's
// traffic sources.
type TrafficSourceStatus uint8

// TrafficSourceStatus values.
const (
	TrafficSourceApproved TrafficSourceStatus = iota + 1
	TrafficSourceDeclined
	TrafficSourcePending
)

var trafficSourceStatusNames = []string{"", "Approved", "Declined", "Pending"}

// String returns the value's name as the interface writes it; "" for zero.
func (v TrafficType) String() string { return enumName(trafficTypeNames, v) }

// String returns the value's name as the interface writes it; "" for zero.
func (v CreativeType) String() string { return enumName(creativeTypeNames, v) }

// String returns the value's name as the interface writes it; "" for zero.
func (v CustomerType) String() string { return enumName(customerTypeNames, v) }

// String returns the value's name as the interface writes it; "" for zero.
func (v TrackingMethod) String() string { return enumName(trackingMethodNames, v) }

// String returns the value's name as the interface writes it; "" for zero.
func (v TransactionStatus2) String() string { return enumName(status2Names, v) }

// TransactionStatus2Values returns every TransactionStatus2, in order.
func TransactionStatus2Values() []TransactionStatus2 {
	vs := make([]TransactionStatus2, 0, len(status2Names)-1)
	for i := 1; i < len(status2Names); i++ {
		vs = append(vs, TransactionStatus2(i))
	}
	return vs
}

// String returns the value's name as the interface writes it; "" for zero.
func (v TransactionStatus) String() string { return enumName(statusNames, v) }

// String returns the value's name as the interface writes it; "" for zero.
func (v VoidReason) String() string { return enumName(voidReasonNames, v) }

// String returns the value's name as the interface writes it; "" for zero.
func (v AmendedReason) String() string { return enumName(amendedReasonNames, v) }

// String returns the value's name as the interface writes it; "" for zero.
func (v AccountStatus) String() string { return enumName(accountStatusNames, v) }

// String returns the value's name as the interface writes it; "" for zero.
func (v MembershipStatus) String() string { return enumName(membershipStatusNames, v) }

// String returns the value's name as the interface writes it; "" for zero.
func (v MerchantType) String() string { return enumName(merchantTypeNames, v) }

// String returns the value's name as the interface writes it; "" for zero.
func (v TrafficSourceStatus) String() string { return enumName(trafficSourceStatusNames, v) }

// ParseMerchantType returns the MerchantType named s, ignoring case.
func ParseMerchantType(s string) (MerchantType, bool) {
	return parseEnum[MerchantType](merchantTypeNames, s)
}

// ParseTrafficSourceStatus returns the TrafficSourceStatus named s, ignoring case.
func ParseTrafficSourceStatus(s string) (TrafficSourceStatus, bool) {
	return parseEnum[TrafficSourceStatus](trafficSourceStatusNames, s)
}

// ParseTrafficType returns the TrafficType named s, ignoring case.
func ParseTrafficType(s string) (TrafficType, bool) {
	return parseEnum[TrafficType](trafficTypeNames, s)
}

// ParseCreativeType returns the CreativeType named s, ignoring case.
func ParseCreativeType(s string) (CreativeType, bool) {
	return parseEnum[CreativeType](creativeTypeNames, s)
}

// ParseCustomerType returns the CustomerType named s, ignoring case.
func ParseCustomerType(s string) (CustomerType, bool) {
	return parseEnum[CustomerType](customerTypeNames, s)
}

// ParseTrackingMethod returns the TrackingMethod named s, ignoring case.
func ParseTrackingMethod(s string) (TrackingMethod, bool) {
	return parseEnum[TrackingMethod](trackingMethodNames, s)
}

// ParseTransactionStatus2 returns the TransactionStatus2 named s, ignoring case.
func ParseTransactionStatus2(s string) (TransactionStatus2, bool) {
	return parseEnum[TransactionStatus2](status2Names, s)
}

// ParseTransactionStatus returns the TransactionStatus named s, ignoring case.
func ParseTransactionStatus(s string) (TransactionStatus, bool) {
	return parseEnum[TransactionStatus](statusNames, s)
}

// ParseVoidReason returns the VoidReason named s, ignoring case.
func ParseVoidReason(s string) (VoidReason, bool) { return parseEnum[VoidReason](voidReasonNames, s) }

// ParseAmendedReason returns the AmendedReason named s, ignoring case.
func ParseAmendedReason(s string) (AmendedReason, bool) {
	return parseEnum[AmendedReason](amendedReasonNames, s)
}

// ParseAccountStatus returns the AccountStatus named s, ignoring case.
func ParseAccountStatus(s string) (AccountStatus, bool) {
	return parseEnum[AccountStatus](accountStatusNames, s)
}

// ParseMembershipStatus returns the MembershipStatus named s, ignoring case.
func ParseMembershipStatus(s string) (MembershipStatus, bool) {
	return parseEnum[MembershipStatus](membershipStatusNames, s)
}

// enumList joins the value names of a name table, for error messages that
// say what is accepted.
func enumList(names []string) string { return strings.Join(names[1:], ", ") }

// TrafficTypeNames lists every TrafficType name in order, comma-separated.
func TrafficTypeNames() string { return enumList(trafficTypeNames) }

// CreativeTypeNames lists every CreativeType name in order, comma-separated.
func CreativeTypeNames() string { return enumList(creativeTypeNames) }

// CustomerTypeNames lists every CustomerType name in order, comma-separated.
func CustomerTypeNames() string { return enumList(customerTypeNames) }

// TrackingMethodNames lists every TrackingMethod name in order, comma-separated.
func TrackingMethodNames() string { return enumList(trackingMethodNames) }

// TransactionStatus2Names lists every TransactionStatus2 name in order, comma-separated.
func TransactionStatus2Names() string { return enumList(status2Names) }

// TransactionStatusNames lists every TransactionStatus name in order, comma-separated.
func TransactionStatusNames() string { return enumList(statusNames) }

// VoidReasonNames lists every VoidReason name in order, comma-separated.
func VoidReasonNames() string { return enumList(voidReasonNames) }

// AmendedReasonNames lists every AmendedReason name in order, comma-separated.
func AmendedReasonNames() string { return enumList(amendedReasonNames) }

// AccountStatusNames lists every AccountStatus name in order, comma-separated.
func AccountStatusNames() string { return enumList(accountStatusNames) }

// MembershipStatusNames lists every MembershipStatus name in order, comma-separated.
func MembershipStatusNames() string { return enumList(membershipStatusNames) }

// MerchantTypeNames lists every MerchantType name in order, comma-separated.
func MerchantTypeNames() string { return enumList(merchantTypeNames) }

// TrafficSourceStatusNames lists every TrafficSourceStatus name in order, comma-separated.
func TrafficSourceStatusNames() string { return enumList(trafficSourceStatusNames) }

func enumName[T ~uint8](names []string, v T) string {
	if int(v) < len(names) {
		return names[v]
	}
	return ""
}

func parseEnum[T ~uint8](names []string, s string) (T, bool) {
	for i := 1; i < len(names); i++ {
		if strings.EqualFold(names[i], s) {
			return T(i), true
		}
	}
	return 0, false
}

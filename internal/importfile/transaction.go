package importfile

import (
	"encoding/json"
	"fmt"

	"github.com/afftrack/afftrack"
)

// parseTransaction reads a transaction in the API's JSON fields plus
// MerchantId, and the affiliate view's (v1-surface.md section 3).
// Status, Paid, AffiliateContactName, AffiliateBusinessName, MerchantName
// and MerchantAvatarUrl are derived by the service; given, they must
// agree (Status and Paid here, the names in the store). DateModified,
// ConsumptionDate and ValidationDate default to DateCreated; text and
// amounts default to empty and zero, UniqueId ... UniqueId4 to null.
func parseTransaction(r *record) afftrack.TransactionRecord {
	var rec afftrack.TransactionRecord
	t := &rec.Transaction
	t.ID = r.id("Id")
	t.MerchantID = r.id("MerchantId")
	t.DateCreated = r.datetime("DateCreated", true, t.DateCreated)
	t.DateModified = r.datetime("DateModified", false, t.DateCreated)
	t.ConsumptionDate = r.datetime("ConsumptionDate", false, t.DateCreated)
	t.ValidationDate = r.datetime("ValidationDate", false, t.DateCreated)
	t.AffiliateID = r.id("AffiliateId")
	rec.ClaimedContactName = r.nullStr("AffiliateContactName", false)
	rec.ClaimedBusinessName = r.nullStr("AffiliateBusinessName", false)
	t.TrafficType = enum(r, "TrafficType", true, afftrack.ParseTrafficType, afftrack.TrafficTypeNames())
	t.TrafficSource = r.str("TrafficSource", false)
	t.CreativeType = enum(r, "CreativeType", true, afftrack.ParseCreativeType, afftrack.CreativeTypeNames())
	t.CreativeID = r.nullInt("CreativeId", false)
	t.CreativeName = r.nullStr("CreativeName", false)
	t.CustomerCountryCode = r.str("CustomerCountryCode", false)
	t.CustomerCountryName = r.str("CustomerCountryName", false)
	t.CustomerIPAddress = r.str("CustomerIpAddress", false)
	t.CustomerType = enum(r, "CustomerType", true, afftrack.ParseCustomerType, afftrack.CustomerTypeNames())
	t.OrderID = r.str("OrderId", false)
	t.AdditionalNotes = r.nullStr("AdditionalNotes", false)
	t.TrackingMethod = enum(r, "TrackingMethod", true, afftrack.ParseTrackingMethod, afftrack.TrackingMethodNames())
	t.SaleValue = r.money("SaleValue")
	t.Commission = r.money("Commission")
	t.OverrideFee = r.money("OverrideFee")
	t.ReportedCurrencyCode = r.str("ReportedCurrencyCode", false)
	t.ReportedCurrencyName = r.str("ReportedCurrencyName", false)
	t.ReportedSaleValue = r.money("ReportedSaleValue")
	t.TrafficSourceApproved = r.bool("TrafficSourceApproved")
	status := enum(r, "Status", false, afftrack.ParseTransactionStatus, afftrack.TransactionStatusNames())
	t.Status2 = enum(r, "Status2", true, afftrack.ParseTransactionStatus2, afftrack.TransactionStatus2Names())
	t.InvoiceID = r.nullInt("InvoiceId", false)
	t.VoidReason = enum(r, "VoidReason", false, afftrack.ParseVoidReason, afftrack.VoidReasonNames())
	t.AmendedReason = enum(r, "AmendedReason", false, afftrack.ParseAmendedReason, afftrack.AmendedReasonNames())
	t.CouponCode = r.nullStr("CouponCode", false)
	t.PlacementID = r.nullInt("PlacementId", false)
	t.PlacementName = r.nullStr("PlacementName", false)
	t.Items = parseItems(r)
	rec.ClaimedMerchantName = r.nullStr("MerchantName", false)
	rec.ClaimedMerchantAvatarURL = r.nullStr("MerchantAvatarUrl", false)
	for i, name := range uniqueIDFields {
		t.UniqueIDs[i] = r.shortText(name, afftrack.MaxUniqueIDLength)
	}
	paid := r.nullBool("Paid")
	if r.err != nil {
		return rec
	}
	if status != 0 && status != t.Status() {
		r.fail("Status", "%q does not agree with Status2 %q, which gives %q", status, t.Status2, t.Status())
	}
	if paid.Valid && paid.Value != (t.Status2 == afftrack.Status2Paid) {
		r.fail("Paid", "%v does not agree with Status2 %q: Paid is true exactly when Status2 is Paid", paid.Value, t.Status2)
	}
	if err := t.Validate(); err != nil {
		r.err = afftrack.Errorf(afftrack.EINVALID, "%s.%s", r.path, afftrack.ErrorMessage(err))
	}
	return rec
}

// uniqueIDFields are the affiliate's sub-ids of a transaction, from its
// click.
var uniqueIDFields = [4]string{"UniqueId", "UniqueId2", "UniqueId3", "UniqueId4"}

// MaxItems bounds a transaction's items: far beyond any cart (a
// conversion takes 500), and a transaction is held whole while it is read.
const MaxItems = 10_000

// parseItems reads Items: an array, absent or null meaning none.
func parseItems(r *record) []afftrack.TransactionItem {
	raw := r.raw("Items")
	if raw == nil {
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		r.fail("Items", "must be an array")
		return nil
	}
	if len(list) > MaxItems {
		r.fail("Items", "has %d items; at most %d", len(list), MaxItems)
		return nil
	}
	items := make([]afftrack.TransactionItem, 0, len(list))
	for i, raw := range list {
		ir := newRecord(fmt.Sprintf("%s.Items[%d]", r.path, i), raw, r.opts)
		if ir.err == nil {
			items = append(items, parseItem(ir))
		}
		if err := ir.done(); err != nil {
			if r.err == nil {
				r.err = err
			}
			return nil
		}
	}
	return items
}

func parseItem(r *record) afftrack.TransactionItem {
	it := afftrack.TransactionItem{
		Sku:                r.str("Sku", true),
		Quantity:           r.positive("Quantity"),
		ReportedSaleValue:  r.itemMoney("ReportedSaleValue"),
		SaleValue:          r.itemMoney("SaleValue"),
		Commission:         r.itemMoney("Commission"),
		Name:               r.str("Name", false),
		Brand:              r.str("Brand", false),
		Category:           r.str("Category", false),
		CartItemReference:  r.ref("CartItemReference"),
		CartItemReference2: r.ref("CartItemReference2"),
		CartItemReference3: r.ref("CartItemReference3"),
		CartItemReference4: r.ref("CartItemReference4"),
	}
	return it
}

// ref reads a cart item reference. The interface leaves its type open; the
// service keeps it as text and takes a JSON number as written, so a
// merchant's numeric references load as they are, bound as text is.
func (r *record) ref(name string) afftrack.Null[string] {
	raw := r.raw(name)
	if len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
		if len(raw) > afftrack.MaxText {
			r.fail(name, "is a number of %d bytes; text is at most %d bytes", len(raw), afftrack.MaxText)
		}
		return afftrack.Some(string(raw))
	}
	return r.nullStr(name, false)
}

// positive reads a required integer of at least 1.
func (r *record) positive(name string) int64 {
	n := r.int(name, true, 0)
	if r.err == nil && n < 1 {
		r.fail(name, "%d is not positive", n)
	}
	return n
}

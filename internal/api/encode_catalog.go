package api

import (
	"strconv"

	"github.com/afftrack/afftrack"
)

// The affiliate's Merchant (v1-surface.md section 2.2), its 23 fields in
// order. Rates are decimal2, rounded half away from zero like report
// sums.

// Elements of the nullable categories.
var (
	merchantCategoryXML    = [3]xmlElement{newXMLElement("Category"), newXMLElement("Category2"), newXMLElement("Category3")}
	merchantNewCategoryXML = [3]xmlElement{newXMLElement("NewCategory"), newXMLElement("NewCategory2"),
		newXMLElement("NewCategory3")}
	merchantCategoryJSON    = [3]string{`,"Category":`, `,"Category2":`, `,"Category3":`}
	merchantNewCategoryJSON = [3]string{`,"NewCategory":`, `,"NewCategory2":`, `,"NewCategory3":`}
)

// merchantTrackingCode is the merchant's TrackingCode: its text link
// around its Name, escaped as an offer's (contract section 9).
func merchantTrackingCode(m *afftrack.AffiliateMerchant, trackingURL string) string {
	return offerTrackingCode(&afftrack.Offer{Description: m.Name}, trackingURL)
}

// appendAffiliateMerchantJSON appends m as a Merchant object, as
// affiliate affiliateID sees it, with the given TargetUrl and TrackingUrl.
func appendAffiliateMerchantJSON(b []byte, m *afftrack.AffiliateMerchant, affiliateID int64, targetURL, trackingURL string) []byte {
	rate, lowest, highest, zero := m.Commission(affiliateID)
	b = append(b, `{"Id":`...)
	b = strconv.AppendInt(b, m.ID, 10)
	b = append(b, `,"DateCreated":"`...)
	b = appendDateTime(b, m.DateCreated)
	b = append(b, `","DateModified":"`...)
	b = appendDateTime(b, m.DateModified)
	b = append(b, `","Name":`...)
	b = appendJSONString(b, m.Name)
	b = append(b, `,"AvatarUrl":`...)
	b = appendJSONString(b, m.AvatarURL)
	b = append(b, `,"CommissionType":`...)
	b = appendJSONString(b, m.Program.MerchantType().String())
	b = append(b, `,"CommissionRate":`...)
	b = appendReportSum(b, afftrack.Money(rate))
	b = append(b, `,"CommissionMinimum":`...)
	b = appendReportSum(b, afftrack.Money(lowest))
	b = append(b, `,"CommissionMaximum":`...)
	b = appendReportSum(b, afftrack.Money(highest))
	b = append(b, `,"CommissionZero":`...)
	b = strconv.AppendBool(b, zero)
	b = append(b, `,"CookieLength":`...)
	b = strconv.AppendInt(b, m.Program.CookieDays*24, 10)
	b = append(b, `,"ValidationPeriod":`...)
	b = strconv.AppendInt(b, m.Program.ValidationDays*24, 10)
	for i, name := range merchantCategoryJSON {
		b = append(b, name...)
		b = appendJSONNullString(b, m.Category(i))
	}
	for i, name := range merchantNewCategoryJSON {
		b = append(b, name...)
		b = appendJSONNullString(b, m.NewCategory(i))
	}
	b = append(b, `,"Summary":`...)
	b = appendJSONString(b, m.Summary)
	b = append(b, `,"TargetUrl":`...)
	b = appendJSONString(b, targetURL)
	b = append(b, `,"Status":`...)
	b = appendJSONString(b, m.Status.String())
	b = append(b, `,"TrackingUrl":`...)
	b = appendJSONString(b, trackingURL)
	b = append(b, `,"TrackingCode":`...)
	b = appendJSONString(b, merchantTrackingCode(m, trackingURL))
	return append(b, '}')
}

// appendAffiliateMerchantXML appends m as a Merchant element, as
// affiliate affiliateID sees it, the root of a document when ns is not "".
func appendAffiliateMerchantXML(b []byte, m *afftrack.AffiliateMerchant, affiliateID int64, ns, targetURL, trackingURL string) []byte {
	rate, lowest, highest, zero := m.Commission(affiliateID)
	b = appendXMLOpen(b, "Merchant", ns)
	b = appendXMLInt(b, "Id", m.ID)
	b = appendXMLDateTime(b, "DateCreated", m.DateCreated)
	b = appendXMLDateTime(b, "DateModified", m.DateModified)
	b = appendXMLString(b, "Name", m.Name)
	b = appendXMLString(b, "AvatarUrl", m.AvatarURL)
	b = appendXMLString(b, "CommissionType", m.Program.MerchantType().String())
	b = appendXMLReportSum(b, "CommissionRate", afftrack.Money(rate))
	b = appendXMLReportSum(b, "CommissionMinimum", afftrack.Money(lowest))
	b = appendXMLReportSum(b, "CommissionMaximum", afftrack.Money(highest))
	b = appendXMLString(b, "CommissionZero", strconv.FormatBool(zero))
	b = appendXMLInt(b, "CookieLength", m.Program.CookieDays*24)
	b = appendXMLInt(b, "ValidationPeriod", m.Program.ValidationDays*24)
	for i := range merchantCategoryXML {
		b = appendXMLNullText(b, &merchantCategoryXML[i], m.Category(i))
	}
	for i := range merchantNewCategoryXML {
		b = appendXMLNullText(b, &merchantNewCategoryXML[i], m.NewCategory(i))
	}
	b = appendXMLString(b, "Summary", m.Summary)
	b = appendXMLString(b, "TargetUrl", targetURL)
	b = appendXMLString(b, "Status", m.Status.String())
	b = appendXMLString(b, "TrackingUrl", trackingURL)
	b = appendXMLString(b, "TrackingCode", merchantTrackingCode(m, trackingURL))
	return appendXMLClose(b, "Merchant")
}

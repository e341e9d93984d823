package api

import (
	"github.com/afftrack/afftrack"
)

// The report lines (v1-surface.md section 5): the key fields, then the
// metric block. Sums are exact in the store and rounded here, half away
// from zero, to decimal2: a JSON number with exactly two fractional
// digits.

// appendReportSum appends a report sum rounded to two digits.
func appendReportSum(b []byte, m afftrack.Money) []byte {
	return appendItemMoney(b, afftrack.ItemMoney(afftrack.RoundCents(m)))
}

// appendReportMetricsJSON appends the metric block's members, each
// preceded by a comma; override adds the Override sums (AffiliateReport).
func appendReportMetricsJSON(b []byte, m *afftrack.ReportMetrics, override bool) []byte {
	b = append(b, `,"ImpressionsTotal":`...)
	b = appendInt(b, m.ImpressionsTotal)
	b = append(b, `,"ImpressionsBot":`...)
	b = appendInt(b, m.ImpressionsBot)
	b = append(b, `,"ClicksTotal":`...)
	b = appendInt(b, m.ClicksTotal)
	b = append(b, `,"ClicksBot":`...)
	b = appendInt(b, m.ClicksBot)
	b = append(b, `,"TransactionsPending":`...)
	b = appendInt(b, m.TransactionsPending)
	b = append(b, `,"TransactionsApproved":`...)
	b = appendInt(b, m.TransactionsApproved)
	b = append(b, `,"TransactionsVoid":`...)
	b = appendInt(b, m.TransactionsVoid)
	b = append(b, `,"SaleValuePending":`...)
	b = appendReportSum(b, m.SaleValuePending)
	b = append(b, `,"SaleValueApproved":`...)
	b = appendReportSum(b, m.SaleValueApproved)
	b = append(b, `,"SaleValueVoid":`...)
	b = appendReportSum(b, m.SaleValueVoid)
	b = append(b, `,"CommissionPending":`...)
	b = appendReportSum(b, m.CommissionPending)
	b = append(b, `,"CommissionApproved":`...)
	b = appendReportSum(b, m.CommissionApproved)
	b = append(b, `,"CommissionVoid":`...)
	b = appendReportSum(b, m.CommissionVoid)
	if override {
		b = append(b, `,"OverridePending":`...)
		b = appendReportSum(b, m.OverridePending)
		b = append(b, `,"OverrideApproved":`...)
		b = appendReportSum(b, m.OverrideApproved)
		b = append(b, `,"OverrideVoid":`...)
		b = appendReportSum(b, m.OverrideVoid)
	}
	return b
}

// appendXMLReportSum appends an element holding a report sum.
func appendXMLReportSum(b []byte, name string, m afftrack.Money) []byte {
	b = appendXMLOpen(b, name, "")
	b = appendReportSum(b, m)
	return appendXMLClose(b, name)
}

// appendReportMetricsXML appends the metric block's elements.
func appendReportMetricsXML(b []byte, m *afftrack.ReportMetrics, override bool) []byte {
	b = appendXMLInt(b, "ImpressionsTotal", m.ImpressionsTotal)
	b = appendXMLInt(b, "ImpressionsBot", m.ImpressionsBot)
	b = appendXMLInt(b, "ClicksTotal", m.ClicksTotal)
	b = appendXMLInt(b, "ClicksBot", m.ClicksBot)
	b = appendXMLInt(b, "TransactionsPending", m.TransactionsPending)
	b = appendXMLInt(b, "TransactionsApproved", m.TransactionsApproved)
	b = appendXMLInt(b, "TransactionsVoid", m.TransactionsVoid)
	b = appendXMLReportSum(b, "SaleValuePending", m.SaleValuePending)
	b = appendXMLReportSum(b, "SaleValueApproved", m.SaleValueApproved)
	b = appendXMLReportSum(b, "SaleValueVoid", m.SaleValueVoid)
	b = appendXMLReportSum(b, "CommissionPending", m.CommissionPending)
	b = appendXMLReportSum(b, "CommissionApproved", m.CommissionApproved)
	b = appendXMLReportSum(b, "CommissionVoid", m.CommissionVoid)
	if override {
		b = appendXMLReportSum(b, "OverridePending", m.OverridePending)
		b = appendXMLReportSum(b, "OverrideApproved", m.OverrideApproved)
		b = appendXMLReportSum(b, "OverrideVoid", m.OverrideVoid)
	}
	return b
}

// appendTrafficTypeReportJSON appends one TrafficTypeReport object.
func appendTrafficTypeReportJSON(b []byte, l *afftrack.TrafficTypeReport) []byte {
	b = append(b, `{"TrafficType":`...)
	b = appendJSONString(b, l.TrafficType.String())
	b = appendReportMetricsJSON(b, &l.ReportMetrics, false)
	return append(b, '}')
}

// appendTrafficTypeReportXML appends one <TrafficTypeReport> element.
func appendTrafficTypeReportXML(b []byte, l *afftrack.TrafficTypeReport) []byte {
	b = appendXMLOpen(b, "TrafficTypeReport", "")
	b = appendXMLString(b, "TrafficType", l.TrafficType.String())
	b = appendReportMetricsXML(b, &l.ReportMetrics, false)
	return appendXMLClose(b, "TrafficTypeReport")
}

// appendMerchantReportJSON appends one MerchantReport object.
func appendMerchantReportJSON(b []byte, l *afftrack.MerchantReport) []byte {
	b = append(b, `{"MerchantId":`...)
	b = appendInt(b, l.MerchantID)
	b = append(b, `,"MerchantName":`...)
	b = appendJSONString(b, l.MerchantName)
	b = append(b, `,"MerchantAvatarUrl":`...)
	b = appendJSONString(b, l.MerchantAvatarURL)
	b = appendReportMetricsJSON(b, &l.ReportMetrics, false)
	return append(b, '}')
}

// appendMerchantReportXML appends one <MerchantReport> element.
func appendMerchantReportXML(b []byte, l *afftrack.MerchantReport) []byte {
	b = appendXMLOpen(b, "MerchantReport", "")
	b = appendXMLInt(b, "MerchantId", l.MerchantID)
	b = appendXMLString(b, "MerchantName", l.MerchantName)
	b = appendXMLString(b, "MerchantAvatarUrl", l.MerchantAvatarURL)
	b = appendReportMetricsXML(b, &l.ReportMetrics, false)
	return appendXMLClose(b, "MerchantReport")
}

// appendAffiliateReportJSON appends one AffiliateReport object; an empty
// BusinessName is null.
func appendAffiliateReportJSON(b []byte, l *afftrack.AffiliateReport) []byte {
	b = append(b, `{"AffiliateId":`...)
	b = appendInt(b, l.AffiliateID)
	b = append(b, `,"AffiliateContactName":`...)
	b = appendJSONString(b, l.AffiliateContactName)
	b = append(b, `,"AffiliateBusinessName":`...)
	if l.AffiliateBusinessName == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, l.AffiliateBusinessName)
	}
	b = appendReportMetricsJSON(b, &l.ReportMetrics, true)
	return append(b, '}')
}

// appendAffiliateReportXML appends one <AffiliateReport> element.
func appendAffiliateReportXML(b []byte, l *afftrack.AffiliateReport) []byte {
	b = appendXMLOpen(b, "AffiliateReport", "")
	b = appendXMLInt(b, "AffiliateId", l.AffiliateID)
	b = appendXMLString(b, "AffiliateContactName", l.AffiliateContactName)
	if l.AffiliateBusinessName == "" {
		b = appendXMLNil(b, "AffiliateBusinessName")
	} else {
		b = appendXMLString(b, "AffiliateBusinessName", l.AffiliateBusinessName)
	}
	b = appendReportMetricsXML(b, &l.ReportMetrics, true)
	return appendXMLClose(b, "AffiliateReport")
}

package api

import "github.com/afftrack/afftrack"

// The affiliate view of a transaction (v1-surface.md section 3), built like
// the merchant view's encoders (encode_transaction.go), whose enumeration
// forms and nullable elements it shares. It differs from the merchant view
// in: MerchantId, MerchantName, MerchantAvatarUrl where the affiliate's
// fields are; no CustomerIpAddress and no OverrideFee; UniqueId ...
// UniqueId4 after AdditionalNotes; Paid after InvoiceId; PlacementId and
// PlacementName always null; items without their CartItemReferences.

// The elements only the affiliate view has, in XML.
var uniqueIDXML = [4]xmlElement{
	newXMLElement("UniqueId"), newXMLElement("UniqueId2"), newXMLElement("UniqueId3"), newXMLElement("UniqueId4"),
}

// appendAffiliateTransactionJSON appends t as a compact JSON object in the
// affiliate view, fields in the order of v1-surface.md section 3.
func appendAffiliateTransactionJSON(b []byte, t *afftrack.Transaction) []byte {
	b = append(b, `{"Id":`...)
	b = appendInt(b, t.ID)
	b = append(b, `,"DateCreated":"`...)
	b = appendDateTime(b, t.DateCreated)
	b = append(b, `","DateModified":"`...)
	b = appendDateTime(b, t.DateModified)
	b = append(b, `","ConsumptionDate":"`...)
	b = appendDateTime(b, t.ConsumptionDate)
	b = append(b, `","ValidationDate":"`...)
	b = appendDateTime(b, t.ValidationDate)
	b = append(b, `","MerchantId":`...)
	b = appendInt(b, t.MerchantID)
	b = append(b, `,"MerchantName":"`...)
	b = appendJSONText(b, t.MerchantName)
	b = append(b, `","MerchantAvatarUrl":"`...)
	b = appendJSONText(b, t.MerchantAvatarURL)
	b = append(b, trafficTypeJSON.of(uint8(t.TrafficType))...)
	b = append(b, `,"TrafficSource":"`...)
	b = appendJSONText(b, t.TrafficSource)
	b = append(b, creativeTypeJSON.of(uint8(t.CreativeType))...)
	b = append(b, `,"CreativeId":`...)
	b = appendJSONNullInt(b, t.CreativeID)
	b = append(b, `,"CreativeName":`...)
	b = appendJSONNullString(b, t.CreativeName)
	b = append(b, `,"CustomerCountryCode":"`...)
	b = appendJSONText(b, t.CustomerCountryCode)
	b = append(b, `","CustomerCountryName":"`...)
	b = appendJSONText(b, t.CustomerCountryName)
	b = append(b, customerTypeJSON.of(uint8(t.CustomerType))...)
	b = append(b, `,"OrderId":"`...)
	b = appendJSONText(b, t.OrderID)
	b = append(b, `","AdditionalNotes":`...)
	b = appendJSONNullString(b, t.AdditionalNotes)
	u := &t.UniqueIDs
	if !u[0].Valid && !u[1].Valid && !u[2].Valid && !u[3].Valid {
		// The usual transaction: the UniqueIds in one piece.
		b = append(b, `,"UniqueId":null,"UniqueId2":null,"UniqueId3":null,"UniqueId4":null`...)
	} else {
		b = append(b, `,"UniqueId":`...)
		b = appendJSONNullString(b, u[0])
		b = append(b, `,"UniqueId2":`...)
		b = appendJSONNullString(b, u[1])
		b = append(b, `,"UniqueId3":`...)
		b = appendJSONNullString(b, u[2])
		b = append(b, `,"UniqueId4":`...)
		b = appendJSONNullString(b, u[3])
	}
	b = append(b, trackingMethodJSON.of(uint8(t.TrackingMethod))...)
	b = append(b, `,"SaleValue":`...)
	b = appendMoney(b, t.SaleValue)
	b = append(b, `,"Commission":`...)
	b = appendMoney(b, t.Commission)
	b = append(b, `,"ReportedCurrencyCode":"`...)
	b = appendJSONText(b, t.ReportedCurrencyCode)
	b = append(b, `","ReportedCurrencyName":"`...)
	b = appendJSONText(b, t.ReportedCurrencyName)
	b = append(b, `","ReportedSaleValue":`...)
	b = appendMoney(b, t.ReportedSaleValue)
	if t.TrafficSourceApproved {
		b = append(b, `,"TrafficSourceApproved":true`...)
	} else {
		b = append(b, `,"TrafficSourceApproved":false`...)
	}
	b = append(b, statusJSON.of(uint8(t.Status2))...)
	b = append(b, `,"InvoiceId":`...)
	b = appendJSONNullInt(b, t.InvoiceID)
	if t.Status2 == afftrack.Status2Paid {
		b = append(b, `,"Paid":true`...)
	} else {
		b = append(b, `,"Paid":false`...)
	}
	b = append(b, voidReasonJSON.of(uint8(t.VoidReason))...)
	b = append(b, amendedReasonJSON.of(uint8(t.AmendedReason))...)
	b = append(b, `,"CouponCode":`...)
	b = appendJSONNullString(b, t.CouponCode)
	b = append(b, `,"PlacementId":null,"PlacementName":null,"Items":[`...)
	for i := range t.Items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAffiliateTransactionItemJSON(b, &t.Items[i])
	}
	return append(b, "]}"...)
}

// appendAffiliateTransactionItemJSON appends it as a compact JSON object
// of the affiliate view: Sku ... Category.
func appendAffiliateTransactionItemJSON(b []byte, it *afftrack.TransactionItem) []byte {
	b = append(b, `{"Sku":"`...)
	b = appendJSONText(b, it.Sku)
	b = append(b, `","Quantity":`...)
	b = appendInt(b, it.Quantity)
	b = append(b, `,"ReportedSaleValue":`...)
	b = appendItemMoney(b, it.ReportedSaleValue)
	b = append(b, `,"SaleValue":`...)
	b = appendItemMoney(b, it.SaleValue)
	b = append(b, `,"Commission":`...)
	b = appendItemMoney(b, it.Commission)
	b = append(b, `,"Name":"`...)
	b = appendJSONText(b, it.Name)
	b = append(b, `","Brand":"`...)
	b = appendJSONText(b, it.Brand)
	b = append(b, `","Category":"`...)
	b = appendJSONText(b, it.Category)
	return append(b, `"}`...)
}

// appendAffiliateTransactionXML appends t as a Transaction element in the
// affiliate view. A non-empty ns makes it the document's root, declaring
// the namespaces; inside a TransactionArray ns is "".
func appendAffiliateTransactionXML(b []byte, t *afftrack.Transaction, ns string) []byte {
	if ns == "" {
		b = append(b, "<Transaction><Id>"...)
	} else {
		b = appendXMLOpen(b, "Transaction", ns)
		b = append(b, "<Id>"...)
	}
	b = appendInt(b, t.ID)
	b = append(b, "</Id><DateCreated>"...)
	b = appendDateTime(b, t.DateCreated)
	b = append(b, "</DateCreated><DateModified>"...)
	b = appendDateTime(b, t.DateModified)
	b = append(b, "</DateModified><ConsumptionDate>"...)
	b = appendDateTime(b, t.ConsumptionDate)
	b = append(b, "</ConsumptionDate><ValidationDate>"...)
	b = appendDateTime(b, t.ValidationDate)
	b = append(b, "</ValidationDate><MerchantId>"...)
	b = appendInt(b, t.MerchantID)
	b = append(b, "</MerchantId><MerchantName>"...)
	b = appendXMLText(b, t.MerchantName, false)
	b = append(b, "</MerchantName><MerchantAvatarUrl>"...)
	b = appendXMLText(b, t.MerchantAvatarURL, false)
	b = append(b, "</MerchantAvatarUrl>"...)
	b = append(b, trafficTypeXML.of(uint8(t.TrafficType))...)
	b = append(b, "<TrafficSource>"...)
	b = appendXMLText(b, t.TrafficSource, false)
	b = append(b, "</TrafficSource>"...)
	b = append(b, creativeTypeXML.of(uint8(t.CreativeType))...)
	b = appendXMLNullInt(b, &creativeIDXML, t.CreativeID)
	b = appendXMLNullText(b, &creativeNameXML, t.CreativeName)
	b = append(b, "<CustomerCountryCode>"...)
	b = appendXMLText(b, t.CustomerCountryCode, false)
	b = append(b, "</CustomerCountryCode><CustomerCountryName>"...)
	b = appendXMLText(b, t.CustomerCountryName, false)
	b = append(b, "</CustomerCountryName>"...)
	b = append(b, customerTypeXML.of(uint8(t.CustomerType))...)
	b = append(b, "<OrderId>"...)
	b = appendXMLText(b, t.OrderID, false)
	b = append(b, "</OrderId>"...)
	b = appendXMLNullText(b, &additionalNotesXML, t.AdditionalNotes)
	for i := range t.UniqueIDs {
		b = appendXMLNullText(b, &uniqueIDXML[i], t.UniqueIDs[i])
	}
	b = append(b, trackingMethodXML.of(uint8(t.TrackingMethod))...)
	b = append(b, "<SaleValue>"...)
	b = appendMoney(b, t.SaleValue)
	b = append(b, "</SaleValue><Commission>"...)
	b = appendMoney(b, t.Commission)
	b = append(b, "</Commission><ReportedCurrencyCode>"...)
	b = appendXMLText(b, t.ReportedCurrencyCode, false)
	b = append(b, "</ReportedCurrencyCode><ReportedCurrencyName>"...)
	b = appendXMLText(b, t.ReportedCurrencyName, false)
	b = append(b, "</ReportedCurrencyName><ReportedSaleValue>"...)
	b = appendMoney(b, t.ReportedSaleValue)
	if t.TrafficSourceApproved {
		b = append(b, "</ReportedSaleValue><TrafficSourceApproved>true</TrafficSourceApproved>"...)
	} else {
		b = append(b, "</ReportedSaleValue><TrafficSourceApproved>false</TrafficSourceApproved>"...)
	}
	b = append(b, statusXML.of(uint8(t.Status2))...)
	b = appendXMLNullInt(b, &invoiceIDXML, t.InvoiceID)
	if t.Status2 == afftrack.Status2Paid {
		b = append(b, "<Paid>true</Paid>"...)
	} else {
		b = append(b, "<Paid>false</Paid>"...)
	}
	b = append(b, voidReasonXML.of(uint8(t.VoidReason))...)
	b = append(b, amendedReasonXML.of(uint8(t.AmendedReason))...)
	b = appendXMLNullText(b, &couponCodeXML, t.CouponCode)
	if len(t.Items) == 0 {
		return append(b, `<PlacementId i:nil="true" /><PlacementName i:nil="true" /><Items /></Transaction>`...)
	}
	b = append(b, `<PlacementId i:nil="true" /><PlacementName i:nil="true" /><Items>`...)
	for i := range t.Items {
		b = appendAffiliateTransactionItemXML(b, &t.Items[i])
	}
	return append(b, "</Items></Transaction>"...)
}

// appendAffiliateTransactionItemXML appends it as a TransactionItem element
// of the affiliate view: Sku ... Category.
func appendAffiliateTransactionItemXML(b []byte, it *afftrack.TransactionItem) []byte {
	b = append(b, "<TransactionItem><Sku>"...)
	b = appendXMLText(b, it.Sku, false)
	b = append(b, "</Sku><Quantity>"...)
	b = appendInt(b, it.Quantity)
	b = append(b, "</Quantity><ReportedSaleValue>"...)
	b = appendItemMoney(b, it.ReportedSaleValue)
	b = append(b, "</ReportedSaleValue><SaleValue>"...)
	b = appendItemMoney(b, it.SaleValue)
	b = append(b, "</SaleValue><Commission>"...)
	b = appendItemMoney(b, it.Commission)
	b = append(b, "</Commission><Name>"...)
	b = appendXMLText(b, it.Name, false)
	b = append(b, "</Name><Brand>"...)
	b = appendXMLText(b, it.Brand, false)
	b = append(b, "</Brand><Category>"...)
	b = appendXMLText(b, it.Category, false)
	return append(b, "</Category></TransactionItem>"...)
}

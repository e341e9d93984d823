package api

import "github.com/afftrack/afftrack"

// The transaction encoders write the list's rows, so they are the service's
// hottest code: each field's key (or closing and opening tags) is merged
// with the constant text around it into one appended string, and the
// enumerations are appended in their final form, key included, from
// tables built once from the domain's names.

// Enumerations in JSON, each with its key: `,"TrafficType":"Website"`.
var (
	trafficTypeJSON = newEnumForms(func(v uint8) string { return afftrack.TrafficType(v).String() },
		jsonEnumForm(`","TrafficType":`, false))
	creativeTypeJSON = newEnumForms(func(v uint8) string { return afftrack.CreativeType(v).String() },
		jsonEnumForm(`","CreativeType":`, false))
	customerTypeJSON = newEnumForms(func(v uint8) string { return afftrack.CustomerType(v).String() },
		jsonEnumForm(`","CustomerType":`, false))
	trackingMethodJSON = newEnumForms(func(v uint8) string { return afftrack.TrackingMethod(v).String() },
		jsonEnumForm(`,"TrackingMethod":`, false))
	voidReasonJSON = newEnumForms(func(v uint8) string { return afftrack.VoidReason(v).String() },
		jsonEnumForm(`,"VoidReason":`, true))
	amendedReasonJSON = newEnumForms(func(v uint8) string { return afftrack.AmendedReason(v).String() },
		jsonEnumForm(`,"AmendedReason":`, true))
	// statusJSON holds Status and Status2 together by Status2, from which
	// Status derives.
	statusJSON = newEnumForms(func(v uint8) string { return afftrack.TransactionStatus2(v).String() },
		func(v uint8, name string) string {
			return `,"Status":` + string(appendJSONString(nil, afftrack.TransactionStatus2(v).Status().String())) +
				`,"Status2":` + string(appendJSONString(nil, name))
		})
)

// Enumerations in XML, as whole elements: <TrafficType>Website</TrafficType>.
var (
	trafficTypeXML = newEnumForms(func(v uint8) string { return afftrack.TrafficType(v).String() },
		xmlEnumForm("TrafficType", false))
	creativeTypeXML = newEnumForms(func(v uint8) string { return afftrack.CreativeType(v).String() },
		xmlEnumForm("CreativeType", false))
	customerTypeXML = newEnumForms(func(v uint8) string { return afftrack.CustomerType(v).String() },
		xmlEnumForm("CustomerType", false))
	trackingMethodXML = newEnumForms(func(v uint8) string { return afftrack.TrackingMethod(v).String() },
		xmlEnumForm("TrackingMethod", false))
	voidReasonXML = newEnumForms(func(v uint8) string { return afftrack.VoidReason(v).String() },
		xmlEnumForm("VoidReason", true))
	amendedReasonXML = newEnumForms(func(v uint8) string { return afftrack.AmendedReason(v).String() },
		xmlEnumForm("AmendedReason", true))
	statusXML = newEnumForms(func(v uint8) string { return afftrack.TransactionStatus2(v).String() },
		func(v uint8, name string) string {
			return xmlEnumForm("Status", false)(v, afftrack.TransactionStatus2(v).Status().String()) +
				xmlEnumForm("Status2", false)(v, name)
		})
)

// The nullable elements of a transaction and its items in XML.
var (
	creativeIDXML         = newXMLElement("CreativeId")
	creativeNameXML       = newXMLElement("CreativeName")
	additionalNotesXML    = newXMLElement("AdditionalNotes")
	invoiceIDXML          = newXMLElement("InvoiceId")
	couponCodeXML         = newXMLElement("CouponCode")
	placementIDXML        = newXMLElement("PlacementId")
	placementNameXML      = newXMLElement("PlacementName")
	cartItemReferenceXML  = newXMLElement("CartItemReference")
	cartItemReference2XML = newXMLElement("CartItemReference2")
	cartItemReference3XML = newXMLElement("CartItemReference3")
	cartItemReference4XML = newXMLElement("CartItemReference4")
)

// appendTransactionJSON appends t as a compact JSON object, fields in the
// order of the interface's Transaction table.
func appendTransactionJSON(b []byte, t *afftrack.Transaction) []byte {
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
	b = append(b, `","AffiliateId":`...)
	b = appendInt(b, t.AffiliateID)
	b = append(b, `,"AffiliateContactName":"`...)
	b = appendJSONText(b, t.AffiliateContactName)
	b = append(b, `","AffiliateBusinessName":"`...)
	b = appendJSONText(b, t.AffiliateBusinessName)
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
	b = append(b, `","CustomerIpAddress":"`...)
	b = appendJSONText(b, t.CustomerIPAddress)
	b = append(b, customerTypeJSON.of(uint8(t.CustomerType))...)
	b = append(b, `,"OrderId":"`...)
	b = appendJSONText(b, t.OrderID)
	b = append(b, `","AdditionalNotes":`...)
	b = appendJSONNullString(b, t.AdditionalNotes)
	b = append(b, trackingMethodJSON.of(uint8(t.TrackingMethod))...)
	b = append(b, `,"SaleValue":`...)
	b = appendMoney(b, t.SaleValue)
	b = append(b, `,"Commission":`...)
	b = appendMoney(b, t.Commission)
	b = append(b, `,"OverrideFee":`...)
	b = appendMoney(b, t.OverrideFee)
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
	b = append(b, voidReasonJSON.of(uint8(t.VoidReason))...)
	b = append(b, amendedReasonJSON.of(uint8(t.AmendedReason))...)
	b = append(b, `,"CouponCode":`...)
	b = appendJSONNullString(b, t.CouponCode)
	b = append(b, `,"PlacementId":`...)
	b = appendJSONNullInt(b, t.PlacementID)
	b = append(b, `,"PlacementName":`...)
	b = appendJSONNullString(b, t.PlacementName)
	b = append(b, `,"Items":[`...)
	for i := range t.Items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendTransactionItemJSON(b, &t.Items[i])
	}
	return append(b, "]}"...)
}

// appendTransactionItemJSON appends it as a compact JSON object, fields in
// the order of the interface's TransactionItem table.
func appendTransactionItemJSON(b []byte, it *afftrack.TransactionItem) []byte {
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
	if !it.CartItemReference.Valid && !it.CartItemReference2.Valid && !it.CartItemReference3.Valid &&
		!it.CartItemReference4.Valid {
		// The usual item: the references in one piece.
		return append(b, `","CartItemReference":null,"CartItemReference2":null,"CartItemReference3":null,`+
			`"CartItemReference4":null}`...)
	}
	b = append(b, `","CartItemReference":`...)
	b = appendJSONNullString(b, it.CartItemReference)
	b = append(b, `,"CartItemReference2":`...)
	b = appendJSONNullString(b, it.CartItemReference2)
	b = append(b, `,"CartItemReference3":`...)
	b = appendJSONNullString(b, it.CartItemReference3)
	b = append(b, `,"CartItemReference4":`...)
	b = appendJSONNullString(b, it.CartItemReference4)
	return append(b, '}')
}

// appendTransactionXML appends t as a Transaction element. A non-empty ns
// makes it the document's root, declaring the namespaces; inside a
// TransactionArray ns is "".
func appendTransactionXML(b []byte, t *afftrack.Transaction, ns string) []byte {
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
	b = append(b, "</ValidationDate><AffiliateId>"...)
	b = appendInt(b, t.AffiliateID)
	b = append(b, "</AffiliateId><AffiliateContactName>"...)
	b = appendXMLText(b, t.AffiliateContactName, false)
	b = append(b, "</AffiliateContactName><AffiliateBusinessName>"...)
	b = appendXMLText(b, t.AffiliateBusinessName, false)
	b = append(b, "</AffiliateBusinessName>"...)
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
	b = append(b, "</CustomerCountryName><CustomerIpAddress>"...)
	b = appendXMLText(b, t.CustomerIPAddress, false)
	b = append(b, "</CustomerIpAddress>"...)
	b = append(b, customerTypeXML.of(uint8(t.CustomerType))...)
	b = append(b, "<OrderId>"...)
	b = appendXMLText(b, t.OrderID, false)
	b = append(b, "</OrderId>"...)
	b = appendXMLNullText(b, &additionalNotesXML, t.AdditionalNotes)
	b = append(b, trackingMethodXML.of(uint8(t.TrackingMethod))...)
	b = append(b, "<SaleValue>"...)
	b = appendMoney(b, t.SaleValue)
	b = append(b, "</SaleValue><Commission>"...)
	b = appendMoney(b, t.Commission)
	b = append(b, "</Commission><OverrideFee>"...)
	b = appendMoney(b, t.OverrideFee)
	b = append(b, "</OverrideFee><ReportedCurrencyCode>"...)
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
	b = append(b, voidReasonXML.of(uint8(t.VoidReason))...)
	b = append(b, amendedReasonXML.of(uint8(t.AmendedReason))...)
	b = appendXMLNullText(b, &couponCodeXML, t.CouponCode)
	b = appendXMLNullInt(b, &placementIDXML, t.PlacementID)
	b = appendXMLNullText(b, &placementNameXML, t.PlacementName)
	if len(t.Items) == 0 {
		return append(b, "<Items /></Transaction>"...)
	}
	b = append(b, "<Items>"...)
	for i := range t.Items {
		b = appendTransactionItemXML(b, &t.Items[i])
	}
	return append(b, "</Items></Transaction>"...)
}

// appendTransactionItemXML appends it as a TransactionItem element.
func appendTransactionItemXML(b []byte, it *afftrack.TransactionItem) []byte {
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
	if !it.CartItemReference.Valid && !it.CartItemReference2.Valid && !it.CartItemReference3.Valid &&
		!it.CartItemReference4.Valid {
		return append(b, `</Category><CartItemReference i:nil="true" /><CartItemReference2 i:nil="true" />`+
			`<CartItemReference3 i:nil="true" /><CartItemReference4 i:nil="true" /></TransactionItem>`...)
	}
	b = append(b, "</Category>"...)
	b = appendXMLNullText(b, &cartItemReferenceXML, it.CartItemReference)
	b = appendXMLNullText(b, &cartItemReference2XML, it.CartItemReference2)
	b = appendXMLNullText(b, &cartItemReference3XML, it.CartItemReference3)
	b = appendXMLNullText(b, &cartItemReference4XML, it.CartItemReference4)
	return append(b, "</TransactionItem>"...)
}

package api

import (
	"strconv"

	"github.com/afftrack/afftrack"
)

// appendInvoiceJSON appends inv as a compact JSON object, fields in the
// order of the interface's Invoice table.
func appendInvoiceJSON(b []byte, inv *afftrack.Invoice) []byte {
	b = append(b, `{"Id":`...)
	b = strconv.AppendInt(b, inv.ID, 10)
	b = append(b, `,"DateCreated":"`...)
	b = appendDateTime(b, inv.DateCreated)
	b = append(b, `","DatePaid":"`...)
	b = appendDateTime(b, inv.DatePaid)
	b = append(b, `","Number":`...)
	b = appendJSONString(b, inv.Number)
	b = append(b, `,"Description":`...)
	b = appendJSONString(b, inv.Description)
	b = append(b, `,"SubTotal":`...)
	b = appendMoney(b, inv.SubTotal)
	b = append(b, `,"GST":`...)
	if inv.GST.Valid {
		b = appendMoney(b, inv.GST.Value)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"Total":`...)
	b = appendMoney(b, inv.Total)
	return append(b, '}')
}

// appendInvoiceXML appends inv as the root Invoice element in namespace ns.
// A null GST is <GST i:nil="true" />, the contract's null form (the
// reference's <GST>null</GST> is a documentation slip).
func appendInvoiceXML(b []byte, inv *afftrack.Invoice, ns string) []byte {
	b = appendXMLOpen(b, "Invoice", ns)
	b = appendXMLInt(b, "Id", inv.ID)
	b = appendXMLDateTime(b, "DateCreated", inv.DateCreated)
	b = appendXMLDateTime(b, "DatePaid", inv.DatePaid)
	b = appendXMLString(b, "Number", inv.Number)
	b = appendXMLString(b, "Description", inv.Description)
	b = appendXMLMoney(b, "SubTotal", inv.SubTotal)
	if inv.GST.Valid {
		b = appendXMLMoney(b, "GST", inv.GST.Value)
	} else {
		b = appendXMLNil(b, "GST")
	}
	b = appendXMLMoney(b, "Total", inv.Total)
	return appendXMLClose(b, "Invoice")
}

package importfile

import "github.com/afftrack/afftrack"

// parseInvoice reads an invoice. DatePaid defaults to DateCreated. GST is
// kept as given; the service shows it as null while the affiliate is not
// registered for GST.
func parseInvoice(r *record) afftrack.Invoice {
	var in afftrack.Invoice
	in.ID = r.id("Id")
	in.AffiliateID = r.id("AffiliateId")
	in.DateCreated = r.datetime("DateCreated", true, in.DateCreated)
	in.DatePaid = r.datetime("DatePaid", false, in.DateCreated)
	in.Number = r.str("Number", false)
	in.Description = r.str("Description", false)
	in.SubTotal = r.money("SubTotal")
	in.GST = r.nullMoney("GST")
	in.Total = r.money("Total")
	return in
}

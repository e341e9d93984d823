package generate

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/afftrack/afftrack"
)

// emitInvoices writes the monthly commission invoices of one affiliate in
// invoiceEvery: each the sum of the commission of its Paid transactions
// validated in that month, with GST where the affiliate is registered. The
// other affiliates' Paid transactions name invoices too, as a merchant's
// own references, but those are not generated.
func (g *Generator) emitInvoices(limit int) (int, bool) {
	if g.tx.invoiceIDs == nil {
		g.tx.invoiceIDs = slices.Sorted(maps.Keys(g.tx.invoices))
	}
	ids := g.tx.invoiceIDs
	a := int64(g.cfg.Affiliates)
	for g.cursor[0] < len(ids) && len(g.c.d.Invoices) < limit {
		id := ids[g.cursor[0]]
		g.cursor[0]++
		month, affID := (id-1)/a, (id-1)%a+1
		validated := time.Date(g.cfg.Start.Year(), g.cfg.Start.Month()+time.Month(month), 1, 0, 0, 0, 0, time.UTC)
		paid := paymentDate(validated)
		sub := g.tx.invoices[id]
		inv := afftrack.Invoice{
			ID: id, AffiliateID: affID,
			DateCreated: paid.AddDate(0, 0, -14).Add(-8 * time.Hour), // the 1st, 02:00
			DatePaid:    paid,
			Number:      "INV-" + strconv.FormatInt(affID, 10) + "-" + validated.Format("200601"),
			Description: "Commission for " + validated.Format("January 2006"),
			SubTotal:    sub,
			Total:       sub,
		}
		if g.affiliates[affID-1].gst {
			gst := afftrack.Money(mulDiv(int64(sub), 1, 10))
			inv.GST = afftrack.Some(gst)
			inv.Total += gst
		}
		g.c.d.Invoices = append(g.c.d.Invoices, inv)
	}
	g.summary.Invoices += len(g.c.d.Invoices)
	return len(g.c.d.Invoices), g.cursor[0] == len(ids)
}

package api

import (
	"net/http"
	"strings"

	"github.com/afftrack/afftrack"
)

// handleInvoices lists the affiliate's invoices created in a date range
// (fromDate and toDate, whole days, as the transaction list's), and with
// the Number given, if any (the whole value, ignoring case, as the
// transaction list's text filters). An affiliate has one invoice a payout
// run, so its invoices of a range are few: the Number is matched here.
func (s *Server) handleInvoices(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	p := params{q: stateOf(r).query}
	from, to := p.days()
	var number afftrack.Null[string]
	p.text("number", &number)
	if p.err != nil {
		return p.err
	}
	all, err := s.svc.Invoices.FindInvoices(r.Context(), account.Ref.ID, from, to)
	if err != nil {
		return err
	}
	list := all[:0]
	for _, inv := range all {
		if !number.Valid || strings.EqualFold(inv.Number, number.Value) {
			list = append(list, inv)
		}
	}
	st := stateOf(r)
	buf := getBody()
	b := st.neg.open(*buf)
	if st.neg.format == formatXML {
		b = appendXMLOpen(b, "InvoiceArray", st.ns)
		for _, inv := range list {
			b = appendInvoiceXML(b, inv, "")
		}
		b = appendXMLClose(b, "InvoiceArray")
	} else {
		b = append(b, '[')
		for i, inv := range list {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendInvoiceJSON(b, inv)
		}
		b = append(b, ']')
	}
	s.respond(w, st, http.StatusOK, st.neg.close(b))
	putBody(buf, b)
	return nil
}

// handleInvoice returns one of the affiliate's own invoices by id.
func (s *Server) handleInvoice(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	id, err := parseInt("id", pathValue(r, "id"))
	if err != nil {
		return err
	}
	inv, err := s.svc.Invoices.FindInvoiceByID(r.Context(), account.Ref.ID, id)
	if err != nil {
		return err
	}
	st := stateOf(r)
	buf := getBody()
	b := st.neg.open(*buf)
	if st.neg.format == formatXML {
		b = appendInvoiceXML(b, inv, st.ns)
	} else {
		b = appendInvoiceJSON(b, inv)
	}
	s.respond(w, st, http.StatusOK, st.neg.close(b))
	putBody(buf, b)
	return nil
}

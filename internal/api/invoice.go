package api

import (
	"net/http"

	"github.com/afftrack/afftrack"
)

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

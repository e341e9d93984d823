package api

import (
	"net/http"
	"time"

	"github.com/afftrack/afftrack"
)

// The report functions (v1-surface.md section 5): an account's clicks and
// transactions of a date range (fromDate and toDate, required, whole
// days, swapped if reversed, as the transaction lists take them), summed
// by key in the database. A report is a few lines, one a key: it is built
// whole, not streamed.

// reportRange reads a report's fromDate and toDate.
func reportRange(r *http.Request) (from, to time.Time, err error) {
	p := params{q: stateOf(r).query}
	from, to = p.days()
	return from, to, p.err
}

// writeReport answers with the array root of the lines, each appended by
// the format's encoder.
func writeReport[L any](s *Server, w http.ResponseWriter, r *http.Request, root string, lines []L,
	appendJSON, appendXML func([]byte, *L) []byte) {
	st := stateOf(r)
	buf := getBody()
	b := st.neg.open(*buf)
	if st.neg.format == formatXML {
		b = appendXMLOpen(b, root, st.ns)
		for i := range lines {
			b = appendXML(b, &lines[i])
		}
		b = appendXMLClose(b, root)
	} else {
		b = append(b, '[')
		for i := range lines {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, &lines[i])
		}
		b = append(b, ']')
	}
	s.respond(w, st, http.StatusOK, st.neg.close(b))
	putBody(buf, b)
}

// handleTrafficTypeReport is the affiliate's Reports/TrafficType.
func (s *Server) handleTrafficTypeReport(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	from, to, err := reportRange(r)
	if err != nil {
		return err
	}
	lines, err := s.svc.Reports.TrafficTypeReport(r.Context(), account.Ref.ID, from, to)
	if err != nil {
		return err
	}
	writeReport(s, w, r, "TrafficTypeReportArray", lines, appendTrafficTypeReportJSON, appendTrafficTypeReportXML)
	return nil
}

// handleMerchantReport is the affiliate's Reports/Merchant.
func (s *Server) handleMerchantReport(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	from, to, err := reportRange(r)
	if err != nil {
		return err
	}
	lines, err := s.svc.Reports.MerchantReport(r.Context(), account.Ref.ID, from, to)
	if err != nil {
		return err
	}
	writeReport(s, w, r, "MerchantReportArray", lines, appendMerchantReportJSON, appendMerchantReportXML)
	return nil
}

// handleAffiliateReport is the merchant's Reports/Affiliate.
func (s *Server) handleAffiliateReport(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	from, to, err := reportRange(r)
	if err != nil {
		return err
	}
	lines, err := s.svc.Reports.AffiliateReport(r.Context(), account.Ref.ID, from, to)
	if err != nil {
		return err
	}
	writeReport(s, w, r, "AffiliateReportArray", lines, appendAffiliateReportJSON, appendAffiliateReportXML)
	return nil
}

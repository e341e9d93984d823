package api

import (
	"net/http"

	"github.com/afftrack/afftrack"
)

// handleAffiliateTransactions lists the affiliate's transactions in a date
// range in the affiliate view, streamed as the merchant's list is.
func (s *Server) handleAffiliateTransactions(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	f, err := affiliateTransactionFilter(stateOf(r).query, account.Ref.ID)
	if err != nil {
		return err
	}
	return s.streamTransactions(w, r, affiliateEncoding, func(ts *transactionStream) error {
		return s.svc.Transactions.FindAffiliateTransactions(r.Context(), f, ts.write)
	})
}

// handleAffiliateTransaction returns one of the affiliate's transactions
// by id, in the affiliate view.
func (s *Server) handleAffiliateTransaction(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	id, err := parseInt("id", pathValue(r, "id"))
	if err != nil {
		return err
	}
	t, err := s.svc.Transactions.FindAffiliateTransactionByID(r.Context(), account.Ref.ID, id)
	if err != nil {
		return err
	}
	s.respondTransaction(w, r, http.StatusOK, t, affiliateEncoding)
	return nil
}

// affiliateTransactionFilter reads the affiliate Transactions function's
// parameters in the reference's order (v1-surface.md section 2.1); the
// first bad one is the 400. amendedReason is not among them: it is
// ignored, whatever its value.
func affiliateTransactionFilter(q query, affiliateID int64) (afftrack.AffiliateTransactionFilter, error) {
	f := afftrack.AffiliateTransactionFilter{AffiliateID: affiliateID}
	p := params{q: q}
	f.From, f.To, f.DateProperty = p.dateRange()
	if p.err != nil {
		return f, p.err
	}
	p.int64("merchantId", &f.MerchantID)
	p.text("merchantName", &f.MerchantName)
	paramEnum(&p, "trafficType", &f.TrafficType, afftrack.ParseTrafficType, afftrack.TrafficTypeNames())
	p.text("trafficSource", &f.TrafficSource)
	paramEnum(&p, "creativeType", &f.CreativeType, afftrack.ParseCreativeType, afftrack.CreativeTypeNames())
	p.int64("creativeId", &f.CreativeID)
	p.text("creativeName", &f.CreativeName)
	p.text("customerCountryCode", &f.CustomerCountryCode)
	p.text("customerCountryName", &f.CustomerCountryName)
	paramEnum(&p, "customerType", &f.CustomerType, afftrack.ParseCustomerType, afftrack.CustomerTypeNames())
	p.text("orderId", &f.OrderID)
	for i, name := range [4]string{"uniqueId", "uniqueId2", "uniqueId3", "uniqueId4"} {
		p.text(name, &f.UniqueIDs[i])
	}
	paramEnum(&p, "trackingMethod", &f.TrackingMethod, afftrack.ParseTrackingMethod, afftrack.TrackingMethodNames())
	p.bool("trafficSourceApproved", &f.TrafficSourceApproved)
	paramEnum(&p, "status", &f.Status, afftrack.ParseTransactionStatus, afftrack.TransactionStatusNames())
	paramEnum(&p, "status2", &f.Status2, afftrack.ParseTransactionStatus2, afftrack.TransactionStatus2Names())
	p.int64("invoiceId", &f.InvoiceID)
	paramEnum(&p, "voidReason", &f.VoidReason, afftrack.ParseVoidReason, afftrack.VoidReasonNames())
	return f, p.err
}

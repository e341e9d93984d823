package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/afftrack/afftrack"
)

// route is one path of the interface. Paths are registered lower-case;
// withRouting maps any spelling onto them. Handlers read a wildcard's
// value with pathValue.
type route struct {
	method  string // "" for GET (and so HEAD)
	path    string
	handler http.Handler
}

// routes is the interface's route table, every path in one place. Each
// path answers GET and HEAD; any other method is a 405, and any other
// path a 404. Its paths are the route labels of the metrics.
func (s *Server) routes() []route {
	routes := []route{
		{"", "/v1/merchant/transactions", s.authenticatedList(afftrack.KindMerchant, s.handleTransactions)},
		{"", "/v1/merchant/transactions/{id}", s.authenticated(afftrack.KindMerchant, s.handleTransaction)},
		{"", "/v1/affiliate/transactions", s.authenticatedList(afftrack.KindAffiliate, s.handleAffiliateTransactions)},
		{"", "/v1/affiliate/transactions/{id}", s.authenticated(afftrack.KindAffiliate, s.handleAffiliateTransaction)},
		{"", "/v1/affiliate/banners", s.authenticated(afftrack.KindAffiliate, s.handleBanners)},
		{"", "/v1/affiliate/invoices", s.authenticated(afftrack.KindAffiliate, s.handleInvoices)},
		{"", "/v1/affiliate/invoices/{id}", s.authenticated(afftrack.KindAffiliate, s.handleInvoice)},
		{"", "/healthz", http.HandlerFunc(s.handleHealth)},
		{"", "/readyz", http.HandlerFunc(s.handleReady)},
		{"", "/openapi.json", openAPIDocument()},
	}
	if s.svc.Conversions != nil {
		// Conversions are writes: they do not count against the read
		// rate limits (tracking.md section 3).
		t := strings.ToLower(s.trackingPath)
		routes = append(routes,
			route{http.MethodPost, "/v1/merchant/conversions", s.authenticatedWrite(afftrack.KindMerchant, s.handleConversion)},
			route{"", t + "/{affiliateId}/b/{bannerId}", s.handleClick(afftrack.LinkBanner)},
			route{"", t + "/{affiliateId}/t/{merchantId}", s.handleClick(afftrack.LinkTextLink)},
			route{"", t + "/px/{merchantId}", http.HandlerFunc(s.handlePixel)},
			route{"", t + "/{affiliateId}/c/{couponId}", s.handleClick(afftrack.LinkCoupon)},
			route{"", t + "/{affiliateId}/o/{promotionId}", s.handleClick(afftrack.LinkPromotion)},
		)
	}
	if s.svc.Reports != nil {
		routes = append(routes,
			route{"", "/v1/affiliate/reports/traffictype", s.authenticated(afftrack.KindAffiliate, s.handleTrafficTypeReport)},
			route{"", "/v1/affiliate/reports/merchant", s.authenticated(afftrack.KindAffiliate, s.handleMerchantReport)},
			route{"", "/v1/merchant/reports/affiliate", s.authenticated(afftrack.KindMerchant, s.handleAffiliateReport)},
		)
	}
	if s.svc.Catalog != nil {
		routes = append(routes,
			route{"", "/v1/affiliate/merchants", s.authenticated(afftrack.KindAffiliate, s.handleAffiliateMerchants)},
			route{"", "/v1/affiliate/merchants/{id}", s.authenticated(afftrack.KindAffiliate, s.handleAffiliateMerchant)},
			route{"", "/v1/affiliate/banners/{id}", s.authenticated(afftrack.KindAffiliate, s.handleAffiliateBanner)},
		)
	}
	if s.svc.MerchantViews != nil {
		routes = append(routes,
			route{"", "/v1/merchant/affiliates", s.authenticated(afftrack.KindMerchant, s.handleMemberAffiliates)},
			route{"", "/v1/merchant/affiliates/{id}", s.authenticated(afftrack.KindMerchant, s.handleMemberAffiliate)},
			route{"", "/v1/merchant/banners", s.authenticated(afftrack.KindMerchant, s.handleMerchantBanners)},
			route{"", "/v1/merchant/banners/{id}", s.authenticated(afftrack.KindMerchant, s.handleMerchantBanner)},
			route{"", "/v1/merchant/bannergroups", s.authenticated(afftrack.KindMerchant, s.handleBannerGroups)},
			route{"", "/v1/merchant/bannergroups/{id}", s.authenticated(afftrack.KindMerchant, s.handleBannerGroup)},
		)
	}
	if s.svc.Offers != nil {
		routes = append(routes,
			route{"", "/v1/affiliate/coupons", s.authenticated(afftrack.KindAffiliate, s.handleAffiliateOffers(afftrack.OfferCoupon))},
			route{"", "/v1/affiliate/promotions", s.authenticated(afftrack.KindAffiliate, s.handleAffiliateOffers(afftrack.OfferPromotion))},
			route{"", "/v1/affiliate/promotions/{id}", s.authenticated(afftrack.KindAffiliate, s.handleAffiliateOffer(afftrack.OfferPromotion))},
			route{"", "/v1/merchant/coupons", s.authenticated(afftrack.KindMerchant, s.handleMerchantOffers(afftrack.OfferCoupon))},
			route{"", "/v1/merchant/promotions", s.authenticated(afftrack.KindMerchant, s.handleMerchantOffers(afftrack.OfferPromotion))},
		)
	}
	if s.svc.Lifecycle != nil {
		// A validation counts as one call against the rate limits,
		// whatever its rows (tracking.md section 6).
		routes = append(routes, route{http.MethodPost, "/v1/merchant/validations",
			s.authenticated(afftrack.KindMerchant, s.handleValidations)})
	}
	if s.svc.Metrics != nil {
		// No key and no rate limit: a scraper is not an account, and a
		// refused scrape would hide the very overload it should show.
		routes = append(routes, route{"", "/metrics", s.svc.Metrics})
	}
	return routes
}

// maxMethodQuoted bounds the method a 405 quotes: methods are short
// words, and a client's 60 KB one is not worth sending back.
const maxMethodQuoted = 64

// methodNotAllowed answers a known path asked with another method than
// the one it serves (GET also serves HEAD). A body the request may carry
// is not read, and withoutBody closes the connection after the answer.
func (s *Server) methodNotAllowed(method string) http.Handler {
	allow := method
	if method == http.MethodGet {
		allow = "GET, HEAD"
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		s.writeError(w, r, afftrack.Errorf(afftrack.ENOTALLOWED,
			"The requested resource does not support http method '%s'.", clipped(r.Method, maxMethodQuoted)))
	})
}

// notFound answers a path that names no route.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, &afftrack.Error{Code: afftrack.ENOTFOUND, Message: messageNotFound})
}

// handleHealth answers while the process serves; it needs no key and
// touches no store.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeStatus(w, http.StatusOK, "ok")
}

// handleReady answers 200 only while the services can answer, so a load
// balancer stops sending requests to a replica that lost its store.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if s.svc.Ready != nil {
		if err := s.svc.Ready(r.Context()); err != nil {
			s.logger.WarnContext(r.Context(), "not ready", "request_id", stateOf(r).id, "error", err)
			writeStatus(w, http.StatusServiceUnavailable, "unavailable")
			return
		}
	}
	writeStatus(w, http.StatusOK, "ok")
}

// writeStatus writes a probe's answer, {"Status":"..."}, as plain JSON
// whatever was negotiated: probes are for machines that want no more.
func writeStatus(w http.ResponseWriter, status int, text string) {
	body := append(appendJSONString([]byte(`{"Status":`), text), '}')
	w.Header().Set("Content-Type", contentTypeJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

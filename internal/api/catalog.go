package api

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/afftrack/afftrack"
)

// The affiliate's catalog of the V1 surface (v1-surface.md sections 1.1,
// 2 and 2.2): the merchants it sees, one by id with a targetUrl and
// sub-ids in its text link, and one banner by id, likewise.

// linkQuery is the query a tracking link takes from l: "" or
// "?Url=...&UniqueId=...", as offerTrackingURL writes it for a coupon's
// or promotion's link, for the links of the other creatives.
func linkQuery(l offerLink) string {
	u := offerTrackingURL("", 0, &afftrack.Offer{Kind: afftrack.OfferCoupon}, l)
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[i:]
	}
	return ""
}

// merchantTrackingURL is the affiliate's text link of a merchant,
// {base}/{affiliateId}/t/{merchantId}, with l's query.
func merchantTrackingURL(base string, affiliateID, merchantID int64, l offerLink) string {
	return base + "/" + strconv.FormatInt(affiliateID, 10) + "/t/" + strconv.FormatInt(merchantID, 10) + linkQuery(l)
}

// checkLinkTarget refuses a targetUrl on a host allowed does not hold.
func checkLinkTarget(l offerLink, allowed []string) error {
	if l.target != "" && afftrack.Destination(l.target, "", allowed) == "" {
		return afftrack.Errorf(afftrack.EINVALID, "targetUrl: %q is not on a host the program allows", l.target)
	}
	return nil
}

// handleAffiliateMerchants lists the merchants the affiliate sees, each
// with its own text link and code.
func (s *Server) handleAffiliateMerchants(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	st := stateOf(r)
	f := afftrack.AffiliateMerchantFilter{AffiliateID: account.Ref.ID}
	p := params{q: st.query}
	paramEnum(&p, "commissionType", &f.CommissionType, afftrack.ParseMerchantType, afftrack.MerchantTypeNames())
	p.text("category", &f.Category)
	p.text("newCategory", &f.NewCategory)
	paramEnum(&p, "status", &f.Status, afftrack.ParseMembershipStatus, afftrack.MembershipStatusNames())
	if p.err != nil {
		return p.err
	}
	list, err := s.svc.Catalog.FindAffiliateMerchants(r.Context(), f)
	if err != nil {
		return err
	}
	buf := getBody()
	b := st.neg.open(*buf)
	if st.neg.format == formatXML {
		b = appendXMLOpen(b, "MerchantArray", st.ns)
		for _, m := range list {
			b = appendAffiliateMerchantXML(b, m, account.Ref.ID, "", m.Program.TargetURL,
				merchantTrackingURL(s.trackingBase, account.Ref.ID, m.ID, offerLink{}))
		}
		b = appendXMLClose(b, "MerchantArray")
	} else {
		b = append(b, '[')
		for i, m := range list {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAffiliateMerchantJSON(b, m, account.Ref.ID, m.Program.TargetURL,
				merchantTrackingURL(s.trackingBase, account.Ref.ID, m.ID, offerLink{}))
		}
		b = append(b, ']')
	}
	s.respond(w, st, http.StatusOK, st.neg.close(b))
	putBody(buf, b)
	return nil
}

// handleAffiliateMerchant returns one merchant the affiliate sees; its
// targetUrl and uniqueId .. uniqueId4 enter its text link.
func (s *Server) handleAffiliateMerchant(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	st := stateOf(r)
	id, err := parseInt("id", pathValue(r, "id"))
	if err != nil {
		return err
	}
	link, err := parseOfferLink(st.query)
	if err != nil {
		return err
	}
	m, err := s.svc.Catalog.FindAffiliateMerchant(r.Context(), account.Ref.ID, id)
	if err != nil {
		return err
	}
	// The hosts the tracker lets a text link lead to.
	if err := checkLinkTarget(link, m.Program.DeepLinkHosts()); err != nil {
		return err
	}
	target := m.Program.TargetURL
	if link.target != "" {
		target = link.target
	}
	trackingURL := merchantTrackingURL(s.trackingBase, account.Ref.ID, m.ID, link)
	buf := getBody()
	b := st.neg.open(*buf)
	if st.neg.format == formatXML {
		b = appendAffiliateMerchantXML(b, m, account.Ref.ID, st.ns, target, trackingURL)
	} else {
		b = appendAffiliateMerchantJSON(b, m, account.Ref.ID, target, trackingURL)
	}
	s.respond(w, st, http.StatusOK, st.neg.close(b))
	putBody(buf, b)
	return nil
}

// handleAffiliateBanner returns one banner the affiliate sees, as in its
// list; its targetUrl and uniqueId .. uniqueId4 enter its tracking link.
func (s *Server) handleAffiliateBanner(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	st := stateOf(r)
	id, err := parseInt("id", pathValue(r, "id"))
	if err != nil {
		return err
	}
	link, err := parseOfferLink(st.query)
	if err != nil {
		return err
	}
	bn, allowed, err := s.svc.Catalog.FindAffiliateBanner(r.Context(), account.Ref.ID, id,
		afftrack.WallClock(s.clock(), s.location()))
	if err != nil {
		return err
	}
	if err := checkLinkTarget(link, allowed); err != nil {
		return err
	}
	if link.target != "" {
		bn.TargetURL = link.target
	}
	trackingURL := bannerTrackingURL(s.trackingBase, account.Ref.ID, bn.ID) + linkQuery(link)
	buf := getBody()
	b := st.neg.open(*buf)
	if st.neg.format == formatXML {
		// appendBannerXML writes a list's item; the root carries the
		// namespaces.
		start := len(b)
		b = appendBannerXML(b, bn, trackingURL)
		item := append([]byte(nil), b[start+len("<Banner>"):]...)
		b = append(appendXMLOpen(b[:start], "Banner", st.ns), item...)
	} else {
		b = appendBannerJSON(b, bn, trackingURL)
	}
	s.respond(w, st, http.StatusOK, st.neg.close(b))
	putBody(buf, b)
	return nil
}

package api

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/afftrack/afftrack"
)

// The coupons and promotions of the V1 surface (v1-surface.md sections
// 1.1, 2.3 and 4): the affiliate's lists, with its own tracking links,
// one promotion by id with a targetUrl and sub-ids in its link, and the
// merchant's lists with the assigned affiliates.

// offerNames are the element names of each kind: the array and the item.
var offerNames = map[afftrack.OfferKind]struct{ array, item, path string }{
	afftrack.OfferCoupon:    {"CouponArray", "Coupon", "/c/"},
	afftrack.OfferPromotion: {"PromotionArray", "Promotion", "/o/"},
}

// linkTargetParam is the path wildcard of a tracking link's target.
func linkTargetParam(kind afftrack.LinkKind) string {
	switch kind {
	case afftrack.LinkTextLink:
		return "merchantId"
	case afftrack.LinkCoupon:
		return "couponId"
	case afftrack.LinkPromotion:
		return "promotionId"
	}
	return "bannerId"
}

// handleAffiliateOffers lists the coupons or promotions the affiliate
// sees now, each with its own tracking link and code.
func (s *Server) handleAffiliateOffers(kind afftrack.OfferKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
		st := stateOf(r)
		f := afftrack.AffiliateOfferFilter{AffiliateID: account.Ref.ID,
			Now: afftrack.WallClock(s.clock(), s.location())}
		p := params{q: st.query}
		p.int64("merchantId", &f.MerchantID)
		p.text("merchantName", &f.MerchantName)
		if p.err != nil {
			return p.err
		}
		list, err := s.svc.Offers.FindAffiliateOffers(r.Context(), kind, f)
		if err != nil {
			return err
		}
		s.writeOffers(w, st, kind, list, func(o *afftrack.Offer) string {
			return offerTrackingURL(s.trackingBase, account.Ref.ID, o, offerLink{})
		})
		return nil
	}
}

// handleAffiliateOffer returns one offer the affiliate sees, by id; its
// targetUrl and uniqueId .. uniqueId4 enter its tracking link.
func (s *Server) handleAffiliateOffer(kind afftrack.OfferKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
		st := stateOf(r)
		id, err := parseInt("id", pathValue(r, "id"))
		if err != nil {
			return err
		}
		link, err := parseOfferLink(st.query)
		if err != nil {
			return err
		}
		o, err := s.svc.Offers.FindAffiliateOffer(r.Context(), kind, account.Ref.ID, id,
			afftrack.WallClock(s.clock(), s.location()))
		if err != nil {
			return err
		}
		if link.target != "" {
			if afftrack.Destination(link.target, "", o.AllowedHosts) == "" {
				return afftrack.Errorf(afftrack.EINVALID, "targetUrl: %q is not on a host the program allows", link.target)
			}
			o.TargetURL = link.target
		}
		trackingURL := offerTrackingURL(s.trackingBase, account.Ref.ID, o, link)
		buf := getBody()
		b := st.neg.open(*buf)
		if st.neg.format == formatXML {
			b = appendOfferXML(b, o, st.ns, trackingURL)
		} else {
			b = appendOfferJSON(b, o, trackingURL)
		}
		s.respond(w, st, http.StatusOK, st.neg.close(b))
		putBody(buf, b)
		return nil
	}
}

// handleMerchantOffers lists the merchant's own coupons or promotions,
// whatever their dates, with the affiliates they are assigned to.
func (s *Server) handleMerchantOffers(kind afftrack.OfferKind) apiHandler {
	return func(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
		st := stateOf(r)
		f := afftrack.MerchantOfferFilter{MerchantID: account.Ref.ID}
		p := params{q: st.query}
		p.int64("affiliateId", &f.AffiliateID)
		p.text("affiliateContactName", &f.AffiliateContactName)
		p.text("affiliateBusinessName", &f.AffiliateBusinessName)
		if p.err != nil {
			return p.err
		}
		list, err := s.svc.Offers.FindMerchantOffers(r.Context(), kind, f)
		if err != nil {
			return err
		}
		s.writeOffers(w, st, kind, list, nil)
		return nil
	}
}

// writeOffers answers a list; trackingURL is nil for the merchant's view.
func (s *Server) writeOffers(w http.ResponseWriter, st *requestState, kind afftrack.OfferKind, list []*afftrack.Offer,
	trackingURL func(*afftrack.Offer) string) {
	names := offerNames[kind]
	buf := getBody()
	b := st.neg.open(*buf)
	link := func(o *afftrack.Offer) string {
		if trackingURL == nil {
			return ""
		}
		return trackingURL(o)
	}
	if st.neg.format == formatXML {
		b = appendXMLOpen(b, names.array, st.ns)
		for _, o := range list {
			b = appendOfferXML(b, o, "", link(o))
		}
		b = appendXMLClose(b, names.array)
	} else {
		b = append(b, '[')
		for i, o := range list {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendOfferJSON(b, o, link(o))
		}
		b = append(b, ']')
	}
	s.respond(w, st, http.StatusOK, st.neg.close(b))
	putBody(buf, b)
}

// offerLink is what a request adds to an offer's tracking link: a deep
// link and the affiliate's sub-ids; "" leaves one out.
type offerLink struct {
	target string
	unique [4]string
}

// offerUniqueIDNames are the sub-id parameters and the names they take
// in a tracking link.
var offerUniqueIDNames = [4][2]string{
	{"uniqueId", "UniqueId"}, {"uniqueId2", "UniqueId2"}, {"uniqueId3", "UniqueId3"}, {"uniqueId4", "UniqueId4"},
}

// parseOfferLink reads targetUrl and uniqueId .. uniqueId4. A targetUrl
// that is no http(s) URL is refused here; its host is checked once the
// offer, and so its program, is known.
func parseOfferLink(q query) (offerLink, error) {
	var l offerLink
	p := params{q: q}
	if v := p.value("targetUrl"); v != "" {
		switch {
		case len(v) > afftrack.MaxDeepLinkLength:
			return l, afftrack.Errorf(afftrack.EINVALID, "targetUrl: is %d bytes long; at most %d",
				len(v), afftrack.MaxDeepLinkLength)
		case strings.ContainsFunc(v, func(c rune) bool { return c <= ' ' || c == 0x7f || c == '\\' }):
			return l, afftrack.Errorf(afftrack.EINVALID,
				"targetUrl: %q holds a space, a control character or a backslash, which a link must percent-encode", v)
		case afftrack.URLHost(v) == "":
			return l, afftrack.Errorf(afftrack.EINVALID, "targetUrl: %q is not an http or https URL", v)
		}
		l.target = v
	}
	for i, n := range offerUniqueIDNames {
		v := p.value(n[0])
		if c := utf8.RuneCountInString(v); c > afftrack.MaxUniqueIDLength {
			return l, afftrack.Errorf(afftrack.EINVALID, "%s: is %d characters long; at most %d are allowed",
				n[0], c, afftrack.MaxUniqueIDLength)
		}
		l.unique[i] = v
	}
	return l, p.err
}

// offerTrackingURL is the affiliate's link of an offer:
// {base}/{affiliateId}/c/{couponId} or .../o/{promotionId}, with Url and
// UniqueId .. UniqueId4 as given, percent-encoded (a space as %20).
func offerTrackingURL(base string, affiliateID int64, o *afftrack.Offer, l offerLink) string {
	var b strings.Builder
	b.WriteString(base)
	b.WriteByte('/')
	b.WriteString(strconv.FormatInt(affiliateID, 10))
	b.WriteString(offerNames[o.Kind].path)
	b.WriteString(strconv.FormatInt(o.ID, 10))
	sep := byte('?')
	add := func(name, v string) {
		if v == "" {
			return
		}
		b.WriteByte(sep)
		sep = '&'
		b.WriteString(name)
		b.WriteByte('=')
		// QueryEscape writes a space as + and a + as %2B, so every +
		// left is a space.
		b.WriteString(strings.ReplaceAll(url.QueryEscape(v), "+", "%20"))
	}
	add("Url", l.target)
	for i, n := range offerUniqueIDNames {
		add(n[1], l.unique[i])
	}
	return b.String()
}

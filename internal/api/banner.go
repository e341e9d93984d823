package api

import (
	"net/http"

	"github.com/afftrack/afftrack"
)

// handleBanners lists the banners of the merchants the affiliate has
// joined, but for those of expired groups, each with the affiliate's own
// tracking link and embed code.
func (s *Server) handleBanners(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	st := stateOf(r)
	f := afftrack.BannerFilter{AffiliateID: account.Ref.ID, Now: afftrack.WallClock(s.clock(), s.location())}
	p := params{q: st.query}
	p.int64("merchantId", &f.MerchantID)
	p.text("merchantName", &f.MerchantName)
	p.text("groupName", &f.GroupName)
	p.text("size", &f.Size)
	p.int64("width", &f.Width)
	p.int64("height", &f.Height)
	if p.err != nil {
		return p.err
	}
	banners, err := s.svc.Banners.FindBanners(r.Context(), f)
	if err != nil {
		return err
	}
	b := st.neg.open(make([]byte, 0, 1024*(len(banners)+1)))
	if st.neg.format == formatXML {
		b = appendXMLOpen(b, "BannerArray", st.ns)
		for _, bn := range banners {
			b = appendBannerXML(b, bn, bannerTrackingURL(s.trackingBase, account.Ref.ID, bn.ID))
		}
		b = appendXMLClose(b, "BannerArray")
	} else {
		b = append(b, '[')
		for i, bn := range banners {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendBannerJSON(b, bn, bannerTrackingURL(s.trackingBase, account.Ref.ID, bn.ID))
		}
		b = append(b, ']')
	}
	s.respond(w, st, http.StatusOK, st.neg.close(b))
	return nil
}

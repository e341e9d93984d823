package api

import (
	"net/http"

	"github.com/afftrack/afftrack"
)

// The merchant's Affiliates, Banners and BannerGroups of the V1 surface
// (v1-surface.md section 4): lists ordered by Id and one row by id, each
// of the merchant's own only (another merchant's row is a 404).

// handleMemberAffiliates lists the merchant's affiliates, TrafficSources
// null.
func (s *Server) handleMemberAffiliates(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	st := stateOf(r)
	f := afftrack.MemberAffiliateFilter{MerchantID: account.Ref.ID}
	p := params{q: st.query}
	paramEnum(&p, "status", &f.Status, afftrack.ParseAffiliateStatus, afftrack.AffiliateStatusNames())
	if p.err != nil {
		return p.err
	}
	list, err := s.svc.MerchantViews.FindMemberAffiliates(r.Context(), f)
	if err != nil {
		return err
	}
	writeMerchantViewList(s, w, st, "AffiliateArray", list, appendMemberAffiliateJSON, appendMemberAffiliateXML)
	return nil
}

// handleMemberAffiliate returns one of the merchant's affiliates with its
// traffic sources.
func (s *Server) handleMemberAffiliate(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	id, err := parseInt("id", pathValue(r, "id"))
	if err != nil {
		return err
	}
	a, err := s.svc.MerchantViews.FindMemberAffiliate(r.Context(), account.Ref.ID, id)
	if err != nil {
		return err
	}
	writeMerchantViewItem(s, w, stateOf(r), a, appendMemberAffiliateJSON, appendMemberAffiliateXML)
	return nil
}

// handleMerchantBanners lists the merchant's banners, expired groups
// included.
func (s *Server) handleMerchantBanners(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	st := stateOf(r)
	f := afftrack.MerchantBannerFilter{MerchantID: account.Ref.ID}
	p := params{q: st.query}
	p.int64("bannerGroupId", &f.BannerGroupID)
	p.text("bannerGroupName", &f.BannerGroupName)
	p.text("size", &f.Size)
	p.int64("width", &f.Width)
	p.int64("height", &f.Height)
	p.bool("defaultForSize", &f.DefaultForSize)
	if p.err != nil {
		return p.err
	}
	list, err := s.svc.MerchantViews.FindMerchantBanners(r.Context(), f)
	if err != nil {
		return err
	}
	writeMerchantViewList(s, w, st, "BannerArray", list, appendMerchantBannerJSON, appendMerchantBannerXML)
	return nil
}

// handleMerchantBanner returns one of the merchant's banners.
func (s *Server) handleMerchantBanner(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	id, err := parseInt("id", pathValue(r, "id"))
	if err != nil {
		return err
	}
	b, err := s.svc.MerchantViews.FindMerchantBanner(r.Context(), account.Ref.ID, id)
	if err != nil {
		return err
	}
	writeMerchantViewItem(s, w, stateOf(r), b, appendMerchantBannerJSON, appendMerchantBannerXML)
	return nil
}

// handleBannerGroups lists the merchant's banner groups; it takes no
// parameters (ref).
func (s *Server) handleBannerGroups(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	list, err := s.svc.MerchantViews.FindBannerGroups(r.Context(), account.Ref.ID)
	if err != nil {
		return err
	}
	writeMerchantViewList(s, w, stateOf(r), "BannerGroupArray", list, appendBannerGroupJSON, appendBannerGroupXML)
	return nil
}

// handleBannerGroup returns one of the merchant's banner groups.
func (s *Server) handleBannerGroup(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	id, err := parseInt("id", pathValue(r, "id"))
	if err != nil {
		return err
	}
	g, err := s.svc.MerchantViews.FindBannerGroup(r.Context(), account.Ref.ID, id)
	if err != nil {
		return err
	}
	writeMerchantViewItem(s, w, stateOf(r), g, appendBannerGroupJSON, appendBannerGroupXML)
	return nil
}

// writeMerchantViewList answers a list: a JSON array, or an XML array
// element named array holding one element per item.
func writeMerchantViewList[T any](s *Server, w http.ResponseWriter, st *requestState, array string, list []T,
	appendJSON func([]byte, T) []byte, appendXML func([]byte, T, string) []byte) {
	buf := getBody()
	b := st.neg.open(*buf)
	if st.neg.format == formatXML {
		b = appendXMLOpen(b, array, st.ns)
		for _, v := range list {
			b = appendXML(b, v, "")
		}
		b = appendXMLClose(b, array)
	} else {
		b = append(b, '[')
		for i, v := range list {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, v)
		}
		b = append(b, ']')
	}
	s.respond(w, st, http.StatusOK, st.neg.close(b))
	putBody(buf, b)
}

// writeMerchantViewItem answers one item, in XML the document's root.
func writeMerchantViewItem[T any](s *Server, w http.ResponseWriter, st *requestState, v T,
	appendJSON func([]byte, T) []byte, appendXML func([]byte, T, string) []byte) {
	buf := getBody()
	b := st.neg.open(*buf)
	if st.neg.format == formatXML {
		b = appendXML(b, v, st.ns)
	} else {
		b = appendJSON(b, v)
	}
	s.respond(w, st, http.StatusOK, st.neg.close(b))
	putBody(buf, b)
}

package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/afftrack/afftrack"
)

// The tracking routes answer browsers, not API clients: a redirect, a
// short plain-text page or a GIF, never an API error document.

// handleClick answers a click on a tracking link of the given kind: a 302
// to the link's destination, with the click recorded behind it.
func (s *Server) handleClick(kind afftrack.LinkKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		target := linkTargetParam(kind)
		affiliateID, err1 := strconv.ParseInt(pathValue(r, "affiliateId"), 10, 64)
		targetID, err2 := strconv.ParseInt(pathValue(r, target), 10, 64)
		if err1 != nil || err2 != nil || affiliateID < 1 || targetID < 1 {
			trackingPage(w, http.StatusNotFound, "This tracking link leads nowhere.")
			return
		}
		link, err := s.svc.Tracking.FindLink(r.Context(),
			afftrack.LinkKey{AffiliateID: affiliateID, Kind: kind, TargetID: targetID})
		switch afftrack.ErrorCode(err) {
		case "":
		case afftrack.ENOTFOUND:
			trackingPage(w, http.StatusNotFound, "This tracking link leads nowhere.")
			return
		default:
			if r.Context().Err() != nil {
				// The visitor left while the store was asked.
				s.abortClientGone(r, err)
			}
			// A link never seen while the store is down: nothing to go on.
			// The visitor gets a page, not the API's error body, so
			// writeError is not the way out; the cause is logged as every
			// internal error is.
			s.logInternal(r, fmt.Errorf("tracking link lookup: %w", err))
			w.Header().Set(headerRetryAfter, "5")
			trackingPage(w, http.StatusServiceUnavailable, "Tracking is unavailable for a moment; please try again.")
			return
		}

		q := stateOf(r).query
		allowed := append([]string{afftrack.URLHost(link.TargetURL)}, link.Program.DeepLinkHosts()...)
		dest := afftrack.Destination(q.get("Url"), link.TargetURL, allowed)
		if dest == "" {
			trackingPage(w, http.StatusNotFound, "This tracking link leads nowhere.")
			return
		}
		if r.Method == http.MethodHead {
			// A link checker's or a preview's request, not a customer's
			// visit: it learns where the link leads, and nothing is
			// recorded, credited or set.
			w.Header().Set("Location", dest)
			w.WriteHeader(http.StatusFound)
			return
		}
		bot := s.crawlers.isCrawler(r.UserAgent())
		now := s.clock()
		c := afftrack.Click{
			ID:           afftrack.NewClickID(),
			Time:         afftrack.WallClock(now, s.location()),
			MerchantID:   link.MerchantID,
			AffiliateID:  affiliateID,
			CreativeType: afftrack.CreativeTypeTextLink,
			Referer:      truncate(afftrack.CleanText(r.Referer()), afftrack.MaxRefererLength),
			Bot:          bot,
			Credited:     link.Eligible && !bot,
			TrafficType:  link.TrafficType,
		}
		if c.TrafficType == 0 { // no membership
			c.TrafficType = afftrack.TrafficTypeWebsite
		}
		if link.Banner.Valid {
			c.CreativeType, c.CreativeID = afftrack.CreativeTypeBanner, link.Banner
		}
		if kind == afftrack.LinkCoupon || kind == afftrack.LinkPromotion {
			c.CreativeType, c.CreativeID = kind.Creative(), afftrack.Some(targetID)
		}
		for i, name := range [4]string{"UniqueId", "UniqueId2", "UniqueId3", "UniqueId4"} {
			// Kept, not refused: a sub-id is the affiliate's own
			// label, and the customer must reach the shop whatever it
			// holds; what cannot be stored becomes U+FFFD.
			c.UniqueIDs[i] = truncate(afftrack.CleanText(q.get(name)), afftrack.MaxUniqueIDLength)
		}
		if ip, ok := s.customerIP(r); ok {
			c.IPHash = s.hashIP(ip)
			if s.svc.Countries != nil {
				if country, ok := s.svc.Countries.Country(ip); ok {
					c.CountryCode, c.CountryName = country.Alpha3, country.Name
				}
			}
		}
		if !s.svc.Clicks.Add(c) {
			// The buffer is full (the store has been down a while): the
			// customer still reaches the merchant, uncredited, since a
			// click id that was never stored could never be credited.
			c.Credited = false
		}
		if c.Credited {
			dest = afftrack.AppendClickParams(dest, link.Program.ClickAppend, afftrack.ClickValues{
				ClickID: c.ID, AffiliateID: affiliateID, CreativeID: c.CreativeID, CreativeType: c.CreativeType,
				UniqueIDs: c.UniqueIDs})
			s.setClickCookie(w, link, c.ID)
		}
		w.Header().Set("Location", dest)
		w.WriteHeader(http.StatusFound)
	}
}

// setClickCookie sets afftrack_{merchantId} to the click id for the
// program's cookie window, so the pixel can credit the sale.
func (s *Server) setClickCookie(w http.ResponseWriter, link *afftrack.Link, clickID string) {
	ck := &http.Cookie{
		Name:     "afftrack_" + strconv.FormatInt(link.MerchantID, 10),
		Value:    clickID,
		Path:     "/",
		MaxAge:   int(link.Program.CookieDays * 24 * 60 * 60),
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
	}
	if ck.MaxAge <= 0 {
		ck.MaxAge = -1 // CookieDays 0: a click is never credited later, so no cookie is kept
	}
	if s.secureCookies {
		ck.Secure, ck.SameSite = true, http.SameSiteNoneMode
	}
	http.SetCookie(w, ck)
}

// customerIP is the client's address: the socket's, or with TrustProxy the
// first X-Forwarded-For entry, which the proxy in front wrote.
func (s *Server) customerIP(r *http.Request) (netip.Addr, bool) {
	if s.cfg.TrustProxy {
		if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
			first, _, _ := strings.Cut(xff, ",")
			if ip, err := netip.ParseAddr(strings.TrimSpace(first)); err == nil {
				return ip.Unmap(), true
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return ip.Unmap(), true
}

// hashIP is a customer's address as a click stores it: a keyed hash, 32
// hex digits. The key is the network's secret, so the hash cannot be
// reversed by hashing every address.
func (s *Server) hashIP(ip netip.Addr) string {
	m := hmac.New(sha256.New, s.svc.IPHashKey)
	m.Write(ip.AsSlice())
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// truncate cuts s to its first n characters: tracking.md counts a
// sub-id's and a Referer's length in characters, not bytes.
func truncate(s string, n int) string {
	if len(s) <= n { // n bytes hold at most n characters
		return s
	}
	chars := 0
	for i := range s {
		if chars == n {
			return s[:i]
		}
		chars++
	}
	return s
}

// trackingPage answers a tracking route with a short plain-text page.
func trackingPage(w http.ResponseWriter, status int, text string) {
	h := w.Header()
	h.Set(headerContentType, "text/plain; charset=utf-8")
	h.Set(headerContentLength, strconv.Itoa(len(text)+1))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text + "\n"))
}

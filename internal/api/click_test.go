package api_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

var hex32 = regexp.MustCompile(`^[0-9a-f]{32}$`)

// checkCookie checks that r sets exactly one cookie, name=value, with
// exactly the attributes given (in any order).
func checkCookie(t *testing.T, r trResponse, name, value string, attrs ...string) {
	t.Helper()
	set := r.Header.Values("Set-Cookie")
	if len(set) != 1 {
		t.Fatalf("Set-Cookie %q, want one cookie", set)
	}
	parts := strings.Split(set[0], "; ")
	if parts[0] != name+"="+value {
		t.Errorf("cookie %q, want %s=%s", parts[0], name, value)
	}
	got := slices.Clone(parts[1:])
	slices.Sort(got)
	want := slices.Clone(attrs)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("cookie attributes %q, want %q", got, want)
	}
}

func TestCreditedBannerClick(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	// Lengths are in characters (tracking.md section 2), so a sub-id of
	// 300 three-byte characters keeps 255 of them, not 255 bytes.
	long := strings.Repeat("€", 300)
	referer := "https://blog.example.org/" + strings.Repeat("é", 3000)
	r := e.click("/t/1/b/1?UniqueId=sub1&uniqueid2="+url.QueryEscape(long)+"&UNIQUEID3=three&UniqueId4=four",
		"Referer", referer)
	if r.StatusCode != http.StatusFound {
		t.Fatalf("status %d %q, want 302", r.StatusCode, r.body)
	}
	loc := r.Header.Get("Location")
	if !strings.HasPrefix(loc, trBanner1+"?afftrack_click=") {
		t.Fatalf("Location %q, want %s?afftrack_click=<id>", loc, trBanner1)
	}
	id := strings.TrimPrefix(loc, trBanner1+"?afftrack_click=")
	if !hex32.MatchString(id) {
		t.Fatalf("click id %q is not 32 lowercase hex digits", id)
	}
	if got := r.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", got)
	}
	checkCookie(t, r, "afftrack_1", id, "Path=/", fmt.Sprintf("Max-Age=%d", 30*86400), "HttpOnly", "SameSite=Lax")

	c := e.waitClick("id", id)
	want := clickRow{ID: id, MerchantID: 1, AffiliateID: 1, CreativeType: 2, Credited: true,
		UniqueIDs: [4]string{"sub1", strings.Repeat("€", 255), "three", "four"}, TrafficType: int64(afftrack.TrafficTypeWebsite)}
	want.CreativeID.Int64, want.CreativeID.Valid = 1, true
	want.Referer = "https://blog.example.org/" + strings.Repeat("é", 2048-len("https://blog.example.org/"))
	want.IPHash = c.IPHash // checked below
	if c != want {
		t.Errorf("click row\n got %+v\nwant %+v", c, want)
	}
	if !hex32.MatchString(c.IPHash) {
		t.Errorf("ip_hash %q is not 32 hex digits", c.IPHash)
	}
	if c.CountryCode != "" || c.CountryName != "" {
		t.Errorf("a loopback client was placed in %q %q", c.CountryCode, c.CountryName)
	}

	// A second click is a new click with a new id.
	if id2 := e.creditedClick("/t/1/b/1"); id2 == id {
		t.Errorf("two clicks share the id %s", id)
	}
}

// TestClickRecordsTheMembershipsTrafficType: a click counts under its
// membership's TrafficType (v1-surface.md section 5), Website without one.
func TestClickRecordsTheMembershipsTrafficType(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	for _, c := range []struct {
		path string
		want afftrack.TrafficType
	}{
		{"/t/1/t/2", afftrack.TrafficTypeEmailList}, // Joined, Email List
		{"/t/2/t/1", afftrack.TrafficTypeWebsite},   // Pending, no TrafficType given
		{"/t/4/b/1", afftrack.TrafficTypeWebsite},   // no membership
	} {
		r := e.click(c.path, "Referer", "https://ref.example/"+c.path)
		if r.StatusCode != http.StatusFound {
			t.Fatalf("%s: status %d %q, want 302", c.path, r.StatusCode, r.body)
		}
		if got := e.waitClick("referer", "https://ref.example/"+c.path); afftrack.TrafficType(got.TrafficType) != c.want {
			t.Errorf("%s: click TrafficType %s, want %s", c.path, afftrack.TrafficType(got.TrafficType), c.want)
		}
	}
}

func TestClickCookieOnHTTPS(t *testing.T) {
	e := newTrackingEnv(t, trOptions{publicURL: "https://track.example.com"})
	r := e.click("/t/1/b/2")
	if r.StatusCode != http.StatusFound {
		t.Fatalf("status %d %q, want 302", r.StatusCode, r.body)
	}
	// Merchant 2's ClickAppend with its shortcodes expanded.
	loc := r.Header.Get("Location")
	const prefix = trBanner2 + "?utm_source=afftrack&cid="
	if !strings.HasPrefix(loc, prefix) {
		t.Fatalf("Location %q, want %s<id>...", loc, prefix)
	}
	id, _, _ := strings.Cut(strings.TrimPrefix(loc, prefix), "&")
	if want := prefix + id + "&aff=1&cr=2&ct=Banner&u1=&u4="; loc != want {
		t.Errorf("Location %q, want %q", loc, want)
	}
	checkCookie(t, r, "afftrack_2", id, "Path=/", fmt.Sprintf("Max-Age=%d", 7*86400), "HttpOnly", "Secure", "SameSite=None")
}

func TestClickCookieOfAnHTTPTrackingHostBehindAnHTTPSAPI(t *testing.T) {
	e := newTrackingEnv(t, trOptions{publicURL: "https://api.example.com", trackingRoot: true})
	r := e.click("/1/b/2")
	if r.StatusCode != http.StatusFound {
		t.Fatalf("status %d %q, want 302", r.StatusCode, r.body)
	}
	loc := r.Header.Get("Location")
	id, _, _ := strings.Cut(strings.TrimPrefix(loc, trBanner2+"?utm_source=afftrack&cid="), "&")
	checkCookie(t, r, "afftrack_2", id, "Path=/", fmt.Sprintf("Max-Age=%d", 7*86400), "HttpOnly", "SameSite=Lax")
}

func TestClickAppendShortcodes(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	r := e.click("/t/1/t/2?UniqueId=a%20b%26c&UniqueId4=z")
	loc := r.Header.Get("Location")
	const prefix = trTarget2 + "?utm_source=afftrack&cid="
	if r.StatusCode != http.StatusFound || !strings.HasPrefix(loc, prefix) {
		t.Fatalf("%d Location %q, want 302 to %s<id>...", r.StatusCode, loc, prefix)
	}
	id, _, _ := strings.Cut(strings.TrimPrefix(loc, prefix), "&")
	if want := prefix + id + "&aff=1&cr=&ct=Text+Link&u1=a+b%26c&u4=z"; loc != want {
		t.Errorf("Location %q, want %q", loc, want)
	}
	c := e.waitClick("id", id)
	if c.CreativeType != 1 || c.CreativeID.Valid || c.MerchantID != 2 {
		t.Errorf("text link click stored as creative %d/%v of merchant %d", c.CreativeType, c.CreativeID, c.MerchantID)
	}
}

func TestClickCountryAndProxy(t *testing.T) {
	for _, trust := range []bool{true, false} {
		t.Run(fmt.Sprintf("TrustProxy=%v", trust), func(t *testing.T) {
			e := newTrackingEnv(t, trOptions{trustProxy: trust})
			plain := e.waitClick("id", e.creditedClick("/t/1/b/1"))
			r := e.click("/t/1/b/1", "X-Forwarded-For", trGeoAddress+", 10.0.0.1")
			id := clickIDOf(r.Header.Get("Location"))
			if r.StatusCode != http.StatusFound || id == "" {
				t.Fatalf("%d %q", r.StatusCode, r.Header.Get("Location"))
			}
			c := e.waitClick("id", id)
			if trust {
				if c.CountryCode != "AUS" || c.CountryName != "Australia" {
					t.Errorf("country %q %q, want AUS Australia", c.CountryCode, c.CountryName)
				}
				if c.IPHash == plain.IPHash || !hex32.MatchString(c.IPHash) {
					t.Errorf("ip_hash %q: want the hash of %s, not of the socket's address (%q)", c.IPHash, trGeoAddress, plain.IPHash)
				}
			} else {
				if c.CountryCode != "" || c.CountryName != "" {
					t.Errorf("X-Forwarded-For was believed without TrustProxy: country %q %q", c.CountryCode, c.CountryName)
				}
				if c.IPHash != plain.IPHash {
					t.Errorf("ip_hash %q, want the socket address's %q", c.IPHash, plain.IPHash)
				}
			}
		})
	}
}

func TestTextLinkClick(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	r := e.click("/t/1/t/1")
	loc := r.Header.Get("Location")
	if r.StatusCode != http.StatusFound || !strings.HasPrefix(loc, trTarget1+"&afftrack_click=") {
		t.Fatalf("%d Location %q, want 302 to %s&afftrack_click=<id>", r.StatusCode, loc, trTarget1)
	}
	id := clickIDOf(loc)
	checkCookie(t, r, "afftrack_1", id, "Path=/", fmt.Sprintf("Max-Age=%d", 30*86400), "HttpOnly", "SameSite=Lax")
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", r.Header.Get("Cache-Control"))
	}

	t.Run("deep link to an allowed subdomain", func(t *testing.T) {
		deep := "https://deals.partner.example/sale?x=1"
		r := e.click("/t/1/t/1?url=" + url.QueryEscape(deep))
		loc := r.Header.Get("Location")
		if r.StatusCode != http.StatusFound || !strings.HasPrefix(loc, deep+"&afftrack_click=") {
			t.Fatalf("%d Location %q, want 302 to %s&afftrack_click=<id>", r.StatusCode, loc, deep)
		}
		if !hex32.MatchString(clickIDOf(loc)) {
			t.Errorf("Location %q has no click id", loc)
		}
	})
	t.Run("deep link to the banner's host from a banner", func(t *testing.T) {
		deep := "https://promo.bannerhost.example/other"
		r := e.click("/t/1/b/1?Url=" + url.QueryEscape(deep))
		if loc := r.Header.Get("Location"); !strings.HasPrefix(loc, deep+"?afftrack_click=") {
			t.Errorf("Location %q, want %s?afftrack_click=<id>", loc, deep)
		}
	})
	// The banners' hosts are the program's (tracking.md section 1): any
	// link of the merchant may lead there, a text link too.
	t.Run("deep link to a banner's host from a text link", func(t *testing.T) {
		deep := "https://promo.bannerhost.example/other"
		r := e.click("/t/1/t/1?Url=" + url.QueryEscape(deep))
		if loc := r.Header.Get("Location"); !strings.HasPrefix(loc, deep+"?afftrack_click=") {
			t.Errorf("Location %q, want %s?afftrack_click=<id>", loc, deep)
		}
	})
	t.Run("deep link to another merchant's banner host is not followed", func(t *testing.T) {
		r := e.click("/t/1/t/1?Url=" + url.QueryEscape(trBanner2))
		if loc := r.Header.Get("Location"); !strings.HasPrefix(loc, trTarget1+"&afftrack_click=") {
			t.Errorf("Location %q, want the default %s&afftrack_click=<id>", loc, trTarget1)
		}
	})
}

func TestDeepLinkIsNeverAnOpenRedirect(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	tricks := []string{
		"https://evil.com/",
		"http://evil.com/partner.example",
		"https://partner.example.evil.com/",
		"https://evilpartner.example/",
		"https://partner.example@evil.com/",
		"https://evil.com@partner.example/",
		"https://partner.example:443@evil.com/",
		"//evil.com/",
		"//partner.example/",
		"///evil.com/",
		"javascript:alert(1)",
		"JavaScript://partner.example/%0Aalert(1)",
		"data:text/html,<script>alert(1)</script>",
		"ftp://partner.example/",
		`https:\\evil.com`,
		`https://partner.example\@evil.com/`,
		`https://evil.com\.partner.example/`,
		"https://%65vil.com/",
		"https://partner%2Eexample/",
		"https://evil.com%2F.partner.example/",
		"https://partner.example\r\nLocation: https://evil.com/",
		"https://evil.com\r\n.partner.example/",
		"https://evil\t.com/",
		"https://evil.com#.partner.example",
		"https://evil.com?.partner.example",
		"https://evil.com/.partner.example",
		"https://[::1]/",
		"http://0x7f.1/",
		"https:evil.com",
		"evil.com",
		"/relative/path",
		" https://evil.com/",
		"https://evіl.com/", // Cyrillic i
		"https://partner.example\x00.evil.com/",
		strings.Repeat("a", 5000),
		"https://deals.partner.example/" + strings.Repeat("x", 3000), // too long to follow
	}
	for _, trick := range tricks {
		t.Run(fmt.Sprintf("%.40q", trick), func(t *testing.T) {
			r := e.click("/t/1/t/1?Url=" + url.QueryEscape(trick))
			loc := r.Header.Get("Location")
			if r.StatusCode != http.StatusFound || !strings.HasPrefix(loc, trTarget1+"&afftrack_click=") {
				t.Fatalf("%d Location %q, want 302 to the default %s&afftrack_click=<id>", r.StatusCode, loc, trTarget1)
			}
			u, err := url.Parse(loc)
			if err != nil || u.Host != "shop.example.com" || strings.ContainsAny(loc, "\r\n\\") {
				t.Errorf("Location %q does not lead to shop.example.com", loc)
			}
		})
	}
}

func TestUncreditedClicks(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	tests := []struct {
		name, path, ua string
		wantLoc        string
		bot            bool
	}{
		{"affiliate not joined", "/t/4/t/1", trBrowserUA, trTarget1, false},
		{"membership Pending", "/t/2/b/1", trBrowserUA, trBanner1, false},
		{"affiliate Suspended", "/t/3/t/1", trBrowserUA, trTarget1, false},
		{"a crawler", "/t/1/b/1", trGooglebotUA, trBanner1, true},
		{"a crawler on a text link", "/t/1/t/2", trGooglebotUA, trTarget2, true},
		{"curl", "/t/1/t/1", "curl/8.5.0", trTarget1, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tag := fmt.Sprintf("uncredited-%d-%d", i, time.Now().UnixNano())
			r := e.do(http.MethodGet, tt.path+"?UniqueId="+tag, nil, "User-Agent", tt.ua)
			if r.StatusCode != http.StatusFound {
				t.Fatalf("status %d %q, want 302", r.StatusCode, r.body)
			}
			if loc := r.Header.Get("Location"); loc != tt.wantLoc {
				t.Errorf("Location %q, want %q (no ClickAppend)", loc, tt.wantLoc)
			}
			if set := r.Header.Values("Set-Cookie"); len(set) != 0 {
				t.Errorf("Set-Cookie %q on an uncredited click", set)
			}
			if r.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", r.Header.Get("Cache-Control"))
			}
			c := e.waitClick("unique_id", tag)
			if c.Credited || c.Bot != tt.bot {
				t.Errorf("click row credited=%v bot=%v, want credited=false bot=%v", c.Credited, c.Bot, tt.bot)
			}
			if !hex32.MatchString(c.ID) {
				t.Errorf("click id %q", c.ID)
			}
		})
	}
}

func TestClickNotFound(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	for _, path := range []string{
		"/t/999/b/1",                  // unknown affiliate
		"/t/999/t/1",                  // unknown affiliate, text link
		"/t/1/b/999",                  // unknown banner
		"/t/1/t/999",                  // unknown merchant
		"/t/abc/b/1",                  // non-numeric affiliate
		"/t/1/b/abc",                  // non-numeric banner
		"/t/1/t/1x",                   // non-numeric merchant
		"/t/0/t/1",                    // not an id
		"/t/-1/t/1",                   // not an id
		"/t/1/t/99999999999999999999", // out of range
		"/t/1/t/3",                    // merchant Closed
		"/t/1/b/3",                    // banner of a Closed merchant
		"/t/1/t/4",                    // merchant without a program
	} {
		t.Run(path, func(t *testing.T) {
			r := e.click(path)
			if r.StatusCode != http.StatusNotFound {
				t.Fatalf("status %d (Location %q), want 404", r.StatusCode, r.Header.Get("Location"))
			}
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("Content-Type %q, want text/plain", ct)
			}
			if strings.TrimSpace(r.body) == "" || strings.HasPrefix(r.body, "{") || strings.HasPrefix(r.body, "<") {
				t.Errorf("body %q, want a short plain-text page", r.body)
			}
			if r.Header.Get("Location") != "" || len(r.Header.Values("Set-Cookie")) != 0 {
				t.Errorf("a 404 redirects or sets a cookie: %v", r.Header)
			}
		})
	}
	t.Run("POST is 405 and not to be cached either", func(t *testing.T) {
		for _, path := range []string{"/t/1/b/1", "/t/1/t/1", "/t/px/1"} {
			r := e.do(http.MethodPost, path, strings.NewReader(""), "User-Agent", trBrowserUA)
			if r.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("POST %s: %d, want 405", path, r.StatusCode)
			}
			if allow := r.Header.Get("Allow"); !strings.Contains(allow, "GET") {
				t.Errorf("POST %s: Allow %q", path, allow)
			}
			if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("POST %s: Cache-Control %q, want no-store", path, cc)
			}
		}
	})
	t.Run("every other answer under the tracking path is not to be cached", func(t *testing.T) {
		for _, path := range []string{"/t", "/T/1/x/1", "/t/px/", "/t/1/b/"} {
			r := e.do(http.MethodGet, path, nil, "User-Agent", trBrowserUA)
			if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("GET %s: %d with Cache-Control %q, want no-store", path, r.StatusCode, cc)
			}
		}
		r := e.do(http.MethodGet, "/t/1/t/1", strings.NewReader("x"), "User-Agent", trBrowserUA)
		if cc := r.Header.Get("Cache-Control"); r.StatusCode != http.StatusBadRequest || cc != "no-store" {
			t.Errorf("GET with a body: %d with Cache-Control %q, want 400 and no-store", r.StatusCode, cc)
		}
	})
}

func TestClickIsCreditableAtOnce(t *testing.T) {
	// The buffer is not flushed by itself during the test: the conversion
	// finds the click only because the handler flushes it.
	e := newTrackingEnv(t, trOptions{flushInterval: time.Hour})
	for i, path := range []string{"/t/1/b/1", "/t/1/t/1"} {
		id := e.creditedClick(path)
		r := e.convert(fmt.Sprintf(`{"ClickId":%q,"OrderId":"at-once-%d","SaleValue":10}`, id, i))
		if r.StatusCode != http.StatusCreated {
			t.Fatalf("%s: conversion right after the click: %d %s", path, r.StatusCode, r.body)
		}
		tx := e.findTransaction(fmt.Sprintf("at-once-%d", i))
		if tx == nil || tx.AffiliateId != 1 || tx.TrackingMethod != "Server" {
			t.Errorf("%s: transaction %+v, want affiliate 1 by Server", path, tx)
		}
	}
}

// TestClickWithOddBytesIsStored: a click's UniqueIds and Referer are the
// client's bytes; whatever they hold, the click is stored (cleaned or cut
// as the store needs) and does not stop the clicks after it from being
// written. Runs on PostgreSQL too when storetest.PostgresEnv is set.
func TestClickWithOddBytesIsStored(t *testing.T) {
	for _, backend := range storetest.Backends(t) {
		t.Run(backend, func(t *testing.T) {
			e := newTrackingEnv(t, trOptions{backend: backend})
			odd := e.click("/t/1/t/1?UniqueId=odd%00nul&UniqueId2=%FF%FE&UniqueId3=a%C3&UniqueId4=ok",
				"Referer", "https://r.example/\xff\xfe")
			if odd.StatusCode != http.StatusFound {
				t.Fatalf("%d %s", odd.StatusCode, odd.body)
			}
			after := e.creditedClick("/t/1/t/1?UniqueId=after")
			e.waitClick("id", after)
			e.waitClick("id", clickIDOf(odd.Header.Get("Location")))
		})
	}
}

func TestClickHeadRecordsNothing(t *testing.T) {
	e := newTrackingEnv(t, trOptions{})
	r := e.do(http.MethodHead, "/t/1/t/1?UniqueId=head-check", nil, "User-Agent", trBrowserUA)
	if r.StatusCode != http.StatusFound || r.Header.Get("Location") == "" {
		t.Fatalf("HEAD: %d with Location %q, want 302 to the landing page", r.StatusCode, r.Header.Get("Location"))
	}
	if id := clickIDOf(r.Header.Get("Location")); id != "" || len(r.Header.Values("Set-Cookie")) != 0 {
		t.Errorf("HEAD: click id %q in Location, cookies %v; want neither", id, r.Header.Values("Set-Cookie"))
	}
	// Clicks are written in order: once a later one is stored, the HEAD's
	// would be too, had it been recorded.
	e.click("/t/1/t/1?UniqueId=after-head")
	e.waitClick("unique_id", "after-head")
	var n int
	if err := e.db.SQL().QueryRow(`SELECT COUNT(*) FROM clicks WHERE unique_id = 'head-check'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("HEAD recorded %d clicks, want none", n)
	}
}

// TestATrackingBaseAtTheRoot: with the tracking base at the host's root
// (--tracking-url with no path, as the reference's links have), links,
// the pixel and the interface are all served by the one server.
func TestATrackingBaseAtTheRoot(t *testing.T) {
	e := newTrackingEnv(t, trOptions{trackingRoot: true})
	t.Run("a text link at the root redirects with a click id", func(t *testing.T) {
		e.creditedClick("/1/t/1")
	})
	t.Run("a banner link at the root redirects with a click id", func(t *testing.T) {
		e.creditedClick("/1/b/1")
	})
	t.Run("the pixel at the root records a sale", func(t *testing.T) {
		id := e.creditedClick("/1/t/1")
		e.waitClick("id", id)
		r := e.click("/px/1?ClickId=" + id + "&OrderId=root-1&SaleValue=19.95")
		if r.StatusCode != http.StatusOK || e.transactionCount("root-1") != 1 {
			t.Errorf("pixel: %d %s, %d transactions of root-1", r.StatusCode, r.body, e.transactionCount("root-1"))
		}
	})
	t.Run("the interface still answers beside the links", func(t *testing.T) {
		r := e.do(http.MethodGet, "/V1/Affiliate/Banners?apiKey="+trAffiliate1Key, nil)
		if r.StatusCode != http.StatusOK || !strings.Contains(r.body, `"TrackingUrl":"`+e.srv.URL+`/1/b/1"`) {
			t.Errorf("GET /V1/Affiliate/Banners: %d %s", r.StatusCode, r.body)
		}
	})
	t.Run("the old /t path is no link", func(t *testing.T) {
		if r := e.click("/t/1/t/1"); r.StatusCode != http.StatusNotFound {
			t.Errorf("GET /t/1/t/1: %d, want 404", r.StatusCode)
		}
	})
}

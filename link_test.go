package afftrack

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const testFallback = "https://example.com/landing?src=aff"

// testAllowed is an AllowedDomains list as an operator might write it,
// plus the IP literals some merchants use on staging sites.
var testAllowed = []string{"example.com", ".Shop.Example.org.", "xn--exmple-cua.com", "203.0.113.7", "[2001:db8::1]"}

// deepLinkTricks are deep links an attacker might try; every one must end
// at the fallback. They seed FuzzDestination too.
var deepLinkTricks = []struct{ why, link string }{
	{"another host", "https://evil.com/"},
	{"a look-alike suffix", "https://shop.example.com.evil.com/"},
	{"a host merely ending in the allowed name", "https://evilexample.com/"},
	{"the parent of an allowed subdomain", "https://example.org/"},
	{"a sibling of an allowed subdomain", "https://cart.example.org/"},
	{"two trailing dots", "https://example.com../"},
	{"a leading dot", "https://.example.com/"},
	{"userinfo hiding the real host", "https://example.com@evil.com/"},
	{"userinfo with a password", "https://user:pass@example.com/"},
	{"empty userinfo", "https://@example.com/"},
	{"userinfo with an encoded at sign", "https://example.com%40evil.com@example.com/"},
	{"a protocol-relative URL", "//evil.com/"},
	{"a protocol-relative URL to an allowed host", "//example.com/"},
	{"javascript", "javascript:alert(document.cookie)"},
	{"javascript looking like a URL", "JavaScript://example.com/%0aalert(1)"},
	{"data", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="},
	{"vbscript", "vbscript:msgbox(1)"},
	{"file", "file:///etc/passwd"},
	{"file with an allowed host", "file://example.com/etc/passwd"},
	{"ftp", "ftp://example.com/"},
	{"a backslash before an at sign", `https://example.com\@evil.com/`},
	{"backslashes for slashes", `https:\\evil.com`},
	{"a slash and a backslash", `/\evil.com`},
	{"a backslash in the path", `https://example.com/\evil.com`},
	{"a percent-encoded dot in the host", "https://evil%2ecom/"},
	{"a percent-encoded allowed host", "https://exa%6Dple.com/"},
	{"percent-encoded slashes", "%2F%2Fevil.com"},
	{"a tab inside the scheme", "java\tscript:alert(1)"},
	{"a tab inside an allowed URL", "https://exam\tple.com/"},
	{"a header injection", "https://example.com/\r\nSet-Cookie: session=stolen"},
	{"a newline in the host", "https://exa\nmple.com/"},
	{"a leading space", " https://example.com/"},
	{"a space in the path", "https://example.com/a b"},
	{"a NUL byte", "https://example.com/\x00"},
	{"a DEL byte", "https://example.com/\x7f"},
	{"a relative path", "/landing"},
	{"a relative name", "example.com/landing"},
	{"a query alone", "?q=1"},
	{"an opaque https URL", "https:example.com"},
	{"a single slash", "https:/example.com/"},
	{"an empty host", "https:///example.com"},
	{"a port without a host", "https://:443/"},
	{"port zero", "https://example.com:0/"},
	{"a port out of range", "https://example.com:65536/"},
	{"an empty port", "https://example.com:/"},
	{"a non-ASCII host", "https://exämple.com/"},
	{"an ideographic full stop", "https://example.com\u3002evil.com/"},
	{"a fullwidth letter", "https://\uff45xample.com/"},
	{"an unlisted IP address", "https://203.0.113.8/"},
	{"an IP address ending in a listed one", "https://1.203.0.113.7/"},
	{"a hexadecimal IPv4 address", "https://0xcb.0.113.7/"},
	{"a decimal IPv4 address", "https://3405803783/"},
	{"a shortened IPv4 address", "https://203.0.29447/"},
	{"an IPv4-mapped IPv6 address", "https://[::ffff:203.0.113.7]/"},
	{"an unlisted IPv6 address", "https://[2001:db8::2]/"},
	{"an IPv6 address with a zone", "https://[2001:db8::1%25eth0]/"},
	{"an unbracketed IPv6 address", "https://2001:db8::1/"},
	{"a link over the length limit", "https://example.com/" + strings.Repeat("a", MaxDeepLinkLength)},
}

func TestDestinationRefusesTricks(t *testing.T) {
	for _, tt := range deepLinkTricks {
		t.Run("a deep link with "+tt.why+" goes to the fallback", func(t *testing.T) {
			if got := Destination(tt.link, testFallback, testAllowed); got != testFallback {
				t.Errorf("Destination(%q) = %q, want the fallback", tt.link, got)
			}
		})
	}
}

func TestDestinationFollows(t *testing.T) {
	atLimit := "https://example.com/" + strings.Repeat("a", MaxDeepLinkLength-len("https://example.com/"))
	tests := []struct {
		name, link, want string
	}{
		{"an allowed host is followed", "https://example.com/p?q=1#f", "https://example.com/p?q=1#f"},
		{"http is followed", "http://example.com/", "http://example.com/"},
		{"a subdomain is followed", "https://www.example.com/sale", "https://www.example.com/sale"},
		{"a subdomain of a dotted entry is followed", "https://eu.shop.example.org/", "https://eu.shop.example.org/"},
		{"an upper-case host is followed with its scheme lowercased", "HTTPS://WWW.EXAMPLE.COM/A", "https://WWW.EXAMPLE.COM/A"},
		{"a trailing dot is the same host", "https://example.com./p", "https://example.com./p"},
		{"an explicit port is followed", "https://example.com:8443/p", "https://example.com:8443/p"},
		{"a host without a path is followed", "https://example.com", "https://example.com"},
		{"punycode is followed as listed", "https://xn--exmple-cua.com/", "https://xn--exmple-cua.com/"},
		{"a non-ASCII path is followed percent-encoded", "https://example.com/caf\u00e9", "https://example.com/caf%C3%A9"},
		{"a double slash in the path stays on the host", "https://example.com//evil.com", "https://example.com//evil.com"},
		{"an encoded URL in the query stays on the host", "https://example.com/r?to=https%3A%2F%2Fevil.com", "https://example.com/r?to=https%3A%2F%2Fevil.com"},
		{"a listed IPv4 address is followed", "http://203.0.113.7:8080/x", "http://203.0.113.7:8080/x"},
		{"a listed IPv6 address is followed", "http://[2001:db8::1]:8080/x", "http://[2001:db8::1]:8080/x"},
		{"a link of exactly the length limit is followed", atLimit, atLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Destination(tt.link, testFallback, testAllowed)); diff != "" {
				t.Errorf("Destination(%q) (-want +got):\n%s", tt.link, diff)
			}
		})
	}
}

func TestDestinationFallback(t *testing.T) {
	tests := []struct {
		name, link, fallback string
		allowed              []string
		want                 string
	}{
		{"no deep link goes to the fallback", "", testFallback, testAllowed, testFallback},
		{"a refused deep link without a fallback goes nowhere", "https://evil.com/", "", testAllowed, ""},
		{"a javascript fallback is not followed", "", "javascript:alert(1)", testAllowed, ""},
		{"a relative fallback is not followed", "https://evil.com/", "/landing", testAllowed, ""},
		{"a fallback with a line break is not followed", "", "https://example.com/\r\nX-Evil: 1", testAllowed, ""},
		{"a fallback is returned as given", "", "HTTP://Example.com/a%2fb", testAllowed, "HTTP://Example.com/a%2fb"},
		{"a deep link is refused when nothing is allowed", "https://example.com/", testFallback, nil, testFallback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Destination(tt.link, tt.fallback, tt.allowed)); diff != "" {
				t.Errorf("Destination(%q, %q) (-want +got):\n%s", tt.link, tt.fallback, diff)
			}
		})
	}
}

func TestHostAllowed(t *testing.T) {
	tests := []struct {
		name    string
		host    string
		allowed []string
		want    bool
	}{
		{"a host matches itself", "example.com", []string{"example.com"}, true},
		{"a subdomain matches", "a.b.example.com", []string{"example.com"}, true},
		{"a look-alike does not match", "evilexample.com", []string{"example.com"}, false},
		{"a parent does not match", "example.com", []string{"shop.example.com"}, false},
		{"an entry with a leading dot matches the bare host", "example.com", []string{".example.com"}, true},
		{"an upper-case entry matches", "example.com", []string{"EXAMPLE.com"}, true},
		{"an entry with a trailing dot matches", "example.com", []string{"example.com."}, true},
		{"an upper-case host matches", "Shop.EXAMPLE.com", []string{"example.com"}, true},
		{"a host with a trailing dot matches", "example.com.", []string{"example.com"}, true},
		{"an empty entry matches nothing", "example.com", []string{"", ".", " "}, false},
		{"an empty host matches nothing", "", []string{"example.com", ""}, false},
		{"a dot alone matches nothing", ".", []string{""}, false},
		{"a host with a port matches nothing", "example.com:443", []string{"example.com"}, false},
		{"a non-ASCII host matches nothing", "exämple.com", []string{"exämple.com"}, false},
		{"an IP address matches itself", "192.0.2.1", []string{"192.0.2.1"}, true},
		{"an IP address does not match its suffix", "192.0.2.1", []string{"2.1"}, false},
		{"a name under a numeric entry is no address", "evil.2.1", []string{"2.1"}, false},
		{"an IPv6 address matches in any spelling", "[2001:DB8:0::1]", []string{"2001:db8::1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := HostAllowed(tt.host, tt.allowed); got != tt.want {
				t.Errorf("HostAllowed(%q, %q) = %v, want %v", tt.host, tt.allowed, got, tt.want)
			}
		})
	}
}

func TestURLHost(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"the host of an https URL is lowercased", "https://Shop.Example.com:8443/p", "shop.example.com"},
		{"a trailing dot is dropped", "http://example.com./", "example.com"},
		{"an IPv6 host loses its brackets", "http://[2001:DB8::1]/", "2001:db8::1"},
		{"a javascript URL has no host", "javascript:alert(1)", ""},
		{"a relative URL has no host", "/landing", ""},
		{"a URL with userinfo has no host", "https://a@example.com/", ""},
		{"an empty URL has no host", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, URLHost(tt.raw)); diff != "" {
				t.Errorf("URLHost(%q) (-want +got):\n%s", tt.raw, diff)
			}
		})
	}
}

func TestAppendClickParams(t *testing.T) {
	banner := ClickValues{
		ClickID:      "0123456789abcdef0123456789abcdef",
		AffiliateID:  42,
		CreativeID:   Some[int64](7),
		CreativeType: CreativeTypeBanner,
		UniqueIDs:    [4]string{"u1", "u 2", "", "x"},
	}
	textLink := ClickValues{ClickID: "c1", AffiliateID: 42, CreativeType: CreativeTypeTextLink}
	hostile := ClickValues{ClickID: "c1", UniqueIDs: [4]string{"a&b=c#d?e/f%", "", "", ""}}
	const all = "c=[ClickId]&a=[AffiliateId]&cr=[CreativeId]&t=[CreativeType]&u1=[UniqueId]&u2=[UniqueId2]&u3=[UniqueId3]&u4=[UniqueId4]"
	tests := []struct {
		name, dest, template string
		v                    ClickValues
		want                 string
	}{
		{"the default starts a query", "https://example.com/p", DefaultClickAppend, textLink,
			"https://example.com/p?afftrack_click=c1"},
		{"an existing query and fragment are kept", "https://example.com/p?a=1#top", DefaultClickAppend, textLink,
			"https://example.com/p?a=1&afftrack_click=c1#top"},
		{"an empty query is filled", "https://example.com/p?", DefaultClickAppend, textLink,
			"https://example.com/p?afftrack_click=c1"},
		{"a query ending in an ampersand gets no second one", "https://example.com/p?a=1&", DefaultClickAppend, textLink,
			"https://example.com/p?a=1&afftrack_click=c1"},
		{"a fragment holding a question mark stays the fragment", "https://example.com/#/cart?x=1", DefaultClickAppend, textLink,
			"https://example.com/?afftrack_click=c1#/cart?x=1"},
		{"every shortcode of a banner is replaced", "https://example.com/", all, banner,
			"https://example.com/?c=0123456789abcdef0123456789abcdef&a=42&cr=7&t=Banner&u1=u1&u2=u+2&u3=&u4=x"},
		{"a text link has no creative id", "https://example.com/", all, textLink,
			"https://example.com/?c=c1&a=42&cr=&t=Text+Link&u1=&u2=&u3=&u4="},
		{"shortcodes match ignoring case", "https://example.com/", "a=[clickid]&b=[CLICKID]&c=[cReAtIvEtYpE]", textLink,
			"https://example.com/?a=c1&b=c1&c=Text+Link"},
		{"unknown brackets stay as escaped text", "https://example.com/", "x=[Things]&y=[x[ClickId]&z=[ClickId", textLink,
			"https://example.com/?x=%5BThings%5D&y=%5Bxc1&z=%5BClickId"},
		{"a shortcode may be part of a name", "https://example.com/", "sub_[AffiliateId]=1", textLink,
			"https://example.com/?sub_42=1"},
		{"hostile values are escaped", "https://example.com/p", "u=[UniqueId]", hostile,
			"https://example.com/p?u=a%26b%3Dc%23d%3Fe%2Ff%25"},
		{"a hostile template cannot add a fragment", "https://example.com/p#top", "x=1#@evil.com/", textLink,
			"https://example.com/p?x=1%23%40evil.com%2F#top"},
		{"a hostile template cannot add a query mark", "https://example.com/p", "x=a?b=c", textLink,
			"https://example.com/p?x=a%3Fb%3Dc"},
		{"percent-encoded template text is not encoded twice", "https://example.com/", "utm=my%20site&n=a+b", textLink,
			"https://example.com/?utm=my+site&n=a+b"},
		{"broken percent-encoding is escaped as text", "https://example.com/", "x=100%&y=%zz", textLink,
			"https://example.com/?x=100%25&y=%25zz"},
		{"a name without a value is kept", "https://example.com/", "flag&c=[ClickId]", textLink,
			"https://example.com/?flag&c=c1"},
		{"a pair whose name comes out empty is dropped", "https://example.com/", "[UniqueId3]=x&=y&&c=[ClickId]", banner,
			"https://example.com/?c=0123456789abcdef0123456789abcdef"},
		{"an empty template adds nothing", "https://example.com/p?a=1#f", "", banner,
			"https://example.com/p?a=1#f"},
		{"a template of separators adds nothing", "https://example.com/p", "&&", banner,
			"https://example.com/p"},
		{"no destination stays no destination", "", DefaultClickAppend, banner, ""},
		{"a deep link's own click id is replaced by the tracker's", "https://example.com/p?afftrack_click=forged&a=1",
			DefaultClickAppend, textLink, "https://example.com/p?a=1&afftrack_click=c1"},
		{"every pair of an appended name is replaced, encoded or not", "https://example.com/p?c=x&%63=y&cc=z&c",
			"c=[ClickId]", textLink, "https://example.com/p?cc=z&c=c1"},
		{"a query left empty by the replacement is filled", "https://example.com/p?afftrack_click=forged#f",
			DefaultClickAppend, textLink, "https://example.com/p?afftrack_click=c1#f"},
		{"names are replaced as they are spelled, case and all", "https://example.com/p?AffTrack_Click=x",
			DefaultClickAppend, textLink, "https://example.com/p?AffTrack_Click=x&afftrack_click=c1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, AppendClickParams(tt.dest, tt.template, tt.v)); diff != "" {
				t.Errorf("AppendClickParams(%q, %q) (-want +got):\n%s", tt.dest, tt.template, diff)
			}
		})
	}
}

func TestValidClickAppend(t *testing.T) {
	tests := []struct {
		name, template string
		valid          bool
	}{
		{"the default is valid", DefaultClickAppend, true},
		{"an empty template is valid", "", true},
		{"several pairs are valid", "a=1&b=[UniqueId]&c=", true},
		{"a template at the length limit is valid", "a=" + strings.Repeat("x", MaxClickAppendLength-2), true},
		{"a template over the length limit is invalid", "a=" + strings.Repeat("x", MaxClickAppendLength-1), false},
		{"a name without a value is invalid", "a", false},
		{"an empty name is invalid", "=1", false},
		{"a trailing ampersand is invalid", "a=1&", false},
		{"a leading ampersand is invalid", "&a=1", false},
		{"two ampersands are invalid", "a=1&&b=2", false},
		{"a hash is invalid", "a=1#x", false},
		{"a space is invalid", "a=1 b", false},
		{"a tab is invalid", "a=\t", false},
		{"a line break is invalid", "a=1\r\nb=2", false},
		{"a DEL byte is invalid", "a=\x7f", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidClickAppend(tt.template)
			if tt.valid && err != nil {
				t.Errorf("ValidClickAppend(%q) = %v, want nil", tt.template, err)
			} else if !tt.valid && ErrorCode(err) != EINVALID {
				t.Errorf("ValidClickAppend(%q) = %v, want an %s error", tt.template, err, EINVALID)
			}
		})
	}
}

// checkDestination fails t unless got is "", fallback, or an http(s) URL
// without userinfo whose host is allowed. It judges the host by plain
// string comparison rather than by HostAllowed, so a bug there shows.
func checkDestination(t *testing.T, deepLink, fallback string, allowed []string, got string) {
	t.Helper()
	if got == "" {
		return
	}
	u, err := url.Parse(got)
	if err != nil {
		t.Fatalf("Destination(%q, %q, %q) = %q, which does not parse: %v", deepLink, fallback, allowed, got, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		t.Fatalf("Destination(%q, %q, %q) = %q, which is not http(s)", deepLink, fallback, allowed, got)
	}
	if got == fallback {
		return
	}
	if u.User != nil || u.Opaque != "" || strings.ContainsAny(got, "\\\t\r\n ") {
		t.Fatalf("Destination(%q, %q, %q) = %q, which a browser may read differently", deepLink, fallback, allowed, got)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for _, e := range allowed {
		e = strings.Trim(strings.ToLower(strings.TrimSpace(e)), ".[]")
		if e != "" && (host == e || strings.HasSuffix(host, "."+e)) {
			return
		}
	}
	if strings.Contains(host, ":") {
		// IPv6 spellings differ; HostAllowed compares them as addresses.
		if HostAllowed(host, allowed) {
			return
		}
	}
	t.Fatalf("Destination(%q, %q, %q) = %q, whose host %q is not allowed", deepLink, fallback, allowed, got, host)
}

func FuzzDestination(f *testing.F) {
	allowed := strings.Join(testAllowed, ",")
	for _, tt := range deepLinkTricks {
		f.Add(tt.link, testFallback, allowed)
		f.Add(tt.link, tt.link, allowed)
	}
	f.Add("https://www.example.com/p?q=1#f", "", "example.com")
	f.Add("https://example.com./", "javascript:alert(1)", ".EXAMPLE.com.")
	f.Fuzz(func(t *testing.T, deepLink, fallback, allowedCSV string) {
		allowed := strings.Split(allowedCSV, ",")
		got := Destination(deepLink, fallback, allowed)
		checkDestination(t, deepLink, fallback, allowed, got)
		if got != "" && got != fallback {
			// What was checked must be what the browser gets: following
			// the result again must give the result.
			if again := Destination(got, "", allowed); again != got {
				t.Fatalf("Destination(%q) = %q, but that gives %q", deepLink, got, again)
			}
		}
	})
}

func FuzzAppendClickParams(f *testing.F) {
	f.Add("https://example.com/p?a=1#top", DefaultClickAppend, "c1", "u&1#")
	f.Add("https://example.com", "x=[Things]&y=[x[ClickId]", "c1", "")
	f.Add("https://example.com/p?", "x=1#@evil.com/&a=b?c", "c1", "?#/")
	f.Add("https://example.com/#/cart?x=1", "flag&=y&&[UniqueId]=[ClickId]", "%zz", "a=b")
	f.Add("http://[2001:db8::1]:8080/x&y", "utm=my%20site&n=a+b&x=100%", "c1", "\r\n")
	f.Fuzz(func(t *testing.T, dest, template, clickID, uniqueID string) {
		d, err := url.Parse(dest)
		if err != nil {
			t.Skip()
		}
		v := ClickValues{ClickID: clickID, AffiliateID: 42, CreativeType: CreativeTypeBanner, UniqueIDs: [4]string{uniqueID}}
		got := AppendClickParams(dest, template, v)
		g, err := url.Parse(got)
		if err != nil {
			t.Fatalf("AppendClickParams(%q, %q) = %q, which does not parse: %v", dest, template, got, err)
		}
		type parts struct{ Scheme, Opaque, User, Host, Path, Fragment string }
		split := func(u *url.URL) parts {
			return parts{u.Scheme, u.Opaque, u.User.String(), u.Host, u.Path, u.Fragment}
		}
		if diff := cmp.Diff(split(d), split(g)); diff != "" {
			t.Fatalf("AppendClickParams(%q, %q) = %q, which changed dest (-want +got):\n%s", dest, template, got, diff)
		}
		// A pair of dest's query is kept unless the template appends a
		// pair of its name, which replaces it.
		gotPairs := strings.Split(g.RawQuery, "&")
		nameOf := func(pair string) string {
			name, _, _ := strings.Cut(pair, "=")
			if n, err := url.QueryUnescape(name); err == nil {
				return n
			}
			return "\x00unreadable"
		}
		for _, pair := range strings.Split(d.RawQuery, "&") {
			if pair == "" || slices.Contains(gotPairs, pair) {
				continue
			}
			if !slices.ContainsFunc(gotPairs, func(p string) bool { return nameOf(p) == nameOf(pair) }) {
				t.Fatalf("AppendClickParams(%q, %q) = %q, which lost %q of the query", dest, template, got, pair)
			}
		}
	})
}

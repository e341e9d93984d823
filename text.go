package afftrack

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TextProblem returns the byte offset of the first part of s that a
// stored text field cannot keep and show, or -1: invalid UTF-8 (which
// PostgreSQL refuses), NUL and the other control characters but tab, CR
// and LF, U+FFFE and U+FFFF (which XML 1.0 cannot carry).
func TextProblem(s string) int {
	for i, c := range s {
		switch {
		case c == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return i
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r', c == 0xFFFE, c == 0xFFFF:
			return i
		}
	}
	return -1
}

// CleanText returns s with every part TextProblem finds replaced by
// U+FFFD: for text a client only hints at, such as a Referer or an
// affiliate's sub-id, which is kept rather than refused.
func CleanText(s string) string {
	if TextProblem(s) < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		switch {
		case c == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"),
			c < 0x20 && c != '\t' && c != '\n' && c != '\r', c == 0xFFFE, c == 0xFFFF:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// CutUTF8 returns the longest prefix of s of at most n bytes that ends on
// a character boundary, so that text cut to a bound stays valid UTF-8.
func CutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// MaxText and MaxURL bound a text field and a URL field that an operator
// gives (in an import file, on the command line), so that one record
// cannot hold a megabyte that every answer would then repeat.
const (
	MaxText = 4096 // bytes
	MaxURL  = 2048 // bytes
)

// WebURLProblem says what is wrong with s as a URL that ends up in
// affiliates' pages, or "": at most MaxURL bytes, an absolute http or
// https URL with a host and no user information (javascript: would run
// there), no white space (a redirect would send it raw in its Location,
// which RFC 3986 does not allow, and a trailing one is invisible) and a
// port, if any, of 1 to 65535. The caller puts the field's name before it.
func WebURLProblem(s string) string {
	if len(s) > MaxURL {
		return fmt.Sprintf("is %d bytes long; a URL is at most %d bytes", len(s), MaxURL)
	}
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return fmt.Sprintf("%q holds white space at byte %d; percent-encode it (a space is %%20)", s, i)
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return fmt.Sprintf("%q is not an absolute http or https URL without user information", s)
	}
	// net/url takes quotes and angle brackets in a host, and "http://:80/"
	// as a host of a port alone; neither names a host a page can load from.
	host := u.Hostname()
	if host == "" || strings.ContainsAny(host, "\"'<>\\^`{|}%") {
		return fmt.Sprintf("%q has no valid host name", s)
	}
	if strings.HasPrefix(u.Host, "[") {
		if a, err := netip.ParseAddr(host); err != nil || !a.Is6() {
			return fmt.Sprintf("%q has no valid host name", s)
		}
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.ParseUint(p, 10, 16); err != nil || n == 0 {
			return fmt.Sprintf("%q has a port out of the range 1-65535", s)
		}
	}
	return ""
}

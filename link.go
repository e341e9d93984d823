package afftrack

import (
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// MaxDeepLinkLength is the longest deep link Destination follows; longer
// ones are refused rather than truncated, since a cut URL leads elsewhere.
const MaxDeepLinkLength = 2048

// MaxClickAppendLength is the longest ClickAppend template
// ValidClickAppend accepts.
const MaxClickAppendLength = 1024

// Destination returns where a click redirects to: deepLink, re-serialised
// by net/url, when it is an absolute http or https URL whose host is
// allowed (see HostAllowed); otherwise fallback when it is an http or
// https URL; otherwise "".
//
// deepLink is hostile input, so anything a browser could read differently
// from net/url is refused rather than repaired: userinfo, backslashes,
// percent-encoding or non-ASCII in the host, control characters and
// spaces anywhere, and hosts that are numbers but not plain IP addresses.
// An explicit port is accepted: the host decides whose site it is, and a
// merchant may well serve its shop on a port of its own.
//
// fallback is the operator's TargetUrl (the banner's or the program's); it
// is trusted and returned as given, but only if it is http or https.
func Destination(deepLink, fallback string, allowed []string) string {
	if deepLink != "" {
		if u, host := parseDeepLink(deepLink); u != nil && HostAllowed(host, allowed) {
			return u.String()
		}
	}
	if fallbackOK(fallback) {
		return fallback
	}
	return ""
}

// HostAllowed reports whether host, a host name without a port, is in
// allowed or a subdomain of one of its entries. Names compare ignoring case
// and one trailing dot, which DNS ignores too. An IP address matches only
// an entry holding the same address. A host that is not a plain ASCII host
// name or IP address matches nothing, so IDNs match only in their punycode
// (xn--) form.
//
// Entries are normalised as operators write them: "Example.com",
// ".example.com" and "example.com." all mean example.com. An empty entry
// matches nothing.
func HostAllowed(host string, allowed []string) bool {
	name, ip, ok := normHost(host)
	if !ok {
		return false
	}
	for _, e := range allowed {
		e = normEntry(e)
		if e == "" {
			continue
		}
		if ip.IsValid() {
			// Suffix matching would let "3.4" admit 1.2.3.4.
			if a, err := netip.ParseAddr(e); err == nil && a == ip {
				return true
			}
			continue
		}
		if name == e || strings.HasSuffix(name, "."+e) {
			return true
		}
	}
	return false
}

// URLHost returns the lowercased host name (without port, brackets or
// trailing dot) of raw if raw is an absolute http or https URL that
// Destination would follow were its host allowed, and "" otherwise. Callers
// use it to allow the hosts of the TargetURL and the banners.
func URLHost(raw string) string {
	_, host := parseDeepLink(raw)
	if host == "" {
		return ""
	}
	name, ip, ok := normHost(host)
	if !ok {
		return ""
	}
	if ip.IsValid() {
		return ip.String()
	}
	return name
}

// parseDeepLink parses raw as a URL Destination may follow, returning it
// and its host name, or nil and "". It does not look at the allowed hosts.
func parseDeepLink(raw string) (*url.URL, string) {
	if raw == "" || len(raw) > MaxDeepLinkLength {
		return nil, ""
	}
	for i := 0; i < len(raw); i++ {
		// Browsers strip tabs and newlines inside URLs and read a
		// backslash as a slash, so "java\tscript:" and "https:\\evil.com"
		// would not be the URL net/url saw.
		if c := raw[i]; c <= ' ' || c == 0x7f || c == '\\' {
			return nil, ""
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.User != nil {
		return nil, ""
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, ""
	}
	// net/url decodes a percent-encoded host and drops userinfo into
	// u.User; demanding that the authority as written is exactly u.Host
	// refuses both, so the host checked is the host the browser reads.
	rest := raw[len(u.Scheme)+1:]
	if !strings.HasPrefix(rest, "//") {
		return nil, ""
	}
	authority := rest[2:]
	if i := strings.IndexAny(authority, "/?#"); i >= 0 {
		authority = authority[:i]
	}
	if authority == "" || authority != u.Host {
		return nil, ""
	}
	host, port, hasPort := u.Host, "", false
	if strings.HasPrefix(host, "[") {
		if i := strings.LastIndexByte(host, ']'); i < len(host)-1 {
			host, port, hasPort = host[:i+1], host[i+2:], true
		}
	} else if i := strings.IndexByte(host, ':'); i >= 0 {
		host, port, hasPort = host[:i], host[i+1:], true
	}
	if hasPort && !validPort(port) {
		return nil, ""
	}
	if _, _, ok := normHost(host); !ok {
		return nil, ""
	}
	return u, host
}

// validPort reports whether p is a port number a browser accepts.
func validPort(p string) bool {
	if p == "" || len(p) > 5 {
		return false
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// normHost returns host as a lowercased ASCII name without its trailing
// dot, or as an IP address; ok is false for anything else.
func normHost(host string) (name string, ip netip.Addr, ok bool) {
	host = strings.ToLower(host)
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		a, err := netip.ParseAddr(host[1 : len(host)-1])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", netip.Addr{}, false
		}
		return "", a, true
	}
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", netip.Addr{}, false
		}
		return "", a, true
	}
	host = strings.TrimSuffix(host, ".")
	if host == "" || len(host) > 253 {
		return "", netip.Addr{}, false
	}
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if !validLabel(l) {
			return "", netip.Addr{}, false
		}
	}
	if numericLabel(labels[len(labels)-1]) {
		// Browsers read such a host as IPv4, also in forms like 127.1 or
		// 0x7f.0.0.1 that netip refuses; only the dotted-decimal form is
		// an address we can compare.
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is4() {
			return "", netip.Addr{}, false
		}
		return "", a, true
	}
	return host, netip.Addr{}, true
}

// validLabel reports whether l is a DNS label of letters, digits, hyphens
// and underscores.
func validLabel(l string) bool {
	if l == "" || len(l) > 63 {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// numericLabel reports whether a URL host ending in l is an IPv4 address
// to a browser: l is decimal digits, or 0x and hex digits.
func numericLabel(l string) bool {
	digits := l
	hex := strings.HasPrefix(l, "0x")
	if hex {
		digits = l[2:]
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if !('0' <= c && c <= '9' || hex && 'a' <= c && c <= 'f') {
			return false
		}
	}
	return hex || digits != ""
}

// normEntry normalises an AllowedDomains entry; "" matches nothing.
func normEntry(e string) string {
	e = strings.ToLower(strings.TrimSpace(e))
	if strings.HasPrefix(e, "[") && strings.HasSuffix(e, "]") {
		return e[1 : len(e)-1]
	}
	return strings.TrimSuffix(strings.TrimLeft(e, "."), ".")
}

// fallbackOK reports whether fallback may be redirected to: an http or
// https URL with a host and without control characters, which could split
// the Location header.
func fallbackOK(fallback string) bool {
	for i := 0; i < len(fallback); i++ {
		if c := fallback[i]; c < ' ' || c == 0x7f {
			return false
		}
	}
	u, err := url.Parse(fallback)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// ClickValues are what a ClickAppend template's shortcodes stand for.
type ClickValues struct {
	ClickID      string
	AffiliateID  int64
	CreativeID   Null[int64] // null for a text link
	CreativeType CreativeType
	UniqueIDs    [4]string
}

// shortcode returns the value shortcode name (without brackets) stands
// for, and whether it is a shortcode.
func (v *ClickValues) shortcode(name string) (string, bool) {
	switch strings.ToLower(name) {
	case "clickid":
		return v.ClickID, true
	case "affiliateid":
		return strconv.FormatInt(v.AffiliateID, 10), true
	case "creativeid":
		if !v.CreativeID.Valid {
			return "", true
		}
		return strconv.FormatInt(v.CreativeID.Value, 10), true
	case "creativetype":
		return v.CreativeType.String(), true
	case "uniqueid":
		return v.UniqueIDs[0], true
	case "uniqueid2":
		return v.UniqueIDs[1], true
	case "uniqueid3":
		return v.UniqueIDs[2], true
	case "uniqueid4":
		return v.UniqueIDs[3], true
	}
	return "", false
}

// AppendClickParams adds the name=value pairs of template, its shortcodes
// replaced by v, to the query of dest, after any query dest has and
// before its fragment. Shortcodes ([ClickId], [AffiliateId], [CreativeId],
// [CreativeType], [UniqueId] .. [UniqueId4]) match ignoring case; other
// bracketed text stays as literal text.
//
// The template is treated as hostile as the values: every name and value
// is query-escaped after expansion, so nothing it holds can end the query
// or change dest's scheme, host or path. Literal text already
// percent-encoded is kept as it was meant, not encoded twice. A pair
// whose name comes out empty is dropped.
func AppendClickParams(dest, template string, v ClickValues) string {
	if dest == "" || template == "" {
		return dest
	}
	var params strings.Builder
	var names []string
	for _, pair := range strings.Split(template, "&") {
		rawName, rawValue, hasValue := strings.Cut(pair, "=")
		decoded := v.expand(rawName)
		name := url.QueryEscape(decoded)
		if name == "" {
			continue
		}
		names = append(names, decoded)
		if params.Len() > 0 {
			params.WriteByte('&')
		}
		params.WriteString(name)
		if hasValue {
			params.WriteByte('=')
			params.WriteString(url.QueryEscape(v.expand(rawValue)))
		}
	}
	if params.Len() == 0 {
		return dest
	}
	// Splicing the string, rather than re-serialising a parsed dest,
	// leaves every byte of dest as Destination checked it.
	base, fragment := dest, ""
	if i := strings.IndexByte(dest, '#'); i >= 0 {
		base, fragment = dest[:i], dest[i:]
	}
	sep := "?"
	if i := strings.IndexByte(base, '?'); i >= 0 {
		base = base[:i+1] + withoutParams(base[i+1:], names)
		sep = "&"
		if len(base) == i+1 || strings.HasSuffix(base, "&") {
			sep = ""
		}
	}
	return base + sep + params.String() + fragment
}

// withoutParams returns query without the pairs whose decoded name is
// one of names, the others byte for byte as they were. The pairs the
// template appends replace any of the same name, so a deep link cannot
// carry a click id of its own choosing ahead of the real one: a landing
// page that reads the first value of a name gets the tracker's.
func withoutParams(query string, names []string) string {
	var kept []string
	dropped := false
	for _, pair := range strings.Split(query, "&") {
		rawName, _, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(rawName)
		if err == nil && slices.Contains(names, name) {
			dropped = true
			continue
		}
		kept = append(kept, pair)
	}
	if !dropped {
		return query
	}
	return strings.Join(kept, "&")
}

// expand returns the decoded text of s with its shortcodes replaced by
// their values.
func (v *ClickValues) expand(s string) string {
	var b strings.Builder
	literal := func(t string) {
		if d, err := url.QueryUnescape(t); err == nil {
			t = d
		}
		b.WriteString(t)
	}
	for {
		open := strings.IndexByte(s, '[')
		if open < 0 {
			break
		}
		end := strings.IndexByte(s[open:], ']')
		if end < 0 {
			break
		}
		end += open
		// The last '[' before the ']' starts the candidate, so in
		// "[x[ClickId]" the shortcode is still found.
		open = strings.LastIndexByte(s[:end], '[')
		if val, ok := v.shortcode(s[open+1 : end]); ok {
			literal(s[:open])
			b.WriteString(val)
		} else {
			literal(s[:end+1])
		}
		s = s[end+1:]
	}
	literal(s)
	return b.String()
}

// ValidClickAppend returns an EINVALID error if template is not a usable
// ClickAppend: name=value pairs with non-empty names, separated by "&",
// without "#", spaces or control characters, and at most
// MaxClickAppendLength bytes. The empty template, which adds nothing, is
// valid.
func ValidClickAppend(template string) error {
	if len(template) > MaxClickAppendLength {
		return Errorf(EINVALID, "ClickAppend: is %d bytes; at most %d are allowed", len(template), MaxClickAppendLength)
	}
	if template == "" {
		return nil
	}
	for i := 0; i < len(template); i++ {
		if c := template[i]; c <= ' ' || c == 0x7f || c == '#' {
			return Errorf(EINVALID, "ClickAppend: %q may not contain %q", template, c)
		}
	}
	for _, pair := range strings.Split(template, "&") {
		if name, _, ok := strings.Cut(pair, "="); !ok || name == "" {
			return Errorf(EINVALID, "ClickAppend: %q is not name=value pairs separated by &, like %s", template, DefaultClickAppend)
		}
	}
	return nil
}

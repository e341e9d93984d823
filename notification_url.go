package afftrack

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// dateTimeLayout is the contract's datetime: milliseconds and no zone, as
// datetimes already carry the network's wall clock. time.Format truncates
// the fraction and pads the year to four digits, as the API's encoder does,
// so a notification and a GET of the same transaction agree to the byte.
const dateTimeLayout = "2006-01-02T15:04:05.000"

// formatDateTime formats t as the contract's datetime,
// YYYY-MM-DDThh:mm:ss.fff.
func formatDateTime(t time.Time) string { return t.Format(dateTimeLayout) }

// ExpandNotificationURL returns template, an affiliate's NotificationUrl,
// with its shortcodes replaced by t's values, written as the API writes
// them and query-escaped: [TransactionId], [MerchantId], [OrderId],
// [SaleValue], [Commission], [Status2], [CreativeId], [UniqueId] ..
// [UniqueId4] and [DateCreated], matched ignoring case. uniqueIDs are the
// UniqueIds of the click the transaction came from. A null value is
// written as nothing; other bracketed text stays as written.
//
// The values are escaped; the template keeps its own separators and
// percent-encoding, which are the affiliate's to choose, while a value
// ("&", "#", space) must not be able to add a parameter or cut the URL
// short. What follows the template's host is made a valid URL text first
// (canonicalURLText): a raw space or "ü" there would make an HTTP client
// re-encode the whole path when it sends it, and so decode a value's
// "%2F" into a "/" of the path.
func ExpandNotificationURL(template string, t *Transaction, uniqueIDs [4]string) string {
	var b strings.Builder
	s := canonicalURLText(template)
	for {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			break
		}
		// The last '[' before the ']' starts the candidate, so in
		// "[x[OrderId]" the shortcode is still found.
		open := strings.LastIndexByte(s[:end], '[')
		if open < 0 {
			b.WriteString(s[:end+1])
			s = s[end+1:]
			continue
		}
		val, ok := notificationShortcodeValue(s[open+1:end], t, &uniqueIDs)
		if ok {
			b.WriteString(s[:open])
			// A space as %20, not +, which a path would keep as a
			// plus: a shortcode may stand in the path as well as the
			// query. QueryEscape writes a + as %2B, so each + left is a
			// space.
			b.WriteString(strings.ReplaceAll(url.QueryEscape(val), "+", "%20"))
		} else {
			b.WriteString(s[:end+1])
		}
		s = s[end+1:]
	}
	b.WriteString(s)
	return b.String()
}

// notificationShortcodeValue returns the unescaped value of the shortcode
// named name, and whether name is one.
func notificationShortcodeValue(name string, t *Transaction, uniqueIDs *[4]string) (string, bool) {
	switch strings.ToLower(name) {
	case "transactionid":
		return strconv.FormatInt(t.ID, 10), true
	case "merchantid":
		return strconv.FormatInt(t.MerchantID, 10), true
	case "orderid":
		return t.OrderID, true
	case "salevalue":
		return t.SaleValue.String(), true
	case "commission":
		return t.Commission.String(), true
	case "status2":
		return t.Status2.String(), true
	case "creativeid":
		if !t.CreativeID.Valid {
			return "", true
		}
		return strconv.FormatInt(t.CreativeID.Value, 10), true
	case "uniqueid":
		return uniqueIDs[0], true
	case "uniqueid2":
		return uniqueIDs[1], true
	case "uniqueid3":
		return uniqueIDs[2], true
	case "uniqueid4":
		return uniqueIDs[3], true
	case "datecreated":
		return formatDateTime(t.DateCreated), true
	}
	return "", false
}

// canonicalURLText returns u with every byte after its host that may not
// stand in a URL as written (a space, a control character, a byte of a
// non-ASCII letter, and "\"<>^`{|}) percent-encoded, so that a client
// sends the text as it is. The scheme and host are left alone.
func canonicalURLText(u string) string {
	start := 0
	if i := strings.Index(u, "://"); i >= 0 && !strings.ContainsAny(u[:i], "/?#") {
		start = i + 3
		if j := strings.IndexAny(u[start:], "/?#"); j >= 0 {
			start += j
		} else {
			return u
		}
	}
	var b strings.Builder
	for i := start; i < len(u); i++ {
		c := u[i]
		if urlTextByte(c) {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(u) + 16)
			b.WriteString(u[:start])
		}
		b.WriteString(u[start:i])
		b.WriteString(url.PathEscape(u[i : i+1])) // one byte, as %XX
		start = i + 1
	}
	if b.Len() == 0 {
		return u
	}
	b.WriteString(u[start:])
	return b.String()
}

// urlTextByte reports whether c may stand as written in a URL's path,
// query or fragment: RFC 3986's unreserved and reserved characters and
// "%", with "[" and "]", which clients leave alone there.
func urlTextByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", c) >= 0
}

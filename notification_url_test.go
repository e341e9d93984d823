package afftrack

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func notificationTestTransaction() *Transaction {
	return &Transaction{
		ID:          1234,
		MerchantID:  77,
		DateCreated: time.Date(2024, 1, 2, 3, 4, 5, 678_900_000, time.UTC),
		OrderID:     "A-1",
		SaleValue:   1_000_000,
		Commission:  -12_345,
		Status2:     Status2Approved,
		CreativeID:  Some[int64](9),
	}
}

func TestExpandNotificationURL(t *testing.T) {
	ids := [4]string{"u1", "u2", "u3", "u4"}
	tests := []struct {
		name     string
		template string
		tx       func(*Transaction)
		ids      [4]string
		want     string
	}{
		{"a template without shortcodes is left alone", "https://a.example/p?x=1", nil, ids, "https://a.example/p?x=1"},
		{"TransactionId is the transaction's id", "https://a.example/?t=[TransactionId]", nil, ids, "https://a.example/?t=1234"},
		{"MerchantId is the merchant's id", "https://a.example/?m=[MerchantId]", nil, ids, "https://a.example/?m=77"},
		{"OrderId is the order id", "https://a.example/?o=[OrderId]", nil, ids, "https://a.example/?o=A-1"},
		{"SaleValue has four fractional digits", "https://a.example/?s=[SaleValue]", nil, ids, "https://a.example/?s=100.0000"},
		{"a negative Commission keeps its sign and four digits", "https://a.example/?c=[Commission]", nil, ids, "https://a.example/?c=-1.2345"},
		{"Status2 is the status name", "https://a.example/?s=[Status2]", nil, ids, "https://a.example/?s=Approved"},
		{"CreativeId is the creative's id", "https://a.example/?c=[CreativeId]", nil, ids, "https://a.example/?c=9"},
		{"a null CreativeId is nothing", "https://a.example/?c=[CreativeId]&x=1",
			func(t *Transaction) { t.CreativeID = Null[int64]{} }, ids, "https://a.example/?c=&x=1"},
		{"the four UniqueIds are the click's",
			"https://a.example/?a=[UniqueId]&b=[UniqueId2]&c=[UniqueId3]&d=[UniqueId4]", nil, ids,
			"https://a.example/?a=u1&b=u2&c=u3&d=u4"},
		{"empty UniqueIds are nothing", "https://a.example/?a=[UniqueId]&d=[UniqueId4]", nil, [4]string{},
			"https://a.example/?a=&d="},
		{"DateCreated is the contract's datetime, escaped", "https://a.example/?d=[DateCreated]", nil, ids,
			"https://a.example/?d=2024-01-02T03%3A04%3A05.678"},
		{"shortcode names ignore case", "https://a.example/?t=[transactionid]&s=[STATUS2]&u=[uniqueID3]", nil, ids,
			"https://a.example/?t=1234&s=Approved&u=u3"},
		{"unknown bracketed text stays as written", "https://a.example/?x=[Thing]&y=[]&t=[TransactionId]", nil, ids,
			"https://a.example/?x=[Thing]&y=[]&t=1234"},
		{"a shortcode after a stray bracket is still found", "https://a.example/?x=[a[OrderId]]", nil, ids,
			"https://a.example/?x=[aA-1]"},
		{"an unclosed bracket stays as written", "https://a.example/?x=[OrderId", nil, ids,
			"https://a.example/?x=[OrderId"},
		{"a shortcode in the path is replaced too", "https://a.example/t/[TransactionId]/[Status2]", nil, ids,
			"https://a.example/t/1234/Approved"},
		{"an ampersand in a value cannot add a parameter", "https://a.example/?o=[OrderId]",
			func(t *Transaction) { t.OrderID = "a&admin=1" }, ids, "https://a.example/?o=a%26admin%3D1"},
		{"a hash in a value cannot start a fragment", "https://a.example/?o=[OrderId]&z=1",
			func(t *Transaction) { t.OrderID = "a#b" }, ids, "https://a.example/?o=a%23b&z=1"},
		{"a space in a value is %20, which a query reads as a space too", "https://a.example/?u=[UniqueId]", nil, [4]string{"a b"},
			"https://a.example/?u=a%20b"},
		{"a value in the path keeps its plus and its space apart", "https://a.example/p/[OrderId]/x",
			func(t *Transaction) { t.OrderID = "A&B C+D/?#" }, ids, "https://a.example/p/A%26B%20C%2BD%2F%3F%23/x"},
		{"unicode in a value is percent-encoded UTF-8", "https://a.example/?o=[OrderId]",
			func(t *Transaction) { t.OrderID = "café€" }, ids, "https://a.example/?o=caf%C3%A9%E2%82%AC"},
		{"the template's own encoding is kept", "https://a.example/?q=a%20b&o=[OrderId]", nil, ids,
			"https://a.example/?q=a%20b&o=A-1"},
		{"the template's raw unicode and spaces after its host are encoded", "https://a.example/größe/sp ace/[OrderId]?q=é f",
			func(t *Transaction) { t.OrderID = "a/b&c" }, ids, "https://a.example/gr%C3%B6%C3%9Fe/sp%20ace/a%2Fb%26c?q=%C3%A9%20f"},
		{"the template's characters no URL may hold are encoded", "https://a.example/{a}|\\^`\"<>/[OrderId]", nil, ids,
			"https://a.example/%7Ba%7D%7C%5C%5E%60%22%3C%3E/A-1"},
		{"a template's host is left alone", "https://bücher.example/[OrderId]", nil, ids, "https://bücher.example/A-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx := notificationTestTransaction()
			if tt.tx != nil {
				tt.tx(tx)
			}
			got := ExpandNotificationURL(tt.template, tx, tt.ids)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ExpandNotificationURL(%q) (-want +got):\n%s", tt.template, diff)
			}
		})
	}
}

func TestExpandNotificationURLValuesDecodeToWhatTheAPIWrites(t *testing.T) {
	tx := notificationTestTransaction()
	tx.OrderID = "x&y=#z ü+"
	got := ExpandNotificationURL("https://a.example/?o=[OrderId]&d=[DateCreated]&s=[SaleValue]", tx, [4]string{})
	u, err := url.Parse(got)
	if err != nil {
		t.Fatalf("url.Parse(%q): %v", got, err)
	}
	want := url.Values{"o": {"x&y=#z ü+"}, "d": {"2024-01-02T03:04:05.678"}, "s": {"100.0000"}}
	if diff := cmp.Diff(want, u.Query()); diff != "" {
		t.Errorf("query of %q (-want +got):\n%s", got, diff)
	}
	if u.Fragment != "" {
		t.Errorf("fragment = %q, want none", u.Fragment)
	}
}

// TestAnExpandedURLIsSentAsWritten: net/http sends a URL's path as
// written only when it is a valid encoding (url.URL.EscapedPath);
// otherwise it encodes the decoded path again, and a value's "%2F"
// becomes a "/" the receiver splits on.
func TestAnExpandedURLIsSentAsWritten(t *testing.T) {
	tx := notificationTestTransaction()
	tx.OrderID = "a/b&c=d+e"
	for _, template := range []string{
		"http://127.0.0.1:9/größe/[OrderId]/[UniqueId]/end",
		"http://127.0.0.1:9/sp ace/[OrderId]/[uniqueid]",
		"http://127.0.0.1:9/{x}/[OrderId]?q=ü ß#frag ment",
	} {
		got := ExpandNotificationURL(template, tx, [4]string{"a b&c=d#e/f?g+h%2F"})
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("url.Parse(%q): %v", got, err)
		}
		path, _, _ := strings.Cut(strings.TrimPrefix(got, "http://127.0.0.1:9"), "?")
		path, _, _ = strings.Cut(path, "#")
		if sent := u.EscapedPath(); sent != path {
			t.Errorf("ExpandNotificationURL(%q) = %q, sent with the path %q", template, got, sent)
		}
	}
}

func TestValidNotificationURL(t *testing.T) {
	for _, tt := range []struct {
		name, template string
		ok             bool
	}{
		{"an https URL with shortcodes is valid", "https://aff.example/pb?o=[OrderId]&t=[TransactionId]", true},
		{"a shortcode may stand in the host", "https://[UniqueId].aff.example/pb", true},
		{"an IPv6 host is valid", "http://[2001:db8::1]:8080/pb/[OrderId]", true},
		{"unknown bracketed text in the path stays and is valid", "https://aff.example/[Foo]/pb", true},
		{"unknown bracketed text as the host is no host", "http://[Foo]/x", false},
		{"a relative URL is refused", "/pb?o=[OrderId]", false},
		{"another scheme is refused", "ftp://aff.example/[OrderId]", false},
		{"user information is refused", "https://u:p@aff.example/", false},
		{"a shortcode cannot supply the scheme", "[OrderId]://aff.example/", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := ValidNotificationURL(tt.template); (err == nil) != tt.ok {
				t.Errorf("ValidNotificationURL(%q) = %v; want valid %v", tt.template, err, tt.ok)
			}
		})
	}
}

func TestNotificationDateTimeFormat(t *testing.T) {
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"milliseconds are written with three digits", time.Date(2024, 1, 2, 3, 4, 5, 678_000_000, time.UTC), "2024-01-02T03:04:05.678"},
		{"a whole second still has .000", time.Date(2024, 12, 31, 23, 59, 59, 0, time.UTC), "2024-12-31T23:59:59.000"},
		{"finer fractions are truncated, not rounded", time.Date(2024, 1, 2, 3, 4, 5, 999_999_999, time.UTC), "2024-01-02T03:04:05.999"},
		{"leading zeros of the fraction are kept", time.Date(2024, 1, 2, 3, 4, 5, 7_000_000, time.UTC), "2024-01-02T03:04:05.007"},
		{"a leap day is written", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), "2024-02-29T00:00:00.000"},
		{"a year below 1000 is padded to four digits", time.Date(999, 3, 4, 5, 6, 7, 0, time.UTC), "0999-03-04T05:06:07.000"},
		{"the zero time is the first instant of year 1", time.Time{}, "0001-01-01T00:00:00.000"},
		{"the last instant of 9999 is written", time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC), "9999-12-31T23:59:59.999"},
		{"another zone's fields are written as they are, without a zone",
			time.Date(2024, 6, 1, 12, 30, 0, 0, time.FixedZone("X", 2*3600)), "2024-06-01T12:30:00.000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, formatDateTime(tt.in)); diff != "" {
				t.Errorf("formatDateTime(%v) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// FuzzExpandNotificationURL: whatever the values (an OrderId, the
// affiliate's UniqueIds), they cannot change the shape of the URL the
// affiliate wrote: its scheme, user information, count of path segments
// and of query pairs, and fragment stay those the template gives with
// plain values, and so does its host unless a shortcode stands in it.
func FuzzExpandNotificationURL(f *testing.F) {
	f.Add("https://aff.example/postback/[OrderId]?tx=[TransactionId]&s=[status2]&u=[UniqueId]", "A-1", "u1")
	f.Add("https://aff.example/n?o=[x[OrderId]&c=[Commission]&d=[DateCreated]", "a&b=c#d", "../x/?y=z")
	f.Add("http://[2001:db8::1]:8080/[UniqueId4]/[UniqueId]", "%2F%3F", " +\r\n")
	f.Add("https://[UniqueId].aff.example/?[OrderId]=1", "evil.example/@", "a:b@c")
	f.Fuzz(func(t *testing.T, template, orderID, uniqueID string) {
		if _, err := url.Parse(template); err != nil {
			t.Skip()
		}
		type shape struct {
			Scheme, User, Host string
			Segments, Pairs    int
			Fragment           bool
		}
		shapeOf := func(s string) (shape, error) {
			u, err := url.Parse(s)
			if err != nil {
				return shape{}, err
			}
			// Counted in the text as written, which is what a receiver
			// splits: a value's "/" is "%2F" there.
			beforeQuery, _, _ := strings.Cut(s, "#")
			beforeQuery, _, _ = strings.Cut(beforeQuery, "?")
			return shape{u.Scheme, u.User.String(), u.Host, strings.Count(beforeQuery, "/"),
				strings.Count(u.RawQuery, "&"), strings.Contains(s, "#")}, nil
		}
		plain := notificationTestTransaction()
		plain.OrderID = "x"
		hostile := notificationTestTransaction()
		hostile.OrderID = orderID
		want, err := shapeOf(ExpandNotificationURL(template, plain, [4]string{"x", "x", "x", "x"}))
		if err != nil {
			t.Skip() // a template that plain values do not make a URL of
		}
		got, err := shapeOf(ExpandNotificationURL(template, hostile, [4]string{uniqueID, uniqueID, uniqueID, uniqueID}))
		if err != nil {
			t.Fatalf("ExpandNotificationURL(%q) with OrderId %q and UniqueId %q does not parse: %v",
				template, orderID, uniqueID, err)
		}
		if tu, _ := url.Parse(template); tu.Host != want.Host {
			want.Host, got.Host = "", "" // a shortcode stands in the host: the affiliate's choice
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("ExpandNotificationURL(%q) with OrderId %q and UniqueId %q changed the URL (-plain +hostile):\n%s",
				template, orderID, uniqueID, diff)
		}
		// And a client sends its path as written (see
		// TestAnExpandedURLIsSentAsWritten).
		expanded := ExpandNotificationURL(template, hostile, [4]string{uniqueID, uniqueID, uniqueID, uniqueID})
		eu, _ := url.Parse(expanded)
		scheme, rest, ok := strings.Cut(expanded, "://")
		if i := strings.IndexAny(rest, "/?#"); ok && i >= 0 && eu.Host != "" && strings.EqualFold(scheme, eu.Scheme) {
			written, _, _ := strings.Cut(rest[i:], "#")
			written, _, _ = strings.Cut(written, "?")
			if eu.EscapedPath() != written {
				t.Fatalf("ExpandNotificationURL(%q) = %q is sent with the path %q", template, expanded, eu.EscapedPath())
			}
		}
	})
}

func TestNotificationReceiver(t *testing.T) {
	for in, want := range map[string]string{
		"https://Aff.Example/pb?x=1":     "aff.example",
		"http://aff.example:8080/pb":     "aff.example:8080",
		"http://[2001:DB8::1]:8080/pb":   "[2001:db8::1]:8080",
		"http://u@aff.example/pb":        "aff.example",
		"not a url at all %zz://":        "",
		"https://sub.aff.example/pb?o=1": "sub.aff.example",
	} {
		if got := NotificationReceiver(in); got != want {
			t.Errorf("NotificationReceiver(%q) = %q, want %q", in, got, want)
		}
	}
}

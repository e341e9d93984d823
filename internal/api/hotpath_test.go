package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/textproto"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
)

// mapQuery is the query parser the slice replaced, kept as the reference
// the slice must agree with: lower-cased names, empty and badly escaped
// values absent, the first non-empty value of a name winning.
func mapQuery(raw string) map[string]string {
	q := map[string]string{}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(name)
		if err != nil {
			continue
		}
		value, err = url.QueryUnescape(value)
		if err != nil || value == "" {
			continue
		}
		name = strings.ToLower(name)
		if _, ok := q[name]; !ok {
			q[name] = value
		}
	}
	return q
}

// queryNames are the names the interface reads, as its handlers spell
// them, and a few it does not.
var queryNames = []string{"apikey", "contenttype", "callback", "dateproperty", "fromDate", "toDate", "affiliateId",
	"status", "status2", "merchantId", "k", "s", "i̇d", "x"}

func TestQueryAgreesWithTheMap(t *testing.T) {
	tests := []struct{ name, raw string }{
		{"empty", ""},
		{"one parameter", "apiKey=abc"},
		{"names in any case", "APIKEY=a&ContentType=application/xml&CallBack=cb"},
		{"the first non-empty value wins", "apikey=&apiKey=first&APIKEY=second"},
		{"escaped names and values", "api%4Bey=k%20v&fromDate=2000-01-01T10:00:00%2B10:00&a+b=c+d"},
		{"bad escapes are absent", "apiKey=%zz&%zz=1&callback=ok"},
		{"empty pairs and names", "&&=&=x&status="},
		{"a semicolon is part of a value", "x=1;apiKey=k&status=paid;x"},
		{"the Kelvin sign lower-cases to k", "\u212A=kelvin&k=plain"},
		{"the long s is not an s", "\u017F=long&s=short"},
		{"a dotted capital I lower-cases to two runes", "%C4%B0D=dotted&id=plain"},
		{"a non-ASCII name before an ASCII one", "st%C3%A4tus=x&STATUS=paid"},
		{"invalid UTF-8 in a name", "%FFstatus=x&status2=void"},
		{"many parameters, past the state's array", "a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&merchantId=10&MERCHANTID=11&x=12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var st requestState
			q := parseQuery(tt.raw, st.params[:0])
			want := mapQuery(tt.raw)
			names := append([]string{}, queryNames...)
			for name := range want {
				names = append(names, name)
			}
			for _, name := range names {
				if got, want := q.get(name), want[strings.ToLower(name)]; got != want {
					t.Errorf("get(%q) = %q, want %q", name, got, want)
				}
			}
		})
	}
}

func FuzzQueryAgreesWithTheMap(f *testing.F) {
	f.Add("apiKey=a&APIKEY=b&\u212A=c&%C4%B0=d", "k")
	f.Fuzz(func(t *testing.T, raw, name string) {
		want := mapQuery(raw)
		q := parseQuery(raw, nil)
		if !isASCII(name) {
			name = strings.ToLower(name) // get is only asked ASCII names
			if !isASCII(name) {
				t.Skip()
			}
		}
		if got, want := q.get(name), want[strings.ToLower(name)]; got != want {
			t.Fatalf("get(%q) = %q, want %q", name, got, want)
		}
	})
}

func TestHeaderNamesAreCanonical(t *testing.T) {
	for _, name := range []string{headerAccept, headerAPIKey, headerRequestID, headerContentTypeOptions, headerVary, headerContentType,
		headerContentLength, headerRateLimitLimit, headerRateLimitRemaining, headerRateLimitReset, headerRetryAfter} {
		if c := textproto.CanonicalMIMEHeaderKey(name); c != name {
			t.Errorf("%q is used as is but its canonical form is %q", name, c)
		}
	}
}

func TestSetHeader(t *testing.T) {
	var st requestState
	h := http.Header{}
	for i := range len(st.headers) + 2 { // past the array: the rest are allocated
		st.setHeader(h, "X-"+string(rune('A'+i)), strings.Repeat("v", i+1))
	}
	st.setHeader(h, headerVary, "Accept")
	h.Add(headerVary, "Origin") // must not write into the next value
	st.setHeader(h, headerContentType, "text/plain")
	want := http.Header{headerVary: {"Accept", "Origin"}, headerContentType: {"text/plain"}}
	for i := range len(st.headers) + 2 {
		want["X-"+string(rune('A'+i))] = []string{strings.Repeat("v", i+1)}
	}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("headers differ (-want +got):\n%s", diff)
	}
}

func TestHashKeyIsTheDomains(t *testing.T) {
	for _, key := range []string{"", merchantKey, affiliateKey, "é", strings.Repeat("k", 200)} {
		if got, want := hashKey(key), afftrack.HashKey(key); got != want {
			t.Errorf("hashKey(%q) = %s, want %s", key, got, want)
		}
	}
}

// TestStateAsContext checks that the request state stands in for
// context.WithValue: other values, deadlines and cancellation pass
// through, including to contexts derived from it.
func TestStateAsContext(t *testing.T) {
	type otherKey struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), otherKey{}, "other"))
	st := &requestState{Context: parent}
	r := (&http.Request{}).WithContext(st)
	if stateOf(r) != st {
		t.Fatal("stateOf does not find the state")
	}
	// A context wrapping the state still finds it.
	wrapped := r.WithContext(context.WithValue(st, otherKey{}, "shadow"))
	if stateOf(wrapped) != st {
		t.Fatal("stateOf does not find the state under another context")
	}
	if got := st.Value(otherKey{}); got != "other" {
		t.Errorf("Value(otherKey) = %v, want the parent's", got)
	}
	child, stop := context.WithCancel(st)
	defer stop()
	detached := context.WithoutCancel(st)
	cancel()
	<-child.Done()
	if st.Err() != context.Canceled || child.Err() != context.Canceled {
		t.Errorf("Err = %v, child's %v; want context.Canceled", st.Err(), child.Err())
	}
	if detached.Err() != nil || detached.Value(stateKey{}) != st {
		t.Errorf("a context without cancel has Err %v and state %v", detached.Err(), detached.Value(stateKey{}))
	}
}

// TestMatchShape pins the matching withRouting relies on.
func TestMatchShape(t *testing.T) {
	s := newHarness(t).srv
	tests := []struct {
		path      string
		pattern   string // "" for no route
		wildcard  string
		canonical bool
	}{
		{"/v1/merchant/transactions/1", "/v1/merchant/transactions/{id}", "1", true},
		{"/V1/Merchant/Transactions/1", "/v1/merchant/transactions/{id}", "1", false},
		{"/V1/MERCHANT/TRANSACTIONS/AbC", "/v1/merchant/transactions/{id}", "AbC", false},
		{"/V1/Merchant/Transactions", "/v1/merchant/transactions", "", false},
		{"/v1/affiliate/invoices/%2F", "/v1/affiliate/invoices/{id}", "%2F", true},
		{"/HEALTHZ", "/healthz", "", false},
		{"/V1/Merchant/Banners", "", "", false},
		{"/V1/Merchant/Transactions/1/2", "", "", false},
		{"/v1/merchant/transaction%73/1", "", "", false},
		{"/", "", "", false},
		{"/v1/affiliate/banner\u017F", "/v1/affiliate/banners", "", false},
	}
	for _, tt := range tests {
		rt, wildcard, canonical := s.matchShape(tt.path)
		pattern := ""
		if rt != nil {
			pattern = rt.pattern
		}
		if pattern != tt.pattern || wildcard != tt.wildcard || canonical != tt.canonical {
			t.Errorf("matchShape(%q) = %q, %q, %v; want %q, %q, %v", tt.path, pattern, wildcard, canonical,
				tt.pattern, tt.wildcard, tt.canonical)
		}
	}
}

func TestSameShape(t *testing.T) {
	compile := func(path string) compiledRoute { return compileRoute(route{path: path}) }
	tests := []struct {
		a, b string
		want bool
	}{
		{"/v1/merchant/transactions/{id}", "/v1/merchant/transactions/{id}", true},
		{"/v1/merchant/transactions/{id}", "/V1/Merchant/Transactions/export", true},
		{"/v1/merchant/transactions/{id}", "/v1/affiliate/invoices/{id}", false},
		{"/v1/merchant/transactions/{id}", "/v1/merchant/transactions", false},
		{"/{kind}/banners", "/v1/{id}", true},
		{"/healthz", "/readyz", false},
	}
	for _, tt := range tests {
		if got := sameShape(compile(tt.a), compile(tt.b)); got != tt.want {
			t.Errorf("sameShape(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestNamespace(t *testing.T) {
	s := newHarness(t).srv
	tests := []struct{ path, want string }{
		{"/V1/Affiliate/Banners", nsAffiliate},
		{"/v1/AFFILIATE", nsAffiliate},
		{"/V1/Merchant/Transactions", nsMerchant},
		{"/Affiliate", nsMerchant},
		{"", nsMerchant},
		{"/", nsMerchant},
		{"//Affiliate/x", nsAffiliate},
		{"/V1/Affiliates", nsMerchant},
	}
	for _, tt := range tests {
		if got := s.namespace(tt.path); got != tt.want {
			t.Errorf("namespace(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// TestRequestLineSource checks that a handler with AddSource still gets
// the request line's source, which endRequest finds once rather than
// Logger.LogAttrs per line.
func TestRequestLineSource(t *testing.T) {
	h := newHarness(t)
	logs := &lockedBuffer{}
	h.srv.logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{AddSource: true}))
	for range 2 {
		mustStatus(t, h.do("GET", "/V1/Merchant/Transactions/1", "X-Api-Key", merchantKey), http.StatusOK)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2:\n%s", len(lines), logs.String())
	}
	for _, line := range lines {
		var rec struct {
			Source slog.Source `json:"source"`
			Msg    string      `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Msg != "request" || !strings.HasSuffix(rec.Source.Function, "(*Server).endRequest") ||
			filepath.Base(rec.Source.File) != "middleware.go" || rec.Source.Line == 0 {
			t.Errorf("request line source = %+v, want endRequest in middleware.go", rec.Source)
		}
	}
}

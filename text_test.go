package afftrack_test

import (
	"testing"

	"github.com/afftrack/afftrack"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name, in, clean string
		at              int
	}{
		{"plain text is kept", "Grüße, tab\there", "Grüße, tab\there", -1},
		{"a replacement character already there is fine", "a\uFFFDb", "a\uFFFDb", -1},
		{"a NUL is a problem", "a\x00b", "a\uFFFDb", 1},
		{"invalid UTF-8 is a problem", "ab\xffc", "ab\uFFFDc", 2},
		{"a truncated multi-byte character is a problem", "x\xc3", "x\uFFFD", 1},
		{"an escape character is a problem", "\x1b[31m", "\uFFFD[31m", 0},
		{"U+FFFF is a problem", "a\uFFFF", "a\uFFFD", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := afftrack.TextProblem(tc.in); got != tc.at {
				t.Errorf("TextProblem(%q) = %d, want %d", tc.in, got, tc.at)
			}
			if got := afftrack.CleanText(tc.in); got != tc.clean {
				t.Errorf("CleanText(%q) = %q, want %q", tc.in, got, tc.clean)
			}
		})
	}
}

func TestCutUTF8(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc"},
		{"a€b", 2, "a"}, // € is three bytes: the cut falls back to its start
		{"a€b", 4, "a€"},
		{"€", 0, ""},
	}
	for _, tt := range tests {
		if got := afftrack.CutUTF8(tt.s, tt.n); got != tt.want {
			t.Errorf("CutUTF8(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestWebURLProblem(t *testing.T) {
	for _, tt := range []struct {
		name, url string
		ok        bool
	}{
		{"an https URL", "https://shop.example/logo.png", true},
		{"an http URL with a port", "http://shop.example:8080/", true},
		{"an IPv6 host", "http://[2001:db8::1]:8080/a", true},
		{"an IDN host", "https://bücher.example/", true},
		{"javascript:", "javascript:alert(1)", false},
		{"user information", "https://user@shop.example/", false},
		{"a port without a host", "http://:80/", false},
		{"a host with a quote", `http://a.b"onerror="x/`, false},
		{"a host with angle brackets", "http://a<b>.example/", false},
		{"a bracketed host that is not IPv6", "http://[Foo]/", false},
		{"a bracketed IPv4 address", "http://[127.0.0.1]/", false},
		{"a space in the path", "https://a.example/a b", false},
		{"a trailing space", "https://a.example/ ", false},
		{"a no-break space", "https://a.example/\u00a0", false},
		{"a line separator in the host", "https://a.example\u2028/", false},
		{"a percent-encoded space", "https://a.example/a%20b", true},
		{"a port beyond 65535", "https://a.example:99999/", false},
		{"port 0", "https://a.example:0/", false},
		{"the largest port", "https://a.example:65535/", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := afftrack.WebURLProblem(tt.url); (got == "") != tt.ok {
				t.Errorf("WebURLProblem(%q) = %q, want ok %v", tt.url, got, tt.ok)
			}
		})
	}
}

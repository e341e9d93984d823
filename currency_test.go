package afftrack_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
)

func TestCurrencyName(t *testing.T) {
	tests := []struct {
		name string
		code string
		want string
		ok   bool
	}{
		{"the Australian dollar is named", "AUD", "Australian Dollar", true},
		{"the US dollar is named as ISO writes it", "USD", "US Dollar", true},
		{"the euro is named", "EUR", "Euro", true},
		{"sterling is named as ISO writes it", "GBP", "Pound Sterling", true},
		{"the New Zealand dollar is named", "NZD", "New Zealand Dollar", true},
		{"the yen has ISO's one-word name", "JPY", "Yen", true},
		{"a name of several words is capitalised", "HKD", "Hong Kong Dollar", true},
		{"joining words stay lower case", "TTD", "Trinidad and Tobago Dollar", true},
		{"a lower-case code is found", "sgd", "Singapore Dollar", true},
		{"a mixed-case code is found", "cHf", "Swiss Franc", true},
		{"a recent code is found", "XCG", "Caribbean Guilder", true},
		{"a withdrawn code is not found", "HRK", "", false},
		{"the testing code is not found", "XTS", "", false},
		{"the no-currency code is not found", "XXX", "", false},
		{"an unassigned code is not found", "ABC", "", false},
		{"a two-letter code is not found", "US", "", false},
		{"a four-letter code is not found", "USDT", "", false},
		{"a code with a space is not found", " USD", "", false},
		{"a numeric code is not found", "840", "", false},
		{"the empty string is not found", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := afftrack.CurrencyName(tt.code)
			if got != tt.want || ok != tt.ok {
				t.Errorf("CurrencyName(%q) = %q, %v, want %q, %v", tt.code, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestCurrencyCodes(t *testing.T) {
	codes := afftrack.CurrencyCodes()

	t.Run("the table holds the active codes", func(t *testing.T) {
		if len(codes) < 160 || len(codes) > 185 {
			t.Errorf("len(CurrencyCodes()) = %d, want 160 to 185", len(codes))
		}
	})

	t.Run("codes are three upper-case letters in order, once each", func(t *testing.T) {
		for i, code := range codes {
			if !upperLetters(code, 3) {
				t.Errorf("code %q: want 3 upper-case ASCII letters", code)
			}
			if i > 0 && codes[i-1] >= code {
				t.Errorf("%s follows %s", code, codes[i-1])
			}
		}
	})

	t.Run("every code has a name", func(t *testing.T) {
		for _, code := range codes {
			if name, ok := afftrack.CurrencyName(code); !ok || name == "" {
				t.Errorf("CurrencyName(%q) = %q, %v", code, name, ok)
			}
		}
	})
}

func TestRateString(t *testing.T) {
	tests := []struct {
		name string
		in   afftrack.Rate
		want string
	}{
		{"a rate prints eight fractional digits", 152340000, "1.52340000"},
		{"a whole rate prints its zeros", 100000000, "1.00000000"},
		{"the smallest rate prints as one in the last place", 1, "0.00000001"},
		{"a large rate keeps its integer digits", 1234567800000000, "12345678.00000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.String(); got != tt.want {
				t.Errorf("Rate(%d).String() = %q, want %q", int64(tt.in), got, tt.want)
			}
		})
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want afftrack.Rate
		ok   bool
	}{
		{"a decimal rate parses", "1.5234", 152340000, true},
		{"eight fractional digits parse", "0.00000001", 1, true},
		{"a whole rate parses", "2", 200000000, true},
		{"an exponent parses", "1.5e-3", 150000, true},
		{"a rate printed by String parses back", "1.52340000", 152340000, true},
		{"nine fractional digits are refused", "0.000000001", 0, false},
		{"zero is refused", "0", 0, false},
		{"zero with a fraction is refused", "0.00000000", 0, false},
		{"a negative rate is refused", "-1.5", 0, false},
		{"text that is not a number is refused", "abc", 0, false},
		{"the empty string is refused", "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := afftrack.ParseRate(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseRate(%q) error = %v, want ok=%v", tt.in, err, tt.ok)
			}
			if err != nil && afftrack.ErrorCode(err) != afftrack.EINVALID {
				t.Errorf("ParseRate(%q) error code = %s, want %s", tt.in, afftrack.ErrorCode(err), afftrack.EINVALID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseRate(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

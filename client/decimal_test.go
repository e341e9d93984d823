package client

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDecimalTakesPlainNumbersOnly(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"100.0000", true}, {"0", true}, {"-0.02", true}, {"12345678901234567890.1234", true},
		{"", false}, {"1e5", false}, {"+1", false}, {".5", false}, {"1.", false}, {"1,5", false}, {"--1", false},
		{"0x10", false}, {" 1", false}, {"NaN", false},
	}
	for _, tt := range tests {
		name := "a plain number " + tt.in + " is taken"
		if !tt.ok {
			name = "the text " + `"` + tt.in + `"` + " is refused"
		}
		t.Run(name, func(t *testing.T) {
			d, err := ParseDecimal(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseDecimal(%q) = %q, %v", tt.in, d, err)
			}
			if tt.ok && d.String() != tt.in {
				t.Errorf("String() = %q, want %q", d.String(), tt.in)
			}
		})
	}
}

func TestDecimalsDecodeDigitForDigit(t *testing.T) {
	tests := []struct {
		name, json string
		want       Decimal
	}{
		{"four fractional digits stay four", `{"V":100.0000}`, "100.0000"},
		{"a tenth is not rounded through binary", `{"V":0.1000}`, "0.1000"},
		{"more digits than a float64 holds survive", `{"V":12345678901234567.8901}`, "12345678901234567.8901"},
		{"a negative sum keeps its sign", `{"V":-0.02}`, "-0.02"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got struct{ V Decimal }
			if err := decodeJSON(strings.NewReader(tt.json), &got, nil, true); err != nil {
				t.Fatal(err)
			}
			if got.V != tt.want {
				t.Errorf("decoded %q, want %q", got.V, tt.want)
			}
			// encoding/json, through UnmarshalJSON, agrees.
			var std struct{ V Decimal }
			if err := json.Unmarshal([]byte(tt.json), &std); err != nil || std.V != tt.want {
				t.Errorf("json.Unmarshal gave %q, %v", std.V, err)
			}
			back, err := json.Marshal(got)
			if err != nil || string(back) != tt.json {
				t.Errorf("json.Marshal gave %s, %v; want %s", back, err, tt.json)
			}
		})
	}
}

func TestDecimalsThatAreNotNumbersAreRefused(t *testing.T) {
	tests := []struct{ name, json string }{
		{"a quoted amount", `{"V":"1.00"}`},
		{"an exponent", `{"V":1e2}`},
		{"a boolean", `{"V":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is not a Decimal", func(t *testing.T) {
			var got struct{ V Decimal }
			if err := decodeJSON(strings.NewReader(tt.json), &got, nil, false); err == nil {
				t.Errorf("decoded %q", got.V)
			}
			if err := json.Unmarshal([]byte(tt.json), &got); err == nil {
				t.Errorf("json.Unmarshal decoded %q", got.V)
			}
		})
	}
	if _, err := json.Marshal(struct{ V Decimal }{"1e2"}); err == nil {
		t.Error("json.Marshal wrote a malformed Decimal")
	}
	if b, err := json.Marshal(struct{ V Decimal }{}); err != nil || string(b) != `{"V":null}` {
		t.Errorf("the empty Decimal encodes as %s, %v; want null", b, err)
	}
}

func TestDecimalArithmeticIsExact(t *testing.T) {
	tests := []struct {
		name string
		a, b Decimal
		want int
	}{
		{"trailing zeros do not change a value", "10.50", "10.5000", 0},
		{"the last of many digits decides", "12345678901234567.8901", "12345678901234567.8902", -1},
		{"a negative is below zero", "-0.01", "0", -1},
		{"the empty Decimal counts as zero", "", "0.00", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Cmp(tt.b); got != tt.want {
				t.Errorf("%q.Cmp(%q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
	// A sum of item amounts is exact, where float64 would give 0.30000000000000004.
	sum := new(big.Rat)
	for _, d := range []Decimal{"0.10", "0.20"} {
		sum.Add(sum, d.Rat())
	}
	if got := sum.FloatString(2); got != "0.30" {
		t.Errorf("0.10 + 0.20 = %s", got)
	}
	if got := MustDecimal("2.5").Float64(); got != 2.5 {
		t.Errorf("Float64() = %v", got)
	}
	if diff := cmp.Diff(Decimal("7.0000"), MustDecimal("7.0000")); diff != "" {
		t.Error(diff)
	}
}

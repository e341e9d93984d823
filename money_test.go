package afftrack_test

import (
	"math"
	"testing"

	"github.com/afftrack/afftrack"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in    string
		scale int
		want  int64
		ok    bool
	}{
		{"100", 4, 1000000, true},
		{"100.0000", 4, 1000000, true},
		{"2.5", 4, 25000, true},
		{"-0.0001", 4, -1, true},
		{"0", 4, 0, true},
		{"1.50000", 4, 15000, true},
		{"1.5e2", 4, 1500000, true},
		{"15E-4", 4, 15, true},
		{"1.23456", 4, 0, false},
		{"1e-5", 4, 0, false},
		{"0.001", 2, 0, false},
		{"5.00", 2, 500, true},
		{"01", 4, 0, false},
		{"1.", 4, 0, false},
		{".5", 4, 0, false},
		{"+1", 4, 0, false},
		{"1e", 4, 0, false},
		{"NaN", 4, 0, false},
		{"", 4, 0, false},
		{"922337203685477.5807", 4, 9223372036854775807, true},
		{"922337203685477.5808", 4, 0, false},
		{"1e400", 4, 0, false},
		{"0e400", 4, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in+" parses as expected", func(t *testing.T) {
			got, err := afftrack.ParseDecimal(tt.in, tt.scale)
			if (err == nil) != tt.ok {
				t.Fatalf("ParseDecimal(%q) error = %v, want ok=%v", tt.in, err, tt.ok)
			}
			if got != tt.want {
				t.Errorf("ParseDecimal(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestMoneyString(t *testing.T) {
	tests := []struct {
		in   afftrack.Money
		want string
	}{
		{1000000, "100.0000"}, {0, "0.0000"}, {1, "0.0001"}, {-25000, "-2.5000"},
		{-9223372036854775808, "-922337203685477.5808"},
	}
	for _, tt := range tests {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("Money(%d).String() = %q, want %q", int64(tt.in), got, tt.want)
		}
	}
	if got := afftrack.ItemMoney(250).String(); got != "2.50" {
		t.Errorf("ItemMoney(250).String() = %q, want 2.50", got)
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"1", "1.2345", "-0.5e3", "1e-4", "00", "9e18"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := afftrack.ParseDecimal(s, 4)
		if err != nil {
			return
		}
		back, err := afftrack.ParseDecimal(afftrack.Money(v).String(), 4)
		if err != nil || back != v {
			t.Fatalf("round trip of %q: %d -> %q -> %d, %v", s, v, afftrack.Money(v).String(), back, err)
		}
	})
}

func TestMoneyAdd(t *testing.T) {
	tests := []struct {
		name   string
		a, b   afftrack.Money
		want   afftrack.Money
		wantOK bool
	}{
		{"two amounts add", 15000, 2500, 17500, true},
		{"a refund subtracts", 15000, -20000, -5000, true},
		{"the largest amount and nothing is the largest", math.MaxInt64, 0, math.MaxInt64, true},
		{"past the largest amount is refused", math.MaxInt64, 1, 0, false},
		{"past the smallest amount is refused", math.MinInt64, -1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.a.Add(tt.b)
			if ok != tt.wantOK || (ok && got != tt.want) {
				t.Errorf("%s.Add(%s) = %s, %v; want %s, %v", tt.a, tt.b, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

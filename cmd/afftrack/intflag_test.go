package main

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestIntegerFlagsAreDecimal: an integer flag reads base 10 alone, as a
// positional id does, and refuses Go's other literals rather than read
// 010 as 8 or 0x10 as 16.
func TestIntegerFlagsAreDecimal(t *testing.T) {
	tests := []struct {
		name, value string
		want        int64
		err         string
	}{
		{"a leading zero is decimal", "010", 10, ""},
		{"a plus sign is taken", "+5", 5, ""},
		{"a minus sign is taken", "-3", -3, ""},
		{"hexadecimal is refused", "0x10", 0, "must be decimal digits with an optional sign"},
		{"binary is refused", "0b111", 0, "must be decimal digits with an optional sign"},
		{"octal with 0o is refused", "0o7", 0, "must be decimal digits with an optional sign"},
		{"an underscore is refused", "1_000", 0, "must be decimal digits with an optional sign"},
		{"a space is refused", " 7", 0, "must be decimal digits with an optional sign"},
		{"too large a number is out of range", "9223372036854775808", 0, "value out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var n int64
			intFlag(fs, &n, "id", 0, "an id")
			err := fs.Parse([]string{"--id", tt.value})
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("--id %s: %v", tt.value, err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("--id %s: error %v, want one saying %q", tt.value, err, tt.err)
			case n != tt.want:
				t.Errorf("--id %s is %d, want %d", tt.value, n, tt.want)
			}
		})
	}
	t.Run("an unsigned flag refuses a sign", func(t *testing.T) {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var seed uint64
		intFlag(fs, &seed, "seed", 1, "a seed")
		if err := fs.Parse([]string{"--seed", "-1"}); err == nil || !strings.Contains(err.Error(), "must be decimal digits") {
			t.Errorf("--seed -1: %v, want an error", err)
		}
	})
	t.Run("help shows an integer flag's type and default", func(t *testing.T) {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		var n int
		var seed uint64
		intFlag(fs, &n, "days", 366, "days")
		intFlag(fs, &seed, "seed", 0, "a seed")
		got := flagDefaults(fs)
		for _, want := range []string{"  -days int\n", "(default 366)", "  -seed uint\n"} {
			if !strings.Contains(got, want) {
				t.Errorf("help lacks %q:\n%s", want, got)
			}
		}
		if strings.Contains(got, "default 0") {
			t.Errorf("help shows a default of 0:\n%s", got)
		}
	})
}

package afftrack_test

import (
	"strings"
	"testing"

	"github.com/afftrack/afftrack"
)

func TestNewClickID(t *testing.T) {
	t.Run("an id is a click id", func(t *testing.T) {
		if id := afftrack.NewClickID(); !afftrack.IsClickID(id) {
			t.Fatalf("NewClickID = %q, not a click id", id)
		}
	})

	t.Run("ids made in a row differ", func(t *testing.T) {
		seen := map[string]bool{}
		for range 1000 {
			id := afftrack.NewClickID()
			if seen[id] {
				t.Fatalf("NewClickID gave %q twice", id)
			}
			seen[id] = true
		}
	})

	// tracking.md asks for 128 random bits: no digit of an id may be
	// fixed by the time or an order, as a prefix of Unix milliseconds
	// would be. Across 2,000 ids every position takes at least 12 of the
	// 16 digits; a fixed or slowly changing position takes one or two.
	t.Run("every digit of an id varies", func(t *testing.T) {
		var digits [32]map[byte]bool
		for i := range digits {
			digits[i] = map[byte]bool{}
		}
		for range 2000 {
			id := afftrack.NewClickID()
			for i := range len(id) {
				digits[i][id[i]] = true
			}
		}
		for i, d := range digits {
			if len(d) < 12 {
				t.Errorf("digit %d of the ids took only %d values", i, len(d))
			}
		}
	})
}

func TestIsClickID(t *testing.T) {
	tests := []struct {
		name string
		s    string
		want bool
	}{
		{"32 lowercase hex digits are a click id", strings.Repeat("0a", 16), true},
		{"upper-case digits are not", strings.Repeat("0A", 16), false},
		{"31 digits are not", strings.Repeat("a", 31), false},
		{"33 digits are not", strings.Repeat("a", 33), false},
		{"a letter beyond f is not", strings.Repeat("a", 31) + "g", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := afftrack.IsClickID(tt.s); got != tt.want {
				t.Errorf("IsClickID(%q) = %v, want %v", tt.s, got, tt.want)
			}
		})
	}
}

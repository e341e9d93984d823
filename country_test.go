package afftrack_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
)

func TestCountryByCode(t *testing.T) {
	au := afftrack.Country{Alpha2: "AU", Alpha3: "AUS", Name: "Australia"}
	tests := []struct {
		name string
		code string
		want afftrack.Country
		ok   bool
	}{
		{"an alpha-2 code is found", "AU", au, true},
		{"an alpha-3 code is found", "AUS", au, true},
		{"a lower-case alpha-2 code is found", "au", au, true},
		{"a mixed-case alpha-3 code is found", "aUs", au, true},
		{"the United States has its plain name", "US", afftrack.Country{Alpha2: "US", Alpha3: "USA", Name: "United States"}, true},
		{"the United Kingdom is GB, not UK", "GBR", afftrack.Country{Alpha2: "GB", Alpha3: "GBR", Name: "United Kingdom"}, true},
		{"South Korea has its plain name", "KOR", afftrack.Country{Alpha2: "KR", Alpha3: "KOR", Name: "South Korea"}, true},
		{"New Zealand is found by alpha-2", "nz", afftrack.Country{Alpha2: "NZ", Alpha3: "NZL", Name: "New Zealand"}, true},
		{"Russia has its plain name", "RU", afftrack.Country{Alpha2: "RU", Alpha3: "RUS", Name: "Russia"}, true},
		{"Vietnam has its plain name", "VNM", afftrack.Country{Alpha2: "VN", Alpha3: "VNM", Name: "Vietnam"}, true},
		{"a name keeps its accents", "ALA", afftrack.Country{Alpha2: "AX", Alpha3: "ALA", Name: "Åland Islands"}, true},
		{"an unassigned alpha-2 code is not found", "ZZ", afftrack.Country{}, false},
		{"an unassigned alpha-3 code is not found", "ZZZ", afftrack.Country{}, false},
		{"the common but unofficial UK is not found", "UK", afftrack.Country{}, false},
		{"the user-assigned XK is not found", "XK", afftrack.Country{}, false},
		{"a code with a leading space is not found", " AU", afftrack.Country{}, false},
		{"a code with a trailing space is not found", "AU ", afftrack.Country{}, false},
		{"the empty string is not found", "", afftrack.Country{}, false},
		{"a single letter is not found", "A", afftrack.Country{}, false},
		{"four letters are not found", "AUSS", afftrack.Country{}, false},
		{"a numeric code is not found", "036", afftrack.Country{}, false},
		{"a code with a non-ASCII letter is not found", "Aü", afftrack.Country{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := afftrack.CountryByCode(tt.code)
			if ok != tt.ok {
				t.Errorf("CountryByCode(%q) ok = %v, want %v", tt.code, ok, tt.ok)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CountryByCode(%q) mismatch (-want +got):\n%s", tt.code, diff)
			}
		})
	}
}

func TestCountryTable(t *testing.T) {
	all := afftrack.Countries()

	t.Run("the table has every officially assigned code", func(t *testing.T) {
		if len(all) != 249 {
			t.Errorf("len(Countries()) = %d, want 249", len(all))
		}
	})

	t.Run("codes are upper-case letters of the right length", func(t *testing.T) {
		for _, c := range all {
			if !upperLetters(c.Alpha2, 2) || !upperLetters(c.Alpha3, 3) {
				t.Errorf("%+v: want 2 and 3 upper-case ASCII letters", c)
			}
			if c.Name == "" {
				t.Errorf("%+v: empty name", c)
			}
		}
	})

	t.Run("codes are unique and in alpha-2 order", func(t *testing.T) {
		seen := map[string]bool{}
		for i, c := range all {
			for _, code := range []string{c.Alpha2, c.Alpha3} {
				if seen[code] {
					t.Errorf("code %s appears twice", code)
				}
				seen[code] = true
			}
			if i > 0 && all[i-1].Alpha2 >= c.Alpha2 {
				t.Errorf("%s follows %s", c.Alpha2, all[i-1].Alpha2)
			}
		}
	})

	t.Run("every entry is found by both its codes", func(t *testing.T) {
		for _, c := range all {
			for _, code := range []string{c.Alpha2, c.Alpha3} {
				got, ok := afftrack.CountryByCode(code)
				if !ok || got != c {
					t.Errorf("CountryByCode(%q) = %+v, %v, want %+v, true", code, got, ok, c)
				}
			}
		}
	})

	t.Run("the caller may change the returned slice", func(t *testing.T) {
		mine := afftrack.Countries()
		mine[0].Name = "changed"
		if afftrack.Countries()[0].Name == "changed" {
			t.Error("changing the result of Countries changed the table")
		}
	})
}

func upperLetters(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

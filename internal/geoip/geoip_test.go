package geoip_test

import (
	"errors"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maxmind/mmdbwriter/mmdbtype"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/geoip"
	"github.com/afftrack/afftrack/internal/geoip/geoiptest"
)

func openTestDB(t *testing.T) *geoip.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "country.mmdb")
	err := geoiptest.Write(path, map[string]string{
		"1.2.0.0/16":      "NZ",
		"1.2.3.0/24":      "AU", // inside the /16 above, and must win
		"192.0.2.0/24":    "us",
		"5.6.7.0/24":      "ZZ",
		"9.9.9.0/24":      "AUS",
		"2001:db8::/32":   "GB",
		"2001:db8:1::/48": "DE",
	})
	if err != nil {
		t.Fatal(err)
	}
	db, err := geoip.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func country(t *testing.T, code string) afftrack.Country {
	t.Helper()
	c, ok := afftrack.CountryByCode(code)
	if !ok {
		t.Fatalf("CountryByCode(%q) not found", code)
	}
	return c
}

func TestCountry(t *testing.T) {
	db := openTestDB(t)
	tests := []struct {
		name string
		ip   string
		want string // alpha-2; "" for not found
	}{
		{"an IPv4 address in a network is located", "1.2.3.4", "AU"},
		{"an IPv4 address in the wider network gets the wider country", "1.2.4.1", "NZ"},
		{"an IPv4-mapped IPv6 address is located as its IPv4 address", "::ffff:1.2.3.4", "AU"},
		{"a lower-case code in the database is found", "192.0.2.10", "US"},
		{"an IPv6 address in a network is located", "2001:db8::1", "GB"},
		{"an IPv6 address in a narrower network gets its country", "2001:db8:1::5", "DE"},
		{"an IPv4 address outside every network is not found", "8.8.8.8", ""},
		{"an IPv6 address outside every network is not found", "2001:db9::1", ""},
		{"a code afftrack does not know is not found", "5.6.7.8", ""},
		{"an alpha-3 code in the database is not trusted", "9.9.9.9", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := db.Country(netip.MustParseAddr(tt.ip))
			var want afftrack.Country
			if tt.want != "" {
				want = country(t, tt.want)
			}
			if ok != (tt.want != "") {
				t.Errorf("Country(%s) ok = %v, want %v", tt.ip, ok, tt.want != "")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Country(%s) mismatch (-want +got):\n%s", tt.ip, diff)
			}
		})
	}

	t.Run("the zero address is not found", func(t *testing.T) {
		if got, ok := db.Country(netip.Addr{}); ok {
			t.Errorf("Country(zero Addr) = %+v, true; want not found", got)
		}
	})
}

func TestCountryRegisteredCountry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "country.mmdb")
	iso := func(code string) mmdbtype.Map { return mmdbtype.Map{"iso_code": mmdbtype.String(code)} }
	err := geoiptest.WriteRecords(path, "GeoIP2-Country", map[string]mmdbtype.Map{
		"1.1.1.0/24": {"registered_country": iso("AU")},
		"2.2.2.0/24": {"country": iso("FR"), "registered_country": iso("US")},
	})
	if err != nil {
		t.Fatal(err)
	}
	db, err := geoip.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	tests := []struct {
		name string
		ip   string
		want string
	}{
		{"a record without a country falls back to the registered country", "1.1.1.1", "AU"},
		{"a record with a country ignores the registered country", "2.2.2.2", "FR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := db.Country(netip.MustParseAddr(tt.ip))
			if !ok {
				t.Fatalf("Country(%s) not found", tt.ip)
			}
			if diff := cmp.Diff(country(t, tt.want), got); diff != "" {
				t.Errorf("Country(%s) mismatch (-want +got):\n%s", tt.ip, diff)
			}
		})
	}
}

func TestCountryConcurrent(t *testing.T) {
	db := openTestDB(t)
	au := country(t, "AU")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				if got, ok := db.Country(netip.MustParseAddr("1.2.3.4")); !ok || got != au {
					t.Errorf("Country(1.2.3.4) = %+v, %v; want %+v, true", got, ok, au)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	asn := filepath.Join(dir, "asn.mmdb")
	err := geoiptest.WriteRecords(asn, "GeoLite2-ASN", map[string]mmdbtype.Map{
		"1.1.1.0/24": {"autonomous_system_number": mmdbtype.Uint32(13335)},
	})
	if err != nil {
		t.Fatal(err)
	}
	city := filepath.Join(dir, "city.mmdb")
	err = geoiptest.WriteRecords(city, "GeoLite2-City", map[string]mmdbtype.Map{
		"1.1.1.0/24": {"country": mmdbtype.Map{"iso_code": mmdbtype.String("AU")}},
	})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		path    string
		wantErr string // "" for success
	}{
		{"a text file is not a MaxMind database", write("text.mmdb", "not a database\n"), "is not a MaxMind database"},
		{"an empty file is not a MaxMind database", write("empty.mmdb", ""), "is not a MaxMind database"},
		{"a database without countries is refused", asn, `is a "GeoLite2-ASN" database`},
		{"a city database is accepted", city, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := geoip.Open(tt.path)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Open(%s) error = %v", tt.path, err)
				}
				db.Close()
				return
			}
			if err == nil {
				db.Close()
				t.Fatalf("Open(%s) succeeded, want an error containing %q", tt.path, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Open(%s) error = %q, want it to contain %q", tt.path, err, tt.wantErr)
			}
		})
	}

	t.Run("a missing file reports that it does not exist", func(t *testing.T) {
		_, err := geoip.Open(filepath.Join(dir, "missing.mmdb"))
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(missing) error = %v, want fs.ErrNotExist", err)
		}
	})
}

func TestNilDB(t *testing.T) {
	var db *geoip.DB

	t.Run("a nil DB locates nothing", func(t *testing.T) {
		if got, ok := db.Country(netip.MustParseAddr("1.2.3.4")); ok || got != (afftrack.Country{}) {
			t.Errorf("nil DB Country = %+v, %v; want zero, false", got, ok)
		}
	})

	t.Run("closing a nil DB succeeds", func(t *testing.T) {
		if err := db.Close(); err != nil {
			t.Errorf("nil DB Close = %v", err)
		}
	})
}

// Package geoip locates IP addresses by country with a MaxMind-format
// database (GeoLite2-Country, GeoIP2-Country, or a City database, which
// holds the same country fields).
package geoip

import (
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"strings"

	"github.com/oschwald/maxminddb-golang/v2"

	"github.com/afftrack/afftrack"
)

// DB is an open country database. Its methods are safe for concurrent
// use, except that Close must not run while a lookup does. A nil *DB is
// valid and locates nothing, so a server started without a database
// needs no branch where it records a country.
type DB struct {
	r *maxminddb.Reader
}

// Open opens the MaxMind database at path. It fails when the file cannot
// be read, when it is not a MaxMind database, and when its database type
// names neither "Country" nor "City": other MaxMind databases (ASN,
// Connection-Type, ...) decode without error but carry no country, and
// would silently locate nothing.
func Open(path string) (*DB, error) {
	r, err := maxminddb.Open(path)
	if err != nil {
		if _, ok := errors.AsType[*fs.PathError](err); ok {
			return nil, fmt.Errorf("geoip: %w", err)
		}
		return nil, fmt.Errorf("geoip: %s is not a MaxMind database: %w", path, err)
	}
	typ := r.Metadata.DatabaseType
	if !strings.Contains(typ, "Country") && !strings.Contains(typ, "City") {
		r.Close()
		return nil, fmt.Errorf("geoip: %s is a %q database; want a country database such as GeoLite2-Country", path, typ)
	}
	return &DB{r: r}, nil
}

// record holds the only fields Country reads; the decoder skips the rest
// of a record, which in a City database is most of it.
type record struct {
	Country struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"country"`
	// RegisteredCountry is where the network's owner registered it. It
	// stands in when MaxMind could not place the address itself, as for
	// some anycast and satellite networks.
	RegisteredCountry struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"registered_country"`
}

// Country returns the country where ip is located. It reports false when
// db is nil, ip is not in the database, or the database gives a code that
// is not an ISO 3166-1 alpha-2 code of afftrack's table.
//
// A damaged record also reports false rather than an error: a click or a
// conversion is recorded without a country sooner than refused for it.
func (db *DB) Country(ip netip.Addr) (afftrack.Country, bool) {
	if db == nil || !ip.IsValid() {
		return afftrack.Country{}, false
	}
	// A dual-stack listener reports IPv4 clients as ::ffff:a.b.c.d; an
	// IPv4-only database cannot look those up, and an IPv6 one finds them
	// only through an alias its writer may have left out.
	var rec record
	if err := db.r.Lookup(ip.Unmap()).Decode(&rec); err != nil {
		return afftrack.Country{}, false
	}
	code := rec.Country.ISOCode
	if code == "" {
		code = rec.RegisteredCountry.ISOCode
	}
	if len(code) != 2 {
		return afftrack.Country{}, false
	}
	return afftrack.CountryByCode(code)
}

// Close releases the database. Closing a nil *DB does nothing.
func (db *DB) Close() error {
	if db == nil {
		return nil
	}
	return db.r.Close()
}

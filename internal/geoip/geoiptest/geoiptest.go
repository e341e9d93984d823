// Package geoiptest writes small MaxMind-format databases for tests, so
// packages that locate addresses can be tested without MaxMind's files.
package geoiptest

import (
	"cmp"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

// Write writes a GeoLite2-Country database to path in which each network
// of entries (a CIDR prefix such as "1.2.3.0/24" or "2001:db8::/32") is
// located in the country of the given ISO 3166-1 alpha-2 code. The code
// is written as given, so a test can store one afftrack does not know.
//
// Where networks overlap, the narrower one wins whatever the map order.
func Write(path string, entries map[string]string) error {
	records := make(map[string]mmdbtype.Map, len(entries))
	for network, code := range entries {
		records[network] = mmdbtype.Map{
			"country": mmdbtype.Map{"iso_code": mmdbtype.String(code)},
		}
	}
	return WriteRecords(path, "GeoLite2-Country", records)
}

// WriteRecords writes a database of type databaseType to path holding
// records, keyed by CIDR prefix, for tests that need fields Write does
// not set or another database type.
//
// The tree is IPv6 with IPv4 mapped into it, as MaxMind's own databases
// are, so both kinds of address can be looked up. Reserved networks are
// allowed so tests can use the documentation ranges (192.0.2.0/24,
// 2001:db8::/32) that no real database covers.
func WriteRecords(path, databaseType string, records map[string]mmdbtype.Map) error {
	tree, err := mmdbwriter.New(mmdbwriter.Options{
		DatabaseType:            databaseType,
		IncludeReservedNetworks: true,
		RecordSize:              24,
	})
	if err != nil {
		return fmt.Errorf("geoiptest: %w", err)
	}
	type entry struct {
		prefix netip.Prefix
		value  mmdbtype.Map
	}
	entries := make([]entry, 0, len(records))
	for s, value := range records {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return fmt.Errorf("geoiptest: %w", err)
		}
		entries = append(entries, entry{p.Masked(), value})
	}
	// Inserting a network replaces what its range held, so broader
	// networks go first and the narrower ones inside them survive. An
	// IPv4 prefix sits 96 bits deep in the IPv6 tree.
	depth := func(p netip.Prefix) int {
		if p.Addr().Is4() {
			return p.Bits() + 96
		}
		return p.Bits()
	}
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(depth(a.prefix), depth(b.prefix)), a.prefix.Addr().Compare(b.prefix.Addr()))
	})
	for _, e := range entries {
		network := &net.IPNet{
			IP:   e.prefix.Addr().AsSlice(),
			Mask: net.CIDRMask(e.prefix.Bits(), e.prefix.Addr().BitLen()),
		}
		if err := tree.Insert(network, e.value); err != nil {
			return fmt.Errorf("geoiptest: inserting %s: %w", e.prefix, err)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("geoiptest: %w", err)
	}
	if _, err := tree.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("geoiptest: writing %s: %w", path, err)
	}
	return f.Close()
}

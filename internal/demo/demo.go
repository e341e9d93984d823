// Package demo holds the demo data set that `afftrack serve --demo` loads:
// a small network modelled on the interface's examples, written as an
// ordinary import file so it doubles as a worked example of that format.
package demo

import (
	"bytes"
	_ "embed"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/importfile"
)

//go:embed demo.json
var file []byte

// File returns the demo import file's bytes.
func File() []byte { return bytes.Clone(file) }

// Dataset parses the demo file with datetimes in loc.
func Dataset(loc *time.Location) (*afftrack.Dataset, error) {
	// The demo keys are short so a person can type them; no other import
	// may have such keys.
	return importfile.ParseOptions(bytes.NewReader(file), importfile.Options{Location: loc, AllowWeakKeys: true})
}

// Key is a demo API key and whom it belongs to, for printing at start-up.
type Key struct {
	Secret  string
	Account afftrack.AccountRef
	Owner   string
	Status  afftrack.AccountStatus
}

// Keys lists the demo data set's keys.
func Keys(d *afftrack.Dataset) []Key {
	var keys []Key
	for _, m := range d.Merchants {
		for _, k := range m.APIKeys {
			keys = append(keys, Key{k, afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: m.ID}, m.Name, m.Status})
		}
	}
	for _, a := range d.Affiliates {
		for _, k := range a.APIKeys {
			keys = append(keys, Key{k, afftrack.AccountRef{Kind: afftrack.KindAffiliate, ID: a.ID}, a.ContactName, a.Status})
		}
	}
	return keys
}

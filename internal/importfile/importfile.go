// Package importfile reads afftrack's import file: one JSON document whose
// optional collections (Merchants, Affiliates, Memberships, Transactions,
// Banners, Invoices) hold records in the API's own field names. It checks
// everything that needs no stored data — types, formats, required fields,
// enumerations, status invariants — and names the collection, the record's
// index and the field of the first problem. References between records
// are checked by the store, which also sees what is already stored.
package importfile

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// Parse reads an import document from r. Datetimes without a zone are wall
// clocks of loc; zoned ones are converted to it.
func Parse(r io.Reader, loc *time.Location) (*afftrack.Dataset, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read import file: %w", err)
	}
	var top map[string]json.RawMessage
	if err := decodeObject(data, &top); err != nil {
		return nil, afftrack.Errorf(afftrack.EINVALID, "the import file must be one JSON object with the collections Merchants, Affiliates, Memberships, Transactions, Banners, Invoices: %v", jsonProblem(err))
	}
	// Collections are read in a fixed order so the first error reported
	// does not depend on map iteration.
	names := make([]string, 0, len(top))
	for name := range top {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		oi, oj := collectionOrder(names[i]), collectionOrder(names[j])
		return oi < oj || (oi == oj && names[i] < names[j])
	})
	d := &afftrack.Dataset{}
	for _, name := range names {
		raw := top[name]
		var items []json.RawMessage
		if s := strings.TrimSpace(string(raw)); s != "null" {
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, afftrack.Errorf(afftrack.EINVALID, "%s: must be a JSON array", name)
			}
		}
		if err := parseCollection(d, name, items, loc); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// collections lists the file's collections in the order they are read.
var collections = []string{"merchants", "affiliates", "memberships", "transactions", "banners", "invoices"}

func collectionOrder(name string) int {
	for i, c := range collections {
		if strings.EqualFold(c, name) {
			return i
		}
	}
	return -1 // unknown names first, so a misspelt collection is reported before anything else
}

// parseCollection parses the records of the collection called name into d.
func parseCollection(d *afftrack.Dataset, name string, items []json.RawMessage, loc *time.Location) error {
	each := func(canonical string, parse func(r *record)) error {
		for i, raw := range items {
			r := newRecord(fmt.Sprintf("%s[%d]", canonical, i), raw, loc)
			if r.err == nil {
				parse(r)
			}
			if err := r.done(); err != nil {
				return err
			}
		}
		return nil
	}
	switch strings.ToLower(name) {
	case "merchants":
		return each("Merchants", func(r *record) { d.Merchants = append(d.Merchants, parseMerchant(r)) })
	case "affiliates":
		return each("Affiliates", func(r *record) { d.Affiliates = append(d.Affiliates, parseAffiliate(r)) })
	case "memberships":
		return each("Memberships", func(r *record) { d.Memberships = append(d.Memberships, parseMembership(r)) })
	case "transactions":
		return each("Transactions", func(r *record) { d.Transactions = append(d.Transactions, parseTransaction(r)) })
	case "banners":
		return each("Banners", func(r *record) { d.Banners = append(d.Banners, parseBanner(r)) })
	case "invoices":
		return each("Invoices", func(r *record) { d.Invoices = append(d.Invoices, parseInvoice(r)) })
	}
	return afftrack.Errorf(afftrack.EINVALID, "%s: is not a collection; use Merchants, Affiliates, Memberships, Transactions, Banners or Invoices", name)
}

// jsonProblem turns a decoding error into words with a byte offset where
// encoding/json knows one.
func jsonProblem(err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	return err.Error()
}

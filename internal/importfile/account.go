package importfile

import (
	"fmt"
	"strings"

	"github.com/afftrack/afftrack"
)

// parseMerchant reads a merchant and its Program, if it has one.
func parseMerchant(r *record) (afftrack.MerchantRecord, *afftrack.Program) {
	var m afftrack.MerchantRecord
	m.ID = r.id("Id")
	m.Name = r.str("Name", true)
	if r.err == nil && strings.TrimSpace(m.Name) == "" {
		r.fail("Name", "must not be empty")
	}
	m.AvatarURL = r.url("AvatarUrl")
	m.Status = accountStatus(r)
	m.RateLimit = rateLimit(r)
	m.APIKeys = apiKeys(r)
	m.DateCreated = r.nullDatetime("DateCreated")
	m.DateModified = r.nullDatetime("DateModified")
	m.Summary = r.str("Summary", false)
	m.Categories = categories(r)
	p := program(r, m.ID)
	return m, p
}

// categories reads a merchant's Categories: at most three
// MerchantNewCategory values, none given twice.
func categories(r *record) []string {
	list := r.stringList("Categories", "strings")
	if len(list) > afftrack.MaxMerchantCategories {
		r.fail("Categories", "has %d categories; a merchant has at most %d", len(list), afftrack.MaxMerchantCategories)
		return nil
	}
	for i, c := range list {
		// Categories are text, served in JSON and XML alike.
		if r.text(fmt.Sprintf("Categories[%d]", i), c); r.err != nil {
			return nil
		}
		if err := afftrack.ValidMerchantCategory(c); err != nil {
			r.fail(fmt.Sprintf("Categories[%d]", i), "%s", afftrack.ErrorMessage(err))
			return nil
		}
		for j := range i {
			if list[j] == c {
				r.fail(fmt.Sprintf("Categories[%d]", i), "%q is also Categories[%d]", c, j)
				return nil
			}
		}
	}
	return list
}

func parseAffiliate(r *record) afftrack.AffiliateRecord {
	var a afftrack.AffiliateRecord
	a.ID = r.id("Id")
	a.ContactName = r.str("ContactName", true)
	if r.err == nil && strings.TrimSpace(a.ContactName) == "" {
		r.fail("ContactName", "must not be empty")
	}
	a.BusinessName = r.str("BusinessName", false)
	a.Status = accountStatus(r)
	a.GSTRegistered = r.bool("GstRegistered")
	a.RateLimit = rateLimit(r)
	a.APIKeys = apiKeys(r)
	a.NotificationURL = r.str("NotificationUrl", false)
	if a.NotificationURL != "" && r.err == nil {
		if err := afftrack.ValidNotificationURL(a.NotificationURL); err != nil {
			r.fail("NotificationUrl", "%s", afftrack.ErrorMessage(err))
		}
	}
	a.DateCreated = r.nullDatetime("DateCreated")
	a.DateModified = r.nullDatetime("DateModified")
	return a
}

// accountStatus reads Status, Active when absent.
func accountStatus(r *record) afftrack.AccountStatus {
	s := enum(r, "Status", false, afftrack.ParseAccountStatus, afftrack.AccountStatusNames())
	if s == 0 {
		return afftrack.AccountActive
	}
	return s
}

// rateLimit reads the optional RateLimit object; a dimension it leaves out
// takes the server's default.
func rateLimit(r *record) afftrack.RateLimit {
	raw := r.raw("RateLimit")
	if raw == nil {
		return afftrack.RateLimit{}
	}
	sub := newRecord(r.path+".RateLimit", raw, r.opts)
	dim := func(name string) afftrack.Null[int64] {
		v := sub.nullInt(name, false)
		if v.Valid && v.Value < 0 {
			sub.fail(name, "%d is negative; use 0 for no limit", v.Value)
		}
		return v
	}
	l := afftrack.RateLimit{PerMinute: dim("PerMinute"), PerDay: dim("PerDay"), Concurrent: dim("Concurrent")}
	if err := sub.done(); err != nil && r.err == nil {
		r.err = err
	}
	return l
}

// apiKeys reads ApiKeys: an array of key secrets, each 1 to 256 printable
// ASCII characters so it can travel in a query string or header.
func apiKeys(r *record) []string {
	keys := r.stringList("ApiKeys", "strings")
	if r.err != nil {
		return nil
	}
	for i, k := range keys {
		switch {
		case !r.opts.AllowWeakKeys && (len(k) > 256 || !strongKey(k)):
			r.fail(fmt.Sprintf("ApiKeys[%d]", i),
				"a key must be %d to 256 characters of A-Z a-z 0-9 - _, drawn at random (%d of them carry 132 bits)",
				minKeyLength, minKeyLength)
		case len(k) < 1 || len(k) > 256 || !printableASCII(k):
			r.fail(fmt.Sprintf("ApiKeys[%d]", i), "a key must be 1 to 256 printable ASCII characters without spaces")
		}
	}
	return keys
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// minKeyLength is the shortest key an import accepts: 22 characters of a
// 64-letter alphabet carry 132 bits, so a key guessed online or from a
// leaked hash is out of reach.
const minKeyLength = 22

// strongKey reports whether k has at least minKeyLength characters, all of
// A-Z a-z 0-9 - _ (the alphabet of the keys the service generates).
func strongKey(k string) bool {
	if len(k) < minKeyLength {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

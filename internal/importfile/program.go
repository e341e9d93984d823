package importfile

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// maxDays bounds a program's CookieDays and ValidationDays: ten years,
// so a date computed from them stays in range.
const maxDays = 3660

// program reads a merchant's optional Program object (tracking.md
// section 1), filling the defaults of the fields it leaves out.
func program(r *record, merchantID int64) *afftrack.Program {
	raw := r.raw("Program")
	if raw == nil {
		return nil
	}
	sub := newRecord(r.path+".Program", raw, r.opts)
	p := programFrom(sub, merchantID)
	if err := sub.done(); err != nil && r.err == nil {
		r.err = err
	}
	return p
}

// programFrom reads the fields of a Program object.
func programFrom(sub *record, merchantID int64) *afftrack.Program {
	p := &afftrack.Program{MerchantID: merchantID, CookieDays: afftrack.DefaultCookieDays,
		ValidationDays: afftrack.DefaultValidationDays, ClickAppend: afftrack.DefaultClickAppend}
	p.TargetURL = sub.url("TargetUrl")
	p.AllowedDomains = domains(sub)
	p.CookieDays = days(sub, "CookieDays", p.CookieDays)
	p.ValidationDays = days(sub, "ValidationDays", p.ValidationDays)
	p.Prepaid = sub.bool("Prepaid")
	if s := sub.nullStr("ClickAppend", false); s.Valid {
		p.ClickAppend = s.Value
		if err := afftrack.ValidClickAppend(s.Value); err != nil && sub.err == nil {
			// The message names the field already, as the command line needs.
			sub.fail("ClickAppend", "%s", strings.TrimPrefix(afftrack.ErrorMessage(err), "ClickAppend: "))
		}
	}
	if c := sub.raw("Commission"); c != nil {
		p.Commission = rule(sub, "Commission", c, false)
	}
	if rules := sub.raw("Rules"); rules != nil {
		var list []json.RawMessage
		if err := json.Unmarshal(rules, &list); err != nil {
			sub.fail("Rules", "must be an array of rule objects")
		}
		if len(list) > maxRules {
			sub.fail("Rules", "has %d rules; a program has at most %d", len(list), maxRules)
		}
		for i, raw := range list {
			if sub.err != nil {
				break
			}
			p.Rules = append(p.Rules, rule(sub, fmt.Sprintf("Rules[%d]", i), raw, true))
		}
	}
	if v := sub.decimal("OverrideFeePercent", afftrack.PercentScale); v.Valid {
		p.OverrideFeePercent = afftrack.Percent(v.Value)
		if v.Value < 0 || v.Value > 100*10_000 {
			sub.fail("OverrideFeePercent", "must be from 0 to 100")
		}
	}
	p.Listed = true
	if v := sub.nullBool("Listed"); v.Valid {
		p.Listed = v.Value
	}
	p.CommissionType = enum(sub, "CommissionType", false, afftrack.ParseMerchantType, afftrack.MerchantTypeNames())
	if err := p.CheckCommissionType(); err != nil && sub.err == nil {
		sub.err = afftrack.Errorf(afftrack.EINVALID, "%s.%s", sub.path, afftrack.ErrorMessage(err))
	}
	return p
}

// maxRules and maxDomains bound a program's lists: a program is read
// whole on every conversion.
const (
	maxRules   = 200
	maxDomains = 200
)

// days reads a count of days from 0 to maxDays.
func days(r *record, name string, def int64) int64 {
	n := r.int(name, false, def)
	if r.err == nil && (n < 0 || n > maxDays) {
		r.fail(name, "%d is not a number of days from 0 to %d", n, maxDays)
	}
	return n
}

// domains reads AllowedDomains: host names, kept in lower case without
// leading or trailing dots.
func domains(r *record) []string {
	list := r.stringList("AllowedDomains", "host names")
	if r.err != nil {
		return nil
	}
	if len(list) > maxDomains {
		r.fail("AllowedDomains", "has %d hosts; a program has at most %d", len(list), maxDomains)
		return nil
	}
	var hosts []string
	for i, h := range list {
		h = strings.Trim(strings.ToLower(h), ".")
		if !validHost(h) {
			r.fail(fmt.Sprintf("AllowedDomains[%d]", i), "%q is not a host name", list[i])
			return nil
		}
		hosts = append(hosts, h)
	}
	return hosts
}

// validHost reports whether h is a host name of ASCII letters, digits,
// hyphens and dots, as the deep-link check compares them.
func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// rule reads a commission rule: exactly one of Percent and Flat, and, in
// Rules (conditions true), any of AffiliateId, Category and CustomerType.
func rule(parent *record, name string, raw json.RawMessage, conditions bool) afftrack.CommissionRule {
	var out afftrack.CommissionRule
	r := newRecord(parent.path+"."+name, raw, parent.opts)
	if pct := r.decimal("Percent", afftrack.PercentScale); pct.Valid {
		out.Percent = afftrack.Some(afftrack.Percent(pct.Value))
		if pct.Value < 0 || pct.Value > 100*10_000 {
			r.fail("Percent", "must be from 0 to 100")
		}
	}
	if flat := r.nullMoney("Flat"); flat.Valid {
		out.Flat = flat
		if flat.Value < 0 {
			r.fail("Flat", "must not be negative")
		}
	}
	if r.err == nil && out.Percent.Valid == out.Flat.Valid {
		r.fail("Percent", "a rule has exactly one of Percent and Flat")
	}
	if conditions {
		out.AffiliateID = r.idRef("AffiliateId")
		out.Category = r.nullStr("Category", false)
		// An item whose Category is empty has none, so an empty Category
		// could never match: refused rather than kept as a rule that never
		// applies.
		if out.Category.Valid && out.Category.Value == "" && r.err == nil {
			r.fail("Category", "must not be empty; leave it out for a rule of every category")
		}
		out.CustomerType = enum(r, "CustomerType", false, afftrack.ParseCustomerType, afftrack.CustomerTypeNames())
	}
	if err := r.done(); err != nil && parent.err == nil {
		parent.err = err
	}
	return out
}

// parseCurrencyRate reads a rate (tracking.md section 5): Code a currency
// of ISO 4217, Date a day, Rate network-currency units for one unit of
// Code, greater than zero, with up to 8 fractional digits.
func parseCurrencyRate(r *record) afftrack.CurrencyRate {
	var cr afftrack.CurrencyRate
	cr.Code = strings.ToUpper(r.str("Code", true))
	if _, ok := afftrack.CurrencyName(cr.Code); r.err == nil && !ok {
		r.fail("Code", "%q is not an ISO 4217 currency code", cr.Code)
	}
	// A day alone, as tracking.md writes it: a time, even midnight
	// ("2024-01-01T00:00"), is refused, so the JSON file and the CSV
	// agree and no one reads a rate as starting at that hour. The day's
	// form is checked first, so a refusal never suggests a time.
	if s := r.str("Date", true); r.err == nil {
		if day, err := time.Parse(time.DateOnly, s); err == nil && day.Year() >= 1 {
			cr.Date = day // midnight UTC, as every stored day
		} else if _, err := afftrack.ParseDateTime(s); err == nil {
			r.fail("Date", "%q must be a day (YYYY-MM-DD), without a time", s)
		} else {
			r.fail("Date", "%q is not a day; use YYYY-MM-DD", s)
		}
	}
	raw := r.raw("Rate")
	if raw == nil {
		r.missing("Rate", true)
		return cr
	}
	if r.err == nil {
		v, err := afftrack.ParseRate(string(raw))
		if err != nil {
			r.fail("Rate", "%s", afftrack.ErrorMessage(err))
		}
		cr.Rate = v
	}
	return cr
}

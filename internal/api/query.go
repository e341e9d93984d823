package api

import (
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// query holds a request's query parameters in their order: names match
// ignoring ASCII case, an empty value counts as absent, and of a repeated
// name the first non-empty value wins. It is a slice searched in order:
// a request carries a handful of parameters. Parameters with empty values
// are kept in it, as the pixel's repeated item parameters count by their
// places: `Category=&Category=Bags` is a second item of Bags.
type query []queryParam

// queryParam is one parameter, its name unescaped but otherwise as
// written. A value that does not unescape is kept as written and marked,
// so that a parameter the function reads is a 400 rather than silently
// absent: a client's filter must never be dropped.
type queryParam struct {
	name, value string
	badEscape   bool
}

// parseQuery parses a raw query string. A pair whose name does not
// unescape is skipped: it can name no parameter.
func parseQuery(raw string) query {
	var q query
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(name)
		if err != nil {
			continue
		}
		p := queryParam{name: name, value: value}
		if p.value, err = url.QueryUnescape(value); err != nil {
			p.value, p.badEscape = value, true
		}
		q = append(q, p)
	}
	return q
}

// lookup returns the first parameter with the given ASCII name, in any
// ASCII case, and a non-empty value, and whether it is there. Only ASCII
// letters fold: a name with any other character never matches, so no
// Unicode case mapping (the dotted capital I lower-cases to i) can make a
// name that the log's redaction misses (isAPIKeyName) mean the key.
func (q query) lookup(name string) (queryParam, bool) {
	for _, p := range q {
		if p.value != "" && asciiEqualFold(p.name, name) {
			return p, true
		}
	}
	return queryParam{}, false
}

// get returns the value of the parameter name, or "" when it is absent or
// badly escaped: for the tracking routes, where a browser's link with a
// broken sub-id or deep link still leads to the merchant.
func (q query) get(name string) string {
	if p, ok := q.lookup(name); ok && !p.badEscape {
		return p.value
	}
	return ""
}

// raw returns the value of the parameter name as get does, but a badly
// escaped one as written, for a parameter that is checked against a
// fixed form (contentType, callback) and so refused as it is.
func (q query) raw(name string) string {
	p, _ := q.lookup(name)
	return p.value
}

// asciiEqualFold reports whether a and b are equal once their ASCII
// letters are lower-cased.
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		ca, cb := a[i], b[i]
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if 'A' <= cb && cb <= 'Z' {
			cb += 'a' - 'A'
		}
		if ca != cb {
			return false
		}
	}
	return true
}

// params reads a function's parameters from a query. The first bad one
// sticks in err and the rest are skipped, so a handler reads them in the
// order of the interface's table and checks err once: the first bad
// parameter is the 400.
type params struct {
	q   query
	err error
}

// value returns the value of the parameter name, "" when it is absent or
// an earlier parameter was bad; a badly escaped value is the 400.
func (p *params) value(name string) string {
	if p.err != nil {
		return ""
	}
	v, _ := p.q.lookup(name)
	if v.badEscape {
		p.err = afftrack.Errorf(afftrack.EINVALID, "%s: %q is not correctly percent-encoded", name, v.value)
		return ""
	}
	return v.value
}

// date returns the required datetime parameter name (spelled for
// messages; matched in any case) cut to its date: its time and zone are
// ignored, as the contract wants.
func (p *params) date(name string) time.Time {
	v := p.value(name)
	if p.err != nil {
		return time.Time{}
	}
	if v == "" {
		p.err = afftrack.Errorf(afftrack.EINVALID, "%s: is required", name)
		return time.Time{}
	}
	d, err := afftrack.ParseDateTime(v)
	if err != nil {
		p.err = afftrack.Errorf(afftrack.EINVALID, "%s: %q is not a date; use YYYY-MM-DD", name, v)
		return time.Time{}
	}
	return d.Date()
}

// days reads the required fromDate and toDate, whole days, swapped if
// reversed: the range of every list and report that takes one.
func (p *params) days() (from, to time.Time) {
	from, to = p.date("fromDate"), p.date("toDate")
	if from.After(to) {
		from, to = to, from
	}
	return from, to
}

// dateRange reads a transaction list's range: fromDate and toDate
// (swapped if reversed) and dateProperty (DateCreated by default).
func (p *params) dateRange() (from, to time.Time, prop afftrack.DateProperty) {
	from, to = p.days()
	if p.err != nil {
		return from, to, prop
	}
	switch v := p.value("dateProperty"); {
	case p.err != nil:
	case v == "", strings.EqualFold(v, "DateCreated"):
		prop = afftrack.ByDateCreated
	case strings.EqualFold(v, "DateModified"):
		prop = afftrack.ByDateModified
	default:
		p.err = afftrack.Errorf(afftrack.EINVALID, "dateProperty: %q is not one of DateCreated, DateModified", v)
	}
	return from, to, prop
}

// int64 fills dst from the optional integer parameter name.
func (p *params) int64(name string, dst *afftrack.Null[int64]) {
	v := p.value(name)
	if p.err != nil || v == "" {
		return
	}
	n, err := parseInt(name, v)
	if err != nil {
		p.err = err
		return
	}
	*dst = afftrack.Some(n)
}

// text fills dst from the optional text parameter name. The value is taken
// whole; the store matches it ignoring case. A value with a character no
// stored text can hold (NUL, another control character, invalid UTF-8)
// is a 400: it could match nothing, and not every engine can even be
// asked (PostgreSQL refuses NUL).
func (p *params) text(name string, dst *afftrack.Null[string]) {
	v := p.value(name)
	switch {
	case p.err != nil, v == "":
	case afftrack.TextProblem(v) >= 0:
		p.err = afftrack.Errorf(afftrack.EINVALID,
			"%s: holds a control character or invalid UTF-8, which no stored text has", name)
	default:
		*dst = afftrack.Some(v)
	}
}

// bool fills dst from the optional boolean parameter name: true or false,
// ignoring case.
func (p *params) bool(name string, dst *afftrack.Null[bool]) {
	v := p.value(name)
	switch {
	case p.err != nil, v == "":
	case strings.EqualFold(v, "true"):
		*dst = afftrack.Some(true)
	case strings.EqualFold(v, "false"):
		*dst = afftrack.Some(false)
	default:
		p.err = afftrack.Errorf(afftrack.EINVALID, "%s: %q is not a boolean; use true or false", name, v)
	}
}

// paramEnum fills dst from the optional enumeration parameter name with
// parse, one of the root package's Parse functions; names lists the
// accepted values for the message.
func paramEnum[T ~uint8](p *params, name string, dst *T, parse func(string) (T, bool), names string) {
	v := p.value(name)
	if p.err != nil || v == "" {
		return
	}
	e, ok := parse(v)
	if !ok {
		p.err = afftrack.Errorf(afftrack.EINVALID, "%s: %q is not one of %s", name, v, names)
		return
	}
	*dst = e
}

// parseInt parses the value v of parameter name as the contract's integer:
// decimal digits with an optional leading minus, within the int64 range.
func parseInt(name, v string) (int64, error) {
	digits := strings.TrimPrefix(v, "-")
	if digits == "" {
		return 0, afftrack.Errorf(afftrack.EINVALID, "%s: %q is not an integer", name, v)
	}
	var u uint64
	overflow := false
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, afftrack.Errorf(afftrack.EINVALID, "%s: %q is not an integer", name, v)
		}
		if u > (math.MaxUint64-9)/10 {
			overflow = true
			continue
		}
		u = u*10 + uint64(c-'0')
	}
	neg := len(digits) < len(v)
	if overflow || (!neg && u > math.MaxInt64) || (neg && u > math.MaxInt64+1) {
		return 0, afftrack.Errorf(afftrack.EINVALID, "%s: %q is out of range", name, v)
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
}

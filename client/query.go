package client

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// query is a request's parameters in the order they are added. Absent
// values are never added, so a zero parameter struct asks for nothing.
type query []string

// add appends name=value, percent-encoded with %20 for a space: '+'
// means a space only to some decoders, %20 to all.
func (q *query) add(name, value string) {
	*q = append(*q, url.QueryEscape(name)+"="+strings.ReplaceAll(url.QueryEscape(value), "+", "%20"))
}

// str adds a text or enumeration parameter unless it is empty, which the
// server reads as absent anyway.
func (q *query) str(name string, value string) {
	if value != "" {
		q.add(name, value)
	}
}

// int adds an integer parameter unless it is 0: ids start at 1, and a
// width or height of 0 matches nothing.
func (q *query) int(name string, value int64) {
	if value != 0 {
		q.add(name, strconv.FormatInt(value, 10))
	}
}

// bool adds a boolean parameter unless it is nil.
func (q *query) bool(name string, value *bool) {
	if value != nil {
		q.add(name, strconv.FormatBool(*value))
	}
}

// date adds a date parameter unless t is zero. Only the calendar date
// counts to the server (it drops any time and zone), so that is all that
// is sent, taken in t's own location: time.Date(2024, 1, 31, ...) is
// 2024-01-31 whatever zone it was built in.
func (q *query) date(name string, t time.Time) {
	if !t.IsZero() {
		q.add(name, t.Format(time.DateOnly))
	}
}

// encode returns "?a=1&b=2", or "" for no parameters.
func (q query) encode() string {
	if len(q) == 0 {
		return ""
	}
	return "?" + strings.Join(q, "&")
}

// LinkParams shape the tracking link of a single merchant, banner or
// promotion (Merchant, Banner and Promotion by id on [AffiliateAPI]).
type LinkParams struct {
	// TargetURL is a deep link: the page the click should land on. It
	// must be http(s) on a host the merchant's program allows, else the
	// call is a 400. It replaces the record's TargetURL in the answer and
	// goes into its TrackingURL.
	TargetURL string

	// UniqueID ... UniqueID4 are the affiliate's own sub-ids (at most 255
	// characters each), carried by the link's clicks into the
	// transactions they make.
	UniqueID, UniqueID2, UniqueID3, UniqueID4 string
}

// query returns the link's parameters.
func (p LinkParams) query() query {
	var q query
	q.str("targetUrl", p.TargetURL)
	q.str("uniqueId", p.UniqueID)
	q.str("uniqueId2", p.UniqueID2)
	q.str("uniqueId3", p.UniqueID3)
	q.str("uniqueId4", p.UniqueID4)
	return q
}

// ReportParams are a report's date range: both required, whole days,
// inclusive, swapped by the server if reversed.
type ReportParams struct {
	From, To time.Time
}

// query returns the range's parameters.
func (p ReportParams) query() query {
	var q query
	q.date("fromDate", p.From)
	q.date("toDate", p.To)
	return q
}

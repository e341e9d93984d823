package importfile

import (
	"strings"

	"github.com/afftrack/afftrack"
)

// maxTrafficSources bounds a membership's TrafficSources.
const maxTrafficSources = 100

func parseMembership(r *record) afftrack.Membership {
	m := afftrack.Membership{AffiliateID: r.id("AffiliateId"), MerchantID: r.id("MerchantId")}
	m.Status = enum(r, "Status", false, afftrack.ParseMembershipStatus, afftrack.MembershipStatusNames())
	if m.Status == 0 {
		m.Status = afftrack.MembershipJoined
	}
	m.TrafficType = enum(r, "TrafficType", false, afftrack.ParseTrafficType, afftrack.TrafficTypeNames())
	if m.TrafficType == 0 {
		m.TrafficType = afftrack.TrafficTypeWebsite
	}
	m.TrafficSource = r.str("TrafficSource", false)
	m.TrafficSourceApproved = true
	if r.raw("TrafficSourceApproved") != nil {
		m.TrafficSourceApproved = r.bool("TrafficSourceApproved")
	}
	m.DateApplied = r.nullDatetime("DateApplied")
	m.DateApproved = r.nullDatetime("DateApproved")
	m.DateModified = r.nullDatetime("DateModified")
	switch {
	case r.err != nil:
	case m.DateApplied.Valid && m.Status == afftrack.MembershipInvited:
		r.fail("DateApplied", "an Invited membership has no DateApplied")
	case m.DateApproved.Valid && m.Status != afftrack.MembershipJoined:
		r.fail("DateApproved", "only a Joined membership has a DateApproved, this one is %s", m.Status)
	case m.DateApplied.Valid && m.DateApproved.Valid && m.DateApproved.Value.Before(m.DateApplied.Value):
		r.fail("DateApproved", "is before DateApplied")
	}
	for i, raw := range r.list("TrafficSources", "traffic source objects", maxTrafficSources) {
		r.sub("TrafficSources", i, raw, func(sr *record) {
			m.TrafficSources = append(m.TrafficSources, trafficSource(sr, m.TrafficSourceApproved))
		})
	}
	return m
}

// trafficSourceFields are the fields of each group of a traffic source,
// by the TrafficType whose group they are (v1-surface.md section 4.1).
var trafficSourceFields = []struct {
	group  afftrack.TrafficType
	fields []string
}{
	{afftrack.TrafficTypeWebsite, []string{"WebsiteDateCreated", "WebsiteDateModified", "WebsiteUrl", "WebsiteName",
		"WebsiteDescription", "WebsiteCategory", "WebsiteType", "WebsiteWeeklyVisitors", "WebsiteYearsOnline",
		"WebsiteChannel", "WebsiteVerified"}},
	{afftrack.TrafficTypeEmailList, []string{"EmailListDateCreated", "EmailListDateModified", "EmailListName",
		"EmailListDescription", "EmailListCategory", "EmailListSize", "EmailListFrequency", "EmailListOptIn"}},
	{afftrack.TrafficTypeSocialMediaPage, []string{"SocialMediaPageDateCreated", "SocialMediaPageDateModified",
		"SocialMediaPageCategory", "SocialMediaPageType", "SocialMediaPageName", "SocialMediaPageUrl",
		"SocialMediaPageFollowers"}},
}

// trafficSource reads one traffic source: Type (required), Status
// (default Approved, or Pending when the membership's traffic source is
// not approved), and the fields of its Type's group only.
func trafficSource(r *record, approved bool) afftrack.TrafficSource {
	var s afftrack.TrafficSource
	s.Type = enum(r, "Type", true, afftrack.ParseTrafficType, afftrack.TrafficTypeNames())
	s.Status = enum(r, "Status", false, afftrack.ParseTrafficSourceStatus, afftrack.TrafficSourceStatusNames())
	if s.Status == 0 {
		s.Status = afftrack.TrafficSourcePending
		if approved {
			s.Status = afftrack.TrafficSourceApproved
		}
	}
	group := afftrack.TrafficSourceGroup(s.Type)
	for _, g := range trafficSourceFields {
		if g.group == group {
			continue
		}
		for _, f := range g.fields {
			if r.raw(f) != nil {
				r.fail(f, "is a field of the %s group, not of %s source", g.group, withArticle(s.Type.String()))
			}
		}
	}
	switch group {
	case afftrack.TrafficTypeWebsite:
		s.WebsiteDateCreated = r.nullDatetime("WebsiteDateCreated")
		s.WebsiteDateModified = r.nullDatetime("WebsiteDateModified")
		s.WebsiteURL = r.nullURL("WebsiteUrl")
		s.WebsiteName = r.nullStr("WebsiteName", false)
		s.WebsiteDescription = r.nullStr("WebsiteDescription", false)
		s.WebsiteCategory = r.nullStr("WebsiteCategory", false)
		s.WebsiteType = r.nullStr("WebsiteType", false)
		s.WebsiteWeeklyVisitors = r.count("WebsiteWeeklyVisitors")
		s.WebsiteYearsOnline = r.count("WebsiteYearsOnline")
		s.WebsiteChannel = r.nullStr("WebsiteChannel", false)
		s.WebsiteVerified = r.nullBool("WebsiteVerified")
	case afftrack.TrafficTypeEmailList:
		s.EmailListDateCreated = r.nullDatetime("EmailListDateCreated")
		s.EmailListDateModified = r.nullDatetime("EmailListDateModified")
		s.EmailListName = r.nullStr("EmailListName", false)
		s.EmailListDescription = r.nullStr("EmailListDescription", false)
		s.EmailListCategory = r.nullStr("EmailListCategory", false)
		s.EmailListSize = r.count("EmailListSize")
		s.EmailListFrequency = r.nullStr("EmailListFrequency", false)
		s.EmailListOptIn = r.nullStr("EmailListOptIn", false)
	case afftrack.TrafficTypeSocialMediaPage:
		s.SocialMediaPageDateCreated = r.nullDatetime("SocialMediaPageDateCreated")
		s.SocialMediaPageDateModified = r.nullDatetime("SocialMediaPageDateModified")
		s.SocialMediaPageCategory = r.nullStr("SocialMediaPageCategory", false)
		s.SocialMediaPageType = r.nullStr("SocialMediaPageType", false)
		s.SocialMediaPageName = r.nullStr("SocialMediaPageName", false)
		s.SocialMediaPageURL = r.nullURL("SocialMediaPageUrl")
		s.SocialMediaPageFollowers = r.count("SocialMediaPageFollowers")
	}
	return s
}

// nullURL reads an optional URL, as url does: null when absent.
func (r *record) nullURL(name string) afftrack.Null[string] {
	if r.raw(name) == nil {
		return afftrack.Null[string]{}
	}
	return afftrack.Some(r.url(name))
}

// count reads an optional integer that is not negative: null when absent.
func (r *record) count(name string) afftrack.Null[int64] {
	v := r.nullInt(name, false)
	if v.Valid && v.Value < 0 && r.err == nil {
		r.fail(name, "%d is negative", v.Value)
	}
	return v
}

// withArticle returns s after "a" or "an", as its first letter sounds.
func withArticle(s string) string {
	if s != "" && strings.ContainsRune("AEIOU", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

package api

import (
	"strconv"
	"time"

	"github.com/afftrack/afftrack"
)

// Encoders of the merchant's Affiliate, TrafficSource, Banner and
// BannerGroup (v1-surface.md sections 4.1 and 4.2), fields in the order
// of its tables. An XML encoder writes the root of a document when ns is
// not "".

// appendMemberAffiliateJSON appends a as an Affiliate object.
func appendMemberAffiliateJSON(b []byte, a *afftrack.MemberAffiliate) []byte {
	b = append(b, `{"Id":`...)
	b = strconv.AppendInt(b, a.ID, 10)
	b = append(b, `,"DateCreated":"`...)
	b = appendDateTime(b, a.DateCreated)
	b = append(b, `","DateModified":"`...)
	b = appendDateTime(b, a.DateModified)
	b = append(b, `","DateApplied":`...)
	b = appendOfferJSONNullDateTime(b, a.DateApplied)
	b = append(b, `,"DateApproved":`...)
	b = appendOfferJSONNullDateTime(b, a.DateApproved)
	b = append(b, `,"ContactName":`...)
	b = appendJSONString(b, a.ContactName)
	b = append(b, `,"BusinessName":`...)
	b = appendJSONNullString(b, a.BusinessName)
	b = append(b, `,"Status":`...)
	b = appendJSONString(b, a.Status.String())
	b = append(b, `,"TrafficSources":`...)
	if a.TrafficSources == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range a.TrafficSources {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTrafficSourceJSON(b, &a.TrafficSources[i])
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendMemberAffiliateXML appends a as an Affiliate element.
func appendMemberAffiliateXML(b []byte, a *afftrack.MemberAffiliate, ns string) []byte {
	b = appendXMLOpen(b, "Affiliate", ns)
	b = appendXMLInt(b, "Id", a.ID)
	b = appendXMLDateTime(b, "DateCreated", a.DateCreated)
	b = appendXMLDateTime(b, "DateModified", a.DateModified)
	b = appendOfferXMLNullDateTime(b, "DateApplied", a.DateApplied)
	b = appendOfferXMLNullDateTime(b, "DateApproved", a.DateApproved)
	b = appendXMLString(b, "ContactName", a.ContactName)
	b = appendMVXMLNullText(b, "BusinessName", a.BusinessName)
	b = appendXMLString(b, "Status", a.Status.String())
	switch {
	case a.TrafficSources == nil:
		b = appendXMLNil(b, "TrafficSources")
	case len(a.TrafficSources) == 0:
		b = append(b, "<TrafficSources />"...)
	default:
		b = append(b, "<TrafficSources>"...)
		for i := range a.TrafficSources {
			b = appendTrafficSourceXML(b, &a.TrafficSources[i])
		}
		b = append(b, "</TrafficSources>"...)
	}
	return appendXMLClose(b, "Affiliate")
}

// trafficSourceField is one field of a TrafficSource's group: its name
// and its value, of which exactly one of the pointers is set.
type trafficSourceField struct {
	name string
	t    *afftrack.Null[time.Time]
	s    *afftrack.Null[string]
	i    *afftrack.Null[int64]
	b    *afftrack.Null[bool]
}

// trafficSourceFields returns the fields of ts's Type's group, in order;
// none for a type without a group.
func trafficSourceFields(ts *afftrack.TrafficSource) []trafficSourceField {
	switch afftrack.TrafficSourceGroup(ts.Type) {
	case afftrack.TrafficTypeWebsite:
		return []trafficSourceField{
			{name: "WebsiteDateCreated", t: &ts.WebsiteDateCreated},
			{name: "WebsiteDateModified", t: &ts.WebsiteDateModified},
			{name: "WebsiteUrl", s: &ts.WebsiteURL},
			{name: "WebsiteName", s: &ts.WebsiteName},
			{name: "WebsiteDescription", s: &ts.WebsiteDescription},
			{name: "WebsiteCategory", s: &ts.WebsiteCategory},
			{name: "WebsiteType", s: &ts.WebsiteType},
			{name: "WebsiteWeeklyVisitors", i: &ts.WebsiteWeeklyVisitors},
			{name: "WebsiteYearsOnline", i: &ts.WebsiteYearsOnline},
			{name: "WebsiteChannel", s: &ts.WebsiteChannel},
			{name: "WebsiteVerified", b: &ts.WebsiteVerified},
		}
	case afftrack.TrafficTypeEmailList:
		return []trafficSourceField{
			{name: "EmailListDateCreated", t: &ts.EmailListDateCreated},
			{name: "EmailListDateModified", t: &ts.EmailListDateModified},
			{name: "EmailListName", s: &ts.EmailListName},
			{name: "EmailListDescription", s: &ts.EmailListDescription},
			{name: "EmailListCategory", s: &ts.EmailListCategory},
			{name: "EmailListSize", i: &ts.EmailListSize},
			{name: "EmailListFrequency", s: &ts.EmailListFrequency},
			{name: "EmailListOptIn", s: &ts.EmailListOptIn},
		}
	case afftrack.TrafficTypeSocialMediaPage:
		return []trafficSourceField{
			{name: "SocialMediaPageDateCreated", t: &ts.SocialMediaPageDateCreated},
			{name: "SocialMediaPageDateModified", t: &ts.SocialMediaPageDateModified},
			{name: "SocialMediaPageCategory", s: &ts.SocialMediaPageCategory},
			{name: "SocialMediaPageType", s: &ts.SocialMediaPageType},
			{name: "SocialMediaPageName", s: &ts.SocialMediaPageName},
			{name: "SocialMediaPageUrl", s: &ts.SocialMediaPageURL},
			{name: "SocialMediaPageFollowers", i: &ts.SocialMediaPageFollowers},
		}
	}
	return nil
}

// appendTrafficSourceJSON appends ts: Type, Status, then its group's
// fields, each even if null.
func appendTrafficSourceJSON(b []byte, ts *afftrack.TrafficSource) []byte {
	b = append(b, `{"Type":`...)
	b = appendJSONString(b, ts.Type.String())
	b = append(b, `,"Status":`...)
	b = appendJSONString(b, ts.Status.String())
	for _, f := range trafficSourceFields(ts) {
		b = append(b, `,"`...)
		b = append(b, f.name...)
		b = append(b, `":`...)
		switch {
		case f.t != nil:
			b = appendOfferJSONNullDateTime(b, *f.t)
		case f.s != nil:
			b = appendJSONNullString(b, *f.s)
		case f.i != nil:
			b = appendJSONNullInt(b, *f.i)
		case !f.b.Valid:
			b = append(b, "null"...)
		default:
			b = strconv.AppendBool(b, f.b.Value)
		}
	}
	return append(b, '}')
}

// appendTrafficSourceXML appends ts as a TrafficSource element.
func appendTrafficSourceXML(b []byte, ts *afftrack.TrafficSource) []byte {
	b = append(b, "<TrafficSource>"...)
	b = appendXMLString(b, "Type", ts.Type.String())
	b = appendXMLString(b, "Status", ts.Status.String())
	for _, f := range trafficSourceFields(ts) {
		switch {
		case f.t != nil:
			b = appendOfferXMLNullDateTime(b, f.name, *f.t)
		case f.s != nil:
			b = appendMVXMLNullText(b, f.name, *f.s)
		case f.i != nil:
			if !f.i.Valid {
				b = appendXMLNil(b, f.name)
			} else {
				b = appendXMLInt(b, f.name, f.i.Value)
			}
		case !f.b.Valid:
			b = appendXMLNil(b, f.name)
		default:
			b = appendXMLString(b, f.name, strconv.FormatBool(f.b.Value))
		}
	}
	return append(b, "</TrafficSource>"...)
}

// appendMVXMLNullText appends an element holding nullable text.
func appendMVXMLNullText(b []byte, name string, s afftrack.Null[string]) []byte {
	if !s.Valid {
		return appendXMLNil(b, name)
	}
	return appendXMLString(b, name, s.Value)
}

// appendMerchantBannerJSON appends bn as the merchant's Banner object.
func appendMerchantBannerJSON(b []byte, bn *afftrack.MerchantBanner) []byte {
	b = append(b, `{"Id":`...)
	b = strconv.AppendInt(b, bn.ID, 10)
	b = append(b, `,"DateCreated":"`...)
	b = appendDateTime(b, bn.DateCreated)
	b = append(b, `","DateModified":"`...)
	b = appendDateTime(b, bn.DateModified)
	b = append(b, `","BannerGroupId":`...)
	b = strconv.AppendInt(b, bn.BannerGroupID.Value, 10)
	b = append(b, `,"BannerGroupName":`...)
	b = appendJSONString(b, bn.GroupName)
	b = append(b, `,"BannerGroupTargetUrl":`...)
	b = appendJSONString(b, bn.GroupTargetURL)
	b = append(b, `,"Name":`...)
	b = appendJSONString(b, bn.Name)
	b = appendBannerImageJSON(b, &bn.Banner)
	b = append(b, `,"DefaultForSize":`...)
	b = strconv.AppendBool(b, bn.DefaultForSize)
	return append(b, '}')
}

// appendMerchantBannerXML appends bn as the merchant's Banner element.
func appendMerchantBannerXML(b []byte, bn *afftrack.MerchantBanner, ns string) []byte {
	b = appendXMLOpen(b, "Banner", ns)
	b = appendXMLInt(b, "Id", bn.ID)
	b = appendXMLDateTime(b, "DateCreated", bn.DateCreated)
	b = appendXMLDateTime(b, "DateModified", bn.DateModified)
	b = appendXMLInt(b, "BannerGroupId", bn.BannerGroupID.Value)
	b = appendXMLString(b, "BannerGroupName", bn.GroupName)
	b = appendXMLString(b, "BannerGroupTargetUrl", bn.GroupTargetURL)
	b = appendXMLString(b, "Name", bn.Name)
	b = appendBannerImageXML(b, &bn.Banner)
	b = appendXMLString(b, "DefaultForSize", strconv.FormatBool(bn.DefaultForSize))
	return appendXMLClose(b, "Banner")
}

// appendBannerGroupJSON appends g as a BannerGroup object.
func appendBannerGroupJSON(b []byte, g *afftrack.BannerGroup) []byte {
	b = append(b, `{"Id":`...)
	b = strconv.AppendInt(b, g.ID, 10)
	b = append(b, `,"DateCreated":`...)
	b = appendOfferJSONNullDateTime(b, g.DateCreated)
	b = append(b, `,"DateModified":`...)
	b = appendOfferJSONNullDateTime(b, g.DateModified)
	b = append(b, `,"Name":`...)
	b = appendJSONString(b, g.Name)
	b = append(b, `,"TargetUrl":`...)
	b = appendJSONString(b, g.TargetURL)
	b = append(b, `,"ExpiryDate":`...)
	b = appendOfferJSONNullDateTime(b, g.ExpiryDate)
	return append(b, '}')
}

// appendBannerGroupXML appends g as a BannerGroup element.
func appendBannerGroupXML(b []byte, g *afftrack.BannerGroup, ns string) []byte {
	b = appendXMLOpen(b, "BannerGroup", ns)
	b = appendXMLInt(b, "Id", g.ID)
	b = appendOfferXMLNullDateTime(b, "DateCreated", g.DateCreated)
	b = appendOfferXMLNullDateTime(b, "DateModified", g.DateModified)
	b = appendXMLString(b, "Name", g.Name)
	b = appendXMLString(b, "TargetUrl", g.TargetURL)
	b = appendOfferXMLNullDateTime(b, "ExpiryDate", g.ExpiryDate)
	return appendXMLClose(b, "BannerGroup")
}

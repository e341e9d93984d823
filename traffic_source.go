package afftrack

import "time"

// TrafficSource is one of an affiliate's traffic sources, as a merchant
// sees it (v1-surface.md section 4.1): its Type, the merchant's verdict,
// and the fields of its Type's group. A source has only its group's
// fields: a Website no EmailList... field, and a Search, Mobile App or
// Other source none of the three groups'.
type TrafficSource struct {
	Type   TrafficType
	Status TrafficSourceStatus

	WebsiteDateCreated    Null[time.Time]
	WebsiteDateModified   Null[time.Time]
	WebsiteURL            Null[string]
	WebsiteName           Null[string]
	WebsiteDescription    Null[string]
	WebsiteCategory       Null[string]
	WebsiteType           Null[string]
	WebsiteWeeklyVisitors Null[int64]
	WebsiteYearsOnline    Null[int64]
	WebsiteChannel        Null[string]
	WebsiteVerified       Null[bool]

	EmailListDateCreated  Null[time.Time]
	EmailListDateModified Null[time.Time]
	EmailListName         Null[string]
	EmailListDescription  Null[string]
	EmailListCategory     Null[string]
	EmailListSize         Null[int64]
	EmailListFrequency    Null[string]
	EmailListOptIn        Null[string]

	SocialMediaPageDateCreated  Null[time.Time]
	SocialMediaPageDateModified Null[time.Time]
	SocialMediaPageCategory     Null[string]
	SocialMediaPageType         Null[string]
	SocialMediaPageName         Null[string]
	SocialMediaPageURL          Null[string]
	SocialMediaPageFollowers    Null[int64]
}

// TrafficSourceGroup returns the group of fields a source of type t
// has: the type itself for Website, Email List and Social Media Page,
// 0 (no group) for the others.
func TrafficSourceGroup(t TrafficType) TrafficType {
	switch t {
	case TrafficTypeWebsite, TrafficTypeEmailList, TrafficTypeSocialMediaPage:
		return t
	}
	return 0
}

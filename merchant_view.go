package afftrack

import (
	"context"
	"time"
)

// AffiliateStatus is an affiliate's standing with a merchant as the
// merchant's Affiliates functions show it (v1-surface.md section 8): a
// Joined membership is Approved, the others keep their name.
type AffiliateStatus uint8

// AffiliateStatus values.
const (
	AffiliateApproved AffiliateStatus = iota + 1
	AffiliateInvited
	AffiliatePending
)

var affiliateStatusNames = []string{"", "Approved", "Invited", "Pending"}

// String returns the value's name as the interface writes it; "" for zero.
func (v AffiliateStatus) String() string { return enumName(affiliateStatusNames, v) }

// ParseAffiliateStatus returns the AffiliateStatus named s, ignoring case.
func ParseAffiliateStatus(s string) (AffiliateStatus, bool) {
	return parseEnum[AffiliateStatus](affiliateStatusNames, s)
}

// AffiliateStatusNames lists every AffiliateStatus name in order, comma-separated.
func AffiliateStatusNames() string { return enumList(affiliateStatusNames) }

// AffiliateStatusOf returns the AffiliateStatus of a membership status,
// and false for one a merchant's Affiliates do not show (Not Joined).
func AffiliateStatusOf(s MembershipStatus) (AffiliateStatus, bool) {
	switch s {
	case MembershipJoined:
		return AffiliateApproved, true
	case MembershipInvited:
		return AffiliateInvited, true
	case MembershipPending:
		return AffiliatePending, true
	}
	return 0, false
}

// MemberAffiliate is an affiliate as a merchant sees it (v1-surface.md
// section 4.1): the account with its membership of the merchant's program.
type MemberAffiliate struct {
	ID           int64
	DateCreated  time.Time // the affiliate joined the network
	DateModified time.Time // the later of the account's and the membership's
	DateApplied  Null[time.Time]
	DateApproved Null[time.Time]
	ContactName  string
	BusinessName Null[string] // null when empty
	Status       AffiliateStatus
	// TrafficSources is nil in a list; by id, the membership's sources,
	// or the one its own traffic stands for.
	TrafficSources []TrafficSource
}

// MemberAffiliateFilter selects a merchant's affiliates: those whose
// membership is Joined, Invited or Pending, any account status. A
// non-zero Status must match too.
type MemberAffiliateFilter struct {
	MerchantID int64
	Status     AffiliateStatus
}

// MembershipTrafficSource is the source a membership without
// TrafficSources stands for (v1-surface.md section 4.1): its TrafficType,
// Approved if its traffic source is approved else Pending, and its
// TrafficSource as the WebsiteUrl, EmailListName or SocialMediaPageUrl by
// type (null when empty), the rest null. The TrafficSource is free text,
// so as a WebsiteUrl or SocialMediaPageUrl it is null unless it passes
// the check the import makes of those fields (WebURLProblem): a merchant's
// page would otherwise link to whatever an affiliate wrote there, such as
// javascript:.
func MembershipTrafficSource(t TrafficType, source string, approved bool) TrafficSource {
	ts := TrafficSource{Type: t, Status: TrafficSourcePending}
	if approved {
		ts.Status = TrafficSourceApproved
	}
	var text, url Null[string]
	if source != "" {
		text = Some(source)
		if WebURLProblem(source) == "" {
			url = text
		}
	}
	switch TrafficSourceGroup(t) {
	case TrafficTypeWebsite:
		ts.WebsiteURL = url
	case TrafficTypeEmailList:
		ts.EmailListName = text
	case TrafficTypeSocialMediaPage:
		ts.SocialMediaPageURL = url
	}
	return ts
}

// MerchantBanner is a banner as its merchant sees it (v1-surface.md
// section 4.2): the Banner with its group (BannerGroupID and GroupName
// set) and the group's landing page.
type MerchantBanner struct {
	Banner
	GroupTargetURL string
}

// MerchantBannerFilter selects a merchant's own banners, expired groups
// included. Every optional field that is set must match too.
type MerchantBannerFilter struct {
	MerchantID      int64
	BannerGroupID   Null[int64]
	BannerGroupName Null[string]
	Size            Null[string] // matches the derived size name, ignoring case
	Width           Null[int64]
	Height          Null[int64]
	DefaultForSize  Null[bool]
}

// Match reports whether b satisfies the filter's optional fields.
func (f *MerchantBannerFilter) Match(b *MerchantBanner) bool {
	return (!f.BannerGroupID.Valid || b.BannerGroupID.Valid && f.BannerGroupID.Value == b.BannerGroupID.Value) &&
		textMatch(f.BannerGroupName, b.GroupName, true) &&
		textMatch(f.Size, b.Size(), true) &&
		(!f.Width.Valid || f.Width.Value == b.Width) &&
		(!f.Height.Valid || f.Height.Value == b.Height) &&
		(!f.DefaultForSize.Valid || f.DefaultForSize.Value == b.DefaultForSize)
}

// MerchantViewService reads what a merchant's V1 functions show of its
// affiliates and its banners (v1-surface.md section 4). Lists are ordered
// by Id; a row the merchant may not see is ENOTFOUND by id.
type MerchantViewService interface {
	// FindMemberAffiliates returns the merchant's affiliates that match
	// f, TrafficSources nil.
	FindMemberAffiliates(ctx context.Context, f MemberAffiliateFilter) ([]*MemberAffiliate, error)
	// FindMemberAffiliate returns one, with its TrafficSources.
	FindMemberAffiliate(ctx context.Context, merchantID, id int64) (*MemberAffiliate, error)

	// FindMerchantBanners returns the merchant's banners that match f.
	FindMerchantBanners(ctx context.Context, f MerchantBannerFilter) ([]*MerchantBanner, error)
	// FindMerchantBanner returns one of the merchant's banners.
	FindMerchantBanner(ctx context.Context, merchantID, id int64) (*MerchantBanner, error)

	// FindBannerGroups returns the merchant's banner groups.
	FindBannerGroups(ctx context.Context, merchantID int64) ([]*BannerGroup, error)
	// FindBannerGroup returns one of the merchant's banner groups.
	FindBannerGroup(ctx context.Context, merchantID, id int64) (*BannerGroup, error)
}

package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/afftrack/afftrack"
)

var _ afftrack.MerchantViewService = (*MerchantViewService)(nil)

// MerchantViewService implements afftrack.MerchantViewService: what a
// merchant's V1 functions show of its affiliates, banners and banner
// groups (v1-surface.md section 4).
type MerchantViewService struct {
	db *DB
}

// NewMerchantViewService returns a MerchantViewService on db.
func NewMerchantViewService(db *DB) *MerchantViewService { return &MerchantViewService{db: db} }

// memberAffiliateSelect reads the merchant's ($1) affiliates whose
// membership is Joined, Invited or Pending ($2 to $4), any account status.
const memberAffiliateSelect = `SELECT a.id, a.date_created, a.date_modified, ms.date_modified, ms.date_applied,
		ms.date_approved, a.contact_name, a.business_name, ms.status, ms.traffic_type, ms.traffic_source,
		ms.traffic_source_approved
	FROM memberships ms
	JOIN affiliates a ON a.id = ms.affiliate_id
	WHERE ms.merchant_id = $1 AND ms.status IN ($2, $3, $4)`

func memberAffiliateArgs(merchantID int64) []any {
	return []any{merchantID, int64(afftrack.MembershipJoined), int64(afftrack.MembershipInvited),
		int64(afftrack.MembershipPending)}
}

// memberRow is a memberAffiliateSelect row: the affiliate and what its
// membership's own traffic is, for a membership without sources.
type memberRow struct {
	afftrack.MemberAffiliate
	trafficType afftrack.TrafficType
	source      string
	approved    bool
}

// FindMemberAffiliates returns the merchant's affiliates that match f,
// ordered by id, TrafficSources nil.
func (s *MerchantViewService) FindMemberAffiliates(ctx context.Context, f afftrack.MemberAffiliateFilter) ([]*afftrack.MemberAffiliate, error) {
	q, args := memberAffiliateSelect, memberAffiliateArgs(f.MerchantID)
	if f.Status != 0 {
		// Every AffiliateStatus is one membership status.
		st := afftrack.MembershipJoined
		switch f.Status {
		case afftrack.AffiliateInvited:
			st = afftrack.MembershipInvited
		case afftrack.AffiliatePending:
			st = afftrack.MembershipPending
		}
		args = append(args, int64(st))
		q += " AND ms.status = $" + strconv.Itoa(len(args))
	}
	rows, err := s.findMembers(ctx, q+" ORDER BY a.id", args)
	if err != nil {
		return nil, err
	}
	list := make([]*afftrack.MemberAffiliate, len(rows))
	for i, r := range rows {
		list[i] = &r.MemberAffiliate
	}
	return list, nil
}

// FindMemberAffiliate returns one of the merchant's affiliates with its
// traffic sources, in order; else ENOTFOUND.
func (s *MerchantViewService) FindMemberAffiliate(ctx context.Context, merchantID, id int64) (*afftrack.MemberAffiliate, error) {
	rows, err := s.findMembers(ctx, memberAffiliateSelect+" AND a.id = $5", append(memberAffiliateArgs(merchantID), id))
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, afftrack.Errorf(afftrack.ENOTFOUND, "no such affiliate")
	}
	r := rows[0]
	sources, err := s.trafficSources(ctx, id, merchantID)
	if err != nil {
		return nil, err
	}
	if len(sources) == 0 {
		sources = []afftrack.TrafficSource{afftrack.MembershipTrafficSource(r.trafficType, r.source, r.approved)}
	}
	r.TrafficSources = sources
	return &r.MemberAffiliate, nil
}

// findMembers runs a memberAffiliateSelect query.
func (s *MerchantViewService) findMembers(ctx context.Context, q string, args []any) ([]*memberRow, error) {
	rows, err := s.db.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("find affiliates: %w", err)
	}
	defer rows.Close()
	list := []*memberRow{}
	for rows.Next() {
		r := &memberRow{}
		var created, modified, msModified, status, trafficType int64
		var applied, approved sql.Null[int64]
		var business string
		if err := rows.Scan(&r.ID, &created, &modified, &msModified, &applied, &approved, &r.ContactName,
			&business, &status, &trafficType, &r.source, &r.approved); err != nil {
			return nil, fmt.Errorf("find affiliates: %w", err)
		}
		r.DateCreated = fromMillis(created)
		r.DateModified = fromMillis(max(modified, msModified))
		ms := afftrack.MembershipStatus(status)
		r.Status, _ = afftrack.AffiliateStatusOf(ms)
		if ms != afftrack.MembershipInvited {
			r.DateApplied = nullTime(applied)
		}
		if ms == afftrack.MembershipJoined {
			r.DateApproved = nullTime(approved)
		}
		if business != "" {
			r.BusinessName = afftrack.Some(business)
		}
		r.trafficType = afftrack.TrafficType(trafficType)
		list = append(list, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find affiliates: %w", err)
	}
	return list, nil
}

// trafficSourceSelect reads a membership's sources ($1 affiliate, $2
// merchant) in order.
const trafficSourceSelect = `SELECT type, status,
	website_date_created, website_date_modified, website_url, website_name, website_description, website_category,
	website_type, website_weekly_visitors, website_years_online, website_channel, website_verified,
	email_list_date_created, email_list_date_modified, email_list_name, email_list_description, email_list_category,
	email_list_size, email_list_frequency, email_list_opt_in,
	social_media_page_date_created, social_media_page_date_modified, social_media_page_category,
	social_media_page_type, social_media_page_name, social_media_page_url, social_media_page_followers
	FROM membership_traffic_sources WHERE affiliate_id = $1 AND merchant_id = $2 ORDER BY position`

// trafficSources returns a membership's stored sources, in order.
func (s *MerchantViewService) trafficSources(ctx context.Context, affiliateID, merchantID int64) ([]afftrack.TrafficSource, error) {
	rows, err := s.db.query(ctx, trafficSourceSelect, affiliateID, merchantID)
	if err != nil {
		return nil, fmt.Errorf("find traffic sources: %w", err)
	}
	defer rows.Close()
	var list []afftrack.TrafficSource
	for rows.Next() {
		var typ, status int64
		var wCreated, wModified, eCreated, eModified, sCreated, sModified sql.Null[int64]
		var wVisitors, wYears, eSize, sFollowers sql.Null[int64]
		var wURL, wName, wDesc, wCat, wType, wChannel sql.Null[string]
		var eName, eDesc, eCat, eFreq, eOptIn sql.Null[string]
		var sCat, sType, sName, sURL sql.Null[string]
		var wVerified sql.Null[bool]
		if err := rows.Scan(&typ, &status,
			&wCreated, &wModified, &wURL, &wName, &wDesc, &wCat, &wType, &wVisitors, &wYears, &wChannel, &wVerified,
			&eCreated, &eModified, &eName, &eDesc, &eCat, &eSize, &eFreq, &eOptIn,
			&sCreated, &sModified, &sCat, &sType, &sName, &sURL, &sFollowers); err != nil {
			return nil, fmt.Errorf("find traffic sources: %w", err)
		}
		list = append(list, afftrack.TrafficSource{
			Type: afftrack.TrafficType(typ), Status: afftrack.TrafficSourceStatus(status),
			WebsiteDateCreated: nullTime(wCreated), WebsiteDateModified: nullTime(wModified),
			WebsiteURL: fromNull(wURL), WebsiteName: fromNull(wName), WebsiteDescription: fromNull(wDesc),
			WebsiteCategory: fromNull(wCat), WebsiteType: fromNull(wType), WebsiteWeeklyVisitors: fromNull(wVisitors),
			WebsiteYearsOnline: fromNull(wYears), WebsiteChannel: fromNull(wChannel), WebsiteVerified: fromNull(wVerified),
			EmailListDateCreated: nullTime(eCreated), EmailListDateModified: nullTime(eModified),
			EmailListName: fromNull(eName), EmailListDescription: fromNull(eDesc), EmailListCategory: fromNull(eCat),
			EmailListSize: fromNull(eSize), EmailListFrequency: fromNull(eFreq), EmailListOptIn: fromNull(eOptIn),
			SocialMediaPageDateCreated: nullTime(sCreated), SocialMediaPageDateModified: nullTime(sModified),
			SocialMediaPageCategory: fromNull(sCat), SocialMediaPageType: fromNull(sType),
			SocialMediaPageName: fromNull(sName), SocialMediaPageURL: fromNull(sURL),
			SocialMediaPageFollowers: fromNull(sFollowers),
		})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find traffic sources: %w", err)
	}
	return list, nil
}

// merchantBannerSelect reads the merchant's ($1) banners with their
// groups, expired ones included.
const merchantBannerSelect = `SELECT b.id, b.date_created, b.date_modified, b.merchant_id, g.id, g.name, g.target_url,
		b.name, b.target_url, b.width, b.height, b.image_url, b.alt_text, b.default_for_size
	FROM banners b
	JOIN banner_groups g ON g.id = b.group_id
	WHERE b.merchant_id = $1`

// FindMerchantBanners returns the merchant's banners that match f,
// ordered by id. The group id, width, height and default also go to the
// database; f.Match decides.
func (s *MerchantViewService) FindMerchantBanners(ctx context.Context, f afftrack.MerchantBannerFilter) ([]*afftrack.MerchantBanner, error) {
	q, args := merchantBannerSelect, []any{f.MerchantID}
	add := func(cond string, v any) {
		args = append(args, v)
		q += " AND " + cond + " = $" + strconv.Itoa(len(args))
	}
	if f.BannerGroupID.Valid {
		add("b.group_id", f.BannerGroupID.Value)
	}
	if f.Width.Valid {
		add("b.width", f.Width.Value)
	}
	if f.Height.Valid {
		add("b.height", f.Height.Value)
	}
	if f.DefaultForSize.Valid {
		add("b.default_for_size", f.DefaultForSize.Value)
	}
	return s.findBanners(ctx, q+" ORDER BY b.id", args, f.Match)
}

// FindMerchantBanner returns one of the merchant's banners; else
// ENOTFOUND.
func (s *MerchantViewService) FindMerchantBanner(ctx context.Context, merchantID, id int64) (*afftrack.MerchantBanner, error) {
	list, err := s.findBanners(ctx, merchantBannerSelect+" AND b.id = $2", []any{merchantID, id}, nil)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, afftrack.Errorf(afftrack.ENOTFOUND, "no such banner")
	}
	return list[0], nil
}

// findBanners runs a merchantBannerSelect query and keeps the rows match
// accepts (nil: all).
func (s *MerchantViewService) findBanners(ctx context.Context, q string, args []any,
	match func(*afftrack.MerchantBanner) bool) ([]*afftrack.MerchantBanner, error) {
	rows, err := s.db.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("find banners: %w", err)
	}
	defer rows.Close()
	list := []*afftrack.MerchantBanner{}
	for rows.Next() {
		b := &afftrack.MerchantBanner{}
		var created, modified, group int64
		if err := rows.Scan(&b.ID, &created, &modified, &b.MerchantID, &group, &b.GroupName, &b.GroupTargetURL,
			&b.Name, &b.TargetURL, &b.Width, &b.Height, &b.ImageURL, &b.AltText, &b.DefaultForSize); err != nil {
			return nil, fmt.Errorf("find banners: %w", err)
		}
		b.DateCreated, b.DateModified = fromMillis(created), fromMillis(modified)
		b.BannerGroupID = afftrack.Some(group)
		if match == nil || match(b) {
			list = append(list, b)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find banners: %w", err)
	}
	return list, nil
}

// bannerGroupSelect reads the merchant's ($1) banner groups.
const bannerGroupSelect = `SELECT id, merchant_id, name, target_url, date_created, date_modified, expiry_date
	FROM banner_groups WHERE merchant_id = $1`

// FindBannerGroups returns the merchant's banner groups, ordered by id.
func (s *MerchantViewService) FindBannerGroups(ctx context.Context, merchantID int64) ([]*afftrack.BannerGroup, error) {
	return s.findGroups(ctx, bannerGroupSelect+" ORDER BY id", merchantID)
}

// FindBannerGroup returns one of the merchant's banner groups; else
// ENOTFOUND.
func (s *MerchantViewService) FindBannerGroup(ctx context.Context, merchantID, id int64) (*afftrack.BannerGroup, error) {
	list, err := s.findGroups(ctx, bannerGroupSelect+" AND id = $2", merchantID, id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, afftrack.Errorf(afftrack.ENOTFOUND, "no such banner group")
	}
	return list[0], nil
}

// findGroups runs a bannerGroupSelect query.
func (s *MerchantViewService) findGroups(ctx context.Context, q string, args ...any) ([]*afftrack.BannerGroup, error) {
	rows, err := s.db.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("find banner groups: %w", err)
	}
	defer rows.Close()
	list := []*afftrack.BannerGroup{}
	for rows.Next() {
		g := &afftrack.BannerGroup{}
		var created, modified int64
		var expiry sql.Null[int64]
		if err := rows.Scan(&g.ID, &g.MerchantID, &g.Name, &g.TargetURL, &created, &modified, &expiry); err != nil {
			return nil, fmt.Errorf("find banner groups: %w", err)
		}
		g.DateCreated, g.DateModified = afftrack.Some(fromMillis(created)), afftrack.Some(fromMillis(modified))
		g.ExpiryDate = nullTime(expiry)
		list = append(list, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find banner groups: %w", err)
	}
	return list, nil
}

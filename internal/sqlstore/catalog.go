package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.CatalogService = (*CatalogService)(nil)

// CatalogService implements afftrack.CatalogService.
type CatalogService struct {
	db *DB
}

// NewCatalogService returns a CatalogService on db.
func NewCatalogService(db *DB) *CatalogService { return &CatalogService{db: db} }

// programLaunched is the condition that the program p (programs, joined
// on its merchant) is launched, as afftrack.Program.Launched: a TargetUrl
// and a Commission. The affiliate's Merchants, coupons and promotions
// (v1-surface.md) are only launched programs': an unlaunched one's links
// answer 404 or credit nothing. Banners are not held to it (FindBanners).
const programLaunched = `p.target_url <> '' AND (p.commission_percent IS NOT NULL OR p.commission_flat IS NOT NULL)`

// affiliateMerchantSelect reads the merchants affiliate $1 sees: Active
// ($2), launched, and Listed or with a membership of the affiliate.
const affiliateMerchantSelect = `SELECT m.id, m.date_created, m.date_modified, m.name, m.avatar_url, m.summary,
		m.new_category, m.new_category2, m.new_category3, ms.status
	FROM merchants m
	JOIN programs p ON p.merchant_id = m.id
	LEFT JOIN memberships ms ON ms.merchant_id = m.id AND ms.affiliate_id = $1
	WHERE m.status = $2 AND ` + programLaunched + `
		AND (p.listed OR ms.status IS NOT NULL)`

// FindAffiliateMerchants returns the merchants the affiliate sees, with
// their programs, that match f, ordered by id. f.Match decides the
// filters.
func (s *CatalogService) FindAffiliateMerchants(ctx context.Context, f afftrack.AffiliateMerchantFilter) ([]*afftrack.AffiliateMerchant, error) {
	return s.findMerchants(ctx, affiliateMerchantSelect+" ORDER BY m.id",
		[]any{f.AffiliateID, int64(afftrack.AccountActive)}, f.Match)
}

// FindAffiliateMerchant returns merchant id if the affiliate sees it.
func (s *CatalogService) FindAffiliateMerchant(ctx context.Context, affiliateID, id int64) (*afftrack.AffiliateMerchant, error) {
	list, err := s.findMerchants(ctx, affiliateMerchantSelect+" AND m.id = $3",
		[]any{affiliateID, int64(afftrack.AccountActive), id}, nil)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, afftrack.Errorf(afftrack.ENOTFOUND, "no such merchant")
	}
	// One merchant's targetUrl is checked against its deep-link hosts.
	if list[0].Program.BannerHosts, err = loadBannerHosts(ctx, s.db.sql, id); err != nil {
		return nil, err
	}
	return list[0], nil
}

// findMerchants runs a merchant query, keeps the rows match accepts (nil:
// all) and reads their programs.
func (s *CatalogService) findMerchants(ctx context.Context, q string, args []any,
	match func(*afftrack.AffiliateMerchant) bool) ([]*afftrack.AffiliateMerchant, error) {
	rows, err := s.db.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("find merchants: %w", err)
	}
	var list []*afftrack.AffiliateMerchant
	for rows.Next() {
		m := &afftrack.AffiliateMerchant{}
		var created, modified int64
		var cats [afftrack.MaxMerchantCategories]sql.Null[string]
		var status sql.Null[int64]
		if err := rows.Scan(&m.ID, &created, &modified, &m.Name, &m.AvatarURL, &m.Summary,
			&cats[0], &cats[1], &cats[2], &status); err != nil {
			rows.Close()
			return nil, fmt.Errorf("find merchants: %w", err)
		}
		m.DateCreated, m.DateModified = fromMillis(created), fromMillis(modified)
		for _, c := range cats {
			if !c.Valid {
				break
			}
			m.Categories = append(m.Categories, c.V)
		}
		m.Status = afftrack.MembershipNotJoined
		if status.Valid {
			m.Status = afftrack.MembershipStatus(status.V)
		}
		list = append(list, m)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("find merchants: %w", err)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find merchants: %w", err)
	}
	// The programs are read once the rows are closed: a connection
	// serves one query at a time.
	out := []*afftrack.AffiliateMerchant{}
	for _, m := range list {
		p, err := loadProgramDomains(ctx, s.db.sql, m.ID)
		if err != nil {
			return nil, err
		}
		if p == nil { // deleted since: not launched
			continue
		}
		m.Program = *p
		if match == nil || match(m) {
			out = append(out, m)
		}
	}
	return out, nil
}

// FindAffiliateBanner returns banner id if the affiliate sees it in its
// list (a Joined membership with an Active merchant, launched or not, as
// FindBanners) and its group has not expired at now, with the hosts a
// targetUrl may lead to.
func (s *CatalogService) FindAffiliateBanner(ctx context.Context, affiliateID, id int64, now time.Time) (*afftrack.Banner, []string, error) {
	b := &afftrack.Banner{}
	var created, modified int64
	var groupID sql.Null[int64]
	err := s.db.queryRow(ctx, `SELECT b.id, b.date_created, b.date_modified, b.merchant_id, m.name, m.avatar_url,
		b.group_name, b.name, b.target_url, b.width, b.height, b.image_url, b.alt_text, b.group_id, b.default_for_size
	FROM memberships ms
	JOIN banners b ON b.merchant_id = ms.merchant_id
	JOIN merchants m ON m.id = b.merchant_id
	LEFT JOIN banner_groups g ON g.id = b.group_id
	WHERE ms.affiliate_id = $1 AND ms.status = $2 AND m.status = $3 AND b.id = $4
		AND (g.expiry_date IS NULL OR g.expiry_date >= $5)`,
		affiliateID, int64(afftrack.MembershipJoined), int64(afftrack.AccountActive), id, toMillis(now)).Scan(
		&b.ID, &created, &modified, &b.MerchantID, &b.MerchantName, &b.MerchantAvatarURL, &b.GroupName, &b.Name,
		&b.TargetURL, &b.Width, &b.Height, &b.ImageURL, &b.AltText, &groupID, &b.DefaultForSize)
	if err == sql.ErrNoRows {
		return nil, nil, afftrack.Errorf(afftrack.ENOTFOUND, "no such banner")
	} else if err != nil {
		return nil, nil, fmt.Errorf("find banner: %w", err)
	}
	b.DateCreated, b.DateModified = fromMillis(created), fromMillis(modified)
	b.BannerGroupID = fromNull(groupID)
	hosts := []string{afftrack.URLHost(b.TargetURL)}
	p, err := loadProgram(ctx, s.db.sql, b.MerchantID)
	if err != nil {
		return nil, nil, err
	}
	if p != nil {
		hosts = append(hosts, p.DeepLinkHosts()...)
	}
	return b, hosts, nil
}

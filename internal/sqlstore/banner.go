package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/afftrack/afftrack"
)

var _ afftrack.BannerService = (*BannerService)(nil)

// BannerService implements afftrack.BannerService.
type BannerService struct {
	db *DB
}

// NewBannerService returns a BannerService on db.
func NewBannerService(db *DB) *BannerService { return &BannerService{db: db} }

// FindBanners returns the banners of the Active merchants the affiliate
// has joined, but for those of a group whose ExpiryDate is before f.Now,
// with each merchant's name and avatar, that match f, ordered by id.
// Exact integer filters also go to the database; f.Match decides.
//
// A merchant not Active is left out (tracking.md §2: its links would
// not credit), but whether its program is launched is not asked:
// contract.md §9 shows every joined merchant's banners, and its import
// file has no programs.
func (s *BannerService) FindBanners(ctx context.Context, f afftrack.BannerFilter) ([]*afftrack.Banner, error) {
	var q strings.Builder
	q.WriteString(`SELECT b.id, b.date_created, b.date_modified, b.merchant_id, m.name, m.avatar_url, b.group_name,
		b.name, b.target_url, b.width, b.height, b.image_url, b.alt_text
	FROM memberships ms
	JOIN banners b ON b.merchant_id = ms.merchant_id
	JOIN merchants m ON m.id = b.merchant_id
	LEFT JOIN banner_groups g ON g.id = b.group_id
	WHERE ms.affiliate_id = $1 AND ms.status = $2 AND m.status = $3
		AND (g.expiry_date IS NULL OR g.expiry_date >= $4)`)
	args := []any{f.AffiliateID, int64(afftrack.MembershipJoined), int64(afftrack.AccountActive), toMillis(f.Now)}
	eq := func(column string, v int64) {
		args = append(args, v)
		q.WriteString(" AND " + column + " = $" + strconv.Itoa(len(args)))
	}
	if f.MerchantID.Valid {
		eq("b.merchant_id", f.MerchantID.Value)
	}
	if f.Width.Valid {
		eq("b.width", f.Width.Value)
	}
	if f.Height.Valid {
		eq("b.height", f.Height.Value)
	}
	q.WriteString(" ORDER BY b.id")
	rows, err := s.db.query(ctx, q.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("find banners: %w", err)
	}
	defer rows.Close()
	banners := []*afftrack.Banner{}
	for rows.Next() {
		b := &afftrack.Banner{}
		var created, modified int64
		if err := rows.Scan(&b.ID, &created, &modified, &b.MerchantID, &b.MerchantName, &b.MerchantAvatarURL,
			&b.GroupName, &b.Name, &b.TargetURL, &b.Width, &b.Height, &b.ImageURL, &b.AltText); err != nil {
			return nil, fmt.Errorf("find banners: %w", err)
		}
		b.DateCreated, b.DateModified = fromMillis(created), fromMillis(modified)
		if f.Match(b) {
			banners = append(banners, b)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find banners: %w", err)
	}
	return banners, nil
}

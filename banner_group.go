package afftrack

import "time"

// BannerGroup is a merchant's group of banners, with the landing page its
// banners default to (v1-surface.md section 4.2). Past its ExpiryDate its
// banners leave the affiliates' lists.
type BannerGroup struct {
	ID         int64
	MerchantID int64
	Name       string // unique among the merchant's groups, exactly
	TargetURL  string
	ExpiryDate Null[time.Time]

	// DateCreated and DateModified are never null once stored; in an
	// import record null takes the import's time (DateCreated: a stored
	// group's own).
	DateCreated, DateModified Null[time.Time]
}

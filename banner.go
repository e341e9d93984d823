package afftrack

import (
	"context"
	"strconv"
	"time"
)

// Banner is a merchant's image creative, as an affiliate sees it. The
// tracking link and embed code are the affiliate's own and are built by the
// presentation layer from its tracking base URL.
type Banner struct {
	ID                int64
	DateCreated       time.Time
	DateModified      time.Time
	MerchantID        int64
	MerchantName      string // from the merchant's account
	MerchantAvatarURL string // from the merchant's account
	GroupName         string
	Name              string
	TargetURL         string
	Width             int64
	Height            int64
	ImageURL          string
	AltText           string

	// BannerGroupID is the banner's group; in an import record null
	// names the group by GroupName (a stored banner always has one).
	BannerGroupID Null[int64]
	// DefaultForSize marks the merchant's default banner of its size; a
	// merchant has at most one per size.
	DefaultForSize bool
}

// bannerSizes names the standard banner sizes.
var bannerSizes = map[[2]int64]string{
	{468, 60}: "Full Banner", {234, 60}: "Half Banner", {728, 90}: "Leaderboard",
	{970, 90}: "Large Leaderboard", {970, 250}: "Billboard", {300, 250}: "Medium Rectangle",
	{336, 280}: "Large Rectangle", {180, 150}: "Rectangle", {160, 600}: "Wide Skyscraper",
	{120, 600}: "Skyscraper", {300, 600}: "Half Page", {120, 240}: "Vertical Banner",
	{250, 250}: "Square", {200, 200}: "Small Square", {125, 125}: "Button",
	{320, 50}: "Mobile Leaderboard", {300, 50}: "Mobile Banner",
}

// Size returns the name of the banner's standard size, or "{width}x{height}".
func (b *Banner) Size() string {
	if name, ok := bannerSizes[[2]int64{b.Width, b.Height}]; ok {
		return name
	}
	return strconv.FormatInt(b.Width, 10) + "x" + strconv.FormatInt(b.Height, 10)
}

// BannerFilter selects the banners an affiliate may see: those of merchants
// it has joined. Every optional field that is set must match too.
type BannerFilter struct {
	AffiliateID int64
	// Now is the network's wall clock: banners of a group whose
	// ExpiryDate is before it are left out. The zero Now leaves none out
	// but those expired before year 1.
	Now          time.Time
	MerchantID   Null[int64]
	MerchantName Null[string]
	GroupName    Null[string]
	Size         Null[string] // matches the derived size name
	Width        Null[int64]
	Height       Null[int64]
}

// Match reports whether b satisfies the filter's optional fields.
func (f *BannerFilter) Match(b *Banner) bool {
	return (!f.MerchantID.Valid || f.MerchantID.Value == b.MerchantID) &&
		textMatch(f.MerchantName, b.MerchantName, true) &&
		textMatch(f.GroupName, b.GroupName, true) &&
		textMatch(f.Size, b.Size(), true) &&
		(!f.Width.Valid || f.Width.Value == b.Width) &&
		(!f.Height.Valid || f.Height.Value == b.Height)
}

// BannerService reads banners.
type BannerService interface {
	// FindBanners returns the banners of merchants the affiliate has
	// joined, and which are Active, that match f, ordered by Id.
	FindBanners(ctx context.Context, f BannerFilter) ([]*Banner, error)
}

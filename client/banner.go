package client

import (
	"context"
	"time"
)

// Banner is a merchant's banner as an affiliate sees it, with the
// affiliate's own tracking link and the HTML to paste into a page.
type Banner struct {
	ID                int64     `json:"Id"`
	DateCreated       time.Time `json:"DateCreated"`
	DateModified      time.Time `json:"DateModified"`
	MerchantID        int64     `json:"MerchantId"`
	MerchantName      string    `json:"MerchantName"`
	MerchantAvatarURL string    `json:"MerchantAvatarUrl"`
	GroupName         string    `json:"GroupName"`
	Name              string    `json:"Name"`
	TargetURL         string    `json:"TargetUrl"`
	Size              string    `json:"Size"` // a standard name such as "Full Banner", else "{width}x{height}"
	Width             int64     `json:"Width"`
	Height            int64     `json:"Height"`
	ImageURL          string    `json:"ImageUrl"`
	AltText           string    `json:"AltText"`
	TrackingURL       string    `json:"TrackingUrl"`
	TrackingCode      string    `json:"TrackingCode"` // HTML, its attribute values escaped by the server
}

// MerchantBanner is a banner as its merchant sees it: its group instead
// of the merchant, and no tracking link, which is each affiliate's own.
type MerchantBanner struct {
	ID                   int64     `json:"Id"`
	DateCreated          time.Time `json:"DateCreated"`
	DateModified         time.Time `json:"DateModified"`
	BannerGroupID        int64     `json:"BannerGroupId"`
	BannerGroupName      string    `json:"BannerGroupName"`
	BannerGroupTargetURL string    `json:"BannerGroupTargetUrl"`
	Name                 string    `json:"Name"`
	Size                 string    `json:"Size"`
	Width                int64     `json:"Width"`
	Height               int64     `json:"Height"`
	ImageURL             string    `json:"ImageUrl"`
	AltText              string    `json:"AltText"`
	DefaultForSize       bool      `json:"DefaultForSize"`
}

// BannerGroup is a merchant's group of banners with one landing page.
// Past its ExpiryDate its banners leave the affiliates' lists, though
// links already placed keep working.
type BannerGroup struct {
	ID           int64      `json:"Id"`
	DateCreated  time.Time  `json:"DateCreated"`
	DateModified time.Time  `json:"DateModified"`
	Name         string     `json:"Name"`
	TargetURL    string     `json:"TargetUrl"`
	ExpiryDate   *time.Time `json:"ExpiryDate"`
}

// BannersParams filter an affiliate's banners; each is absent when zero.
type BannersParams struct {
	MerchantID   int64
	MerchantName string
	GroupName    string
	Size         string // the size's name ("Leaderboard") or "{width}x{height}"
	Width        int64
	Height       int64
}

// MerchantBannersParams filter a merchant's banners; each is absent when
// zero, DefaultForSize when nil.
type MerchantBannersParams struct {
	BannerGroupID   int64
	BannerGroupName string
	Size            string
	Width           int64
	Height          int64
	DefaultForSize  *bool
}

// Banners lists the banners of the merchants the affiliate has joined,
// ordered by Id.
func (a AffiliateAPI) Banners(ctx context.Context, p BannersParams) ([]Banner, error) {
	var q query
	q.int("merchantId", p.MerchantID)
	q.str("merchantName", p.MerchantName)
	q.str("groupName", p.GroupName)
	q.str("size", p.Size)
	q.int("width", p.Width)
	q.int("height", p.Height)
	return list[Banner](ctx, a.c, "/V1/Affiliate/Banners", q)
}

// Banner returns one banner the list would show, its tracking link
// shaped by link (a zero LinkParams for the plain link).
func (a AffiliateAPI) Banner(ctx context.Context, id int64, link LinkParams) (*Banner, error) {
	return one[Banner](ctx, a.c, idPath("/V1/Affiliate/Banners", id), link.query())
}

// Banners lists the merchant's banners, expired groups' included,
// ordered by Id.
func (m MerchantAPI) Banners(ctx context.Context, p MerchantBannersParams) ([]MerchantBanner, error) {
	var q query
	q.int("bannerGroupId", p.BannerGroupID)
	q.str("bannerGroupName", p.BannerGroupName)
	q.str("size", p.Size)
	q.int("width", p.Width)
	q.int("height", p.Height)
	q.bool("defaultForSize", p.DefaultForSize)
	return list[MerchantBanner](ctx, m.c, "/V1/Merchant/Banners", q)
}

// Banner returns one of the merchant's banners.
func (m MerchantAPI) Banner(ctx context.Context, id int64) (*MerchantBanner, error) {
	return one[MerchantBanner](ctx, m.c, idPath("/V1/Merchant/Banners", id), nil)
}

// BannerGroups lists the merchant's banner groups, ordered by Id; the
// function takes no filters.
func (m MerchantAPI) BannerGroups(ctx context.Context) ([]BannerGroup, error) {
	return list[BannerGroup](ctx, m.c, "/V1/Merchant/BannerGroups", nil)
}

// BannerGroup returns one of the merchant's banner groups.
func (m MerchantAPI) BannerGroup(ctx context.Context, id int64) (*BannerGroup, error) {
	return one[BannerGroup](ctx, m.c, idPath("/V1/Merchant/BannerGroups", id), nil)
}

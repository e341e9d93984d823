package client

import (
	"context"
	"time"
)

// Coupon is a merchant's coupon code as an affiliate sees it, with the
// affiliate's own tracking link.
type Coupon struct {
	ID                 int64      `json:"Id"`
	DateCreated        time.Time  `json:"DateCreated"`
	DateModified       time.Time  `json:"DateModified"`
	MerchantID         int64      `json:"MerchantId"`
	MerchantName       string     `json:"MerchantName"`
	MerchantAvatarURL  string     `json:"MerchantAvatarUrl"`
	Description        string     `json:"Description"`
	Code               string     `json:"Code"`
	TargetURL          string     `json:"TargetUrl"`
	TermsAndConditions string     `json:"TermsAndConditions"`
	StartDate          *time.Time `json:"StartDate"`
	EndDate            *time.Time `json:"EndDate"`
	TrackingURL        string     `json:"TrackingUrl"`
	TrackingCode       string     `json:"TrackingCode"`
}

// Promotion is a merchant's promotion as an affiliate sees it: a coupon
// without a code.
type Promotion struct {
	ID                 int64      `json:"Id"`
	DateCreated        time.Time  `json:"DateCreated"`
	DateModified       time.Time  `json:"DateModified"`
	MerchantID         int64      `json:"MerchantId"`
	MerchantName       string     `json:"MerchantName"`
	MerchantAvatarURL  string     `json:"MerchantAvatarUrl"`
	Description        string     `json:"Description"`
	TargetURL          string     `json:"TargetUrl"`
	TermsAndConditions string     `json:"TermsAndConditions"`
	StartDate          *time.Time `json:"StartDate"`
	EndDate            *time.Time `json:"EndDate"`
	TrackingURL        string     `json:"TrackingUrl"`
	TrackingCode       string     `json:"TrackingCode"`
}

// MerchantCoupon is a coupon as its merchant sees it: the affiliate it is
// assigned to instead of a tracking link. The Affiliate fields are nil
// for a public coupon.
type MerchantCoupon struct {
	ID                    int64      `json:"Id"`
	DateCreated           time.Time  `json:"DateCreated"`
	DateModified          time.Time  `json:"DateModified"`
	Description           string     `json:"Description"`
	Code                  string     `json:"Code"`
	TargetURL             string     `json:"TargetUrl"`
	TermsAndConditions    string     `json:"TermsAndConditions"`
	StartDate             *time.Time `json:"StartDate"`
	EndDate               *time.Time `json:"EndDate"`
	AffiliateID           *int64     `json:"AffiliateId"`
	AffiliateContactName  *string    `json:"AffiliateContactName"`
	AffiliateBusinessName *string    `json:"AffiliateBusinessName"`
}

// MerchantPromotion is a promotion as its merchant sees it.
type MerchantPromotion struct {
	ID                    int64      `json:"Id"`
	DateCreated           time.Time  `json:"DateCreated"`
	DateModified          time.Time  `json:"DateModified"`
	Description           string     `json:"Description"`
	TargetURL             string     `json:"TargetUrl"`
	TermsAndConditions    string     `json:"TermsAndConditions"`
	StartDate             *time.Time `json:"StartDate"`
	EndDate               *time.Time `json:"EndDate"`
	AffiliateID           *int64     `json:"AffiliateId"`
	AffiliateContactName  *string    `json:"AffiliateContactName"`
	AffiliateBusinessName *string    `json:"AffiliateBusinessName"`
}

// OffersParams filter an affiliate's coupons or promotions by merchant;
// each is absent when zero.
type OffersParams struct {
	MerchantID   int64
	MerchantName string
}

// query returns the parameters.
func (p OffersParams) query() query {
	var q query
	q.int("merchantId", p.MerchantID)
	q.str("merchantName", p.MerchantName)
	return q
}

// MerchantOffersParams filter a merchant's coupons or promotions by the
// affiliate they are assigned to (never matching a public one); each is
// absent when zero.
type MerchantOffersParams struct {
	AffiliateID           int64
	AffiliateContactName  string
	AffiliateBusinessName string
}

// query returns the parameters.
func (p MerchantOffersParams) query() query {
	var q query
	q.int("affiliateId", p.AffiliateID)
	q.str("affiliateContactName", p.AffiliateContactName)
	q.str("affiliateBusinessName", p.AffiliateBusinessName)
	return q
}

// Coupons lists the coupons of the merchants the affiliate has joined,
// public or its own, until their EndDate's day ends; ordered by Id.
func (a AffiliateAPI) Coupons(ctx context.Context, p OffersParams) ([]Coupon, error) {
	return list[Coupon](ctx, a.c, "/V1/Affiliate/Coupons", p.query())
}

// Promotions lists the promotions the affiliate may run, as Coupons does
// coupons.
func (a AffiliateAPI) Promotions(ctx context.Context, p OffersParams) ([]Promotion, error) {
	return list[Promotion](ctx, a.c, "/V1/Affiliate/Promotions", p.query())
}

// Promotion returns one promotion the list would show, its tracking link
// shaped by link (a zero LinkParams for the plain link).
func (a AffiliateAPI) Promotion(ctx context.Context, id int64, link LinkParams) (*Promotion, error) {
	return one[Promotion](ctx, a.c, idPath("/V1/Affiliate/Promotions", id), link.query())
}

// Coupons lists the merchant's coupons, whatever their dates, ordered by
// Id.
func (m MerchantAPI) Coupons(ctx context.Context, p MerchantOffersParams) ([]MerchantCoupon, error) {
	return list[MerchantCoupon](ctx, m.c, "/V1/Merchant/Coupons", p.query())
}

// Promotions lists the merchant's promotions, whatever their dates,
// ordered by Id.
func (m MerchantAPI) Promotions(ctx context.Context, p MerchantOffersParams) ([]MerchantPromotion, error) {
	return list[MerchantPromotion](ctx, m.c, "/V1/Merchant/Promotions", p.query())
}

package afftrack

import (
	"context"
	"time"
)

// OfferKind is which of a merchant's offers a V1 function lists: its
// coupons or its promotions (v1-surface.md section 2.3).
type OfferKind uint8

// OfferKind values.
const (
	OfferCoupon OfferKind = iota + 1
	OfferPromotion
)

// Offer is a coupon or a promotion as the V1 functions show it, with
// what each view adds: the merchant's account (affiliate view) and the
// assigned affiliate's (merchant view). A promotion is a coupon without a
// Code.
type Offer struct {
	Kind                      OfferKind
	ID                        int64
	DateCreated, DateModified time.Time
	MerchantID                int64
	MerchantName              string // from the merchant's account
	MerchantAvatarURL         string // from the merchant's account
	Description               string
	Code                      string // a coupon's; "" for a promotion
	TargetURL                 string
	TermsAndConditions        string
	StartDate, EndDate        Null[time.Time]
	// AffiliateID is the affiliate the offer is assigned to; null for a
	// public one. The names are that affiliate's (BusinessName null also
	// when empty).
	AffiliateID           Null[int64]
	AffiliateContactName  Null[string]
	AffiliateBusinessName Null[string]
	// AllowedHosts, set by FindAffiliateOffer only, are the hosts a
	// targetUrl may lead to: those the offer's link follows a deep link
	// to (its TargetUrl's, its program's and the program's
	// AllowedDomains).
	AllowedHosts []string
}

// OfferShownAt reports whether an affiliate sees an offer created at
// created and ending at end (wall clock) at now: from its creation
// through the end of EndDate's day (v1-surface.md section 9).
func OfferShownAt(created time.Time, end Null[time.Time], now time.Time) bool {
	return !created.After(now) && (!end.Valid || !end.Value.Before(startOfDay(now)))
}

// startOfDay is 00:00 of t's day, in t's location.
func startOfDay(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// AffiliateOfferFilter selects the offers an affiliate sees: those of the
// Active, launched (Program.Launched) merchants it has Joined, public or
// assigned to it, shown at Now.
// Every optional field that is set must match too.
type AffiliateOfferFilter struct {
	AffiliateID  int64
	Now          time.Time // wall clock of the network's zone
	MerchantID   Null[int64]
	MerchantName Null[string]
}

// Match reports whether o satisfies the filter's optional fields.
func (f *AffiliateOfferFilter) Match(o *Offer) bool {
	return (!f.MerchantID.Valid || f.MerchantID.Value == o.MerchantID) &&
		textMatch(f.MerchantName, o.MerchantName, true)
}

// MerchantOfferFilter selects a merchant's own offers, whatever their
// dates. The affiliate fields match the assigned affiliate only, never a
// public offer.
type MerchantOfferFilter struct {
	MerchantID            int64
	AffiliateID           Null[int64]
	AffiliateContactName  Null[string]
	AffiliateBusinessName Null[string]
}

// Match reports whether o satisfies the filter's optional fields.
func (f *MerchantOfferFilter) Match(o *Offer) bool {
	return (!f.AffiliateID.Valid || o.AffiliateID.Valid && f.AffiliateID.Value == o.AffiliateID.Value) &&
		textMatch(f.AffiliateContactName, o.AffiliateContactName.Value, o.AffiliateContactName.Valid) &&
		textMatch(f.AffiliateBusinessName, o.AffiliateBusinessName.Value, o.AffiliateBusinessName.Valid)
}

// OfferService reads coupons and promotions.
type OfferService interface {
	// FindAffiliateOffers returns the offers of the kind f selects,
	// ordered by Id.
	FindAffiliateOffers(ctx context.Context, kind OfferKind, f AffiliateOfferFilter) ([]*Offer, error)

	// FindAffiliateOffer returns the offer of the kind with the id if the
	// affiliate sees it at now (as FindAffiliateOffers), with its
	// AllowedHosts; else ENOTFOUND.
	FindAffiliateOffer(ctx context.Context, kind OfferKind, affiliateID, id int64, now time.Time) (*Offer, error)

	// FindMerchantOffers returns the merchant's offers of the kind that
	// match f, ordered by Id.
	FindMerchantOffers(ctx context.Context, kind OfferKind, f MerchantOfferFilter) ([]*Offer, error)
}

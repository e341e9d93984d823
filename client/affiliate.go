package client

import (
	"context"
	"time"
)

// Affiliate is an affiliate of the merchant's program, as the merchant
// sees it.
type Affiliate struct {
	ID           int64           `json:"Id"`
	DateCreated  time.Time       `json:"DateCreated"` // when it joined the network
	DateModified time.Time       `json:"DateModified"`
	DateApplied  *time.Time      `json:"DateApplied"`  // null for an invited affiliate
	DateApproved *time.Time      `json:"DateApproved"` // null unless Approved
	ContactName  string          `json:"ContactName"`
	BusinessName *string         `json:"BusinessName"`
	Status       AffiliateStatus `json:"Status"`
	// TrafficSources is nil in a list (the server leaves them out to keep
	// lists small) and set by [MerchantAPI.Affiliate].
	TrafficSources []TrafficSource `json:"TrafficSources"`
}

// TrafficSource is where an affiliate sends customers from, and the
// merchant's verdict on it. Only the fields of its Type's group are
// written (Website..., EmailList..., SocialMediaPage...; Search, Mobile
// App and Other have none); the others stay nil.
type TrafficSource struct {
	Type   TrafficType         `json:"Type"`
	Status TrafficSourceStatus `json:"Status"`

	WebsiteDateCreated    *time.Time `json:"WebsiteDateCreated,omitempty"`
	WebsiteDateModified   *time.Time `json:"WebsiteDateModified,omitempty"`
	WebsiteURL            *string    `json:"WebsiteUrl,omitempty"`
	WebsiteName           *string    `json:"WebsiteName,omitempty"`
	WebsiteDescription    *string    `json:"WebsiteDescription,omitempty"`
	WebsiteCategory       *string    `json:"WebsiteCategory,omitempty"`
	WebsiteType           *string    `json:"WebsiteType,omitempty"`
	WebsiteWeeklyVisitors *int64     `json:"WebsiteWeeklyVisitors,omitempty"`
	WebsiteYearsOnline    *int64     `json:"WebsiteYearsOnline,omitempty"`
	WebsiteChannel        *string    `json:"WebsiteChannel,omitempty"`
	WebsiteVerified       *bool      `json:"WebsiteVerified,omitempty"`

	EmailListDateCreated  *time.Time `json:"EmailListDateCreated,omitempty"`
	EmailListDateModified *time.Time `json:"EmailListDateModified,omitempty"`
	EmailListName         *string    `json:"EmailListName,omitempty"`
	EmailListDescription  *string    `json:"EmailListDescription,omitempty"`
	EmailListCategory     *string    `json:"EmailListCategory,omitempty"`
	EmailListSize         *int64     `json:"EmailListSize,omitempty"`
	EmailListFrequency    *string    `json:"EmailListFrequency,omitempty"`
	EmailListOptIn        *string    `json:"EmailListOptIn,omitempty"`

	SocialMediaPageDateCreated  *time.Time `json:"SocialMediaPageDateCreated,omitempty"`
	SocialMediaPageDateModified *time.Time `json:"SocialMediaPageDateModified,omitempty"`
	SocialMediaPageCategory     *string    `json:"SocialMediaPageCategory,omitempty"`
	SocialMediaPageType         *string    `json:"SocialMediaPageType,omitempty"`
	SocialMediaPageName         *string    `json:"SocialMediaPageName,omitempty"`
	SocialMediaPageURL          *string    `json:"SocialMediaPageUrl,omitempty"`
	SocialMediaPageFollowers    *int64     `json:"SocialMediaPageFollowers,omitempty"`
}

// AffiliatesParams filter a merchant's affiliates; Status is absent when
// empty.
type AffiliatesParams struct {
	Status AffiliateStatus
}

// Affiliates lists the affiliates that joined, applied to or were invited
// to the merchant's program, whatever their account's status now,
// ordered by Id.
func (m MerchantAPI) Affiliates(ctx context.Context, p AffiliatesParams) ([]Affiliate, error) {
	var q query
	q.str("status", string(p.Status))
	return list[Affiliate](ctx, m.c, "/V1/Merchant/Affiliates", q)
}

// Affiliate returns one of the merchant's affiliates with its traffic
// sources.
func (m MerchantAPI) Affiliate(ctx context.Context, id int64) (*Affiliate, error) {
	return one[Affiliate](ctx, m.c, idPath("/V1/Merchant/Affiliates", id), nil)
}

package client

import (
	"context"
	"time"
)

// Merchant is a merchant's program as an affiliate browsing the network
// sees it: its terms, categories, the affiliate's membership and the
// affiliate's own text link.
type Merchant struct {
	ID                int64        `json:"Id"`
	DateCreated       time.Time    `json:"DateCreated"` // when the program launched
	DateModified      time.Time    `json:"DateModified"`
	Name              string       `json:"Name"`
	AvatarURL         string       `json:"AvatarUrl"`
	CommissionType    MerchantType `json:"CommissionType"`
	CommissionRate    Decimal      `json:"CommissionRate"` // a percent for Percent per Sale, else an amount
	CommissionMinimum Decimal      `json:"CommissionMinimum"`
	CommissionMaximum Decimal      `json:"CommissionMaximum"`
	CommissionZero    bool         `json:"CommissionZero"` // some rule of the program pays nothing
	CookieLength      int64        `json:"CookieLength"`   // hours a click can earn a sale
	ValidationPeriod  *int64       `json:"ValidationPeriod"`
	// Deprecated: Category ... Category3 are the parents of NewCategory
	// ... NewCategory3; use those.
	Category     *string        `json:"Category"`
	Category2    *string        `json:"Category2"`
	Category3    *string        `json:"Category3"`
	NewCategory  *string        `json:"NewCategory"` // "Parent / Child" or "Parent"
	NewCategory2 *string        `json:"NewCategory2"`
	NewCategory3 *string        `json:"NewCategory3"`
	Summary      string         `json:"Summary"`
	TargetURL    string         `json:"TargetUrl"`
	Status       MerchantStatus `json:"Status"`      // the affiliate's membership
	TrackingURL  string         `json:"TrackingUrl"` // credits only once Status is Joined
	TrackingCode string         `json:"TrackingCode"`
}

// MerchantsParams filter the merchants an affiliate sees; each is absent
// when zero.
type MerchantsParams struct {
	CommissionType MerchantType
	// Deprecated: Category matches any of Category ... Category3; use
	// NewCategory.
	Category string
	// NewCategory "Parent" matches every NewCategory with that parent,
	// "Parent / Child" that one only.
	NewCategory string
	Status      MerchantStatus
}

// Merchants lists the programs the affiliate may see: listed ones and
// those it has a membership of, ordered by Id.
func (a AffiliateAPI) Merchants(ctx context.Context, p MerchantsParams) ([]Merchant, error) {
	var q query
	q.str("commissionType", string(p.CommissionType))
	q.str("category", p.Category)
	q.str("newCategory", p.NewCategory)
	q.str("status", string(p.Status))
	return list[Merchant](ctx, a.c, "/V1/Affiliate/Merchants", q)
}

// Merchant returns one merchant the list would show, its text link
// shaped by link (a zero LinkParams for the plain link).
func (a AffiliateAPI) Merchant(ctx context.Context, id int64, link LinkParams) (*Merchant, error) {
	return one[Merchant](ctx, a.c, idPath("/V1/Affiliate/Merchants", id), link.query())
}

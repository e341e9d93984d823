package afftrack

import (
	"context"
	"strings"
	"time"
)

// AffiliateMerchant is a merchant as an affiliate browsing the network
// sees it (v1-surface.md section 2.2): its account, its record's dates,
// summary and categories, its program, and the affiliate's membership.
type AffiliateMerchant struct {
	ID                        int64
	DateCreated, DateModified time.Time
	Name, AvatarURL           string
	Summary                   string
	// Categories are NewCategory ... NewCategory3, at most
	// MaxMerchantCategories.
	Categories []string
	Program    Program
	// Status is the affiliate's membership's, MembershipNotJoined
	// without one.
	Status MembershipStatus
}

// Category returns Category (i 0), Category2 or Category3: the parent of
// the NewCategory of that rank, null past the last.
func (m *AffiliateMerchant) Category(i int) Null[string] {
	if i >= len(m.Categories) {
		return Null[string]{}
	}
	return Some(CategoryParent(m.Categories[i]))
}

// NewCategory returns NewCategory (i 0), NewCategory2 or NewCategory3,
// null past the last.
func (m *AffiliateMerchant) NewCategory(i int) Null[string] {
	if i >= len(m.Categories) {
		return Null[string]{}
	}
	return Some(m.Categories[i])
}

// Commission returns the program's CommissionRate, CommissionMinimum and
// CommissionMaximum, in ten-thousandths (a Percent or a Money: both have
// four fractional digits), and CommissionZero, as affiliate affiliateID
// sees them. The rate is the Commission's Percent for Percent per Sale,
// its Flat otherwise; the minimum and maximum are over it and the Rules
// of the same kind; zero is true when the Commission or a rule pays 0.
// A rule naming another affiliate is left out: it is that affiliate's
// private deal, and it never prices this affiliate's sales.
func (m *AffiliateMerchant) Commission(affiliateID int64) (rate, lowest, highest int64, zero bool) {
	percent := m.Program.MerchantType() == MerchantTypePercentPerSale
	amount := func(r *CommissionRule) (int64, bool) {
		if percent {
			return int64(r.Percent.Value), r.Percent.Valid
		}
		return int64(r.Flat.Value), r.Flat.Valid
	}
	pays0 := func(r *CommissionRule) bool {
		return r.Percent.Valid && r.Percent.Value == 0 || r.Flat.Valid && r.Flat.Value == 0
	}
	rate, _ = amount(&m.Program.Commission)
	lowest, highest, zero = rate, rate, pays0(&m.Program.Commission)
	for i := range m.Program.Rules {
		r := &m.Program.Rules[i]
		if r.AffiliateID.Valid && r.AffiliateID.Value != affiliateID {
			continue
		}
		zero = zero || pays0(r)
		if v, ok := amount(r); ok {
			lowest, highest = min(lowest, v), max(highest, v)
		}
	}
	return rate, lowest, highest, zero
}

// AffiliateMerchantFilter selects the merchants an affiliate sees: the
// Active, launched ones (a Program with a TargetUrl and a Commission)
// that are Listed or with which it has a membership. Every optional
// field that is set must match too.
type AffiliateMerchantFilter struct {
	AffiliateID    int64
	CommissionType MerchantType     // 0: any
	Category       Null[string]     // any of Category ... Category3, ignoring case
	NewCategory    Null[string]     // `Parent`: any child of it or itself; `Parent / Child`: that one
	Status         MembershipStatus // 0: any; MembershipNotJoined includes no membership
}

// Match reports whether m satisfies the filter's optional fields.
func (f *AffiliateMerchantFilter) Match(m *AffiliateMerchant) bool {
	if f.CommissionType != 0 && m.Program.MerchantType() != f.CommissionType {
		return false
	}
	if f.Status != 0 && m.Status != f.Status {
		return false
	}
	if f.Category.Valid && !m.anyCategory(func(c string) bool { return strings.EqualFold(CategoryParent(c), f.Category.Value) }) {
		return false
	}
	if f.NewCategory.Valid {
		_, _, child := strings.Cut(f.NewCategory.Value, categorySeparator)
		ok := m.anyCategory(func(c string) bool {
			if child {
				return strings.EqualFold(c, f.NewCategory.Value)
			}
			return strings.EqualFold(CategoryParent(c), f.NewCategory.Value)
		})
		if !ok {
			return false
		}
	}
	return true
}

// anyCategory reports whether one of m's categories satisfies match.
func (m *AffiliateMerchant) anyCategory(match func(string) bool) bool {
	for _, c := range m.Categories {
		if match(c) {
			return true
		}
	}
	return false
}

// Launched reports whether a program can be shown to affiliates: it has a
// TargetUrl and a Commission.
func (p *Program) Launched() bool { return p.TargetURL != "" && p.Commission.Pays() }

// CatalogService reads what an affiliate browses: the merchants it may
// apply to and one banner by id (v1-surface.md sections 2 and 2.2).
type CatalogService interface {
	// FindAffiliateMerchants returns the merchants the affiliate sees
	// that match f, ordered by Id.
	FindAffiliateMerchants(ctx context.Context, f AffiliateMerchantFilter) ([]*AffiliateMerchant, error)

	// FindAffiliateMerchant returns one merchant the affiliate sees, or
	// ENOTFOUND.
	FindAffiliateMerchant(ctx context.Context, affiliateID, id int64) (*AffiliateMerchant, error)

	// FindAffiliateBanner returns one banner the affiliate sees in its
	// banner list (BannerService.FindBanners), unless its group's
	// ExpiryDate is before now (wall clock), with the hosts a targetUrl
	// may lead to (as the tracker's: the program's TargetUrl, the
	// banner's, the AllowedDomains); else ENOTFOUND.
	FindAffiliateBanner(ctx context.Context, affiliateID, id int64, now time.Time) (*Banner, []string, error)
}

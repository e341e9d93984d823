package afftrack

import (
	"context"
	"strings"
)

// Percent is an exact percentage in ten-thousandths of a percent: 12.5%
// is Percent(125000).
type Percent int64

// PercentScale is the fractional digits of a Percent.
const PercentScale = 4

// String formats p with four fractional digits.
func (p Percent) String() string { return string(AppendFixed(nil, int64(p), PercentScale)) }

// Program is a merchant's tracking terms: where its links lead, how long
// a click can be credited, and what a sale pays the affiliate.
type Program struct {
	MerchantID int64
	// TargetURL is the landing page of text links (http or https); ""
	// leaves the merchant's text links without a destination (404).
	TargetURL string
	// AllowedDomains are the hosts a deep link may lead to, each matching
	// itself and its subdomains. The TargetURL's and the banners' hosts
	// are always allowed.
	AllowedDomains []string
	// BannerHosts are the hosts of the merchant's banners' TargetUrls, as
	// the store reads them with the program; not part of the terms an
	// import sets.
	BannerHosts    []string
	CookieDays     int64 // how long a click can be credited
	ValidationDays int64 // from DateCreated (or a later ConsumptionDate) until a Pending transaction locks
	Prepaid        bool  // Locked transactions become Approved at once
	// ClickAppend is a query template added to the destination of every
	// credited click; see AppendClickParams for its shortcodes.
	ClickAppend string
	// Commission is the default rule; a program without one (neither
	// Percent nor Flat) credits no conversion.
	Commission CommissionRule
	// Rules are more specific rules; see Rule.
	Rules              []CommissionRule
	OverrideFeePercent Percent
	// Listed shows the merchant to every affiliate; an unlisted one is
	// seen only by the affiliates with a membership (v1-surface.md
	// section 2.2). The import file's default is true.
	Listed bool
	// CommissionType is how the program says it pays; 0 derives it from
	// the Commission (see MerchantType).
	CommissionType MerchantType
}

// MerchantType returns the program's CommissionType, or the one its
// Commission gives when it names none: Percent per Sale for a Percent,
// Dollar per Sale for a Flat; 0 for a program without a Commission.
func (p *Program) MerchantType() MerchantType {
	switch {
	case p.CommissionType != 0:
		return p.CommissionType
	case p.Commission.Percent.Valid:
		return MerchantTypePercentPerSale
	case p.Commission.Flat.Valid:
		return MerchantTypeDollarPerSale
	}
	return 0
}

// CheckCommissionType checks that a CommissionType the program names
// fits its Commission: Percent per Sale needs a Percent, the others a
// Flat. The error names the field.
func (p *Program) CheckCommissionType() error {
	switch p.CommissionType {
	case 0:
		return nil
	case MerchantTypePercentPerSale:
		if !p.Commission.Percent.Valid {
			return Errorf(EINVALID, "CommissionType: %s needs a Commission with a Percent", p.CommissionType)
		}
	case MerchantTypeDollarPerSale, MerchantTypeDollarPerLead:
		if !p.Commission.Flat.Valid {
			return Errorf(EINVALID, "CommissionType: %s needs a Commission with a Flat", p.CommissionType)
		}
	default:
		return Errorf(EINVALID, "CommissionType: %d is not one of %s", p.CommissionType, MerchantTypeNames())
	}
	return nil
}

// Program defaults, as the import applies them to a field left out.
const (
	DefaultCookieDays     = 30
	DefaultValidationDays = 60
	DefaultClickAppend    = "afftrack_click=[ClickId]"
)

// CommissionRule pays a Percent of the sale or a Flat amount per
// transaction. In Rules it applies to the conversions matching every
// condition it names.
type CommissionRule struct {
	Percent Null[Percent]
	Flat    Null[Money]

	AffiliateID  Null[int64]
	Category     Null[string] // matched ignoring case
	CustomerType CustomerType // 0: any
}

// Pays reports whether r names an amount: a Percent or a Flat.
func (r *CommissionRule) Pays() bool { return r.Percent.Valid || r.Flat.Valid }

// conditions counts the conditions r names.
func (r *CommissionRule) conditions() int {
	n := 0
	if r.AffiliateID.Valid {
		n++
	}
	if r.Category.Valid {
		n++
	}
	if r.CustomerType != 0 {
		n++
	}
	return n
}

// matches reports whether every condition r names holds. A rule naming a
// Category never matches a sale without one.
func (r *CommissionRule) matches(affiliateID int64, category Null[string], ct CustomerType) bool {
	return (!r.AffiliateID.Valid || r.AffiliateID.Value == affiliateID) &&
		(!r.Category.Valid || category.Valid && strings.EqualFold(r.Category.Value, category.Value)) &&
		(r.CustomerType == 0 || r.CustomerType == ct)
}

// Rule returns the rule that prices a sale: among the Rules whose every
// condition matches, the one naming the most conditions, the earlier
// between equals; none, the Commission.
func (p *Program) Rule(affiliateID int64, category Null[string], ct CustomerType) CommissionRule {
	best, bestN := p.Commission, -1
	for i := range p.Rules {
		r := &p.Rules[i]
		if n := r.conditions(); n > bestN && r.matches(affiliateID, category, ct) {
			best, bestN = *r, n
		}
	}
	return best
}

// ProgramService reads and sets programs.
type ProgramService interface {
	// FindProgram returns the merchant's program, or ENOTFOUND.
	FindProgram(ctx context.Context, merchantID int64) (*Program, error)

	// SetProgram creates or replaces the merchant's program.
	SetProgram(ctx context.Context, p *Program) error
}

// DeepLinkHosts are the hosts any deep link of the merchant may lead to
// (tracking.md section 1): the TargetUrl's, every banner's and the
// AllowedDomains, each matching itself and its subdomains.
func (p *Program) DeepLinkHosts() []string {
	hosts := make([]string, 0, 1+len(p.BannerHosts)+len(p.AllowedDomains))
	if h := URLHost(p.TargetURL); h != "" {
		hosts = append(hosts, h)
	}
	hosts = append(hosts, p.BannerHosts...)
	return append(hosts, p.AllowedDomains...)
}

package importfile

import "github.com/afftrack/afftrack"

// parsePromotion reads a promotion (v1-surface.md section 7): a coupon
// without a code.
func parsePromotion(r *record) afftrack.Promotion {
	var p afftrack.Promotion
	p.ID = r.id("Id")
	p.MerchantID = r.id("MerchantId")
	p.Description = r.str("Description", true)
	p.DateCreated = r.nullDatetime("DateCreated")
	p.DateModified = r.nullDatetime("DateModified")
	p.TargetURL = r.url("TargetUrl")
	p.TermsAndConditions = r.str("TermsAndConditions", false)
	p.StartDate, p.EndDate = period(r)
	p.AffiliateID = r.idRef("AffiliateId")
	return p
}

package importfile

import (
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// parseCoupon reads a coupon (tracking.md section 8, v1-surface.md
// section 7). DateCreated and DateModified left out are the store's to
// fill, as is a TargetUrl left out (the program's).
func parseCoupon(r *record) afftrack.Coupon {
	var c afftrack.Coupon
	c.ID = r.id("Id")
	c.MerchantID = r.id("MerchantId")
	c.Code = r.str("Code", true)
	if r.err == nil && (strings.TrimSpace(c.Code) == "" || len(c.Code) > maxCouponCode) {
		r.fail("Code", "must be 1 to %d bytes, not only spaces", maxCouponCode)
	}
	c.Description = r.str("Description", false)
	c.AffiliateID = r.idRef("AffiliateId")
	c.StartDate, c.EndDate = period(r)
	c.DateCreated = r.nullDatetime("DateCreated")
	c.DateModified = r.nullDatetime("DateModified")
	c.TargetURL = r.url("TargetUrl")
	c.TermsAndConditions = r.str("TermsAndConditions", false)
	return c
}

// maxCouponCode bounds a coupon code, which customers type.
const maxCouponCode = 255

// period reads an offer's optional StartDate and EndDate, the end not
// before the start.
func period(r *record) (start, end afftrack.Null[time.Time]) {
	start = r.nullDatetime("StartDate")
	end = r.nullDatetime("EndDate")
	if r.err == nil && start.Valid && end.Valid && end.Value.Before(start.Value) {
		r.fail("EndDate", "is before StartDate")
	}
	return start, end
}

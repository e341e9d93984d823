package importfile

import (
	"strings"

	"github.com/afftrack/afftrack"
)

// parseClick reads a recorded click (v1-surface.md section 7), for the
// reports: ClickId (32 hex digits, kept in lower case), Date, MerchantId
// and AffiliateId required; CreativeType Text Link, or a Banner, Coupon
// or Promotion named by CreativeId; TrafficType left out is the store's
// to fill (the membership's, else Website); Bot false; UniqueId ...
// UniqueId4 null. The click is credited unless it is a Bot's.
func parseClick(r *record) afftrack.Click {
	var c afftrack.Click
	c.ID = strings.ToLower(r.str("ClickId", true))
	if r.err == nil && !afftrack.IsClickID(c.ID) {
		r.fail("ClickId", "%q is not a click id: 32 hexadecimal digits", c.ID)
	}
	c.Time = r.datetime("Date", true, c.Time)
	c.MerchantID = r.id("MerchantId")
	c.AffiliateID = r.id("AffiliateId")
	c.CreativeType = enum(r, "CreativeType", false, afftrack.ParseCreativeType, afftrack.CreativeTypeNames())
	if c.CreativeType == 0 {
		c.CreativeType = afftrack.CreativeTypeTextLink
	}
	c.CreativeID = r.idRef("CreativeId")
	c.TrafficType = enum(r, "TrafficType", false, afftrack.ParseTrafficType, afftrack.TrafficTypeNames())
	c.Bot = r.bool("Bot")
	c.Credited = !c.Bot
	for i, name := range uniqueIDFields {
		c.UniqueIDs[i] = r.shortText(name, afftrack.MaxUniqueIDLength).Value
	}
	if r.err != nil {
		return c
	}
	switch c.CreativeType {
	case afftrack.CreativeTypeTextLink:
		if c.CreativeID.Valid {
			r.fail("CreativeId", "a Text Link click has no CreativeId")
		}
	case afftrack.CreativeTypeBanner, afftrack.CreativeTypeCoupon, afftrack.CreativeTypePromotion:
		if !c.CreativeID.Valid {
			r.fail("CreativeId", "a %s click names its %s in CreativeId", c.CreativeType, strings.ToLower(c.CreativeType.String()))
		}
	default:
		r.fail("CreativeType", "%q is not a creative a link is of: Text Link, Banner, Coupon or Promotion", c.CreativeType)
	}
	return c
}

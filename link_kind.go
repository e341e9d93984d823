package afftrack

// The tracking links of coupons and promotions (v1-surface.md section
// 1.1): like a banner's, they credit the record's merchant and land on
// its TargetUrl; one assigned to an affiliate credits only that
// affiliate.
const (
	LinkCoupon    LinkKind = LinkTextLink + 1 + iota // {affiliateId}/c/{couponId}
	LinkPromotion                                    // {affiliateId}/o/{promotionId}
)

// Creative returns the CreativeType a click on a link of kind k is
// credited as: Banner, Text Link, Coupon or Promotion (0 for no kind).
// A link's creative id is its TargetID, but for a text link, which has
// none.
func (k LinkKind) Creative() CreativeType {
	switch k {
	case LinkBanner:
		return CreativeTypeBanner
	case LinkTextLink:
		return CreativeTypeTextLink
	case LinkCoupon:
		return CreativeTypeCoupon
	case LinkPromotion:
		return CreativeTypePromotion
	}
	return 0
}

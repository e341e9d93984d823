package importfile

import "github.com/afftrack/afftrack"

// parseBanner reads a banner. MerchantName, MerchantAvatarUrl, Size,
// TrackingUrl and TrackingCode are derived by the service and are not
// fields of the file. The store resolves its group, named by
// BannerGroupId or GroupName (both: they must agree; neither: the group
// named ""), and a TargetUrl left out (the group's).
func parseBanner(r *record) afftrack.Banner {
	var b afftrack.Banner
	b.ID = r.id("Id")
	b.MerchantID = r.id("MerchantId")
	b.DateCreated = r.datetime("DateCreated", true, b.DateCreated)
	b.DateModified = r.datetime("DateModified", false, b.DateCreated)
	b.BannerGroupID = r.idRef("BannerGroupId")
	b.GroupName = r.str("GroupName", false)
	b.Name = r.str("Name", false)
	b.TargetURL = r.url("TargetUrl")
	b.Width = r.int("Width", true, 0)
	b.Height = r.int("Height", true, 0)
	b.ImageURL = r.url("ImageUrl")
	b.AltText = r.str("AltText", false)
	b.DefaultForSize = r.bool("DefaultForSize")
	if r.err == nil && (b.Width < 1 || b.Height < 1) {
		field := "Width"
		if b.Width >= 1 {
			field = "Height"
		}
		r.fail(field, "a banner's width and height must be positive, got %dx%d", b.Width, b.Height)
	}
	return b
}

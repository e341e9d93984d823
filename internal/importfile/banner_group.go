package importfile

import (
	"strings"

	"github.com/afftrack/afftrack"
)

// parseBannerGroup reads a banner group (v1-surface.md section 7): Id,
// MerchantId, Name and TargetUrl required; dates left out are the
// store's to fill.
func parseBannerGroup(r *record) afftrack.BannerGroup {
	var g afftrack.BannerGroup
	g.ID = r.id("Id")
	g.MerchantID = r.id("MerchantId")
	g.Name = r.str("Name", true)
	if r.err == nil && strings.TrimSpace(g.Name) == "" {
		r.fail("Name", "must not be empty")
	}
	g.TargetURL = r.url("TargetUrl")
	if r.err == nil && g.TargetURL == "" {
		r.fail("TargetUrl", "is required")
	}
	g.DateCreated = r.nullDatetime("DateCreated")
	g.DateModified = r.nullDatetime("DateModified")
	g.ExpiryDate = r.nullDatetime("ExpiryDate")
	return g
}

// groupName is a banner group's name within its merchant's groups.
type groupName struct {
	merchantID int64
	name       string
}

// groupName checks that a group's name is not also an earlier group's of
// the same merchant: names are unique per merchant, exactly.
func (d *duplicates) groupName(r *record, at int, g afftrack.BannerGroup) {
	if r.err != nil {
		return
	}
	k := groupName{g.MerchantID, g.Name}
	if first, dup := d.groupNames[k]; dup {
		r.fail("Name", "%q is also the name of BannerGroups[%d] of merchant %d", g.Name, first, g.MerchantID)
		return
	}
	d.groupNames[k] = int32(at)
}

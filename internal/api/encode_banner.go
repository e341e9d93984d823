package api

import (
	"html"
	"strconv"

	"github.com/afftrack/afftrack"
)

// bannerTrackingURL returns the affiliate's own tracking link for a banner:
// {base}/{affiliateId}/b/{bannerId}.
func bannerTrackingURL(base string, affiliateID, bannerID int64) string {
	return base + "/" + strconv.FormatInt(affiliateID, 10) + "/b/" + strconv.FormatInt(bannerID, 10)
}

// bannerTrackingCode returns the HTML fragment that embeds the banner:
// the image linked to trackingURL. Every attribute value is HTML-escaped so
// a merchant's alt text or URLs cannot inject markup into the affiliate's
// page.
func bannerTrackingCode(bn *afftrack.Banner, trackingURL string) string {
	return `<a href="` + html.EscapeString(trackingURL) + `" rel="nofollow sponsored"><img src="` +
		html.EscapeString(bn.ImageURL) + `" width="` + strconv.FormatInt(bn.Width, 10) +
		`" height="` + strconv.FormatInt(bn.Height, 10) + `" alt="` + html.EscapeString(bn.AltText) +
		`" style="border:none" /></a>`
}

// appendBannerJSON appends bn as a compact JSON object, fields in the order
// of the interface's Banner table, with the given tracking link.
func appendBannerJSON(b []byte, bn *afftrack.Banner, trackingURL string) []byte {
	b = append(b, `{"Id":`...)
	b = strconv.AppendInt(b, bn.ID, 10)
	b = append(b, `,"DateCreated":"`...)
	b = appendDateTime(b, bn.DateCreated)
	b = append(b, `","DateModified":"`...)
	b = appendDateTime(b, bn.DateModified)
	b = append(b, `","MerchantId":`...)
	b = strconv.AppendInt(b, bn.MerchantID, 10)
	b = append(b, `,"MerchantName":`...)
	b = appendJSONString(b, bn.MerchantName)
	b = append(b, `,"MerchantAvatarUrl":`...)
	b = appendJSONString(b, bn.MerchantAvatarURL)
	b = append(b, `,"GroupName":`...)
	b = appendJSONString(b, bn.GroupName)
	b = append(b, `,"Name":`...)
	b = appendJSONString(b, bn.Name)
	b = append(b, `,"TargetUrl":`...)
	b = appendJSONString(b, bn.TargetURL)
	b = appendBannerImageJSON(b, bn)
	b = append(b, `,"TrackingUrl":`...)
	b = appendJSONString(b, trackingURL)
	b = append(b, `,"TrackingCode":`...)
	b = appendJSONString(b, bannerTrackingCode(bn, trackingURL))
	return append(b, '}')
}

// appendBannerXML appends bn as a Banner element inside a BannerArray.
func appendBannerXML(b []byte, bn *afftrack.Banner, trackingURL string) []byte {
	b = append(b, "<Banner>"...)
	b = appendXMLInt(b, "Id", bn.ID)
	b = appendXMLDateTime(b, "DateCreated", bn.DateCreated)
	b = appendXMLDateTime(b, "DateModified", bn.DateModified)
	b = appendXMLInt(b, "MerchantId", bn.MerchantID)
	b = appendXMLString(b, "MerchantName", bn.MerchantName)
	b = appendXMLString(b, "MerchantAvatarUrl", bn.MerchantAvatarURL)
	b = appendXMLString(b, "GroupName", bn.GroupName)
	b = appendXMLString(b, "Name", bn.Name)
	b = appendXMLString(b, "TargetUrl", bn.TargetURL)
	b = appendBannerImageXML(b, bn)
	b = appendXMLString(b, "TrackingUrl", trackingURL)
	b = appendXMLString(b, "TrackingCode", bannerTrackingCode(bn, trackingURL))
	return append(b, "</Banner>"...)
}

// appendBannerImageJSON appends the fields that describe a banner's image,
// Size to AltText, which both views write in the same order.
func appendBannerImageJSON(b []byte, bn *afftrack.Banner) []byte {
	b = append(b, `,"Size":`...)
	b = appendJSONString(b, bn.Size())
	b = append(b, `,"Width":`...)
	b = strconv.AppendInt(b, bn.Width, 10)
	b = append(b, `,"Height":`...)
	b = strconv.AppendInt(b, bn.Height, 10)
	b = append(b, `,"ImageUrl":`...)
	b = appendJSONString(b, bn.ImageURL)
	b = append(b, `,"AltText":`...)
	b = appendJSONString(b, bn.AltText)
	return b
}

// appendBannerImageXML is appendBannerImageJSON in XML.
func appendBannerImageXML(b []byte, bn *afftrack.Banner) []byte {
	b = appendXMLString(b, "Size", bn.Size())
	b = appendXMLInt(b, "Width", bn.Width)
	b = appendXMLInt(b, "Height", bn.Height)
	b = appendXMLString(b, "ImageUrl", bn.ImageURL)
	b = appendXMLString(b, "AltText", bn.AltText)
	return b
}

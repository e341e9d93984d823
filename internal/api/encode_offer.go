package api

import (
	"html"
	"strconv"
	"time"

	"github.com/afftrack/afftrack"
)

// offerTrackingCode is the HTML fragment of an offer's link:
// <a href="{TrackingUrl}" rel="nofollow sponsored">{Description}</a>, the
// URL and the text HTML-escaped so a merchant's description cannot
// inject markup into the affiliate's page.
func offerTrackingCode(o *afftrack.Offer, trackingURL string) string {
	return `<a href="` + html.EscapeString(trackingURL) + `" rel="nofollow sponsored">` +
		html.EscapeString(o.Description) + `</a>`
}

// appendOfferJSONNullDateTime appends a nullable datetime: the string, or null.
func appendOfferJSONNullDateTime(b []byte, t afftrack.Null[time.Time]) []byte {
	if !t.Valid {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = appendDateTime(b, t.Value)
	return append(b, '"')
}

// appendOfferXMLNullDateTime appends an element holding a nullable
// datetime.
func appendOfferXMLNullDateTime(b []byte, name string, t afftrack.Null[time.Time]) []byte {
	if !t.Valid {
		return appendXMLNil(b, name)
	}
	return appendXMLDateTime(b, name, t.Value)
}

// appendOfferJSON appends o as a Coupon or Promotion object, fields in the
// order of v1-surface.md section 2.3. A trackingURL makes it the
// affiliate's view (the merchant's account, the tracking link and code);
// "" the merchant's (the assigned affiliate).
func appendOfferJSON(b []byte, o *afftrack.Offer, trackingURL string) []byte {
	affiliate := trackingURL != ""
	b = append(b, `{"Id":`...)
	b = strconv.AppendInt(b, o.ID, 10)
	b = append(b, `,"DateCreated":"`...)
	b = appendDateTime(b, o.DateCreated)
	b = append(b, `","DateModified":"`...)
	b = appendDateTime(b, o.DateModified)
	b = append(b, '"')
	if affiliate {
		b = append(b, `,"MerchantId":`...)
		b = strconv.AppendInt(b, o.MerchantID, 10)
		b = append(b, `,"MerchantName":`...)
		b = appendJSONString(b, o.MerchantName)
		b = append(b, `,"MerchantAvatarUrl":`...)
		b = appendJSONString(b, o.MerchantAvatarURL)
	}
	b = append(b, `,"Description":`...)
	b = appendJSONString(b, o.Description)
	if o.Kind == afftrack.OfferCoupon {
		b = append(b, `,"Code":`...)
		b = appendJSONString(b, o.Code)
	}
	b = append(b, `,"TargetUrl":`...)
	b = appendJSONString(b, o.TargetURL)
	b = append(b, `,"TermsAndConditions":`...)
	b = appendJSONString(b, o.TermsAndConditions)
	b = append(b, `,"StartDate":`...)
	b = appendOfferJSONNullDateTime(b, o.StartDate)
	b = append(b, `,"EndDate":`...)
	b = appendOfferJSONNullDateTime(b, o.EndDate)
	if affiliate {
		b = append(b, `,"TrackingUrl":`...)
		b = appendJSONString(b, trackingURL)
		b = append(b, `,"TrackingCode":`...)
		b = appendJSONString(b, offerTrackingCode(o, trackingURL))
	} else {
		b = append(b, `,"AffiliateId":`...)
		b = appendJSONNullInt(b, o.AffiliateID)
		b = append(b, `,"AffiliateContactName":`...)
		b = appendJSONNullString(b, o.AffiliateContactName)
		b = append(b, `,"AffiliateBusinessName":`...)
		b = appendJSONNullString(b, o.AffiliateBusinessName)
	}
	return append(b, '}')
}

// Elements of the merchant's view.
var (
	offerAffiliateIDXML       = newXMLElement("AffiliateId")
	offerAffiliateContactXML  = newXMLElement("AffiliateContactName")
	offerAffiliateBusinessXML = newXMLElement("AffiliateBusinessName")
)

// appendOfferXML appends o as a Coupon or Promotion element, the root of
// a document when ns is not "". trackingURL chooses the view as in
// appendOfferJSON.
func appendOfferXML(b []byte, o *afftrack.Offer, ns, trackingURL string) []byte {
	affiliate := trackingURL != ""
	name := offerNames[o.Kind].item
	b = appendXMLOpen(b, name, ns)
	b = appendXMLInt(b, "Id", o.ID)
	b = appendXMLDateTime(b, "DateCreated", o.DateCreated)
	b = appendXMLDateTime(b, "DateModified", o.DateModified)
	if affiliate {
		b = appendXMLInt(b, "MerchantId", o.MerchantID)
		b = appendXMLString(b, "MerchantName", o.MerchantName)
		b = appendXMLString(b, "MerchantAvatarUrl", o.MerchantAvatarURL)
	}
	b = appendXMLString(b, "Description", o.Description)
	if o.Kind == afftrack.OfferCoupon {
		b = appendXMLString(b, "Code", o.Code)
	}
	b = appendXMLString(b, "TargetUrl", o.TargetURL)
	b = appendXMLString(b, "TermsAndConditions", o.TermsAndConditions)
	b = appendOfferXMLNullDateTime(b, "StartDate", o.StartDate)
	b = appendOfferXMLNullDateTime(b, "EndDate", o.EndDate)
	if affiliate {
		b = appendXMLString(b, "TrackingUrl", trackingURL)
		b = appendXMLString(b, "TrackingCode", offerTrackingCode(o, trackingURL))
	} else {
		b = appendXMLNullInt(b, &offerAffiliateIDXML, o.AffiliateID)
		b = appendXMLNullText(b, &offerAffiliateContactXML, o.AffiliateContactName)
		b = appendXMLNullText(b, &offerAffiliateBusinessXML, o.AffiliateBusinessName)
	}
	return appendXMLClose(b, name)
}

package afftrack

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"time"
)

// Conversion is a sale a merchant reports, by its server (S2S) or by the
// pixel on its order page, for the network to credit to an affiliate.
type Conversion struct {
	MerchantID          int64
	ClickID             string
	OrderID             string
	SaleValue           Money  // the reported amount; with Items, their sum when none was given
	CurrencyCode        string // ISO 4217, upper case
	CustomerType        CustomerType
	CouponCode          string
	ConsumptionDate     Null[time.Time]
	AdditionalNotes     Null[string]
	CustomerCountryCode string // ISO 3166 alpha-3 (or ""), as given
	Items               []ConversionItem
	Pixel               bool // reported by the pixel: a click credits it as Cookie, not Server
	// Actor is who reported it, for the transaction's history; not
	// content, like Pixel.
	Actor Actor
}

// ConversionItem is one line of a reported cart: SaleValue is the line's
// total in the reported currency.
type ConversionItem struct {
	Sku       string
	Quantity  int64
	SaleValue ItemMoney
	Name      string
	Brand     string
	Category  string
}

// MaxOrderIDLength bounds a conversion's OrderId, in characters.
const MaxOrderIDLength = 255

// Fingerprint is a digest of everything the merchant reported, so that the
// same OrderId reported again can be told apart as a retry (the same
// content) or a conflict. How it arrived (S2S or pixel) is not content.
func (c *Conversion) Fingerprint() string {
	h := sha256.New()
	var n [8]byte
	num := func(v int64) {
		binary.BigEndian.PutUint64(n[:], uint64(v))
		h.Write(n[:])
	}
	text := func(s string) {
		num(int64(len(s)))
		h.Write([]byte(s))
	}
	num(c.MerchantID)
	text(c.ClickID)
	text(c.OrderID)
	num(int64(c.SaleValue))
	text(c.CurrencyCode)
	num(int64(c.CustomerType))
	text(c.CouponCode)
	if c.ConsumptionDate.Valid {
		num(1)
		num(c.ConsumptionDate.Value.UnixMilli())
	} else {
		num(0)
	}
	if c.AdditionalNotes.Valid {
		num(1)
		text(c.AdditionalNotes.Value)
	} else {
		num(0)
	}
	text(c.CustomerCountryCode)
	num(int64(len(c.Items)))
	for _, it := range c.Items {
		text(it.Sku)
		num(it.Quantity)
		num(int64(it.SaleValue))
		text(it.Name)
		text(it.Brand)
		text(it.Category)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Credit is who a conversion is credited to, and how.
type Credit struct {
	Method       TrackingMethod // Clickless (a coupon), Server or Cookie (a click)
	AffiliateID  int64
	Click        *Click // nil when a coupon credits
	CreativeType CreativeType
	CreativeID   Null[int64]
	CreativeName Null[string]
}

// Attribute decides who is credited with c: an exclusive coupon of the
// merchant that is valid now beats a click; else the click, if it is a
// credited click of this merchant no older than the program's cookie
// window. coupon and click are what the store found for c's CouponCode and
// ClickID (nil: none). Nothing creditable is an EUNPROCESSABLE error
// saying why.
func Attribute(c *Conversion, p *Program, coupon *Coupon, click *Click, now time.Time) (Credit, error) {
	if coupon != nil && coupon.AffiliateID.Valid && coupon.MerchantID == c.MerchantID && coupon.ValidAt(now) {
		return Credit{Method: TrackingMethodClickless, AffiliateID: coupon.AffiliateID.Value,
			CreativeType: CreativeTypeCoupon, CreativeName: Some(coupon.Code)}, nil
	}
	method := TrackingMethodServer
	if c.Pixel {
		method = TrackingMethodCookie
	}
	switch {
	case c.ClickID == "" && c.CouponCode != "":
		return Credit{}, Errorf(EUNPROCESSABLE, "CouponCode %q is not an exclusive coupon of merchant %d valid now, and there is no ClickId.", c.CouponCode, c.MerchantID)
	case c.ClickID == "":
		return Credit{}, Errorf(EUNPROCESSABLE, "Nothing credits this conversion: it has no ClickId and no exclusive CouponCode.")
	case click == nil || !click.Credited:
		return Credit{}, Errorf(EUNPROCESSABLE, "ClickId %q is not a credited click of this network.", c.ClickID)
	case click.MerchantID != c.MerchantID:
		return Credit{}, Errorf(EUNPROCESSABLE, "ClickId %q is a click on another merchant's link.", c.ClickID)
	case now.Sub(click.Time) > time.Duration(p.CookieDays)*24*time.Hour:
		return Credit{}, Errorf(EUNPROCESSABLE, "ClickId %q is older than the program's cookie window of %d days.", c.ClickID, p.CookieDays)
	}
	cr := Credit{Method: method, AffiliateID: click.AffiliateID, Click: click,
		CreativeType: click.CreativeType, CreativeID: click.CreativeID}
	return cr, nil
}

// ConversionService records conversions.
type ConversionService interface {
	// RecordConversion attributes c, prices it and stores its transaction
	// in one database transaction, returning it with created true. The
	// same OrderId of the merchant reported again returns the stored
	// transaction with created false when the content is the same, and
	// ECONFLICT when it differs. Nothing creditable is EUNPROCESSABLE,
	// and then nothing is stored.
	RecordConversion(ctx context.Context, c *Conversion) (t *Transaction, created bool, err error)
}

// CurrencyRateService sets the rates conversions are converted at.
type CurrencyRateService interface {
	// SetRates stores rates; a rate of a code and day already stored is
	// replaced.
	SetRates(ctx context.Context, rates []CurrencyRate) error
}

package afftrack

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/bits"
	"strings"
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

// MaxOrderIDLength bounds a conversion's OrderId.
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

// Sale is everything a conversion's transaction is made from.
type Sale struct {
	Conversion *Conversion
	Program    *Program
	Credit     Credit
	Membership Membership // the credited affiliate's, for its traffic fields
	// Rate converts the reported currency into the network's; ignored
	// when the two are the same.
	Rate            Rate
	NetworkCurrency string
	Now             time.Time // DateCreated, a wall clock of the network's zone
}

// Transaction returns the transaction a sale makes (tracking.md section 4),
// without its Id and the affiliate's names, which the store fills. Amounts
// are exact: every product is rounded once, half away from zero, at its
// field's scale. An amount out of range is an EUNPROCESSABLE error.
func (s *Sale) Transaction() (*Transaction, error) {
	c, p, now := s.Conversion, s.Program, s.Now
	t := &Transaction{
		MerchantID:            c.MerchantID,
		DateCreated:           now,
		DateModified:          now,
		ConsumptionDate:       now,
		AffiliateID:           s.Credit.AffiliateID,
		TrafficType:           s.Membership.TrafficType,
		TrafficSource:         s.Membership.TrafficSource,
		TrafficSourceApproved: s.Membership.TrafficSourceApproved,
		CreativeType:          s.Credit.CreativeType,
		CreativeID:            s.Credit.CreativeID,
		CreativeName:          s.Credit.CreativeName,
		CustomerType:          c.CustomerType,
		OrderID:               c.OrderID,
		AdditionalNotes:       c.AdditionalNotes,
		TrackingMethod:        s.Credit.Method,
		ReportedCurrencyCode:  c.CurrencyCode,
		ReportedSaleValue:     c.SaleValue,
		Status2:               Status2Pending,
	}
	if c.ConsumptionDate.Valid {
		t.ConsumptionDate = c.ConsumptionDate.Value
	}
	t.ValidationDate = t.DateCreated
	if t.ConsumptionDate.After(t.ValidationDate) {
		t.ValidationDate = t.ConsumptionDate
	}
	t.ValidationDate = t.ValidationDate.AddDate(0, 0, int(p.ValidationDays))
	t.ReportedCurrencyName, _ = CurrencyName(c.CurrencyCode)
	if click := s.Credit.Click; click != nil {
		t.CustomerIPAddress = click.IPHash
		t.CustomerCountryCode, t.CustomerCountryName = click.CountryCode, click.CountryName
	}
	if t.CustomerCountryCode == "" && c.CustomerCountryCode != "" {
		if country, ok := CountryByCode(c.CustomerCountryCode); ok {
			t.CustomerCountryCode, t.CustomerCountryName = country.Alpha3, country.Name
		}
	}

	rate := int64(s.Rate)
	if strings.EqualFold(c.CurrencyCode, s.NetworkCurrency) {
		rate = rateOne
	}
	var ok bool
	if t.SaleValue, ok = convert(c.SaleValue, rate); !ok {
		return nil, errOutOfRange("SaleValue")
	}

	if len(c.Items) == 0 {
		r := p.Rule(t.AffiliateID, Null[string]{}, c.CustomerType)
		if t.Commission, ok = ruleCommission(r, t.SaleValue); !ok {
			return nil, errOutOfRange("Commission")
		}
	} else if err := s.priceItems(t, rate); err != nil {
		return nil, err
	}
	var ok2 bool
	if t.OverrideFee, ok2 = p.OverrideFeePercent.Of(t.Commission); !ok2 {
		return nil, errOutOfRange("OverrideFee")
	}
	return t, nil
}

// priceItems converts each item and prices it by the rule for its
// Category. A Flat rule pays per transaction: if any item's rule is Flat,
// every item's Commission is 0.00 and the transaction's is the first such
// item's flat amount; otherwise it is the sum of the items'.
func (s *Sale) priceItems(t *Transaction, rate int64) error {
	c, p := s.Conversion, s.Program
	t.Items = make([]TransactionItem, len(c.Items))
	var flat Null[Money]
	var sum int64
	for i, in := range c.Items {
		it := &t.Items[i]
		*it = TransactionItem{Sku: in.Sku, Quantity: in.Quantity, ReportedSaleValue: in.SaleValue,
			Name: in.Name, Brand: in.Brand, Category: in.Category}
		v, ok := mulDivRound(int64(in.SaleValue), rate, rateDivisor)
		if !ok {
			return errOutOfRange("Items.SaleValue")
		}
		it.SaleValue = ItemMoney(v)
		cat := Null[string]{}
		if in.Category != "" {
			cat = Some(in.Category)
		}
		r := p.Rule(t.AffiliateID, cat, c.CustomerType)
		switch {
		case r.Flat.Valid:
			if !flat.Valid {
				flat = r.Flat
			}
		case r.Percent.Valid:
			v, ok := mulDivRound(int64(it.SaleValue), int64(r.Percent.Value), percentDivisor)
			if !ok {
				return errOutOfRange("Items.Commission")
			}
			it.Commission = ItemMoney(v)
			if (v > 0 && sum > math.MaxInt64-v) || (v < 0 && sum < math.MinInt64-v) {
				return errOutOfRange("Commission")
			}
			sum += v
		}
	}
	if flat.Valid {
		for i := range t.Items {
			t.Items[i].Commission = 0
		}
		t.Commission = flat.Value
		return nil
	}
	if sum > math.MaxInt64/100 || sum < math.MinInt64/100 {
		return errOutOfRange("Commission")
	}
	t.Commission = Money(sum * 100) // ItemMoney has two digits fewer than Money
	return nil
}

// Divisors of the exact products: a Rate has 8 fractional digits; a
// Percent has 4 and is a hundredth.
const (
	rateOne        = 100_000_000
	rateDivisor    = 100_000_000
	percentDivisor = 100 * 10_000
)

// convert converts a reported amount at rate (10^-8 units).
func convert(v Money, rate int64) (Money, bool) {
	r, ok := mulDivRound(int64(v), rate, rateDivisor)
	return Money(r), ok
}

// ruleCommission applies a transaction-level rule to a sale value.
func ruleCommission(r CommissionRule, sale Money) (Money, bool) {
	switch {
	case r.Flat.Valid:
		return r.Flat.Value, true
	case r.Percent.Valid:
		v, ok := mulDivRound(int64(sale), int64(r.Percent.Value), percentDivisor)
		return Money(v), ok
	}
	return 0, true
}

func errOutOfRange(field string) error {
	return Errorf(EUNPROCESSABLE, "%s: the amount is out of range.", field)
}

// mulDivRound returns a*b/d rounded half away from zero, exactly (the
// product is 128 bits wide), and false when the result does not fit an
// int64. d must be positive.
func mulDivRound(a, b, d int64) (int64, bool) {
	neg := (a < 0) != (b < 0)
	ua, ub := uabs(a), uabs(b)
	hi, lo := bits.Mul64(ua, ub)
	ud := uint64(d)
	if hi >= ud {
		return 0, false
	}
	q, r := bits.Div64(hi, lo, ud)
	if r >= ud-r { // r*2 >= d, without overflow: the half rounds up in magnitude
		if q == math.MaxUint64 {
			return 0, false
		}
		q++
	}
	if neg {
		if q > 1<<63 {
			return 0, false
		}
		return int64(-q), true // two's complement: -(1<<63) is math.MinInt64
	}
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}

func uabs(v int64) uint64 {
	if v < 0 {
		return -uint64(v) // two's complement: exact even for math.MinInt64
	}
	return uint64(v)
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

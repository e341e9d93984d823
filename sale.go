package afftrack

import (
	"math"
	"math/bits"
	"strings"
	"time"
)

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
	if t.ValidationDate.Year() > 9999 {
		// Every datetime the interface writes has four digits of year.
		return nil, Errorf(EINVALID, "ConsumptionDate: the validation date, %d days later, would fall after the year 9999",
			p.ValidationDays)
	}
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
			if sum, ok = addInt64(sum, v); !ok {
				return errOutOfRange("Commission")
			}
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

// addInt64 returns a+b and whether it fits an int64.
func addInt64(a, b int64) (int64, bool) {
	c := a + b
	if (b > 0 && c < a) || (b < 0 && c > a) {
		return 0, false
	}
	return c, true
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

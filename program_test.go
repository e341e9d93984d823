package afftrack_test

import (
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

// pct returns a rule paying p percent, given in ten-thousandths of a
// percent (12.5% is 125000), with the conditions of cond.
func pct(p afftrack.Percent, cond afftrack.CommissionRule) afftrack.CommissionRule {
	cond.Percent = afftrack.Some(p)
	return cond
}

func TestProgramRule(t *testing.T) {
	var (
		ten      = pct(100000, afftrack.CommissionRule{}) // the default: 10%
		shoes    = pct(125000, afftrack.CommissionRule{Category: afftrack.Some("Shoes")})
		shoesUp  = pct(110000, afftrack.CommissionRule{Category: afftrack.Some("SHOES")})
		books    = pct(50000, afftrack.CommissionRule{Category: afftrack.Some("Books")})
		aff42    = pct(150000, afftrack.CommissionRule{AffiliateID: afftrack.Some(int64(42))})
		aff42Sh  = pct(200000, afftrack.CommissionRule{AffiliateID: afftrack.Some(int64(42)), Category: afftrack.Some("shoes")})
		aff42ShN = pct(250000, afftrack.CommissionRule{AffiliateID: afftrack.Some(int64(42)), Category: afftrack.Some("Shoes"), CustomerType: afftrack.CustomerTypeNew})
		returner = pct(80000, afftrack.CommissionRule{CustomerType: afftrack.CustomerTypeReturn})
		flat     = afftrack.CommissionRule{Flat: afftrack.Some(afftrack.Money(50000)), Category: afftrack.Some("Gift Cards")}
	)
	none := afftrack.Null[string]{}
	tests := []struct {
		name      string
		rules     []afftrack.CommissionRule
		affiliate int64
		category  afftrack.Null[string]
		customer  afftrack.CustomerType
		want      afftrack.CommissionRule
	}{
		{"a program without rules pays its Commission", nil, 42, afftrack.Some("Shoes"), afftrack.CustomerTypeNew, ten},
		{"a program whose rules all fail pays its Commission", []afftrack.CommissionRule{books, returner}, 42, afftrack.Some("Shoes"), afftrack.CustomerTypeNew, ten},
		{"a category rule beats the default", []afftrack.CommissionRule{books, shoes}, 7, afftrack.Some("Shoes"), afftrack.CustomerTypeNew, shoes},
		{"a Flat rule is chosen like any other", []afftrack.CommissionRule{shoes, flat}, 7, afftrack.Some("gift cards"), afftrack.CustomerTypeNew, flat},
		{"a rule applies only when every condition it names matches", []afftrack.CommissionRule{aff42Sh}, 7, afftrack.Some("Shoes"), afftrack.CustomerTypeNew, ten},
		{"the rule naming the most conditions wins though listed last", []afftrack.CommissionRule{shoes, aff42, aff42Sh}, 42, afftrack.Some("Shoes"), afftrack.CustomerTypeNew, aff42Sh},
		{"the rule naming the most conditions wins though listed first", []afftrack.CommissionRule{aff42ShN, aff42Sh, shoes}, 42, afftrack.Some("Shoes"), afftrack.CustomerTypeNew, aff42ShN},
		{"a rule naming three conditions loses when one of them fails", []afftrack.CommissionRule{aff42ShN, aff42Sh, shoes}, 42, afftrack.Some("Shoes"), afftrack.CustomerTypeReturn, aff42Sh},
		{"between rules naming as many conditions the earlier wins", []afftrack.CommissionRule{shoes, aff42}, 42, afftrack.Some("Shoes"), afftrack.CustomerTypeNew, shoes},
		{"between rules naming as many conditions the earlier wins in either order", []afftrack.CommissionRule{aff42, shoes}, 42, afftrack.Some("Shoes"), afftrack.CustomerTypeNew, aff42},
		{"between two rules for the same category the earlier wins", []afftrack.CommissionRule{shoes, shoesUp}, 7, afftrack.Some("Shoes"), afftrack.CustomerTypeNew, shoes},
		{"a category is matched ignoring case", []afftrack.CommissionRule{shoesUp}, 7, afftrack.Some("sHoEs"), afftrack.CustomerTypeNew, shoesUp},
		{"a category is matched whole, not as a prefix", []afftrack.CommissionRule{shoes}, 7, afftrack.Some("Shoe"), afftrack.CustomerTypeNew, ten},
		{"a category rule never matches a sale without a category", []afftrack.CommissionRule{shoes, aff42Sh}, 42, none, afftrack.CustomerTypeNew, ten},
		{"a sale without a category still matches an affiliate rule", []afftrack.CommissionRule{shoes, aff42}, 42, none, afftrack.CustomerTypeNew, aff42},
		{"an affiliate rule applies to its affiliate", []afftrack.CommissionRule{aff42}, 42, none, afftrack.CustomerTypeNew, aff42},
		{"an affiliate rule does not apply to another affiliate", []afftrack.CommissionRule{aff42}, 43, none, afftrack.CustomerTypeNew, ten},
		{"a customer type rule applies to that customer type", []afftrack.CommissionRule{returner}, 7, none, afftrack.CustomerTypeReturn, returner},
		{"a customer type rule does not apply to the other type", []afftrack.CommissionRule{returner}, 7, none, afftrack.CustomerTypeNew, ten},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := afftrack.Program{MerchantID: 7, Commission: ten, Rules: tt.rules}
			got := p.Rule(tt.affiliate, tt.category, tt.customer)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Rule(%d, %v, %v) mismatch (-want +got):\n%s", tt.affiliate, tt.category, tt.customer, diff)
			}
		})
	}
}

func TestCouponValidAt(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	march := afftrack.Coupon{ID: 3, MerchantID: 7, Code: "SPRING10", AffiliateID: afftrack.Some(int64(55)),
		StartDate: afftrack.Some(day(2024, 3, 1)), EndDate: afftrack.Some(day(2024, 3, 31))}
	fromMarch, untilMarch := march, march
	fromMarch.EndDate = afftrack.Null[time.Time]{}
	untilMarch.StartDate = afftrack.Null[time.Time]{}
	always := march
	always.StartDate, always.EndDate = afftrack.Null[time.Time]{}, afftrack.Null[time.Time]{}

	tests := []struct {
		name   string
		coupon afftrack.Coupon
		at     time.Time
		want   bool
	}{
		{"a coupon is not valid the instant before its start", march, day(2024, 3, 1).Add(-time.Nanosecond), false},
		{"a coupon is valid from the first instant of its start day", march, day(2024, 3, 1), true},
		{"a coupon is valid between its dates", march, time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC), true},
		{"a coupon is valid at the start of its end day", march, day(2024, 3, 31), true},
		{"a coupon is valid through the last instant of its end day", march, day(2024, 4, 1).Add(-time.Nanosecond), true},
		{"a coupon is not valid from the day after its end", march, day(2024, 4, 1), false},
		{"a coupon without a start is valid long before its end", untilMarch, day(2000, 1, 1), true},
		{"a coupon without a start still ends after its end day", untilMarch, day(2024, 4, 1), false},
		{"a coupon without an end is valid long after its start", fromMarch, day(2099, 12, 31), true},
		{"a coupon without an end still starts on its start day", fromMarch, day(2024, 2, 29), false},
		{"a coupon without dates is valid in the distant past", always, day(1970, 1, 1), true},
		{"a coupon without dates is valid in the distant future", always, day(2999, 1, 1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.coupon.ValidAt(tt.at); got != tt.want {
				t.Errorf("ValidAt(%v) = %v, want %v", tt.at, got, tt.want)
			}
		})
	}
}

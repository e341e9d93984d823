package afftrack_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
)

func TestAffiliateMerchantCommission(t *testing.T) {
	// shown is what AffiliateMerchant.Commission returns.
	type shown struct {
		Rate, Lowest, Highest int64
		Zero                  bool
	}
	of := func(id int64) afftrack.CommissionRule { return afftrack.CommissionRule{AffiliateID: afftrack.Some(id)} }
	ten := pct(100000, afftrack.CommissionRule{})
	deals := []afftrack.CommissionRule{pct(250000, of(2)), pct(0, of(70))} // the reviewer's example
	tests := []struct {
		name       string
		commission afftrack.CommissionRule
		rules      []afftrack.CommissionRule
		affiliate  int64
		want       shown
	}{
		{"rules naming other affiliates are left out", ten, deals, 1, shown{100000, 100000, 100000, false}},
		{"a rule naming the caller counts", ten, deals, 2, shown{100000, 100000, 250000, false}},
		{"a zero rule naming the caller counts", ten, deals, 70, shown{100000, 0, 100000, true}},
		{"rules naming no affiliate count for every affiliate", ten, []afftrack.CommissionRule{
			pct(50000, afftrack.CommissionRule{}), pct(0, afftrack.CommissionRule{Category: afftrack.Some("Gift Cards")})},
			1, shown{100000, 0, 100000, true}},
		{"a rule naming the caller and a category counts", ten, []afftrack.CommissionRule{
			pct(150000, afftrack.CommissionRule{AffiliateID: afftrack.Some[int64](1), Category: afftrack.Some("Shoes")}),
			pct(200000, afftrack.CommissionRule{AffiliateID: afftrack.Some[int64](2), Category: afftrack.Some("Shoes")})},
			1, shown{100000, 100000, 150000, false}},
		{"another affiliate's Flat 0 does not set a Flat program's zero",
			afftrack.CommissionRule{Flat: afftrack.Some[afftrack.Money](25000)},
			[]afftrack.CommissionRule{{AffiliateID: afftrack.Some[int64](2), Flat: afftrack.Some[afftrack.Money](0)}},
			1, shown{25000, 25000, 25000, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &afftrack.AffiliateMerchant{Program: afftrack.Program{Commission: tt.commission, Rules: tt.rules}}
			var got shown
			got.Rate, got.Lowest, got.Highest, got.Zero = m.Commission(tt.affiliate)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Commission(%d) (-want +got):\n%s", tt.affiliate, diff)
			}
		})
	}
}

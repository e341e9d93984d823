package afftrack_test

import (
	"strings"
	"testing"

	"github.com/afftrack/afftrack"
)

func TestValidMerchantCategory(t *testing.T) {
	for _, c := range []string{"Shoes", "Clothing & Accessories / Shoes", strings.Repeat("é", 100) + " / x"} {
		if err := afftrack.ValidMerchantCategory(c); err != nil {
			t.Errorf("%q refused: %v", c, err)
		}
	}
	for _, c := range []string{"", "A/B", "A / B / C", " / B", "A / ", strings.Repeat("x", 101), "A //B"} {
		if err := afftrack.ValidMerchantCategory(c); afftrack.ErrorCode(err) != afftrack.EINVALID {
			t.Errorf("%q accepted (%v)", c, err)
		}
	}
	if got := afftrack.CategoryParent("Clothing & Accessories / Shoes"); got != "Clothing & Accessories" {
		t.Errorf("parent %q", got)
	}
	if got := afftrack.CategoryParent("Sports"); got != "Sports" {
		t.Errorf("parent of a parent %q", got)
	}
}

func TestProgramMerchantType(t *testing.T) {
	pct := afftrack.CommissionRule{Percent: afftrack.Some[afftrack.Percent](10)}
	flat := afftrack.CommissionRule{Flat: afftrack.Some[afftrack.Money](10)}
	for _, c := range []struct {
		p    afftrack.Program
		want afftrack.MerchantType
	}{
		{afftrack.Program{Commission: pct}, afftrack.MerchantTypePercentPerSale},
		{afftrack.Program{Commission: flat}, afftrack.MerchantTypeDollarPerSale},
		{afftrack.Program{Commission: flat, CommissionType: afftrack.MerchantTypeDollarPerLead}, afftrack.MerchantTypeDollarPerLead},
		{afftrack.Program{}, 0},
	} {
		if got := c.p.MerchantType(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
		if err := c.p.CheckCommissionType(); err != nil {
			t.Errorf("%+v: %v", c.p, err)
		}
	}
	for _, p := range []afftrack.Program{
		{Commission: flat, CommissionType: afftrack.MerchantTypePercentPerSale},
		{Commission: pct, CommissionType: afftrack.MerchantTypeDollarPerSale},
		{CommissionType: afftrack.MerchantTypeDollarPerLead},
		{Commission: flat, CommissionType: 9},
	} {
		if err := p.CheckCommissionType(); afftrack.ErrorCode(err) != afftrack.EINVALID {
			t.Errorf("%+v accepted (%v)", p, err)
		}
	}
}

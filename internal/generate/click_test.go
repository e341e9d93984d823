package generate_test

import (
	"testing"

	"github.com/afftrack/afftrack"
)

// TestClicks checks the clicks of a small network: ten per transaction,
// ids unique click ids ascending with time, within the period, naming
// creatives of their own merchant and a member affiliate.
func TestClicks(t *testing.T) {
	cfg := small()
	n := collect(t, cfg)
	if want := 10 * cfg.Transactions; len(n.Clicks) != want {
		t.Fatalf("%d clicks, want %d", len(n.Clicks), want)
	}
	banners := map[int64]int64{}
	for _, b := range n.Banners {
		banners[b.ID] = b.MerchantID
	}
	coupons := map[int64]int64{}
	for _, c := range n.Coupons {
		coupons[c.ID] = c.MerchantID
	}
	promotions := map[int64]int64{}
	for _, p := range n.Promotions {
		promotions[p.ID] = p.MerchantID
	}
	if len(coupons) != 2*cfg.Merchants || len(promotions) != 2*cfg.Merchants {
		t.Errorf("%d coupons and %d promotions, want %d each", len(coupons), len(promotions), 2*cfg.Merchants)
	}
	members := map[[2]int64]bool{}
	for _, m := range n.Memberships {
		members[[2]int64{m.AffiliateID, m.MerchantID}] = m.Status == afftrack.MembershipJoined
	}
	end := cfg.Start.AddDate(0, 0, cfg.Days)
	seen := map[string]bool{}
	bots := 0
	for i, c := range n.Clicks {
		if !afftrack.IsClickID(c.ID) || seen[c.ID] {
			t.Fatalf("click %d: id %q not a fresh click id", i, c.ID)
		}
		seen[c.ID] = true
		if i > 0 && c.Time.Before(n.Clicks[i-1].Time) {
			t.Fatalf("click %d: not after click %d", i, i-1)
		}
		if c.Time.Before(cfg.Start) || !c.Time.Before(end) {
			t.Fatalf("click %d at %s, outside the period", i, c.Time)
		}
		if !members[[2]int64{c.AffiliateID, c.MerchantID}] {
			t.Fatalf("click %d: affiliate %d has not joined merchant %d", i, c.AffiliateID, c.MerchantID)
		}
		owners := map[afftrack.CreativeType]map[int64]int64{afftrack.CreativeTypeBanner: banners,
			afftrack.CreativeTypeCoupon: coupons, afftrack.CreativeTypePromotion: promotions}[c.CreativeType]
		switch {
		case c.CreativeType == afftrack.CreativeTypeTextLink && c.CreativeID.Valid,
			c.CreativeType != afftrack.CreativeTypeTextLink && (!c.CreativeID.Valid || owners[c.CreativeID.Value] != c.MerchantID):
			t.Fatalf("click %d: %s %+v of merchant %d", i, c.CreativeType, c.CreativeID, c.MerchantID)
		}
		if c.Bot == c.Credited || c.TrafficType == 0 {
			t.Fatalf("click %d: bot %v credited %v traffic %v", i, c.Bot, c.Credited, c.TrafficType)
		}
		if c.Bot {
			bots++
		}
	}
	if bots == 0 || bots > len(n.Clicks)/10 {
		t.Errorf("%d bots of %d clicks", bots, len(n.Clicks))
	}
}

package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// offerDataset is the tracking network (trackingDataset) with dated
// coupons and promotions, imported on 2024-01-01; now is trackingNow
// (2024-06-15T12:00).
//
//	coupons 1 ANN10 (affiliate 1's), 2 SALE (public, ends 2024-12-31), 3 GUS (affiliate 7's)
//	coupon 4 of merchant 1, public, ended 2024-06-14; coupon 5 of merchant 4 (Suspended)
//	promotions 1 public, ends today; 2 affiliate 7's; 3 ended yesterday; 4 created tomorrow;
//	5 of merchant 2; 6 of merchant 4 (Suspended)
//	coupon 6 and promotion 7 of merchant 3 (no program), coupon 7 and promotion 8 of
//	merchant 6 (no TargetUrl), promotion 9 of merchant 7 (no Commission): not launched
func offerDataset(t testing.TB) *afftrack.Dataset {
	d := trackingDataset(t)
	some := func(s string) afftrack.Null[time.Time] { return afftrack.Some(dt(t, s)) }
	d.Coupons = append(d.Coupons,
		afftrack.Coupon{ID: 4, MerchantID: 1, Code: "OLD", Description: "Gone", EndDate: some("2024-06-14T23:59:00")},
		afftrack.Coupon{ID: 5, MerchantID: 4, Code: "FOUR", Description: "Suspended shop's"},
		afftrack.Coupon{ID: 6, MerchantID: 3, Code: "THREE", Description: "No program's"},
		afftrack.Coupon{ID: 7, MerchantID: 6, Code: "SIX", Description: "No landing's"},
	)
	d.Coupons[1].TargetURL = "https://deals.example/sale"
	d.Coupons[1].TermsAndConditions = "One per order."
	d.Promotions = []afftrack.Promotion{
		{ID: 1, MerchantID: 1, Description: "Ends today", EndDate: some("2024-06-15"),
			TargetURL: "https://promo.example/today", DateCreated: some("2024-02-01T10:00:00"),
			DateModified: some("2024-02-02T10:00:00"), StartDate: some("2024-02-01")},
		{ID: 2, MerchantID: 1, Description: "Gus only", AffiliateID: afftrack.Some[int64](7)},
		{ID: 3, MerchantID: 1, Description: "Ended yesterday", EndDate: some("2024-06-14")},
		{ID: 4, MerchantID: 1, Description: "Not yet", DateCreated: some("2024-06-16")},
		{ID: 5, MerchantID: 2, Description: "Shop two's"},
		{ID: 6, MerchantID: 4, Description: "Suspended shop's"},
		{ID: 7, MerchantID: 3, Description: "No program's"},
		{ID: 8, MerchantID: 6, Description: "No landing's"},
		{ID: 9, MerchantID: 7, Description: "No terms'"},
	}
	return d
}

func offerIDs(t *testing.T, list []*afftrack.Offer, err error) []int64 {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{}
	for _, o := range list {
		ids = append(ids, o.ID)
	}
	return ids
}

func TestFindAffiliateOffers(t *testing.T) {
	ctx := context.Background()
	now := dt(t, trackingNow)
	tests := []struct {
		name string
		kind afftrack.OfferKind
		f    afftrack.AffiliateOfferFilter
		want []int64
	}{
		{"an affiliate sees its Joined, launched merchants' public coupons and its own", afftrack.OfferCoupon,
			afftrack.AffiliateOfferFilter{AffiliateID: 1}, []int64{1, 2}},
		{"another affiliate's assigned coupon is its own only", afftrack.OfferCoupon,
			afftrack.AffiliateOfferFilter{AffiliateID: 7}, []int64{2, 3}},
		{"a Pending membership sees none", afftrack.OfferCoupon, afftrack.AffiliateOfferFilter{AffiliateID: 3}, []int64{}},
		{"no membership sees none", afftrack.OfferCoupon, afftrack.AffiliateOfferFilter{AffiliateID: 2}, []int64{}},
		{"promotions: through EndDate's day, from creation, of Active, launched merchants", afftrack.OfferPromotion,
			afftrack.AffiliateOfferFilter{AffiliateID: 1}, []int64{1, 5}},
		{"merchantId of a merchant not launched", afftrack.OfferCoupon,
			afftrack.AffiliateOfferFilter{AffiliateID: 1, MerchantID: afftrack.Some[int64](6)}, []int64{}},
		{"promotions of affiliate 7", afftrack.OfferPromotion, afftrack.AffiliateOfferFilter{AffiliateID: 7}, []int64{1, 2}},
		{"merchantId", afftrack.OfferPromotion,
			afftrack.AffiliateOfferFilter{AffiliateID: 1, MerchantID: afftrack.Some[int64](2)}, []int64{5}},
		{"merchantName ignores case", afftrack.OfferPromotion,
			afftrack.AffiliateOfferFilter{AffiliateID: 1, MerchantName: afftrack.Some("SHOP ONE")}, []int64{1}},
		{"merchantName matches whole names only", afftrack.OfferCoupon,
			afftrack.AffiliateOfferFilter{AffiliateID: 1, MerchantName: afftrack.Some("Shop")}, []int64{}},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		mustImportAt(t, db, "2024-01-01T00:00:00", offerDataset(t))
		s := sqlstore.NewOfferService(db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tt.f.Now = now
				got, err := s.FindAffiliateOffers(ctx, tt.kind, tt.f)
				if diff := cmp.Diff(tt.want, offerIDs(t, got, err)); diff != "" {
					t.Errorf("ids (-want +got):\n%s", diff)
				}
			})
		}
		t.Run("the fields of the affiliate's view", func(t *testing.T) {
			got, err := s.FindAffiliateOffers(ctx, afftrack.OfferCoupon, afftrack.AffiliateOfferFilter{AffiliateID: 1, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			want := &afftrack.Offer{Kind: afftrack.OfferCoupon, ID: 2, DateCreated: dt(t, "2024-01-01"),
				DateModified: dt(t, "2024-01-01"), MerchantID: 1, MerchantName: "Shop One",
				MerchantAvatarURL: "https://img.example/m1.png", Description: "Everyone saves 5%", Code: "SALE",
				TargetURL: "https://deals.example/sale", TermsAndConditions: "One per order.",
				StartDate: afftrack.Some(dt(t, "2024-01-01")), EndDate: afftrack.Some(dt(t, "2024-12-31"))}
			if diff := cmp.Diff(want, got[1]); diff != "" {
				t.Errorf("coupon 2 (-want +got):\n%s", diff)
			}
			if got[0].TargetURL != trackingProgram1().TargetURL {
				t.Errorf("coupon 1 TargetUrl %q, want the program's", got[0].TargetURL)
			}
		})
		t.Run("by id", func(t *testing.T) {
			o, err := s.FindAffiliateOffer(ctx, afftrack.OfferPromotion, 7, 2, now)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"shop.one.example", "shop.one.example", "shop.one.example", "cdn.shop.one.example", "one.example"}
			if o.ID != 2 || o.AffiliateID != afftrack.Some[int64](7) || !cmp.Equal(want, o.AllowedHosts) {
				t.Errorf("promotion %d of %v, hosts %q; want 2 of 7, %q", o.ID, o.AffiliateID, o.AllowedHosts, want)
			}
			for _, c := range []struct{ aff, id int64 }{{1, 2}, {1, 3}, {1, 4}, {1, 6}, {1, 7}, {1, 8}, {1, 9}, {1, 99}, {3, 1}} {
				_, err := s.FindAffiliateOffer(ctx, afftrack.OfferPromotion, c.aff, c.id, now)
				wantCode(t, err, afftrack.ENOTFOUND)
			}
			for _, id := range []int64{6, 7} { // not launched
				_, err := s.FindAffiliateOffer(ctx, afftrack.OfferCoupon, 1, id, now)
				wantCode(t, err, afftrack.ENOTFOUND)
			}
		})
	})
}

func TestFindMerchantOffers(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		kind afftrack.OfferKind
		f    afftrack.MerchantOfferFilter
		want []int64
	}{
		{"a merchant sees its own coupons, any dates", afftrack.OfferCoupon, afftrack.MerchantOfferFilter{MerchantID: 1}, []int64{1, 2, 3, 4}},
		{"and its own promotions", afftrack.OfferPromotion, afftrack.MerchantOfferFilter{MerchantID: 1}, []int64{1, 2, 3, 4}},
		{"another merchant's own", afftrack.OfferPromotion, afftrack.MerchantOfferFilter{MerchantID: 2}, []int64{5}},
		{"affiliateId matches the assigned affiliate", afftrack.OfferCoupon,
			afftrack.MerchantOfferFilter{MerchantID: 1, AffiliateID: afftrack.Some[int64](7)}, []int64{3}},
		{"affiliateContactName ignores case, never a public one", afftrack.OfferCoupon,
			afftrack.MerchantOfferFilter{MerchantID: 1, AffiliateContactName: afftrack.Some("ann lee")}, []int64{1}},
		{"affiliateBusinessName", afftrack.OfferPromotion,
			afftrack.MerchantOfferFilter{MerchantID: 1, AffiliateBusinessName: afftrack.Some("YIP COUPONS")}, []int64{2}},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		mustImportAt(t, db, "2024-01-01T00:00:00", offerDataset(t))
		s := sqlstore.NewOfferService(db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.FindMerchantOffers(ctx, tt.kind, tt.f)
				if diff := cmp.Diff(tt.want, offerIDs(t, got, err)); diff != "" {
					t.Errorf("ids (-want +got):\n%s", diff)
				}
			})
		}
		t.Run("the assigned affiliate's names", func(t *testing.T) {
			got, err := s.FindMerchantOffers(ctx, afftrack.OfferCoupon, afftrack.MerchantOfferFilter{MerchantID: 1})
			if err != nil {
				t.Fatal(err)
			}
			if o := got[0]; o.AffiliateContactName != afftrack.Some("Ann Lee") || o.AffiliateBusinessName != afftrack.Some("Lee Media") {
				t.Errorf("coupon 1: %v %v", o.AffiliateContactName, o.AffiliateBusinessName)
			}
			if o := got[1]; o.AffiliateID.Valid || o.AffiliateContactName.Valid || o.AffiliateBusinessName.Valid {
				t.Errorf("public coupon 2 has an affiliate: %v %v %v", o.AffiliateID, o.AffiliateContactName, o.AffiliateBusinessName)
			}
		})
	})
}

func TestFindOfferLink(t *testing.T) {
	p1 := programWithBannerHosts(trackingProgram1(), "shop.one.example")
	key := func(kind afftrack.LinkKind, aff, id int64) afftrack.LinkKey {
		return afftrack.LinkKey{AffiliateID: aff, Kind: kind, TargetID: id}
	}
	link := func(merchant int64, target string, p afftrack.Program, eligible bool, tt afftrack.TrafficType) *afftrack.Link {
		return &afftrack.Link{MerchantID: merchant, TargetURL: target, Program: p, Eligible: eligible, TrafficType: tt}
	}
	tests := []struct {
		name string
		key  afftrack.LinkKey
		want *afftrack.Link // nil: ENOTFOUND
	}{
		{"a public coupon credits a Joined affiliate and lands on its TargetUrl", key(afftrack.LinkCoupon, 1, 2),
			link(1, "https://deals.example/sale", p1, true, afftrack.TrafficTypeEmailList)},
		{"a coupon without a TargetUrl lands on the program's", key(afftrack.LinkCoupon, 1, 1),
			link(1, p1.TargetURL, p1, true, afftrack.TrafficTypeEmailList)},
		{"another affiliate's coupon does not credit", key(afftrack.LinkCoupon, 1, 3),
			link(1, p1.TargetURL, p1, false, afftrack.TrafficTypeEmailList)},
		{"its own assigned coupon credits", key(afftrack.LinkCoupon, 7, 3),
			link(1, p1.TargetURL, p1, true, afftrack.TrafficTypeSearch)},
		{"dates never stop a click", key(afftrack.LinkCoupon, 1, 4),
			link(1, p1.TargetURL, p1, true, afftrack.TrafficTypeEmailList)},
		{"a promotion", key(afftrack.LinkPromotion, 1, 1),
			link(1, "https://promo.example/today", p1, true, afftrack.TrafficTypeEmailList)},
		{"another affiliate's promotion does not credit", key(afftrack.LinkPromotion, 1, 2),
			link(1, p1.TargetURL, p1, false, afftrack.TrafficTypeEmailList)},
		{"a Pending membership does not credit", key(afftrack.LinkPromotion, 3, 1),
			link(1, "https://promo.example/today", p1, false, afftrack.TrafficTypeWebsite)},
		{"a promotion of merchant 2", key(afftrack.LinkPromotion, 1, 5),
			link(2, "https://two.example/", programWithBannerHosts(trackingProgram(2, "https://two.example/"), "two.example"),
				true, afftrack.TrafficTypeWebsite)},
		{"a Suspended merchant's coupon is not found", key(afftrack.LinkCoupon, 1, 5), nil},
		{"a Suspended merchant's promotion is not found", key(afftrack.LinkPromotion, 1, 6), nil},
		{"an unknown coupon", key(afftrack.LinkCoupon, 1, 99), nil},
		{"an unknown affiliate", key(afftrack.LinkPromotion, 99, 1), nil},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		mustImportAt(t, db, "2024-01-01T00:00:00", offerDataset(t))
		s := sqlstore.NewClickService(db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.FindLink(context.Background(), tt.key)
				if tt.want == nil {
					wantCode(t, err, afftrack.ENOTFOUND)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("link (-want +got):\n%s", diff)
				}
			})
		}
	})
}

// TestConversionOfOfferClicks: a conversion credited by a coupon's or a
// promotion's click records the creative as the click names it, and a
// banner's name never stands in for another creative of the same id.
func TestConversionOfOfferClicks(t *testing.T) {
	ctx := context.Background()
	now := dt(t, trackingNow)
	click := func(n int, ct afftrack.CreativeType, id int64) afftrack.Click {
		return afftrack.Click{ID: testClickID(n), Time: now.Add(-time.Hour), MerchantID: 1, AffiliateID: 1,
			CreativeType: ct, CreativeID: afftrack.Some(id), Credited: true}
	}
	tests := []struct {
		name  string
		click afftrack.Click
		want  afftrack.Null[string]
	}{
		{"a coupon click records the coupon's Code", click(101, afftrack.CreativeTypeCoupon, 2), afftrack.Some("SALE")},
		{"a promotion click records the promotion's Description", click(102, afftrack.CreativeTypePromotion, 1),
			afftrack.Some("Ends today")},
		{"a banner click records the banner's Name", click(103, afftrack.CreativeTypeBanner, 11), afftrack.Some("Spring Banner")},
		{"a coupon id that is also a banner's is the coupon's", click(104, afftrack.CreativeTypeCoupon, 1), afftrack.Some("ANN10")},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := offerDataset(t)
		// Banner 1 of merchant 2, so ids collide with coupon 1.
		b := d.Banners[2]
		b.ID, b.Name = 1, "Colliding Banner"
		d.Banners = append(d.Banners, b)
		mustImportAt(t, db, "2024-01-01T00:00:00", d)
		clicks := []afftrack.Click{}
		for _, tt := range tests {
			clicks = append(clicks, tt.click)
		}
		if err := sqlstore.NewClickService(db).WriteClicks(ctx, clicks); err != nil {
			t.Fatal(err)
		}
		s := sqlstore.NewConversionService(db, "AUD", trackingClock(t))
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c := afftrack.Conversion{MerchantID: 1, OrderID: "OFFER-" + tt.click.ID, SaleValue: 100000,
					CurrencyCode: "AUD", CustomerType: afftrack.CustomerTypeNew, ClickID: tt.click.ID}
				got, _, err := s.RecordConversion(ctx, &c)
				if err != nil {
					t.Fatal(err)
				}
				if got.CreativeType != tt.click.CreativeType || got.CreativeID != tt.click.CreativeID ||
					got.CreativeName != tt.want || got.TrackingMethod != afftrack.TrackingMethodServer {
					t.Errorf("credit %d: %v %v %v %v; want %v %v %v Server", i, got.CreativeType, got.CreativeID,
						got.CreativeName, got.TrackingMethod, tt.click.CreativeType, tt.click.CreativeID, tt.want)
				}
			})
		}
	})
}

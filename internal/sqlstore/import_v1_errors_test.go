package sqlstore_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

func TestImportV1SurfaceErrors(t *testing.T) {
	num := afftrack.Some[int64]
	tests := []struct {
		name    string
		edit    func(d *afftrack.Dataset)
		message string
	}{
		{"a claimed merchant name that differs", func(d *afftrack.Dataset) {
			d.Transactions[0].ClaimedMerchantName = afftrack.Some("shop one")
		}, `Transactions[0].MerchantName: "shop one" does not match the merchant's name "Shop One"`},
		{"a claimed merchant avatar that differs", func(d *afftrack.Dataset) {
			d.Transactions[0].ClaimedMerchantAvatarURL = afftrack.Some("")
		}, `Transactions[0].MerchantAvatarUrl: "" does not match the merchant's avatar URL "https://img.example/1.png"`},
		{"a banner group's unknown merchant", func(d *afftrack.Dataset) { d.BannerGroups[0].MerchantID = 9 },
			"BannerGroups[0].MerchantId: merchant 9 does not exist"},
		{"a banner group's name that another group of the merchant has", func(d *afftrack.Dataset) {
			d.BannerGroups = append(d.BannerGroups, afftrack.BannerGroup{ID: 20, MerchantID: 1, Name: "Spring",
				TargetURL: "https://one.example/"})
		}, `BannerGroups[1].Name: "Spring" is already the name of banner group 10 of merchant 1`},
		{"a banner's unknown group", func(d *afftrack.Dataset) { d.Banners[0].BannerGroupID = num(99) },
			"Banners[0].BannerGroupId: banner group 99 does not exist"},
		{"a banner's group of another merchant", func(d *afftrack.Dataset) { d.Banners[3].BannerGroupID = num(10) },
			"Banners[3].BannerGroupId: banner group 10 is merchant 1's, not merchant 2's"},
		{"a banner's GroupName that its BannerGroupId's name is not", func(d *afftrack.Dataset) {
			d.Banners[1].GroupName = "spring"
		}, `Banners[1].GroupName: "spring" does not match the name of banner group 10, "Spring"`},
		{"a banner without a TargetUrl whose group the import makes and whose merchant has no program", func(d *afftrack.Dataset) {
			d.Banners[3].MerchantID, d.Banners[3].GroupName = 3, "Winter"
		}, `Banners[3].TargetUrl: is required: merchant 3 has no banner group named "Winter" and no program TargetUrl for the group the import makes`},
		{"two default banners of one merchant and size in the file", func(d *afftrack.Dataset) {
			d.Banners[1].DefaultForSize = true
		}, "Banners[1].DefaultForSize: banner 1 (Banners[0]) is also merchant 1's default banner of size Full Banner; a merchant has one per size"},
		{"two coupons of a merchant whose codes differ only in case", func(d *afftrack.Dataset) {
			d.Coupons = append(d.Coupons, afftrack.Coupon{ID: 3, MerchantID: 1, Code: "one"})
		}, `Coupons[2].Code: "one" is also the code of coupon 1 (Coupons[0]) of merchant 1; a merchant's coupon codes differ in more than case`},
		{"a promotion's unknown merchant", func(d *afftrack.Dataset) { d.Promotions[1].MerchantID = 9 },
			"Promotions[1].MerchantId: merchant 9 does not exist"},
		{"a promotion's unknown affiliate", func(d *afftrack.Dataset) { d.Promotions[0].AffiliateID = num(9) },
			"Promotions[0].AffiliateId: affiliate 9 does not exist"},
		{"a click's unknown merchant", func(d *afftrack.Dataset) { d.Clicks[1].MerchantID = 9 },
			"Clicks[1].MerchantId: merchant 9 does not exist"},
		{"a click's unknown affiliate", func(d *afftrack.Dataset) { d.Clicks[2].AffiliateID = 9 },
			"Clicks[2].AffiliateId: affiliate 9 does not exist"},
		{"a click's unknown banner", func(d *afftrack.Dataset) { d.Clicks[0].CreativeID = num(99) },
			"Clicks[0].CreativeId: banner 99 does not exist"},
		{"a click's banner of another merchant", func(d *afftrack.Dataset) { d.Clicks[0].CreativeID = num(4) },
			"Clicks[0].CreativeId: banner 4 is merchant 2's, not merchant 1's"},
		{"a click's coupon of another merchant", func(d *afftrack.Dataset) { d.Clicks[2].CreativeID = num(2) },
			"Clicks[2].CreativeId: coupon 2 is merchant 2's, not merchant 1's"},
		{"a click's unknown promotion", func(d *afftrack.Dataset) { d.Clicks[4].CreativeID = num(9) },
			"Clicks[4].CreativeId: promotion 9 does not exist"},
	}
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		for _, tt := range tests {
			t.Run(tt.name+" is refused and nothing is written", func(t *testing.T) {
				d := v1Dataset(t)
				tt.edit(d)
				_, err := importAt(t, db, v1Now, d)
				wantError(t, err, afftrack.EINVALID, tt.message)
				for _, table := range []string{"merchants", "banner_groups", "membership_traffic_sources", "promotions", "clicks"} {
					if n := countRows(t, db, table); n != 0 {
						t.Errorf("%s holds %d rows after a failed import", table, n)
					}
				}
			})
		}
	})
}

func TestImportBannerGroupsAndDefaults(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		mustImportAt(t, db, v1Now, v1Dataset(t))
		banner := func(id int64, def bool) afftrack.Banner {
			b := v1Dataset(t).Banners[id-1]
			b.DefaultForSize = def
			return b
		}
		t.Run("a file moves a default in any order", func(t *testing.T) {
			mustImportAt(t, db, v1Later, &afftrack.Dataset{Banners: []afftrack.Banner{banner(2, true), banner(1, false)}})
		})
		t.Run("a second default of a size is refused, naming the stored one", func(t *testing.T) {
			_, err := importAt(t, db, v1Later, &afftrack.Dataset{Banners: []afftrack.Banner{banner(3, false), banner(1, true)}})
			wantError(t, err, afftrack.EINVALID,
				"Banners[1].DefaultForSize: banner 2 is also merchant 1's default banner of size Full Banner; a merchant has one per size")
		})
		t.Run("a default of another size is another default", func(t *testing.T) {
			mustImportAt(t, db, v1Later, &afftrack.Dataset{Banners: []afftrack.Banner{banner(3, true)}})
		})
		t.Run("a renamed group renames its banners' GroupName", func(t *testing.T) {
			mustImportAt(t, db, v1Later, &afftrack.Dataset{BannerGroups: []afftrack.BannerGroup{{ID: 10, MerchantID: 1,
				Name: "Summer", TargetURL: "https://one.example/summer"}}})
			got, err := sqlstore.NewBannerService(db).FindBanners(ctx, afftrack.BannerFilter{AffiliateID: 1})
			if err != nil {
				t.Fatal(err)
			}
			names := map[int64]string{}
			for _, b := range got {
				names[b.ID] = b.GroupName
			}
			if diff := cmp.Diff(map[int64]string{1: "Summer", 2: "Summer", 3: "Autumn"}, names); diff != "" {
				t.Errorf("GroupName by banner (-want +got):\n%s", diff)
			}
			// GroupName finds the renamed group, not a new one.
			b := banner(2, true)
			b.BannerGroupID, b.GroupName = afftrack.Null[int64]{}, "Summer"
			if sum := mustImportAt(t, db, v1Later, &afftrack.Dataset{Banners: []afftrack.Banner{b}}); sum.NewBannerGroups != 0 {
				t.Errorf("made %d groups for an existing name", sum.NewBannerGroups)
			}
		})
		t.Run("a group with banners does not move to another merchant", func(t *testing.T) {
			_, err := importAt(t, db, v1Later, &afftrack.Dataset{BannerGroups: []afftrack.BannerGroup{{ID: 10, MerchantID: 2,
				Name: "Summer", TargetURL: "https://two.example/"}}})
			wantError(t, err, afftrack.EINVALID, "BannerGroups[0].MerchantId: banner group 10 holds banners of merchant 1")
		})
		t.Run("a banner given again does not move to another merchant", func(t *testing.T) {
			b := banner(2, true)
			b.MerchantID, b.BannerGroupID, b.GroupName = 2, afftrack.Null[int64]{}, "Elsewhere"
			_, err := importAt(t, db, v1Later, &afftrack.Dataset{Banners: []afftrack.Banner{b}})
			wantError(t, err, afftrack.EINVALID, "Banners[0].MerchantId: banner 2 is merchant 1's; a banner keeps its merchant")
		})
		t.Run("a group a banner makes takes the id after the largest", func(t *testing.T) {
			mustImportAt(t, db, v1Later, &afftrack.Dataset{BannerGroups: []afftrack.BannerGroup{{ID: 40, MerchantID: 2,
				Name: "Big", TargetURL: "https://two.example/"}}})
			b := banner(4, false)
			b.ID, b.GroupName = 5, "New"
			mustImportAt(t, db, v1Later, &afftrack.Dataset{Banners: []afftrack.Banner{b}})
			var id int64
			scanRow(t, db, `SELECT group_id FROM banners WHERE id = 5`, nil, &id)
			if id != 41 {
				t.Errorf("the new group's id = %d, want 41", id)
			}
		})
	})
}

func TestImportCouponCodes(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		mustImportAt(t, db, v1Now, v1Dataset(t))
		coupon := func(id, merchantID int64, code string) afftrack.Coupon {
			return afftrack.Coupon{ID: id, MerchantID: merchantID, Code: code, TargetURL: "https://one.example/"}
		}
		t.Run("a code of a stored coupon is refused, naming it", func(t *testing.T) {
			_, err := importAt(t, db, v1Later, &afftrack.Dataset{Coupons: []afftrack.Coupon{coupon(3, 1, "One")}})
			wantError(t, err, afftrack.EINVALID,
				`Coupons[0].Code: "One" is also the code of coupon 1 of merchant 1; a merchant's coupon codes differ in more than case`)
		})
		t.Run("another merchant may use the same code", func(t *testing.T) {
			mustImportAt(t, db, v1Later, &afftrack.Dataset{Coupons: []afftrack.Coupon{coupon(3, 2, "one")}})
		})
		t.Run("a file may swap two coupons' codes", func(t *testing.T) {
			mustImportAt(t, db, v1Later, &afftrack.Dataset{Coupons: []afftrack.Coupon{coupon(2, 2, "ONE"), coupon(3, 2, "two")}})
		})
		t.Run("a coupon given again keeps its own code", func(t *testing.T) {
			mustImportAt(t, db, v1Later, &afftrack.Dataset{Coupons: []afftrack.Coupon{coupon(1, 1, "one")}})
		})
	})
}

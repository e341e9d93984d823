package sqlstore_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

func TestFindBanners(t *testing.T) {
	str := afftrack.Some[string]
	num := afftrack.Some[int64]
	tests := []struct {
		name string
		f    afftrack.BannerFilter
		want []int64
	}{
		{"an affiliate sees the banners of the merchants it joined, by id",
			afftrack.BannerFilter{AffiliateID: 1}, []int64{11, 12, 13}},
		{"an invited or pending membership shows nothing",
			afftrack.BannerFilter{AffiliateID: 2}, []int64{21}},
		{"an affiliate without memberships sees nothing",
			afftrack.BannerFilter{AffiliateID: 3}, []int64{}},
		{"merchantId of a joined merchant", afftrack.BannerFilter{AffiliateID: 1, MerchantID: num(1)}, []int64{11, 12, 13}},
		{"merchantId of a merchant not joined", afftrack.BannerFilter{AffiliateID: 1, MerchantID: num(2)}, []int64{}},
		{"merchantName ignores case", afftrack.BannerFilter{AffiliateID: 1, MerchantName: str("example PTY ltd")}, []int64{11, 12, 13}},
		{"merchantName does not match part of the name", afftrack.BannerFilter{AffiliateID: 1, MerchantName: str("Example")}, []int64{}},
		{"groupName ignores case", afftrack.BannerFilter{AffiliateID: 1, GroupName: str("spring")}, []int64{11, 12}},
		{"size matches the standard name", afftrack.BannerFilter{AffiliateID: 1, Size: str("full banner")}, []int64{11}},
		{"size matches the derived WxH", afftrack.BannerFilter{AffiliateID: 1, Size: str("300x100")}, []int64{13}},
		{"size as WxH does not match a named size", afftrack.BannerFilter{AffiliateID: 1, Size: str("468x60")}, []int64{}},
		{"width", afftrack.BannerFilter{AffiliateID: 1, Width: num(728)}, []int64{12}},
		{"height", afftrack.BannerFilter{AffiliateID: 1, Height: num(60)}, []int64{11}},
		{"filters combine with AND", afftrack.BannerFilter{AffiliateID: 1, GroupName: str("Spring"), Height: num(90)}, []int64{12}},
	}
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		loaded(t, db) // the contract's fixture: no programs
		s := sqlstore.NewBannerService(db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if diff := cmp.Diff(tt.want, bannerIDs(t, s, tt.f)); diff != "" {
					t.Errorf("ids (-want +got):\n%s", diff)
				}
			})
		}
		t.Run("a banner carries its merchant's name and avatar", func(t *testing.T) {
			got, err := s.FindBanners(context.Background(), afftrack.BannerFilter{AffiliateID: 2})
			if err != nil {
				t.Fatal(err)
			}
			want := []*afftrack.Banner{{ID: 21, MerchantID: 2, MerchantName: "Other Shop",
				MerchantAvatarURL: "https://img.example/m2.png", DateCreated: dt(t, "2024-01-02T03:04:05.006"),
				DateModified: dt(t, "2024-01-03T00:00:00"), GroupName: "Spring", Name: "Banner 21",
				TargetURL: "https://shop.example/", Width: 468, Height: 60,
				ImageURL: "https://img.example/21.png", AltText: "Shop <now>"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("banners (-want +got):\n%s", diff)
			}
		})
	})
}

// bannerIDs returns the ids of the banners s finds for f, in order.
func bannerIDs(t *testing.T, s *sqlstore.BannerService, f afftrack.BannerFilter) []int64 {
	t.Helper()
	got, err := s.FindBanners(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{}
	for _, b := range got {
		ids = append(ids, b.ID)
	}
	return ids
}

// TestFindBannersWhateverTheProgram: contract.md §9 shows the banners of
// every Active merchant the affiliate has joined, and its import file
// has no programs: whether a merchant's program is launched hides none.
func TestFindBannersWhateverTheProgram(t *testing.T) {
	// Affiliate 1 has joined every merchant of the catalog network.
	tests := []struct {
		name string
		f    afftrack.BannerFilter
		want []int64
	}{
		{"every Active merchant's are seen, an expired group's and a Suspended merchant's not",
			afftrack.BannerFilter{AffiliateID: 1}, []int64{11, 12, 21, 31, 61, 71}},
		{"a merchant's without a program are seen", afftrack.BannerFilter{AffiliateID: 1, MerchantID: afftrack.Some[int64](3)}, []int64{31}},
		{"a program's without a TargetUrl are seen", afftrack.BannerFilter{AffiliateID: 1, MerchantID: afftrack.Some[int64](6)}, []int64{61}},
		{"a program's without a Commission are seen", afftrack.BannerFilter{AffiliateID: 1, MerchantID: afftrack.Some[int64](7)}, []int64{71}},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		mustImportAt(t, db, "2024-01-01T00:00:00", catalogDataset(t))
		s := sqlstore.NewBannerService(db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tt.f.Now = dt(t, trackingNow)
				if diff := cmp.Diff(tt.want, bannerIDs(t, s, tt.f)); diff != "" {
					t.Errorf("ids (-want +got):\n%s", diff)
				}
			})
		}
	})
}

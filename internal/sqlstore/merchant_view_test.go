package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

const merchantViewNow = "2024-07-01T10:00:00"

// merchantViewDataset: merchants 1 and 2; affiliates 1 (Joined, three
// sources), 2 (Invited, no sources, Social Media Page), 3 (Pending,
// Suspended, Search), 4 (Not Joined), 5 (merchant 2's only); banner
// groups 1, 2 (expired) of merchant 1 and 3 of merchant 2; banners 11,
// 12 (group 1), 13 (group 2, default), 21 (group 3).
func merchantViewDataset(t testing.TB) *afftrack.Dataset {
	some := func(s string) afftrack.Null[time.Time] { return afftrack.Some(dt(t, s)) }
	aff := func(id int64, contact, business string, s afftrack.AccountStatus) afftrack.AffiliateRecord {
		return afftrack.AffiliateRecord{Affiliate: afftrack.Affiliate{ID: id, ContactName: contact, BusinessName: business,
			Status: s}, DateCreated: some("2024-01-0" + string(rune('0'+id)) + "T09:00:00"),
			DateModified: some("2024-02-01T00:00:00")}
	}
	banner := func(id, m, group int64, name string, w, h int64) afftrack.Banner {
		return afftrack.Banner{ID: id, MerchantID: m, BannerGroupID: afftrack.Some(group), Name: name,
			DateCreated: dt(t, "2024-03-01T00:00:00"), DateModified: dt(t, "2024-03-02T00:00:00"),
			Width: w, Height: h, ImageURL: "https://img.example/" + name + ".png", AltText: name}
	}
	return &afftrack.Dataset{
		Merchants: []afftrack.MerchantRecord{
			{Merchant: afftrack.Merchant{ID: 1, Name: "Shop One", AvatarURL: "https://img.example/1.png", Status: afftrack.AccountActive}},
			{Merchant: afftrack.Merchant{ID: 2, Name: "Shop Two", AvatarURL: "https://img.example/2.png", Status: afftrack.AccountActive}},
		},
		Affiliates: []afftrack.AffiliateRecord{
			aff(1, "Ann Lee", "Lee Media", afftrack.AccountActive),
			aff(2, "Bob Roe", "", afftrack.AccountActive),
			aff(3, "Cat Poe", "Poe Pages", afftrack.AccountSuspended),
			aff(4, "Dan Fox", "Fox Deals", afftrack.AccountActive),
			aff(5, "Eve Kim", "Kim Reviews", afftrack.AccountActive),
		},
		Memberships: []afftrack.Membership{
			{AffiliateID: 1, MerchantID: 1, Status: afftrack.MembershipJoined, TrafficType: afftrack.TrafficTypeWebsite,
				TrafficSource: "https://lee.example", DateApplied: some("2024-01-10T00:00:00"),
				DateApproved: some("2024-01-11T00:00:00"), DateModified: some("2024-03-01T00:00:00"),
				TrafficSources: []afftrack.TrafficSource{
					{Type: afftrack.TrafficTypeWebsite, Status: afftrack.TrafficSourceApproved,
						WebsiteURL: afftrack.Some("https://lee.example"), WebsiteWeeklyVisitors: afftrack.Some[int64](1200),
						WebsiteVerified: afftrack.Some(true), WebsiteDateCreated: some("2023-05-05T05:05:05")},
					{Type: afftrack.TrafficTypeEmailList, Status: afftrack.TrafficSourceDeclined,
						EmailListName: afftrack.Some("Lee Weekly"), EmailListSize: afftrack.Some[int64](500)},
					{Type: afftrack.TrafficTypeSocialMediaPage, Status: afftrack.TrafficSourcePending,
						SocialMediaPageURL:       afftrack.Some("https://social.example/lee"),
						SocialMediaPageFollowers: afftrack.Some[int64](9000)},
				}},
			{AffiliateID: 2, MerchantID: 1, Status: afftrack.MembershipInvited, TrafficType: afftrack.TrafficTypeSocialMediaPage,
				TrafficSource: "https://social.example/bob", TrafficSourceApproved: true,
				DateModified: some("2024-01-15T00:00:00")},
			{AffiliateID: 3, MerchantID: 1, Status: afftrack.MembershipPending, TrafficType: afftrack.TrafficTypeSearch,
				TrafficSource: "poe search", DateApplied: some("2024-01-20T00:00:00")},
			{AffiliateID: 4, MerchantID: 1, Status: afftrack.MembershipNotJoined, TrafficType: afftrack.TrafficTypeWebsite},
			{AffiliateID: 5, MerchantID: 2, Status: afftrack.MembershipJoined, TrafficType: afftrack.TrafficTypeWebsite},
		},
		BannerGroups: []afftrack.BannerGroup{
			{ID: 1, MerchantID: 1, Name: "Summer", TargetURL: "https://shop.one/summer",
				DateCreated: some("2024-02-01T00:00:00"), DateModified: some("2024-02-02T00:00:00")},
			{ID: 2, MerchantID: 1, Name: "Old", TargetURL: "https://shop.one/old", ExpiryDate: some("2024-03-31T00:00:00"),
				DateCreated: some("2024-02-01T00:00:00"), DateModified: some("2024-02-02T00:00:00")},
			{ID: 3, MerchantID: 2, Name: "Two", TargetURL: "https://shop.two/"},
		},
		Banners: []afftrack.Banner{
			banner(11, 1, 1, "Leader", 728, 90),
			banner(12, 1, 1, "Odd", 470, 61),
			func() afftrack.Banner { b := banner(13, 1, 2, "OldFull", 468, 60); b.DefaultForSize = true; return b }(),
			banner(21, 2, 3, "TwoFull", 468, 60),
		},
	}
}

func TestMerchantViewAffiliates(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		mustImportAt(t, db, merchantViewNow, merchantViewDataset(t))
		s := sqlstore.NewMerchantViewService(db)
		ids := func(f afftrack.MemberAffiliateFilter) []int64 {
			t.Helper()
			list, err := s.FindMemberAffiliates(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			ids := []int64{}
			for _, a := range list {
				if a.TrafficSources != nil {
					t.Errorf("affiliate %d: list has TrafficSources", a.ID)
				}
				ids = append(ids, a.ID)
			}
			return ids
		}
		for _, c := range []struct {
			name string
			f    afftrack.MemberAffiliateFilter
			want []int64
		}{
			{"Joined, Invited, Pending; any account status", afftrack.MemberAffiliateFilter{MerchantID: 1}, []int64{1, 2, 3}},
			{"Approved", afftrack.MemberAffiliateFilter{MerchantID: 1, Status: afftrack.AffiliateApproved}, []int64{1}},
			{"Invited", afftrack.MemberAffiliateFilter{MerchantID: 1, Status: afftrack.AffiliateInvited}, []int64{2}},
			{"Pending", afftrack.MemberAffiliateFilter{MerchantID: 1, Status: afftrack.AffiliatePending}, []int64{3}},
			{"another merchant's", afftrack.MemberAffiliateFilter{MerchantID: 2}, []int64{5}},
			{"none", afftrack.MemberAffiliateFilter{MerchantID: 3}, []int64{}},
		} {
			if got := ids(c.f); !cmp.Equal(got, c.want) {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
			}
		}

		a, err := s.FindMemberAffiliate(ctx, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := &afftrack.MemberAffiliate{ID: 1, DateCreated: dt(t, "2024-01-01T09:00:00"),
			DateModified: dt(t, "2024-03-01T00:00:00"), DateApplied: afftrack.Some(dt(t, "2024-01-10T00:00:00")),
			DateApproved: afftrack.Some(dt(t, "2024-01-11T00:00:00")), ContactName: "Ann Lee",
			BusinessName: afftrack.Some("Lee Media"), Status: afftrack.AffiliateApproved,
			TrafficSources: merchantViewDataset(t).Memberships[0].TrafficSources}
		if diff := cmp.Diff(want, a); diff != "" {
			t.Errorf("affiliate 1 (-want +got):\n%s", diff)
		}

		a, err = s.FindMemberAffiliate(ctx, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		want = &afftrack.MemberAffiliate{ID: 2, DateCreated: dt(t, "2024-01-02T09:00:00"),
			DateModified: dt(t, "2024-02-01T00:00:00"), ContactName: "Bob Roe", Status: afftrack.AffiliateInvited,
			TrafficSources: []afftrack.TrafficSource{{Type: afftrack.TrafficTypeSocialMediaPage,
				Status: afftrack.TrafficSourceApproved, SocialMediaPageURL: afftrack.Some("https://social.example/bob")}}}
		if diff := cmp.Diff(want, a); diff != "" {
			t.Errorf("affiliate 2, Invited, its own traffic (-want +got):\n%s", diff)
		}

		a, err = s.FindMemberAffiliate(ctx, 1, 3)
		if err != nil {
			t.Fatal(err)
		}
		if a.DateApproved.Valid || !a.DateApplied.Valid || a.Status != afftrack.AffiliatePending ||
			!cmp.Equal(a.TrafficSources, []afftrack.TrafficSource{{Type: afftrack.TrafficTypeSearch,
				Status: afftrack.TrafficSourcePending}}) {
			t.Errorf("affiliate 3, Pending: %+v", a)
		}

		for _, c := range [][2]int64{{1, 4}, {1, 5}, {2, 1}, {1, 99}} {
			if _, err := s.FindMemberAffiliate(ctx, c[0], c[1]); afftrack.ErrorCode(err) != afftrack.ENOTFOUND {
				t.Errorf("merchant %d, affiliate %d: err = %v, want ENOTFOUND", c[0], c[1], err)
			}
		}
	})
}

func TestMerchantViewBanners(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		mustImportAt(t, db, merchantViewNow, merchantViewDataset(t))
		s := sqlstore.NewMerchantViewService(db)
		for _, c := range []struct {
			name string
			f    afftrack.MerchantBannerFilter
			want []int64
		}{
			{"its own, expired groups included", afftrack.MerchantBannerFilter{MerchantID: 1}, []int64{11, 12, 13}},
			{"bannerGroupId", afftrack.MerchantBannerFilter{MerchantID: 1, BannerGroupID: afftrack.Some[int64](2)}, []int64{13}},
			{"another merchant's group", afftrack.MerchantBannerFilter{MerchantID: 1, BannerGroupID: afftrack.Some[int64](3)}, []int64{}},
			{"bannerGroupName ignores case", afftrack.MerchantBannerFilter{MerchantID: 1, BannerGroupName: afftrack.Some("SUMMER")}, []int64{11, 12}},
			{"size by name", afftrack.MerchantBannerFilter{MerchantID: 1, Size: afftrack.Some("leaderboard")}, []int64{11}},
			{"size WxH", afftrack.MerchantBannerFilter{MerchantID: 1, Size: afftrack.Some("470x61")}, []int64{12}},
			{"width and height", afftrack.MerchantBannerFilter{MerchantID: 1, Width: afftrack.Some[int64](468), Height: afftrack.Some[int64](60)}, []int64{13}},
			{"defaultForSize true", afftrack.MerchantBannerFilter{MerchantID: 1, DefaultForSize: afftrack.Some(true)}, []int64{13}},
			{"defaultForSize false", afftrack.MerchantBannerFilter{MerchantID: 1, DefaultForSize: afftrack.Some(false)}, []int64{11, 12}},
			{"merchant 2", afftrack.MerchantBannerFilter{MerchantID: 2}, []int64{21}},
		} {
			list, err := s.FindMerchantBanners(ctx, c.f)
			if err != nil {
				t.Fatal(err)
			}
			got := []int64{}
			for _, b := range list {
				got = append(got, b.ID)
			}
			if !cmp.Equal(got, c.want) {
				t.Errorf("%s: got %v, want %v", c.name, got, c.want)
			}
		}
		b, err := s.FindMerchantBanner(ctx, 1, 13)
		if err != nil {
			t.Fatal(err)
		}
		if b.BannerGroupID != afftrack.Some[int64](2) || b.GroupName != "Old" || b.GroupTargetURL != "https://shop.one/old" ||
			!b.DefaultForSize || b.Size() != "Full Banner" || !b.DateCreated.Equal(dt(t, "2024-03-01T00:00:00")) {
			t.Errorf("banner 13: %+v", b)
		}
		if _, err := s.FindMerchantBanner(ctx, 1, 21); afftrack.ErrorCode(err) != afftrack.ENOTFOUND {
			t.Errorf("another merchant's banner: err = %v", err)
		}

		groups, err := s.FindBannerGroups(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(groups) != 2 || groups[0].ID != 1 || groups[1].ID != 2 {
			t.Fatalf("groups: %+v", groups)
		}
		g := groups[1]
		if g.Name != "Old" || g.TargetURL != "https://shop.one/old" || g.ExpiryDate != afftrack.Some(dt(t, "2024-03-31T00:00:00")) ||
			g.DateCreated != afftrack.Some(dt(t, "2024-02-01T00:00:00")) || g.MerchantID != 1 {
			t.Errorf("group 2: %+v", g)
		}
		g, err = s.FindBannerGroup(ctx, 2, 3)
		if err != nil || g.ExpiryDate.Valid || g.DateCreated != afftrack.Some(dt(t, merchantViewNow)) {
			t.Errorf("group 3: %+v, %v", g, err)
		}
		if _, err := s.FindBannerGroup(ctx, 1, 3); afftrack.ErrorCode(err) != afftrack.ENOTFOUND {
			t.Errorf("another merchant's group: err = %v", err)
		}
	})
}

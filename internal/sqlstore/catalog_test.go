package sqlstore_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// catalogDataset is the tracking network (trackingDataset) with every
// program Listed, and:
//
//	merchant 8 "Hidden", launched but unlisted; affiliate 3 is Invited to it
//	merchant 9 "Shoe Shop", Dollar per Sale, categories Fashion / Shoes and Sports
//	banner 22 of merchant 2 in group 100, expired 2024-06-10
//	banner 71 of merchant 7 (no Commission), beside 31 (no program) and 61 (no TargetUrl)
func catalogDataset(t testing.TB) *afftrack.Dataset {
	d := trackingDataset(t)
	for i := range d.Programs {
		d.Programs[i].Listed = true
	}
	hidden := trackingProgram(8, "https://hidden.example/")
	shoes := trackingProgram(9, "https://shoes.example/")
	shoes.Listed = true
	shoes.Commission = afftrack.CommissionRule{Flat: flat(25000)}
	shoes.Rules = []afftrack.CommissionRule{{Category: afftrack.Some("Boots"), Flat: flat(40000)},
		{Category: afftrack.Some("Socks"), Percent: pct(0)}}
	d.Merchants = append(d.Merchants,
		afftrack.MerchantRecord{Merchant: afftrack.Merchant{ID: 8, Name: "Hidden", AvatarURL: "https://img.example/m8.png",
			Status: afftrack.AccountActive}},
		afftrack.MerchantRecord{Merchant: afftrack.Merchant{ID: 9, Name: "Shoe Shop", AvatarURL: "https://img.example/m9.png",
			Status: afftrack.AccountActive}, DateCreated: afftrack.Some(dt(t, "2023-05-01T09:00:00")),
			DateModified: afftrack.Some(dt(t, "2023-06-01T10:00:00")), Summary: "Shoes & more",
			Categories: []string{"Fashion / Shoes", "Sports"}},
	)
	d.Programs = append(d.Programs, hidden, shoes)
	d.ProgramAt = append(d.ProgramAt, len(d.Merchants)-2, len(d.Merchants)-1)
	d.Memberships = append(d.Memberships, afftrack.Membership{AffiliateID: 3, MerchantID: 8,
		Status: afftrack.MembershipInvited, TrafficType: afftrack.TrafficTypeWebsite})
	d.BannerGroups = append(d.BannerGroups, afftrack.BannerGroup{ID: 100, MerchantID: 2, Name: "Old",
		TargetURL: "https://two.example/old", ExpiryDate: afftrack.Some(dt(t, "2024-06-10T00:00:00"))})
	d.Banners = append(d.Banners, afftrack.Banner{ID: 22, MerchantID: 2, BannerGroupID: afftrack.Some[int64](100),
		GroupName: "Old", Name: "Old Banner", TargetURL: "https://two.example/old", Width: 300, Height: 250,
		ImageURL: "https://img.example/b22.png", DateCreated: dt(t, "2024-01-02T03:04:05"),
		DateModified: dt(t, "2024-01-03T00:00:00")})
	d.Banners = append(d.Banners, afftrack.Banner{ID: 71, MerchantID: 7, GroupName: "Summer", Name: "Seven Banner",
		TargetURL: "https://seven.example/b", Width: 468, Height: 60, ImageURL: "https://img.example/b71.png",
		DateCreated: dt(t, "2024-01-02T03:04:05"), DateModified: dt(t, "2024-01-03T00:00:00")})
	return d
}

func merchantIDs(t *testing.T, list []*afftrack.AffiliateMerchant, err error) []int64 {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{}
	for _, m := range list {
		ids = append(ids, m.ID)
	}
	return ids
}

func TestFindAffiliateMerchants(t *testing.T) {
	ctx := context.Background()
	f := func(aff int64) afftrack.AffiliateMerchantFilter {
		return afftrack.AffiliateMerchantFilter{AffiliateID: aff}
	}
	with := func(aff int64, set func(*afftrack.AffiliateMerchantFilter)) afftrack.AffiliateMerchantFilter {
		x := f(aff)
		set(&x)
		return x
	}
	tests := []struct {
		name string
		f    afftrack.AffiliateMerchantFilter
		want []int64
	}{
		{"no membership: the Active, launched, listed merchants", f(2), []int64{1, 2, 9}},
		{"an unlisted merchant is seen with a membership of any status", f(3), []int64{1, 2, 8, 9}},
		{"status Not Joined includes no membership", with(3, func(x *afftrack.AffiliateMerchantFilter) {
			x.Status = afftrack.MembershipNotJoined
		}), []int64{2, 9}},
		{"status Pending", with(3, func(x *afftrack.AffiliateMerchantFilter) { x.Status = afftrack.MembershipPending }),
			[]int64{1}},
		{"commissionType", with(2, func(x *afftrack.AffiliateMerchantFilter) {
			x.CommissionType = afftrack.MerchantTypeDollarPerSale
		}), []int64{9}},
		{"category: a parent, ignoring case", with(2, func(x *afftrack.AffiliateMerchantFilter) {
			x.Category = afftrack.Some("fashion")
		}), []int64{9}},
		{"category: never a child", with(2, func(x *afftrack.AffiliateMerchantFilter) {
			x.Category = afftrack.Some("Fashion / Shoes")
		}), []int64{}},
		{"category: any rank", with(2, func(x *afftrack.AffiliateMerchantFilter) { x.Category = afftrack.Some("Sports") }),
			[]int64{9}},
		{"newCategory: a parent matches its children", with(2, func(x *afftrack.AffiliateMerchantFilter) {
			x.NewCategory = afftrack.Some("Fashion")
		}), []int64{9}},
		{"newCategory: Parent / Child that one", with(2, func(x *afftrack.AffiliateMerchantFilter) {
			x.NewCategory = afftrack.Some("Fashion / Shoes")
		}), []int64{9}},
		{"newCategory: another child", with(2, func(x *afftrack.AffiliateMerchantFilter) {
			x.NewCategory = afftrack.Some("Fashion / Hats")
		}), []int64{}},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		mustImportAt(t, db, "2024-01-01T00:00:00", catalogDataset(t))
		s := sqlstore.NewCatalogService(db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.FindAffiliateMerchants(ctx, tt.f)
				if diff := cmp.Diff(tt.want, merchantIDs(t, got, err)); diff != "" {
					t.Errorf("ids (-want +got):\n%s", diff)
				}
			})
		}
		t.Run("the fields", func(t *testing.T) {
			m, err := s.FindAffiliateMerchant(ctx, 2, 9)
			if err != nil {
				t.Fatal(err)
			}
			if m.Name != "Shoe Shop" || m.AvatarURL != "https://img.example/m9.png" || m.Summary != "Shoes & more" ||
				!m.DateCreated.Equal(dt(t, "2023-05-01T09:00:00")) || !m.DateModified.Equal(dt(t, "2023-06-01T10:00:00")) ||
				!cmp.Equal(m.Categories, []string{"Fashion / Shoes", "Sports"}) || m.Status != afftrack.MembershipNotJoined ||
				m.Program.TargetURL != "https://shoes.example/" || len(m.Program.Rules) != 2 {
				t.Errorf("merchant 9 = %+v", m)
			}
			if rate, lo, hi, zero := m.Commission(2); rate != 25000 || lo != 25000 || hi != 40000 || !zero {
				t.Errorf("commission %d %d %d %v, want 25000 25000 40000 true", rate, lo, hi, zero)
			}
			m, err = s.FindAffiliateMerchant(ctx, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			if rate, lo, hi, zero := m.Commission(1); m.Status != afftrack.MembershipJoined || rate != 100000 ||
				lo != 50000 || hi != 123456 || !zero {
				t.Errorf("merchant 1: %v, commission %d %d %d %v", m.Status, rate, lo, hi, zero)
			}
			if !cmp.Equal(m.Program.AllowedDomains, trackingProgram1().AllowedDomains) {
				t.Errorf("AllowedDomains %q", m.Program.AllowedDomains)
			}
		})
		t.Run("by id: hidden is not found", func(t *testing.T) {
			for _, c := range []struct{ aff, id int64 }{{2, 8}, {1, 3}, {1, 4}, {1, 5}, {1, 6}, {1, 7}, {1, 99}} {
				if _, err := s.FindAffiliateMerchant(ctx, c.aff, c.id); afftrack.ErrorCode(err) != afftrack.ENOTFOUND {
					t.Errorf("affiliate %d, merchant %d: %v, want ENOTFOUND", c.aff, c.id, err)
				}
			}
			if m, err := s.FindAffiliateMerchant(ctx, 3, 8); err != nil || m.Status != afftrack.MembershipInvited {
				t.Errorf("affiliate 3, merchant 8: %v, %v", m, err)
			}
		})
	})
}

func TestFindAffiliateBanner(t *testing.T) {
	ctx := context.Background()
	now := dt(t, trackingNow)
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		mustImportAt(t, db, "2024-01-01T00:00:00", catalogDataset(t))
		s := sqlstore.NewCatalogService(db)
		b, hosts, err := s.FindAffiliateBanner(ctx, 1, 11, now)
		if err != nil {
			t.Fatal(err)
		}
		if b.ID != 11 || b.MerchantName != "Shop One" || b.TargetURL != "https://shop.one.example/spring" ||
			b.GroupName != "Summer" || !b.BannerGroupID.Valid || b.Width != 468 {
			t.Errorf("banner 11 = %+v", b)
		}
		// The banner's, the program's, every banner's of the merchant, the AllowedDomains.
		if want := []string{"shop.one.example", "shop.one.example", "shop.one.example", "cdn.shop.one.example", "one.example"}; !cmp.Equal(want, hosts) {
			t.Errorf("hosts %q, want %q", hosts, want)
		}
		if _, _, err := s.FindAffiliateBanner(ctx, 1, 22, dt(t, "2024-06-10T00:00:00")); err != nil {
			t.Errorf("banner 22 on its ExpiryDate: %v", err)
		}
		// A joined Active merchant's banner is seen whatever its program,
		// as in the list (contract.md §9).
		for _, id := range []int64{
			31, // a merchant's without a program
			61, // a program's without a TargetUrl
			71, // a program's without a Commission
		} {
			if _, _, err := s.FindAffiliateBanner(ctx, 1, id, now); err != nil {
				t.Errorf("affiliate 1, banner %d: %v, want it found", id, err)
			}
		}
		for _, c := range []struct{ aff, id int64 }{
			{1, 22}, // its group expired
			{1, 41}, // a Suspended merchant's
			{3, 11}, // a Pending membership
			{2, 11}, // no membership
			{1, 99},
		} {
			if _, _, err := s.FindAffiliateBanner(ctx, c.aff, c.id, now); afftrack.ErrorCode(err) != afftrack.ENOTFOUND {
				t.Errorf("affiliate %d, banner %d: %v, want ENOTFOUND", c.aff, c.id, err)
			}
		}
	})
}

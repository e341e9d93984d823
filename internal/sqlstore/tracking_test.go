package sqlstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// The tracking tests (tracking.md sections 1-5, 8) share one network,
// trackingDataset, and one fixed clock, trackingNow.
//
// Merchants:
//
//	1 Active, the full program (trackingProgram1), banners 11 (own target) and 12 (none)
//	2 Active, a plain program, banner 21
//	3 Active, no program, banner 31
//	4 Suspended, a program, banner 41
//	5 Closed, a program, banner 51
//	6 Active, a program without TargetUrl, banner 61
//	7 Active, a program without Commission
//
// Affiliates (Active unless said) and their memberships of merchant 1:
//
//	1 Joined (EmailList, "newsletter", not approved); Joined to every merchant
//	2 none
//	3 Pending
//	4 Suspended, Joined
//	5 NotJoined
//	6 Invited (no TrafficType given: Website)
//	7 Joined (Search, "coupons.example", approved), holder of the exclusive coupon GUS
const trackingNow = "2024-06-15T12:00:00"

// trackingClock returns the fixed clock of the conversion tests.
func trackingClock(t testing.TB) func() time.Time {
	now := dt(t, trackingNow)
	return func() time.Time { return now }
}

func pct(v int64) afftrack.Null[afftrack.Percent] { return afftrack.Some(afftrack.Percent(v)) }

func flat(v int64) afftrack.Null[afftrack.Money] { return afftrack.Some(afftrack.Money(v)) }

// trackingProgram1 is merchant 1's program: every field set, a rule of
// every condition kind, Percent and Flat rules. AllowedDomains are in the
// order the store lists them (a set, listed by host).
func trackingProgram1() afftrack.Program {
	return afftrack.Program{
		MerchantID:     1,
		TargetURL:      "https://shop.one.example/",
		AllowedDomains: []string{"cdn.shop.one.example", "one.example"},
		CookieDays:     30,
		ValidationDays: 45,
		Prepaid:        true,
		ClickAppend:    "src=afftrack&cid=[ClickId]&sub=[UniqueId]",
		Commission:     afftrack.CommissionRule{Percent: pct(100000)}, // 10%
		Rules: []afftrack.CommissionRule{
			{AffiliateID: afftrack.Some[int64](2), Flat: flat(50000)},        // 5.00 for affiliate 2
			{Category: afftrack.Some("Books"), Percent: pct(50000)},          // 5% of books
			{CustomerType: afftrack.CustomerTypeReturn, Percent: pct(75000)}, // 7.5% for returning customers
			{AffiliateID: afftrack.Some[int64](1), Category: afftrack.Some("Games"), // 12.3456% for
				CustomerType: afftrack.CustomerTypeNew, Percent: pct(123456)}, // affiliate 1's new gamers
			{Category: afftrack.Some("Gift Cards"), Flat: flat(0)}, // nothing on gift cards
		},
		OverrideFeePercent: 200000, // 20%
	}
}

// trackingProgram returns a plain program of merchant id.
func trackingProgram(id int64, target string) afftrack.Program {
	return afftrack.Program{MerchantID: id, TargetURL: target, CookieDays: 30, ValidationDays: 60,
		ClickAppend: afftrack.DefaultClickAppend, Commission: afftrack.CommissionRule{Percent: pct(50000)}}
}

func trackingDataset(t testing.TB) *afftrack.Dataset {
	t.Helper()
	merchant := func(id int64, name string, s afftrack.AccountStatus) afftrack.MerchantRecord {
		return afftrack.MerchantRecord{Merchant: afftrack.Merchant{ID: id, Name: name,
			AvatarURL: fmt.Sprintf("https://img.example/m%d.png", id), Status: s}}
	}
	affiliate := func(id int64, contact, business string, s afftrack.AccountStatus) afftrack.AffiliateRecord {
		return afftrack.AffiliateRecord{Affiliate: afftrack.Affiliate{ID: id, ContactName: contact,
			BusinessName: business, Status: s}}
	}
	joined := func(aff, m int64) afftrack.Membership {
		return afftrack.Membership{AffiliateID: aff, MerchantID: m, Status: afftrack.MembershipJoined,
			TrafficType: afftrack.TrafficTypeWebsite, TrafficSourceApproved: true}
	}
	banner := func(id, m int64, name, target string) afftrack.Banner {
		group := "Summer"
		if target == "" { // a group of its own, without a target either
			group = "Plain"
		}
		return afftrack.Banner{ID: id, MerchantID: m, DateCreated: dt(t, "2024-01-02T03:04:05"),
			DateModified: dt(t, "2024-01-03T00:00:00"), GroupName: group, Name: name, TargetURL: target,
			Width: 468, Height: 60, ImageURL: fmt.Sprintf("https://img.example/b%d.png", id), AltText: name}
	}
	noTerms := trackingProgram(7, "https://seven.example/")
	noTerms.Commission = afftrack.CommissionRule{}

	ms11 := joined(1, 1)
	ms11.TrafficType, ms11.TrafficSource, ms11.TrafficSourceApproved = afftrack.TrafficTypeEmailList, "newsletter", false
	ms71 := joined(7, 1)
	ms71.TrafficType, ms71.TrafficSource = afftrack.TrafficTypeSearch, "coupons.example"
	ms41 := joined(4, 1)
	return &afftrack.Dataset{
		Merchants: []afftrack.MerchantRecord{
			merchant(1, "Shop One", afftrack.AccountActive),
			merchant(2, "Shop Two", afftrack.AccountActive),
			merchant(3, "No Program", afftrack.AccountActive),
			merchant(4, "Suspended Shop", afftrack.AccountSuspended),
			merchant(5, "Closed Shop", afftrack.AccountClosed),
			merchant(6, "No Landing", afftrack.AccountActive),
			merchant(7, "No Terms", afftrack.AccountActive),
		},
		Programs: []afftrack.Program{
			trackingProgram1(),
			trackingProgram(2, "https://two.example/"),
			trackingProgram(4, "https://four.example/"),
			trackingProgram(5, "https://five.example/"),
			trackingProgram(6, ""),
			noTerms,
		},
		ProgramAt: []int{0, 1, 3, 4, 5, 6},
		Affiliates: []afftrack.AffiliateRecord{
			affiliate(1, "Ann Lee", "Lee Media", afftrack.AccountActive),
			affiliate(2, "Bob Roe", "Roe Pty Ltd", afftrack.AccountActive),
			affiliate(3, "Cat Poe", "Poe Pages", afftrack.AccountActive),
			affiliate(4, "Dan Fox", "Fox Deals", afftrack.AccountSuspended),
			affiliate(5, "Eve Kim", "Kim Reviews", afftrack.AccountActive),
			affiliate(6, "Fay Orr", "Orr Blog", afftrack.AccountActive),
			affiliate(7, "Gus Yip", "Yip Coupons", afftrack.AccountActive),
		},
		Memberships: []afftrack.Membership{
			ms11, joined(1, 2), joined(1, 3), joined(1, 4), joined(1, 5), joined(1, 6), joined(1, 7),
			{AffiliateID: 3, MerchantID: 1, Status: afftrack.MembershipPending, TrafficType: afftrack.TrafficTypeWebsite,
				TrafficSourceApproved: true},
			ms41,
			{AffiliateID: 5, MerchantID: 1, Status: afftrack.MembershipNotJoined, TrafficType: afftrack.TrafficTypeWebsite,
				TrafficSourceApproved: true},
			{AffiliateID: 6, MerchantID: 1, Status: afftrack.MembershipInvited, TrafficSource: "orr.example",
				TrafficSourceApproved: true},
			ms71,
		},
		Banners: []afftrack.Banner{
			banner(11, 1, "Spring Banner", "https://shop.one.example/spring"),
			banner(12, 1, "Plain Banner", ""),
			banner(21, 2, "Two Banner", "https://two.example/sale"),
			banner(31, 3, "Three Banner", "https://three.example/"),
			banner(41, 4, "Four Banner", "https://four.example/b"),
			banner(51, 5, "Five Banner", "https://five.example/b"),
			banner(61, 6, "Six Banner", "https://six.example/"),
		},
		Coupons: []afftrack.Coupon{
			{ID: 1, MerchantID: 1, Code: "ANN10", Description: "Ann's readers save 10%", AffiliateID: afftrack.Some[int64](1)},
			{ID: 2, MerchantID: 1, Code: "SALE", Description: "Everyone saves 5%",
				StartDate: afftrack.Some(dt(t, "2024-01-01")), EndDate: afftrack.Some(dt(t, "2024-12-31"))},
			{ID: 3, MerchantID: 1, Code: "GUS", Description: "Gus's code", AffiliateID: afftrack.Some[int64](7)},
		},
		CurrencyRates: []afftrack.CurrencyRate{
			{Code: "USD", Date: dt(t, "2024-06-01"), Rate: 150000000}, // 1.5, before now
			{Code: "USD", Date: dt(t, "2024-06-16"), Rate: 200000000}, // 2.0, after now
			{Code: "NZD", Date: dt(t, "2024-05-01"), Rate: 90000000},  // 0.9
			{Code: "NZD", Date: dt(t, "2024-06-15"), Rate: 95000000},  // 0.95, dated today
			{Code: "NZD", Date: dt(t, "2024-07-01"), Rate: 100000000}, // 1.0, after now
		},
	}
}

// trackingLoaded imports trackingDataset into db.
func trackingLoaded(t *testing.T, db *sqlstore.DB) *afftrack.Dataset {
	t.Helper()
	d := trackingDataset(t)
	mustImport(t, db, d)
	return d
}

// wantCode fails the test unless err is an afftrack error with code.
func wantCode(t testing.TB, err error, code string) {
	t.Helper()
	if got := afftrack.ErrorCode(err); got != code {
		t.Fatalf("error = %v (code %q), want code %q", err, got, code)
	}
}

func TestTrackingImportSummary(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		got := mustImport(t, db, trackingDataset(t))
		want := afftrack.ImportSummary{Merchants: 7, Affiliates: 7, Memberships: 12, Banners: 7,
			Programs: 6, Coupons: 3, CurrencyRates: 5, NewBannerGroups: 7} // merchant 1's Summer and Plain, one each of 2..6
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("summary (-want +got):\n%s", diff)
		}
		// The same file again writes the same rows, no more.
		mustImport(t, db, trackingDataset(t))
		for table, n := range map[string]int64{"programs": 6, "program_rules": 5, "program_domains": 2,
			"coupons": 3, "currency_rates": 5, "memberships": 12} {
			if got := countRows(t, db, table); got != n {
				t.Errorf("%s holds %d rows after two imports, want %d", table, got, n)
			}
		}
	})
}

func TestTrackingImportMembershipTraffic(t *testing.T) {
	type traffic struct {
		Type     int64
		Source   string
		Approved bool
	}
	tests := []struct {
		name          string
		aff, merchant int64
		want          traffic
	}{
		{"a membership keeps its traffic type, source and approval", 1, 1,
			traffic{int64(afftrack.TrafficTypeEmailList), "newsletter", false}},
		{"a membership without a traffic type is a Website", 6, 1,
			traffic{int64(afftrack.TrafficTypeWebsite), "orr.example", true}},
		{"another membership of the same merchant keeps its own", 7, 1,
			traffic{int64(afftrack.TrafficTypeSearch), "coupons.example", true}},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		trackingLoaded(t, db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var got traffic
				if err := db.SQL().QueryRow(`SELECT traffic_type, traffic_source, traffic_source_approved
				FROM memberships WHERE affiliate_id = $1 AND merchant_id = $2`, tt.aff, tt.merchant).Scan(
					&got.Type, &got.Source, &got.Approved); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("traffic (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestFindBannersOfInactiveMerchants(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		trackingLoaded(t, db)
		s := sqlstore.NewBannerService(db)
		ids := func(t *testing.T, f afftrack.BannerFilter) []int64 { return bannerIDs(t, s, f) }
		tests := []struct {
			name     string
			merchant int64
			want     []int64
		}{
			{"the banners of an Active merchant are listed", 1, []int64{11, 12}},
			{"the banners of a Suspended merchant are not listed", 4, []int64{}},
			{"the banners of a Closed merchant are not listed", 5, []int64{}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got := ids(t, afftrack.BannerFilter{AffiliateID: 1, MerchantID: afftrack.Some(tt.merchant)})
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("banner ids (-want +got):\n%s", diff)
				}
			})
		}
		t.Run("no filter lists no banner of a merchant that is not Active", func(t *testing.T) {
			for _, id := range ids(t, afftrack.BannerFilter{AffiliateID: 1}) {
				if id == 41 || id == 51 {
					t.Errorf("banner %d of an inactive merchant is listed", id)
				}
			}
		})
		t.Run("a merchant suspended by a later import loses its banners, and regains them when active", func(t *testing.T) {
			m := trackingDataset(t).Merchants[1]
			m.Status = afftrack.AccountSuspended
			mustImport(t, db, &afftrack.Dataset{Merchants: []afftrack.MerchantRecord{m}})
			f := afftrack.BannerFilter{AffiliateID: 1, MerchantID: afftrack.Some[int64](2)}
			if diff := cmp.Diff([]int64{}, ids(t, f)); diff != "" {
				t.Errorf("suspended: banner ids (-want +got):\n%s", diff)
			}
			if err := sqlstore.NewAccountService(db).SetAccountStatus(ctx,
				afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 2}, afftrack.AccountActive); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]int64{21}, ids(t, f)); diff != "" {
				t.Errorf("reactivated: banner ids (-want +got):\n%s", diff)
			}
		})
	})
}

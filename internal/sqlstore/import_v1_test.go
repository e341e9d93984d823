package sqlstore_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// The import's additions of v1-surface.md section 7, stored in typed
// columns. Where no reader exists yet they are read back with SQL.

// importAt imports d with the import's time fixed at now.
func importAt(t testing.TB, db *sqlstore.DB, now string, d *afftrack.Dataset) (afftrack.ImportSummary, error) {
	t.Helper()
	s := sqlstore.NewImportService(db)
	at := dt(t, now)
	s.Now = func() time.Time { return at }
	return s.Import(context.Background(), d)
}

// mustImportAt is importAt that fails the test on error.
func mustImportAt(t testing.TB, db *sqlstore.DB, now string, d *afftrack.Dataset) afftrack.ImportSummary {
	t.Helper()
	sum, err := importAt(t, db, now, d)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return sum
}

// scanRow runs q and scans its one row into dest.
func scanRow(t testing.TB, db *sqlstore.DB, q string, args []any, dest ...any) {
	t.Helper()
	if err := db.SQL().QueryRow(q, args...).Scan(dest...); err != nil {
		t.Fatalf("%s %v: %v", q, args, err)
	}
}

const (
	v1Now   = "2024-07-01T10:00:00"
	v1Later = "2024-08-01T10:00:00"
)

func ms(t testing.TB, s string) int64 { return dt(t, s).UnixMilli() }

// v1Dataset is a network using every addition: merchant 1 with every
// field given, merchant 2 and 3 with none; their affiliates, memberships
// (with traffic sources of every group), a transaction with its sub-ids
// and claims, a banner group and banners naming groups every way,
// coupons, promotions and clicks.
func v1Dataset(t testing.TB) *afftrack.Dataset {
	some := afftrack.Some[string]
	when := func(s string) afftrack.Null[time.Time] { return afftrack.Some(dt(t, s)) }
	tr := afftrack.Transaction{ID: 1, MerchantID: 1, AffiliateID: 1, DateCreated: dt(t, "2024-06-01T12:00:00"),
		DateModified: dt(t, "2024-06-01T12:00:00"), ConsumptionDate: dt(t, "2024-06-01T12:00:00"),
		ValidationDate: dt(t, "2024-06-01T12:00:00"), TrafficType: afftrack.TrafficTypeWebsite,
		CreativeType: afftrack.CreativeTypeTextLink, CustomerType: afftrack.CustomerTypeNew,
		TrackingMethod: afftrack.TrackingMethodCookie, Status2: afftrack.Status2Pending,
		UniqueIDs: [4]afftrack.Null[string]{some("u1"), {}, some(""), some("u4")}}
	banner := func(id, merchant int64, group string) afftrack.Banner {
		return afftrack.Banner{ID: id, MerchantID: merchant, DateCreated: dt(t, "2024-02-01T00:00:00"),
			DateModified: dt(t, "2024-02-02T00:00:00"), GroupName: group, Name: "Banner", Width: 468, Height: 60}
	}
	b1 := banner(1, 1, "")
	b1.BannerGroupID, b1.DefaultForSize = afftrack.Some[int64](10), true
	b2 := banner(2, 1, "Spring")
	b2.BannerGroupID, b2.TargetURL = afftrack.Some[int64](10), "https://one.example/b2"
	b3 := banner(3, 1, "Autumn")
	b3.TargetURL, b3.Width, b3.Height = "https://one.example/autumn", 300, 250
	b4 := banner(4, 2, "")
	return &afftrack.Dataset{
		Merchants: []afftrack.MerchantRecord{
			{Merchant: afftrack.Merchant{ID: 1, Name: "Shop One", AvatarURL: "https://img.example/1.png", Status: afftrack.AccountActive},
				DateCreated: when("2023-01-01T08:00:00"), DateModified: when("2024-01-01T08:00:00"), Summary: "All things one",
				Categories: []string{"Clothing / Shoes", "Sports", "Home / Garden"}},
			{Merchant: afftrack.Merchant{ID: 2, Name: "Shop Two", Status: afftrack.AccountActive}},
			{Merchant: afftrack.Merchant{ID: 3, Name: "Shop Three", Status: afftrack.AccountActive}},
		},
		Programs: []afftrack.Program{
			{MerchantID: 1, TargetURL: "https://one.example/", CookieDays: 30, ValidationDays: 30,
				Commission: afftrack.CommissionRule{Flat: afftrack.Some[afftrack.Money](20000)},
				Listed:     false, CommissionType: afftrack.MerchantTypeDollarPerLead},
			{MerchantID: 2, TargetURL: "https://two.example/", CookieDays: 30, ValidationDays: 30, Listed: true},
		},
		ProgramAt: []int{0, 1},
		Affiliates: []afftrack.AffiliateRecord{
			{Affiliate: afftrack.Affiliate{ID: 1, ContactName: "Ann", Status: afftrack.AccountActive},
				DateCreated: when("2022-05-05T05:05:05.5"), DateModified: when("2023-05-05T05:05:05")},
			{Affiliate: afftrack.Affiliate{ID: 2, ContactName: "Bob", Status: afftrack.AccountActive}},
		},
		Memberships: []afftrack.Membership{
			{AffiliateID: 1, MerchantID: 1, Status: afftrack.MembershipJoined, TrafficType: afftrack.TrafficTypeSocialMediaPage,
				TrafficSourceApproved: true, DateApplied: when("2023-02-01T00:00:00"), DateApproved: when("2023-02-03T00:00:00"),
				DateModified: when("2023-02-04T00:00:00"), TrafficSources: v1Sources(t)},
			{AffiliateID: 2, MerchantID: 1, Status: afftrack.MembershipInvited},
			{AffiliateID: 1, MerchantID: 2, Status: afftrack.MembershipPending},
			{AffiliateID: 2, MerchantID: 2, Status: afftrack.MembershipJoined, TrafficType: afftrack.TrafficTypeSearch},
		},
		Transactions: []afftrack.TransactionRecord{{Transaction: tr, ClaimedMerchantName: some("Shop One"),
			ClaimedMerchantAvatarURL: some("https://img.example/1.png")}},
		BannerGroups: []afftrack.BannerGroup{{ID: 10, MerchantID: 1, Name: "Spring", TargetURL: "https://one.example/spring",
			DateCreated: when("2024-01-10T00:00:00"), DateModified: when("2024-01-11T00:00:00"),
			ExpiryDate: when("2024-12-31T00:00:00")}},
		Banners: []afftrack.Banner{b1, b2, b3, b4},
		Coupons: []afftrack.Coupon{
			{ID: 1, MerchantID: 1, Code: "ONE", AffiliateID: afftrack.Some[int64](1), DateCreated: when("2024-03-01T00:00:00"),
				DateModified: when("2024-03-02T00:00:00"), TargetURL: "https://one.example/coupon", TermsAndConditions: "T&C"},
			{ID: 2, MerchantID: 2, Code: "TWO"},
		},
		Promotions: []afftrack.Promotion{
			{ID: 1, MerchantID: 1, Description: "Summer", DateCreated: when("2024-04-01T00:00:00"),
				DateModified: when("2024-04-02T00:00:00"), TargetURL: "https://one.example/summer", TermsAndConditions: "Terms",
				StartDate: when("2024-06-01T00:00:00"), EndDate: when("2024-08-31T00:00:00"), AffiliateID: afftrack.Some[int64](1)},
			{ID: 2, MerchantID: 1, Description: "Always"},
		},
		Clicks: []afftrack.Click{
			{ID: testClickID(1), Time: dt(t, "2024-06-02T10:00:00.123"), MerchantID: 1, AffiliateID: 1,
				CreativeType: afftrack.CreativeTypeBanner, CreativeID: afftrack.Some[int64](1),
				TrafficType: afftrack.TrafficTypeEmailList, Bot: true, UniqueIDs: [4]string{"a", "b", "c", "d"}},
			{ID: testClickID(2), Time: dt(t, "2024-06-03T00:00:00"), MerchantID: 2, AffiliateID: 2,
				CreativeType: afftrack.CreativeTypeTextLink, Credited: true},
			{ID: testClickID(3), Time: dt(t, "2024-06-04T00:00:00"), MerchantID: 1, AffiliateID: 1,
				CreativeType: afftrack.CreativeTypeCoupon, CreativeID: afftrack.Some[int64](1), Credited: true},
			{ID: testClickID(4), Time: dt(t, "2024-06-05T00:00:00"), MerchantID: 3, AffiliateID: 1,
				CreativeType: afftrack.CreativeTypeTextLink, Credited: true},
			{ID: testClickID(5), Time: dt(t, "2024-06-06T00:00:00"), MerchantID: 1, AffiliateID: 2,
				CreativeType: afftrack.CreativeTypePromotion, CreativeID: afftrack.Some[int64](2), Credited: true},
		},
	}
}

// v1Sources are a traffic source of every group, every field set, and
// one of a type without a group.
func v1Sources(t testing.TB) []afftrack.TrafficSource {
	some := afftrack.Some[string]
	num := afftrack.Some[int64]
	when := func(s string) afftrack.Null[time.Time] { return afftrack.Some(dt(t, s)) }
	return []afftrack.TrafficSource{
		{Type: afftrack.TrafficTypeWebsite, Status: afftrack.TrafficSourceApproved,
			WebsiteDateCreated: when("2020-01-01T00:00:00"), WebsiteDateModified: when("2020-01-02T00:00:00"),
			WebsiteURL: some("https://ann.example/"), WebsiteName: some("Ann's"), WebsiteDescription: some("A blog"),
			WebsiteCategory: some("Fashion"), WebsiteType: some("Blog"), WebsiteWeeklyVisitors: num(5000),
			WebsiteYearsOnline: num(3), WebsiteChannel: some("Content"), WebsiteVerified: afftrack.Some(false)},
		{Type: afftrack.TrafficTypeEmailList, Status: afftrack.TrafficSourceDeclined,
			EmailListDateCreated: when("2020-02-01T00:00:00"), EmailListDateModified: when("2020-02-02T00:00:00"),
			EmailListName: some("Weekly"), EmailListDescription: some("Deals"), EmailListCategory: some("Shopping"),
			EmailListSize: num(12000), EmailListFrequency: some("Weekly"), EmailListOptIn: some("Double")},
		{Type: afftrack.TrafficTypeSocialMediaPage, Status: afftrack.TrafficSourcePending,
			SocialMediaPageDateCreated: when("2020-03-01T00:00:00"), SocialMediaPageDateModified: when("2020-03-02T00:00:00"),
			SocialMediaPageCategory: some("Lifestyle"), SocialMediaPageType: some("Instagram"),
			SocialMediaPageName: some("@ann"), SocialMediaPageURL: some("https://social.example/ann"),
			SocialMediaPageFollowers: num(900)},
		{Type: afftrack.TrafficTypeOther, Status: afftrack.TrafficSourceApproved},
	}
}

// readSources reads a membership's traffic sources back, in order.
func readSources(t testing.TB, db *sqlstore.DB, affiliateID, merchantID int64) []afftrack.TrafficSource {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT type, status,
		website_date_created, website_date_modified, website_url, website_name, website_description, website_category,
		website_type, website_weekly_visitors, website_years_online, website_channel, website_verified,
		email_list_date_created, email_list_date_modified, email_list_name, email_list_description, email_list_category,
		email_list_size, email_list_frequency, email_list_opt_in,
		social_media_page_date_created, social_media_page_date_modified, social_media_page_category,
		social_media_page_type, social_media_page_name, social_media_page_url, social_media_page_followers
	FROM membership_traffic_sources WHERE affiliate_id = $1 AND merchant_id = $2 ORDER BY position`, affiliateID, merchantID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []afftrack.TrafficSource
	for rows.Next() {
		var typ, status int64
		var wc, wm, wv, wy, ec, em, es, sc, sm, sf sql.Null[int64]
		var wu, wn, wd, wcat, wt, wch, en, ed, ecat, ef, eo, scat, st, sn, su sql.Null[string]
		var verified sql.Null[bool]
		if err := rows.Scan(&typ, &status, &wc, &wm, &wu, &wn, &wd, &wcat, &wt, &wv, &wy, &wch, &verified,
			&ec, &em, &en, &ed, &ecat, &es, &ef, &eo, &sc, &sm, &scat, &st, &sn, &su, &sf); err != nil {
			t.Fatal(err)
		}
		tm := func(n sql.Null[int64]) afftrack.Null[time.Time] {
			if !n.Valid {
				return afftrack.Null[time.Time]{}
			}
			return afftrack.Some(time.UnixMilli(n.V).UTC())
		}
		i := func(n sql.Null[int64]) afftrack.Null[int64] { return afftrack.Null[int64]{Value: n.V, Valid: n.Valid} }
		s := func(n sql.Null[string]) afftrack.Null[string] {
			return afftrack.Null[string]{Value: n.V, Valid: n.Valid}
		}
		out = append(out, afftrack.TrafficSource{Type: afftrack.TrafficType(typ), Status: afftrack.TrafficSourceStatus(status),
			WebsiteDateCreated: tm(wc), WebsiteDateModified: tm(wm), WebsiteURL: s(wu), WebsiteName: s(wn),
			WebsiteDescription: s(wd), WebsiteCategory: s(wcat), WebsiteType: s(wt), WebsiteWeeklyVisitors: i(wv),
			WebsiteYearsOnline: i(wy), WebsiteChannel: s(wch),
			WebsiteVerified:      afftrack.Null[bool]{Value: verified.V, Valid: verified.Valid},
			EmailListDateCreated: tm(ec), EmailListDateModified: tm(em), EmailListName: s(en), EmailListDescription: s(ed),
			EmailListCategory: s(ecat), EmailListSize: i(es), EmailListFrequency: s(ef), EmailListOptIn: s(eo),
			SocialMediaPageDateCreated: tm(sc), SocialMediaPageDateModified: tm(sm), SocialMediaPageCategory: s(scat),
			SocialMediaPageType: s(st), SocialMediaPageName: s(sn), SocialMediaPageURL: s(su), SocialMediaPageFollowers: i(sf)})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestImportV1SurfaceFieldsRoundTrip(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		d := v1Dataset(t)
		sum := mustImportAt(t, db, v1Now, d)
		want := afftrack.ImportSummary{Merchants: 3, Affiliates: 2, Memberships: 4, Transactions: 1, Banners: 4,
			Programs: 2, Coupons: 2, BannerGroups: 1, NewBannerGroups: 2, Promotions: 2, Clicks: 5}
		if diff := cmp.Diff(want, sum); diff != "" {
			t.Errorf("summary (-want +got):\n%s", diff)
		}
		now := ms(t, v1Now)

		t.Run("merchants", func(t *testing.T) {
			type merchant struct {
				Created, Modified int64
				Summary           string
				C1, C2, C3        sql.Null[string]
			}
			for id, want := range map[int64]merchant{
				1: {ms(t, "2023-01-01T08:00:00"), ms(t, "2024-01-01T08:00:00"), "All things one",
					sql.Null[string]{V: "Clothing / Shoes", Valid: true}, sql.Null[string]{V: "Sports", Valid: true},
					sql.Null[string]{V: "Home / Garden", Valid: true}},
				2: {Created: now, Modified: now},
			} {
				var got merchant
				scanRow(t, db, `SELECT date_created, date_modified, summary, new_category, new_category2, new_category3
					FROM merchants WHERE id = $1`, []any{id}, &got.Created, &got.Modified, &got.Summary, &got.C1, &got.C2, &got.C3)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("merchant %d (-want +got):\n%s", id, diff)
				}
			}
		})
		t.Run("affiliates", func(t *testing.T) {
			for id, want := range map[int64][2]int64{1: {ms(t, "2022-05-05T05:05:05.5"), ms(t, "2023-05-05T05:05:05")}, 2: {now, now}} {
				var got [2]int64
				scanRow(t, db, `SELECT date_created, date_modified FROM affiliates WHERE id = $1`, []any{id}, &got[0], &got[1])
				if got != want {
					t.Errorf("affiliate %d dates = %v, want %v", id, got, want)
				}
			}
		})
		t.Run("memberships and their traffic sources", func(t *testing.T) {
			null := sql.Null[int64]{}
			at := func(v int64) sql.Null[int64] { return sql.Null[int64]{V: v, Valid: true} }
			for k, want := range map[[2]int64][3]sql.Null[int64]{
				{1, 1}: {at(ms(t, "2023-02-01T00:00:00")), at(ms(t, "2023-02-03T00:00:00")), at(ms(t, "2023-02-04T00:00:00"))},
				{2, 1}: {null, null, at(now)},       // Invited: never applied
				{1, 2}: {at(now), null, at(now)},    // Pending: not approved
				{2, 2}: {at(now), at(now), at(now)}, // Joined: approved when applied
			} {
				var got [3]sql.Null[int64]
				scanRow(t, db, `SELECT date_applied, date_approved, date_modified FROM memberships
					WHERE affiliate_id = $1 AND merchant_id = $2`, []any{k[0], k[1]}, &got[0], &got[1], &got[2])
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("membership %v dates (-want +got):\n%s", k, diff)
				}
			}
			if diff := cmp.Diff(v1Sources(t), readSources(t, db, 1, 1)); diff != "" {
				t.Errorf("traffic sources (-want +got):\n%s", diff)
			}
			if got := readSources(t, db, 2, 2); len(got) != 0 {
				t.Errorf("a membership without sources has %d", len(got))
			}
		})
		t.Run("programs", func(t *testing.T) {
			for _, want := range d.Programs {
				got, err := sqlstore.NewProgramService(db).FindProgram(ctx, want.MerchantID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Listed != want.Listed || got.CommissionType != want.CommissionType {
					t.Errorf("program %d: Listed %v, CommissionType %q; want %v, %q", want.MerchantID,
						got.Listed, got.CommissionType, want.Listed, want.CommissionType)
				}
			}
		})
		t.Run("a transaction's UniqueIds", func(t *testing.T) {
			got, err := sqlstore.NewTransactionService(db).FindAffiliateTransactionByID(ctx, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(d.Transactions[0].UniqueIDs, got.UniqueIDs); diff != "" {
				t.Errorf("UniqueIDs (-want +got):\n%s", diff)
			}
		})
		t.Run("banner groups, given and made for banners", func(t *testing.T) {
			type group struct {
				Merchant          int64
				Name, Target      string
				Created, Modified int64
				Expiry            sql.Null[int64]
			}
			for id, want := range map[int64]group{
				10: {1, "Spring", "https://one.example/spring", ms(t, "2024-01-10T00:00:00"), ms(t, "2024-01-11T00:00:00"),
					sql.Null[int64]{V: ms(t, "2024-12-31T00:00:00"), Valid: true}},
				// The next free ids, the first banner's TargetUrl (else its
				// program's) and dates.
				11: {1, "Autumn", "https://one.example/autumn", ms(t, "2024-02-01T00:00:00"), ms(t, "2024-02-02T00:00:00"), sql.Null[int64]{}},
				12: {2, "", "https://two.example/", ms(t, "2024-02-01T00:00:00"), ms(t, "2024-02-02T00:00:00"), sql.Null[int64]{}},
			} {
				var got group
				scanRow(t, db, `SELECT merchant_id, name, target_url, date_created, date_modified, expiry_date
					FROM banner_groups WHERE id = $1`, []any{id}, &got.Merchant, &got.Name, &got.Target, &got.Created,
					&got.Modified, &got.Expiry)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("banner group %d (-want +got):\n%s", id, diff)
				}
			}
		})
		t.Run("banners", func(t *testing.T) {
			type banner struct {
				Group         int64
				Name, Target  string
				DefaultForSiz bool
			}
			for id, want := range map[int64]banner{
				1: {10, "Spring", "https://one.example/spring", true}, // the group's TargetUrl
				2: {10, "Spring", "https://one.example/b2", false},
				3: {11, "Autumn", "https://one.example/autumn", false},
				4: {12, "", "https://two.example/", false}, // its program's
			} {
				var got banner
				scanRow(t, db, `SELECT group_id, group_name, target_url, default_for_size FROM banners WHERE id = $1`,
					[]any{id}, &got.Group, &got.Name, &got.Target, &got.DefaultForSiz)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("banner %d (-want +got):\n%s", id, diff)
				}
			}
		})
		t.Run("coupons", func(t *testing.T) {
			type coupon struct {
				Created, Modified int64
				Target, Terms     string
			}
			for id, want := range map[int64]coupon{
				1: {ms(t, "2024-03-01T00:00:00"), ms(t, "2024-03-02T00:00:00"), "https://one.example/coupon", "T&C"},
				2: {now, now, "https://two.example/", ""}, // the program's TargetUrl
			} {
				var got coupon
				scanRow(t, db, `SELECT date_created, date_modified, target_url, terms_and_conditions FROM coupons WHERE id = $1`,
					[]any{id}, &got.Created, &got.Modified, &got.Target, &got.Terms)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("coupon %d (-want +got):\n%s", id, diff)
				}
			}
		})
		t.Run("promotions", func(t *testing.T) {
			type promotion struct {
				Merchant                 int64
				Created, Modified        int64
				Description, Target, TnC string
				Start, End, Affiliate    sql.Null[int64]
			}
			at := func(v int64) sql.Null[int64] { return sql.Null[int64]{V: v, Valid: true} }
			for id, want := range map[int64]promotion{
				1: {1, ms(t, "2024-04-01T00:00:00"), ms(t, "2024-04-02T00:00:00"), "Summer", "https://one.example/summer", "Terms",
					at(ms(t, "2024-06-01T00:00:00")), at(ms(t, "2024-08-31T00:00:00")), at(1)},
				2: {Merchant: 1, Created: now, Modified: now, Description: "Always", Target: "https://one.example/"},
			} {
				var got promotion
				scanRow(t, db, `SELECT merchant_id, date_created, date_modified, description, target_url,
					terms_and_conditions, start_date, end_date, affiliate_id FROM promotions WHERE id = $1`, []any{id},
					&got.Merchant, &got.Created, &got.Modified, &got.Description, &got.Target, &got.TnC, &got.Start,
					&got.End, &got.Affiliate)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("promotion %d (-want +got):\n%s", id, diff)
				}
			}
		})
		t.Run("clicks, recorded", func(t *testing.T) {
			type click struct {
				Created, Merchant, Affiliate, CreativeType int64
				CreativeID                                 sql.Null[int64]
				Referer, IPHash, Country                   string
				Bot, Credited                              bool
				U1, U2, U3, U4                             string
				TrafficType                                int64
			}
			banner := int64(afftrack.CreativeTypeBanner)
			text := int64(afftrack.CreativeTypeTextLink)
			for n, want := range map[int]click{
				1: {ms(t, "2024-06-02T10:00:00.123"), 1, 1, banner, sql.Null[int64]{V: 1, Valid: true}, "", "", "",
					true, false, "a", "b", "c", "d", int64(afftrack.TrafficTypeEmailList)},
				// No TrafficType: the membership's, else Website.
				2: {ms(t, "2024-06-03T00:00:00"), 2, 2, text, sql.Null[int64]{}, "", "", "",
					false, true, "", "", "", "", int64(afftrack.TrafficTypeSearch)},
				3: {ms(t, "2024-06-04T00:00:00"), 1, 1, int64(afftrack.CreativeTypeCoupon), sql.Null[int64]{V: 1, Valid: true},
					"", "", "", false, true, "", "", "", "", int64(afftrack.TrafficTypeSocialMediaPage)},
				4: {ms(t, "2024-06-05T00:00:00"), 3, 1, text, sql.Null[int64]{}, "", "", "",
					false, true, "", "", "", "", int64(afftrack.TrafficTypeWebsite)},
			} {
				var got click
				scanRow(t, db, `SELECT created, merchant_id, affiliate_id, creative_type, creative_id, referer, ip_hash,
					country_code, bot, credited, unique_id, unique_id2, unique_id3, unique_id4, traffic_type
					FROM clicks WHERE id = $1`, []any{testClickID(n)}, &got.Created, &got.Merchant, &got.Affiliate,
					&got.CreativeType, &got.CreativeID, &got.Referer, &got.IPHash, &got.Country, &got.Bot, &got.Credited,
					&got.U1, &got.U2, &got.U3, &got.U4, &got.TrafficType)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("click %d (-want +got):\n%s", n, diff)
				}
			}
		})
	})
}

func TestImportV1SurfaceAgain(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		mustImportAt(t, db, v1Now, v1Dataset(t))
		// The same file again, a month later: no group made, the dates it
		// leaves out kept but DateModified, which is the import's time.
		sum := mustImportAt(t, db, v1Later, v1Dataset(t))
		if sum.NewBannerGroups != 0 || countRows(t, db, "banner_groups") != 3 {
			t.Errorf("made %d groups again (%d stored), want none", sum.NewBannerGroups, countRows(t, db, "banner_groups"))
		}
		now, later := ms(t, v1Now), ms(t, v1Later)
		for _, c := range []struct {
			table, where string
			want         [2]int64
		}{
			{"merchants", "id = 2", [2]int64{now, later}},
			{"affiliates", "id = 2", [2]int64{now, later}},
			{"coupons", "id = 2", [2]int64{now, later}},
			{"promotions", "id = 2", [2]int64{now, later}},
			{"merchants", "id = 1", [2]int64{ms(t, "2023-01-01T08:00:00"), ms(t, "2024-01-01T08:00:00")}},
		} {
			var got [2]int64
			scanRow(t, db, `SELECT date_created, date_modified FROM `+c.table+` WHERE `+c.where, nil, &got[0], &got[1])
			if got != c.want {
				t.Errorf("%s %s dates = %v, want %v", c.table, c.where, got, c.want)
			}
		}
		// Memberships keep their dates; a Pending one now Joined is
		// approved when it applied, an Invited one that applies now, and
		// traffic sources are replaced whole.
		d := &afftrack.Dataset{Memberships: []afftrack.Membership{
			{AffiliateID: 1, MerchantID: 2, Status: afftrack.MembershipJoined},
			{AffiliateID: 2, MerchantID: 1, Status: afftrack.MembershipPending},
			{AffiliateID: 1, MerchantID: 1, Status: afftrack.MembershipJoined,
				TrafficSources: v1Sources(t)[3:]},
		}}
		mustImportAt(t, db, v1Later, d)
		null := sql.Null[int64]{}
		at := func(v int64) sql.Null[int64] { return sql.Null[int64]{V: v, Valid: true} }
		for k, want := range map[[2]int64][3]sql.Null[int64]{
			{1, 2}: {at(now), at(now), at(later)},
			{2, 1}: {at(later), null, at(later)},
			{1, 1}: {at(ms(t, "2023-02-01T00:00:00")), at(ms(t, "2023-02-03T00:00:00")), at(later)},
		} {
			var got [3]sql.Null[int64]
			scanRow(t, db, `SELECT date_applied, date_approved, date_modified FROM memberships
				WHERE affiliate_id = $1 AND merchant_id = $2`, []any{k[0], k[1]}, &got[0], &got[1], &got[2])
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("membership %v dates (-want +got):\n%s", k, diff)
			}
		}
		if diff := cmp.Diff(v1Sources(t)[3:], readSources(t, db, 1, 1)); diff != "" {
			t.Errorf("traffic sources after the second import (-want +got):\n%s", diff)
		}
		// Left out, they are none.
		mustImportAt(t, db, v1Later, &afftrack.Dataset{Memberships: []afftrack.Membership{
			{AffiliateID: 1, MerchantID: 1, Status: afftrack.MembershipJoined}}})
		if n := countRows(t, db, "membership_traffic_sources"); n != 0 {
			t.Errorf("%d traffic sources left, want none", n)
		}
	})
}

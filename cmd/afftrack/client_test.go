package main_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack/client"
)

// The Go client (package client) against `afftrack serve --demo`: every
// function of the V1 API, the demo's values as internal/demo/demo.json
// has them, a sale from its click to its validation, and the errors.

// at is a datetime of the demo network, whose zone is UTC.
func at(s string) time.Time {
	t, err := time.Parse("2006-01-02T15:04:05.000", s)
	if err != nil {
		panic(err)
	}
	return t
}

func atp(s string) *time.Time { return new(at(s)) }

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// idsOf projects a list on its ids, for lists whose members are checked
// one by one elsewhere.
func idsOf[T any](list []T, id func(T) int64) []int64 {
	ids := []int64{}
	for _, v := range list {
		ids = append(ids, id(v))
	}
	return ids
}

// serveDemo starts the demo without rate limits, so a test may make as
// many calls as it needs; publicURL is the base of its tracking links.
func serveDemo(t *testing.T) (s *server, publicURL string) {
	s = serve(t, "--demo", "--rate-per-minute", "0", "--rate-per-day", "0")
	return s, strings.Replace(s.base, "127.0.0.1", "localhost", 1)
}

func TestTheGoClientReadsEveryFunctionOfTheDemo(t *testing.T) {
	s, pub := serveDemo(t)
	ctx := context.Background()
	aff1 := client.New(s.base, "demo-affiliate-1-key").Affiliate()
	aff2 := client.New(s.base, "demo-affiliate-2-key").Affiliate()
	m1 := client.New(s.base, "demo-merchant-1-key").Merchant()
	jan := client.ReportParams{From: day(2024, 1, 1), To: day(2024, 1, 31)}
	txID := func(t client.Transaction) int64 { return t.ID }
	affTxID := func(t client.AffiliateTransaction) int64 { return t.ID }
	example := "Example Pty Ltd"
	avatar1 := "https://cdn.example.com/avatars/1.png"

	tests := []struct {
		name string
		call func() (any, error)
		want any
	}{
		// The merchant's transactions.
		{"a merchant lists its transactions of January", func() (any, error) {
			v, err := m1.Transactions(ctx, client.MerchantTransactionsParams{From: jan.From, To: jan.To})
			return idsOf(v, txID), err
		}, []int64{1, 2, 3, 4, 5}},
		{"a merchant filters its transactions by affiliate name, ignoring case, and approved traffic", func() (any, error) {
			v, err := m1.Transactions(ctx, client.MerchantTransactionsParams{From: jan.From, To: jan.To,
				AffiliateBusinessName: "sample pty ltd", TrafficSourceApproved: new(true)})
			return idsOf(v, txID), err
		}, []int64{2, 4}},
		{"a merchant filters on traffic that is not approved", func() (any, error) {
			v, err := m1.Transactions(ctx, client.MerchantTransactionsParams{From: jan.From, To: jan.To, TrafficSourceApproved: new(false)})
			return idsOf(v, txID), err
		}, []int64{3}},
		{"a merchant finds the transactions modified in February, in reversed dates", func() (any, error) {
			v, err := m1.Transactions(ctx, client.MerchantTransactionsParams{From: day(2024, 2, 29), To: day(2024, 2, 1),
				DateProperty: client.ByDateModified})
			return idsOf(v, txID), err
		}, []int64{5}},
		{"a merchant filters by status and void reason", func() (any, error) {
			v, err := m1.Transactions(ctx, client.MerchantTransactionsParams{From: jan.From, To: jan.To,
				Status2: client.Status2Void, VoidReason: client.VoidReasonCancelledOrder, CustomerType: client.CustomerTypeReturn})
			return idsOf(v, txID), err
		}, []int64{2}},
		{"a merchant reads one transaction, items and nulls included", func() (any, error) {
			return m1.Transaction(ctx, 2)
		}, &client.Transaction{
			ID: 2, DateCreated: at("2024-01-03T14:02:11.250"), DateModified: at("2024-01-05T08:30:00.000"),
			ConsumptionDate: at("2024-01-03T14:02:11.250"), ValidationDate: at("2024-01-03T14:02:11.250"),
			AffiliateID: 2, AffiliateContactName: "Jane Doe", AffiliateBusinessName: "Sample Pty Ltd",
			TrafficType: client.TrafficTypeSocialMediaPage, TrafficSource: "https://social.example.com/sample",
			CreativeType: client.CreativeTypeBanner, CreativeID: new(int64(1)), CreativeName: new("Banner 1"),
			CustomerCountryCode: "NZL", CustomerCountryName: "New Zealand", CustomerIPAddress: "fedcba9876543210fedcba9876543210",
			CustomerType: client.CustomerTypeReturn, OrderID: "T0002", AdditionalNotes: new("Customer cancelled before dispatch"),
			TrackingMethod: client.TrackingMethodCookie, SaleValue: "80.0000", Commission: "8.0000", OverrideFee: "0.0000",
			ReportedCurrencyCode: "NZD", ReportedCurrencyName: "New Zealand Dollar", ReportedSaleValue: "86.9500",
			TrafficSourceApproved: true, Status: client.StatusVoid, Status2: client.Status2Void,
			VoidReason: new(client.VoidReasonCancelledOrder),
			Items: []client.TransactionItem{{Sku: "P0004", Quantity: 2, ReportedSaleValue: "43.48", SaleValue: "40.00",
				Commission: "4.00", Name: "Example Product 4", Brand: "Example Brand 2", Category: "Accessories"}},
		}},
		{"a merchant sees an item's cart reference", func() (any, error) {
			v, err := m1.Transaction(ctx, 4)
			if err != nil {
				return nil, err
			}
			return v.Items[0].CartItemReference, nil
		}, new("line-1")},

		// The affiliate's transactions.
		{"an affiliate lists its own transactions of January", func() (any, error) {
			v, err := aff1.Transactions(ctx, client.AffiliateTransactionsParams{From: jan.From, To: jan.To})
			return idsOf(v, affTxID), err
		}, []int64{1, 3, 5}},
		{"an affiliate filters by merchant name and state", func() (any, error) {
			v, err := aff1.Transactions(ctx, client.AffiliateTransactionsParams{From: jan.From, To: jan.To,
				MerchantName: "example pty ltd", Status2: client.Status2Locked})
			return idsOf(v, affTxID), err
		}, []int64{5}},
		{"an affiliate filters by the deprecated coarse status", func() (any, error) {
			v, err := aff1.Transactions(ctx, client.AffiliateTransactionsParams{From: jan.From, To: jan.To, Status: client.StatusPending})
			return idsOf(v, affTxID), err
		}, []int64{3, 5}},
		{"an affiliate reads one transaction in its own view", func() (any, error) {
			return aff1.Transaction(ctx, 3)
		}, &client.AffiliateTransaction{
			ID: 3, DateCreated: at("2024-01-10T20:45:30.000"), DateModified: at("2024-01-12T09:00:00.000"),
			ConsumptionDate: at("2024-01-10T20:45:30.000"), ValidationDate: atp("2030-12-31T00:00:00.000"),
			MerchantID: 1, MerchantName: example, MerchantAvatarURL: avatar1,
			TrafficType: client.TrafficTypeEmailList, TrafficSource: "Weekly newsletter",
			CreativeType: client.CreativeTypeCoupon, CreativeID: new(int64(7)), CreativeName: new("Summer coupon"),
			CustomerCountryCode: "AUS", CustomerCountryName: "Australia", CustomerType: client.CustomerTypeNew, OrderID: "T0003",
			TrackingMethod: client.TrackingMethodServer, SaleValue: "60.0000", Commission: "6.0000",
			ReportedCurrencyCode: "AUD", ReportedCurrencyName: "Australian Dollar", ReportedSaleValue: "60.0000",
			Status: client.StatusPending, Status2: client.Status2Pending,
			AmendedReason: new(client.AmendedReasonPartialOrderReturn), CouponCode: new("SUMMER10"),
			Items: []client.AffiliateTransactionItem{},
		}},
		{"a paid transaction says so in the affiliate's view", func() (any, error) {
			v, err := aff1.Transaction(ctx, 1)
			if err != nil {
				return nil, err
			}
			return []any{v.Paid, *v.InvoiceID, len(v.Items), v.Items[1]}, nil
		}, []any{true, int64(12345), 3, client.AffiliateTransactionItem{Sku: "P0002", Quantity: 1, ReportedSaleValue: "25.00",
			SaleValue: "25.00", Commission: "2.50", Name: "Example Product 2", Brand: "Example Brand 1", Category: "Shoes"}}},

		// Banners.
		{"an affiliate lists the banners of the merchants it joined", func() (any, error) {
			v, err := aff1.Banners(ctx, client.BannersParams{})
			return idsOf(v, func(b client.Banner) int64 { return b.ID }), err
		}, []int64{1, 2}},
		{"an affiliate filters banners by their size's name", func() (any, error) {
			v, err := aff1.Banners(ctx, client.BannersParams{Size: "full banner", MerchantID: 1})
			return idsOf(v, func(b client.Banner) int64 { return b.ID }), err
		}, []int64{1}},
		{"an affiliate reads a banner with a sub-id in its link", func() (any, error) {
			return aff1.Banner(ctx, 2, client.LinkParams{UniqueID: "summer sale"})
		}, &client.Banner{
			ID: 2, DateCreated: at("2023-11-01T09:00:00.000"), DateModified: at("2023-12-01T09:00:00.000"),
			MerchantID: 1, MerchantName: example, MerchantAvatarURL: avatar1, GroupName: "Summer Sale Banners",
			Name: "Summer skyscraper", TargetURL: "https://www.example.com/summer", Size: "Wide Skyscraper", Width: 160, Height: 600,
			ImageURL: "https://cdn.example.com/banners/2.png", AltText: `Summer sale: 20% off "everything"`,
			TrackingURL: pub + "/t/1/b/2?UniqueId=summer%20sale",
			TrackingCode: `<a href="` + pub + `/t/1/b/2?UniqueId=summer%20sale" rel="nofollow sponsored"><img src="https://cdn.example.com/banners/2.png"` +
				` width="160" height="600" alt="Summer sale: 20% off &#34;everything&#34;" style="border:none" /></a>`,
		}},
		{"a merchant lists its banners", func() (any, error) {
			return m1.Banners(ctx, client.MerchantBannersParams{})
		}, []client.MerchantBanner{
			{ID: 1, DateCreated: at("2000-01-01T00:00:00.000"), DateModified: at("2000-01-01T00:00:00.000"), BannerGroupID: 1,
				BannerGroupName: " Default Group", BannerGroupTargetURL: "https://www.example.com/", Name: "Banner 1", Size: "Full Banner",
				Width: 468, Height: 60, ImageURL: "https://cdn.example.com/banners/1.png", AltText: "Example Pty Ltd Banner", DefaultForSize: true},
			{ID: 2, DateCreated: at("2023-11-01T09:00:00.000"), DateModified: at("2023-12-01T09:00:00.000"), BannerGroupID: 2,
				BannerGroupName: "Summer Sale Banners", BannerGroupTargetURL: "https://www.example.com/summer", Name: "Summer skyscraper",
				Size: "Wide Skyscraper", Width: 160, Height: 600, ImageURL: "https://cdn.example.com/banners/2.png",
				AltText: `Summer sale: 20% off "everything"`},
		}},
		{"a merchant filters its banners on not being the default for their size", func() (any, error) {
			v, err := m1.Banners(ctx, client.MerchantBannersParams{DefaultForSize: new(false)})
			return idsOf(v, func(b client.MerchantBanner) int64 { return b.ID }), err
		}, []int64{2}},
		{"a merchant reads a banner", func() (any, error) {
			v, err := m1.Banner(ctx, 1)
			if err != nil {
				return nil, err
			}
			return []any{v.Name, v.BannerGroupID, v.DefaultForSize}, nil
		}, []any{"Banner 1", int64(1), true}},
		{"a merchant lists its banner groups", func() (any, error) {
			return m1.BannerGroups(ctx)
		}, []client.BannerGroup{
			{ID: 1, DateCreated: at("2000-01-01T00:00:00.000"), DateModified: at("2000-01-01T00:00:00.000"), Name: " Default Group",
				TargetURL: "https://www.example.com/"},
			{ID: 2, DateCreated: at("2023-11-01T09:00:00.000"), DateModified: at("2023-12-01T09:00:00.000"), Name: "Summer Sale Banners",
				TargetURL: "https://www.example.com/summer", ExpiryDate: atp("2030-03-01T00:00:00.000")},
		}},
		{"a merchant reads a banner group", func() (any, error) {
			v, err := m1.BannerGroup(ctx, 2)
			if err != nil {
				return nil, err
			}
			return []any{v.Name, *v.ExpiryDate}, nil
		}, []any{"Summer Sale Banners", at("2030-03-01T00:00:00.000")}},

		// Merchants, as affiliates browse them.
		{"an affiliate lists the merchants it may see, with its membership", func() (any, error) {
			v, err := aff1.Merchants(ctx, client.MerchantsParams{})
			var got [][]any
			for _, m := range v {
				got = append(got, []any{m.ID, m.Status, m.CommissionType, m.CommissionRate, m.CookieLength})
			}
			return got, err
		}, [][]any{{int64(1), client.MerchantJoined, client.PercentPerSale, client.Decimal("10.00"), int64(720)},
			{int64(2), client.MerchantPending, client.DollarPerLead, client.Decimal("5.00"), int64(168)}}},
		{"an affiliate filters merchants by a category's parent", func() (any, error) {
			v, err := aff1.Merchants(ctx, client.MerchantsParams{NewCategory: "Sports & Outdoors", Status: client.MerchantPending})
			return idsOf(v, func(m client.Merchant) int64 { return m.ID }), err
		}, []int64{2}},
		{"an affiliate reads a merchant with a deep link and a sub-id", func() (any, error) {
			return aff1.Merchant(ctx, 1, client.LinkParams{TargetURL: "https://www.example.com/shoes", UniqueID: "post 17"})
		}, &client.Merchant{
			ID: 1, DateCreated: at("2023-06-01T09:00:00.000"), DateModified: at("2024-01-02T10:00:00.000"), Name: example,
			AvatarURL: avatar1, CommissionType: client.PercentPerSale, CommissionRate: "10.00", CommissionMinimum: "10.00",
			CommissionMaximum: "12.50", CookieLength: 720, ValidationPeriod: new(int64(336)),
			Category: new("Clothing & Accessories"), Category2: new("Clothing & Accessories"), Category3: new("Family"),
			NewCategory: new("Clothing & Accessories / Shoes"), NewCategory2: new("Clothing & Accessories / Jewellery"),
			NewCategory3: new("Family"), Summary: "Clothing, shoes and accessories for the whole family.",
			TargetURL: "https://www.example.com/shoes", Status: client.MerchantJoined,
			TrackingURL:  pub + "/t/1/t/1?Url=https%3A%2F%2Fwww.example.com%2Fshoes&UniqueId=post%2017",
			TrackingCode: `<a href="` + pub + `/t/1/t/1?Url=https%3A%2F%2Fwww.example.com%2Fshoes&amp;UniqueId=post%2017" rel="nofollow sponsored">Example Pty Ltd</a>`,
		}},

		// Coupons and promotions.
		{"an affiliate sees its own coupon and the public one", func() (any, error) {
			v, err := aff1.Coupons(ctx, client.OffersParams{})
			var got [][]string
			for _, c := range v {
				got = append(got, []string{c.Code, c.TrackingURL})
			}
			return got, err
		}, [][]string{{"JOHN10", pub + "/t/1/c/1"}, {"SUMMER", pub + "/t/1/c/2"}}},
		{"another affiliate sees only the public coupon", func() (any, error) {
			v, err := aff2.Coupons(ctx, client.OffersParams{MerchantName: "example pty ltd"})
			return idsOf(v, func(c client.Coupon) int64 { return c.ID }), err
		}, []int64{2}},
		{"an affiliate lists the promotions it may run", func() (any, error) {
			v, err := aff1.Promotions(ctx, client.OffersParams{MerchantID: 1})
			return idsOf(v, func(p client.Promotion) int64 { return p.ID }), err
		}, []int64{1, 2}},
		{"an affiliate reads a promotion", func() (any, error) {
			return aff1.Promotion(ctx, 1, client.LinkParams{})
		}, &client.Promotion{
			ID: 1, DateCreated: at("2023-12-15T09:00:00.000"), DateModified: at("2023-12-15T09:00:00.000"), MerchantID: 1,
			MerchantName: example, MerchantAvatarURL: avatar1, Description: "20% off all shoes",
			TargetURL: "https://www.example.com/shoes", TermsAndConditions: "Full-price shoes only.",
			StartDate: atp("2024-01-01T00:00:00.000"), EndDate: atp("2030-12-31T00:00:00.000"), TrackingURL: pub + "/t/1/o/1",
			TrackingCode: `<a href="` + pub + `/t/1/o/1" rel="nofollow sponsored">20% off all shoes</a>`,
		}},
		{"a merchant lists its coupons with the affiliates they are assigned to", func() (any, error) {
			v, err := m1.Coupons(ctx, client.MerchantOffersParams{})
			var got [][]any
			for _, c := range v {
				got = append(got, []any{c.Code, c.AffiliateID, c.AffiliateContactName})
			}
			return got, err
		}, [][]any{{"JOHN10", new(int64(1)), new("John Smith")}, {"SUMMER", (*int64)(nil), (*string)(nil)}}},
		{"a merchant lists the promotions assigned to an affiliate", func() (any, error) {
			return m1.Promotions(ctx, client.MerchantOffersParams{AffiliateContactName: "john smith"})
		}, []client.MerchantPromotion{{
			ID: 2, DateCreated: at("2024-01-02T10:00:00.000"), DateModified: at("2024-01-02T10:00:00.000"),
			Description: "Free shipping for John Smith's readers", TargetURL: "https://www.example.com/",
			AffiliateID: new(int64(1)), AffiliateContactName: new("John Smith"), AffiliateBusinessName: new(example),
		}}},

		// Invoices.
		{"an affiliate registered for GST lists its invoices of February", func() (any, error) {
			return aff2.Invoices(ctx, client.InvoicesParams{From: day(2024, 2, 1), To: day(2024, 2, 29)})
		}, []client.Invoice{{ID: 2, DateCreated: at("2024-02-01T00:00:00.000"), DatePaid: at("2024-02-05T00:00:00.000"),
			Number: "CF-2-0001", Description: "Commissions up to 31/01/2024", SubTotal: "200.0000", GST: new(client.Decimal("20.0000")),
			Total: "220.0000"}}},
		{"an affiliate finds an invoice by its number, without GST", func() (any, error) {
			return aff1.Invoices(ctx, client.InvoicesParams{From: day(2000, 1, 1), To: day(2000, 1, 31), Number: "cf-1-0001"})
		}, []client.Invoice{{ID: 1, DateCreated: at("2000-01-01T00:00:00.000"), DatePaid: at("2000-01-01T00:00:00.000"),
			Number: "CF-1-0001", Description: "Commissions up to 1/01/2000", SubTotal: "100.0000", Total: "100.0000"}}},
		{"an affiliate reads an invoice", func() (any, error) {
			v, err := aff2.Invoice(ctx, 2)
			if err != nil {
				return nil, err
			}
			return []any{v.Number, *v.GST, v.Total}, nil
		}, []any{"CF-2-0001", client.Decimal("20.0000"), client.Decimal("220.0000")}},

		// Affiliates, as the merchant sees them.
		{"a merchant lists its affiliates, a suspended one included", func() (any, error) {
			v, err := m1.Affiliates(ctx, client.AffiliatesParams{Status: client.AffiliateApproved})
			var got [][]any
			for _, a := range v {
				got = append(got, []any{a.ID, a.ContactName, a.BusinessName, a.Status, a.TrafficSources == nil})
			}
			return got, err
		}, [][]any{{int64(1), "John Smith", new(example), client.AffiliateApproved, true},
			{int64(2), "Jane Doe", new("Sample Pty Ltd"), client.AffiliateApproved, true},
			{int64(3), "John Citizen", (*string)(nil), client.AffiliateApproved, true}}},
		{"a merchant reads an affiliate with its traffic sources", func() (any, error) {
			v, err := m1.Affiliate(ctx, 2)
			if err != nil {
				return nil, err
			}
			v.DateModified = time.Time{} // the import's time: the account's DateModified defaults to it
			return v, nil
		}, &client.Affiliate{
			ID: 2, DateCreated: at("2023-07-01T14:00:00.000"), DateApplied: atp("2023-07-02T10:00:00.000"),
			DateApproved: atp("2023-07-02T10:00:00.000"), ContactName: "Jane Doe", BusinessName: new("Sample Pty Ltd"),
			Status: client.AffiliateApproved,
			TrafficSources: []client.TrafficSource{
				{Type: client.TrafficTypeSocialMediaPage, Status: client.TrafficSourceApproved, SocialMediaPageCategory: new("Fashion"),
					SocialMediaPageType: new("Photo sharing"), SocialMediaPageName: new("Sample Style"),
					SocialMediaPageURL: new("https://social.example.com/sample"), SocialMediaPageFollowers: new(int64(12000))},
				{Type: client.TrafficTypeWebsite, Status: client.TrafficSourcePending, WebsiteURL: new("https://www.sample.example.com/"),
					WebsiteName: new("Sample Reviews"), WebsiteCategory: new("Shopping"), WebsiteWeeklyVisitors: new(int64(2500)),
					WebsiteVerified: new(false)},
			},
		}},

		// Reports.
		{"an affiliate's January by traffic type", func() (any, error) {
			return aff1.TrafficTypeReport(ctx, jan)
		}, []client.TrafficTypeReport{
			{TrafficType: client.TrafficTypeWebsite, ReportMetrics: client.ReportMetrics{ClicksTotal: 2, ClicksBot: 1,
				TransactionsApproved: 1, SaleValuePending: "0.00", SaleValueApproved: "100.00", SaleValueVoid: "0.00",
				CommissionPending: "0.00", CommissionApproved: "10.00", CommissionVoid: "0.00"}},
			{TrafficType: client.TrafficTypeEmailList, ReportMetrics: client.ReportMetrics{ClicksTotal: 1, TransactionsPending: 1,
				SaleValuePending: "60.00", SaleValueApproved: "0.00", SaleValueVoid: "0.00",
				CommissionPending: "6.00", CommissionApproved: "0.00", CommissionVoid: "0.00"}},
			{TrafficType: client.TrafficTypeMobileApp, ReportMetrics: client.ReportMetrics{TransactionsPending: 1,
				SaleValuePending: "35.50", SaleValueApproved: "0.00", SaleValueVoid: "0.00",
				CommissionPending: "3.55", CommissionApproved: "0.00", CommissionVoid: "0.00"}},
		}},
		{"an affiliate's January by merchant", func() (any, error) {
			return aff1.MerchantReport(ctx, jan)
		}, []client.MerchantReport{{MerchantID: 1, MerchantName: example, MerchantAvatarURL: avatar1,
			ReportMetrics: client.ReportMetrics{ClicksTotal: 3, ClicksBot: 1, TransactionsPending: 2, TransactionsApproved: 1,
				SaleValuePending: "95.50", SaleValueApproved: "100.00", SaleValueVoid: "0.00",
				CommissionPending: "9.55", CommissionApproved: "10.00", CommissionVoid: "0.00"}}}},
		{"a merchant's January by affiliate, with the network's fees", func() (any, error) {
			return m1.AffiliateReport(ctx, jan)
		}, []client.AffiliateReport{
			{AffiliateID: 1, AffiliateContactName: "John Smith", AffiliateBusinessName: new(example),
				ReportMetrics: client.ReportMetrics{ClicksTotal: 3, ClicksBot: 1, TransactionsPending: 2, TransactionsApproved: 1,
					SaleValuePending: "95.50", SaleValueApproved: "100.00", SaleValueVoid: "0.00",
					CommissionPending: "9.55", CommissionApproved: "10.00", CommissionVoid: "0.00"},
				OverridePending: "2.39", OverrideApproved: "2.50", OverrideVoid: "0.00"},
			{AffiliateID: 2, AffiliateContactName: "Jane Doe", AffiliateBusinessName: new("Sample Pty Ltd"),
				ReportMetrics: client.ReportMetrics{ClicksTotal: 2, TransactionsApproved: 1, TransactionsVoid: 1,
					SaleValuePending: "0.00", SaleValueApproved: "250.00", SaleValueVoid: "80.00",
					CommissionPending: "0.00", CommissionApproved: "25.00", CommissionVoid: "8.00"},
				OverridePending: "0.00", OverrideApproved: "6.25", OverrideVoid: "0.00"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.call()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTheGoClientReturnsTheServersErrors(t *testing.T) {
	s, _ := serveDemo(t)
	ctx := context.Background()
	const (
		msg401 = "The API key is missing, invalid, or for a different account type; or the user account has been suspended or closed."
		msg404 = "The requested item could not be found."
	)
	aff1 := client.New(s.base, "demo-affiliate-1-key").Affiliate()
	m1 := client.New(s.base, "demo-merchant-1-key").Merchant()
	tests := []struct {
		name string
		call func() error
		want *client.Error // an empty Message: the server words it, any non-empty text passes
	}{
		{"an unknown key is a 401", func() error {
			_, err := client.New(s.base, "no-such-key-anywhere-at-all").Merchant().BannerGroups(ctx)
			return err
		}, &client.Error{StatusCode: 401, Message: msg401}},
		{"an affiliate's key on a merchant function is a 401", func() error {
			_, err := client.New(s.base, "demo-affiliate-1-key").Merchant().Transaction(ctx, 1)
			return err
		}, &client.Error{StatusCode: 401, Message: msg401}},
		{"a suspended affiliate's key is a 401", func() error {
			_, err := client.New(s.base, "demo-affiliate-3-key-suspended").Affiliate().Banners(ctx, client.BannersParams{})
			return err
		}, &client.Error{StatusCode: 401, Message: msg401}},
		{"another merchant's transaction is a 404", func() error {
			_, err := m1.Transaction(ctx, 6)
			return err
		}, &client.Error{StatusCode: 404, Message: msg404}},
		{"another affiliate's invoice is a 404", func() error {
			_, err := aff1.Invoice(ctx, 2)
			return err
		}, &client.Error{StatusCode: 404, Message: msg404}},
		{"a banner of a merchant the affiliate has not joined is a 404", func() error {
			_, err := aff1.Banner(ctx, 3, client.LinkParams{})
			return err
		}, &client.Error{StatusCode: 404, Message: msg404}},
		{"an unknown banner group is a 404", func() error {
			_, err := m1.BannerGroup(ctx, 99)
			return err
		}, &client.Error{StatusCode: 404, Message: msg404}},
		{"a list without its dates is a 400 naming fromDate", func() error {
			_, err := m1.Transactions(ctx, client.MerchantTransactionsParams{})
			return err
		}, &client.Error{StatusCode: 400, Message: "fromDate: is required"}},
		{"an enumeration value the server does not know is a 400", func() error {
			_, err := m1.Affiliates(ctx, client.AffiliatesParams{Status: "Joined"})
			return err
		}, &client.Error{StatusCode: 400}},
		{"a deep link to a host the program does not allow is a 400", func() error {
			_, err := aff1.Merchant(ctx, 1, client.LinkParams{TargetURL: "https://evil.example/"})
			return err
		}, &client.Error{StatusCode: 400, Message: `targetUrl: "https://evil.example/" is not on a host the program allows`}},
		{"a conversion with neither click nor coupon is a 422", func() error {
			_, err := m1.RecordConversion(ctx, client.Conversion{OrderID: "NO-CLICK-1", SaleValue: "10.00"})
			return err
		}, &client.Error{StatusCode: 422}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			var got *client.Error
			if !errors.As(err, &got) {
				t.Fatalf("err = %v (%T), want a *client.Error", err, err)
			}
			if got.RequestID == "" {
				t.Error("the error has no request id")
			}
			want := *tt.want
			if want.Message == "" {
				if got.Message == "" {
					t.Error("the error has no message")
				}
				want.Message = got.Message
			}
			got.RequestID = ""
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTheGoClientSaysWhenToRetryAfterTheRateLimit(t *testing.T) {
	s := serve(t, "--demo", "--rate-per-minute", "1")
	m1 := client.New(s.base, "demo-merchant-1-key").Merchant()
	if _, err := m1.BannerGroups(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err := m1.BannerGroups(context.Background())
	var got *client.Error
	if !errors.As(err, &got) || got.StatusCode != 429 || got.RetryAfter < time.Second || got.RetryAfter > time.Minute ||
		got.Message != "The API call rate limit for the user account has been exceeded." {
		t.Fatalf("the second call in a minute: %v, want a 429 with a Retry-After of 1 to 60 s", err)
	}
}

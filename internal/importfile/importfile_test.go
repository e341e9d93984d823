package importfile_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/importfile"
)

func at(s string) time.Time {
	t, err := time.Parse("2006-01-02T15:04:05.000", s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseReadsEveryField(t *testing.T) {
	f, err := os.Open("testdata/full.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sydney, err := time.LoadLocation("Australia/Sydney")
	if err != nil {
		t.Fatal(err)
	}
	got, err := importfile.Parse(f, sydney)
	if err != nil {
		t.Fatal(err)
	}
	created := at("2024-01-02T03:04:05.678")
	want := &afftrack.Dataset{
		Merchants: []afftrack.MerchantRecord{{
			Merchant: afftrack.Merchant{ID: 1, Name: "Example Pty Ltd", AvatarURL: "https://example.com/a.png",
				Status:    afftrack.AccountActive,
				RateLimit: afftrack.RateLimit{PerMinute: afftrack.Some[int64](60), Concurrent: afftrack.Some[int64](0)}},
			APIKeys:     []string{"merchant-one-key-000001"},
			DateCreated: afftrack.Some(at("2023-05-01T09:00:00.000")), DateModified: afftrack.Some(at("2024-01-01T00:00:00.000")),
			Summary: "Shoes and more", Categories: []string{"Clothing & Accessories / Shoes", "Sports"},
		}},
		Affiliates: []afftrack.AffiliateRecord{{
			Affiliate: afftrack.Affiliate{ID: 7, ContactName: "John Smith", BusinessName: "Example Pty Ltd",
				Status: afftrack.AccountSuspended, GSTRegistered: true,
				NotificationURL: "https://aff.example/n?t=[TransactionId]&s=[Status2]"},
			APIKeys:     []string{"affiliate-seven-key-01"},
			DateCreated: afftrack.Some(at("2022-02-02T00:00:00.000")), DateModified: afftrack.Some(at("2023-03-03T03:03:03.000")),
		}},
		Memberships: []afftrack.Membership{{AffiliateID: 7, MerchantID: 1, Status: afftrack.MembershipJoined,
			TrafficType: afftrack.TrafficTypeSearch, TrafficSource: "ads",
			DateApplied: afftrack.Some(at("2023-06-01T00:00:00.000")), DateApproved: afftrack.Some(at("2023-06-02T00:00:00.000")),
			DateModified: afftrack.Some(at("2023-06-03T00:00:00.000")),
			TrafficSources: []afftrack.TrafficSource{
				{Type: afftrack.TrafficTypeWebsite, Status: afftrack.TrafficSourceApproved,
					WebsiteDateCreated: afftrack.Some(at("2020-01-01T00:00:00.000")), WebsiteDateModified: afftrack.Some(at("2021-01-01T00:00:00.000")),
					WebsiteURL: afftrack.Some("https://www.example.com/"), WebsiteName: afftrack.Some("Example"),
					WebsiteDescription: afftrack.Some("A blog"), WebsiteCategory: afftrack.Some("Fashion"),
					WebsiteType: afftrack.Some("Blog"), WebsiteWeeklyVisitors: afftrack.Some[int64](5000),
					WebsiteYearsOnline: afftrack.Some[int64](4), WebsiteChannel: afftrack.Some("Content"),
					WebsiteVerified: afftrack.Some(true)},
				// No Status: Pending, as the membership's traffic source is not approved.
				{Type: afftrack.TrafficTypeEmailList, Status: afftrack.TrafficSourcePending,
					EmailListDateCreated: afftrack.Some(at("2020-02-01T00:00:00.000")), EmailListDateModified: afftrack.Some(at("2021-02-01T00:00:00.000")),
					EmailListName: afftrack.Some("Weekly"), EmailListDescription: afftrack.Some("Deals"),
					EmailListCategory: afftrack.Some("Shopping"), EmailListSize: afftrack.Some[int64](12000),
					EmailListFrequency: afftrack.Some("Weekly"), EmailListOptIn: afftrack.Some("Double")},
				{Type: afftrack.TrafficTypeSocialMediaPage, Status: afftrack.TrafficSourceDeclined,
					SocialMediaPageDateCreated: afftrack.Some(at("2020-03-01T00:00:00.000")), SocialMediaPageDateModified: afftrack.Some(at("2021-03-01T00:00:00.000")),
					SocialMediaPageCategory: afftrack.Some("Lifestyle"), SocialMediaPageType: afftrack.Some("Instagram"),
					SocialMediaPageName: afftrack.Some("@example"), SocialMediaPageURL: afftrack.Some("https://social.example/example"),
					SocialMediaPageFollowers: afftrack.Some[int64](900)},
				{Type: afftrack.TrafficTypeSearch, Status: afftrack.TrafficSourcePending},
			}}},
		Transactions: []afftrack.TransactionRecord{{
			Transaction: afftrack.Transaction{
				ID: 1, MerchantID: 1, DateCreated: created,
				DateModified:    at("2024-01-03T21:00:00.000"), // 10:00Z is 21:00 in Sydney's summer
				ConsumptionDate: created, ValidationDate: created, AffiliateID: 7,
				TrafficType: afftrack.TrafficTypeWebsite, TrafficSource: "https://www.example.com/",
				CreativeType: afftrack.CreativeTypeTextLink, CustomerCountryCode: "AUS", CustomerCountryName: "Australia",
				CustomerIPAddress: "0123456789abcdef0123456789abcdef", CustomerType: afftrack.CustomerTypeNew,
				OrderID: "T0001", TrackingMethod: afftrack.TrackingMethodCookie,
				SaleValue: 1000000, Commission: 105000, OverrideFee: 25000,
				ReportedCurrencyCode: "AUD", ReportedCurrencyName: "Australian Dollar", ReportedSaleValue: 1000000,
				TrafficSourceApproved: true, Status2: afftrack.Status2Paid, InvoiceID: afftrack.Some[int64](12345),
				CouponCode: afftrack.Some("FREE101"), PlacementID: afftrack.Some[int64](3), PlacementName: afftrack.Some("Top"),
				Items: []afftrack.TransactionItem{{
					Sku: "P0001", Quantity: 1, ReportedSaleValue: 5000, SaleValue: 5000, Commission: 500,
					Name: "Example Product 1", Brand: "Example Brand 1", Category: "Clothing",
					CartItemReference: afftrack.Some("42"), CartItemReference2: afftrack.Some("abc"),
				}},
				UniqueIDs: [4]afftrack.Null[string]{afftrack.Some("sub-1"), afftrack.Some(""), {}, afftrack.Some("d")},
			},
			ClaimedContactName:       afftrack.Some("John Smith"),
			ClaimedMerchantName:      afftrack.Some("Example Pty Ltd"),
			ClaimedMerchantAvatarURL: afftrack.Some("https://example.com/a.png"),
		}},
		BannerGroups: []afftrack.BannerGroup{{ID: 2, MerchantID: 1, Name: " Default Group", TargetURL: "https://www.example.com/",
			DateCreated: afftrack.Some(at("1999-12-01T00:00:00.000")), DateModified: afftrack.Some(at("1999-12-02T00:00:00.000")),
			ExpiryDate: afftrack.Some(at("2030-01-01T00:00:00.000"))}},
		Banners: []afftrack.Banner{{ID: 3, MerchantID: 1, DateCreated: at("2000-01-01T00:00:00.000"),
			DateModified: at("2000-01-01T00:00:00.000"), GroupName: " Default Group", Name: "Banner 1",
			TargetURL: "https://www.example.com/", Width: 468, Height: 60, ImageURL: "https://img/1", AltText: "Alt",
			BannerGroupID: afftrack.Some[int64](2), DefaultForSize: true}},
		Invoices: []afftrack.Invoice{{ID: 9, AffiliateID: 7, DateCreated: at("2000-01-01T00:00:00.000"),
			DatePaid: at("2000-01-02T00:00:00.000"), Number: "CF-1-0001", Description: "Commissions",
			SubTotal: 1000000, Total: 1000000}},
		Programs: []afftrack.Program{{MerchantID: 1, TargetURL: "https://shop.example.com/",
			AllowedDomains: []string{"example.com", "other.example"}, CookieDays: 45, ValidationDays: 0, Prepaid: true,
			ClickAppend: "src=aff&cid=[ClickId]", Commission: afftrack.CommissionRule{Percent: afftrack.Some[afftrack.Percent](75000)},
			Rules: []afftrack.CommissionRule{
				{Category: afftrack.Some("Shoes"), Percent: afftrack.Some[afftrack.Percent](120000)},
				{AffiliateID: afftrack.Some[int64](7), CustomerType: afftrack.CustomerTypeReturn, Flat: afftrack.Some[afftrack.Money](50000)},
			},
			OverrideFeePercent: 200000, Listed: false, CommissionType: afftrack.MerchantTypePercentPerSale}},
		ProgramAt: []int{0},
		Coupons: []afftrack.Coupon{
			{ID: 4, MerchantID: 1, Code: "JOHN10", Description: "John's code", AffiliateID: afftrack.Some[int64](7),
				StartDate: afftrack.Some(at("2024-01-01T00:00:00.000")), EndDate: afftrack.Some(at("2024-12-31T00:00:00.000")),
				DateCreated: afftrack.Some(at("2023-12-01T00:00:00.000")), DateModified: afftrack.Some(at("2023-12-02T00:00:00.000")),
				TargetURL: "https://shop.example.com/john", TermsAndConditions: "One per order"},
			{ID: 5, MerchantID: 1, Code: "SALE"},
		},
		Promotions: []afftrack.Promotion{
			{ID: 6, MerchantID: 1, Description: "Winter sale", TargetURL: "https://shop.example.com/winter",
				TermsAndConditions: "While stocks last", StartDate: afftrack.Some(at("2024-06-01T00:00:00.000")),
				EndDate: afftrack.Some(at("2024-08-31T00:00:00.000")), AffiliateID: afftrack.Some[int64](7),
				DateCreated: afftrack.Some(at("2023-11-01T00:00:00.000")), DateModified: afftrack.Some(at("2023-11-02T00:00:00.000"))},
			{ID: 7, MerchantID: 1, Description: "Everyday deals"},
		},
		CurrencyRates: []afftrack.CurrencyRate{{Code: "USD", Date: at("2024-01-01T00:00:00.000"), Rate: 152340001}},
		Clicks: []afftrack.Click{
			{ID: "0123456789abcdef0123456789abcdef", Time: at("2024-01-02T03:00:00.000"), MerchantID: 1, AffiliateID: 7,
				CreativeType: afftrack.CreativeTypeBanner, CreativeID: afftrack.Some[int64](3),
				TrafficType: afftrack.TrafficTypeEmailList, Bot: true, UniqueIDs: [4]string{"a", "b", "c", "d"}},
			// Credited, a Text Link; its TrafficType the store's to find.
			{ID: "fedcba9876543210fedcba9876543210", Time: at("2024-01-03T00:00:00.000"), MerchantID: 1, AffiliateID: 7,
				CreativeType: afftrack.CreativeTypeTextLink, Credited: true},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
}

// strongKey is a key that meets the import's rule.
const strongKey = "k3y-0123456789_abcdefghij"

// tx is a minimal valid transaction; tests splice one field in or out.
const tx = `"Id": 1, "MerchantId": 1, "AffiliateId": 1, "DateCreated": "2024-01-01", "TrafficType": "Website",
 "CreativeType": "Text Link", "CustomerType": "New", "TrackingMethod": "Cookie"`

func TestParseRejectsBadRecords(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"a document that is not an object", `[1]`, "the import file must be one JSON object"},
		{"broken JSON", `{"Merchants": [`, "invalid JSON"},
		{"an unknown collection", `{"Merchant": []}`, "Merchant: is not a collection"},
		{"a collection that is not an array", `{"Merchants": {}}`, "Merchants: must be a JSON array"},
		{"a record that is not an object", `{"Merchants": [1]}`, "Merchants[0]: must be a JSON object"},
		{"a missing id", `{"Merchants": [{"Name": "x"}]}`, "Merchants[0].Id: is required"},
		{"a zero id", `{"Merchants": [{"Id": 0, "Name": "x"}]}`, "Merchants[0].Id: 0 is not a valid id"},
		{"a fractional id", `{"Merchants": [{"Id": 1.5, "Name": "x"}]}`, "Merchants[0].Id: 1.5 is not an integer"},
		{"a quoted id", `{"Merchants": [{"Id": "1", "Name": "x"}]}`, `Merchants[0].Id: "1" is not an integer`},
		{"an id beyond int64", `{"Merchants": [{"Id": 9223372036854775808, "Name": "x"}]}`, "is not an integer"},
		{"an unknown field", `{"Merchants": [{"Id": 1, "Name": "x", "Nmae": "y"}]}`, "Merchants[0].Nmae: is not a field of this record"},
		{"a name with invalid UTF-8", "{\"Merchants\": [{\"Id\": 1, \"Name\": \"a\xffb\"}]}",
			"Merchants[0].Name: holds invalid UTF-8 or a lone UTF-16 surrogate escape, which text cannot keep"},
		{"a name with a lone surrogate", `{"Merchants": [{"Id": 1, "Name": "a\ud800b"}]}`,
			"Merchants[0].Name: holds invalid UTF-8 or a lone UTF-16 surrogate escape"},
		{"a category with a lone surrogate", `{"Merchants": [{"Id": 1, "Name": "x", "Categories": ["Shoes", "\udc00"]}]}`,
			"Merchants[0].Categories[1]: holds invalid UTF-8"},
		{"an item's name with invalid UTF-8", "{\"Transactions\": [{" + tx + ", \"Status2\": \"Pending\", \"Items\": [{\"Sku\": \"a\", \"Quantity\": 1}, {\"Sku\": \"b\", \"Quantity\": 1, \"Name\": \"a\xffb\"}]}]}",
			"Transactions[0].Items[1].Name: holds invalid UTF-8"},
		{"a program's target with invalid UTF-8", "{\"Merchants\": [{\"Id\": 1, \"Name\": \"x\", \"Program\": {\"TargetUrl\": \"https://a.example/\xfe\"}}]}",
			"Merchants[0].Program.TargetUrl: holds invalid UTF-8"},
		{"a rule's category with a lone surrogate", `{"Merchants": [{"Id": 1, "Name": "x", "Program": {"Rules": [{"Percent": 1}, {"Category": "\ud800", "Percent": 1}]}}]}`,
			"Merchants[0].Program.Rules[1].Category: holds invalid UTF-8"},
		{"an allowed domain with a lone surrogate", `{"Merchants": [{"Id": 1, "Name": "x", "Program": {"AllowedDomains": ["a.example", "\ud800"]}}]}`,
			"Merchants[0].Program.AllowedDomains[1]: holds invalid UTF-8"},
		{"a key with invalid UTF-8", "{\"Affiliates\": [{\"Id\": 1, \"ContactName\": \"x\", \"ApiKeys\": [\"" + strongKey + "\xff\"]}]}",
			"Affiliates[0].ApiKeys[0]: holds invalid UTF-8"},
		{"a traffic source's name with a lone surrogate", `{"Memberships": [{"AffiliateId": 1, "MerchantId": 1, "TrafficSources": [{"Type": "Website", "WebsiteName": "\udfff"}]}]}`,
			"Memberships[0].TrafficSources[0].WebsiteName: holds invalid UTF-8"},
		{"an id beyond 2^53 - 1", `{"Merchants": [{"Id": 9007199254740992, "Name": "x"}]}`,
			"Merchants[0].Id: 9007199254740992 is not a valid id; ids are from 1 to 9007199254740991"},
		{"a million-digit id, quoted only in part", `{"Merchants": [{"Id": 1` + strings.Repeat("0", 1_000_000) + `, "Name": "x"}]}`,
			"more bytes)"},
		{"a megabyte-long field name", `{"Merchants": [{"Id": 1, "Name": "x", "` + strings.Repeat("N", 1<<20) + `": 1}]}`,
			"Merchants[0]: the value at byte 38 is longer than 1048576 bytes"},
		{"a long field name", `{"Merchants": [{"Id": 1, "Name": "x", "` + strings.Repeat("N", 5000) + `": 1}]}`,
			"more bytes)"},
		{"a megabyte-long collection name", `{"` + strings.Repeat("C", 1<<20) + `": []}`, "the value at byte 1 is longer than 1048576 bytes"},
		{"a long collection name", `{"` + strings.Repeat("C", 5000) + `": []}`, "more bytes)"},
		{"a key of 257 characters", `{"Merchants": [{"Id": 1, "Name": "x", "ApiKeys": ["` + strings.Repeat("k", 257) + `"]}]}`,
			"Merchants[0].ApiKeys[0]: a key must be 22 to 256 characters"},
		{"an empty merchant name", `{"Merchants": [{"Id": 1, "Name": "  "}]}`, "Merchants[0].Name: must not be empty"},
		{"an empty contact name", `{"Affiliates": [{"Id": 1, "ContactName": ""}]}`, "Affiliates[0].ContactName: must not be empty"},
		{"an unknown account status", `{"Affiliates": [{"Id": 1, "ContactName": "x", "Status": "Gone"}]}`,
			`Affiliates[0].Status: "Gone" is not one of Active, Suspended, Closed`},
		{"a negative rate limit", `{"Merchants": [{"Id": 1, "Name": "x", "RateLimit": {"PerDay": -1}}]}`,
			"Merchants[0].RateLimit.PerDay: -1 is negative"},
		{"an empty key", `{"Merchants": [{"Id": 1, "Name": "x", "ApiKeys": [""]}]}`, "Merchants[0].ApiKeys[0]: a key must be"},
		{"a key with a space", `{"Merchants": [{"Id": 1, "Name": "x", "ApiKeys": ["a b"]}]}`, "Merchants[0].ApiKeys[0]"},
		{"a bad boolean", `{"Affiliates": [{"Id": 1, "ContactName": "x", "GstRegistered": "yes"}]}`,
			`Affiliates[0].GstRegistered: "yes" is not a boolean`},
		{"too many fractional digits", `{"Transactions": [{` + tx + `, "Status2": "Pending", "SaleValue": 1.23456}]}`,
			`Transactions[0].SaleValue: "1.23456" has more than 4 fractional digits`},
		{"a numeric cart reference longer than text may be", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Items": [{"Sku": "a", "Quantity": 1, "CartItemReference2": 1` + strings.Repeat("0", 4096) + `}]}]}`,
			"Transactions[0].Items[0].CartItemReference2: is a number of 4097 bytes; text is at most 4096 bytes"},
		{"item money with three digits", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Items": [{"Sku": "a", "Quantity": 1, "SaleValue": 1.005}]}]}`,
			`Transactions[0].Items[0].SaleValue: "1.005" has more than 2 fractional digits`},
		{"money as a string", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Commission": "1.00"}]}`,
			`Transactions[0].Commission: "1.00" must be a JSON number, not a string`},
		{"a bad date", `{"Transactions": [{` + tx + `, "Status2": "Pending", "DateModified": "2024-02-30"}]}`,
			`Transactions[0].DateModified: "2024-02-30" is not a date`},
		{"an unknown enum value", `{"Transactions": [{` + tx + `, "Status2": "Done"}]}`,
			`Transactions[0].Status2: "Done" is not one of Pending, Locked, Approved, Paid, Void`},
		{"a missing Status2", `{"Transactions": [{` + tx + `}]}`, "Transactions[0].Status2: is required"},
		{"a Paid transaction without an invoice", `{"Transactions": [{` + tx + `, "Status2": "Paid"}]}`,
			"Transactions[0].InvoiceId: a Paid transaction must have an InvoiceId"},
		{"a Void transaction without a reason", `{"Transactions": [{` + tx + `, "Status2": "Void"}]}`,
			"Transactions[0].VoidReason: a Void transaction must have a VoidReason"},
		{"a pending transaction with an invoice", `{"Transactions": [{` + tx + `, "Status2": "Pending", "InvoiceId": 4}]}`,
			"Transactions[0].InvoiceId: only a Paid transaction has an InvoiceId"},
		{"a void reason on an approved transaction", `{"Transactions": [{` + tx + `, "Status2": "Approved", "VoidReason": "Cancelled Order"}]}`,
			"Transactions[0].VoidReason: only a Void transaction has a VoidReason"},
		{"a Status that disagrees", `{"Transactions": [{` + tx + `, "Status2": "Locked", "Status": "Approved"}]}`,
			`Transactions[0].Status: "Approved" does not agree with Status2 "Locked"`},
		{"a control character", `{"Transactions": [{` + tx + `, "Status2": "Pending", "OrderId": "a\u0001b"}]}`,
			"Transactions[0].OrderId: contains a character XML cannot carry"},
		{"a category with a control character", `{"Merchants": [{"Id": 1, "Name": "x", "Categories": ["Shoes", "A\u0001"]}]}`,
			"Merchants[0].Categories[1]: contains a character XML cannot carry (at byte 1)"},
		{"a category with a NUL", `{"Merchants": [{"Id": 1, "Name": "x", "Categories": ["A\u0000B"]}]}`,
			"Merchants[0].Categories[0]: contains a character XML cannot carry (at byte 1)"},
		{"a category with U+FFFE", `{"Merchants": [{"Id": 1, "Name": "x", "Categories": ["A\ufffe"]}]}`,
			"Merchants[0].Categories[0]: contains a character XML cannot carry (at byte 1)"},
		{"a rule's category with a control character", `{"Merchants": [{"Id": 1, "Name": "x", "Program": {"Rules": [{"Category": "\u0002", "Percent": 1}]}}]}`,
			"Merchants[0].Program.Rules[0].Category: contains a character XML cannot carry"},
		{"a program's click append with a NUL", `{"Merchants": [{"Id": 1, "Name": "x", "Program": {"ClickAppend": "a=\u0000"}}]}`,
			"Merchants[0].Program.ClickAppend: contains a character XML cannot carry"},
		{"an item's brand with U+FFFF", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Items": [{"Sku": "a", "Quantity": 1, "Brand": "\uffff"}]}]}`,
			"Transactions[0].Items[0].Brand: contains a character XML cannot carry"},
		{"a traffic source's name with a control character", `{"Memberships": [{"AffiliateId": 1, "MerchantId": 1, "TrafficSources": [{"Type": "Website", "WebsiteName": "\u001f"}]}]}`,
			"Memberships[0].TrafficSources[0].WebsiteName: contains a character XML cannot carry"},
		{"a coupon's code with a NUL", `{"Coupons": [{"Id": 1, "MerchantId": 1, "Code": "A\u0000"}]}`,
			"Coupons[0].Code: contains a character XML cannot carry"},
		{"an item without a quantity", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Items": [{"Sku": "a"}]}]}`,
			"Transactions[0].Items[0].Quantity: is required"},
		{"a banner without size", `{"Banners": [{"Id": 1, "MerchantId": 1, "DateCreated": "2024-01-01", "Width": 0, "Height": 60}]}`,
			"Banners[0].Width: a banner's width and height must be positive"},
		{"a banner without height", `{"Banners": [{"Id": 1, "MerchantId": 1, "DateCreated": "2024-01-01", "Width": 468, "Height": 0}]}`,
			"Banners[0].Height: a banner's width and height must be positive"},
		{"an invoice with a bad GST", `{"Invoices": [{"Id": 1, "AffiliateId": 1, "DateCreated": "2024-01-01", "GST": 1.00001}]}`,
			"Invoices[0].GST"},
		{"the second record is the bad one", `{"Merchants": [{"Id": 1, "Name": "x"}, {"Id": 2}]}`, "Merchants[1].Name: is required"},
		{"an id given twice in one collection", `{"Merchants": [{"Id": 7, "Name": "x"}, {"Id": 8, "Name": "y"}, {"Id": 7, "Name": "z"}]}`,
			"Merchants[2].Id: 7 is also Merchants[0].Id"},
		{"a transaction id given twice", `{"Transactions": [{` + tx + `, "Status2": "Pending"}, {` + tx + `, "Status2": "Pending"}]}`,
			"Transactions[1].Id: 1 is also Transactions[0].Id"},
		{"a membership given twice", `{"Memberships": [{"AffiliateId": 1, "MerchantId": 2}, {"AffiliateId": 1, "MerchantId": 2}]}`,
			"Memberships[1].AffiliateId: affiliate 1 and merchant 2 are also Memberships[0]"},
		{"a key given twice", `{"Merchants": [{"Id": 1, "Name": "x", "ApiKeys": ["` + strongKey + `"]}], "Affiliates": [{"Id": 1, "ContactName": "y", "ApiKeys": ["` + strongKey + `"]}]}`,
			"Affiliates[0].ApiKeys[0]: the key is also Merchants[0].ApiKeys[0]"},
		{"a field given twice in one object", `{"Merchants": [{"Id": 1, "Name": "x", "Id": 2}]}`,
			`Merchants[0].Id: is given twice in one object (also as "Id")`},
		{"a field given twice in different case", `{"Merchants": [{"Id": 1, "Name": "x", "name": "y"}]}`,
			`Merchants[0].name: is given twice in one object (also as "Name")`},
		{"a field given twice in a nested object", `{"Merchants": [{"Id": 1, "Name": "x", "RateLimit": {"PerDay": 1, "PerDay": 2}}]}`,
			`Merchants[0].RateLimit.PerDay: is given twice in one object`},
		{"a field given twice in an item", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Items": [{"Sku": "a", "Quantity": 1, "Sku": "b"}]}]}`,
			`Transactions[0].Items[0].Sku: is given twice in one object`},
		{"a collection given twice", `{"Merchants": [], "merchants": []}`, "Merchants: is given twice in the file"},
		{"a datetime before year 1 once converted", `{"Transactions": [{` + tx + `, "Status2": "Pending", "DateModified": "0001-01-01T00:00:00+05:00"}]}`,
			`Transactions[0].DateModified: "0001-01-01T00:00:00+05:00" is in year 0 in the network's time zone; datetimes must fall in years 0001 to 9999`},
		{"a text longer than 4 KiB", `{"Merchants": [{"Id": 1, "Name": "` + strings.Repeat("n", 4097) + `"}]}`,
			"Merchants[0].Name: is 4097 bytes long; text is at most 4096 bytes"},
		{"a URL longer than 2 KiB", `{"Merchants": [{"Id": 1, "Name": "x", "AvatarUrl": "https://example.com/` + strings.Repeat("a", 2048) + `"}]}`,
			"Merchants[0].AvatarUrl: is 2068 bytes long; a URL is at most 2048 bytes"},
		{"a javascript: URL", `{"Banners": [{"Id": 1, "MerchantId": 1, "DateCreated": "2024-01-01", "Width": 1, "Height": 1, "TargetUrl": "javascript:alert(1)"}]}`,
			`Banners[0].TargetUrl: "javascript:alert(1)" is not an absolute http or https URL without user information`},
		{"a relative URL", `{"Banners": [{"Id": 1, "MerchantId": 1, "DateCreated": "2024-01-01", "Width": 1, "Height": 1, "ImageUrl": "/img.png"}]}`,
			`Banners[0].ImageUrl: "/img.png" is not an absolute http or https URL`},
		{"a data: URL", `{"Merchants": [{"Id": 1, "Name": "x", "AvatarUrl": "data:image/png;base64,AAAA"}]}`,
			`Merchants[0].AvatarUrl: "data:image/png;base64,AAAA" is not an absolute http or https URL`},
		{"a URL with user information", `{"Merchants": [{"Id": 1, "Name": "x", "AvatarUrl": "https://user:pw@example.com/a.png"}]}`,
			`Merchants[0].AvatarUrl: "https://user:pw@example.com/a.png" is not an absolute http or https URL without user information`},
		{"more items than a transaction may have", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Items": [` +
			strings.Repeat(`{"Sku": "a", "Quantity": 1},`, importfile.MaxItems) + `{"Sku": "a", "Quantity": 1}]}]}`,
			"Transactions[0].Items: has 10001 items; at most 10000"},
		{"an item quantity of zero", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Items": [{"Sku": "a", "Quantity": 0}]}]}`,
			"Transactions[0].Items[0].Quantity: 0 is not positive"},
		{"a negative item quantity", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Items": [{"Sku": "a", "Quantity": -2}]}]}`,
			"Transactions[0].Items[0].Quantity: -2 is not positive"},
		{"a key shorter than 22 characters", `{"Merchants": [{"Id": 1, "Name": "x", "ApiKeys": ["` + strongKey + `", "short-key-0123456789"]}]}`,
			"Merchants[0].ApiKeys[1]: a key must be 22 to 256 characters of A-Z a-z 0-9 - _, drawn at random (22 of them carry 132 bits)"},
		{"a key outside the alphabet", `{"Merchants": [{"Id": 1, "Name": "x", "ApiKeys": ["abcdefghijklmnopqrstuvwx.z"]}]}`,
			"Merchants[0].ApiKeys[0]: a key must be 22 to 256 characters"},
		{"a rate dated with a time, even midnight", `{"CurrencyRates": [{"Code": "USD", "Date": "2024-01-01T00:00", "Rate": 1.5}]}`,
			`CurrencyRates[0].Date: "2024-01-01T00:00" must be a day (YYYY-MM-DD), without a time`},
		{"a rate dated other than as a day", `{"CurrencyRates": [{"Code": "USD", "Date": "2024-1-1", "Rate": 1.5}]}`,
			`CurrencyRates[0].Date: "2024-1-1" is not a day; use YYYY-MM-DD`},
		{"a rate dated with a time of day", `{"CurrencyRates": [{"Code": "USD", "Date": "2024-01-01T10:00:00", "Rate": 1.5}]}`,
			`CurrencyRates[0].Date: "2024-01-01T10:00:00" must be a day (YYYY-MM-DD), without a time`},
		{"a value nested 100,000 deep", `{"Merchants": [{"Id": 1, "Name": "x", "Program": ` + strings.Repeat("[", 100_000) +
			strings.Repeat("]", 100_000) + `}]}`, "Merchants[0]: invalid JSON at byte 10045: a value is nested too deeply"},
	}
	tests = append(tests, v1SurfaceRejects...)
	for _, tt := range tests {
		t.Run(tt.name+" is rejected with a precise message", func(t *testing.T) {
			_, err := importfile.Parse(strings.NewReader(tt.doc), time.UTC)
			if err == nil {
				t.Fatalf("Parse accepted %s", tt.doc)
			}
			if afftrack.ErrorCode(err) != afftrack.EINVALID {
				t.Errorf("code = %s, want %s", afftrack.ErrorCode(err), afftrack.EINVALID)
			}
			msg := afftrack.ErrorMessage(err)
			if !strings.Contains(msg, tt.want) {
				t.Errorf("message = %.2000q, want it to contain %q", msg, tt.want)
			}
			if len(msg) > 1024 {
				t.Errorf("message of %d bytes, want at most 1024", len(msg))
			}
		})
	}
}

func TestParseAcceptsSparseRecords(t *testing.T) {
	doc := `{"Merchants": null, "transactions": [{` + tx + `, "Status2": "Void", "VoidReason": "cancelled order", "Items": null}]}`
	d, err := importfile.Parse(strings.NewReader(doc), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	got := d.Transactions[0].Transaction
	if got.DateModified != got.DateCreated || got.VoidReason != afftrack.VoidReasonCancelledOrder || got.Items != nil {
		t.Errorf("defaults not applied: %+v", got)
	}
}

func FuzzParse(f *testing.F) {
	full, err := os.ReadFile("testdata/full.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(full))
	f.Add(`{"Transactions": [{` + tx + `, "Status2": "Pending"}]}`)
	f.Add(`{"Merchants": [{"Id": 1, "Name": "x", "RateLimit": {"PerDay": 5}}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		d, err := importfile.Parse(strings.NewReader(doc), time.UTC)
		if err != nil {
			if afftrack.ErrorCode(err) != afftrack.EINVALID {
				t.Fatalf("error %v has code %s, want invalid", err, afftrack.ErrorCode(err))
			}
			return
		}
		for _, r := range d.Transactions {
			if err := r.Validate(); err != nil {
				t.Fatalf("accepted a transaction that breaks an invariant: %v", err)
			}
		}
	})
}

func TestReaderStreamsInChunksInTheStoresOrder(t *testing.T) {
	// Keys in alphabetical order, as many encoders write them: Banners and
	// Memberships come before the Merchants they refer to.
	doc := `{"Affiliates": [{"Id": 1, "ContactName": "a"}],
		"Banners": [{"Id": 5, "MerchantId": 1, "DateCreated": "2024-01-01", "Width": 1, "Height": 1}],
		"Memberships": [{"AffiliateId": 1, "MerchantId": 1}],
		"Merchants": [{"Id": 1, "Name": "m1"}, {"Id": 2, "Name": "m2"}, {"Id": 3, "Name": "m3"}],
		"Transactions": [{` + tx + `, "Status2": "Pending"}]}`
	rd := importfile.NewReader(context.Background(), strings.NewReader(doc), importfile.Options{ChunkSize: 2})
	defer rd.Close()
	type chunk struct {
		Collection string
		Records    int
		Start      int
	}
	var got []chunk
	eachChunk(t, rd, func(d *afftrack.Dataset) {
		for _, c := range []chunk{
			{"Merchants", len(d.Merchants), d.Start.Merchants},
			{"Affiliates", len(d.Affiliates), d.Start.Affiliates},
			{"Memberships", len(d.Memberships), d.Start.Memberships},
			{"Transactions", len(d.Transactions), d.Start.Transactions},
			{"Banners", len(d.Banners), d.Start.Banners},
		} {
			if c.Records > 0 {
				got = append(got, c)
			}
		}
	})
	want := []chunk{
		{"Merchants", 2, 0}, {"Merchants", 1, 2}, {"Affiliates", 1, 0}, {"Memberships", 1, 0},
		{"Transactions", 1, 0}, {"Banners", 1, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}

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

// The records of v1-surface.md section 7's additions, as tests splice
// them: a merchant, a membership, a banner group, a promotion, a click.
const (
	v1Merchant  = `"Id": 1, "Name": "x"`
	v1Member    = `"AffiliateId": 1, "MerchantId": 1`
	v1Group     = `"Id": 1, "MerchantId": 1, "Name": "Spring", "TargetUrl": "https://shop.example/"`
	v1Promotion = `"Id": 1, "MerchantId": 1, "Description": "Sale"`
	v1Click     = `"ClickId": "0123456789abcdef0123456789abcdef", "Date": "2024-01-01", "MerchantId": 1, "AffiliateId": 1`
	v1Banner    = `"Id": 1, "MerchantId": 1, "DateCreated": "2024-01-01", "Width": 1, "Height": 1`
)

// v1SurfaceRejects are TestParseRejectsBadRecords' cases of the
// additions: every error they add.
var v1SurfaceRejects = []struct{ name, doc, want string }{
	{"an unknown collection names every collection", `{"Promotion": []}`,
		"Promotion: is not a collection; use Merchants, Affiliates, Memberships, Transactions, BannerGroups, Banners, " +
			"Invoices, Coupons, Promotions, CurrencyRates or Clicks"},

	{"a merchant's bad DateCreated", `{"Merchants": [{` + v1Merchant + `, "DateCreated": "2024-13-01"}]}`,
		`Merchants[0].DateCreated: "2024-13-01" is not a date`},
	{"Categories that are not an array", `{"Merchants": [{` + v1Merchant + `, "Categories": "Shoes"}]}`,
		"Merchants[0].Categories: must be an array of strings"},
	{"four categories", `{"Merchants": [{` + v1Merchant + `, "Categories": ["A", "B", "C", "D"]}]}`,
		"Merchants[0].Categories: has 4 categories; a merchant has at most 3"},
	{"a category with a slash", `{"Merchants": [{` + v1Merchant + `, "Categories": ["A", "B/C"]}]}`,
		`Merchants[0].Categories[1]: "B/C" is not a category: ` + "`Parent` or `Parent / Child`" + `, each part 1 to 100 characters without /`},
	{"a category of three levels", `{"Merchants": [{` + v1Merchant + `, "Categories": ["A / B / C"]}]}`,
		`Merchants[0].Categories[0]: "A / B / C" is not a category`},
	{"an empty category", `{"Merchants": [{` + v1Merchant + `, "Categories": [""]}]}`,
		`Merchants[0].Categories[0]: "" is not a category`},
	{"a category without its child", `{"Merchants": [{` + v1Merchant + `, "Categories": ["A / "]}]}`,
		`Merchants[0].Categories[0]: "A / " is not a category`},
	{"a category part of 101 characters", `{"Merchants": [{` + v1Merchant + `, "Categories": ["A / ` + strings.Repeat("é", 101) + `"]}]}`,
		`Merchants[0].Categories[0]: "A / ` + strings.Repeat("é", 101) + `" is not a category`},
	{"a category given twice", `{"Merchants": [{` + v1Merchant + `, "Categories": ["A / B", "A / B"]}]}`,
		`Merchants[0].Categories[1]: "A / B" is also Categories[0]`},
	{"a Listed that is not a boolean", `{"Merchants": [{` + v1Merchant + `, "Program": {"Listed": "yes"}}]}`,
		`Merchants[0].Program.Listed: "yes" is not a boolean`},
	{"an unknown CommissionType", `{"Merchants": [{` + v1Merchant + `, "Program": {"CommissionType": "Per Click"}}]}`,
		`Merchants[0].Program.CommissionType: "Per Click" is not one of Percent per Sale, Dollar per Sale, Dollar per Lead`},
	{"Percent per Sale of a Flat commission", `{"Merchants": [{` + v1Merchant + `, "Program": {"Commission": {"Flat": 5}, "CommissionType": "Percent per Sale"}}]}`,
		"Merchants[0].Program.CommissionType: Percent per Sale needs a Commission with a Percent"},
	{"Dollar per Lead of a Percent commission", `{"Merchants": [{` + v1Merchant + `, "Program": {"Commission": {"Percent": 5}, "CommissionType": "Dollar per Lead"}}]}`,
		"Merchants[0].Program.CommissionType: Dollar per Lead needs a Commission with a Flat"},
	{"Dollar per Sale without a commission", `{"Merchants": [{` + v1Merchant + `, "Program": {"CommissionType": "Dollar per Sale"}}]}`,
		"Merchants[0].Program.CommissionType: Dollar per Sale needs a Commission with a Flat"},
	{"an affiliate's bad DateModified", `{"Affiliates": [{"Id": 1, "ContactName": "x", "DateModified": "yesterday"}]}`,
		`Affiliates[0].DateModified: "yesterday" is not a date`},

	{"an Invited membership's DateApplied", `{"Memberships": [{` + v1Member + `, "Status": "Invited", "DateApplied": "2024-01-01"}]}`,
		"Memberships[0].DateApplied: an Invited membership has no DateApplied"},
	{"a Pending membership's DateApproved", `{"Memberships": [{` + v1Member + `, "Status": "Pending", "DateApproved": "2024-01-01"}]}`,
		"Memberships[0].DateApproved: only a Joined membership has a DateApproved, this one is Pending"},
	{"a DateApproved before the DateApplied", `{"Memberships": [{` + v1Member + `, "DateApplied": "2024-01-02", "DateApproved": "2024-01-01"}]}`,
		"Memberships[0].DateApproved: is before DateApplied"},
	{"TrafficSources that are not an array", `{"Memberships": [{` + v1Member + `, "TrafficSources": {}}]}`,
		"Memberships[0].TrafficSources: must be an array of traffic source objects"},
	{"too many traffic sources", `{"Memberships": [{` + v1Member + `, "TrafficSources": [` +
		strings.Repeat(`{"Type": "Other"}, `, 100) + `{"Type": "Other"}]}]}`,
		"Memberships[0].TrafficSources: has 101 elements; at most 100"},
	{"a traffic source that is not an object", `{"Memberships": [{` + v1Member + `, "TrafficSources": [1]}]}`,
		"Memberships[0].TrafficSources[0]: must be a JSON object"},
	{"a traffic source without a Type", `{"Memberships": [{` + v1Member + `, "TrafficSources": [{"Status": "Approved"}]}]}`,
		"Memberships[0].TrafficSources[0].Type: is required"},
	{"a traffic source of an unknown Type", `{"Memberships": [{` + v1Member + `, "TrafficSources": [{"Type": "Radio"}]}]}`,
		`Memberships[0].TrafficSources[0].Type: "Radio" is not one of Website, Email List`},
	{"a traffic source of an unknown Status", `{"Memberships": [{` + v1Member + `, "TrafficSources": [{"Type": "Website", "Status": "Maybe"}]}]}`,
		`Memberships[0].TrafficSources[0].Status: "Maybe" is not one of Approved, Declined, Pending`},
	{"a Website source with an Email List field", `{"Memberships": [{` + v1Member + `, "TrafficSources": [{"Type": "Website", "WebsiteName": "a"}, {"Type": "Website", "EmailListName": "b"}]}]}`,
		"Memberships[0].TrafficSources[1].EmailListName: is a field of the Email List group, not of a Website source"},
	{"an Email List source with a Social Media Page field", `{"Memberships": [{` + v1Member + `, "TrafficSources": [{"Type": "Email List", "SocialMediaPageFollowers": 3}]}]}`,
		"Memberships[0].TrafficSources[0].SocialMediaPageFollowers: is a field of the Social Media Page group, not of an Email List source"},
	{"a Search source with a Website field", `{"Memberships": [{` + v1Member + `, "TrafficSources": [{"Type": "Search", "WebsiteUrl": "https://a.example/"}]}]}`,
		"Memberships[0].TrafficSources[0].WebsiteUrl: is a field of the Website group, not of a Search source"},
	{"a traffic source's unknown field", `{"Memberships": [{` + v1Member + `, "TrafficSources": [{"Type": "Website", "WebsiteNmae": "a"}]}]}`,
		"Memberships[0].TrafficSources[0].WebsiteNmae: is not a field of this record"},
	{"negative weekly visitors", `{"Memberships": [{` + v1Member + `, "TrafficSources": [{"Type": "Website", "WebsiteWeeklyVisitors": -1}]}]}`,
		"Memberships[0].TrafficSources[0].WebsiteWeeklyVisitors: -1 is negative"},
	{"a social media page's relative URL", `{"Memberships": [{` + v1Member + `, "TrafficSources": [{"Type": "Social Media Page", "SocialMediaPageUrl": "/me"}]}]}`,
		`Memberships[0].TrafficSources[0].SocialMediaPageUrl: "/me" is not an absolute http or https URL`},
	{"a Website's Verified that is not a boolean", `{"Memberships": [{` + v1Member + `, "TrafficSources": [{"Type": "Website", "WebsiteVerified": 1}]}]}`,
		"Memberships[0].TrafficSources[0].WebsiteVerified: 1 is not a boolean"},

	{"a UniqueId of 256 characters", `{"Transactions": [{` + tx + `, "Status2": "Pending", "UniqueId2": "` + strings.Repeat("ü", 256) + `"}]}`,
		"Transactions[0].UniqueId2: is 256 characters long; at most 255"},
	{"Paid on a Pending transaction", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Paid": true}]}`,
		`Transactions[0].Paid: true does not agree with Status2 "Pending": Paid is true exactly when Status2 is Paid`},
	{"not Paid on a Paid transaction", `{"Transactions": [{` + tx + `, "Status2": "Paid", "InvoiceId": 1, "Paid": "false"}]}`,
		`Transactions[0].Paid: false does not agree with Status2 "Paid"`},
	{"a MerchantName that is not text", `{"Transactions": [{` + tx + `, "Status2": "Pending", "MerchantName": 5}]}`,
		"Transactions[0].MerchantName: 5 is not a string"},

	{"a banner group without a Name", `{"BannerGroups": [{"Id": 1, "MerchantId": 1, "TargetUrl": "https://a.example/"}]}`,
		"BannerGroups[0].Name: is required"},
	{"a banner group of an empty Name", `{"BannerGroups": [{"Id": 1, "MerchantId": 1, "Name": " ", "TargetUrl": "https://a.example/"}]}`,
		"BannerGroups[0].Name: must not be empty"},
	{"a banner group without a TargetUrl", `{"BannerGroups": [{"Id": 1, "MerchantId": 1, "Name": "a"}]}`,
		"BannerGroups[0].TargetUrl: is required"},
	{"a banner group without a MerchantId", `{"BannerGroups": [{"Id": 1, "Name": "a", "TargetUrl": "https://a.example/"}]}`,
		"BannerGroups[0].MerchantId: is required"},
	{"a banner group's bad ExpiryDate", `{"BannerGroups": [{` + v1Group + `, "ExpiryDate": "never"}]}`,
		`BannerGroups[0].ExpiryDate: "never" is not a date`},
	{"a banner group id given twice", `{"BannerGroups": [{` + v1Group + `}, {` + v1Group + `}]}`,
		"BannerGroups[1].Id: 1 is also BannerGroups[0].Id"},
	{"a banner group name given twice for a merchant", `{"BannerGroups": [{` + v1Group + `}, {"Id": 2, "MerchantId": 2, "Name": "Spring", "TargetUrl": "https://a.example/"}, {"Id": 3, "MerchantId": 1, "Name": "Spring", "TargetUrl": "https://a.example/"}]}`,
		`BannerGroups[2].Name: "Spring" is also the name of BannerGroups[0] of merchant 1`},
	{"a banner's BannerGroupId of 0", `{"Banners": [{` + v1Banner + `, "BannerGroupId": 0}]}`,
		"Banners[0].BannerGroupId: 0 is not a valid id; ids are from 1 to 9007199254740991"},
	{"a banner's DefaultForSize that is not a boolean", `{"Banners": [{` + v1Banner + `, "DefaultForSize": "maybe"}]}`,
		`Banners[0].DefaultForSize: "maybe" is not a boolean`},

	{"a coupon's bad TargetUrl", `{"Coupons": [{"Id": 1, "MerchantId": 1, "Code": "A", "TargetUrl": "ftp://a.example/"}]}`,
		`Coupons[0].TargetUrl: "ftp://a.example/" is not an absolute http or https URL`},
	{"a coupon's bad DateCreated", `{"Coupons": [{"Id": 1, "MerchantId": 1, "Code": "A", "DateCreated": "x"}]}`,
		`Coupons[0].DateCreated: "x" is not a date`},
	{"a promotion without a Description", `{"Promotions": [{"Id": 1, "MerchantId": 1}]}`,
		"Promotions[0].Description: is required"},
	{"a promotion that ends before it starts", `{"Promotions": [{` + v1Promotion + `, "StartDate": "2024-02-01", "EndDate": "2024-01-31"}]}`,
		"Promotions[0].EndDate: is before StartDate"},
	{"a promotion's AffiliateId of 0", `{"Promotions": [{` + v1Promotion + `, "AffiliateId": 0}]}`,
		"Promotions[0].AffiliateId: 0 is not a valid id; ids are from 1 to 9007199254740991"},
	{"a promotion id given twice", `{"Promotions": [{` + v1Promotion + `}, {` + v1Promotion + `}]}`,
		"Promotions[1].Id: 1 is also Promotions[0].Id"},
	{"a promotion's unknown field", `{"Promotions": [{` + v1Promotion + `, "Code": "A"}]}`,
		"Promotions[0].Code: is not a field of this record"},

	{"a click without a ClickId", `{"Clicks": [{"Date": "2024-01-01", "MerchantId": 1, "AffiliateId": 1}]}`,
		"Clicks[0].ClickId: is required"},
	{"a click id of 31 digits", `{"Clicks": [{"ClickId": "0123456789abcdef0123456789abcde", "Date": "2024-01-01", "MerchantId": 1, "AffiliateId": 1}]}`,
		`Clicks[0].ClickId: "0123456789abcdef0123456789abcde" is not a click id: 32 hexadecimal digits`},
	{"a click without a Date", `{"Clicks": [{"ClickId": "0123456789abcdef0123456789abcdef", "MerchantId": 1, "AffiliateId": 1}]}`,
		"Clicks[0].Date: is required"},
	{"a click without an AffiliateId", `{"Clicks": [{"ClickId": "0123456789abcdef0123456789abcdef", "Date": "2024-01-01", "MerchantId": 1}]}`,
		"Clicks[0].AffiliateId: is required"},
	{"a Text Link click with a CreativeId", `{"Clicks": [{` + v1Click + `, "CreativeId": 4}]}`,
		"Clicks[0].CreativeId: a Text Link click has no CreativeId"},
	{"a Banner click without a CreativeId", `{"Clicks": [{` + v1Click + `, "CreativeType": "Banner"}]}`,
		"Clicks[0].CreativeId: a Banner click names its banner in CreativeId"},
	{"a Data Feed click", `{"Clicks": [{` + v1Click + `, "CreativeType": "Data Feed", "CreativeId": 1}]}`,
		`Clicks[0].CreativeType: "Data Feed" is not a creative a link is of: Text Link, Banner, Coupon or Promotion`},
	{"a click's unknown TrafficType", `{"Clicks": [{` + v1Click + `, "TrafficType": "Radio"}]}`,
		`Clicks[0].TrafficType: "Radio" is not one of Website`},
	{"a click's Bot that is not a boolean", `{"Clicks": [{` + v1Click + `, "Bot": "no"}]}`,
		`Clicks[0].Bot: "no" is not a boolean`},
	{"a click's UniqueId4 of 256 characters", `{"Clicks": [{` + v1Click + `, "UniqueId4": "` + strings.Repeat("u", 256) + `"}]}`,
		"Clicks[0].UniqueId4: is 256 characters long; at most 255"},
	{"a click id given twice, in another case", `{"Clicks": [{` + v1Click + `}, {"ClickId": "0123456789ABCDEF0123456789ABCDEF", "Date": "2024-01-02", "MerchantId": 2, "AffiliateId": 2}]}`,
		"Clicks[1].ClickId: 0123456789abcdef0123456789abcdef is also Clicks[0].ClickId"},
}

func TestParseAcceptsSparseAdditions(t *testing.T) {
	doc := `{"Merchants": [{` + v1Merchant + `, "Categories": [], "Program": {"Commission": {"Flat": 2}}}],
		"Memberships": [{` + v1Member + `, "Status": "Invited", "TrafficSources": [{"Type": "Website"}]},
			{"AffiliateId": 2, "MerchantId": 1, "Status": "Pending", "DateApplied": "2024-01-01",
			 "TrafficSourceApproved": false, "TrafficSources": null}],
		"BannerGroups": [{` + v1Group + `}, {"Id": 2, "MerchantId": 2, "Name": "Spring", "TargetUrl": "https://two.example/"}],
		"Banners": [{` + v1Banner + `, "GroupName": "Spring", "BannerGroupId": 1}],
		"Promotions": [{` + v1Promotion + `}],
		"Clicks": [{` + v1Click + `, "CreativeType": "promotion", "CreativeId": 1, "Bot": true}]}`
	d, err := importfile.Parse(strings.NewReader(doc), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	want := &afftrack.Dataset{
		Merchants: []afftrack.MerchantRecord{{Merchant: afftrack.Merchant{ID: 1, Name: "x", Status: afftrack.AccountActive},
			Categories: []string{}}},
		Programs: []afftrack.Program{{MerchantID: 1, CookieDays: afftrack.DefaultCookieDays,
			ValidationDays: afftrack.DefaultValidationDays, ClickAppend: afftrack.DefaultClickAppend,
			Commission: afftrack.CommissionRule{Flat: afftrack.Some[afftrack.Money](20000)}, Listed: true}},
		ProgramAt: []int{0},
		Memberships: []afftrack.Membership{
			{AffiliateID: 1, MerchantID: 1, Status: afftrack.MembershipInvited, TrafficType: afftrack.TrafficTypeWebsite,
				TrafficSourceApproved: true,
				TrafficSources:        []afftrack.TrafficSource{{Type: afftrack.TrafficTypeWebsite, Status: afftrack.TrafficSourceApproved}}},
			{AffiliateID: 2, MerchantID: 1, Status: afftrack.MembershipPending, TrafficType: afftrack.TrafficTypeWebsite,
				DateApplied: afftrack.Some(at("2024-01-01T00:00:00.000"))},
		},
		BannerGroups: []afftrack.BannerGroup{
			{ID: 1, MerchantID: 1, Name: "Spring", TargetURL: "https://shop.example/"},
			{ID: 2, MerchantID: 2, Name: "Spring", TargetURL: "https://two.example/"},
		},
		Banners: []afftrack.Banner{{ID: 1, MerchantID: 1, DateCreated: at("2024-01-01T00:00:00.000"),
			DateModified: at("2024-01-01T00:00:00.000"), GroupName: "Spring", BannerGroupID: afftrack.Some[int64](1),
			Width: 1, Height: 1}},
		Promotions: []afftrack.Promotion{{ID: 1, MerchantID: 1, Description: "Sale"}},
		Clicks: []afftrack.Click{{ID: "0123456789abcdef0123456789abcdef", Time: at("2024-01-01T00:00:00.000"),
			MerchantID: 1, AffiliateID: 1, CreativeType: afftrack.CreativeTypePromotion, CreativeID: afftrack.Some[int64](1),
			Bot: true}},
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestReaderPutsBannerGroupsBeforeBannersAndClicksLast(t *testing.T) {
	// Alphabetical keys: Banners and BannerGroups before Merchants, Clicks
	// before everything it names.
	doc := `{"BannerGroups": [{` + v1Group + `}], "Banners": [{` + v1Banner + `}], "Clicks": [{` + v1Click + `}],
		"Merchants": [{` + v1Merchant + `}], "Promotions": [{` + v1Promotion + `}]}`
	rd := importfile.NewReader(context.Background(), strings.NewReader(doc), importfile.Options{})
	defer rd.Close()
	var got []string
	eachChunk(t, rd, func(d *afftrack.Dataset) {
		for name, n := range map[string]int{"Merchants": len(d.Merchants), "BannerGroups": len(d.BannerGroups),
			"Banners": len(d.Banners), "Promotions": len(d.Promotions), "Clicks": len(d.Clicks)} {
			if n > 0 {
				got = append(got, name)
			}
		}
	})
	if diff := cmp.Diff([]string{"Merchants", "BannerGroups", "Banners", "Promotions", "Clicks"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// TestReaderLeavesNoTemporaryFileByName: the collections put aside while
// the file is read are in temporary files with no name, so an import
// killed midway leaves nothing behind.
func TestReaderLeavesNoTemporaryFileByName(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	doc := `{"Banners": [{` + v1Banner + `}], "Clicks": [{` + v1Click + `}], "Merchants": [{` + v1Merchant + `}]}`
	rd := importfile.NewReader(context.Background(), strings.NewReader(doc), importfile.Options{})
	defer rd.Close()
	for {
		d, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if files, _ := os.ReadDir(dir); len(files) > 0 {
			t.Fatalf("%d temporary files by name while reading, want none", len(files))
		}
		if d == nil {
			break
		}
	}
}

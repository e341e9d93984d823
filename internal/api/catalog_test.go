package api

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/importfile"
	"github.com/afftrack/afftrack/internal/ratelimit"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// Keys of the catalog network.
const (
	caAffiliate1Key = "ca-affiliate-1-key-0123456789abcdef"
	caAffiliate2Key = "ca-affiliate-2-key-0123456789abcdef"
	caAffiliate3Key = "ca-affiliate-3-key-0123456789abcdef"
	caMerchant1Key  = "ca-merchant-1-key-0123456789abcdefg"
)

// caNetwork: merchant 1 (markup in its name; Percent, a Flat 0 rule;
// Joined by affiliate 1), 2 (Dollar per Sale, categories; unlisted,
// affiliate 2 Pending), 3 (Suspended), 4 (no TargetUrl), 5 (no
// Commission), 6 (listed, no membership; 3% with a rule for each
// affiliate: 4% for 1, 25% for 2, 0% for 3). Banners 11 of merchant 1, 12
// of merchant 1 in group 2 expired 2024-06-14, 21 of merchant 2.
const caNetwork = `{
  "Merchants": [
    {"Id": 1, "Name": "Shop <One> & Co", "AvatarUrl": "https://cdn.example.com/1.png", "Status": "Active",
     "ApiKeys": ["` + caMerchant1Key + `"], "DateCreated": "2023-01-02T03:04:05", "DateModified": "2024-02-03T04:05:06.789",
     "Summary": "Gadgets \"and\" <things>", "Categories": ["Electronics / Phones", "Home"],
     "Program": {"TargetUrl": "https://shop.example.com/", "AllowedDomains": ["partner.example"], "CookieDays": 30,
                 "ValidationDays": 45, "Commission": {"Percent": 10},
                 "Rules": [{"Category": "Books", "Percent": 5.125}, {"Category": "Toys", "Percent": 12.345},
                           {"Category": "Gift Cards", "Flat": 0}]}},
    {"Id": 2, "Name": "Shoe Shop", "AvatarUrl": "https://cdn.example.com/2.png", "Status": "Active",
     "DateCreated": "2023-05-01T00:00:00", "DateModified": "2023-05-02T00:00:00", "Categories": ["Fashion / Shoes"],
     "Program": {"TargetUrl": "https://shoes.example/", "Listed": false, "Commission": {"Flat": 2.5},
                 "Rules": [{"Category": "Boots", "Flat": 4}]}},
    {"Id": 3, "Name": "Suspended", "AvatarUrl": "https://cdn.example.com/3.png", "Status": "Suspended",
     "Program": {"TargetUrl": "https://three.example/", "Commission": {"Percent": 10}}},
    {"Id": 4, "Name": "No Landing", "AvatarUrl": "https://cdn.example.com/4.png", "Status": "Active",
     "Program": {"Commission": {"Percent": 10}}},
    {"Id": 5, "Name": "No Terms", "AvatarUrl": "https://cdn.example.com/5.png", "Status": "Active",
     "Program": {"TargetUrl": "https://five.example/"}},
    {"Id": 6, "Name": "Six", "AvatarUrl": "https://cdn.example.com/6.png", "Status": "Active",
     "DateCreated": "2023-06-01T00:00:00", "DateModified": "2023-06-01T00:00:00",
     "Program": {"TargetUrl": "https://six.example/", "Commission": {"Percent": 3},
                 "Rules": [{"AffiliateId": 1, "Percent": 4}, {"AffiliateId": 2, "Percent": 25},
                           {"AffiliateId": 3, "Percent": 0}]}}
  ],
  "Affiliates": [
    {"Id": 1, "ContactName": "Ann Lee", "BusinessName": "Lee Media", "Status": "Active", "ApiKeys": ["` + caAffiliate1Key + `"]},
    {"Id": 2, "ContactName": "Bob Roe", "BusinessName": "", "Status": "Active", "ApiKeys": ["` + caAffiliate2Key + `"]},
    {"Id": 3, "ContactName": "Cat Poe", "BusinessName": "Poe Pages", "Status": "Active", "ApiKeys": ["` + caAffiliate3Key + `"]}
  ],
  "Memberships": [
    {"AffiliateId": 1, "MerchantId": 1, "Status": "Joined"},
    {"AffiliateId": 1, "MerchantId": 3, "Status": "Joined"},
    {"AffiliateId": 1, "MerchantId": 4, "Status": "Joined"},
    {"AffiliateId": 2, "MerchantId": 2, "Status": "Pending"}
  ],
  "BannerGroups": [
    {"MerchantId": 1, "Id": 1, "Name": "Summer", "TargetUrl": "https://shop.example.com/summer"},
    {"MerchantId": 1, "Id": 2, "Name": "Old", "TargetUrl": "https://shop.example.com/old", "ExpiryDate": "2024-06-14T00:00:00"},
    {"MerchantId": 2, "Id": 3, "Name": "Shoes", "TargetUrl": "https://shoes.example/b"}
  ],
  "Banners": [
    {"MerchantId": 1, "Id": 11, "BannerGroupId": 1, "Name": "Sun \"Hot\"", "Width": 468, "Height": 60,
     "ImageUrl": "https://cdn.example.com/b11.png?a=1&b=2", "AltText": "Sun <sale> & more",
     "DateCreated": "2024-01-02T03:04:05", "DateModified": "2024-01-03T00:00:00"},
    {"MerchantId": 1, "Id": 12, "BannerGroupId": 2, "Name": "Old", "Width": 300, "Height": 250,
     "ImageUrl": "https://cdn.example.com/b12.png", "AltText": "",
     "DateCreated": "2024-01-02T03:04:05", "DateModified": "2024-01-03T00:00:00"},
    {"MerchantId": 2, "Id": 21, "BannerGroupId": 3, "Name": "Shoe", "Width": 300, "Height": 250,
     "ImageUrl": "https://cdn.example.com/b21.png", "AltText": "",
     "DateCreated": "2024-01-02T03:04:05", "DateModified": "2024-01-03T00:00:00"}
  ]
}`

// catalogServer serves caNetwork on a fresh SQLite store at
// 2024-06-15T12:00, its catalog routes added.
func catalogServer(t *testing.T) http.Handler {
	t.Helper()
	db := storetest.Open(t, storetest.SQLite)
	d, err := importfile.Parse(strings.NewReader(caNetwork), time.UTC)
	if err != nil {
		t.Fatalf("parse the network: %v", err)
	}
	imp := sqlstore.NewImportService(db)
	imp.Now = func() time.Time { return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC) }
	if _, err := imp.Import(context.Background(), d); err != nil {
		t.Fatalf("import the network: %v", err)
	}
	now := time.Date(2024, 6, 15, 12, 0, 0, 0, time.UTC)
	srv := NewServer(Config{PublicURL: "http://test"}, Services{
		Accounts:     sqlstore.NewAccountService(db),
		Transactions: sqlstore.NewTransactionService(db),
		Banners:      sqlstore.NewBannerService(db),
		Invoices:     sqlstore.NewInvoiceService(db),
		Catalog:      sqlstore.NewCatalogService(db),
		RateLimiter:  ratelimit.NewMemory(),
	}, nil, func() time.Time { return now })
	return srv.Handler()
}

func TestCatalogGoldenBodies(t *testing.T) {
	h := catalogServer(t)
	link := "?targetUrl=" + url.QueryEscape("https://www.partner.example/a?x=1&y=%2B") +
		"&uniqueId=post%2017&uniqueId4=" + url.QueryEscape("a+b&c=<d>")
	tests := []struct{ name, key, target string }{
		{"catalog_merchants", caAffiliate1Key, "/V1/Affiliate/Merchants"},
		{"catalog_merchants_empty", caAffiliate1Key, "/V1/Affiliate/Merchants?status=Invited"},
		{"catalog_merchant", caAffiliate1Key, "/V1/Affiliate/Merchants/1" + link},
		{"catalog_merchant_plain", caAffiliate2Key, "/V1/Affiliate/Merchants/2"},
		{"catalog_banner", caAffiliate1Key, "/V1/Affiliate/Banners/11" + link},
	}
	formats := []struct{ ext, query, contentType string }{
		{".json", "", contentTypeJSON},
		{".xml", "contentType=application/xml", contentTypeXML},
		{".js", "callback=jQuery123.done", contentTypeJSONP},
	}
	for _, tt := range tests {
		for _, f := range formats {
			t.Run(tt.name+f.ext, func(t *testing.T) {
				target := tt.target
				if f.query != "" {
					sep := "?"
					if strings.Contains(target, "?") {
						sep = "&"
					}
					target += sep + f.query
				}
				w := serve(h, target, tt.key)
				mustStatus(t, w, http.StatusOK)
				if got := w.Header().Get("Content-Type"); got != f.contentType {
					t.Errorf("Content-Type %q, want %q", got, f.contentType)
				}
				golden(t, tt.name+f.ext, w.Body.Bytes())
			})
		}
	}
}

func TestCatalogCommissionOfTheCaller(t *testing.T) {
	h := catalogServer(t)
	tests := []struct{ name, key, json, xml string }{
		{"affiliate 1 sees its 4% and not the others' deals", caAffiliate1Key,
			`"CommissionRate":3.00,"CommissionMinimum":3.00,"CommissionMaximum":4.00,"CommissionZero":false`,
			`<CommissionRate>3.00</CommissionRate><CommissionMinimum>3.00</CommissionMinimum>` +
				`<CommissionMaximum>4.00</CommissionMaximum><CommissionZero>false</CommissionZero>`},
		{"affiliate 2 sees its 25%", caAffiliate2Key,
			`"CommissionRate":3.00,"CommissionMinimum":3.00,"CommissionMaximum":25.00,"CommissionZero":false`,
			`<CommissionRate>3.00</CommissionRate><CommissionMinimum>3.00</CommissionMinimum>` +
				`<CommissionMaximum>25.00</CommissionMaximum><CommissionZero>false</CommissionZero>`},
		{"affiliate 3 sees its 0%", caAffiliate3Key,
			`"CommissionRate":3.00,"CommissionMinimum":0.00,"CommissionMaximum":3.00,"CommissionZero":true`,
			`<CommissionRate>3.00</CommissionRate><CommissionMinimum>0.00</CommissionMinimum>` +
				`<CommissionMaximum>3.00</CommissionMaximum><CommissionZero>true</CommissionZero>`},
	}
	for _, tt := range tests {
		// Merchant 6 is the only one paying 3%.
		for _, target := range []string{"/V1/Affiliate/Merchants", "/V1/Affiliate/Merchants/6"} {
			t.Run(tt.name+" in "+target, func(t *testing.T) {
				for _, f := range []struct{ target, want string }{
					{target, tt.json}, {target + "?contentType=application/xml", tt.xml},
				} {
					w := serve(h, f.target, tt.key)
					mustStatus(t, w, http.StatusOK)
					if !strings.Contains(w.Body.String(), f.want) {
						t.Errorf("%s: body %s\nhas no %s", f.target, w.Body, f.want)
					}
				}
			})
		}
	}
}

func TestCatalogVisibilityAndErrors(t *testing.T) {
	h := catalogServer(t)
	ids := func(t *testing.T, key, target string) string {
		t.Helper()
		w := serve(h, target, key)
		mustStatus(t, w, http.StatusOK)
		var got []string
		for _, part := range strings.Split(w.Body.String(), `{"Id":`)[1:] {
			got = append(got, part[:strings.IndexByte(part, ',')])
		}
		return strings.Join(got, ",")
	}
	lists := []struct{ name, key, target, want string }{
		{"listed or with a membership; Active and launched only", caAffiliate1Key, "/V1/Affiliate/Merchants", "1,6"},
		{"an unlisted merchant with a Pending membership", caAffiliate2Key, "/V1/Affiliate/Merchants", "1,2,6"},
		{"no membership: listed only", caAffiliate3Key, "/V1/Affiliate/Merchants", "1,6"},
		{"status Not Joined", caAffiliate1Key, "/V1/Affiliate/Merchants?status=not%20joined", "6"},
		{"status Joined", caAffiliate1Key, "/V1/Affiliate/Merchants?Status=Joined", "1"},
		{"commissionType", caAffiliate2Key, "/V1/Affiliate/Merchants?commissionType=Dollar%20per%20Sale", "2"},
		{"category", caAffiliate2Key, "/V1/Affiliate/Merchants?category=fashion", "2"},
		{"category is a parent", caAffiliate2Key, "/V1/Affiliate/Merchants?category=Fashion%20/%20Shoes", ""},
		{"newCategory: a parent", caAffiliate2Key, "/V1/Affiliate/Merchants?newCategory=Electronics", "1"},
		{"newCategory: Parent / Child", caAffiliate2Key, "/V1/Affiliate/Merchants?newCategory=Fashion%20/%20Shoes", "2"},
		{"newCategory: another child", caAffiliate2Key, "/V1/Affiliate/Merchants?newCategory=Fashion%20/%20Hats", ""},
	}
	for _, c := range lists {
		t.Run(c.name, func(t *testing.T) {
			if got := ids(t, c.key, c.target); got != c.want {
				t.Errorf("%s: ids %q, want %q", c.target, got, c.want)
			}
		})
	}
	errs := []struct {
		name, key, target string
		status            int
		message           string
	}{
		{"a bad commissionType", caAffiliate1Key, "/V1/Affiliate/Merchants?commissionType=Sometimes", 400, "commissionType: "},
		{"a bad status", caAffiliate1Key, "/V1/Affiliate/Merchants?status=Approved", 400, "status: "},
		{"a bad id", caAffiliate1Key, "/V1/Affiliate/Merchants/x", 400, "id: "},
		{"a targetUrl on another host", caAffiliate1Key, "/V1/Affiliate/Merchants/1?targetUrl=https://evil.example/", 400, "targetUrl: "},
		{"a targetUrl that is no URL", caAffiliate1Key, "/V1/Affiliate/Merchants/1?targetUrl=javascript:alert(1)", 400, "targetUrl: "},
		{"a uniqueId too long", caAffiliate1Key, "/V1/Affiliate/Merchants/1?uniqueId=" + strings.Repeat("x", 256), 400, "uniqueId: "},
		{"an unlisted merchant without a membership", caAffiliate1Key, "/V1/Affiliate/Merchants/2", 404, ""},
		{"a Suspended merchant", caAffiliate1Key, "/V1/Affiliate/Merchants/3", 404, ""},
		{"a merchant without a TargetUrl", caAffiliate1Key, "/V1/Affiliate/Merchants/4", 404, ""},
		{"a merchant without a Commission", caAffiliate1Key, "/V1/Affiliate/Merchants/5", 404, ""},
		{"no such merchant", caAffiliate1Key, "/V1/Affiliate/Merchants/99", 404, ""},
		{"a merchant key", caMerchant1Key, "/V1/Affiliate/Merchants", 401, ""},
		{"a bad banner id", caAffiliate1Key, "/V1/Affiliate/Banners/1.5", 400, "id: "},
		{"a banner targetUrl on another host", caAffiliate1Key, "/V1/Affiliate/Banners/11?targetUrl=https://evil.example/", 400, "targetUrl: "},
		{"a banner uniqueId4 too long", caAffiliate1Key, "/V1/Affiliate/Banners/11?uniqueId4=" + strings.Repeat("x", 256), 400, "uniqueId4: "},
		{"an expired group's banner", caAffiliate1Key, "/V1/Affiliate/Banners/12", 404, ""},
		{"a banner of a merchant not Joined", caAffiliate2Key, "/V1/Affiliate/Banners/21", 404, ""},
		{"a banner with no membership", caAffiliate3Key, "/V1/Affiliate/Banners/11", 404, ""},
		{"no such banner", caAffiliate1Key, "/V1/Affiliate/Banners/99", 404, ""},
	}
	for _, c := range errs {
		t.Run(c.name, func(t *testing.T) {
			w := serve(h, c.target, c.key)
			mustStatus(t, w, c.status)
			if c.message != "" && !strings.HasPrefix(jsonMessageOf(t, w), c.message) {
				t.Errorf("message %q does not start %q", w.Body.String(), c.message)
			}
		})
	}
	t.Run("a targetUrl on the program's or an allowed host", func(t *testing.T) {
		for _, target := range []string{
			"/V1/Affiliate/Merchants/1?targetUrl=https://shop.example.com/x",
			"/V1/Affiliate/Merchants/1?targetUrl=https://sub.partner.example/x",
			"/V1/Affiliate/Banners/11?targetUrl=https://shop.example.com/summer/x",
		} {
			mustStatus(t, serve(h, target, caAffiliate1Key), http.StatusOK)
		}
	})
}

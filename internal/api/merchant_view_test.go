package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
)

// fixtureMerchantViews: merchant 1 has affiliates 1 (Approved, a source
// of each group and one without), 2 (Invited, nulls); banners 11, 12 of
// groups 1 and 2; groups 1 and 2 (expires). Merchant 2 has affiliate 3,
// banner 21 and group 3.
func fixtureMerchantViews() *fakeMerchantViews {
	d := func(s string) afftrack.Null[time.Time] { return afftrack.Some(dt(s)) }
	return &fakeMerchantViews{
		affiliates: map[int64][]afftrack.MemberAffiliate{
			1: {
				{ID: 1, DateCreated: dt("2024-01-01T09:00:00.000"), DateModified: dt("2024-03-01T00:00:00.000"),
					DateApplied: d("2024-01-10T00:00:00.000"), DateApproved: d("2024-01-11T12:30:00.500"),
					ContactName: "Ann <Lee>", BusinessName: afftrack.Some("Lee & Co"), Status: afftrack.AffiliateApproved,
					TrafficSources: []afftrack.TrafficSource{
						{Type: afftrack.TrafficTypeWebsite, Status: afftrack.TrafficSourceApproved,
							WebsiteDateCreated: d("2023-05-05T05:05:05.000"), WebsiteURL: afftrack.Some("https://lee.example/?a=1&b=2"),
							WebsiteName: afftrack.Some("Lee"), WebsiteCategory: afftrack.Some("Fashion"),
							WebsiteWeeklyVisitors: afftrack.Some[int64](1200), WebsiteVerified: afftrack.Some(true)},
						{Type: afftrack.TrafficTypeEmailList, Status: afftrack.TrafficSourceDeclined,
							EmailListName: afftrack.Some("Lee Weekly"), EmailListSize: afftrack.Some[int64](500),
							EmailListOptIn: afftrack.Some("Double")},
						{Type: afftrack.TrafficTypeSocialMediaPage, Status: afftrack.TrafficSourcePending,
							SocialMediaPageURL:       afftrack.Some("https://social.example/lee"),
							SocialMediaPageFollowers: afftrack.Some[int64](9000)},
						{Type: afftrack.TrafficTypeSearch, Status: afftrack.TrafficSourceApproved},
					}},
				{ID: 2, DateCreated: dt("2024-01-02T09:00:00.000"), DateModified: dt("2024-02-01T00:00:00.000"),
					ContactName: "Bob Roe", Status: afftrack.AffiliateInvited,
					TrafficSources: []afftrack.TrafficSource{{Type: afftrack.TrafficTypeWebsite, Status: afftrack.TrafficSourcePending}}},
			},
			2: {{ID: 3, DateCreated: dt("2024-01-03T09:00:00.000"), DateModified: dt("2024-01-03T09:00:00.000"),
				ContactName: "Cat", Status: afftrack.AffiliatePending, TrafficSources: []afftrack.TrafficSource{}}},
		},
		banners: map[int64][]afftrack.MerchantBanner{
			1: {
				{Banner: afftrack.Banner{ID: 11, DateCreated: dt("2024-03-01T00:00:00.000"), DateModified: dt("2024-03-02T00:00:00.000"),
					MerchantID: 1, GroupName: "Summer & Sun", Name: "Leader", Width: 728, Height: 90,
					ImageURL: "https://img.example/l.png", AltText: `Say "hi"`, BannerGroupID: afftrack.Some[int64](1)},
					GroupTargetURL: "https://shop.one/summer?x=1&y=2"},
				{Banner: afftrack.Banner{ID: 12, DateCreated: dt("2024-03-01T00:00:00.000"), DateModified: dt("2024-03-02T00:00:00.000"),
					MerchantID: 1, GroupName: "Old", Name: "Odd", Width: 470, Height: 61,
					ImageURL: "https://img.example/o.png", AltText: "", BannerGroupID: afftrack.Some[int64](2), DefaultForSize: true},
					GroupTargetURL: "https://shop.one/old"},
			},
			2: {{Banner: afftrack.Banner{ID: 21, MerchantID: 2, GroupName: "Two", Name: "Two", Width: 468, Height: 60,
				BannerGroupID: afftrack.Some[int64](3)}, GroupTargetURL: "https://shop.two/"}},
		},
		groups: map[int64][]afftrack.BannerGroup{
			1: {
				{ID: 1, MerchantID: 1, Name: "Summer & Sun", TargetURL: "https://shop.one/summer?x=1&y=2",
					DateCreated: d("2024-02-01T00:00:00.000"), DateModified: d("2024-02-02T00:00:00.000")},
				{ID: 2, MerchantID: 1, Name: "Old", TargetURL: "https://shop.one/old", ExpiryDate: d("2024-03-31T23:59:59.999"),
					DateCreated: d("2024-02-01T00:00:00.000"), DateModified: d("2024-02-02T00:00:00.000")},
			},
			2: {{ID: 3, MerchantID: 2, Name: "Two", TargetURL: "https://shop.two/",
				DateCreated: d("2024-02-01T00:00:00.000"), DateModified: d("2024-02-02T00:00:00.000")}},
		},
	}
}

// merchantViewHarness is a harness whose server serves
// fixtureMerchantViews through the merchant views' routes.
func merchantViewHarness(t *testing.T) (*harness, *fakeMerchantViews, http.Handler) {
	t.Helper()
	views := fixtureMerchantViews()
	h := newHarnessWith(t, func(s *Services) { s.MerchantViews = views })
	return h, views, h.srv.Handler()
}

func TestMerchantViewGoldenBodies(t *testing.T) {
	tests := []struct{ name, target, key string }{
		{"merchant_affiliates", "/V1/Merchant/Affiliates", merchantKey},
		{"merchant_affiliates_empty", "/V1/Merchant/Affiliates?status=Invited", otherMerchantKey},
		{"merchant_affiliate", "/V1/Merchant/Affiliates/1", merchantKey},
		{"merchant_affiliate_nulls", "/V1/Merchant/Affiliates/2", merchantKey},
		{"merchant_banners", "/V1/Merchant/Banners", merchantKey},
		{"merchant_banner", "/V1/Merchant/Banners/12", merchantKey},
		{"merchant_banner_groups", "/V1/Merchant/BannerGroups", merchantKey},
		{"merchant_banner_group", "/V1/Merchant/BannerGroups/2", merchantKey},
	}
	formats := []struct{ ext, query, contentType string }{
		{".json", "contentType=application/json", contentTypeJSON},
		{".xml", "contentType=application/xml", contentTypeXML},
		{".js", "callback=jQuery123.done", contentTypeJSONP},
	}
	for _, tt := range tests {
		for _, f := range formats {
			t.Run(tt.name+f.ext+" is exact", func(t *testing.T) {
				_, _, handler := merchantViewHarness(t)
				sep := "?"
				if strings.Contains(tt.target, "?") {
					sep = "&"
				}
				w := serve(handler, tt.target+sep+f.query, tt.key)
				mustStatus(t, w, http.StatusOK)
				if got := w.Header().Get("Content-Type"); got != f.contentType {
					t.Errorf("Content-Type = %q, want %q", got, f.contentType)
				}
				golden(t, tt.name+f.ext, w.Body.Bytes())
			})
		}
	}
}

func TestMerchantViewRequests(t *testing.T) {
	_, views, handler := merchantViewHarness(t)
	ids := func(path, key string) string {
		t.Helper()
		w := serve(handler, path, key)
		mustStatus(t, w, 200)
		var out []string
		for _, part := range strings.Split(w.Body.String(), `{"Id":`)[1:] {
			out = append(out, part[:strings.IndexAny(part, ",}")])
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct{ path, want string }{
		{"/V1/Merchant/Affiliates", "1 2"},
		{"/v1/merchant/affiliates/?STATUS=approved", "1"},
		{"/V1/Merchant/Affiliates?status=Invited", "2"},
		{"/V1/Merchant/Affiliates?status=", "1 2"},
		{"/V1/Merchant/Banners?bannerGroupId=2", "12"},
		{"/V1/Merchant/Banners?bannerGroupName=summer%20%26%20sun", "11"},
		{"/V1/Merchant/Banners?size=leaderboard", "11"},
		{"/V1/Merchant/Banners?size=470x61", "12"},
		{"/V1/Merchant/Banners?width=728&height=90", "11"},
		{"/V1/Merchant/Banners?defaultForSize=TRUE", "12"},
		{"/V1/Merchant/Banners?defaultForSize=false", "11"},
		{"/V1/Merchant/Banners?bannerGroupId=3", ""},
		{"/V1/Merchant/BannerGroups?ignored=1", "1 2"},
	} {
		if got := ids(c.path, merchantKey); got != c.want {
			t.Errorf("%s: ids %q, want %q", c.path, got, c.want)
		}
	}
	for _, c := range []struct {
		path, key, param string
		status           int
	}{
		{"/V1/Merchant/Affiliates?status=Joined", merchantKey, "status", 400},
		{"/V1/Merchant/Affiliates/x", merchantKey, "id", 400},
		{"/V1/Merchant/Affiliates/99999999999999999999", merchantKey, "id", 400},
		{"/V1/Merchant/Banners?bannerGroupId=one", merchantKey, "bannerGroupId", 400},
		{"/V1/Merchant/Banners?width=1.5", merchantKey, "width", 400},
		{"/V1/Merchant/Banners?height=x", merchantKey, "height", 400},
		{"/V1/Merchant/Banners?defaultForSize=yes", merchantKey, "defaultForSize", 400},
		{"/V1/Merchant/Banners/x", merchantKey, "id", 400},
		{"/V1/Merchant/BannerGroups/x", merchantKey, "id", 400},
		{"/V1/Merchant/Affiliates/3", merchantKey, "", 404},
		{"/V1/Merchant/Affiliates/99", merchantKey, "", 404},
		{"/V1/Merchant/Banners/21", merchantKey, "", 404},
		{"/V1/Merchant/BannerGroups/3", merchantKey, "", 404},
		{"/V1/Merchant/Affiliates/1", otherMerchantKey, "", 404},
		{"/V1/Merchant/Banners/11", otherMerchantKey, "", 404},
		{"/V1/Merchant/BannerGroups/1", otherMerchantKey, "", 404},
		{"/V1/Merchant/Affiliates", affiliateKey, "", 401},
		{"/V1/Merchant/Banners/11", "", "", 401},
		{"/V1/Merchant/BannerGroups", suspendedMerchantKey, "", 401},
	} {
		w := serve(handler, c.path, c.key)
		mustStatus(t, w, c.status)
		if c.status == 400 && !strings.HasPrefix(jsonMessageOf(t, w), c.param+": ") {
			t.Errorf("%s: message %q does not name %s", c.path, w.Body.String(), c.param)
		}
		if c.status == 404 && jsonMessageOf(t, w) != messageNotFound {
			t.Errorf("%s: 404 body %s", c.path, w.Body.String())
		}
	}
	views.err = errStore
	for _, p := range []string{"/V1/Merchant/Affiliates", "/V1/Merchant/Affiliates/1", "/V1/Merchant/Banners",
		"/V1/Merchant/Banners/11", "/V1/Merchant/BannerGroups", "/V1/Merchant/BannerGroups/1"} {
		w := serve(handler, p, merchantKey)
		mustStatus(t, w, 500)
		if strings.Contains(w.Body.String(), "SELECT") {
			t.Errorf("%s: 500 leaks the cause: %s", p, w.Body.String())
		}
	}
}

package afftrack_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
)

func TestMembershipTrafficSource(t *testing.T) {
	for _, tt := range []struct {
		name     string
		typ      afftrack.TrafficType
		source   string
		approved bool
		want     afftrack.TrafficSource
	}{
		{"a website's https URL is its WebsiteUrl", afftrack.TrafficTypeWebsite, "https://lee.example/", true,
			afftrack.TrafficSource{Type: afftrack.TrafficTypeWebsite, Status: afftrack.TrafficSourceApproved,
				WebsiteURL: afftrack.Some("https://lee.example/")}},
		{"a social media page's http URL is its SocialMediaPageUrl", afftrack.TrafficTypeSocialMediaPage, "http://social.example/bob", false,
			afftrack.TrafficSource{Type: afftrack.TrafficTypeSocialMediaPage, Status: afftrack.TrafficSourcePending,
				SocialMediaPageURL: afftrack.Some("http://social.example/bob")}},
		{"an empty source gives a null WebsiteUrl", afftrack.TrafficTypeWebsite, "", false,
			afftrack.TrafficSource{Type: afftrack.TrafficTypeWebsite, Status: afftrack.TrafficSourcePending}},
		{"a javascript: source gives a null SocialMediaPageUrl", afftrack.TrafficTypeSocialMediaPage, "javascript:alert(1)", false,
			afftrack.TrafficSource{Type: afftrack.TrafficTypeSocialMediaPage, Status: afftrack.TrafficSourcePending}},
		{"a source that is no absolute URL gives a null WebsiteUrl", afftrack.TrafficTypeWebsite, "lee.example", true,
			afftrack.TrafficSource{Type: afftrack.TrafficTypeWebsite, Status: afftrack.TrafficSourceApproved}},
		{"a URL with user information gives a null WebsiteUrl", afftrack.TrafficTypeWebsite, "https://me@lee.example/", true,
			afftrack.TrafficSource{Type: afftrack.TrafficTypeWebsite, Status: afftrack.TrafficSourceApproved}},
		{"an email list's free text is its EmailListName", afftrack.TrafficTypeEmailList, "javascript:alert(1)", true,
			afftrack.TrafficSource{Type: afftrack.TrafficTypeEmailList, Status: afftrack.TrafficSourceApproved,
				EmailListName: afftrack.Some("javascript:alert(1)")}},
		{"a search source has no field to hold it", afftrack.TrafficTypeSearch, "https://lee.example/", false,
			afftrack.TrafficSource{Type: afftrack.TrafficTypeSearch, Status: afftrack.TrafficSourcePending}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := afftrack.MembershipTrafficSource(tt.typ, tt.source, tt.approved)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("MembershipTrafficSource(%v, %q, %v) (-want +got):\n%s", tt.typ, tt.source, tt.approved, diff)
			}
		})
	}
}

package client

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDatetimesAreWallClockTimesOfTheNetworksZone(t *testing.T) {
	sydney, err := time.LoadLocation("Australia/Sydney")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		loc  *time.Location
		in   string
		want time.Time
	}{
		{"a UTC network's time is that instant in UTC", time.UTC, "2024-01-31T23:59:59.999",
			time.Date(2024, 1, 31, 23, 59, 59, 999e6, time.UTC)},
		{"a Sydney network's summer time is eleven hours ahead of UTC", sydney, "2024-01-31T23:59:59.999",
			time.Date(2024, 1, 31, 12, 59, 59, 999e6, time.UTC)},
		{"a Sydney network's winter time is ten hours ahead", sydney, "2024-07-01T10:00:00.000",
			time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got struct{ T time.Time }
			if err := decodeJSON(strings.NewReader(`{"T":"`+tt.in+`"}`), &got, tt.loc, true); err != nil {
				t.Fatal(err)
			}
			if !got.T.Equal(tt.want) || got.T.Location() != tt.loc {
				t.Errorf("decoded %v, want %v in %v", got.T, tt.want, tt.loc)
			}
		})
	}
}

func TestMalformedAnswersAreErrorsNamingTheField(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"a datetime with a zone the contract does not write", `[{"Id":1,"DateCreated":"2024-01-01T00:00:00Z"}]`, `$[0].DateCreated: "2024-01-01T00:00:00Z" is not a datetime`},
		{"a fractional id", `[{"Id":1.5}]`, `$[0].Id: want an integer`},
		{"an id beyond int64", `[{"Id":9223372036854775808}]`, `$[0].Id: want an integer`},
		{"a string where a boolean goes", `[{"DefaultForSize":"yes"}]`, `$[0].DefaultForSize: want true or false`},
		{"two documents", `[] []`, `more than one JSON value`},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			var got []MerchantBanner
			err := decodeJSON(strings.NewReader(tt.json), &got, time.UTC, false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestStrictDecodingWantsExactlyTheTypesFields(t *testing.T) {
	full := `{"Id":1,"DateCreated":"2000-01-01T00:00:00.000","DateModified":"2000-01-01T00:00:00.000","Name":" Default Group","TargetUrl":"https://www.example.com/","ExpiryDate":null}`
	tests := []struct {
		name    string
		json    string
		strict  bool
		wantErr string
	}{
		{"every field, nothing more, passes", full, true, ""},
		{"a member the type lacks fails", strings.Replace(full, `"Id":1,`, `"Id":1,"Colour":"red",`, 1), true, `"Colour"`},
		{"a field the server left out fails", strings.Replace(full, `,"ExpiryDate":null`, ``, 1), true, `did not write "ExpiryDate"`},
		{"a member in another case fails", strings.Replace(full, `"Name"`, `"name"`, 1), true, `"name"`},
		{"the lenient mode skips an unknown member", strings.Replace(full, `"Id":1,`, `"Id":1,"Colour":{"a":[1,2]},`, 1), false, ""},
		{"the lenient mode takes a member in another case", strings.Replace(full, `"Name"`, `"name"`, 1), false, ""},
	}
	want := BannerGroup{ID: 1, DateCreated: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), DateModified: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		Name: " Default Group", TargetURL: "https://www.example.com/"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got BannerGroup
			err := decodeJSON(strings.NewReader(tt.json), &got, time.UTC, tt.strict)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want it to contain %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestATrafficSourceNeedsOnlyItsOwnGroup(t *testing.T) {
	in := `{"Type":"Social Media Page","Status":"Approved","SocialMediaPageDateCreated":null,"SocialMediaPageDateModified":null,` +
		`"SocialMediaPageCategory":"Fashion","SocialMediaPageType":"Photo sharing","SocialMediaPageName":"Sample Style",` +
		`"SocialMediaPageUrl":"https://social.example.com/sample","SocialMediaPageFollowers":12000}`
	var got TrafficSource
	if err := decodeJSON(strings.NewReader(in), &got, time.UTC, true); err != nil {
		t.Fatal(err)
	}
	want := TrafficSource{Type: TrafficTypeSocialMediaPage, Status: TrafficSourceApproved, SocialMediaPageCategory: new("Fashion"),
		SocialMediaPageType: new("Photo sharing"), SocialMediaPageName: new("Sample Style"),
		SocialMediaPageURL: new("https://social.example.com/sample"), SocialMediaPageFollowers: new(int64(12000))}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
}

func TestAnEmptyListIsNotANullOne(t *testing.T) {
	var got struct {
		Items   []TransactionItem
		Sources []TrafficSource
	}
	if err := decodeJSON(strings.NewReader(`{"Items":[],"Sources":null}`), &got, time.UTC, true); err != nil {
		t.Fatal(err)
	}
	if got.Items == nil || len(got.Items) != 0 || got.Sources != nil {
		t.Errorf("Items %#v, Sources %#v; want empty and nil", got.Items, got.Sources)
	}
}

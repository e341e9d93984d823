package sqlstore_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// testClickID returns a click id (32 hex digits) made from n.
func testClickID(n int) string { return fmt.Sprintf("%032x", n) }

// testClick returns a credited banner click of affiliate 1 on merchant 1.
func testClick(t testing.TB, n int) afftrack.Click {
	return afftrack.Click{ID: testClickID(n), Time: dt(t, "2024-06-14T08:00:00").Add(time.Duration(n) * time.Millisecond),
		MerchantID: 1, AffiliateID: 1, CreativeType: afftrack.CreativeTypeBanner, CreativeID: afftrack.Some[int64](11),
		Referer: "https://blog.example/post", IPHash: "00112233445566778899aabbccddeeff", CountryCode: "AUS",
		CountryName: "Australia", Credited: true, UniqueIDs: [4]string{"a", "b", "c", "d"}}
}

func TestWriteClicks(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		s := sqlstore.NewClickService(db)
		t.Run("no clicks is not an error", func(t *testing.T) {
			if err := s.WriteClicks(ctx, nil); err != nil {
				t.Fatalf("nil: %v", err)
			}
			if err := s.WriteClicks(ctx, []afftrack.Click{}); err != nil {
				t.Fatalf("empty: %v", err)
			}
			if n := countRows(t, db, "clicks"); n != 0 {
				t.Errorf("clicks holds %d rows, want 0", n)
			}
		})
		// More clicks than one statement can bind on either engine
		// (17 columns: 1,927 on SQLite, 3,855 on PostgreSQL).
		const first = 4201
		batch := make([]afftrack.Click, first)
		for i := range batch {
			batch[i] = testClick(t, i)
			if i%2 == 1 {
				batch[i].CreativeType, batch[i].CreativeID = afftrack.CreativeTypeTextLink, afftrack.Null[int64]{}
			}
		}
		t.Run("more clicks than one statement holds are all written", func(t *testing.T) {
			if err := s.WriteClicks(ctx, batch); err != nil {
				t.Fatal(err)
			}
			if n := countRows(t, db, "clicks"); n != first {
				t.Errorf("clicks holds %d rows, want %d", n, first)
			}
		})
		t.Run("a retried batch with new clicks writes only the new ones", func(t *testing.T) {
			again := append([]afftrack.Click{}, batch[600:]...) // 3,601 known
			for i := range 10 {
				again = append(again, testClick(t, first+i))
			}
			// A stored click keeps what was stored first.
			again[0].AffiliateID, again[0].Credited = 2, false
			if err := s.WriteClicks(ctx, again); err != nil {
				t.Fatal(err)
			}
			if n := countRows(t, db, "clicks"); n != first+10 {
				t.Errorf("clicks holds %d rows, want %d", n, first+10)
			}
			var aff int64
			var credited bool
			if err := db.SQL().QueryRow(`SELECT affiliate_id, credited FROM clicks WHERE id = $1`,
				testClickID(600)).Scan(&aff, &credited); err != nil {
				t.Fatal(err)
			}
			if aff != 1 || !credited {
				t.Errorf("click 600 = affiliate %d, credited %v; want the first write's affiliate 1, credited", aff, credited)
			}
		})
		t.Run("a click keeps its TrafficType; none is Website", func(t *testing.T) {
			search, none := testClick(t, 6000), testClick(t, 6001)
			search.TrafficType = afftrack.TrafficTypeSearch
			if err := s.WriteClicks(ctx, []afftrack.Click{search, none}); err != nil {
				t.Fatal(err)
			}
			for id, want := range map[string]afftrack.TrafficType{search.ID: afftrack.TrafficTypeSearch,
				none.ID: afftrack.TrafficTypeWebsite} {
				var got int64
				if err := db.SQL().QueryRow(`SELECT traffic_type FROM clicks WHERE id = $1`, id).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if afftrack.TrafficType(got) != want {
					t.Errorf("click %s TrafficType = %s, want %s", id, afftrack.TrafficType(got), want)
				}
			}
			if err := db.SQL().QueryRow(`DELETE FROM clicks WHERE id IN ($1, $2)`, search.ID, none.ID).Err(); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("the same click twice in one batch is written once", func(t *testing.T) {
			c := testClick(t, 5000)
			if err := s.WriteClicks(ctx, []afftrack.Click{c, c}); err != nil {
				t.Fatal(err)
			}
			if n := countRows(t, db, "clicks"); n != first+11 {
				t.Errorf("clicks holds %d rows, want %d", n, first+11)
			}
		})
	})
}

func TestFindLink(t *testing.T) {
	p1 := trackingProgram1()
	p1.BannerHosts = []string{"shop.one.example"} // banner 11's; banner 12 has no target
	banner := func(aff, id int64) afftrack.LinkKey {
		return afftrack.LinkKey{AffiliateID: aff, Kind: afftrack.LinkBanner, TargetID: id}
	}
	text := func(aff, merchant int64) afftrack.LinkKey {
		return afftrack.LinkKey{AffiliateID: aff, Kind: afftrack.LinkTextLink, TargetID: merchant}
	}
	// The membership's TrafficType of each affiliate of merchant 1, 0 for
	// none.
	traffic := map[int64]afftrack.TrafficType{1: afftrack.TrafficTypeEmailList, 3: afftrack.TrafficTypeWebsite,
		4: afftrack.TrafficTypeWebsite, 5: afftrack.TrafficTypeWebsite, 6: afftrack.TrafficTypeWebsite}
	bannerLink := func(aff, id int64, target string, eligible bool) *afftrack.Link {
		return &afftrack.Link{MerchantID: 1, Banner: afftrack.Some(id), TargetURL: target, Program: p1, Eligible: eligible,
			TrafficType: traffic[aff]}
	}
	textLink := func(aff int64, eligible bool) *afftrack.Link {
		return &afftrack.Link{MerchantID: 1, TargetURL: p1.TargetURL, Program: p1, Eligible: eligible,
			TrafficType: traffic[aff]}
	}
	tests := []struct {
		name string
		key  afftrack.LinkKey
		want *afftrack.Link // nil: ENOTFOUND
	}{
		{"a joined active affiliate's banner link credits and leads to the banner's target",
			banner(1, 11), bannerLink(1, 11, "https://shop.one.example/spring", true)},
		{"a banner without a target, of a group without one, leads to the program's",
			banner(1, 12), bannerLink(1, 12, p1.TargetURL, true)},
		{"a joined active affiliate's text link credits and leads to the program's target",
			text(1, 1), textLink(1, true)},
		{"another joined merchant's text link leads to its own program",
			text(1, 2), &afftrack.Link{MerchantID: 2, TargetURL: "https://two.example/",
				Program: programWithBannerHosts(trackingProgram(2, "https://two.example/"), "two.example"), Eligible: true,
				TrafficType: afftrack.TrafficTypeWebsite}},
		{"an affiliate that has not joined gets a banner link that does not credit", banner(2, 11),
			bannerLink(2, 11, "https://shop.one.example/spring", false)},
		{"an affiliate that has not joined gets a text link that does not credit", text(2, 1), textLink(2, false)},
		{"a Pending membership does not credit a banner link", banner(3, 11),
			bannerLink(3, 11, "https://shop.one.example/spring", false)},
		{"a Pending membership does not credit a text link", text(3, 1), textLink(3, false)},
		{"a NotJoined membership does not credit", text(5, 1), textLink(5, false)},
		{"an Invited membership does not credit", text(6, 1), textLink(6, false)},
		{"a suspended affiliate's banner link does not credit", banner(4, 11),
			bannerLink(4, 11, "https://shop.one.example/spring", false)},
		{"a suspended affiliate's text link does not credit", text(4, 1), textLink(4, false)},
		{"a link carries the membership's TrafficType", text(7, 1), &afftrack.Link{MerchantID: 1,
			TargetURL: p1.TargetURL, Program: p1, Eligible: true, TrafficType: afftrack.TrafficTypeSearch}},

		{"an unknown affiliate's banner link is not found", banner(99, 11), nil},
		{"an unknown affiliate's text link is not found", text(99, 1), nil},
		{"an unknown banner is not found", banner(1, 999), nil},
		{"a text link of an unknown merchant is not found", text(1, 999), nil},
		{"a banner id is not a merchant id", text(1, 11), nil},
		{"a merchant id is not a banner id", banner(1, 1), nil},
		{"a Suspended merchant's text link is not found", text(1, 4), nil},
		{"a Suspended merchant's banner link is not found", banner(1, 41), nil},
		{"a Closed merchant's text link is not found", text(1, 5), nil},
		{"a Closed merchant's banner link is not found", banner(1, 51), nil},
		{"a text link of a merchant without a program is not found", text(1, 3), nil},
		{"a banner link of a merchant without a program is not found", banner(1, 31), nil},
		{"a text link of a program without TargetUrl is not found", text(1, 6), nil},
		{"a banner link of a program without TargetUrl is not found, whatever the banner's target", banner(1, 61), nil},
		{"a link of another kind is not found", afftrack.LinkKey{AffiliateID: 1, Kind: 9, TargetID: 1}, nil},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		trackingLoaded(t, db)
		s := sqlstore.NewClickService(db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.FindLink(context.Background(), tt.key)
				if tt.want == nil {
					if got != nil {
						t.Errorf("got link %+v, want none", got)
					}
					wantCode(t, err, afftrack.ENOTFOUND)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("link (-want +got):\n%s", diff)
				}
			})
		}
		t.Run("a merchant suspended after the import has no links", func(t *testing.T) {
			if err := sqlstore.NewAccountService(db).SetAccountStatus(context.Background(),
				afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 2}, afftrack.AccountSuspended); err != nil {
				t.Fatal(err)
			}
			_, err := s.FindLink(context.Background(), text(1, 2))
			wantCode(t, err, afftrack.ENOTFOUND)
			_, err = s.FindLink(context.Background(), banner(1, 21))
			wantCode(t, err, afftrack.ENOTFOUND)
		})
	})
}

func TestIPHashKey(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		first, err := sqlstore.NewClickService(db).IPHashKey(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(first) < 16 {
			t.Fatalf("key of %d bytes, want at least 16", len(first))
		}
		if bytes.Equal(first, make([]byte, len(first))) {
			t.Fatal("the key is all zeros")
		}
		for i, s := range []*sqlstore.ClickService{sqlstore.NewClickService(db), sqlstore.NewClickService(db)} {
			for j := range 2 {
				got, err := s.IPHashKey(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(first, got) {
					t.Errorf("service %d, call %d: key %x, want the first %x", i, j, got, first)
				}
			}
		}
		if n := countRows(t, db, "settings WHERE name = 'ip_hash_key'"); n != 1 {
			t.Errorf("%d stored keys, want 1", n)
		}
	})
}

func TestIPHashKeyIsPerDatabase(t *testing.T) {
	ctx := context.Background()
	var keys [][]byte
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		k, err := sqlstore.NewClickService(db).IPHashKey(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, other := range keys {
			if bytes.Equal(k, other) {
				t.Errorf("two fresh databases generated the same key %x", k)
			}
		}
		keys = append(keys, k)
	})
}

// programWithBannerHosts is p as the store reads it, with its merchant's
// banners' hosts.
func programWithBannerHosts(p afftrack.Program, hosts ...string) afftrack.Program {
	p.BannerHosts = hosts
	return p
}

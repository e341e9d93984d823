package sqlstore_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// TestMigration0009 writes rows in the layout of migration 0008 and
// checks what 0009 gives them: the dates an import gives a record that
// leaves them out (the migration's time, a wall clock of the recorded
// zone), coupons their program's TargetUrl, banners groups made of their
// group_name, and clicks their membership's TrafficType.
func TestMigration0009(t *testing.T) {
	ctx := context.Background()
	for _, b := range storetest.Backends(t) {
		t.Run(b, func(t *testing.T) {
			// The migration stamps rows with the DB's clock: an instant
			// whose Sydney wall clock is 2024-06-15 14:30:00.250.
			migratedAt := time.Date(2024, 6, 15, 4, 30, 0, 250_000_000, time.UTC)
			db := openMigratedTo(t, b, 8, sqlstore.Options{Clock: func() time.Time { return migratedAt }})
			if err := db.CheckTimeZone(ctx, "Australia/Sydney"); err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{
				`INSERT INTO merchants (id, name, avatar_url, status) VALUES (1, 'One', '', 1), (2, 'Two', '', 1)`,
				`INSERT INTO affiliates (id, contact_name, business_name, status, gst_registered)
					VALUES (1, 'Ann', '', 1, FALSE), (2, 'Bob', '', 1, FALSE), (3, 'Cat', '', 1, FALSE)`,
				`INSERT INTO memberships (affiliate_id, merchant_id, status, traffic_type)
					VALUES (1, 1, 1, 4), (2, 1, 2, 1), (3, 1, 4, 2)`,
				`INSERT INTO programs (merchant_id, target_url, cookie_days, validation_days, prepaid, click_append,
					override_fee_percent) VALUES (1, 'https://one.example/', 30, 30, FALSE, '', 0)`,
				`INSERT INTO coupons (id, merchant_id, code, code_folded, description)
					VALUES (1, 1, 'A', 'a', ''), (2, 2, 'B', 'b', '')`,
				`INSERT INTO banners (id, merchant_id, date_created, date_modified, group_name, name, target_url, width,
					height, image_url, alt_text) VALUES
					(7, 1, 1000, 2000, 'Spring', 'b7', 'https://one.example/7', 1, 1, '', ''),
					(5, 1, 3000, 4000, '', 'b5', '', 1, 1, '', ''),
					(9, 2, 5000, 6000, 'Spring', 'b9', 'https://two.example/9', 1, 1, '', ''),
					(8, 1, 7000, 8000, 'Spring', 'b8', 'https://one.example/8', 1, 1, '', '')`,
				`INSERT INTO clicks (id, created, merchant_id, affiliate_id, creative_type, referer, ip_hash, country_code,
					country_name, bot, credited, unique_id, unique_id2, unique_id3, unique_id4) VALUES
					('a', 1, 1, 1, 1, '', '', '', '', FALSE, TRUE, '', '', '', ''),
					('b', 1, 1, 2, 1, '', '', '', '', FALSE, FALSE, '', '', '', ''),
					('c', 1, 2, 1, 1, '', '', '', '', FALSE, FALSE, '', '', '', ''),
					('d', 1, 1, 3, 1, '', '', '', '', FALSE, FALSE, '', '', '', '')`,
			} {
				if _, err := db.SQL().ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			var now int64
			scanRow(t, db, `SELECT date_created FROM merchants WHERE id = 1`, nil, &now)
			if want := time.Date(2024, 6, 15, 14, 30, 0, 250_000_000, time.UTC).UnixMilli(); now != want {
				t.Fatalf("merchant 1's DateCreated %d is not the migration's wall clock in Sydney, %d", now, want)
			}
			for _, q := range []string{
				`SELECT COUNT(*) FROM merchants WHERE date_created <> $1 OR date_modified <> $1`,
				`SELECT COUNT(*) FROM affiliates WHERE date_created <> $1 OR date_modified <> $1`,
				`SELECT COUNT(*) FROM coupons WHERE date_created <> $1 OR date_modified <> $1`,
				`SELECT COUNT(*) FROM memberships WHERE date_modified <> $1`,
			} {
				var n int64
				scanRow(t, db, q, []any{now}, &n)
				if n != 0 {
					t.Errorf("%s: %d rows not dated by the migration", q, n)
				}
			}
			at := sql.Null[int64]{V: now, Valid: true}
			for aff, want := range map[int64][2]sql.Null[int64]{1: {at, at}, 2: {}, 3: {at, {}}} {
				var got [2]sql.Null[int64]
				scanRow(t, db, `SELECT date_applied, date_approved FROM memberships WHERE affiliate_id = $1`, []any{aff},
					&got[0], &got[1])
				if got != want {
					t.Errorf("membership of affiliate %d: applied, approved = %v, want %v", aff, got, want)
				}
			}
			for id, want := range map[int64]string{1: "https://one.example/", 2: ""} {
				var got string
				scanRow(t, db, `SELECT target_url FROM coupons WHERE id = $1`, []any{id}, &got)
				if got != want {
					t.Errorf("coupon %d TargetUrl = %q, want %q", id, got, want)
				}
			}
			type group struct {
				ID, Merchant      int64
				Name, Target      string
				Created, Modified int64
			}
			rows, err := db.SQL().Query(`SELECT id, merchant_id, name, target_url, date_created, date_modified
				FROM banner_groups ORDER BY id`)
			if err != nil {
				t.Fatal(err)
			}
			var groups []group
			for rows.Next() {
				var g group
				if err := rows.Scan(&g.ID, &g.Merchant, &g.Name, &g.Target, &g.Created, &g.Modified); err != nil {
					t.Fatal(err)
				}
				groups = append(groups, g)
			}
			rows.Close()
			// In the order of their first banners: 5, 7, 9.
			want := []group{{1, 1, "", "", 3000, 4000}, {2, 1, "Spring", "https://one.example/7", 1000, 2000},
				{3, 2, "Spring", "https://two.example/9", 5000, 6000}}
			if diff := cmp.Diff(want, groups); diff != "" {
				t.Errorf("banner groups (-want +got):\n%s", diff)
			}
			for id, want := range map[int64]int64{5: 1, 7: 2, 8: 2, 9: 3} {
				var got int64
				scanRow(t, db, `SELECT group_id FROM banners WHERE id = $1`, []any{id}, &got)
				if got != want {
					t.Errorf("banner %d is in group %d, want %d", id, got, want)
				}
			}
			for id, want := range map[string]int64{"a": 4, "b": 1, "c": 1, "d": 2} {
				var got int64
				scanRow(t, db, `SELECT traffic_type FROM clicks WHERE id = $1`, []any{id}, &got)
				if got != want {
					t.Errorf("click %s TrafficType = %d, want %d", id, got, want)
				}
			}
			// The migrated network imports on: a banner finds its group by name.
			sum := mustImport(t, db, &afftrack.Dataset{Banners: []afftrack.Banner{{ID: 10, MerchantID: 1, GroupName: "Spring",
				Width: 1, Height: 1}}})
			if sum.NewBannerGroups != 0 {
				t.Errorf("made %d groups for a migrated one", sum.NewBannerGroups)
			}
		})
	}
}

package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The Go step of migration 0009 (migrations/0009_v1_surface.sql): it gives
// the rows stored before it what an import gives a record that leaves the
// new fields out. Their dates become the migration's time, a wall clock of
// the network's zone (the settings' time_zone; UTC before one is
// recorded); a membership's DateApplied is NULL if it is Invited (2), its
// DateApproved NULL unless it is Joined (1); a coupon's TargetUrl is its
// program's; and each distinct group_name of a merchant's banners becomes
// a banner group, with ids from 1 in the order of the groups' first
// banners, that banner's TargetUrl and dates. Like the other steps it uses
// no live code: the numbers are those of 0009's time.

// migrateV1Surface is the Go step of migration 0009.
func migrateV1Surface(ctx context.Context, tx *sql.Tx, _ dialect, at time.Time) error {
	zone := "UTC"
	err := tx.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = 'time_zone'`).Scan(&zone)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.UTC
	}
	t := at.In(loc)
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	now := time.Date(y, mo, d, h, mi, s, t.Nanosecond()/1e6*1e6, time.UTC).UnixMilli()
	for _, q := range []string{
		`UPDATE merchants SET date_created = $1, date_modified = $1`,
		`UPDATE affiliates SET date_created = $1, date_modified = $1`,
		`UPDATE memberships SET date_modified = $1,
			date_applied = CASE WHEN status = 2 THEN NULL ELSE CAST($1 AS BIGINT) END,
			date_approved = CASE WHEN status = 1 THEN CAST($1 AS BIGINT) ELSE NULL END`,
		`UPDATE coupons SET date_created = $1, date_modified = $1,
			target_url = COALESCE((SELECT p.target_url FROM programs p WHERE p.merchant_id = coupons.merchant_id), '')`,
	} {
		if _, err := tx.ExecContext(ctx, q, now); err != nil {
			return err
		}
	}
	return groupBanners0009(ctx, tx)
}

// groupBanners0009 makes a group of each merchant's distinct group_name
// and puts the banners in it.
func groupBanners0009(ctx context.Context, tx *sql.Tx) error {
	type group struct {
		merchantID, firstBanner int64
		name                    string
	}
	rows, err := tx.QueryContext(ctx, `SELECT merchant_id, group_name, MIN(id) FROM banners
		GROUP BY merchant_id, group_name ORDER BY MIN(id)`)
	if err != nil {
		return err
	}
	var groups []group
	for rows.Next() {
		var g group
		if err := rows.Scan(&g.merchantID, &g.name, &g.firstBanner); err != nil {
			rows.Close()
			return err
		}
		groups = append(groups, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil { // a read cut short is not the end of the banners
		return err
	}
	for i, g := range groups {
		id := int64(i + 1)
		if _, err := tx.ExecContext(ctx, `INSERT INTO banner_groups (id, merchant_id, name, target_url, date_created,
			date_modified, expiry_date)
			SELECT $1, merchant_id, group_name, target_url, date_created, date_modified, NULL FROM banners WHERE id = $2`,
			id, g.firstBanner); err != nil {
			return fmt.Errorf("banner group %q of merchant %d: %w", g.name, g.merchantID, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE banners SET group_id = $1 WHERE merchant_id = $2 AND group_name = $3`,
			id, g.merchantID, g.name); err != nil {
			return fmt.Errorf("banner group %q of merchant %d: %w", g.name, g.merchantID, err)
		}
	}
	return nil
}

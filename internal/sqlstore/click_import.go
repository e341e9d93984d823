package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/afftrack/afftrack"
)

// upsertClick writes a click of the import file, replacing a stored click
// of the same id.
const upsertClick = `INSERT INTO clicks (` + clickColumnList + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
	ON CONFLICT (id) DO UPDATE SET created = excluded.created, merchant_id = excluded.merchant_id,
		affiliate_id = excluded.affiliate_id, creative_type = excluded.creative_type,
		creative_id = excluded.creative_id, referer = excluded.referer, ip_hash = excluded.ip_hash,
		country_code = excluded.country_code, country_name = excluded.country_name, bot = excluded.bot,
		credited = excluded.credited, unique_id = excluded.unique_id, unique_id2 = excluded.unique_id2,
		unique_id3 = excluded.unique_id3, unique_id4 = excluded.unique_id4, traffic_type = excluded.traffic_type`

// creativeTables are the tables of the creatives a click can name, by
// CreativeType.
var creativeTables = map[afftrack.CreativeType]struct{ table, noun string }{
	afftrack.CreativeTypeBanner:    {"banners", "banner"},
	afftrack.CreativeTypeCoupon:    {"coupons", "coupon"},
	afftrack.CreativeTypePromotion: {"promotions", "promotion"},
}

// importClicks writes the chunk's clicks as recorded clicks, after
// checking the accounts and the creative each names. A click without a
// TrafficType takes its membership's, else Website.
func (im *importer) importClicks(d *afftrack.Dataset) error {
	for i := range d.Clicks {
		c := d.Clicks[i]
		at := record{"Clicks", d.Start.Clicks + i}
		if err := im.checkMerchant(at, "MerchantId", c.MerchantID); err != nil {
			return err
		}
		if _, err := im.checkAffiliate(at, "AffiliateId", c.AffiliateID); err != nil {
			return err
		}
		if t, ok := creativeTables[c.CreativeType]; ok && c.CreativeID.Valid {
			var merchant int64
			// t.table is one of three constants, never input.
			st, err := im.stmt(`SELECT merchant_id FROM ` + t.table + ` WHERE id = $1`)
			if err == nil {
				err = st.QueryRowContext(im.ctx, c.CreativeID.Value).Scan(&merchant)
			}
			switch {
			case errors.Is(err, sql.ErrNoRows):
				return afftrack.Errorf(afftrack.EINVALID, "%s.CreativeId: %s %d does not exist", at, t.noun, c.CreativeID.Value)
			case err != nil:
				return fmt.Errorf("import %s.CreativeId: %w", at, err)
			case merchant != c.MerchantID:
				return afftrack.Errorf(afftrack.EINVALID, "%s.CreativeId: %s %d is merchant %d's, not merchant %d's",
					at, t.noun, c.CreativeID.Value, merchant, c.MerchantID)
			}
		}
		if c.TrafficType == 0 {
			t, err := im.membershipTrafficType(c.AffiliateID, c.MerchantID)
			if err != nil {
				return fmt.Errorf("import %s.TrafficType: %w", at, err)
			}
			c.TrafficType = t
		}
		if err := im.exec(upsertClick, clickArgs(nil, &c)...); err != nil {
			return fmt.Errorf("import %s: %w", at, err)
		}
	}
	return nil
}

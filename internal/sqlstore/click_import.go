package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/afftrack/afftrack"
)

// upsertClicksConflict makes a multi-row insert of import clicks replace
// the stored clicks of the same ids.
const upsertClicksConflict = `
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

// creativeKey names a creative: its type and id.
type creativeKey struct {
	kind afftrack.CreativeType
	id   int64
}

// importClicks writes the chunk's clicks as recorded clicks, after
// checking the accounts and the creative each names. A click without a
// TrafficType takes its membership's, else Website. The clicks are
// written many to a statement: a file of ten million clicks written one
// statement each spends its time in round trips to PostgreSQL.
func (im *importer) importClicks(d *afftrack.Dataset) error {
	b := clickBatch{im: im, ids: map[string]struct{}{}, maxRows: max(1, im.dialect.batchParams()/clickColumns)}
	owners := map[creativeKey]int64{} // a creative's merchant, looked up once a chunk
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
			k := creativeKey{c.CreativeType, c.CreativeID.Value}
			merchant, known := owners[k]
			if !known {
				// t.table is one of three constants, never input.
				st, err := im.stmt(`SELECT merchant_id FROM ` + t.table + ` WHERE id = $1`)
				if err == nil {
					err = st.QueryRowContext(im.ctx, k.id).Scan(&merchant)
				}
				switch {
				case errors.Is(err, sql.ErrNoRows):
					return afftrack.Errorf(afftrack.EINVALID, "%s.CreativeId: %s %d does not exist", at, t.noun, k.id)
				case err != nil:
					return fmt.Errorf("import %s.CreativeId: %w", at, err)
				}
				owners[k] = merchant
			}
			if merchant != c.MerchantID {
				return afftrack.Errorf(afftrack.EINVALID, "%s.CreativeId: %s %d is merchant %d's, not merchant %d's",
					at, t.noun, k.id, merchant, c.MerchantID)
			}
		}
		if c.TrafficType == 0 {
			t, err := im.membershipTrafficType(c.AffiliateID, c.MerchantID)
			if err != nil {
				return fmt.Errorf("import %s.TrafficType: %w", at, err)
			}
			c.TrafficType = t
		}
		if err := b.add(&c, d.Start.Clicks+i); err != nil {
			return err
		}
	}
	return b.flush()
}

// clickBatch collects checked clicks of an import and writes them with one
// multi-row upsert. Like transactionBatch it never holds two clicks of one
// id, so a later duplicate replaces the earlier one as the file's order
// says.
type clickBatch struct {
	im          *importer
	ids         map[string]struct{}
	args        []any
	first, last int // indexes in the file, for error messages
	maxRows     int
}

// add queues c, the file's click at index, writing the batch first if it
// is full or holds c's id.
func (b *clickBatch) add(c *afftrack.Click, index int) error {
	_, dup := b.ids[c.ID]
	if dup || len(b.ids) == b.maxRows {
		if err := b.flush(); err != nil {
			return err
		}
	}
	if len(b.ids) == 0 {
		b.first = index
	}
	b.last = index
	b.ids[c.ID] = struct{}{}
	b.args = clickArgs(b.args, c)
	return nil
}

// flush writes the queued clicks.
func (b *clickBatch) flush() error {
	rows := len(b.ids)
	if rows == 0 {
		return nil
	}
	q := `INSERT INTO clicks (` + clickColumnList + `) VALUES ` +
		b.im.dialect.placeholders(rows, clickColumns) + upsertClicksConflict
	if err := b.im.exec(q, b.args...); err != nil {
		if b.first == b.last {
			return fmt.Errorf("import Clicks[%d]: %w", b.first, err)
		}
		return fmt.Errorf("import Clicks[%d..%d]: %w", b.first, b.last, err)
	}
	clear(b.ids)
	clear(b.args)
	b.args = b.args[:0]
	return nil
}

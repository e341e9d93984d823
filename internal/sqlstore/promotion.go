package sqlstore

import (
	"fmt"

	"github.com/afftrack/afftrack"
)

// upsertPromotion writes a promotion; its DateCreated left out keeps a
// stored promotion's ($11: the given value or NULL).
const upsertPromotion = `INSERT INTO promotions (id, merchant_id, date_created, date_modified, description,
		target_url, terms_and_conditions, start_date, end_date, affiliate_id)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
	ON CONFLICT (id) DO UPDATE SET merchant_id = excluded.merchant_id,
		date_created = COALESCE(CAST($11 AS BIGINT), promotions.date_created), date_modified = excluded.date_modified,
		description = excluded.description, target_url = excluded.target_url,
		terms_and_conditions = excluded.terms_and_conditions, start_date = excluded.start_date,
		end_date = excluded.end_date, affiliate_id = excluded.affiliate_id`

// importPromotions writes the chunk's promotions after checking the
// accounts they name. A promotion without a TargetUrl lands on its
// program's.
func (im *importer) importPromotions(d *afftrack.Dataset) error {
	for i := range d.Promotions {
		p := &d.Promotions[i]
		at := record{"Promotions", d.Start.Promotions + i}
		target, err := im.checkOffer(at, p.MerchantID, p.AffiliateID, p.TargetURL)
		if err != nil {
			return err
		}
		created, modified, given := im.dateArgs(p.DateCreated, p.DateModified)
		if err := im.exec(upsertPromotion, p.ID, p.MerchantID, created, modified, p.Description, target,
			p.TermsAndConditions, nullMillis(p.StartDate), nullMillis(p.EndDate), nullInt(p.AffiliateID), given); err != nil {
			return fmt.Errorf("import %s: %w", at, err)
		}
	}
	return nil
}

package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// upsertCoupon writes a coupon; its DateCreated left out keeps a stored
// coupon's ($13: the given value or NULL).
const upsertCoupon = `INSERT INTO coupons (id, merchant_id, code, code_folded, description, affiliate_id,
		start_date, end_date, date_created, date_modified, target_url, terms_and_conditions)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
	ON CONFLICT (id) DO UPDATE SET merchant_id = excluded.merchant_id, code = excluded.code,
		code_folded = excluded.code_folded, description = excluded.description,
		affiliate_id = excluded.affiliate_id, start_date = excluded.start_date, end_date = excluded.end_date,
		date_created = COALESCE(CAST($13 AS BIGINT), coupons.date_created), date_modified = excluded.date_modified,
		target_url = excluded.target_url, terms_and_conditions = excluded.terms_and_conditions`

// importCoupons writes the chunk's coupons after checking the accounts
// they name. A coupon without a TargetUrl lands on its program's.
func (im *importer) importCoupons(d *afftrack.Dataset) error {
	for i := range d.Coupons {
		c := &d.Coupons[i]
		at := record{"Coupons", d.Start.Coupons + i}
		target, err := im.checkOffer(at, c.MerchantID, c.AffiliateID, c.TargetURL)
		if err != nil {
			return err
		}
		created, modified, given := im.dateArgs(c.DateCreated, c.DateModified)
		if err := im.exec(upsertCoupon, c.ID, c.MerchantID, c.Code, foldCode(c.Code), c.Description,
			nullInt(c.AffiliateID), nullMillis(c.StartDate), nullMillis(c.EndDate), created, modified, target,
			c.TermsAndConditions, given); err != nil {
			return fmt.Errorf("import %s: %w", at, err)
		}
	}
	return nil
}

// checkOffer checks the accounts a coupon or promotion names and returns
// the TargetUrl it lands on: its own, else its program's.
func (im *importer) checkOffer(at record, merchantID int64, affiliateID afftrack.Null[int64], target string) (string, error) {
	if err := im.checkMerchant(at, "MerchantId", merchantID); err != nil {
		return "", err
	}
	if affiliateID.Valid {
		if _, err := im.checkAffiliate(at, "AffiliateId", affiliateID.Value); err != nil {
			return "", err
		}
	}
	if target != "" {
		return target, nil
	}
	target, err := im.programTarget(merchantID)
	if err != nil {
		return "", fmt.Errorf("import %s.TargetUrl: %w", at, err)
	}
	return target, nil
}

// foldCode is a coupon code as it is looked up: customers type codes in
// any case.
func foldCode(code string) string { return strings.ToLower(code) }

// findExclusiveCoupon returns the merchant's exclusive coupon with the
// code, or nil. If several share the code, the lowest id wins, so the
// answer is stable.
func findExclusiveCoupon(ctx context.Context, q queryer, merchantID int64, code string) (*afftrack.Coupon, error) {
	if code == "" {
		return nil, nil
	}
	c := &afftrack.Coupon{MerchantID: merchantID}
	var aff, start, end sql.Null[int64]
	err := q.QueryRowContext(ctx, `SELECT id, code, description, affiliate_id, start_date, end_date
	FROM coupons WHERE merchant_id = $1 AND code_folded = $2 AND affiliate_id IS NOT NULL
	ORDER BY id LIMIT 1`, merchantID, foldCode(code)).Scan(&c.ID, &c.Code, &c.Description, &aff, &start, &end)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("find coupon: %w", err)
	}
	c.AffiliateID = fromNull(aff)
	c.StartDate, c.EndDate = nullTime(start), nullTime(end)
	return c, nil
}

// nullTime reads back a nullable datetime column.
func nullTime(n sql.Null[int64]) afftrack.Null[time.Time] {
	if !n.Valid {
		return afftrack.Null[time.Time]{}
	}
	return afftrack.Some(fromMillis(n.V))
}

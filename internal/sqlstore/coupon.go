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
		im.coupons[c.ID] = at.index
	}
	return nil
}

// checkCouponCodes fails if two coupons of a merchant share a code in any
// case, naming a coupon of this import and the other: a customer's code
// must credit one affiliate, and which one must not depend on which coupon
// was imported first. It runs once every coupon is written, so a file may
// swap the codes of two coupons.
func (im *importer) checkCouponCodes() error {
	if len(im.coupons) == 0 {
		return nil
	}
	rows, err := im.tx.QueryContext(im.ctx, `SELECT c.id, o.id, c.merchant_id, c.code FROM coupons c
		JOIN coupons o ON o.merchant_id = c.merchant_id AND o.code_folded = c.code_folded AND o.id <> c.id
		ORDER BY c.id, o.id`)
	if err != nil {
		return fmt.Errorf("import: check coupon codes: %w", err)
	}
	defer rows.Close()
	first, found := -1, ""
	for rows.Next() {
		var id, other, merchantID int64
		var code string
		if err := rows.Scan(&id, &other, &merchantID, &code); err != nil {
			return fmt.Errorf("import: check coupon codes: %w", err)
		}
		at, ok := im.coupons[id]
		if !ok {
			continue
		}
		// Of two coupons of the file, the later names the earlier.
		if oat, ok := im.coupons[other]; ok && oat > at {
			continue
		}
		if first >= 0 && at >= first {
			continue
		}
		o := fmt.Sprintf("coupon %d", other)
		if oat, ok := im.coupons[other]; ok {
			o += fmt.Sprintf(" (Coupons[%d])", oat)
		}
		first = at
		found = fmt.Sprintf("Coupons[%d].Code: %q is also the code of %s of merchant %d; a merchant's coupon codes differ in more than case",
			at, code, o, merchantID)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("import: check coupon codes: %w", err)
	}
	if first >= 0 {
		return afftrack.Errorf(afftrack.EINVALID, "%s", found)
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

package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.ConversionService = (*ConversionService)(nil)

// ConversionService implements afftrack.ConversionService.
type ConversionService struct {
	db *DB
	// Now returns the current wall clock of the network's zone.
	now func() time.Time
	// currency is the network's currency (ISO 4217).
	currency string
}

// NewConversionService returns a ConversionService on db for a network
// whose currency is currency; now gives the network's wall clock.
func NewConversionService(db *DB, currency string, now func() time.Time) *ConversionService {
	return &ConversionService{db: db, now: now, currency: currency}
}

// conversionAttempts bounds the retries of a conversion that lost a race
// for its transaction id (or its OrderId) to a concurrent one.
const conversionAttempts = 8

// RecordConversion records c in one database transaction (see
// afftrack.ConversionService). It returns only once the transaction is
// committed, so a conversion acknowledged is a conversion kept.
func (s *ConversionService) RecordConversion(ctx context.Context, c *afftrack.Conversion) (*afftrack.Transaction, bool, error) {
	for attempt := 1; ; attempt++ {
		t, created, err := s.record(ctx, c)
		if err != nil && s.db.dialect.isUniqueViolation(err) && attempt < conversionAttempts {
			// Another conversion took the next id, or the same OrderId
			// arrived twice at once: the next attempt sees it.
			continue
		}
		return t, created, err
	}
}

func (s *ConversionService) record(ctx context.Context, c *afftrack.Conversion) (*afftrack.Transaction, bool, error) {
	tx, err := s.db.sql.BeginTx(ctx, nil)
	if err != nil {
		return nil, false, fmt.Errorf("record conversion: %w", err)
	}
	defer rollback(tx)

	fingerprint := c.Fingerprint()
	var storedID int64
	var storedPrint string
	err = tx.QueryRowContext(ctx, `SELECT transaction_id, fingerprint FROM conversions
	WHERE merchant_id = $1 AND order_id = $2`, c.MerchantID, c.OrderID).Scan(&storedID, &storedPrint)
	switch {
	case err == nil:
		if storedPrint != fingerprint {
			return nil, false, afftrack.Errorf(afftrack.ECONFLICT,
				"OrderId %q was recorded before with different content (transaction %d).", c.OrderID, storedID)
		}
		rollback(tx)
		t, err := NewTransactionService(s.db).FindTransactionByID(ctx, c.MerchantID, storedID)
		return t, false, err
	case !errors.Is(err, sql.ErrNoRows):
		return nil, false, fmt.Errorf("record conversion: %w", err)
	}

	now := s.now()
	p, err := loadProgram(ctx, tx, c.MerchantID)
	if err != nil {
		return nil, false, err
	}
	if p == nil || !p.Commission.Pays() {
		return nil, false, afftrack.Errorf(afftrack.EUNPROCESSABLE,
			"Merchant %d has no commission terms, so no conversion can be credited.", c.MerchantID)
	}
	coupon, err := findExclusiveCoupon(ctx, tx, c.MerchantID, c.CouponCode)
	if err != nil {
		return nil, false, err
	}
	var click *afftrack.Click
	if c.ClickID != "" {
		if click, err = findClick(ctx, tx, c.ClickID); err != nil {
			return nil, false, err
		}
	}
	credit, err := afftrack.Attribute(c, p, coupon, click, now)
	if err != nil {
		return nil, false, err
	}
	sale := afftrack.Sale{Conversion: c, Program: p, Credit: credit, NetworkCurrency: s.currency, Now: now}
	if sale.Membership, err = creditedMembership(ctx, tx, c.MerchantID, credit.AffiliateID); err != nil {
		return nil, false, err
	}
	if credit.CreativeType == afftrack.CreativeTypeBanner && credit.CreativeID.Valid {
		var name string
		err := tx.QueryRowContext(ctx, `SELECT name FROM banners WHERE id = $1`, credit.CreativeID.Value).Scan(&name)
		if err == nil {
			sale.Credit.CreativeName = afftrack.Some(name)
		} else if !errors.Is(err, sql.ErrNoRows) {
			return nil, false, fmt.Errorf("record conversion: %w", err)
		}
	}
	if c.CurrencyCode != s.currency {
		rate, ok, err := latestRate(ctx, tx, c.CurrencyCode, now)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, afftrack.Errorf(afftrack.EUNPROCESSABLE,
				"There is no rate for CurrencyCode %s dated on or before today, so the sale cannot be converted to %s.",
				c.CurrencyCode, s.currency)
		}
		sale.Rate = rate
	}
	t, err := sale.Transaction()
	if err != nil {
		return nil, false, err
	}
	if c.CouponCode != "" {
		t.CouponCode = afftrack.Some(c.CouponCode)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM transactions`).Scan(&t.ID); err != nil {
		return nil, false, fmt.Errorf("record conversion: %w", err)
	}
	if err := insertTransaction(ctx, tx, s.db.dialect, t, credit.Click); err != nil {
		return nil, false, fmt.Errorf("record conversion: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO conversions (merchant_id, order_id, transaction_id, fingerprint)
	VALUES ($1, $2, $3, $4)`, c.MerchantID, c.OrderID, t.ID, fingerprint); err != nil {
		return nil, false, fmt.Errorf("record conversion: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, false, fmt.Errorf("record conversion: commit: %w", err)
	}
	// Read back as every client will read it: the affiliate's names are
	// joined, not stored.
	stored, err := NewTransactionService(s.db).FindTransactionByID(ctx, c.MerchantID, t.ID)
	return stored, true, err
}

// creditedMembership returns the credited affiliate's membership of the
// merchant, for the traffic fields the transaction records. The affiliate
// must still be Active; without a membership row (an exclusive coupon of
// an affiliate who never joined) the traffic fields take their defaults.
func creditedMembership(ctx context.Context, tx *sql.Tx, merchantID, affiliateID int64) (afftrack.Membership, error) {
	ms := afftrack.Membership{AffiliateID: affiliateID, MerchantID: merchantID,
		TrafficType: afftrack.TrafficTypeWebsite, TrafficSourceApproved: true}
	var status int64
	var msStatus, trafficType sql.Null[int64]
	var source sql.Null[string]
	var approved sql.Null[bool]
	err := tx.QueryRowContext(ctx, `SELECT a.status, ms.status, ms.traffic_type, ms.traffic_source,
		ms.traffic_source_approved
	FROM affiliates a
	LEFT JOIN memberships ms ON ms.affiliate_id = a.id AND ms.merchant_id = $2
	WHERE a.id = $1`, affiliateID, merchantID).Scan(&status, &msStatus, &trafficType, &source, &approved)
	if errors.Is(err, sql.ErrNoRows) {
		return ms, afftrack.Errorf(afftrack.EUNPROCESSABLE, "The credited affiliate %d no longer exists.", affiliateID)
	} else if err != nil {
		return ms, fmt.Errorf("record conversion: %w", err)
	}
	if afftrack.AccountStatus(status) != afftrack.AccountActive {
		return ms, afftrack.Errorf(afftrack.EUNPROCESSABLE, "The credited affiliate %d is %s, so it cannot be credited.",
			affiliateID, afftrack.AccountStatus(status))
	}
	if msStatus.Valid {
		ms.Status = afftrack.MembershipStatus(msStatus.V)
		ms.TrafficType = afftrack.TrafficType(trafficType.V)
		ms.TrafficSource = source.V
		ms.TrafficSourceApproved = approved.V
	}
	return ms, nil
}

// insertTransaction inserts one new transaction, its items and their
// cache, and the click that credited it, if any, with the affiliate's
// UniqueIds.
func insertTransaction(ctx context.Context, tx *sql.Tx, d dialect, t *afftrack.Transaction, click *afftrack.Click) error {
	var items, cacheVals []any
	for i := range t.Items {
		row := itemArgs(nil, t.ID, i+1, &t.Items[i])
		items = append(items, row...)
		cacheVals = append(cacheVals, row[2:]...)
	}
	cache, err := appendItemsCache([]byte{}, cacheVals) // not nil, which is NULL
	if err != nil {
		return err
	}
	args := transactionArgs(nil, t, cache)
	var clickID any
	unique := [4]any{}
	if click != nil {
		clickID = click.ID
		for i, u := range click.UniqueIDs {
			if u != "" {
				unique[i] = u
			}
		}
	}
	args = append(args, clickID, unique[0], unique[1], unique[2], unique[3])
	if _, err := tx.ExecContext(ctx, `INSERT INTO transactions (`+transactionColumnList+`,
		click_id, unique_id, unique_id2, unique_id3, unique_id4) VALUES `+
		d.placeholders(1, transactionColumns+5), args...); err != nil {
		return err
	}
	if len(t.Items) > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO transaction_items (`+itemColumnList+`) VALUES `+
			d.placeholders(len(t.Items), itemColumns), items...); err != nil {
			return err
		}
	}
	return nil
}

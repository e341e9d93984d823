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

// actor is who reported c, for its transaction's history.
func (s *ConversionService) actor(c *afftrack.Conversion) afftrack.Actor {
	if c.Pixel {
		return afftrack.Actor(fmt.Sprintf("merchant:%d pixel", c.MerchantID))
	}
	if c.Actor != "" {
		return c.Actor
	}
	return afftrack.Actor(fmt.Sprintf("merchant:%d", c.MerchantID))
}

// conversionAttempts bounds the retries of a conversion that lost a race
// for its transaction id (or its OrderId) to a concurrent one.
const conversionAttempts = 8

// RecordConversion records c in one database transaction (see
// afftrack.ConversionService). It returns only once the transaction is
// committed, so a conversion acknowledged is a conversion kept.
func (s *ConversionService) RecordConversion(ctx context.Context, c *afftrack.Conversion) (*afftrack.Transaction, bool, error) {
	for attempt := 1; ; attempt++ {
		var unprepared []string
		t, created, err := s.record(ctx, c, &unprepared)
		// Prepared now, with no transaction held: preparing inside one
		// would take a second connection from a pool that concurrent
		// conversions may have exhausted, each waiting for another.
		for _, q := range unprepared {
			s.db.prepared(ctx, q)
		}
		if err != nil && s.db.dialect.isUniqueViolation(err) && attempt < conversionAttempts {
			// Another conversion took the next id, or the same OrderId
			// arrived twice at once: the next attempt sees it.
			continue
		}
		return t, created, err
	}
}

// record records c once. Everything it reads (an earlier conversion of the
// OrderId, the program, coupon, click, membership and rate) is read before
// the write transaction, on the pool: on SQLite the write transaction holds
// the database's one write lock, and conversions run only as fast as it is
// released. A program or membership changed between the reads and the
// commit is met as if the conversion had come a moment earlier. The OrderId
// is decided by the conversions table's key: a conversion that loses a race
// for it fails on the key and is retried, and the retry reads the winner.
func (s *ConversionService) record(ctx context.Context, c *afftrack.Conversion, unprepared *[]string) (*afftrack.Transaction, bool, error) {
	pool := pooled{s.db}
	fingerprint := c.Fingerprint()
	var storedID int64
	var storedPrint string
	err := pool.QueryRowContext(ctx, `SELECT transaction_id, fingerprint FROM conversions
	WHERE merchant_id = $1 AND order_id = $2`, c.MerchantID, c.OrderID).Scan(&storedID, &storedPrint)
	switch {
	case err == nil:
		if storedPrint != fingerprint {
			return nil, false, afftrack.Errorf(afftrack.ECONFLICT,
				"OrderId %q was recorded before with different content (transaction %d).", c.OrderID, storedID)
		}
		t, err := NewTransactionService(s.db).FindTransactionByID(ctx, c.MerchantID, storedID)
		return t, false, err
	case !errors.Is(err, sql.ErrNoRows):
		return nil, false, fmt.Errorf("record conversion: %w", err)
	}

	now := s.now()
	t, credit, err := s.price(ctx, pool, c, now)
	if err != nil {
		return nil, false, err
	}

	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("record conversion: %w", err)
	}
	defer release()
	defer rollback(tx)
	q := preparedTx{Tx: tx, db: s.db, unprepared: unprepared}
	if t.ID, err = s.db.dialect.nextTransactionID(ctx, tx); err != nil {
		return nil, false, fmt.Errorf("record conversion: %w", err)
	}
	if err := insertTransaction(ctx, q, s.db.dialect, t, credit.Click); err != nil {
		return nil, false, fmt.Errorf("record conversion: %w", err)
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO conversions (merchant_id, order_id, transaction_id, fingerprint)
	VALUES ($1, $2, $3, $4)`, c.MerchantID, c.OrderID, t.ID, fingerprint); err != nil {
		return nil, false, fmt.Errorf("record conversion: %w", err)
	}
	created := afftrack.TransactionEvent{TransactionID: t.ID, At: now, Actor: s.actor(c), To: t.Status2,
		ToSaleValue: t.SaleValue, ToCommission: t.Commission, Reason: "conversion " + credit.Method.String()}
	if err := insertEvents(ctx, q, s.db.dialect, []afftrack.TransactionEvent{created}); err != nil {
		return nil, false, err
	}
	if err := enqueueNotifications(ctx, q, s.db.dialect, []int64{t.ID}, now); err != nil {
		return nil, false, err
	}
	if err := tx.Commit(); err != nil {
		return nil, false, fmt.Errorf("record conversion: commit: %w", err)
	}
	// t is what a read of the row gives (the tests hold them equal):
	// reading it back would cost a query for nothing.
	return t, true, nil
}

// price attributes c and prices its transaction (all but its id) from what
// q reads, or says why nothing can be credited (EUNPROCESSABLE).
func (s *ConversionService) price(ctx context.Context, q queryer, c *afftrack.Conversion, now time.Time) (*afftrack.Transaction, afftrack.Credit, error) {
	var none afftrack.Credit
	p, err := loadProgramTerms(ctx, q, c.MerchantID)
	if err != nil {
		return nil, none, err
	}
	if p == nil || !p.Commission.Pays() {
		return nil, none, afftrack.Errorf(afftrack.EUNPROCESSABLE,
			"Merchant %d has no commission terms, so no conversion can be credited.", c.MerchantID)
	}
	coupon, err := findExclusiveCoupon(ctx, q, c.MerchantID, c.CouponCode)
	if err != nil {
		return nil, none, err
	}
	var click *afftrack.Click
	var bannerName afftrack.Null[string]
	if c.ClickID != "" {
		if click, bannerName, err = findClick(ctx, q, c.ClickID); err != nil {
			return nil, none, err
		}
	}
	credit, err := afftrack.Attribute(c, p, coupon, click, now)
	if err != nil {
		return nil, none, err
	}
	sale := afftrack.Sale{Conversion: c, Program: p, Credit: credit, NetworkCurrency: s.currency, Now: now}
	var names affiliateNames
	if sale.Membership, names, err = creditedMembership(ctx, q, c.MerchantID, credit.AffiliateID); err != nil {
		return nil, none, err
	}
	if credit.Click != nil {
		sale.Credit.CreativeName = bannerName
	}
	if c.CurrencyCode != s.currency {
		rate, ok, err := latestRate(ctx, q, c.CurrencyCode, now)
		if err != nil {
			return nil, none, err
		}
		if !ok {
			return nil, none, afftrack.Errorf(afftrack.EUNPROCESSABLE,
				"There is no rate for CurrencyCode %s dated on or before today, so the sale cannot be converted to %s.",
				c.CurrencyCode, s.currency)
		}
		sale.Rate = rate
	}
	t, err := sale.Transaction()
	if err != nil {
		return nil, none, err
	}
	if c.CouponCode != "" {
		t.CouponCode = afftrack.Some(c.CouponCode)
	}
	t.AffiliateContactName, t.AffiliateBusinessName = names.contact, names.business
	if t.Items == nil {
		t.Items = []afftrack.TransactionItem{} // as a read gives it
	}
	return t, credit, nil
}

// preparedTx runs a write transaction's statements through the DB's
// prepared statements where the dialect prepares (SQLite parses every
// statement's text anew, a fifth of a conversion's time). A statement not
// prepared yet runs as it is and is listed in unprepared, for the caller
// to prepare once the transaction is over.
type preparedTx struct {
	*sql.Tx
	db         *DB
	unprepared *[]string
}

// stmt returns q's prepared statement bound to the transaction, or nil.
func (p preparedTx) stmt(ctx context.Context, q string) *sql.Stmt {
	if !p.db.dialect.prepares() {
		return nil
	}
	if st := p.db.stmts.lookup(q); st != nil {
		return p.Tx.StmtContext(ctx, st)
	}
	*p.unprepared = append(*p.unprepared, q)
	return nil
}

// QueryContext runs q in the transaction, prepared where that pays.
func (p preparedTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if st := p.stmt(ctx, q); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return p.Tx.QueryContext(ctx, q, args...)
}

// QueryRowContext runs q in the transaction, prepared where that pays.
func (p preparedTx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if st := p.stmt(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return p.Tx.QueryRowContext(ctx, q, args...)
}

// ExecContext runs q in the transaction, prepared where that pays.
func (p preparedTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if st := p.stmt(ctx, q); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return p.Tx.ExecContext(ctx, q, args...)
}

// creditedMembership returns the credited affiliate's membership of the
// merchant, for the traffic fields the transaction records, and the
// affiliate's names, which a read of the transaction joins. The affiliate
// must still be Active; without a membership row (an exclusive coupon of
// an affiliate who never joined) the traffic fields take their defaults.
func creditedMembership(ctx context.Context, q queryer, merchantID, affiliateID int64) (afftrack.Membership, affiliateNames, error) {
	ms := afftrack.Membership{AffiliateID: affiliateID, MerchantID: merchantID,
		TrafficType: afftrack.TrafficTypeWebsite, TrafficSourceApproved: true}
	var names affiliateNames
	var status int64
	var msStatus, trafficType sql.Null[int64]
	var source sql.Null[string]
	var approved sql.Null[bool]
	err := q.QueryRowContext(ctx, `SELECT a.status, a.contact_name, a.business_name, ms.status, ms.traffic_type,
		ms.traffic_source, ms.traffic_source_approved
	FROM affiliates a
	LEFT JOIN memberships ms ON ms.affiliate_id = a.id AND ms.merchant_id = $2
	WHERE a.id = $1`, affiliateID, merchantID).Scan(&status, &names.contact, &names.business, &msStatus, &trafficType,
		&source, &approved)
	if errors.Is(err, sql.ErrNoRows) {
		return ms, names, afftrack.Errorf(afftrack.EUNPROCESSABLE, "The credited affiliate %d no longer exists.", affiliateID)
	} else if err != nil {
		return ms, names, fmt.Errorf("record conversion: %w", err)
	}
	if afftrack.AccountStatus(status) != afftrack.AccountActive {
		return ms, names, afftrack.Errorf(afftrack.EUNPROCESSABLE, "The credited affiliate %d is %s, so it cannot be credited.",
			affiliateID, afftrack.AccountStatus(status))
	}
	if msStatus.Valid {
		ms.Status = afftrack.MembershipStatus(msStatus.V)
		ms.TrafficType = afftrack.TrafficType(trafficType.V)
		ms.TrafficSource = source.V
		ms.TrafficSourceApproved = approved.V
	}
	return ms, names, nil
}

// insertTransaction inserts one new transaction, its items and their
// cache, and the click that credited it, if any, with the affiliate's
// UniqueIds.
func insertTransaction(ctx context.Context, tx queryer, d dialect, t *afftrack.Transaction, click *afftrack.Click) error {
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
	// The affiliate's UniqueIds are the click's, not the conversion's.
	withIDs := *t
	withIDs.UniqueIDs = [4]afftrack.Null[string]{}
	var clickID any
	if click != nil {
		clickID = click.ID
		for i, u := range click.UniqueIDs {
			if u != "" {
				withIDs.UniqueIDs[i] = afftrack.Some(u)
			}
		}
	}
	args := append(transactionArgs(nil, &withIDs, cache), clickID)
	if _, err := tx.ExecContext(ctx, `INSERT INTO transactions (`+transactionColumnList+`, click_id) VALUES `+
		d.placeholders(1, transactionColumns+1), args...); err != nil {
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

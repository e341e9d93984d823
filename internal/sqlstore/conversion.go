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
	// group gathers the conversions waiting to be written, so that
	// conversions arriving together commit together.
	group conversionGroup
	// Now returns the current wall clock of the network's zone.
	now func() time.Time
	// currency is the network's currency (ISO 4217).
	currency string
}

// NewConversionService returns a ConversionService on db for a network
// whose currency is currency; now gives the network's wall clock.
func NewConversionService(db *DB, currency string, now func() time.Time) *ConversionService {
	return &ConversionService{db: db, now: now, currency: currency, group: newConversionGroup()}
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
		t, created, err := s.record(ctx, c)
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
// The writes go with those of the conversions that arrive meanwhile, in
// one database transaction (conversion_write.go).
func (s *ConversionService) record(ctx context.Context, c *afftrack.Conversion) (*afftrack.Transaction, bool, error) {
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
		if afftrack.ErrorCode(err) == afftrack.ENOTFOUND || err == nil && t.OrderID != c.OrderID {
			// An import made before imports refused to do so replaced the
			// transaction: answering with it would report another sale.
			return nil, false, afftrack.Errorf(afftrack.ECONFLICT,
				"OrderId %q was recorded as transaction %d, which an import has since replaced.", c.OrderID, storedID)
		}
		return t, false, err
	case !errors.Is(err, sql.ErrNoRows):
		return nil, false, fmt.Errorf("record conversion: %w", err)
	}

	w, err := s.price(ctx, pool, c, s.now())
	if err != nil {
		return nil, false, err
	}
	w.fingerprint = fingerprint
	if err := s.write(ctx, w); err != nil {
		return nil, false, fmt.Errorf("record conversion: %w", err)
	}
	// w.t is what a read of the row gives (the tests hold them equal):
	// reading it back would cost a query for nothing.
	return w.t, true, nil
}

// price attributes c and prices its transaction (all but its id) from what
// q reads, ready to write, or says why nothing can be credited
// (EUNPROCESSABLE).
func (s *ConversionService) price(ctx context.Context, q queryer, c *afftrack.Conversion, now time.Time) (*conversionWrite, error) {
	p, merchantStatus, err := loadProgramTerms(ctx, q, c.MerchantID)
	if err != nil {
		return nil, err
	}
	if p != nil && merchantStatus != afftrack.AccountActive {
		// The pixel takes no key, so it reaches here for a merchant whose
		// links no longer credit and whose key is refused.
		return nil, afftrack.Errorf(afftrack.EUNPROCESSABLE,
			"Merchant %d is %s, so no conversion can be credited.", c.MerchantID, merchantStatus)
	}
	if p == nil {
		// The pixel names its merchant in a URL anyone may type.
		if exists, err := merchantExists(ctx, q, c.MerchantID); err != nil {
			return nil, fmt.Errorf("record conversion: %w", err)
		} else if !exists {
			return nil, afftrack.Errorf(afftrack.EUNPROCESSABLE,
				"There is no merchant %d, so no conversion can be credited.", c.MerchantID)
		}
	}
	if p == nil || !p.Commission.Pays() {
		return nil, afftrack.Errorf(afftrack.EUNPROCESSABLE,
			"Merchant %d has no commission terms, so no conversion can be credited.", c.MerchantID)
	}
	coupon, err := findExclusiveCoupon(ctx, q, c.MerchantID, c.CouponCode)
	if err != nil {
		return nil, err
	}
	var click *afftrack.Click
	var bannerName afftrack.Null[string]
	if c.ClickID != "" {
		if click, bannerName, err = findClick(ctx, q, c.ClickID); err != nil {
			return nil, err
		}
	}
	credit, err := afftrack.Attribute(c, p, coupon, click, now)
	if err != nil {
		return nil, err
	}
	sale := afftrack.Sale{Conversion: c, Program: p, Credit: credit, NetworkCurrency: s.currency, Now: now}
	var a creditedAffiliate
	sale.Membership, a, err = creditedMembership(ctx, q, c.MerchantID, credit.AffiliateID)
	if err != nil && credit.Method == afftrack.TrackingMethodClickless && c.ClickID != "" &&
		afftrack.ErrorCode(err) == afftrack.EUNPROCESSABLE {
		// An exclusive coupon whose affiliate cannot be credited is no
		// better than one out of its dates: the click credits, if it can.
		if credit, err = afftrack.Attribute(c, p, nil, click, now); err != nil {
			return nil, err
		}
		sale.Credit = credit
		sale.Membership, a, err = creditedMembership(ctx, q, c.MerchantID, credit.AffiliateID)
	}
	if err != nil {
		return nil, err
	}
	if credit.Click != nil {
		sale.Credit.CreativeName = bannerName
	}
	if c.CurrencyCode != s.currency {
		rate, ok, err := latestRate(ctx, q, c.CurrencyCode, now)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, afftrack.Errorf(afftrack.EUNPROCESSABLE,
				"There is no rate for CurrencyCode %s dated on or before today, so the sale cannot be converted to %s.",
				c.CurrencyCode, s.currency)
		}
		sale.Rate = rate
	}
	t, err := sale.Transaction()
	if err != nil {
		return nil, err
	}
	if c.CouponCode != "" {
		t.CouponCode = afftrack.Some(c.CouponCode)
	}
	t.AffiliateContactName, t.AffiliateBusinessName = a.names.contact, a.names.business
	if t.Items == nil {
		t.Items = []afftrack.TransactionItem{} // as a read gives it
	}
	return &conversionWrite{c: c, t: t, click: credit.Click, notificationURL: a.notificationURL,
		event: afftrack.TransactionEvent{At: now, Actor: s.actor(c), To: t.Status2, ToSaleValue: t.SaleValue,
			ToCommission: t.Commission, Reason: "conversion " + credit.Method.String()}}, nil
}

// creditedAffiliate is what a conversion reads of the affiliate it credits.
type creditedAffiliate struct {
	names           affiliateNames // which a read of the transaction joins
	notificationURL string         // the template of its notifications, '' for none
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
func creditedMembership(ctx context.Context, q queryer, merchantID, affiliateID int64) (afftrack.Membership, creditedAffiliate, error) {
	ms := afftrack.Membership{AffiliateID: affiliateID, MerchantID: merchantID,
		TrafficType: afftrack.TrafficTypeWebsite, TrafficSourceApproved: true}
	var a creditedAffiliate
	var status int64
	var msStatus, trafficType sql.Null[int64]
	var source sql.Null[string]
	var approved sql.Null[bool]
	err := q.QueryRowContext(ctx, `SELECT a.status, a.contact_name, a.business_name, a.notification_url, ms.status,
		ms.traffic_type, ms.traffic_source, ms.traffic_source_approved
	FROM affiliates a
	LEFT JOIN memberships ms ON ms.affiliate_id = a.id AND ms.merchant_id = $2
	WHERE a.id = $1`, affiliateID, merchantID).Scan(&status, &a.names.contact, &a.names.business, &a.notificationURL,
		&msStatus, &trafficType, &source, &approved)
	if errors.Is(err, sql.ErrNoRows) {
		return ms, a, afftrack.Errorf(afftrack.EUNPROCESSABLE, "The credited affiliate %d no longer exists.", affiliateID)
	} else if err != nil {
		return ms, a, fmt.Errorf("record conversion: %w", err)
	}
	if afftrack.AccountStatus(status) != afftrack.AccountActive {
		return ms, a, afftrack.Errorf(afftrack.EUNPROCESSABLE, "The credited affiliate %d is %s, so it cannot be credited.",
			affiliateID, afftrack.AccountStatus(status))
	}
	if msStatus.Valid {
		ms.Status = afftrack.MembershipStatus(msStatus.V)
		ms.TrafficType = afftrack.TrafficType(trafficType.V)
		ms.TrafficSource = source.V
		ms.TrafficSourceApproved = approved.V
	}
	return ms, a, nil
}

// insertTransactions inserts new transactions, their items and their
// caches, each with the click that credited it (nil for none) and the
// affiliate's UniqueIds, many to a statement.
func insertTransactions(ctx context.Context, tx queryer, d dialect, ts []*afftrack.Transaction, clicks []*afftrack.Click) error {
	var items []any
	rows := make([][]any, len(ts))
	for n, t := range ts {
		var cacheVals []any
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
		if c := clicks[n]; c != nil {
			clickID = c.ID
			for i, u := range c.UniqueIDs {
				if u != "" {
					withIDs.UniqueIDs[i] = afftrack.Some(u)
				}
			}
		}
		rows[n] = append(transactionArgs(nil, &withIDs, cache), clickID)
	}
	per := max(1, d.batchParams()/(transactionColumns+1))
	for start := 0; start < len(rows); start += per {
		batch := rows[start:min(len(rows), start+per)]
		var args []any
		for _, r := range batch {
			args = append(args, r...)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO transactions (`+transactionColumnList+`, click_id) VALUES `+
			d.placeholders(len(batch), transactionColumns+1), args...); err != nil {
			return err
		}
	}
	per = max(1, d.batchParams()/itemColumns) * itemColumns
	for start := 0; start < len(items); start += per {
		batch := items[start:min(len(items), start+per)]
		if _, err := tx.ExecContext(ctx, `INSERT INTO transaction_items (`+itemColumnList+`) VALUES `+
			d.placeholders(len(batch)/itemColumns, itemColumns), batch...); err != nil {
			return err
		}
	}
	return nil
}

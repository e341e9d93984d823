package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.ImportService = (*ImportService)(nil)

// ImportService implements afftrack.ImportService.
type ImportService struct {
	db *DB

	// Now is the import's time: the Created time of the keys it adds and
	// the dates its records leave out ("now" in docs/import.md), a wall
	// clock of the network's zone carried in UTC. Nil means the current
	// wall clock of the zone the database recorded (UTC before one is).
	Now func() time.Time

	// TimeZone is the zone the file's datetimes were converted to. The
	// import records it as the network's, or fails if another is
	// recorded; an import that fails takes back a zone it recorded, so a
	// second try under a corrected --timezone is not refused. Empty
	// records and checks nothing.
	TimeZone string
}

// NewImportService returns an ImportService on db.
func NewImportService(db *DB) *ImportService { return &ImportService{db: db} }

// analyzeAfter is how many transactions an import writes before it
// refreshes the planner's statistics.
const analyzeAfter = 10_000

// importKeyLabel labels the keys an import file adds.
const importKeyLabel = "imported"

// Upserts and lookups of an import. Each is prepared once per import and
// reused for every record, which matters when a file holds a million
// transactions.
const (
	upsertInvoice = `INSERT INTO invoices (id, affiliate_id, date_created, date_paid, number, description,
		sub_total, gst, total)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
	ON CONFLICT (id) DO UPDATE SET affiliate_id = excluded.affiliate_id, date_created = excluded.date_created,
		date_paid = excluded.date_paid, number = excluded.number, description = excluded.description,
		sub_total = excluded.sub_total, gst = excluded.gst, total = excluded.total`
	countMerchant   = `SELECT COUNT(*) FROM merchants WHERE id = $1`
	selectMerchant  = `SELECT name, avatar_url FROM merchants WHERE id = $1`
	selectAffiliate = `SELECT contact_name, business_name FROM affiliates WHERE id = $1`
	selectKeyOwner  = `SELECT account_kind, account_id FROM api_keys WHERE key_hash = $1`

	// A record's DateCreated left out keeps a stored record's: the last
	// parameter is the given value or NULL, the VALUES' date_created the
	// given value or the import's time.
	importUpsertMerchant = `INSERT INTO merchants (id, name, avatar_url, status, rate_per_minute, rate_per_day,
		rate_concurrent, date_created, date_modified, summary, new_category, new_category2, new_category3)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
	ON CONFLICT (id) DO UPDATE SET name = excluded.name, avatar_url = excluded.avatar_url, status = excluded.status,
		rate_per_minute = excluded.rate_per_minute, rate_per_day = excluded.rate_per_day,
		rate_concurrent = excluded.rate_concurrent,
		date_created = COALESCE(CAST($14 AS BIGINT), merchants.date_created), date_modified = excluded.date_modified,
		summary = excluded.summary, new_category = excluded.new_category, new_category2 = excluded.new_category2,
		new_category3 = excluded.new_category3`
	importUpsertAffiliate = `INSERT INTO affiliates (id, contact_name, business_name, status, gst_registered,
		rate_per_minute, rate_per_day, rate_concurrent, notification_url, date_created, date_modified)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
	ON CONFLICT (id) DO UPDATE SET contact_name = excluded.contact_name, business_name = excluded.business_name,
		status = excluded.status, gst_registered = excluded.gst_registered,
		rate_per_minute = excluded.rate_per_minute, rate_per_day = excluded.rate_per_day,
		rate_concurrent = excluded.rate_concurrent, notification_url = excluded.notification_url,
		date_created = COALESCE(CAST($12 AS BIGINT), affiliates.date_created), date_modified = excluded.date_modified`
)

// Import writes d in one database transaction, in the order merchants,
// programs, affiliates, memberships, keys, transactions, banner groups,
// banners, invoices, coupons, promotions, currency rates, clicks, so each
// record's references are written before it. A record whose id is stored
// replaces it, as does a later duplicate in d. Keys are added when their
// hash is new; a hash already held by the same account is kept as it is
// (a revoked key stays revoked). The first broken reference or claim fails
// the whole import with an EINVALID error naming the record and field.
//
// The summary counts the records of each collection written, and the keys
// added.
func (s *ImportService) Import(ctx context.Context, d *afftrack.Dataset) (afftrack.ImportSummary, error) {
	if d == nil {
		d = &afftrack.Dataset{}
	}
	return s.ImportChunks(ctx, func() (*afftrack.Dataset, error) {
		next := d
		d = nil
		return next, nil
	})
}

// ImportChunks imports the datasets next returns, until it returns nil, in
// one database transaction, as Import imports one; an error names a
// record by its index in its own chunk. The importer's knowledge of the
// accounts carries from chunk to chunk, so an account is looked up once.
//
// A load into an empty transactions table is a bulk load: on SQLite the
// transactions' date indexes are dropped for it and rebuilt before the
// commit (a sorted build is several times cheaper than as many ordered
// inserts), and the connection's foreign key checks, which repeat the
// importer's own, are off (dialect_sqlite.go); its page cache stays the
// pool's.
// PostgreSQL keeps its indexes, as dropping one would lock out the readers
// of the table until the load commits.
//
// An import whose ctx is done before it commits is rolled back, and says
// so, with the context's cause (a signal's name): the statement that was
// running when it ended would report only that it was closed.
func (s *ImportService) ImportChunks(ctx context.Context, next func() (*afftrack.Dataset, error)) (_ afftrack.ImportSummary, err error) {
	defer func() {
		if err != nil && ctx.Err() != nil {
			err = fmt.Errorf("import interrupted (%w) before it was committed: nothing was written", context.Cause(ctx))
		}
	}()
	if s.TimeZone == "" {
		return s.importChunks(ctx, next)
	}
	// Recorded ahead of the import and committed at once, not inside its
	// transaction: there the row would stay locked for the whole import,
	// and a serve starting meanwhile would wait on it that long. A zone
	// this import records is marked tentative with its token.
	var token [8]byte
	rand.Read(token[:]) // never fails (crypto/rand panics rather than return an error)
	mark := hex.EncodeToString(token[:])
	inserted, err := s.recordTentativeZone(ctx, mark)
	if err != nil {
		return afftrack.ImportSummary{}, fmt.Errorf("import: record time zone: %w", err)
	}
	stored, err := s.db.setting(ctx, settingTimeZone)
	if err != nil {
		return afftrack.ImportSummary{}, fmt.Errorf("import: %w", err)
	}
	if stored != s.TimeZone {
		return afftrack.ImportSummary{}, timeZoneMismatch(stored, s.TimeZone)
	}
	sum, err := s.importChunks(ctx, next)
	if err == nil {
		// The zone stays, whoever recorded it: one a concurrent import
		// took back is recorded again.
		return sum, s.db.CheckTimeZone(ctx, s.TimeZone)
	}
	if inserted {
		// Taken back unless another relied on it meanwhile (its mark is
		// gone). Best effort: a crash leaves the zone recorded, as a
		// first run of serve would.
		s.takeBackTentativeZone(context.WithoutCancel(ctx), mark)
	}
	return sum, err
}

// recordTentativeZone records the import's zone, marked with the import's
// token, if none is recorded, and reports whether it did.
func (s *ImportService) recordTentativeZone(ctx context.Context, mark string) (bool, error) {
	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	defer rollback(tx)
	res, err := tx.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO NOTHING`, settingTimeZone, s.TimeZone)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET value = excluded.value`, settingTentativeZone, mark); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// takeBackTentativeZone removes the zone a failed import recorded, if its
// mark is still there.
func (s *ImportService) takeBackTentativeZone(ctx context.Context, mark string) {
	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return
	}
	defer release()
	defer rollback(tx)
	if _, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE name = $1 AND value = $2
		AND EXISTS (SELECT 1 FROM settings WHERE name = $3 AND value = $4)`,
		settingTimeZone, s.TimeZone, settingTentativeZone, mark); err != nil {
		return
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE name = $1 AND value = $2`,
		settingTentativeZone, mark); err != nil {
		return
	}
	_ = tx.Commit()
}

// importChunks is ImportChunks once the zone is settled.
func (s *ImportService) importChunks(ctx context.Context, next func() (*afftrack.Dataset, error)) (afftrack.ImportSummary, error) {
	now := s.Now
	if now == nil {
		t, err := s.importTime(ctx)
		if err != nil {
			return afftrack.ImportSummary{}, fmt.Errorf("import: %w", err)
		}
		now = func() time.Time { return t }
	}
	// A connection of its own, so the pragmas a bulk load sets can be set
	// back on it after the transaction, before it returns to the pool.
	conn, err := s.db.sql.Conn(ctx)
	if err != nil {
		return afftrack.ImportSummary{}, fmt.Errorf("import: %w", err)
	}
	defer conn.Close()
	bulk, err := s.db.dialect.beginBulkLoad(ctx, conn)
	if bulk != nil {
		defer restoreConn(ctx, conn, bulk.restore)
	}
	if err != nil {
		return afftrack.ImportSummary{}, fmt.Errorf("import: begin: %w", err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return afftrack.ImportSummary{}, fmt.Errorf("import: begin: %w", err)
	}
	defer rollback(tx)
	if err := s.db.dialect.beginImport(ctx, tx); err != nil {
		return afftrack.ImportSummary{}, fmt.Errorf("import: begin: %w", err)
	}
	if bulk != nil {
		if err := bulk.dropIndexes(ctx, tx); err != nil {
			return afftrack.ImportSummary{}, fmt.Errorf("import: begin: %w", err)
		}
	}
	im := newImporter(ctx, tx, s.db.dialect, now())
	defer im.close()
	steps := []func(d *afftrack.Dataset) error{
		im.importMerchants, im.importPrograms, im.importAffiliates, im.importMemberships, im.importKeys,
		im.importTransactions, im.importBannerGroups, im.importBanners, im.importInvoices, im.importCoupons,
		im.importPromotions, im.importCurrencyRates, im.importClicks,
	}
	for {
		d, err := next()
		if err != nil {
			return afftrack.ImportSummary{}, err
		}
		if d == nil {
			break
		}
		for _, step := range steps {
			if err := step(d); err != nil {
				return afftrack.ImportSummary{}, err
			}
		}
		im.summary.Merchants += len(d.Merchants)
		im.summary.Affiliates += len(d.Affiliates)
		im.summary.Memberships += len(d.Memberships)
		im.summary.Transactions += len(d.Transactions)
		im.summary.Banners += len(d.Banners)
		im.summary.Invoices += len(d.Invoices)
		im.summary.Programs += len(d.Programs)
		im.summary.Coupons += len(d.Coupons)
		im.summary.CurrencyRates += len(d.CurrencyRates)
		im.summary.BannerGroups += len(d.BannerGroups)
		im.summary.Promotions += len(d.Promotions)
		im.summary.Clicks += len(d.Clicks)
	}
	if err := im.checkDefaultBanners(); err != nil {
		return afftrack.ImportSummary{}, err
	}
	if err := im.checkCouponCodes(); err != nil {
		return afftrack.ImportSummary{}, err
	}
	if im.summary.Transactions > 0 {
		if err := s.db.dialect.syncTransactionIDs(ctx, tx); err != nil {
			return afftrack.ImportSummary{}, fmt.Errorf("import: %w", err)
		}
	}
	if bulk != nil {
		for _, q := range bulk.finish {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return afftrack.ImportSummary{}, fmt.Errorf("import: %s: %w", q, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return afftrack.ImportSummary{}, fmt.Errorf("import: commit: %w", err)
	}
	if im.summary.Transactions >= analyzeAfter {
		// The import is done either way; stale statistics only make
		// reads slower until autovacuum refreshes them.
		_ = s.db.dialect.analyze(context.WithoutCancel(ctx), s.db.sql)
	}
	return im.summary, nil
}

// importTime is the import's "now": the wall clock of the zone it is to
// record, else of the one the database recorded.
func (s *ImportService) importTime(ctx context.Context) (time.Time, error) {
	if s.TimeZone == "" {
		return s.db.networkNow(ctx)
	}
	loc, err := time.LoadLocation(s.TimeZone)
	if err != nil {
		return time.Time{}, err
	}
	return afftrack.WallClock(s.db.clock(), loc), nil
}

// importer is the state of one Import: its transaction, its prepared
// statements, and what it has learnt about accounts, so that each
// reference is looked up in the database at most once.
type importer struct {
	ctx     context.Context
	tx      *sql.Tx
	dialect dialect
	now     time.Time
	stmts   map[string]*sql.Stmt
	summary afftrack.ImportSummary

	merchants  map[int64]*merchantNames  // id: names, nil if it does not exist
	affiliates map[int64]*affiliateNames // id: names, nil if it does not exist
	targets    map[int64]string          // merchant id: its program's TargetUrl ("" for none)

	groups      map[int64]*bannerGroup            // id: the group, nil if it does not exist
	groupNames  map[groupKey]int64                // a merchant's group name: its id
	nextGroupID int64                             // the id of the next group a banner makes; 0 until looked up
	defaults    map[int64]int                     // banners written DefaultForSize: their index in the file
	coupons     map[int64]int                     // coupons written: their index in the file
	traffic     map[[2]int64]afftrack.TrafficType // affiliate and merchant: the membership's, 0 for none
	sources     sourcesState                      // what is known of membership_traffic_sources
}

func newImporter(ctx context.Context, tx *sql.Tx, d dialect, now time.Time) *importer {
	return &importer{
		ctx: ctx, tx: tx, now: now, dialect: d,
		stmts:      map[string]*sql.Stmt{},
		merchants:  map[int64]*merchantNames{},
		affiliates: map[int64]*affiliateNames{},
		targets:    map[int64]string{},
		groups:     map[int64]*bannerGroup{},
		groupNames: map[groupKey]int64{},
		defaults:   map[int64]int{},
		coupons:    map[int64]int{},
		traffic:    map[[2]int64]afftrack.TrafficType{},
	}
}

// merchantNames are what a transaction record's claims are checked against.
type merchantNames struct {
	name, avatarURL string
}

// affiliateNames are what a transaction record's claims are checked against.
type affiliateNames struct {
	contact, business string
}

// dateArgs returns the arguments of a record's DateCreated and
// DateModified: the values written (the import's time for one left out)
// and the given DateCreated or nil, which keeps a stored record's.
func (im *importer) dateArgs(created, modified afftrack.Null[time.Time]) (createdArg, modifiedArg, given any) {
	c, m := im.now, im.now
	if created.Valid {
		c, given = created.Value, toMillis(created.Value)
	}
	if modified.Valid {
		m = modified.Value
	}
	return toMillis(c), toMillis(m), given
}

// stmt returns the statement q prepared in the import's transaction,
// preparing it on first use.
func (im *importer) stmt(q string) (*sql.Stmt, error) {
	if st, ok := im.stmts[q]; ok {
		return st, nil
	}
	st, err := im.tx.PrepareContext(im.ctx, q)
	if err != nil {
		return nil, err
	}
	im.stmts[q] = st
	return st, nil
}

// exec runs the statement q with args.
func (im *importer) exec(q string, args ...any) error {
	st, err := im.stmt(q)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(im.ctx, args...)
	return err
}

func (im *importer) close() {
	for _, st := range im.stmts {
		st.Close()
	}
}

// merchant returns the names of merchant id, or nil if it is not stored,
// this import's merchants included.
func (im *importer) merchant(id int64) (*merchantNames, error) {
	if m, known := im.merchants[id]; known {
		return m, nil
	}
	st, err := im.stmt(selectMerchant)
	if err != nil {
		return nil, err
	}
	m := &merchantNames{}
	err = st.QueryRowContext(im.ctx, id).Scan(&m.name, &m.avatarURL)
	if errors.Is(err, sql.ErrNoRows) {
		m = nil
	} else if err != nil {
		return nil, err
	}
	im.merchants[id] = m
	return m, nil
}

// affiliate returns the names of affiliate id, or nil if it is not stored.
func (im *importer) affiliate(id int64) (*affiliateNames, error) {
	if a, known := im.affiliates[id]; known {
		return a, nil
	}
	st, err := im.stmt(selectAffiliate)
	if err != nil {
		return nil, err
	}
	a := &affiliateNames{}
	err = st.QueryRowContext(im.ctx, id).Scan(&a.contact, &a.business)
	if errors.Is(err, sql.ErrNoRows) {
		a = nil
	} else if err != nil {
		return nil, err
	}
	im.affiliates[id] = a
	return a, nil
}

// record names a record of the import file, for error messages; it is
// formatted only when one is needed.
type record struct {
	collection string
	index      int
}

func (r record) String() string { return fmt.Sprintf("%s[%d]", r.collection, r.index) }

// checkMerchant returns the EINVALID error of a reference, from field of
// record r, to a merchant that does not exist.
func (im *importer) checkMerchant(r record, field string, id int64) error {
	_, err := im.checkMerchantNames(r, field, id)
	return err
}

// checkMerchantNames is checkMerchant that returns the names.
func (im *importer) checkMerchantNames(r record, field string, id int64) (*merchantNames, error) {
	m, err := im.merchant(id)
	if err != nil {
		return nil, fmt.Errorf("import %s.%s: %w", r, field, err)
	} else if m == nil {
		return nil, afftrack.Errorf(afftrack.EINVALID, "%s.%s: merchant %d does not exist", r, field, id)
	}
	return m, nil
}

// checkAffiliate is checkMerchant for affiliates; it returns the names.
func (im *importer) checkAffiliate(r record, field string, id int64) (*affiliateNames, error) {
	a, err := im.affiliate(id)
	if err != nil {
		return nil, fmt.Errorf("import %s.%s: %w", r, field, err)
	} else if a == nil {
		return nil, afftrack.Errorf(afftrack.EINVALID, "%s.%s: affiliate %d does not exist", r, field, id)
	}
	return a, nil
}

func (im *importer) importMerchants(d *afftrack.Dataset) error {
	for i := range d.Merchants {
		rec := &d.Merchants[i]
		m := &rec.Merchant
		var cats [afftrack.MaxMerchantCategories]any
		if len(rec.Categories) > len(cats) {
			return afftrack.Errorf(afftrack.EINVALID, "Merchants[%d].Categories: has %d categories; a merchant has at most %d",
				d.Start.Merchants+i, len(rec.Categories), len(cats))
		}
		for j, c := range rec.Categories {
			cats[j] = c
		}
		created, modified, given := im.dateArgs(rec.DateCreated, rec.DateModified)
		args := append(merchantArgs(m), created, modified, rec.Summary, cats[0], cats[1], cats[2], given)
		if err := im.exec(importUpsertMerchant, args...); err != nil {
			return fmt.Errorf("import Merchants[%d]: %w", d.Start.Merchants+i, err)
		}
		im.merchants[m.ID] = &merchantNames{name: m.Name, avatarURL: m.AvatarURL}
	}
	return nil
}

func (im *importer) importAffiliates(d *afftrack.Dataset) error {
	for i := range d.Affiliates {
		rec := &d.Affiliates[i]
		a := &rec.Affiliate
		created, modified, given := im.dateArgs(rec.DateCreated, rec.DateModified)
		if err := im.exec(importUpsertAffiliate, append(affiliateArgs(a), created, modified, given)...); err != nil {
			return fmt.Errorf("import Affiliates[%d]: %w", d.Start.Affiliates+i, err)
		}
		im.affiliates[a.ID] = &affiliateNames{contact: a.ContactName, business: a.BusinessName}
	}
	return nil
}

func (im *importer) importKeys(d *afftrack.Dataset) error {
	for i, m := range d.Merchants {
		ref := afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: m.ID}
		if err := im.importAccountKeys(fmt.Sprintf("Merchants[%d]", d.Start.Merchants+i), ref, m.APIKeys); err != nil {
			return err
		}
	}
	for i, a := range d.Affiliates {
		ref := afftrack.AccountRef{Kind: afftrack.KindAffiliate, ID: a.ID}
		if err := im.importAccountKeys(fmt.Sprintf("Affiliates[%d]", d.Start.Affiliates+i), ref, a.APIKeys); err != nil {
			return err
		}
	}
	return nil
}

// importAccountKeys adds the secrets of one account record whose hashes
// are new, and refuses one whose hash is another account's.
func (im *importer) importAccountKeys(at string, ref afftrack.AccountRef, secrets []string) error {
	for j, secret := range secrets {
		field := fmt.Sprintf("%s.ApiKeys[%d]", at, j)
		hash := afftrack.HashKey(secret)
		st, err := im.stmt(selectKeyOwner)
		if err != nil {
			return fmt.Errorf("import %s: %w", field, err)
		}
		var kind, id int64
		err = st.QueryRowContext(im.ctx, hash).Scan(&kind, &id)
		switch {
		case err == nil:
			if afftrack.AccountKind(kind) != ref.Kind || id != ref.ID {
				return afftrack.Errorf(afftrack.EINVALID, "%s: the key belongs to another account", field)
			}
			continue
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("import %s: %w", field, err)
		}
		keyID, err := newKeyID()
		if err != nil {
			return fmt.Errorf("import %s: %w", field, err)
		}
		k := &afftrack.Key{ID: keyID, Account: ref, Label: importKeyLabel, Created: im.now}
		if err := im.exec(insertKey, keyArgs(k, hash)...); err != nil {
			return fmt.Errorf("import %s: %w", field, err)
		}
		im.summary.Keys++
	}
	return nil
}

// importTransactions checks each record's references and claims, then
// hands it to a batch that writes many transactions per statement.
func (im *importer) importTransactions(d *afftrack.Dataset) error {
	batch := newTransactionBatch(im)
	for i := range d.Transactions {
		rec := &d.Transactions[i]
		t := &rec.Transaction
		at := record{"Transactions", d.Start.Transactions + i}
		m, err := im.checkMerchantNames(at, "MerchantId", t.MerchantID)
		if err != nil {
			return err
		}
		a, err := im.checkAffiliate(at, "AffiliateId", t.AffiliateID)
		if err != nil {
			return err
		}
		if rec.ClaimedMerchantName.Valid && rec.ClaimedMerchantName.Value != m.name {
			return afftrack.Errorf(afftrack.EINVALID, "%s.MerchantName: %q does not match the merchant's name %q",
				at, rec.ClaimedMerchantName.Value, m.name)
		}
		if rec.ClaimedMerchantAvatarURL.Valid && rec.ClaimedMerchantAvatarURL.Value != m.avatarURL {
			return afftrack.Errorf(afftrack.EINVALID, "%s.MerchantAvatarUrl: %q does not match the merchant's avatar URL %q",
				at, rec.ClaimedMerchantAvatarURL.Value, m.avatarURL)
		}
		if rec.ClaimedContactName.Valid && rec.ClaimedContactName.Value != a.contact {
			return afftrack.Errorf(afftrack.EINVALID, "%s.AffiliateContactName: %q does not match the affiliate's contact name %q",
				at, rec.ClaimedContactName.Value, a.contact)
		}
		if rec.ClaimedBusinessName.Valid && rec.ClaimedBusinessName.Value != a.business {
			return afftrack.Errorf(afftrack.EINVALID, "%s.AffiliateBusinessName: %q does not match the affiliate's business name %q",
				at, rec.ClaimedBusinessName.Value, a.business)
		}
		if err := batch.add(t, d.Start.Transactions+i); err != nil {
			return err
		}
	}
	return batch.flush()
}

func (im *importer) importInvoices(d *afftrack.Dataset) error {
	for i := range d.Invoices {
		inv := &d.Invoices[i]
		at := record{"Invoices", d.Start.Invoices + i}
		if _, err := im.checkAffiliate(at, "AffiliateId", inv.AffiliateID); err != nil {
			return err
		}
		var gst any
		if inv.GST.Valid {
			gst = int64(inv.GST.Value)
		}
		if err := im.exec(upsertInvoice, inv.ID, inv.AffiliateID, toMillis(inv.DateCreated), toMillis(inv.DatePaid),
			inv.Number, inv.Description, int64(inv.SubTotal), gst, int64(inv.Total)); err != nil {
			return fmt.Errorf("import %s: %w", at, err)
		}
	}
	return nil
}

package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.ImportService = (*ImportService)(nil)

// ImportService implements afftrack.ImportService.
type ImportService struct {
	db *DB

	// Now stamps the Created time of the keys an import adds: the wall
	// clock of the network's zone, carried in UTC. Nil means the wall clock
	// of UTC.
	Now func() time.Time
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
	upsertMembership = `INSERT INTO memberships (affiliate_id, merchant_id, status, traffic_type, traffic_source,
		traffic_source_approved)
	VALUES ($1, $2, $3, $4, $5, $6)
	ON CONFLICT (affiliate_id, merchant_id) DO UPDATE SET status = excluded.status,
		traffic_type = excluded.traffic_type, traffic_source = excluded.traffic_source,
		traffic_source_approved = excluded.traffic_source_approved`
	upsertBanner = `INSERT INTO banners (id, merchant_id, date_created, date_modified, group_name, name, target_url,
		width, height, image_url, alt_text)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
	ON CONFLICT (id) DO UPDATE SET merchant_id = excluded.merchant_id, date_created = excluded.date_created,
		date_modified = excluded.date_modified, group_name = excluded.group_name, name = excluded.name,
		target_url = excluded.target_url, width = excluded.width, height = excluded.height,
		image_url = excluded.image_url, alt_text = excluded.alt_text`
	upsertInvoice = `INSERT INTO invoices (id, affiliate_id, date_created, date_paid, number, description,
		sub_total, gst, total)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
	ON CONFLICT (id) DO UPDATE SET affiliate_id = excluded.affiliate_id, date_created = excluded.date_created,
		date_paid = excluded.date_paid, number = excluded.number, description = excluded.description,
		sub_total = excluded.sub_total, gst = excluded.gst, total = excluded.total`
	countMerchant   = `SELECT COUNT(*) FROM merchants WHERE id = $1`
	selectAffiliate = `SELECT contact_name, business_name FROM affiliates WHERE id = $1`
	selectKeyOwner  = `SELECT account_kind, account_id FROM api_keys WHERE key_hash = $1`
)

// Import writes d in one database transaction, in the order merchants,
// affiliates, memberships, keys, transactions, banners, invoices, so each
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
// inserts), and the connection's page cache is raised and its foreign key
// checks, which repeat the importer's own, are off (dialect.go).
// PostgreSQL keeps its indexes, as dropping one would lock out the readers
// of the table until the load commits.
func (s *ImportService) ImportChunks(ctx context.Context, next func() (*afftrack.Dataset, error)) (afftrack.ImportSummary, error) {
	now := s.Now
	if now == nil {
		now = func() time.Time { return afftrack.WallClock(time.Now(), time.UTC) }
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
		defer func() {
			for _, q := range bulk.restore {
				// Best effort, with a fresh context, since ctx may be
				// why the import is leaving; a failure discards the
				// connection rather than return it to the pool.
				if _, err := conn.ExecContext(context.WithoutCancel(ctx), q); err != nil {
					conn.Raw(func(any) error { return driver.ErrBadConn }) //nolint:errcheck // discards the connection
				}
			}
		}()
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
	im := &importer{
		ctx: ctx, tx: tx, now: now(), dialect: s.db.dialect,
		stmts:      map[string]*sql.Stmt{},
		merchants:  map[int64]bool{},
		affiliates: map[int64]*affiliateNames{},
	}
	defer im.close()
	steps := []func(d *afftrack.Dataset) error{
		im.importMerchants, im.importPrograms, im.importAffiliates, im.importMemberships, im.importKeys,
		im.importTransactions, im.importBanners, im.importInvoices, im.importCoupons, im.importCurrencyRates,
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

	merchants  map[int64]bool            // id: exists
	affiliates map[int64]*affiliateNames // id: names, nil if it does not exist
}

// affiliateNames are what a transaction record's claims are checked against.
type affiliateNames struct {
	contact, business string
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

// merchantExists reports whether merchant id is stored, this import's
// merchants included.
func (im *importer) merchantExists(id int64) (bool, error) {
	if ok, known := im.merchants[id]; known {
		return ok, nil
	}
	st, err := im.stmt(countMerchant)
	if err != nil {
		return false, err
	}
	var n int64
	if err := st.QueryRowContext(im.ctx, id).Scan(&n); err != nil {
		return false, err
	}
	im.merchants[id] = n > 0
	return n > 0, nil
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
	ok, err := im.merchantExists(id)
	if err != nil {
		return fmt.Errorf("import %s.%s: %w", r, field, err)
	} else if !ok {
		return afftrack.Errorf(afftrack.EINVALID, "%s.%s: merchant %d does not exist", r, field, id)
	}
	return nil
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
		m := &d.Merchants[i].Merchant
		if err := im.exec(upsertMerchant, merchantArgs(m)...); err != nil {
			return fmt.Errorf("import Merchants[%d]: %w", d.Start.Merchants+i, err)
		}
		im.merchants[m.ID] = true
	}
	return nil
}

func (im *importer) importAffiliates(d *afftrack.Dataset) error {
	for i := range d.Affiliates {
		a := &d.Affiliates[i].Affiliate
		if err := im.exec(upsertAffiliate, affiliateArgs(a)...); err != nil {
			return fmt.Errorf("import Affiliates[%d]: %w", d.Start.Affiliates+i, err)
		}
		im.affiliates[a.ID] = &affiliateNames{contact: a.ContactName, business: a.BusinessName}
	}
	return nil
}

func (im *importer) importMemberships(d *afftrack.Dataset) error {
	for i, ms := range d.Memberships {
		at := record{"Memberships", d.Start.Memberships + i}
		if _, err := im.checkAffiliate(at, "AffiliateId", ms.AffiliateID); err != nil {
			return err
		}
		if err := im.checkMerchant(at, "MerchantId", ms.MerchantID); err != nil {
			return err
		}
		if ms.TrafficType == 0 {
			ms.TrafficType = afftrack.TrafficTypeWebsite
		}
		if err := im.exec(upsertMembership, ms.AffiliateID, ms.MerchantID, int64(ms.Status), int64(ms.TrafficType),
			ms.TrafficSource, ms.TrafficSourceApproved); err != nil {
			return fmt.Errorf("import %s: %w", at, err)
		}
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
		if err := im.checkMerchant(at, "MerchantId", t.MerchantID); err != nil {
			return err
		}
		a, err := im.checkAffiliate(at, "AffiliateId", t.AffiliateID)
		if err != nil {
			return err
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

func (im *importer) importBanners(d *afftrack.Dataset) error {
	for i := range d.Banners {
		b := &d.Banners[i]
		at := record{"Banners", d.Start.Banners + i}
		if err := im.checkMerchant(at, "MerchantId", b.MerchantID); err != nil {
			return err
		}
		if err := im.exec(upsertBanner, b.ID, b.MerchantID, toMillis(b.DateCreated), toMillis(b.DateModified),
			b.GroupName, b.Name, b.TargetURL, b.Width, b.Height, b.ImageURL, b.AltText); err != nil {
			return fmt.Errorf("import %s: %w", at, err)
		}
	}
	return nil
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

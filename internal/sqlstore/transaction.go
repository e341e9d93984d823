package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/afftrack/afftrack"
)

var _ afftrack.TransactionService = (*TransactionService)(nil)

// TransactionService implements afftrack.TransactionService.
type TransactionService struct {
	db *DB
}

// NewTransactionService returns a TransactionService on db.
func NewTransactionService(db *DB) *TransactionService { return &TransactionService{db: db} }

// selectTransactions reads transactions as their details
// (transaction_details.go), with the version of the affiliates table the
// statement sees, for the names (affiliate_names.go). Callers add WHERE
// and ORDER BY.
const selectTransactions = `SELECT t.details, ` + affiliateVersionColumn + `
FROM transactions t
`

// selectTransactionByID reads one transaction of a merchant.
const selectTransactionByID = selectTransactions + `WHERE t.id = $1 AND t.merchant_id = $2`

// transactionRow is the scan target of a row of selectTransactions, reused
// for every row of a query. The details are scanned as the driver's bytes
// and copied once into a string whose substrings become the transaction's
// strings.
type transactionRow struct {
	details sql.RawBytes
	version any
	dest    [2]any
}

func newTransactionRow() *transactionRow {
	r := &transactionRow{}
	r.dest = [2]any{&r.details, &r.version}
	return r
}

// scan reads the current row of rows into t, overwriting all of it.
func (r *transactionRow) scan(ctx context.Context, db *DB, rows *sql.Rows, t *afftrack.Transaction) error {
	if err := rows.Scan(r.dest[:]...); err != nil {
		return err
	}
	version, ok := r.version.(int64)
	if !ok {
		return fmt.Errorf("the affiliates' version: unexpected %T value", r.version)
	}
	return db.readTransaction(ctx, t, r.details, version)
}

// readTransaction reads a row of selectTransactions, its details and the
// affiliates' version, into t, overwriting all of it.
func (db *DB) readTransaction(ctx context.Context, t *afftrack.Transaction, details []byte, version int64) error {
	if err := readDetails(t, string(details)); err != nil {
		return err
	}
	names, err := db.affiliates.lookup(ctx, db, version, t.AffiliateID)
	if err != nil {
		return err
	}
	t.AffiliateContactName, t.AffiliateBusinessName = names.contact, names.business
	return nil
}

// FindTransactionByID returns the merchant's transaction with the given id;
// another merchant's is ENOTFOUND like a missing one.
func (s *TransactionService) FindTransactionByID(ctx context.Context, merchantID, id int64) (*afftrack.Transaction, error) {
	if r := s.db.reader; r != nil {
		var t *afftrack.Transaction
		err := r.query(ctx, selectTransactionByID, []int64{id, merchantID}, func(details []byte, version int64) error {
			t = &afftrack.Transaction{}
			return s.db.readTransaction(ctx, t, details, version)
		})
		switch {
		case err != nil:
			return nil, fmt.Errorf("find transaction %d: %w", id, err)
		case t == nil:
			return nil, notFound()
		}
		return t, nil
	}
	rows, err := s.db.query(ctx, selectTransactionByID, id, merchantID)
	if err != nil {
		return nil, fmt.Errorf("find transaction %d: %w", id, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("find transaction %d: %w", id, err)
		}
		return nil, notFound()
	}
	t := &afftrack.Transaction{}
	if err := newTransactionRow().scan(ctx, s.db, rows, t); err != nil {
		return nil, fmt.Errorf("find transaction %d: %w", id, err)
	}
	return t, rows.Close()
}

// FindTransactions streams the merchant's transactions in the filter's
// range, ordered by the date property then id, decoding each row into one
// reused value handed to fn, so memory holds one transaction whatever the
// range.
//
// The database narrows by merchant, dates and affiliate, the columns it
// has; f.Match decides the rest in Go, so every filter compares the same
// way on every engine.
func (s *TransactionService) FindTransactions(ctx context.Context, f afftrack.TransactionFilter,
	fn func(*afftrack.Transaction) error) error {
	query, args, err := transactionListQuery(&f)
	if err != nil {
		return err
	}
	if r := s.db.reader; r != nil {
		t := &afftrack.Transaction{}
		var fnErr error // fn's error, returned as it is
		err := r.query(ctx, query, args, func(details []byte, version int64) error {
			if err := s.db.readTransaction(ctx, t, details, version); err != nil {
				return err
			}
			if f.Match(t) {
				fnErr = fn(t)
			}
			return fnErr
		})
		if err != nil && err != fnErr {
			return fmt.Errorf("find transactions: %w", err)
		}
		return err
	}
	anyArgs := make([]any, len(args))
	for i, a := range args {
		anyArgs[i] = a
	}
	rows, err := s.db.query(ctx, query, anyArgs...)
	if err != nil {
		return fmt.Errorf("find transactions: %w", err)
	}
	defer rows.Close()
	r := newTransactionRow()
	t := &afftrack.Transaction{}
	for rows.Next() {
		if err := r.scan(ctx, s.db, rows, t); err != nil {
			return fmt.Errorf("find transactions: %w", err)
		}
		if f.Match(t) {
			if err := fn(t); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("find transactions: %w", err)
	}
	return nil
}

// transactionListQuery builds the list query of f. Only fixed SQL
// fragments are concatenated; every value is a parameter.
func transactionListQuery(f *afftrack.TransactionFilter) (string, []int64, error) {
	var col string
	switch f.DateProperty {
	case afftrack.ByDateCreated:
		col = "t.date_created"
	case afftrack.ByDateModified:
		col = "t.date_modified"
	default:
		return "", nil, afftrack.Errorf(afftrack.EINVALID, "dateProperty: unknown date property %d", f.DateProperty)
	}
	var b strings.Builder
	b.WriteString(selectTransactions)
	b.WriteString("WHERE t.merchant_id = $1 AND " + col + " >= $2 AND " + col + " < $3")
	args := []int64{f.MerchantID, toMillis(f.From), toMillis(f.Until())}
	if f.AffiliateID.Valid {
		args = append(args, f.AffiliateID.Value)
		b.WriteString(" AND t.affiliate_id = $" + strconv.Itoa(len(args)))
	}
	b.WriteString(" ORDER BY " + col + ", t.id")
	return b.String(), args, nil
}

// The write side of transactions, used by Import: transactions are written
// in batches, many rows per statement, because a file may hold a million
// and one statement per row costs a round trip per row.

// transactionColumns is the number of columns an import writes per row.
const transactionColumns = 6

const insertTransactions = `INSERT INTO transactions (id, merchant_id, affiliate_id, date_created, date_modified, details)
VALUES `

const upsertTransactionsConflict = `
ON CONFLICT (id) DO UPDATE SET merchant_id = excluded.merchant_id, affiliate_id = excluded.affiliate_id,
	date_created = excluded.date_created, date_modified = excluded.date_modified, details = excluded.details`

// transactionBatch collects checked transactions of an import and writes
// them with multi-row upserts. A batch never holds two transactions of one
// id (the database could not apply both in one statement), so a later
// duplicate flushes the batch first and then replaces the earlier one, as
// the file's order says.
type transactionBatch struct {
	im          *importer
	ids         map[int64]struct{}
	first, last int            // indexes in the file, for error messages
	args        []any          // the queued rows' values
	details     []byte         // the queued rows' details, back to back
	ends        []int          // where each queued row's details end in details
	text        map[int]string // statement texts by rows

	maxRows int // rows per statement, from the dialect's parameter budget
}

func newTransactionBatch(im *importer) *transactionBatch {
	return &transactionBatch{im: im, ids: map[int64]struct{}{}, text: map[int]string{},
		maxRows: max(1, im.dialect.batchParams()/transactionColumns)}
}

// add queues t, the file's transaction at index, writing the batch first
// if it is full or holds t's id.
func (b *transactionBatch) add(t *afftrack.Transaction, index int) error {
	if _, dup := b.ids[t.ID]; dup || len(b.ends) == b.maxRows {
		if err := b.flush(); err != nil {
			return err
		}
	}
	if len(b.ends) == 0 {
		b.first = index
	}
	b.last = index
	b.ids[t.ID] = struct{}{}
	b.args = append(b.args, t.ID, t.MerchantID, t.AffiliateID, toMillis(t.DateCreated), toMillis(t.DateModified), nil)
	b.details = appendDetails(b.details, t)
	b.ends = append(b.ends, len(b.details))
	return nil
}

// flush writes the queued transactions.
func (b *transactionBatch) flush() error {
	rows := len(b.ends)
	if rows == 0 {
		return nil
	}
	// The details are sliced out only now: appending may have moved them.
	start := 0
	for i, end := range b.ends {
		b.args[i*transactionColumns+transactionColumns-1] = b.details[start:end:end]
		start = end
	}
	q, ok := b.text[rows]
	if !ok {
		q = insertTransactions + b.im.dialect.placeholders(rows, transactionColumns) + upsertTransactionsConflict
		b.text[rows] = q
	}
	if err := b.im.exec(q, b.args...); err != nil {
		return fmt.Errorf("import Transactions[%d..%d]: %w", b.first, b.last, err)
	}
	clear(b.ids)
	clear(b.args)
	b.args, b.details, b.ends = b.args[:0], b.details[:0], b.ends[:0]
	return nil
}

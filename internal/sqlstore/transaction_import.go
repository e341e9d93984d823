package sqlstore

import (
	"fmt"
	"slices"

	"github.com/afftrack/afftrack"
)

// transactionBatch collects checked transactions of an import and writes
// them with multi-row statements: the transactions' upsert, a delete of
// the items they had, and the items' insert. A batch never holds two
// transactions of one id (one statement could not apply both), so a later
// duplicate flushes the batch first and then replaces the earlier one, as
// the file's order says.
type transactionBatch struct {
	im          *importer
	ids         map[int64]struct{}
	idList      []any
	first, last int   // indexes in the file, for error messages
	txArgs      []any // the queued transactions' values
	itemArgs    []any // the queued items' values
	cacheVals   []any // scratch: one transaction's item values, for its cache
	texts       map[[2]int]string

	maxRows, maxItems int // rows per statement, from the dialect's parameter budget
}

func newTransactionBatch(im *importer) *transactionBatch {
	return &transactionBatch{im: im, ids: map[int64]struct{}{}, texts: map[[2]int]string{},
		maxRows:  max(1, im.dialect.batchParams()/transactionColumns),
		maxItems: max(1, im.dialect.batchParams()/itemColumns)}
}

// add queues t, the file's transaction at index, writing the batch first
// if it is full or holds t's id.
func (b *transactionBatch) add(t *afftrack.Transaction, index int) error {
	_, dup := b.ids[t.ID]
	if dup || len(b.idList) == b.maxRows || len(b.itemArgs)/itemColumns+len(t.Items) > b.maxItems {
		if err := b.flush(); err != nil {
			return err
		}
	}
	if len(b.idList) == 0 {
		b.first = index
	}
	b.last = index
	b.ids[t.ID] = struct{}{}
	b.idList = append(b.idList, t.ID)
	start := len(b.itemArgs)
	for i := range t.Items {
		b.itemArgs = itemArgs(b.itemArgs, t.ID, i+1, &t.Items[i])
	}
	// The cache is made of the very values written to transaction_items,
	// less each row's key (transaction_id, position).
	b.cacheVals = b.cacheVals[:0]
	for row := b.itemArgs[start:]; len(row) > 0; row = row[itemColumns:] {
		b.cacheVals = append(b.cacheVals, row[2:itemColumns]...)
	}
	cache, err := appendItemsCache([]byte{}, b.cacheVals) // not nil, which is NULL
	if err != nil {
		return fmt.Errorf("import Transactions[%d]: %w", index, err)
	}
	b.txArgs = transactionArgs(b.txArgs, t, cache)
	return nil
}

// flush writes the queued transactions.
func (b *transactionBatch) flush() error {
	rows := len(b.idList)
	if rows == 0 {
		return nil
	}
	d := b.im.dialect
	upsert := b.text(0, rows, func() string {
		return `INSERT INTO transactions (` + transactionColumnList + `) VALUES ` +
			d.placeholders(rows, transactionColumns) + upsertTransactionsConflict
	})
	stored, err := b.stored()
	if err != nil {
		return fmt.Errorf("import Transactions[%d..%d]: %w", b.first, b.last, err)
	}
	if err := b.im.exec(upsert, b.txArgs...); err != nil {
		return fmt.Errorf("import Transactions[%d..%d]: %w", b.first, b.last, err)
	}
	if err := b.refuseTracked(); err != nil {
		return err
	}
	if len(stored) > 0 {
		del := b.text(1, len(stored), func() string {
			return `DELETE FROM transaction_items WHERE transaction_id IN ` + d.placeholders(1, len(stored))
		})
		if err := b.im.exec(del, stored...); err != nil {
			return fmt.Errorf("import Transactions[%d..%d]: %w", b.first, b.last, err)
		}
	}
	// One transaction may have more items than a statement takes
	// parameters: they go in statements of at most maxItems.
	for args := b.itemArgs; len(args) > 0; {
		n := min(len(args)/itemColumns, b.maxItems)
		insert := b.text(2, n, func() string {
			return `INSERT INTO transaction_items (` + itemColumnList + `) VALUES ` + d.placeholders(n, itemColumns)
		})
		if err := b.im.exec(insert, args[:n*itemColumns]...); err != nil {
			return fmt.Errorf("import Transactions[%d..%d]: items: %w", b.first, b.last, err)
		}
		args = args[n*itemColumns:]
	}
	clear(b.ids)
	clear(b.txArgs)
	clear(b.itemArgs)
	b.idList, b.txArgs, b.itemArgs = b.idList[:0], b.txArgs[:0], b.itemArgs[:0]
	return nil
}

// stored returns the ids of the batch that are stored already, whose
// items the batch replaces; a bulk load has none and deletes nothing.
// That matters beyond the statement saved: during a load into an empty
// database PostgreSQL has no statistics of transaction_items, plans a
// delete from it as a scan of the whole table, and the load's own rows
// make that quadratic. The primary key lookup here is an index probe.
func (b *transactionBatch) stored() ([]any, error) {
	q := b.text(3, len(b.idList), func() string {
		return `SELECT id FROM transactions WHERE id IN ` + b.im.dialect.placeholders(1, len(b.idList))
	})
	st, err := b.im.stmt(q)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(b.im.ctx, b.idList...)
	if err != nil {
		return nil, err
	}
	ids, err := scanIDs(rows)
	if err != nil {
		return nil, err
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return args, nil
}

// refuseTracked fails the import if the batch replaced a transaction the
// service created from a conversion: that sale was acknowledged to its
// merchant, and a retry of it must find it. It runs after the upsert,
// which on PostgreSQL waits for a conversion still writing one of the
// batch's ids, so this statement sees that conversion committed.
func (b *transactionBatch) refuseTracked() error {
	q := b.text(4, len(b.idList), func() string {
		return `SELECT transaction_id, merchant_id, order_id FROM conversions WHERE transaction_id IN ` +
			b.im.dialect.placeholders(1, len(b.idList))
	})
	st, err := b.im.stmt(q)
	if err != nil {
		return fmt.Errorf("import Transactions[%d..%d]: %w", b.first, b.last, err)
	}
	rows, err := st.QueryContext(b.im.ctx, b.idList...)
	if err != nil {
		return fmt.Errorf("import Transactions[%d..%d]: %w", b.first, b.last, err)
	}
	defer rows.Close()
	// The first of the file's records to name a tracked id is named.
	var refused error
	at := -1
	for rows.Next() {
		var id, merchantID int64
		var orderID string
		if err := rows.Scan(&id, &merchantID, &orderID); err != nil {
			return fmt.Errorf("import Transactions[%d..%d]: %w", b.first, b.last, err)
		}
		if i := slices.Index(b.idList, any(id)); at < 0 || i < at {
			at = i
			refused = afftrack.Errorf(afftrack.EINVALID,
				"Transactions[%d].Id: %d is the transaction the service tracked for merchant %d's OrderId %q; an import never replaces a tracked sale",
				b.first+i, id, merchantID, orderID)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("import Transactions[%d..%d]: %w", b.first, b.last, err)
	}
	return refused
}

// text returns the statement text of a kind for n rows, made once.
func (b *transactionBatch) text(kind, n int, make func() string) string {
	k := [2]int{kind, n}
	q, ok := b.texts[k]
	if !ok {
		q = make()
		b.texts[k] = q
	}
	return q
}

package sqlstore

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/afftrack/afftrack"
)

// Conversions are written by group commit. A conversion that has been read
// and priced joins the group of those waiting to be written; one of the
// waiting callers (the first to find no group being written) writes every
// conversion waiting, in one database transaction, and commits once for
// all. Each caller returns only once its conversion is committed, as
// before. On SQLite, where every write waits for the one write lock, what
// a commit costs (the write-ahead log's frames for every page the
// transaction changed and, every thousand pages, a checkpoint) is then
// paid once per group instead of once per conversion, and conversions that
// share pages (a table's last leaf, an index's) write them once. On
// PostgreSQL a group writes each kind of row in one statement, so it costs
// about the round trips of one conversion. Alone, a conversion is written
// at once, as one group of one: nothing waits for company.

// maxConversionGroup bounds the conversions one database transaction
// writes, so that a burst makes several short transactions rather than one
// that holds SQLite's write lock for long.
const maxConversionGroup = 64

// conversionGroupTimeout bounds a group's transaction. It runs under no
// caller's cancellation: one merchant's server hanging up must not undo the
// conversions of the others in its group.
const conversionGroupTimeout = 30 * time.Second

// conversionGroup is the conversions waiting to be written, and who writes
// them.
type conversionGroup struct {
	// writing is held (a send into its one slot) by the caller writing a
	// group.
	writing chan struct{}

	mu      sync.Mutex
	waiting []*conversionWrite
}

func newConversionGroup() conversionGroup {
	return conversionGroup{writing: make(chan struct{}, 1)}
}

// conversionWrite is one priced conversion to write: its transaction (all
// but the id, which the write assigns), the click that credits it, its
// conversions key and the event of its creation.
type conversionWrite struct {
	c           *afftrack.Conversion
	t           *afftrack.Transaction
	click       *afftrack.Click
	fingerprint string
	event       afftrack.TransactionEvent // all but TransactionID
	// notificationURL is the credited affiliate's template of
	// notifications, read with the affiliate; '' for none.
	notificationURL string

	err  error         // set before done is closed
	done chan struct{} // made by write; closed once the write is committed or has failed
}

// write writes w with the conversions waiting beside it and returns once
// it is committed, or with the error that stopped it. If ctx ends while w
// still waits, w is withdrawn and nothing of it is written; once a group
// has taken it, it is written whatever becomes of ctx.
func (s *ConversionService) write(ctx context.Context, w *conversionWrite) error {
	g := &s.group
	w.done = make(chan struct{})
	g.mu.Lock()
	g.waiting = append(g.waiting, w)
	g.mu.Unlock()
	for {
		select {
		case <-w.done:
			return w.err
		case g.writing <- struct{}{}:
			s.writeGroup(ctx)
			<-g.writing
		case <-ctx.Done():
			if g.withdraw(w) {
				return ctx.Err()
			}
			<-w.done
			return w.err
		}
	}
}

// withdraw takes w out of the waiting conversions, and reports whether it
// was still there.
func (g *conversionGroup) withdraw(w *conversionWrite) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, x := range g.waiting {
		if x == w {
			g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
			return true
		}
	}
	return false
}

// take removes up to maxConversionGroup of the waiting conversions, oldest
// first, and returns them.
func (g *conversionGroup) take() []*conversionWrite {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := min(len(g.waiting), maxConversionGroup)
	group := make([]*conversionWrite, n)
	copy(group, g.waiting)
	g.waiting = append(g.waiting[:0], g.waiting[n:]...)
	return group
}

// writeGroup writes the conversions waiting, if any, in one transaction.
// Should that fail (a conversion lost the race for its OrderId to one
// written meanwhile, say), each is written again in a transaction of its
// own, so that one conversion's failure is its own alone.
func (s *ConversionService) writeGroup(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), conversionGroupTimeout)
	defer cancel()
	var unprepared []string
	defer func() {
		// Prepared now, with no transaction held: preparing inside one
		// would take a second connection from a pool that concurrent
		// requests may have exhausted, each waiting for another.
		for _, q := range unprepared {
			s.db.prepared(ctx, q)
		}
	}()
	s.group.mu.Lock()
	empty := len(s.group.waiting) == 0
	s.group.mu.Unlock()
	if empty {
		return
	}
	// The group is taken once the write lock is held, so the conversions
	// that arrived while it was awaited join it.
	tx, release, err := s.db.beginWrite(ctx)
	group := s.group.take()
	begun := err == nil
	if begun {
		err = s.commitConversions(ctx, tx, release, group, &unprepared)
	}
	// A write that could not even begin (the lock held elsewhere, the
	// database down) is every conversion's answer: each written alone
	// would wait as long again.
	if err != nil && begun && len(group) > 1 {
		for _, w := range group {
			w.err = s.db.writeFailed(s.writeAlone(ctx, w, &unprepared))
			close(w.done)
		}
		return
	}
	for _, w := range group {
		w.err = s.db.writeFailed(err)
		close(w.done)
	}
}

// writeAlone writes w in a transaction of its own.
func (s *ConversionService) writeAlone(ctx context.Context, w *conversionWrite, unprepared *[]string) error {
	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return err
	}
	return s.commitConversions(ctx, tx, release, []*conversionWrite{w}, unprepared)
}

// commitConversions writes group in tx, begun by beginWrite with release,
// and commits; either way the transaction is over, and released, when it
// returns.
func (s *ConversionService) commitConversions(ctx context.Context, tx *sql.Tx, release func(),
	group []*conversionWrite, unprepared *[]string) error {
	defer release()
	defer rollback(tx)
	if err := s.writeConversions(ctx, preparedTx{Tx: tx, db: s.db, unprepared: unprepared}, group); err != nil {
		return err
	}
	return tx.Commit()
}

// writeConversions writes the conversions of group in q's transaction:
// the transactions with their ids, items and clicks, the conversions keys
// of their OrderIds, their events, and the notifications their affiliates
// asked for. On PostgreSQL, where every statement is a round trip, each
// kind of row goes many to a statement. SQLite parses a statement's text
// anew unless it is prepared (stmt.go), and texts that grew with the group
// would each take a place among the few kept prepared, which the reads
// need: there each conversion runs the statements of a conversion alone.
func (s *ConversionService) writeConversions(ctx context.Context, q preparedTx, group []*conversionWrite) error {
	ids, err := s.db.dialect.nextTransactionIDs(ctx, q, len(group))
	if err != nil {
		return err
	}
	if err := newID("transaction", ids[len(ids)-1]); err != nil {
		return err
	}
	for i, w := range group {
		w.t.ID = ids[i]
	}
	per := len(group)
	if s.db.dialect.prepares() {
		per = 1
	}
	for start := 0; start < len(group); start += per {
		if err := s.writeRows(ctx, q, group[start:min(len(group), start+per)]); err != nil {
			return err
		}
	}
	return nil
}

// writeRows writes the rows of the conversions of group, whose
// transactions have their ids, each kind of row in one statement.
func (s *ConversionService) writeRows(ctx context.Context, q preparedTx, group []*conversionWrite) error {
	d := s.db.dialect
	ts := make([]*afftrack.Transaction, len(group))
	clicks := make([]*afftrack.Click, len(group))
	keys := make([]any, 0, 4*len(group))
	events := make([]afftrack.TransactionEvent, len(group))
	var notifications []notification
	for i, w := range group {
		ts[i], clicks[i] = w.t, w.click
		keys = append(keys, w.c.MerchantID, w.c.OrderID, w.t.ID, w.fingerprint)
		events[i] = w.event
		events[i].TransactionID = w.t.ID
		if w.notificationURL != "" {
			var unique [4]string
			if w.click != nil {
				unique = w.click.UniqueIDs
			}
			notifications = append(notifications, notification{affiliateID: w.t.AffiliateID, transactionID: w.t.ID,
				url: afftrack.ExpandNotificationURL(w.notificationURL, w.t, unique), at: w.event.At})
		}
	}
	if err := insertTransactions(ctx, q, d, ts, clicks); err != nil {
		return err
	}
	// A group's keys (4 parameters each, maxConversionGroup of them) are
	// within either engine's batchParams.
	if _, err := q.ExecContext(ctx, `INSERT INTO conversions (merchant_id, order_id, transaction_id, fingerprint)
	VALUES `+d.placeholders(len(group), 4), keys...); err != nil {
		return err
	}
	if err := insertEvents(ctx, q, d, events); err != nil {
		return err
	}
	return insertNotifications(ctx, q, d, notifications)
}

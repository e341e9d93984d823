package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.LifecycleService = (*LifecycleService)(nil)

// LifecycleService implements afftrack.LifecycleService.
type LifecycleService struct {
	db *DB
	// currency is the network's, whose amounts need no rate.
	currency string
	// now gives the network's wall clock, for the merchant's validations.
	now func() time.Time
}

// NewLifecycleService returns a LifecycleService on db for a network in
// currency; now gives the network's wall clock.
func NewLifecycleService(db *DB, currency string, now func() time.Time) *LifecycleService {
	return &LifecycleService{db: db, currency: currency, now: now}
}

// lifecycleBatch is how many transactions one database transaction of
// the scheduled work changes, so a backlog of a million is not one lock
// held for minutes.
const lifecycleBatch = 500

// changed is a transaction a guarded UPDATE changed, as RETURNING gives it.
type changed struct {
	id, merchantID   int64
	sale, commission afftrack.Money
}

// transition moves the transactions among ids that are still in from to
// to, with one guarded UPDATE (concurrent runs cannot both change one),
// records each change and enqueues its notification, all in q's
// transaction. It returns the transactions it changed.
func (s *LifecycleService) transition(ctx context.Context, q queryer, ids []int64, from, to afftrack.TransactionStatus2,
	actor afftrack.Actor, reason string, now time.Time) ([]changed, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := append([]any{int64(to), toMillis(now), int64(from)}, idList(ids)...)
	rows, err := q.QueryContext(ctx, `UPDATE transactions SET status2 = $1, date_modified = $2
	WHERE status2 = $3 AND id IN `+placeholdersFrom(4, len(ids))+`
	RETURNING id, merchant_id, sale_value, commission`, args...)
	if err != nil {
		return nil, err
	}
	var done []changed
	for rows.Next() {
		var c changed
		var sale, commission int64
		if err := rows.Scan(&c.id, &c.merchantID, &sale, &commission); err != nil {
			rows.Close()
			return nil, err
		}
		c.sale, c.commission = afftrack.Money(sale), afftrack.Money(commission)
		done = append(done, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	events := make([]afftrack.TransactionEvent, len(done))
	changedIDs := make([]int64, len(done))
	for i, c := range done {
		events[i] = afftrack.TransactionEvent{TransactionID: c.id, At: now, Actor: actor, From: from, To: to,
			FromSaleValue: c.sale, ToSaleValue: c.sale, FromCommission: c.commission, ToCommission: c.commission,
			Reason: reason}
		changedIDs[i] = c.id
	}
	if err := insertEvents(ctx, q, s.db.dialect, events); err != nil {
		return nil, err
	}
	return done, enqueueNotifications(ctx, q, s.db.dialect, changedIDs, now)
}

// LockDue locks the Pending transactions whose ValidationDate has come, a
// batch per database transaction, and approves those of prepaid programs
// in the same one.
func (s *LifecycleService) LockDue(ctx context.Context, now time.Time) (int, error) {
	return s.inBatches(ctx, batchStep{
		what: "lock due transactions",
		query: `SELECT t.id FROM transactions t WHERE t.status2 = $1 AND t.validation_date <= $2
		ORDER BY t.validation_date, t.id LIMIT $3`,
		args: []any{int64(afftrack.Status2Pending), toMillis(now), lifecycleBatch},
		from: afftrack.Status2Pending, to: afftrack.Status2Locked, actor: afftrack.ActorLifecycle,
		reason: "validation date reached", now: now,
		then: func(ctx context.Context, tx *sql.Tx, locked []changed) error {
			_, err := s.approvePrepaid(ctx, tx, locked, now)
			return err
		},
	})
}

// batchStep is one kind of batch of the scheduled work: the ids its query
// selects (at most lifecycleBatch, of transactions aliased t), the change
// made to them, and what else the same database transaction does with
// those changed.
type batchStep struct {
	what     string // for errors
	query    string
	args     []any
	from, to afftrack.TransactionStatus2
	actor    afftrack.Actor
	reason   string
	now      time.Time
	then     func(ctx context.Context, tx *sql.Tx, done []changed) error // may be nil
}

// inBatches runs step a batch per database transaction until a batch
// comes back short, and returns how many transactions it changed. A full
// batch means there may be more, even if another replica took some.
func (s *LifecycleService) inBatches(ctx context.Context, step batchStep) (int, error) {
	total := 0
	for {
		n, full, err := s.batch(ctx, step)
		total += n
		if err != nil {
			return total, fmt.Errorf("%s: %w", step.what, err)
		}
		if !full {
			return total, nil
		}
	}
}

// batch runs one batch of step.
func (s *LifecycleService) batch(ctx context.Context, step batchStep) (n int, full bool, err error) {
	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return 0, false, err
	}
	defer release()
	defer rollback(tx)
	// On PostgreSQL the batch is locked as it is picked, rows another run
	// holds skipped: two runs at once (replicas, a cron job) then take
	// different batches, where each UPDATE locking its rows in the order
	// of its plan could deadlock the other.
	ids, err := selectIDs(ctx, tx, step.query+s.db.dialect.skipLocked("t"), step.args...)
	if err != nil {
		return 0, false, err
	}
	done, err := s.transition(ctx, tx, ids, step.from, step.to, step.actor, step.reason, step.now)
	if err != nil {
		return 0, false, err
	}
	if step.then != nil {
		if err := step.then(ctx, tx, done); err != nil {
			return 0, false, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, false, fmt.Errorf("commit: %w", err)
	}
	return len(done), len(ids) == lifecycleBatch, nil
}

// approvePrepaid approves at once the just-locked transactions of
// merchants whose programs are prepaid, and returns how many it approved.
func (s *LifecycleService) approvePrepaid(ctx context.Context, q queryer, locked []changed, now time.Time) (int, error) {
	merchants := map[int64]bool{}
	for _, c := range locked {
		merchants[c.merchantID] = false
	}
	if len(merchants) == 0 {
		return 0, nil
	}
	list := make([]int64, 0, len(merchants))
	for m := range merchants {
		list = append(list, m)
	}
	prepaid, err := selectIDs(ctx, q, `SELECT merchant_id FROM programs WHERE prepaid AND merchant_id IN `+
		placeholdersFrom(1, len(list)), idList(list)...)
	if err != nil {
		return 0, err
	}
	for _, m := range prepaid {
		merchants[m] = true
	}
	var ids []int64
	for _, c := range locked {
		if merchants[c.merchantID] {
			ids = append(ids, c.id)
		}
	}
	approved, err := s.transition(ctx, q, ids, afftrack.Status2Locked, afftrack.Status2Approved, afftrack.ActorLifecycle,
		"prepaid program", now)
	return len(approved), err
}

// ReleasePrepaid approves the Locked transactions of prepaid programs, a
// batch per database transaction. LockDue approves those it locks itself;
// this takes the rest: Locked ones imported, or of a program made prepaid
// after they were locked.
func (s *LifecycleService) ReleasePrepaid(ctx context.Context, now time.Time) (int, error) {
	return s.inBatches(ctx, batchStep{
		what: "release prepaid",
		// status2 = 2 (Locked) is written out for the partial index of
		// 0012, and CROSS JOIN makes SQLite take the programs first,
		// probing that index once per prepaid program rather than reading
		// every Locked transaction each pass (PostgreSQL plans it as any
		// inner join).
		query: `SELECT t.id FROM programs p CROSS JOIN transactions t
		WHERE p.prepaid AND t.merchant_id = p.merchant_id AND t.status2 = 2 ORDER BY t.id LIMIT $1`,
		args: []any{lifecycleBatch},
		from: afftrack.Status2Locked, to: afftrack.Status2Approved, actor: afftrack.ActorLifecycle,
		reason: "prepaid program", now: now,
	})
}

// Release approves the merchant's Locked transactions created before
// until, in batches.
func (s *LifecycleService) Release(ctx context.Context, merchantID int64, until afftrack.Null[time.Time],
	actor afftrack.Actor, now time.Time) (int, error) {
	if exists, err := merchantExists(ctx, pooled{s.db}, merchantID); err != nil {
		return 0, fmt.Errorf("release: %w", err)
	} else if !exists {
		return 0, afftrack.Errorf(afftrack.ENOTFOUND, "merchant %d not found", merchantID)
	}
	end := int64(1<<62 - 1)
	if until.Valid {
		end = toMillis(until.Value)
	}
	return s.inBatches(ctx, batchStep{
		what: "release",
		// status2 = 2 (Locked) is written out for the partial index of 0012.
		query: `SELECT t.id FROM transactions t WHERE t.merchant_id = $1 AND t.status2 = 2
		AND t.date_created < $2 ORDER BY t.id LIMIT $3`,
		args: []any{merchantID, end, lifecycleBatch},
		from: afftrack.Status2Locked, to: afftrack.Status2Approved, actor: actor,
		reason: "released: the network has the merchant's money", now: now,
	})
}

// Void voids a Pending, Locked or Approved transaction for the network.
func (s *LifecycleService) Void(ctx context.Context, id int64, reason afftrack.VoidReason, actor afftrack.Actor,
	now time.Time) error {
	if reason == 0 {
		return afftrack.Errorf(afftrack.EINVALID, "a reason is required; use one of %s", afftrack.VoidReasonNames())
	}
	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("void transaction %d: %w", id, err)
	}
	defer release()
	defer rollback(tx)
	var status, sale, commission int64
	// Locked for the transaction, so that the amounts the history records
	// are still the row's when the UPDATE runs (an amendment may commit in
	// between on PostgreSQL, leaving it Pending with other amounts).
	err = tx.QueryRowContext(ctx, `SELECT t.status2, t.sale_value, t.commission FROM transactions t WHERE t.id = $1`+
		s.db.dialect.forUpdate(), id).Scan(&status, &sale, &commission)
	if errors.Is(err, sql.ErrNoRows) {
		return afftrack.Errorf(afftrack.ENOTFOUND, "transaction %d not found", id)
	} else if err != nil {
		return fmt.Errorf("void transaction %d: %w", id, err)
	}
	from := afftrack.TransactionStatus2(status)
	switch from {
	case afftrack.Status2Pending, afftrack.Status2Locked, afftrack.Status2Approved:
	default:
		return afftrack.Errorf(afftrack.ECONFLICT, "transaction %d is %s; only a Pending, Locked or Approved one can be voided", id, from)
	}
	res, err := tx.ExecContext(ctx, `UPDATE transactions SET status2 = $1, void_reason = $2, date_modified = $3
	WHERE id = $4 AND status2 = $5`, int64(afftrack.Status2Void), int64(reason), toMillis(now), id, int64(from))
	if err != nil {
		return fmt.Errorf("void transaction %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("void transaction %d: %w", id, err)
	} else if n == 0 {
		return afftrack.Errorf(afftrack.ECONFLICT, "transaction %d changed meanwhile; try again", id)
	}
	ev := afftrack.TransactionEvent{TransactionID: id, At: now, Actor: actor, From: from, To: afftrack.Status2Void,
		FromSaleValue: afftrack.Money(sale), ToSaleValue: afftrack.Money(sale),
		FromCommission: afftrack.Money(commission), ToCommission: afftrack.Money(commission), Reason: reason.String()}
	if err := insertEvents(ctx, tx, s.db.dialect, []afftrack.TransactionEvent{ev}); err != nil {
		return err
	}
	if err := enqueueNotifications(ctx, tx, s.db.dialect, []int64{id}, now); err != nil {
		return err
	}
	return tx.Commit()
}

// selectIDs runs a query of one integer column.
func selectIDs(ctx context.Context, q queryer, query string, args ...any) ([]int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return scanIDs(rows)
}

// scanIDs reads rows of one integer column, and closes them.
func scanIDs(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

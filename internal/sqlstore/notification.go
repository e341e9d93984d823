package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.NotificationOutbox = (*NotificationService)(nil)

// NotificationService implements afftrack.NotificationOutbox on the
// notifications table, which the changes of transactions write.
type NotificationService struct {
	db *DB
}

// NewNotificationService returns a NotificationService on db.
func NewNotificationService(db *DB) *NotificationService { return &NotificationService{db: db} }

// Notification states, as stored.
const (
	notificationPending   = 0
	notificationDelivered = 1
	notificationGivenUp   = 2
)

// ClaimNotifications takes the due notifications c allows for its lease,
// in one guarded UPDATE. On PostgreSQL the rows another replica is
// claiming at the same moment are skipped rather than waited for.
func (s *NotificationService) ClaimNotifications(ctx context.Context, c afftrack.NotificationClaim) ([]afftrack.Notification, error) {
	if c.Max <= 0 {
		return nil, nil
	}
	perAffiliate := c.PerAffiliate
	if perAffiliate <= 0 {
		perAffiliate = c.Max
	}
	args := []any{toMillis(c.Now.Add(c.Lease)), notificationPending, toMillis(c.Now), c.Max * claimCandidates,
		perAffiliate, c.Max}
	skip := ""
	if len(c.Skip) > 0 {
		skip = " AND affiliate_id NOT IN " + placeholdersFrom(len(args)+1, len(c.Skip))
		args = append(args, idList(c.Skip)...)
	}
	if len(c.SkipReceivers) > 0 {
		skip += " AND receiver NOT IN " + placeholdersFrom(len(args)+1, len(c.SkipReceivers))
		for _, r := range c.SkipReceivers {
			args = append(args, r)
		}
	}
	// The rows are picked in CTEs, evaluated once: PostgreSQL would run
	// an IN (subquery ... SKIP LOCKED) again for every row it updates,
	// skipping the rows it had just claimed, and so claim every due row.
	// The candidates are locked first (SKIP LOCKED takes no window
	// function), then at most perAffiliate of each affiliate kept.
	rows, err := s.db.sql.QueryContext(ctx, `WITH candidate AS (
		SELECT id, affiliate_id, next_attempt FROM notifications WHERE state = $2 AND next_attempt <= $3`+skip+`
		ORDER BY next_attempt, id LIMIT $4`+s.db.dialect.skipLocked("notifications")+`),
	ranked AS (
		SELECT id, next_attempt, ROW_NUMBER() OVER (PARTITION BY affiliate_id ORDER BY next_attempt, id) AS nth
		FROM candidate),
	due AS (
		SELECT id FROM ranked WHERE nth <= $5 ORDER BY next_attempt, id LIMIT $6)
	UPDATE notifications SET next_attempt = $1
	FROM due
	WHERE notifications.id = due.id
	RETURNING notifications.id, notifications.affiliate_id, notifications.transaction_id, notifications.url,
		notifications.created, notifications.attempts`, args...)
	if err != nil {
		return nil, fmt.Errorf("claim notifications: %w", err)
	}
	defer rows.Close()
	var out []afftrack.Notification
	for rows.Next() {
		var nt afftrack.Notification
		var created, attempts int64
		if err := rows.Scan(&nt.ID, &nt.AffiliateID, &nt.TransactionID, &nt.URL, &created, &attempts); err != nil {
			return nil, fmt.Errorf("claim notifications: %w", err)
		}
		nt.Created, nt.Attempts = fromMillis(created), int(attempts)
		out = append(out, nt)
	}
	return out, rows.Err()
}

// claimCandidates is how many due notifications a claim looks at for
// each it may take, so that one affiliate's long backlog, of which it
// takes only a few, leaves room for the others'.
const claimCandidates = 8

// NotificationDelivered records a 2xx answer.
func (s *NotificationService) NotificationDelivered(ctx context.Context, id int64, at time.Time) error {
	if _, err := s.db.sql.ExecContext(ctx, `UPDATE notifications SET state = $1, finished = $2, attempts = attempts + 1
	WHERE id = $3 AND state = $4`, notificationDelivered, toMillis(at), id, notificationPending); err != nil {
		return fmt.Errorf("notification %d delivered: %w", id, err)
	}
	return nil
}

// NotificationFailed records a failed attempt.
func (s *NotificationService) NotificationFailed(ctx context.Context, id int64, next time.Time, why string, giveUp bool) error {
	state, finished := notificationPending, any(nil)
	if giveUp {
		state, finished = notificationGivenUp, toMillis(next)
	}
	if _, err := s.db.sql.ExecContext(ctx, `UPDATE notifications SET state = $1, finished = $2, next_attempt = $3,
		attempts = attempts + 1, last_error = $4
	WHERE id = $5 AND state = $6`, state, finished, toMillis(next), lastError(why), id,
		notificationPending); err != nil {
		return fmt.Errorf("notification %d failed: %w", id, err)
	}
	return nil
}

// NotificationDeferred records a claimed notification that was not called.
func (s *NotificationService) NotificationDeferred(ctx context.Context, id int64, next time.Time, why string) error {
	if _, err := s.db.sql.ExecContext(ctx, `UPDATE notifications SET next_attempt = $1, last_error = $2
	WHERE id = $3 AND state = $4`, toMillis(next), lastError(why), id,
		notificationPending); err != nil {
		return fmt.Errorf("notification %d deferred: %w", id, err)
	}
	return nil
}

// GiveUpNotifications gives up a batch of pending notifications created
// before before and not under a claim (their next attempt has come): a
// call under way is left to record its own outcome.
func (s *NotificationService) GiveUpNotifications(ctx context.Context, before, at time.Time, why string, n int) (int64, error) {
	given, err := s.batch(ctx, `UPDATE notifications SET state = $1, finished = $2, last_error = $3
	WHERE id IN (SELECT id FROM notifications WHERE state = $4 AND created < $5 AND next_attempt <= $2 LIMIT $6)`,
		notificationGivenUp, toMillis(at), lastError(why), notificationPending, toMillis(before), n)
	if err != nil {
		return 0, fmt.Errorf("give up notifications: %w", err)
	}
	return given, nil
}

// lastError is why as the outbox keeps it: clean text of at most 1 KiB.
func lastError(why string) string { return afftrack.CleanText(afftrack.CutUTF8(why, 1024)) }

// batch runs one statement over a batch of notifications in a write
// transaction of its own, queued as every write is, so it holds SQLite's
// write lock for the batch alone, and returns how many rows it changed.
func (s *NotificationService) batch(ctx context.Context, query string, args ...any) (int64, error) {
	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	defer rollback(tx)
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

// NotificationCounts counts the notifications by state.
func (s *NotificationService) NotificationCounts(ctx context.Context) (pending, delivered, givenUp int64, err error) {
	rows, err := s.db.sql.QueryContext(ctx, `SELECT state, COUNT(*) FROM notifications GROUP BY state`)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("count notifications: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var state, n int64
		if err := rows.Scan(&state, &n); err != nil {
			return 0, 0, 0, fmt.Errorf("count notifications: %w", err)
		}
		switch state {
		case notificationPending:
			pending = n
		case notificationDelivered:
			delivered = n
		case notificationGivenUp:
			givenUp = n
		}
	}
	return pending, delivered, givenUp, rows.Err()
}

// PruneNotifications implements afftrack.NotificationOutbox. A batch is
// found through the index on finished (migration 0011) and deleted in one
// write transaction (batch).
func (s *NotificationService) PruneNotifications(ctx context.Context, before time.Time, n int) (int64, error) {
	// Only a delivered or given-up notification has a finished time; a
	// state condition here would lead SQLite, which has no statistics,
	// to the (state, next_attempt) index and a scan of every finished one.
	removed, err := s.batch(ctx, `DELETE FROM notifications WHERE id IN (
		SELECT id FROM notifications WHERE finished < $1 LIMIT $2)`, toMillis(before), n)
	if err != nil {
		return 0, fmt.Errorf("prune notifications: %w", err)
	}
	return removed, nil
}

package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// A transaction's history and its affiliate's notifications are written
// by whatever changes it, in the same database transaction: the change,
// its record and its notification stand or fall together.

const eventColumnList = `transaction_id, at, actor, from_status, to_status, from_sale_value, to_sale_value,
	from_commission, to_commission, reason`

const eventColumns = 10

// insertEvents records events, many per statement.
func insertEvents(ctx context.Context, q queryer, d dialect, events []afftrack.TransactionEvent) error {
	per := max(1, d.batchParams()/eventColumns)
	for start := 0; start < len(events); start += per {
		batch := events[start:min(len(events), start+per)]
		args := make([]any, 0, len(batch)*eventColumns)
		for _, e := range batch {
			args = append(args, e.TransactionID, toMillis(e.At), string(e.Actor), nullEnum(uint8(e.From)), int64(e.To),
				int64(e.FromSaleValue), int64(e.ToSaleValue), int64(e.FromCommission), int64(e.ToCommission), e.Reason)
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO transaction_events (`+eventColumnList+`) VALUES `+
			d.placeholders(len(batch), eventColumns), args...); err != nil {
			return fmt.Errorf("record history: %w", err)
		}
	}
	return nil
}

// History returns a transaction's events, oldest first, or ENOTFOUND
// when there is no such transaction.
func (s *LifecycleService) History(ctx context.Context, id int64) ([]afftrack.TransactionEvent, error) {
	var n int64
	if err := s.db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM transactions WHERE id = $1`, id).Scan(&n); err != nil {
		return nil, fmt.Errorf("history of transaction %d: %w", id, err)
	} else if n == 0 {
		return nil, afftrack.Errorf(afftrack.ENOTFOUND, "transaction %d not found", id)
	}
	rows, err := s.db.sql.QueryContext(ctx, `SELECT `+eventColumnList+` FROM transaction_events
	WHERE transaction_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("history of transaction %d: %w", id, err)
	}
	defer rows.Close()
	events := []afftrack.TransactionEvent{}
	for rows.Next() {
		var e afftrack.TransactionEvent
		var at, to, fromSale, toSale, fromCommission, toCommission int64
		var from sql.Null[int64]
		var actor string
		if err := rows.Scan(&e.TransactionID, &at, &actor, &from, &to, &fromSale, &toSale, &fromCommission,
			&toCommission, &e.Reason); err != nil {
			return nil, fmt.Errorf("history of transaction %d: %w", id, err)
		}
		e.At, e.Actor = fromMillis(at), afftrack.Actor(actor)
		e.From, e.To = afftrack.TransactionStatus2(from.V), afftrack.TransactionStatus2(to)
		e.FromSaleValue, e.ToSaleValue = afftrack.Money(fromSale), afftrack.Money(toSale)
		e.FromCommission, e.ToCommission = afftrack.Money(fromCommission), afftrack.Money(toCommission)
		events = append(events, e)
	}
	return events, rows.Err()
}

// enqueueNotifications writes, for each of the transactions ids whose
// affiliate has a NotificationUrl, the notification of its current state,
// due at once.
func enqueueNotifications(ctx context.Context, q queryer, d dialect, ids []int64, now time.Time) error {
	for start := 0; start < len(ids); start += notifyBatch {
		batch := ids[start:min(len(ids), start+notifyBatch)]
		args := make([]any, len(batch))
		for i, id := range batch {
			args[i] = id
		}
		rows, err := q.QueryContext(ctx, `SELECT a.notification_url, t.id, t.merchant_id, t.affiliate_id, t.order_id,
			t.sale_value, t.commission, t.status2, t.creative_id, t.date_created,
			t.unique_id, t.unique_id2, t.unique_id3, t.unique_id4
		FROM transactions t
		JOIN affiliates a ON a.id = t.affiliate_id
		WHERE a.notification_url <> '' AND t.id IN `+d.placeholders(1, len(batch))+`
		ORDER BY t.id`, args...)
		if err != nil {
			return fmt.Errorf("notify: %w", err)
		}
		var out []notification
		for rows.Next() {
			var tmpl string
			var t afftrack.Transaction
			var sale, commission, status, created int64
			var creative sql.Null[int64]
			var unique [4]sql.Null[string]
			if err := rows.Scan(&tmpl, &t.ID, &t.MerchantID, &t.AffiliateID, &t.OrderID, &sale, &commission, &status,
				&creative, &created, &unique[0], &unique[1], &unique[2], &unique[3]); err != nil {
				rows.Close()
				return fmt.Errorf("notify: %w", err)
			}
			t.SaleValue, t.Commission = afftrack.Money(sale), afftrack.Money(commission)
			t.Status2, t.CreativeID, t.DateCreated = afftrack.TransactionStatus2(status), fromNull(creative), fromMillis(created)
			u := [4]string{unique[0].V, unique[1].V, unique[2].V, unique[3].V}
			out = append(out, notification{affiliateID: t.AffiliateID, transactionID: t.ID,
				url: afftrack.ExpandNotificationURL(tmpl, &t, u), at: now})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("notify: %w", err)
		}
		if err := insertNotifications(ctx, q, d, out); err != nil {
			return err
		}
	}
	return nil
}

// notification is one to write: the URL a transaction's change expands to
// for its affiliate, due at once from at.
type notification struct {
	affiliateID, transactionID int64
	url                        string
	at                         time.Time
}

// insertNotifications writes ns, each due at its time.
func insertNotifications(ctx context.Context, q queryer, d dialect, ns []notification) error {
	if len(ns) == 0 {
		return nil
	}
	args := make([]any, 0, len(ns)*9)
	for _, n := range ns {
		args = append(args, n.affiliateID, n.transactionID, n.url, toMillis(n.at), int64(0), toMillis(n.at), int64(0), "",
			afftrack.NotificationReceiver(n.url))
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO notifications (affiliate_id, transaction_id, url, created, state,
			next_attempt, attempts, last_error, receiver) VALUES `+d.placeholders(len(ns), 9), args...); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	return nil
}

// notifyBatch is how many transactions one query of enqueueNotifications
// reads.
const notifyBatch = 500

// idList returns ids as the arguments of an IN list.
func idList(ids []int64) []any {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return args
}

// placeholdersFrom returns "($from, $from+1, ...)" for n parameters,
// numbered from from: an IN list after other parameters.
func placeholdersFrom(from, n int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", from+i)
	}
	b.WriteByte(')')
	return b.String()
}

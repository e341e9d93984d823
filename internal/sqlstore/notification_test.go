package sqlstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// notificationRow is a notifications row as stored.
type notificationRow struct {
	AffiliateID, TransactionID int64
	URL                        string
	State, Attempts            int64
}

func notificationsOf(t *testing.T, db *sqlstore.DB, id int64) []notificationRow {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT affiliate_id, transaction_id, url, state, attempts FROM notifications
	WHERE transaction_id = $1 ORDER BY id`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := []notificationRow{}
	for rows.Next() {
		var r notificationRow
		if err := rows.Scan(&r.AffiliateID, &r.TransactionID, &r.URL, &r.State, &r.Attempts); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// notified is the notification of tr in status, as lcNotifyURL expands.
func notified(tr *afftrack.Transaction, status string, sale string) notificationRow {
	return notificationRow{AffiliateID: tr.AffiliateID, TransactionID: tr.ID,
		URL: fmt.Sprintf("https://hooks.example/n?tx=%d&status=%s&order=%s&sale=%s", tr.ID, status, tr.OrderID, sale)}
}

func TestNotificationsAreWrittenWithTheirChange(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		lcLoaded(t, db)
		n := newLCNet(t, db)
		tr := n.m2("N-1", 1000000)

		t.Run("a creation writes one notification with the URL expanded", func(t *testing.T) {
			want := []notificationRow{notified(tr, "Pending", "100.0000")}
			if diff := cmp.Diff(want, notificationsOf(t, db, tr.ID)); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
		})
		t.Run("an Amend writes none", func(t *testing.T) {
			row := byID(tr, afftrack.ActionAmend)
			row.AmendedReason, row.SaleValue = afftrack.AmendedReasonIncorrectSaleValue, afftrack.Some[afftrack.Money](900000)
			n.validate(2, "merchant:2", row)
			if got := len(notificationsOf(t, db, tr.ID)); got != 1 {
				t.Errorf("%d notifications after an Amend, want 1", got)
			}
		})
		t.Run("each change of Status2 writes one with the new status", func(t *testing.T) {
			n.validate(2, "merchant:2", byID(tr, afftrack.ActionApprove))
			if _, err := n.lc.Release(ctx, 2, afftrack.Null[time.Time]{}, afftrack.ActorOperator, n.later); err != nil {
				t.Fatal(err)
			}
			if err := n.lc.Void(ctx, tr.ID, afftrack.VoidReasonCancelledOrder, afftrack.ActorOperator, n.later); err != nil {
				t.Fatal(err)
			}
			want := []notificationRow{notified(tr, "Pending", "100.0000"), notified(tr, "Locked", "90.0000"),
				notified(tr, "Approved", "90.0000"), notified(tr, "Void", "90.0000")}
			if diff := cmp.Diff(want, notificationsOf(t, db, tr.ID)); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
		})
		t.Run("the lock of a prepaid program's transaction writes the lock and the approval", func(t *testing.T) {
			c := n.m1("N-PREPAID", 1000000)
			if _, err := n.lc.LockDue(ctx, c.ValidationDate); err != nil {
				t.Fatal(err)
			}
			want := []notificationRow{notified(c, "Pending", "100.0000"), notified(c, "Locked", "100.0000"),
				notified(c, "Approved", "100.0000")}
			if diff := cmp.Diff(want, notificationsOf(t, db, c.ID)); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
		})
		t.Run("an affiliate without a NotificationUrl gets none", func(t *testing.T) {
			g := n.record(afftrack.Conversion{MerchantID: 1, OrderID: "N-GUS", SaleValue: 100000, CurrencyCode: "AUD",
				CustomerType: afftrack.CustomerTypeNew, CouponCode: "GUS"})
			if g.AffiliateID != 7 {
				t.Fatalf("GUS credited affiliate %d, want 7", g.AffiliateID)
			}
			row := byID(g, afftrack.ActionVoid)
			row.VoidReason = afftrack.VoidReasonCancelledOrder
			n.validate(1, "merchant:1", row)
			if diff := cmp.Diff([]notificationRow{}, notificationsOf(t, db, g.ID)); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
		})
	})
}

func TestNotificationOutbox(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		lcLoaded(t, db)
		n := newLCNet(t, db)
		out := sqlstore.NewNotificationService(db)
		trs := []*afftrack.Transaction{n.m2("O-1", 100000), n.m2("O-2", 200000), n.m2("O-3", 300000)}
		now := dt(t, trackingNow)
		const lease = time.Minute
		want := make([]afftrack.Notification, len(trs))
		for i, tr := range trs {
			var id int64
			if err := db.SQL().QueryRow(`SELECT id FROM notifications WHERE transaction_id = $1`, tr.ID).Scan(&id); err != nil {
				t.Fatal(err)
			}
			sale := []string{"10.0000", "20.0000", "30.0000"}[i]
			want[i] = afftrack.Notification{ID: id, AffiliateID: 1, TransactionID: tr.ID,
				URL: notified(tr, "Pending", sale).URL, Created: now}
		}
		claim := func(t *testing.T, at time.Time, max int) []afftrack.Notification {
			t.Helper()
			got, err := out.ClaimNotifications(ctx, afftrack.NotificationClaim{Now: at, Max: max, Lease: lease})
			if err != nil {
				t.Fatalf("ClaimNotifications: %v", err)
			}
			if got == nil {
				got = []afftrack.Notification{}
			}
			slices.SortFunc(got, func(a, b afftrack.Notification) int { return int(a.ID - b.ID) })
			return got
		}
		counts := func(t *testing.T) [3]int64 {
			t.Helper()
			p, d, g, err := out.NotificationCounts(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return [3]int64{p, d, g}
		}

		t.Run("nothing is due before it was written", func(t *testing.T) {
			if diff := cmp.Diff([]afftrack.Notification{}, claim(t, now.Add(-time.Second), 10)); diff != "" {
				t.Errorf("claimed (-want +got):\n%s", diff)
			}
		})
		t.Run("each notification is written with its receiver", func(t *testing.T) {
			for _, w := range want {
				var receiver string
				if err := db.SQL().QueryRow(`SELECT receiver FROM notifications WHERE id = $1`, w.ID).Scan(&receiver); err != nil {
					t.Fatal(err)
				}
				if r := afftrack.NotificationReceiver(w.URL); receiver != r || r == "" {
					t.Errorf("notification %d: receiver %q, want %q", w.ID, receiver, r)
				}
			}
		})
		t.Run("a claim leaves out the receivers it is told to skip", func(t *testing.T) {
			got, err := out.ClaimNotifications(ctx, afftrack.NotificationClaim{Now: now, Max: 10, Lease: lease,
				SkipReceivers: []string{"elsewhere.example", afftrack.NotificationReceiver(want[0].URL)}})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 0 {
				t.Errorf("claimed %d notifications of a skipped receiver, want none", len(got))
			}
		})
		t.Run("a claim returns the due notifications up to its size, oldest first", func(t *testing.T) {
			if diff := cmp.Diff(want[:2], claim(t, now, 2)); diff != "" {
				t.Errorf("claimed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want[2:], claim(t, now, 10)); diff != "" {
				t.Errorf("claimed (-want +got):\n%s", diff)
			}
		})
		t.Run("a second claim within the lease returns none", func(t *testing.T) {
			if diff := cmp.Diff([]afftrack.Notification{}, claim(t, now.Add(lease-time.Millisecond), 10)); diff != "" {
				t.Errorf("claimed (-want +got):\n%s", diff)
			}
		})
		t.Run("after the lease they come back", func(t *testing.T) {
			if diff := cmp.Diff(want, claim(t, now.Add(lease), 10)); diff != "" {
				t.Errorf("claimed (-want +got):\n%s", diff)
			}
		})
		t.Run("counts are by state", func(t *testing.T) {
			if diff := cmp.Diff([3]int64{3, 0, 0}, counts(t)); diff != "" {
				t.Errorf("pending, delivered, given up (-want +got):\n%s", diff)
			}
		})
		t.Run("a delivered one is never claimed again", func(t *testing.T) {
			if err := out.NotificationDelivered(ctx, want[0].ID, now.Add(lease)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([3]int64{2, 1, 0}, counts(t)); diff != "" {
				t.Errorf("pending, delivered, given up (-want +got):\n%s", diff)
			}
			if got := claim(t, now.Add(24*time.Hour), 10); len(got) != 2 || got[0].ID == want[0].ID || got[1].ID == want[0].ID {
				t.Errorf("claimed %+v, want the two others", got)
			}
		})
		t.Run("a failed one is due again at its next attempt, with the attempt counted", func(t *testing.T) {
			next := now.Add(25 * time.Hour)
			if err := out.NotificationFailed(ctx, want[1].ID, next, "503 Service Unavailable", false); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([3]int64{2, 1, 0}, counts(t)); diff != "" {
				t.Errorf("pending, delivered, given up (-want +got):\n%s", diff)
			}
			var lastError string
			if err := db.SQL().QueryRow(`SELECT last_error FROM notifications WHERE id = $1`, want[1].ID).Scan(&lastError); err != nil {
				t.Fatal(err)
			}
			if lastError != "503 Service Unavailable" {
				t.Errorf("last_error %q, want the reason given", lastError)
			}
			// The third's lease from the claim above has ended; the second's
			// next attempt has not come.
			if diff := cmp.Diff(want[2:], claim(t, next.Add(-time.Millisecond), 10)); diff != "" {
				t.Errorf("claimed before the next attempt (-want +got):\n%s", diff)
			}
			again := want[1]
			again.Attempts = 1
			if diff := cmp.Diff([]afftrack.Notification{again}, claim(t, next, 10)); diff != "" {
				t.Errorf("claimed at the next attempt (-want +got):\n%s", diff)
			}
		})
		t.Run("a failure that gives up ends it", func(t *testing.T) {
			if err := out.NotificationFailed(ctx, want[1].ID, now.Add(26*time.Hour), "timeout", true); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([3]int64{1, 1, 1}, counts(t)); diff != "" {
				t.Errorf("pending, delivered, given up (-want +got):\n%s", diff)
			}
			got := claim(t, now.Add(100*24*time.Hour), 10)
			if len(got) != 1 || got[0].ID != want[2].ID {
				t.Errorf("claimed %+v, want only notification %d", got, want[2].ID)
			}
		})
		t.Run("a deferred one is due again at its next attempt, with no attempt counted", func(t *testing.T) {
			next := now.Add(100*24*time.Hour + 2*time.Hour) // after the claim above and its lease
			if err := out.NotificationDeferred(ctx, want[2].ID, next, "not called: paused"); err != nil {
				t.Fatal(err)
			}
			var lastError string
			if err := db.SQL().QueryRow(`SELECT last_error FROM notifications WHERE id = $1`, want[2].ID).Scan(&lastError); err != nil {
				t.Fatal(err)
			}
			if lastError != "not called: paused" {
				t.Errorf("last_error %q, want the reason given", lastError)
			}
			if diff := cmp.Diff([]afftrack.Notification{}, claim(t, next.Add(-time.Millisecond), 10)); diff != "" {
				t.Errorf("claimed before the next attempt (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want[2:], claim(t, next, 10)); diff != "" {
				t.Errorf("claimed at the next attempt (-want +got):\n%s", diff)
			}
		})
		t.Run("an outcome for a finished notification changes nothing", func(t *testing.T) {
			if err := out.NotificationFailed(ctx, want[0].ID, now, "late", false); err != nil {
				t.Fatal(err)
			}
			if err := out.NotificationDelivered(ctx, want[1].ID, now); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([3]int64{1, 1, 1}, counts(t)); diff != "" {
				t.Errorf("pending, delivered, given up (-want +got):\n%s", diff)
			}
		})
		t.Run("pruning removes the finished ones before its time, a batch at a time, and never a pending one", func(t *testing.T) {
			prune := func(t *testing.T, before time.Time, n int) int64 {
				t.Helper()
				removed, err := out.PruneNotifications(ctx, before, n)
				if err != nil {
					t.Fatal(err)
				}
				return removed
			}
			// Delivered at now+lease, given up at now+26h.
			if got := prune(t, now.Add(lease), 10); got != 0 {
				t.Errorf("pruned %d finished at or after the bound, want 0", got)
			}
			if got := prune(t, now.Add(1000*time.Hour), 1); got != 1 {
				t.Errorf("pruned %d with a batch of 1, want 1", got)
			}
			if got := prune(t, now.Add(1000*time.Hour), 10); got != 1 {
				t.Errorf("pruned %d, want the other finished one", got)
			}
			if diff := cmp.Diff([3]int64{1, 0, 0}, counts(t)); diff != "" {
				t.Errorf("pending, delivered, given up (-want +got):\n%s", diff)
			}
			if got := claim(t, now.Add(101*24*time.Hour), 10); len(got) != 1 || got[0].ID != want[2].ID {
				t.Errorf("claimed %+v, want the pending notification %d", got, want[2].ID)
			}
		})
	})
}

// TestNotificationClaimsShareOutAffiliates: a claim takes at most
// PerAffiliate of one affiliate's due notifications, the longest due
// first, and none of the affiliates it is told to skip, so one affiliate's
// backlog leaves room for the others'.
func TestNotificationClaimsShareOutAffiliates(t *testing.T) {
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		now := dt(t, "2024-06-01T12:00:00")
		// Affiliate 1: 30 due, the longest due first; affiliates 2 and 3:
		// two each, due after all of affiliate 1's.
		var id int64
		add := func(affiliate int64, due time.Time) {
			id++
			if _, err := db.SQL().Exec(`INSERT INTO notifications (id, affiliate_id, transaction_id, url, created, state,
				next_attempt, attempts, last_error) VALUES ($1, $2, $3, 'https://hooks.example/', $4, 0, $4, 0, '')`,
				id, affiliate, 1000+id, due.UnixMilli()); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 30 {
			add(1, now.Add(time.Duration(i-60)*time.Second))
		}
		for _, a := range []int64{2, 2, 3, 3} {
			add(a, now.Add(-time.Second))
		}
		out := sqlstore.NewNotificationService(db)
		claim := func(t *testing.T, c afftrack.NotificationClaim) map[int64][]int64 {
			t.Helper()
			c.Now, c.Lease = now, time.Minute
			got, err := out.ClaimNotifications(ctx, c)
			if err != nil {
				t.Fatalf("ClaimNotifications: %v", err)
			}
			byAffiliate := map[int64][]int64{}
			for _, n := range got {
				byAffiliate[n.AffiliateID] = append(byAffiliate[n.AffiliateID], n.ID)
			}
			for _, ids := range byAffiliate {
				slices.Sort(ids)
			}
			return byAffiliate
		}
		t.Run("a skipped affiliate's are left, and the others' taken", func(t *testing.T) {
			want := map[int64][]int64{2: {31, 32}}
			if diff := cmp.Diff(want, claim(t, afftrack.NotificationClaim{Max: 2, Skip: []int64{1, 3}})); diff != "" {
				t.Errorf("claimed (-want +got):\n%s", diff)
			}
		})
		t.Run("at most PerAffiliate of each, the longest due first", func(t *testing.T) {
			want := map[int64][]int64{1: {1, 2}, 3: {33, 34}}
			if diff := cmp.Diff(want, claim(t, afftrack.NotificationClaim{Max: 8, PerAffiliate: 2})); diff != "" {
				t.Errorf("claimed (-want +got):\n%s", diff)
			}
		})
	})
}

func TestGiveUpNotifications(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		now := dt(t, trackingNow)
		// Two past the window, one inside it, one past it but claimed (its
		// next attempt, the lease's end, to come).
		for i, row := range [][2]time.Time{{now.Add(-25 * time.Hour), now.Add(-time.Hour)},
			{now.Add(-25 * time.Hour), now.Add(-time.Hour)}, {now.Add(-23 * time.Hour), now.Add(-time.Hour)},
			{now.Add(-25 * time.Hour), now.Add(time.Minute)}} {
			if _, err := db.SQL().Exec(`INSERT INTO notifications (id, affiliate_id, transaction_id, url, created, state,
				next_attempt, attempts, last_error) VALUES ($1, 1, $2, 'https://hooks.example/', $3, 0, $4, 0, '')`,
				i+1, 1000+i, row[0].UnixMilli(), row[1].UnixMilli()); err != nil {
				t.Fatal(err)
			}
		}
		out := sqlstore.NewNotificationService(db)
		for _, step := range []struct {
			name string
			n    int
			want int64
		}{
			{"a batch gives up no more than its size", 1, 1},
			{"the next gives up the rest past the window", 10, 1},
			{"none is left past it", 10, 0},
		} {
			given, err := out.GiveUpNotifications(ctx, now.Add(-24*time.Hour), now, "expired", step.n)
			if err != nil {
				t.Fatal(err)
			}
			if given != step.want {
				t.Errorf("%s: gave up %d, want %d", step.name, given, step.want)
			}
		}
		p, _, g, err := out.NotificationCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p != 2 || g != 2 {
			t.Errorf("pending %d, given up %d; want the one inside the window and the claimed one pending, two given up", p, g)
		}
	})
}

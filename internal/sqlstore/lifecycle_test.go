package sqlstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// The lifecycle tests (tracking.md sections 4, 6 and 9) run on the
// tracking network of tracking_test.go, whose affiliate 1 has a
// NotificationUrl here (lcNotifyURL) and affiliate 7 none:
//
//   - merchant 1: prepaid, ValidationDays 45, 10% (rules by category),
//     OverrideFee 20%; conversions credited by affiliate 1's coupon ANN10;
//   - merchant 2: not prepaid, ValidationDays 60, 5%, no OverrideFee;
//     conversions credited by affiliate 1's click clickOtherMerchant.
//
// Conversions are recorded at trackingNow; the merchant validates at
// lcLater, the lifecycle service's clock.
const (
	lcLater     = "2024-06-20T09:00:00"
	lcNotifyURL = "https://hooks.example/n?tx=[TransactionId]&status=[Status2]&order=[OrderId]&sale=[SaleValue]"
)

// Reasons the store records for the changes it makes itself.
const (
	reasonApproved  = "approved by the merchant"
	reasonDue       = "validation date reached"
	reasonPrepaid   = "prepaid program"
	reasonReleased  = "released: the network has the merchant's money"
	reasonClickless = "conversion Clickless"
	reasonServer    = "conversion Server"
)

// lcLoaded imports the tracking network with affiliate 1's NotificationUrl
// and writes the conversion tests' clicks.
func lcLoaded(t *testing.T, db *sqlstore.DB) {
	t.Helper()
	d := trackingDataset(t)
	d.Affiliates[0].NotificationURL = lcNotifyURL
	d.Invoices = []afftrack.Invoice{{ID: 900, AffiliateID: 1, DateCreated: dt(t, "2024-05-31"),
		DatePaid: dt(t, "2024-05-31"), Number: "AT-1-0001", Description: "Commissions up to 31/05/2024",
		SubTotal: 10000, Total: 10000}}
	mustImport(t, db, d)
	if err := sqlstore.NewClickService(db).WriteClicks(context.Background(), conversionClicks(t)); err != nil {
		t.Fatal(err)
	}
}

// lcNet is the network's services on one store.
type lcNet struct {
	t     *testing.T
	db    *sqlstore.DB
	conv  *sqlstore.ConversionService
	lc    *sqlstore.LifecycleService
	later time.Time
}

func newLCNet(t *testing.T, db *sqlstore.DB) *lcNet {
	later := dt(t, lcLater)
	return &lcNet{t: t, db: db, conv: sqlstore.NewConversionService(db, "AUD", trackingClock(t)),
		lc: sqlstore.NewLifecycleService(db, "AUD", func() time.Time { return later }), later: later}
}

// m1 records a conversion of merchant 1 credited by coupon ANN10 to
// affiliate 1.
func (n *lcNet) m1(order string, sale afftrack.Money, items ...afftrack.ConversionItem) *afftrack.Transaction {
	n.t.Helper()
	return n.record(afftrack.Conversion{MerchantID: 1, OrderID: order, SaleValue: sale, CurrencyCode: "AUD",
		CustomerType: afftrack.CustomerTypeNew, CouponCode: "ANN10", Items: items})
}

// m2 records a conversion of merchant 2 credited by a click of affiliate 1.
func (n *lcNet) m2(order string, sale afftrack.Money) *afftrack.Transaction {
	n.t.Helper()
	return n.record(afftrack.Conversion{MerchantID: 2, OrderID: order, SaleValue: sale, CurrencyCode: "AUD",
		CustomerType: afftrack.CustomerTypeNew, ClickID: testClickID(clickOtherMerchant)})
}

func (n *lcNet) record(c afftrack.Conversion) *afftrack.Transaction {
	n.t.Helper()
	got, created := recordConversion(n.t, n.conv, n.db, c)
	if !created {
		n.t.Fatalf("conversion %s was not created", c.OrderID)
	}
	return got
}

// read returns a transaction as the merchant reads it.
func (n *lcNet) read(tr *afftrack.Transaction) *afftrack.Transaction {
	n.t.Helper()
	got, err := sqlstore.NewTransactionService(n.db).FindTransactionByID(context.Background(), tr.MerchantID, tr.ID)
	if err != nil {
		n.t.Fatalf("read transaction %d: %v", tr.ID, err)
	}
	return got
}

func (n *lcNet) history(id int64) []afftrack.TransactionEvent {
	n.t.Helper()
	events, err := n.lc.History(context.Background(), id)
	if err != nil {
		n.t.Fatalf("History(%d): %v", id, err)
	}
	return events
}

func (n *lcNet) validate(merchant int64, actor afftrack.Actor, rows ...afftrack.Validation) []afftrack.ValidationResult {
	n.t.Helper()
	got, err := n.lc.Validate(context.Background(), merchant, actor, rows)
	if err != nil {
		n.t.Fatalf("Validate: %v", err)
	}
	return got
}

// event is the history entry of a change that leaves the amounts alone.
func event(tr *afftrack.Transaction, at time.Time, actor afftrack.Actor, from, to afftrack.TransactionStatus2,
	reason string) afftrack.TransactionEvent {
	return afftrack.TransactionEvent{TransactionID: tr.ID, At: at, Actor: actor, From: from, To: to,
		FromSaleValue: tr.SaleValue, ToSaleValue: tr.SaleValue, FromCommission: tr.Commission,
		ToCommission: tr.Commission, Reason: reason}
}

// created is the history entry of a recorded conversion.
func created(tr *afftrack.Transaction, actor afftrack.Actor, reason string) afftrack.TransactionEvent {
	return afftrack.TransactionEvent{TransactionID: tr.ID, At: tr.DateCreated, Actor: actor,
		To: afftrack.Status2Pending, ToSaleValue: tr.SaleValue, ToCommission: tr.Commission, Reason: reason}
}

// result is the result of a row applied to tr, now in status.
func result(tr *afftrack.Transaction, status afftrack.TransactionStatus2) afftrack.ValidationResult {
	return afftrack.ValidationResult{ID: afftrack.Some(tr.ID), OrderID: afftrack.Some(tr.OrderID), Status2: status}
}

// refused is the result of a row refused for tr, in status.
func refused(tr *afftrack.Transaction, status afftrack.TransactionStatus2, msg string) afftrack.ValidationResult {
	r := result(tr, status)
	r.Error = afftrack.Some(msg)
	return r
}

func byID(tr *afftrack.Transaction, a afftrack.ValidationAction) afftrack.Validation {
	return afftrack.Validation{ID: afftrack.Some(tr.ID), Action: a}
}

func byOrder(order string, a afftrack.ValidationAction) afftrack.Validation {
	return afftrack.Validation{OrderID: afftrack.Some(order), Action: a}
}

func lcImported(t testing.TB, id, merchant int64, createdAt, validation string, s afftrack.TransactionStatus2) afftrack.TransactionRecord {
	created := dt(t, createdAt)
	tr := afftrack.Transaction{ID: id, MerchantID: merchant, AffiliateID: 1, DateCreated: created,
		DateModified: created, ConsumptionDate: created, ValidationDate: dt(t, validation),
		TrafficType: afftrack.TrafficTypeWebsite, CreativeType: afftrack.CreativeTypeTextLink,
		CustomerType: afftrack.CustomerTypeNew, OrderID: fmt.Sprintf("IMP-%d", id),
		TrackingMethod: afftrack.TrackingMethodCookie, SaleValue: 100000, Commission: 10000,
		ReportedCurrencyCode: "AUD", ReportedCurrencyName: "Australian Dollar", ReportedSaleValue: 100000,
		TrafficSourceApproved: true, Status2: s}
	switch s {
	case afftrack.Status2Paid:
		tr.InvoiceID = afftrack.Some[int64](900)
	case afftrack.Status2Void:
		tr.VoidReason = afftrack.VoidReasonTestTransaction
	}
	return afftrack.TransactionRecord{Transaction: tr}
}

func TestLockDue(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		lcLoaded(t, db)
		n := newLCNet(t, db)
		// a: merchant 2, due 2024-08-14T12:00; b: merchant 2, consumed
		// 2024-06-20, due 2024-08-19; c: merchant 1 (prepaid), due
		// 2024-07-30T12:00; d: merchant 1, consumed 2024-09-01, due later.
		a := n.m2("LD-A", 1000000)
		b := n.record(afftrack.Conversion{MerchantID: 2, OrderID: "LD-B", SaleValue: 1000000, CurrencyCode: "AUD",
			CustomerType: afftrack.CustomerTypeNew, ClickID: testClickID(clickOtherMerchant),
			ConsumptionDate: afftrack.Some(dt(t, "2024-06-20T00:00:00"))})
		c := n.m1("LD-C", 1000000)
		d := n.record(afftrack.Conversion{MerchantID: 1, OrderID: "LD-D", SaleValue: 1000000, CurrencyCode: "AUD",
			CustomerType: afftrack.CustomerTypeNew, CouponCode: "ANN10",
			ConsumptionDate: afftrack.Some(dt(t, "2024-09-01T00:00:00"))})
		wantDates := []time.Time{dt(t, "2024-08-14T12:00:00"), dt(t, "2024-08-19T00:00:00"),
			dt(t, "2024-07-30T12:00:00"), dt(t, "2024-10-16T00:00:00")}
		if diff := cmp.Diff(wantDates, []time.Time{a.ValidationDate, b.ValidationDate, c.ValidationDate, d.ValidationDate}); diff != "" {
			t.Fatalf("ValidationDates (-want +got):\n%s", diff)
		}
		now := dt(t, "2024-08-14T12:00:00")
		lock := func(t *testing.T, now time.Time, want int) {
			t.Helper()
			got, err := n.lc.LockDue(ctx, now)
			if err != nil {
				t.Fatalf("LockDue: %v", err)
			}
			if got != want {
				t.Errorf("LockDue locked %d, want %d", got, want)
			}
		}
		lock(t, now, 2)

		t.Run("a Pending transaction whose ValidationDate is now is locked by the lifecycle", func(t *testing.T) {
			want := *a
			want.Status2, want.DateModified = afftrack.Status2Locked, now
			if diff := cmp.Diff(&want, n.read(a)); diff != "" {
				t.Errorf("transaction (-want +got):\n%s", diff)
			}
			wantEvents := []afftrack.TransactionEvent{created(a, "merchant:2", reasonServer),
				event(a, now, afftrack.ActorLifecycle, afftrack.Status2Pending, afftrack.Status2Locked, reasonDue)}
			if diff := cmp.Diff(wantEvents, n.history(a.ID)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
		t.Run("a prepaid program's transaction is locked then approved, two events", func(t *testing.T) {
			want := *c
			want.Status2, want.DateModified = afftrack.Status2Approved, now
			if diff := cmp.Diff(&want, n.read(c)); diff != "" {
				t.Errorf("transaction (-want +got):\n%s", diff)
			}
			wantEvents := []afftrack.TransactionEvent{created(c, "merchant:1", reasonClickless),
				event(c, now, afftrack.ActorLifecycle, afftrack.Status2Pending, afftrack.Status2Locked, reasonDue),
				event(c, now, afftrack.ActorLifecycle, afftrack.Status2Locked, afftrack.Status2Approved, reasonPrepaid)}
			if diff := cmp.Diff(wantEvents, n.history(c.ID)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
		t.Run("transactions whose ValidationDate is later stay Pending", func(t *testing.T) {
			for _, tr := range []*afftrack.Transaction{b, d} {
				if diff := cmp.Diff(tr, n.read(tr)); diff != "" {
					t.Errorf("%s changed (-before +after):\n%s", tr.OrderID, diff)
				}
			}
		})
		t.Run("running it again changes nothing", func(t *testing.T) {
			events, notifications := countRows(t, db, "transaction_events"), countRows(t, db, "notifications")
			before := []*afftrack.Transaction{n.read(a), n.read(b), n.read(c), n.read(d)}
			lock(t, now, 0)
			lock(t, now.Add(time.Hour), 0)
			after := []*afftrack.Transaction{n.read(a), n.read(b), n.read(c), n.read(d)}
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("transactions changed (-before +after):\n%s", diff)
			}
			if got := countRows(t, db, "transaction_events"); got != events {
				t.Errorf("%d events, want %d as before", got, events)
			}
			if got := countRows(t, db, "notifications"); got != notifications {
				t.Errorf("%d notifications, want %d as before", got, notifications)
			}
		})
		t.Run("a later run locks what has come due since", func(t *testing.T) {
			lock(t, dt(t, "2024-08-19T00:00:00"), 1)
			if s := n.read(b).Status2; s != afftrack.Status2Locked {
				t.Errorf("LD-B is %s, want Locked", s)
			}
			if s := n.read(d).Status2; s != afftrack.Status2Pending {
				t.Errorf("LD-D is %s, want Pending", s)
			}
		})
		t.Run("more than a batch of due transactions are all locked in one run", func(t *testing.T) {
			const due, later = 1203, 7
			var imported afftrack.Dataset
			for i := range due + later {
				validation := fmt.Sprintf("2024-02-%02dT%02d:%02d:00", 1+i/1440, i/60%24, i%60)
				if i >= due {
					validation = "2025-01-01T00:00:00"
				}
				imported.Transactions = append(imported.Transactions,
					lcImported(t, int64(10000+i), 2, "2024-01-01T00:00:00", validation, afftrack.Status2Pending))
			}
			mustImport(t, db, &imported)
			lock(t, now, due)
			statuses := map[afftrack.TransactionStatus2]int{}
			rows, err := db.SQL().Query(`SELECT status2 FROM transactions WHERE id >= 10000 AND id < 20000`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var s int64
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				statuses[afftrack.TransactionStatus2(s)]++
			}
			want := map[afftrack.TransactionStatus2]int{afftrack.Status2Locked: due, afftrack.Status2Pending: later}
			if diff := cmp.Diff(want, statuses); diff != "" {
				t.Errorf("statuses of the imported transactions (-want +got):\n%s", diff)
			}
			if got := lockEvents(t, db, 10000, 20000); got != (lockCount{transactions: due, events: due}) {
				t.Errorf("lock events %+v, want one for each of %d transactions", got, due)
			}
		})
	})
}

// lockCount is how many transactions of an id range have a
// Pending-to-Locked event, and how many such events there are.
type lockCount struct{ transactions, events int64 }

func lockEvents(t *testing.T, db *sqlstore.DB, from, to int64) lockCount {
	t.Helper()
	var c lockCount
	if err := db.SQL().QueryRow(`SELECT COUNT(DISTINCT transaction_id), COUNT(*) FROM transaction_events
	WHERE from_status = $1 AND to_status = $2 AND transaction_id >= $3 AND transaction_id < $4`,
		int64(afftrack.Status2Pending), int64(afftrack.Status2Locked), from, to).Scan(&c.transactions, &c.events); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLockDueConcurrently runs LockDue twice at the same moment over 1,200
// due transactions, 200 of them of a prepaid program: as two goroutines
// on one DB, and, on a SQLite file and on PostgreSQL, as two replicas
// with DBs of their own.
func TestLockDueConcurrently(t *testing.T) {
	const due, prepaid = 1200, 200
	run := func(t *testing.T, db1, db2 *sqlstore.DB) {
		lcLoaded(t, db1)
		var imported afftrack.Dataset
		for i := range due {
			merchant := int64(2)
			if i < prepaid {
				merchant = 1
			}
			imported.Transactions = append(imported.Transactions,
				lcImported(t, int64(10000+i), merchant, "2024-01-01T00:00:00", "2024-03-01T00:00:00", afftrack.Status2Pending))
		}
		mustImport(t, db1, &imported)
		now := dt(t, trackingNow)
		var counts [2]int
		var errs [2]error
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, db := range []*sqlstore.DB{db1, db2} {
			lc := sqlstore.NewLifecycleService(db, "AUD", func() time.Time { return now })
			wg.Go(func() {
				<-start
				counts[i], errs[i] = lc.LockDue(context.Background(), now)
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("run %d: %v", i, err)
			}
		}
		t.Logf("the runs locked %d and %d", counts[0], counts[1])
		if counts[0]+counts[1] != due {
			t.Errorf("the runs locked %d + %d, want %d in all", counts[0], counts[1], due)
		}
		if got := lockEvents(t, db1, 10000, 20000); got != (lockCount{transactions: due, events: due}) {
			t.Errorf("lock events %+v, want exactly one for each of %d transactions", got, due)
		}
		var approvals lockCount
		if err := db1.SQL().QueryRow(`SELECT COUNT(DISTINCT transaction_id), COUNT(*) FROM transaction_events
		WHERE from_status = $1 AND to_status = $2`, int64(afftrack.Status2Locked), int64(afftrack.Status2Approved)).Scan(
			&approvals.transactions, &approvals.events); err != nil {
			t.Fatal(err)
		}
		if approvals != (lockCount{transactions: prepaid, events: prepaid}) {
			t.Errorf("approval events %+v, want exactly one for each of the %d prepaid", approvals, prepaid)
		}
		var locked, approved int64
		if err := db1.SQL().QueryRow(`SELECT
			(SELECT COUNT(*) FROM transactions WHERE status2 = $1 AND merchant_id = 2),
			(SELECT COUNT(*) FROM transactions WHERE status2 = $2 AND merchant_id = 1)`,
			int64(afftrack.Status2Locked), int64(afftrack.Status2Approved)).Scan(&locked, &approved); err != nil {
			t.Fatal(err)
		}
		if locked != due-prepaid || approved != prepaid {
			t.Errorf("%d Locked and %d Approved, want %d and %d", locked, approved, due-prepaid, prepaid)
		}
		// One notification per change: a lock each, an approval each prepaid.
		if got := countRows(t, db1, "notifications"); got != due+prepaid {
			t.Errorf("%d notifications, want %d", got, due+prepaid)
		}
	}
	eachReplicaPair(t, run)
}

// TestLockDueSkipsRowsAnotherRunHolds: on PostgreSQL a run takes only the
// due rows no other transaction holds, so two runs at once never wait on
// each other's rows (and so cannot deadlock); the next pass takes the
// rest.
func TestLockDueSkipsRowsAnotherRunHolds(t *testing.T) {
	if len(storetest.Backends(t)) < 2 {
		t.Skip("PostgreSQL only: SQLite's writes are serial")
	}
	db := storetest.Open(t, storetest.Postgres)
	lcLoaded(t, db)
	var imported afftrack.Dataset
	for i := range 3 {
		imported.Transactions = append(imported.Transactions,
			lcImported(t, int64(10000+i), 2, "2024-01-01T00:00:00", "2024-03-01T00:00:00", afftrack.Status2Pending))
	}
	mustImport(t, db, &imported)
	ctx := context.Background()
	holder, err := db.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	var id int64
	if err := holder.QueryRowContext(ctx, `SELECT id FROM transactions WHERE id = 10001 FOR UPDATE`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	now := dt(t, trackingNow)
	lc := sqlstore.NewLifecycleService(db, "AUD", func() time.Time { return now })
	wait, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if n, err := lc.LockDue(wait, now); err != nil || n != 2 {
		t.Fatalf("LockDue beside a held row = %d, %v; want the 2 others at once", n, err)
	}
	if err := holder.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n, err := lc.LockDue(ctx, now); err != nil || n != 1 {
		t.Errorf("LockDue once the row is free = %d, %v; want 1", n, err)
	}
}

// eachReplicaPair runs run with two DBs on one database: on a SQLite file
// and on PostgreSQL (when its URL is set) as two replicas with DBs of
// their own, and as two goroutines sharing one DB on SQLite in memory and
// on PostgreSQL.
func eachReplicaPair(t *testing.T, run func(t *testing.T, db1, db2 *sqlstore.DB)) {
	open := func(t *testing.T, dsn string) *sqlstore.DB {
		db, err := sqlstore.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	for _, b := range storetest.Backends(t) {
		t.Run("two replicas on "+b, func(t *testing.T) {
			dsn := storetest.URL(t, b)
			db1 := open(t, dsn)
			if err := db1.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
			run(t, db1, open(t, dsn))
		})
	}
	t.Run("two goroutines on one sqlite in memory", func(t *testing.T) {
		db := open(t, "sqlite::memory:")
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		run(t, db, db)
	})
	if len(storetest.Backends(t)) > 1 {
		t.Run("two goroutines on one postgres DB", func(t *testing.T) {
			db := storetest.Open(t, storetest.Postgres)
			run(t, db, db)
		})
	}
}

func TestRelease(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		lcLoaded(t, db)
		n := newLCNet(t, db)
		mustImport(t, db, &afftrack.Dataset{Transactions: []afftrack.TransactionRecord{
			lcImported(t, 701, 2, "2024-06-10T08:00:00", "2024-06-10T08:00:00", afftrack.Status2Locked),
			lcImported(t, 702, 2, "2024-06-11T00:00:00", "2024-06-11T00:00:00", afftrack.Status2Locked),
			lcImported(t, 703, 2, "2024-06-01T00:00:00", "2024-09-01T00:00:00", afftrack.Status2Pending),
			lcImported(t, 704, 2, "2024-06-01T00:00:00", "2024-06-01T00:00:00", afftrack.Status2Approved),
			lcImported(t, 705, 1, "2024-06-01T00:00:00", "2024-06-01T00:00:00", afftrack.Status2Locked),
		}})
		txs := map[int64]*afftrack.Transaction{}
		for id := int64(701); id <= 705; id++ {
			merchant := int64(2)
			if id == 705 {
				merchant = 1
			}
			txs[id] = n.read(&afftrack.Transaction{ID: id, MerchantID: merchant})
		}
		release := func(t *testing.T, merchant int64, until afftrack.Null[time.Time], at time.Time, want int) {
			t.Helper()
			got, err := n.lc.Release(ctx, merchant, until, afftrack.ActorOperator, at)
			if err != nil {
				t.Fatalf("Release: %v", err)
			}
			if got != want {
				t.Errorf("Release approved %d, want %d", got, want)
			}
		}
		status := func(id int64) afftrack.TransactionStatus2 { return n.read(txs[id]).Status2 }

		t.Run("up to a day approves the Locked transactions created before its end", func(t *testing.T) {
			release(t, 2, afftrack.Some(dt(t, "2024-06-11")), n.later, 1)
			want := *txs[701]
			want.Status2, want.DateModified = afftrack.Status2Approved, n.later
			if diff := cmp.Diff(&want, n.read(txs[701])); diff != "" {
				t.Errorf("transaction 701 (-want +got):\n%s", diff)
			}
			wantEvents := []afftrack.TransactionEvent{event(txs[701], n.later, afftrack.ActorOperator,
				afftrack.Status2Locked, afftrack.Status2Approved, reasonReleased)}
			if diff := cmp.Diff(wantEvents, n.history(701)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]notificationRow{notified(txs[701], "Approved", "10.0000")}, notificationsOf(t, db, 701)); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
			if s := status(702); s != afftrack.Status2Locked {
				t.Errorf("702, created at the end of the day, is %s, want Locked", s)
			}
		})
		t.Run("without a day approves every Locked transaction of the merchant", func(t *testing.T) {
			at := n.later.Add(time.Hour)
			release(t, 2, afftrack.Null[time.Time]{}, at, 1)
			if s := status(702); s != afftrack.Status2Approved {
				t.Errorf("702 is %s, want Approved", s)
			}
			release(t, 2, afftrack.Null[time.Time]{}, at, 0)
		})
		t.Run("other transactions and other merchants' are untouched", func(t *testing.T) {
			for _, id := range []int64{703, 704, 705} {
				if diff := cmp.Diff(txs[id], n.read(txs[id])); diff != "" {
					t.Errorf("transaction %d changed (-before +after):\n%s", id, diff)
				}
			}
		})
		t.Run("a merchant with nothing Locked releases nothing", func(t *testing.T) {
			release(t, 3, afftrack.Null[time.Time]{}, n.later, 0)
		})
		t.Run("an unknown merchant is not found", func(t *testing.T) {
			_, err := n.lc.Release(ctx, 99, afftrack.Null[time.Time]{}, afftrack.ActorOperator, n.later)
			wantCode(t, err, afftrack.ENOTFOUND)
		})
	})
}

func TestReleasePrepaid(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		lcLoaded(t, db)
		n := newLCNet(t, db)
		// Imported Locked: a batch and a few more of merchant 1 (prepaid),
		// three of merchant 2 (not), and one Pending of merchant 1.
		const prepaidLocked, otherLocked = 503, 3
		var imported afftrack.Dataset
		for i := range prepaidLocked + otherLocked {
			merchant := int64(1)
			if i >= prepaidLocked {
				merchant = 2
			}
			imported.Transactions = append(imported.Transactions,
				lcImported(t, int64(30000+i), merchant, "2024-01-01T00:00:00", "2024-02-15T00:00:00", afftrack.Status2Locked))
		}
		imported.Transactions = append(imported.Transactions,
			lcImported(t, 39999, 1, "2024-01-01T00:00:00", "2099-01-01T00:00:00", afftrack.Status2Pending))
		mustImport(t, db, &imported)
		statuses := func(t *testing.T) map[string]int {
			t.Helper()
			rows, err := db.SQL().Query(`SELECT merchant_id, status2 FROM transactions WHERE id >= 30000 AND id < 40000`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			got := map[string]int{}
			for rows.Next() {
				var m, s int64
				if err := rows.Scan(&m, &s); err != nil {
					t.Fatal(err)
				}
				got[fmt.Sprintf("merchant %d %s", m, afftrack.TransactionStatus2(s))]++
			}
			return got
		}
		release := func(t *testing.T, want int) {
			t.Helper()
			got, err := n.lc.ReleasePrepaid(ctx, n.later)
			if err != nil {
				t.Fatalf("ReleasePrepaid: %v", err)
			}
			if got != want {
				t.Errorf("ReleasePrepaid approved %d, want %d", got, want)
			}
		}

		t.Run("the imported Locked transactions of a prepaid program are approved, a batch at a time", func(t *testing.T) {
			release(t, prepaidLocked)
			want := map[string]int{"merchant 1 Approved": prepaidLocked, "merchant 1 Pending": 1,
				"merchant 2 Locked": otherLocked}
			if diff := cmp.Diff(want, statuses(t)); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			first := lcImported(t, 30000, 1, "2024-01-01T00:00:00", "2024-02-15T00:00:00", afftrack.Status2Locked).Transaction
			wantEvents := []afftrack.TransactionEvent{
				event(&first, n.later, afftrack.ActorLifecycle, afftrack.Status2Locked, afftrack.Status2Approved, reasonPrepaid)}
			if diff := cmp.Diff(wantEvents, n.history(30000)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
		t.Run("running it again approves nothing", func(t *testing.T) {
			events := countRows(t, db, "transaction_events")
			release(t, 0)
			if got := countRows(t, db, "transaction_events"); got != events {
				t.Errorf("%d events, want %d as before", got, events)
			}
		})
		t.Run("a program made prepaid has its Locked transactions approved by the next run", func(t *testing.T) {
			programs := sqlstore.NewProgramService(db)
			p, err := programs.FindProgram(ctx, 2)
			if err != nil {
				t.Fatal(err)
			}
			p.Prepaid = true
			if err := programs.SetProgram(ctx, p); err != nil {
				t.Fatal(err)
			}
			release(t, otherLocked)
			want := map[string]int{"merchant 1 Approved": prepaidLocked, "merchant 1 Pending": 1,
				"merchant 2 Approved": otherLocked}
			if diff := cmp.Diff(want, statuses(t)); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
	})
}

// TestConversionsBehindAnotherProcesssWriteLockAreUnavailableTogether: on
// SQLite a group of conversions whose write cannot begin (an import holds
// the lock) all get EUNAVAILABLE after one wait, not a wait each.
func TestConversionsBehindAnotherProcesssWriteLockAreUnavailableTogether(t *testing.T) {
	dsn := storetest.URL(t, storetest.SQLite)
	db := openAndMigrate(t, dsn)
	lcLoaded(t, db)
	n := newLCNet(t, db)
	holdWriteLock(t, dsn)
	ctx := context.Background()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() {
			_, _, errs[i] = n.conv.RecordConversion(ctx, &afftrack.Conversion{MerchantID: 1,
				OrderID: fmt.Sprintf("BUSY-%d", i), SaleValue: 10000, CurrencyCode: "AUD",
				CustomerType: afftrack.CustomerTypeNew, CouponCode: "ANN10"})
		})
		time.Sleep(50 * time.Millisecond) // the first begins the write; the others join its group
	}
	wg.Wait()
	for i, err := range errs {
		if afftrack.ErrorCode(err) != afftrack.EUNAVAILABLE {
			t.Errorf("conversion %d: %v; want %s", i, err, afftrack.EUNAVAILABLE)
		}
	}
	// One busy timeout is 5 s; written alone each would wait another.
	if took := time.Since(start); took > 9*time.Second {
		t.Errorf("the conversions were answered after %v; want one wait for the lock, not one each", took)
	}
}

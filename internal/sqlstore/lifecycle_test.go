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

func TestValidateApplies(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		lcLoaded(t, db)
		n := newLCNet(t, db)
		const actor2 = afftrack.Actor("merchant:2 key k_two")
		const actor1 = afftrack.Actor("merchant:1 key k_one")

		t.Run("Approve locks a Pending transaction and sets DateModified", func(t *testing.T) {
			tr := n.m2("AP-1", 1000000)
			got := n.validate(2, actor2, byID(tr, afftrack.ActionApprove))
			if diff := cmp.Diff([]afftrack.ValidationResult{result(tr, afftrack.Status2Locked)}, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			want := *tr
			want.Status2, want.DateModified = afftrack.Status2Locked, n.later
			if diff := cmp.Diff(&want, n.read(tr)); diff != "" {
				t.Errorf("transaction (-want +got):\n%s", diff)
			}
			wantEvents := []afftrack.TransactionEvent{created(tr, "merchant:2", reasonServer),
				event(tr, n.later, actor2, afftrack.Status2Pending, afftrack.Status2Locked, reasonApproved)}
			if diff := cmp.Diff(wantEvents, n.history(tr.ID)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
		t.Run("Approve of a prepaid program's transaction approves it at once", func(t *testing.T) {
			tr := n.m1("AP-PREPAID", 1000000)
			got := n.validate(1, actor1, byID(tr, afftrack.ActionApprove))
			if diff := cmp.Diff([]afftrack.ValidationResult{result(tr, afftrack.Status2Approved)}, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			want := *tr
			want.Status2, want.DateModified = afftrack.Status2Approved, n.later
			if diff := cmp.Diff(&want, n.read(tr)); diff != "" {
				t.Errorf("transaction (-want +got):\n%s", diff)
			}
			wantEvents := []afftrack.TransactionEvent{created(tr, "merchant:1", reasonClickless),
				event(tr, n.later, actor1, afftrack.Status2Pending, afftrack.Status2Locked, reasonApproved),
				event(tr, n.later, afftrack.ActorLifecycle, afftrack.Status2Locked, afftrack.Status2Approved, reasonPrepaid)}
			if diff := cmp.Diff(wantEvents, n.history(tr.ID), cmp.FilterPath(func(p cmp.Path) bool {
				return p.Last().String() == ".Actor" || p.Last().String() == ".Reason"
			}, cmp.Ignore())); diff != "" {
				t.Errorf("history, but for actors and reasons (-want +got):\n%s", diff)
			}
		})
		t.Run("Void by OrderId voids a Pending transaction with its reason", func(t *testing.T) {
			tr := n.m2("VO-1", 1000000)
			row := byOrder("VO-1", afftrack.ActionVoid)
			row.VoidReason = afftrack.VoidReasonReturnedOrderUnclaimedShipment
			got := n.validate(2, actor2, row)
			if diff := cmp.Diff([]afftrack.ValidationResult{result(tr, afftrack.Status2Void)}, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			want := *tr
			want.Status2, want.DateModified = afftrack.Status2Void, n.later
			want.VoidReason = afftrack.VoidReasonReturnedOrderUnclaimedShipment
			if diff := cmp.Diff(&want, n.read(tr)); diff != "" {
				t.Errorf("transaction (-want +got):\n%s", diff)
			}
			wantEvents := []afftrack.TransactionEvent{created(tr, "merchant:2", reasonServer),
				event(tr, n.later, actor2, afftrack.Status2Pending, afftrack.Status2Void,
					afftrack.VoidReasonReturnedOrderUnclaimedShipment.String())}
			if diff := cmp.Diff(wantEvents, n.history(tr.ID)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
		t.Run("Amend with a new SaleValue stays Pending and recomputes the amounts exactly", func(t *testing.T) {
			tr := n.m1("AM-1", 1000000) // 100.0000: 10.0000 commission, 2.0000 fee
			row := byID(tr, afftrack.ActionAmend)
			row.AmendedReason, row.SaleValue = afftrack.AmendedReasonIncorrectSaleValue, afftrack.Some[afftrack.Money](805555)
			got := n.validate(1, actor1, row)
			if diff := cmp.Diff([]afftrack.ValidationResult{result(tr, afftrack.Status2Pending)}, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			want := *tr
			want.DateModified, want.AmendedReason = n.later, afftrack.AmendedReasonIncorrectSaleValue
			want.ReportedSaleValue, want.SaleValue = 805555, 805555
			want.Commission = 80556  // 10% of 80.5555 is 8.05555, half away from zero
			want.OverrideFee = 16111 // 20% of 8.0556 is 1.61112
			if diff := cmp.Diff(&want, n.read(tr)); diff != "" {
				t.Errorf("transaction (-want +got):\n%s", diff)
			}
			wantEvents := []afftrack.TransactionEvent{created(tr, "merchant:1", reasonClickless),
				{TransactionID: tr.ID, At: n.later, Actor: actor1, From: afftrack.Status2Pending, To: afftrack.Status2Pending,
					FromSaleValue: 1000000, ToSaleValue: 805555, FromCommission: 100000, ToCommission: 80556,
					Reason: "Incorrect Sale Value"}}
			if diff := cmp.Diff(wantEvents, n.history(tr.ID)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
		t.Run("Amend with Items reprices every item by its category's rule and rewrites the items and their cache", func(t *testing.T) {
			tr := n.m1("AM-2", 550000,
				afftrack.ConversionItem{Sku: "G-1", Quantity: 2, SaleValue: 4000, Name: "Game", Brand: "Acme", Category: "games"},
				afftrack.ConversionItem{Sku: "B-1", Quantity: 1, SaleValue: 1500, Name: "Book", Brand: "Pub", Category: "Books"})
			row := byOrder("AM-2", afftrack.ActionAmend)
			row.AmendedReason = afftrack.AmendedReasonCartItemsEdited
			row.Items = []afftrack.ConversionItem{
				{Sku: "G-1", Quantity: 1, SaleValue: 2500, Name: "Game", Brand: "Acme", Category: "Games"},
				{Sku: "B-2", Quantity: 2, SaleValue: 3333, Name: "Book Two", Brand: "Pub", Category: "books"},
			}
			got := n.validate(1, actor1, row)
			if diff := cmp.Diff([]afftrack.ValidationResult{result(tr, afftrack.Status2Pending)}, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			want := *tr
			want.DateModified, want.AmendedReason = n.later, afftrack.AmendedReasonCartItemsEdited
			want.ReportedSaleValue, want.SaleValue = 583300, 583300 // 25.00 + 33.33
			want.Items = []afftrack.TransactionItem{
				// affiliate 1's new gamers: 12.3456% of 25.00 is 3.0864
				{Sku: "G-1", Quantity: 1, ReportedSaleValue: 2500, SaleValue: 2500, Commission: 309,
					Name: "Game", Brand: "Acme", Category: "Games"},
				// books: 5% of 33.33 is 1.6665, half away from zero
				{Sku: "B-2", Quantity: 2, ReportedSaleValue: 3333, SaleValue: 3333, Commission: 167,
					Name: "Book Two", Brand: "Pub", Category: "books"},
			}
			want.Commission, want.OverrideFee = 47600, 9520
			read := n.read(tr)
			if diff := cmp.Diff(&want, read); diff != "" {
				t.Errorf("transaction (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(itemsOfTable(t, db, tr.ID), read.Items); diff != "" {
				t.Errorf("items of the cache differ from transaction_items (-table +cache):\n%s", diff)
			}
		})
		t.Run("Amend of a transaction with Items and only a SaleValue is refused", func(t *testing.T) {
			tr := n.m1("AM-3", 4000,
				afftrack.ConversionItem{Sku: "G-1", Quantity: 1, SaleValue: 4000, Name: "Game", Category: "Games"})
			row := byID(tr, afftrack.ActionAmend)
			row.AmendedReason, row.SaleValue = afftrack.AmendedReasonIncorrectSaleValue, afftrack.Some[afftrack.Money](1000)
			got := n.validate(1, actor1, row)
			want := refused(tr, afftrack.Status2Pending, "The transaction has Items: amend them (its SaleValue is their sum).")
			if diff := cmp.Diff([]afftrack.ValidationResult{want}, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tr, n.read(tr)); diff != "" {
				t.Errorf("transaction changed (-before +after):\n%s", diff)
			}
		})
		t.Run("Amend of a foreign-currency transaction converts at the rate of its creation day", func(t *testing.T) {
			// Recorded on 2024-06-15 at USD 1.5; amended on 2024-06-20, when the latest rate is 2.0.
			tr := n.record(afftrack.Conversion{MerchantID: 1, OrderID: "AM-USD", SaleValue: 1000000, CurrencyCode: "USD",
				CustomerType: afftrack.CustomerTypeNew, CouponCode: "ANN10"})
			if tr.SaleValue != 1500000 {
				t.Fatalf("recorded SaleValue %v, want 150.0000", tr.SaleValue)
			}
			row := byID(tr, afftrack.ActionAmend)
			row.AmendedReason, row.SaleValue = afftrack.AmendedReasonPartialOrderReturn, afftrack.Some[afftrack.Money](500000)
			got := n.validate(1, actor1, row)
			if diff := cmp.Diff([]afftrack.ValidationResult{result(tr, afftrack.Status2Pending)}, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			want := *tr
			want.DateModified, want.AmendedReason = n.later, afftrack.AmendedReasonPartialOrderReturn
			want.ReportedSaleValue, want.SaleValue, want.Commission, want.OverrideFee = 500000, 750000, 75000, 15000
			if diff := cmp.Diff(&want, n.read(tr)); diff != "" {
				t.Errorf("transaction (-want +got):\n%s", diff)
			}
		})
		t.Run("rows come back in order and each sees the rows before it", func(t *testing.T) {
			x, y, z := n.m2("MIX-X", 100000), n.m2("MIX-Y", 200000), n.m2("MIX-Z", 300000)
			void := byOrder("MIX-Y", afftrack.ActionVoid)
			void.VoidReason = afftrack.VoidReasonFraudulentTransaction
			amend := byID(z, afftrack.ActionAmend)
			amend.AmendedReason, amend.SaleValue = afftrack.AmendedReasonIncorrectSaleValue, afftrack.Some[afftrack.Money](2000000)
			problem := afftrack.Validation{ID: afftrack.Some(z.ID), Action: afftrack.ActionApprove, Problem: "Action: \"Bless\" is wrong"}
			got := n.validate(2, actor2, byID(x, afftrack.ActionApprove), void, byOrder("NOPE", afftrack.ActionApprove),
				amend, problem, byID(x, afftrack.ActionApprove))
			want := []afftrack.ValidationResult{
				result(x, afftrack.Status2Locked),
				result(y, afftrack.Status2Void),
				{OrderID: afftrack.Some("NOPE"), Error: afftrack.Some(`No transaction of this merchant has OrderId "NOPE".`)},
				result(z, afftrack.Status2Pending),
				{ID: afftrack.Some(z.ID), Error: afftrack.Some("Action: \"Bless\" is wrong")},
				refused(x, afftrack.Status2Locked, "The transaction is Locked; only a Pending transaction can be validated."),
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			type state struct {
				Status2               afftrack.TransactionStatus2
				SaleValue, Commission afftrack.Money
				VoidReason            afftrack.VoidReason
				AmendedReason         afftrack.AmendedReason
			}
			of := func(tr *afftrack.Transaction) state {
				r := n.read(tr)
				return state{r.Status2, r.SaleValue, r.Commission, r.VoidReason, r.AmendedReason}
			}
			wantStates := []state{
				{afftrack.Status2Locked, 100000, 5000, 0, 0},
				{afftrack.Status2Void, 200000, 10000, afftrack.VoidReasonFraudulentTransaction, 0},
				{afftrack.Status2Pending, 2000000, 100000, 0, afftrack.AmendedReasonIncorrectSaleValue},
			}
			if diff := cmp.Diff(wantStates, []state{of(x), of(y), of(z)}); diff != "" {
				t.Errorf("states of X, Y, Z (-want +got):\n%s", diff)
			}
		})
		t.Run("a failing row between two good ones leaves them applied and changes nothing itself", func(t *testing.T) {
			p, q, r := n.m2("AT-P", 100000), n.m2("AT-Q", 100000), n.m2("AT-R", 100000)
			got := n.validate(2, actor2, byID(p, afftrack.ActionApprove), byID(q, afftrack.ActionVoid),
				byID(r, afftrack.ActionApprove))
			want := []afftrack.ValidationResult{
				result(p, afftrack.Status2Locked),
				refused(q, afftrack.Status2Pending, fmt.Sprintf("VoidReason is required to void; use one of %s.",
					afftrack.VoidReasonNames())),
				result(r, afftrack.Status2Locked),
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(q, n.read(q)); diff != "" {
				t.Errorf("the failed row's transaction changed (-before +after):\n%s", diff)
			}
			if got := len(n.history(q.ID)); got != 1 {
				t.Errorf("the failed row's transaction has %d events, want 1 (its creation)", got)
			}
			if got := len(notificationsOf(t, db, q.ID)); got != 1 {
				t.Errorf("the failed row's transaction has %d notifications, want 1 (its creation)", got)
			}
			for _, tr := range []*afftrack.Transaction{p, r} {
				if s := n.read(tr).Status2; s != afftrack.Status2Locked {
					t.Errorf("transaction %s is %s, want Locked", tr.OrderID, s)
				}
			}
		})
		t.Run("no rows is no results", func(t *testing.T) {
			got, err := n.lc.Validate(ctx, 2, actor2, []afftrack.Validation{})
			if err != nil || len(got) != 0 {
				t.Errorf("Validate of no rows = %v, %v; want no results", got, err)
			}
		})
	})
}

func TestValidateRefuses(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		lcLoaded(t, db)
		n := newLCNet(t, db)
		const actor = afftrack.Actor("merchant:2 key k_two")
		pending := n.m2("RF-PENDING", 1000000)
		foreign := n.m1("RF-MERCHANT1", 1000000)
		locked, void := n.m2("RF-LOCKED", 1000000), n.m2("RF-VOID", 1000000)
		voidRow := byID(void, afftrack.ActionVoid)
		voidRow.VoidReason = afftrack.VoidReasonTestTransaction
		n.validate(2, actor, byID(locked, afftrack.ActionApprove), voidRow)
		before := map[int64]*afftrack.Transaction{}
		for _, tr := range []*afftrack.Transaction{pending, foreign, locked, void} {
			before[tr.ID] = n.read(tr)
		}
		events := countRows(t, db, "transaction_events")
		notifications := countRows(t, db, "notifications")

		with := func(v afftrack.Validation, edit func(v *afftrack.Validation)) afftrack.Validation {
			edit(&v)
			return v
		}
		notPending := "The transaction is %s; only a Pending transaction can be validated."
		tests := []struct {
			name string
			row  afftrack.Validation
			want afftrack.ValidationResult
		}{
			{"another merchant's transaction by Id is refused with no status", byID(foreign, afftrack.ActionApprove),
				afftrack.ValidationResult{ID: afftrack.Some(foreign.ID),
					Error: afftrack.Some(fmt.Sprintf("No transaction of this merchant has Id %d.", foreign.ID))}},
			{"another merchant's transaction by OrderId is refused with no status", byOrder("RF-MERCHANT1", afftrack.ActionApprove),
				afftrack.ValidationResult{OrderID: afftrack.Some("RF-MERCHANT1"),
					Error: afftrack.Some(`No transaction of this merchant has OrderId "RF-MERCHANT1".`)}},
			{"an unknown Id is refused with no status", afftrack.Validation{ID: afftrack.Some[int64](987654321), Action: afftrack.ActionApprove},
				afftrack.ValidationResult{ID: afftrack.Some[int64](987654321),
					Error: afftrack.Some("No transaction of this merchant has Id 987654321.")}},
			{"a row naming no transaction is refused", afftrack.Validation{Action: afftrack.ActionApprove},
				afftrack.ValidationResult{Error: afftrack.Some("Id or OrderId is required.")}},
			{"a Locked transaction cannot be voided and reports Locked",
				with(byID(locked, afftrack.ActionVoid), func(v *afftrack.Validation) { v.VoidReason = afftrack.VoidReasonCancelledOrder }),
				refused(locked, afftrack.Status2Locked, fmt.Sprintf(notPending, "Locked"))},
			{"a Locked transaction cannot be amended",
				with(byID(locked, afftrack.ActionAmend), func(v *afftrack.Validation) {
					v.AmendedReason, v.SaleValue = afftrack.AmendedReasonIncorrectSaleValue, afftrack.Some[afftrack.Money](10000)
				}),
				refused(locked, afftrack.Status2Locked, fmt.Sprintf(notPending, "Locked"))},
			{"a Void transaction cannot be approved and reports Void", byOrder("RF-VOID", afftrack.ActionApprove),
				refused(void, afftrack.Status2Void, fmt.Sprintf(notPending, "Void"))},
			{"a row with a Problem is refused with it and names no status",
				afftrack.Validation{ID: afftrack.Some(pending.ID), Action: afftrack.ActionApprove, Problem: "SaleValue: not a number"},
				afftrack.ValidationResult{ID: afftrack.Some(pending.ID), Error: afftrack.Some("SaleValue: not a number")}},
			{"Void without a VoidReason is refused", byID(pending, afftrack.ActionVoid),
				refused(pending, afftrack.Status2Pending, fmt.Sprintf("VoidReason is required to void; use one of %s.", afftrack.VoidReasonNames()))},
			{"Amend without an AmendedReason is refused",
				with(byID(pending, afftrack.ActionAmend), func(v *afftrack.Validation) { v.SaleValue = afftrack.Some[afftrack.Money](10000) }),
				refused(pending, afftrack.Status2Pending, fmt.Sprintf("AmendedReason is required to amend; use one of %s.", afftrack.AmendedReasonNames()))},
			{"Amend without a SaleValue or Items is refused",
				with(byID(pending, afftrack.ActionAmend), func(v *afftrack.Validation) { v.AmendedReason = afftrack.AmendedReasonIncorrectCommission }),
				refused(pending, afftrack.Status2Pending, "Amend needs a new SaleValue or Items.")},
			{"Amend whose SaleValue is not the sum of its Items is refused",
				with(byID(pending, afftrack.ActionAmend), func(v *afftrack.Validation) {
					v.AmendedReason, v.SaleValue = afftrack.AmendedReasonCartItemsEdited, afftrack.Some[afftrack.Money](100000)
					v.Items = []afftrack.ConversionItem{{Sku: "S", Quantity: 1, SaleValue: 999}}
				}),
				refused(pending, afftrack.Status2Pending, "SaleValue 10.0000 is not the sum of the Items' SaleValue (9.99).")},
			{"a row without an Action is refused", afftrack.Validation{ID: afftrack.Some(pending.ID)},
				refused(pending, afftrack.Status2Pending, fmt.Sprintf("Action is required; use one of %s.", afftrack.ValidationActionNames()))},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got := n.validate(2, actor, tt.row)
				if diff := cmp.Diff([]afftrack.ValidationResult{tt.want}, got); diff != "" {
					t.Errorf("results (-want +got):\n%s", diff)
				}
			})
		}
		t.Run("the refused rows changed nothing", func(t *testing.T) {
			for id, tr := range before {
				if diff := cmp.Diff(tr, n.read(tr)); diff != "" {
					t.Errorf("transaction %d changed (-before +after):\n%s", id, diff)
				}
			}
			if got := countRows(t, db, "transaction_events"); got != events {
				t.Errorf("%d events, want %d as before", got, events)
			}
			if got := countRows(t, db, "notifications"); got != notifications {
				t.Errorf("%d notifications, want %d as before", got, notifications)
			}
		})
		t.Run("a Pending transaction past its ValidationDate can no longer be voided or amended by the merchant", func(t *testing.T) {
			// pending's ValidationDate is 2024-08-14T12:00 (60 days); the merchant
			// validates a day later, before any scheduled run locked it.
			late := dt(t, "2024-08-15T12:00:00")
			lc := sqlstore.NewLifecycleService(db, "AUD", func() time.Time { return late })
			voidLate := byID(pending, afftrack.ActionVoid)
			voidLate.VoidReason = afftrack.VoidReasonCancelledOrder
			amendLate := byID(pending, afftrack.ActionAmend)
			amendLate.AmendedReason, amendLate.SaleValue = afftrack.AmendedReasonIncorrectSaleValue, afftrack.Some[afftrack.Money](10000)
			got, err := lc.Validate(context.Background(), 2, actor, []afftrack.Validation{voidLate, amendLate})
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range got {
				if !r.Error.Valid {
					t.Errorf("row %d: %+v applied, want an Error: at its ValidationDate the transaction is Locked", i, r)
				}
			}
			if after := n.read(pending); after.Status2 == afftrack.Status2Void || after.SaleValue != pending.SaleValue {
				t.Errorf("the transaction became %s with SaleValue %v after its ValidationDate", after.Status2, after.SaleValue)
			}
		})
	})
}

func TestHistory(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		lcLoaded(t, db)
		n := newLCNet(t, db)
		tr := n.record(afftrack.Conversion{MerchantID: 1, OrderID: "H-1", SaleValue: 1000000, CurrencyCode: "AUD",
			CustomerType: afftrack.CustomerTypeNew, CouponCode: "ANN10", Actor: "merchant:1 key k_conv"})
		amend := byID(tr, afftrack.ActionAmend)
		amend.AmendedReason, amend.SaleValue = afftrack.AmendedReasonIncorrectSaleValue, afftrack.Some[afftrack.Money](805555)
		n.validate(1, "merchant:1 key k_amend", amend)
		voided := dt(t, "2024-06-21T10:30:00.250")
		if err := n.lc.Void(ctx, tr.ID, afftrack.VoidReasonCancelledOrder, afftrack.ActorOperator, voided); err != nil {
			t.Fatal(err)
		}

		t.Run("the creation comes first, then each change with who, when, why and the amounts", func(t *testing.T) {
			want := []afftrack.TransactionEvent{
				{TransactionID: tr.ID, At: dt(t, trackingNow), Actor: "merchant:1 key k_conv", To: afftrack.Status2Pending,
					ToSaleValue: 1000000, ToCommission: 100000, Reason: reasonClickless},
				{TransactionID: tr.ID, At: n.later, Actor: "merchant:1 key k_amend", From: afftrack.Status2Pending,
					To: afftrack.Status2Pending, FromSaleValue: 1000000, ToSaleValue: 805555, FromCommission: 100000,
					ToCommission: 80556, Reason: "Incorrect Sale Value"},
				{TransactionID: tr.ID, At: voided, Actor: afftrack.ActorOperator, From: afftrack.Status2Pending,
					To: afftrack.Status2Void, FromSaleValue: 805555, ToSaleValue: 805555, FromCommission: 80556,
					ToCommission: 80556, Reason: "Cancelled Order"},
			}
			if diff := cmp.Diff(want, n.history(tr.ID)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
		t.Run("a conversion reported by the pixel is recorded as the merchant's pixel", func(t *testing.T) {
			px := n.record(afftrack.Conversion{MerchantID: 2, OrderID: "H-PX", SaleValue: 100000, CurrencyCode: "AUD",
				CustomerType: afftrack.CustomerTypeNew, ClickID: testClickID(clickOtherMerchant), Pixel: true})
			want := []afftrack.TransactionEvent{created(px, "merchant:2 pixel", "conversion Cookie")}
			if diff := cmp.Diff(want, n.history(px.ID)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
		t.Run("an imported transaction has an empty history", func(t *testing.T) {
			mustImport(t, db, &afftrack.Dataset{Transactions: []afftrack.TransactionRecord{
				lcImported(t, 50001, 2, "2024-01-01T00:00:00", "2024-03-01T00:00:00", afftrack.Status2Pending)}})
			if diff := cmp.Diff([]afftrack.TransactionEvent{}, n.history(50001)); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
		t.Run("the history of an unknown transaction is not found", func(t *testing.T) {
			_, err := n.lc.History(ctx, 987654321)
			wantCode(t, err, afftrack.ENOTFOUND)
		})
	})
}

// lcImported is a transaction of an import file: affiliate 1's, created
// and validated at the given times, 10.0000 with 1.0000 commission.
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

func TestNetworkVoid(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		lcLoaded(t, db)
		n := newLCNet(t, db)
		states := []afftrack.TransactionStatus2{afftrack.Status2Pending, afftrack.Status2Locked, afftrack.Status2Approved,
			afftrack.Status2Paid, afftrack.Status2Void}
		var imported afftrack.Dataset
		for i, s := range states {
			imported.Transactions = append(imported.Transactions,
				lcImported(t, int64(801+i), 2, "2024-06-01T00:00:00", "2024-09-01T00:00:00", s))
		}
		mustImport(t, db, &imported)
		read := func(id int64) *afftrack.Transaction { return n.read(&afftrack.Transaction{ID: id, MerchantID: 2}) }
		at := dt(t, "2024-06-22T08:00:00")

		for i, s := range states[:3] {
			id := int64(801 + i)
			t.Run(fmt.Sprintf("a %s transaction is voided with the reason", s), func(t *testing.T) {
				before := read(id)
				if err := n.lc.Void(ctx, id, afftrack.VoidReasonSelfReferral, afftrack.ActorOperator, at); err != nil {
					t.Fatalf("Void: %v", err)
				}
				want := *before
				want.Status2, want.VoidReason, want.DateModified = afftrack.Status2Void, afftrack.VoidReasonSelfReferral, at
				if diff := cmp.Diff(&want, read(id)); diff != "" {
					t.Errorf("transaction (-want +got):\n%s", diff)
				}
				wantEvents := []afftrack.TransactionEvent{event(before, at, afftrack.ActorOperator, s, afftrack.Status2Void,
					"Self Referral")}
				if diff := cmp.Diff(wantEvents, n.history(id)); diff != "" {
					t.Errorf("history (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]notificationRow{notified(before, "Void", "10.0000")}, notificationsOf(t, db, id)); diff != "" {
					t.Errorf("notifications (-want +got):\n%s", diff)
				}
			})
		}
		tests := []struct {
			name   string
			id     int64
			reason afftrack.VoidReason
			code   string
		}{
			{"a Paid transaction cannot be voided", 804, afftrack.VoidReasonCancelledOrder, afftrack.ECONFLICT},
			{"a Void transaction cannot be voided again", 805, afftrack.VoidReasonCancelledOrder, afftrack.ECONFLICT},
			{"an unknown transaction is not found", 987654321, afftrack.VoidReasonCancelledOrder, afftrack.ENOTFOUND},
			{"a void without a reason is invalid", 801 + 10, 0, afftrack.EINVALID},
		}
		mustImport(t, db, &afftrack.Dataset{Transactions: []afftrack.TransactionRecord{
			lcImported(t, 811, 2, "2024-06-01T00:00:00", "2024-09-01T00:00:00", afftrack.Status2Pending)}})
		for _, tt := range tests {
			t.Run(tt.name+" and changes nothing", func(t *testing.T) {
				events, notifications := countRows(t, db, "transaction_events"), countRows(t, db, "notifications")
				var before *afftrack.Transaction
				if tt.code != afftrack.ENOTFOUND {
					before = read(tt.id)
				}
				err := n.lc.Void(ctx, tt.id, tt.reason, afftrack.ActorOperator, at)
				wantCode(t, err, tt.code)
				if before != nil {
					if diff := cmp.Diff(before, read(tt.id)); diff != "" {
						t.Errorf("transaction changed (-before +after):\n%s", diff)
					}
				}
				if got := countRows(t, db, "transaction_events"); got != events {
					t.Errorf("%d events, want %d as before", got, events)
				}
				if got := countRows(t, db, "notifications"); got != notifications {
					t.Errorf("%d notifications, want %d as before", got, notifications)
				}
			})
		}
	})
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
			got, err := out.ClaimNotifications(ctx, at, max, lease)
			if err != nil {
				t.Fatalf("ClaimNotifications: %v", err)
			}
			if got == nil {
				got = []afftrack.Notification{}
			}
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
	})
}

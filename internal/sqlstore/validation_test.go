package sqlstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

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
		t.Run("Void by an OrderId as long as an import allows finds its transaction", func(t *testing.T) {
			// 4,096 bytes of little repetition: more than a PostgreSQL
			// B-tree entry holds, which migration 0015 must not need.
			var long strings.Builder
			for i := 0; long.Len() < afftrack.MaxText; i++ {
				fmt.Fprintf(&long, "%08x", uint32(i)*2654435761)
			}
			order := long.String()[:afftrack.MaxText]
			tr := n.m2("LONG-1", 1000000)
			if _, err := db.SQL().ExecContext(ctx, `UPDATE transactions SET order_id = $1 WHERE id = $2`, order, tr.ID); err != nil {
				t.Fatalf("an OrderId of %d bytes: %v", len(order), err)
			}
			tr.OrderID = order
			row := byOrder(order, afftrack.ActionVoid)
			row.VoidReason = afftrack.VoidReasonReturnedOrderUnclaimedShipment
			if diff := cmp.Diff([]afftrack.ValidationResult{result(tr, afftrack.Status2Void)}, n.validate(2, actor2, row)); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
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
				refused(z, afftrack.Status2Pending, "Action: \"Bless\" is wrong"),
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
			{"a row with a Problem is refused with it and names the transaction's status",
				afftrack.Validation{ID: afftrack.Some(pending.ID), Action: afftrack.ActionApprove, Problem: "SaleValue: not a number"},
				refused(pending, afftrack.Status2Pending, "SaleValue: not a number")},
			{"a row whose Id and OrderId disagree is refused",
				afftrack.Validation{ID: afftrack.Some(pending.ID), OrderID: afftrack.Some("RF-LOCKED"), Action: afftrack.ActionApprove},
				refused(pending, afftrack.Status2Pending,
					fmt.Sprintf(`Id %d is the transaction of OrderId "RF-PENDING", not "RF-LOCKED".`, pending.ID))},
			{"Amend whose Items add up to 0 is refused",
				with(byID(pending, afftrack.ActionAmend), func(v *afftrack.Validation) {
					v.AmendedReason = afftrack.AmendedReasonCartItemsEdited
					v.Items = []afftrack.ConversionItem{{Sku: "S", Quantity: 1, SaleValue: 0}}
				}),
				refused(pending, afftrack.Status2Pending, "The Items' SaleValue add up to 0.00; a sale must be greater than 0 and at most 1000000000000.")},
			{"Amend whose Items add up beyond the largest sale is refused",
				with(byID(pending, afftrack.ActionAmend), func(v *afftrack.Validation) {
					v.AmendedReason = afftrack.AmendedReasonCartItemsEdited
					big := afftrack.ItemMoney(int64(afftrack.MaxSaleValue) / 100)
					v.Items = []afftrack.ConversionItem{{Sku: "A", Quantity: 1, SaleValue: big}, {Sku: "B", Quantity: 1, SaleValue: big}}
				}),
				refused(pending, afftrack.Status2Pending,
					"The Items' SaleValue add up to 2000000000000.00; a sale must be greater than 0 and at most 1000000000000.")},
			{"Amend to a SaleValue beyond the largest sale is refused",
				with(byID(pending, afftrack.ActionAmend), func(v *afftrack.Validation) {
					v.AmendedReason, v.SaleValue = afftrack.AmendedReasonIncorrectSaleValue, afftrack.Some(afftrack.MaxSaleValue+1)
				}),
				refused(pending, afftrack.Status2Pending, "SaleValue 1000000000000.0001 must be greater than 0 and at most 1000000000000.")},
			{"an OrderId that is not UTF-8 is refused, shown cleaned",
				byOrder("CAF\xc9-1", afftrack.ActionApprove),
				afftrack.ValidationResult{OrderID: afftrack.Some("CAF\uFFFD-1"),
					Error: afftrack.Some("OrderId \"CAF\uFFFD-1\" holds a character that cannot be stored (a control character or invalid UTF-8).")}},
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
			// The answer's Status2 is what its Error says, though the
			// transaction is stored Pending until a scheduled run.
			const pastDue = "The transaction's ValidationDate has passed; it is Locked and can no longer be voided or amended."
			want := []afftrack.ValidationResult{refused(pending, afftrack.Status2Locked, pastDue),
				refused(pending, afftrack.Status2Locked, pastDue)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			if after := n.read(pending); after.Status2 == afftrack.Status2Void || after.SaleValue != pending.SaleValue {
				t.Errorf("the transaction became %s with SaleValue %v after its ValidationDate", after.Status2, after.SaleValue)
			}
			t.Run("and a row without an Action is told that first", func(t *testing.T) {
				got, err := lc.Validate(context.Background(), 2, actor, []afftrack.Validation{{ID: afftrack.Some(pending.ID)}})
				if err != nil {
					t.Fatal(err)
				}
				want := []afftrack.ValidationResult{refused(pending, afftrack.Status2Pending,
					fmt.Sprintf("Action is required; use one of %s.", afftrack.ValidationActionNames()))}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("results (-want +got):\n%s", diff)
				}
			})
			t.Run("and an Approve is applied, recording the lock, and answers Locked", func(t *testing.T) {
				got, err := lc.Validate(context.Background(), 2, actor, []afftrack.Validation{byID(pending, afftrack.ActionApprove)})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]afftrack.ValidationResult{result(pending, afftrack.Status2Locked)}, got); diff != "" {
					t.Errorf("results (-want +got):\n%s", diff)
				}
				if s := n.read(pending).Status2; s != afftrack.Status2Locked {
					t.Errorf("the transaction is %s, want Locked", s)
				}
			})
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

// TestValidateConcurrently races, for each of 60 Pending transactions, an
// Approve against a Void or an Amend, or two Amends, from two replicas:
// every row that answers without an Error is what the transaction shows
// afterwards, with one event each, each event starting where the one
// before it ended, and a row that lost answers so and wrote nothing.
func TestValidateConcurrently(t *testing.T) {
	const pairs = 60
	const actor = afftrack.Actor("merchant:2 key k_two")
	run := func(t *testing.T, db1, db2 *sqlstore.DB) {
		lcLoaded(t, db1)
		var imported afftrack.Dataset
		for i := range pairs {
			imported.Transactions = append(imported.Transactions,
				lcImported(t, int64(20000+i), 2, "2024-06-01T00:00:00", "2024-12-01T00:00:00", afftrack.Status2Pending))
		}
		mustImport(t, db1, &imported)
		now := dt(t, trackingNow)
		for i := range pairs {
			id := int64(20000 + i)
			rows := []afftrack.Validation{{ID: afftrack.Some(id), Action: afftrack.ActionApprove},
				{ID: afftrack.Some(id), Action: afftrack.ActionVoid, VoidReason: afftrack.VoidReasonTestTransaction}}
			amend := func(sale afftrack.Money) afftrack.Validation {
				return afftrack.Validation{ID: afftrack.Some(id), Action: afftrack.ActionAmend,
					AmendedReason: afftrack.AmendedReasonIncorrectSaleValue, SaleValue: afftrack.Some(sale)}
			}
			switch i % 3 {
			case 1:
				rows[1] = amend(50000)
			case 2:
				rows = []afftrack.Validation{amend(50000), amend(70000)}
			}
			var results [2]afftrack.ValidationResult
			var errs [2]error
			var wg sync.WaitGroup
			start := make(chan struct{})
			for j, db := range []*sqlstore.DB{db1, db2} {
				lc := sqlstore.NewLifecycleService(db, "AUD", func() time.Time { return now })
				wg.Go(func() {
					<-start
					got, err := lc.Validate(context.Background(), 2, actor, rows[j:j+1])
					if errs[j] = err; err == nil {
						results[j] = got[0]
					}
				})
			}
			close(start)
			wg.Wait()
			var status, sale int64
			var events int
			if err := db1.SQL().QueryRow(`SELECT status2, sale_value,
				(SELECT COUNT(*) FROM transaction_events e WHERE e.transaction_id = t.id)
			FROM transactions t WHERE id = $1`, id).Scan(&status, &sale, &events); err != nil {
				t.Fatal(err)
			}
			applied := 0
			for j, r := range results {
				if errs[j] != nil {
					t.Fatalf("transaction %d, %s: %v", id, rows[j].Action, errs[j])
				}
				if r.Error.Valid {
					continue
				}
				applied++
				switch rows[j].Action {
				case afftrack.ActionVoid:
					if afftrack.TransactionStatus2(status) != afftrack.Status2Void {
						t.Errorf("transaction %d: the Void answered applied, and the transaction is %s", id, afftrack.TransactionStatus2(status))
					}
				case afftrack.ActionAmend:
					if i%3 == 1 && sale != 50000 {
						t.Errorf("transaction %d: the Amend answered applied, and SaleValue is %d", id, sale)
					}
				case afftrack.ActionApprove:
					if afftrack.TransactionStatus2(status) != afftrack.Status2Locked {
						t.Errorf("transaction %d: the Approve answered applied, and the transaction is %s", id, afftrack.TransactionStatus2(status))
					}
				}
			}
			if applied == 0 || events != applied {
				t.Errorf("transaction %d: %d rows applied and %d events (%+v)", id, applied, events, results)
			}
			// No change was made over another unseen: each event starts
			// from the amounts the one before it left.
			evs, err := db1.SQL().Query(`SELECT from_sale_value, to_sale_value FROM transaction_events
			WHERE transaction_id = $1 ORDER BY id`, id)
			if err != nil {
				t.Fatal(err)
			}
			last := int64(100000)
			for evs.Next() {
				var from, to int64
				if err := evs.Scan(&from, &to); err != nil {
					t.Fatal(err)
				}
				if from != last {
					t.Errorf("transaction %d: an event from SaleValue %d after one that left %d", id, from, last)
				}
				last = to
			}
			if err := evs.Close(); err != nil {
				t.Fatal(err)
			}
			if last != sale {
				t.Errorf("transaction %d: the events end at SaleValue %d, the transaction holds %d", id, last, sale)
			}
		}
	}
	eachReplicaPair(t, run)
}

package sqlstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// TestMoneyStaysExact runs thousands of random conversions, amendments,
// validations, voids, releases and payout runs (two of them at once), then
// checks the books: each invoice's SubTotal is the sum of its
// transactions' commissions and its Total adds the GST; every Paid
// transaction is on exactly one invoice and was paid once; nothing is
// lost; every transaction's history ends in its status.
func TestMoneyStaysExact(t *testing.T) {
	conversions := 2000
	if testing.Short() {
		conversions = 300
	}
	ctx := context.Background()
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		rng := rand.New(rand.NewPCG(7, 11))
		now := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
		var mu sync.Mutex
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }

		d := &afftrack.Dataset{
			Merchants: []afftrack.MerchantRecord{{Merchant: afftrack.Merchant{ID: 1, Name: "M", Status: afftrack.AccountActive}}},
			Programs: []afftrack.Program{{MerchantID: 1, TargetURL: "https://m.example/", CookieDays: 30, ValidationDays: 5,
				Commission: afftrack.CommissionRule{Percent: afftrack.Some[afftrack.Percent](73333)},
				Rules: []afftrack.CommissionRule{
					{Category: afftrack.Some("A"), Percent: afftrack.Some[afftrack.Percent](125000)},
					{Category: afftrack.Some("B"), Flat: afftrack.Some[afftrack.Money](33333)},
					{AffiliateID: afftrack.Some[int64](3), Percent: afftrack.Some[afftrack.Percent](33333)},
				},
				OverrideFeePercent: 171717}},
			CurrencyRates: []afftrack.CurrencyRate{{Code: "USD", Date: now.AddDate(0, 0, -10), Rate: 151234567}},
		}
		for a := int64(1); a <= 8; a++ {
			d.Affiliates = append(d.Affiliates, afftrack.AffiliateRecord{Affiliate: afftrack.Affiliate{ID: a,
				ContactName: fmt.Sprint("A", a), Status: afftrack.AccountActive, GSTRegistered: a%2 == 0}})
			d.Memberships = append(d.Memberships, afftrack.Membership{AffiliateID: a, MerchantID: 1,
				Status: afftrack.MembershipJoined, TrafficType: afftrack.TrafficTypeWebsite, TrafficSourceApproved: true})
			d.Coupons = append(d.Coupons, afftrack.Coupon{ID: a, MerchantID: 1, Code: fmt.Sprint("C", a),
				AffiliateID: afftrack.Some(a)})
		}
		if _, err := sqlstore.NewImportService(db).Import(ctx, d); err != nil {
			t.Fatal(err)
		}
		conv := sqlstore.NewConversionService(db, "AUD", clock)
		life := sqlstore.NewLifecycleService(db, "AUD", clock)
		pay := sqlstore.NewPayoutService(db)

		randItems := func() []afftrack.ConversionItem {
			var items []afftrack.ConversionItem
			for range rng.IntN(4) {
				items = append(items, afftrack.ConversionItem{Sku: "S", Quantity: 1 + rng.Int64N(3),
					SaleValue: afftrack.ItemMoney(rng.Int64N(100000)), Category: []string{"", "A", "B", "C"}[rng.IntN(4)]})
			}
			return items
		}
		created := 0
		for i := range conversions {
			c := &afftrack.Conversion{MerchantID: 1, OrderID: fmt.Sprint("O", i), CurrencyCode: "AUD",
				CustomerType: afftrack.CustomerTypeNew, CouponCode: fmt.Sprint("C", 1+rng.IntN(8))}
			if rng.IntN(3) == 0 {
				c.CurrencyCode = "USD"
			}
			c.Items = randItems()
			if len(c.Items) == 0 {
				c.SaleValue = afftrack.Money(1 + rng.Int64N(100_000_000))
			} else {
				var sum int64
				for _, it := range c.Items {
					sum += int64(it.SaleValue)
				}
				c.SaleValue = afftrack.Money(max(sum, 1) * 100)
				if sum == 0 {
					c.Items = nil
				}
			}
			if _, _, err := conv.RecordConversion(ctx, c); err != nil {
				t.Fatalf("conversion %d: %v", i, err)
			}
			created++
			var rows []afftrack.Validation
			switch rng.IntN(6) {
			case 0:
				rows = append(rows, afftrack.Validation{OrderID: afftrack.Some(c.OrderID), Action: afftrack.ActionApprove})
			case 1:
				rows = append(rows, afftrack.Validation{OrderID: afftrack.Some(c.OrderID), Action: afftrack.ActionVoid,
					VoidReason: afftrack.VoidReason(1 + rng.IntN(3))})
			case 2:
				v := afftrack.Validation{OrderID: afftrack.Some(c.OrderID), Action: afftrack.ActionAmend,
					AmendedReason: afftrack.AmendedReason(1 + rng.IntN(3)), Items: randItems()}
				if len(v.Items) == 0 || len(c.Items) == 0 {
					v.Items = nil
					if len(c.Items) == 0 {
						v.SaleValue = afftrack.Some(afftrack.Money(1 + rng.Int64N(50_000_000)))
					}
				}
				rows = append(rows, v)
			}
			if rows != nil {
				if _, err := life.Validate(ctx, 1, "merchant:1", rows); err != nil {
					t.Fatalf("validate %d: %v", i, err)
				}
			}
			if i%97 == 0 {
				advance(24 * time.Hour)
				if _, err := life.LockDue(ctx, clock()); err != nil {
					t.Fatal(err)
				}
				if _, err := life.Release(ctx, 1, afftrack.Some(clock().AddDate(0, 0, -2)), afftrack.ActorOperator, clock()); err != nil {
					t.Fatal(err)
				}
				if rng.IntN(5) == 0 {
					tid := int64(1 + rng.IntN(created))
					err := life.Void(ctx, tid, afftrack.VoidReason(1+rng.IntN(3)), afftrack.ActorOperator, clock())
					if err != nil && afftrack.ErrorCode(err) != afftrack.ECONFLICT {
						t.Fatal(err)
					}
				}
			}
			if i%331 == 0 {
				run := afftrack.PayoutRun{UpTo: clock().AddDate(0, 0, -3), Minimum: afftrack.Money(rng.Int64N(2_000_000)),
					InvoicePrefix: "AT", GSTPercent: 100000, Now: clock(), Actor: afftrack.ActorOperator}
				var wg sync.WaitGroup
				for range 2 { // two runs at once pay nothing twice
					wg.Add(1)
					go func() {
						defer wg.Done()
						if _, err := pay.RunPayouts(ctx, run); err != nil {
							t.Error(err)
						}
					}()
				}
				wg.Wait()
			}
		}
		advance(30 * 24 * time.Hour)
		life.LockDue(ctx, clock())
		life.Release(ctx, 1, afftrack.Null[time.Time]{}, afftrack.ActorOperator, clock())
		if _, err := pay.RunPayouts(ctx, afftrack.PayoutRun{UpTo: clock(), InvoicePrefix: "AT", GSTPercent: 100000,
			Now: clock(), Actor: afftrack.ActorOperator}); err != nil {
			t.Fatal(err)
		}
		checkBooks(t, db, created)
	})
}

// checkBooks checks the invariants of the money after TestMoneyStaysExact.
func checkBooks(t *testing.T, db *sqlstore.DB, created int) {
	t.Helper()
	q := db.SQL()
	one := func(query string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := q.QueryRow(query, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return n
	}
	if n := one(`SELECT COUNT(*) FROM transactions`); n != int64(created) {
		t.Errorf("%d transactions stored, want %d: none lost, none added", n, created)
	}
	if n := one(`SELECT COUNT(*) FROM invoices i WHERE i.sub_total <>
		(SELECT COALESCE(SUM(t.commission), 0) FROM transactions t WHERE t.invoice_id = i.id)`); n != 0 {
		t.Errorf("%d invoices whose SubTotal is not the sum of their transactions' commissions", n)
	}
	if n := one(`SELECT COUNT(*) FROM invoices WHERE total <> sub_total + COALESCE(gst, 0)`); n != 0 {
		t.Errorf("%d invoices whose Total is not SubTotal + GST", n)
	}
	if n := one(`SELECT COUNT(*) FROM invoices i JOIN affiliates a ON a.id = i.affiliate_id
		WHERE (a.gst_registered AND i.gst <> (i.sub_total * 10 + CASE WHEN i.sub_total >= 0 THEN 50 ELSE -50 END) / 100)
		OR (NOT a.gst_registered AND i.gst IS NOT NULL)`); n != 0 {
		t.Errorf("%d invoices whose GST is not 10%% of SubTotal, rounded half away from zero, for registered affiliates only", n)
	}
	if n := one(`SELECT COUNT(*) FROM transactions WHERE (status2 = $1) <> (invoice_id IS NOT NULL)`,
		int64(afftrack.Status2Paid)); n != 0 {
		t.Errorf("%d transactions Paid without an invoice, or with an invoice and not Paid", n)
	}
	if n := one(`SELECT COUNT(*) FROM transactions t WHERE t.status2 = $1 AND NOT EXISTS
		(SELECT 1 FROM invoices i WHERE i.id = t.invoice_id AND i.affiliate_id = t.affiliate_id)`, int64(afftrack.Status2Paid)); n != 0 {
		t.Errorf("%d Paid transactions whose invoice is missing or another affiliate's", n)
	}
	if n := one(`SELECT COUNT(*) FROM (SELECT transaction_id FROM transaction_events WHERE to_status = $1
		GROUP BY transaction_id HAVING COUNT(*) > 1) twice`, int64(afftrack.Status2Paid)); n != 0 {
		t.Errorf("%d transactions paid more than once", n)
	}
	if n := one(`SELECT COUNT(*) FROM transactions t WHERE t.status2 <> (SELECT e.to_status FROM transaction_events e
		WHERE e.transaction_id = t.id ORDER BY e.id DESC LIMIT 1)`); n != 0 {
		t.Errorf("%d transactions whose history does not end in their status", n)
	}
	if n := one(`SELECT COUNT(*) FROM transactions t WHERE t.commission <> (SELECT e.to_commission FROM transaction_events e
		WHERE e.transaction_id = t.id ORDER BY e.id DESC LIMIT 1)`); n != 0 {
		t.Errorf("%d transactions whose history does not end in their commission", n)
	}
	paid := one(`SELECT COUNT(*) FROM transactions WHERE status2 = $1`, int64(afftrack.Status2Paid))
	invoices := one(`SELECT COUNT(*) FROM invoices`)
	if paid == 0 || invoices == 0 {
		t.Errorf("the run paid %d transactions on %d invoices; the test must exercise payouts", paid, invoices)
	}
	t.Logf("%d transactions, %d paid on %d invoices", created, paid, invoices)
}

package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// waitForWaiting waits until n conversions of s wait to be written.
func waitForWaiting(t *testing.T, s *sqlstore.ConversionService, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for sqlstore.ConversionsWaiting(s) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d conversions wait to be written, want %d", sqlstore.ConversionsWaiting(s), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestConversionsWrittenTogether(t *testing.T) {
	const n = 8
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		conversionLoaded(t, db)
		s := sqlstore.NewConversionService(db, "AUD", trackingClock(t))
		// conv is a conversion with as many items as its OrderId's last
		// digit, so that a group writes items of several transactions.
		conv := func(order string) afftrack.Conversion {
			c := afftrack.Conversion{MerchantID: 1, ClickID: testClickID(clickBanner), OrderID: order,
				SaleValue: 100000, CurrencyCode: "AUD", CustomerType: afftrack.CustomerTypeNew}
			n := int(order[len(order)-1]-'0') % 4
			for i := range n {
				c.Items = append(c.Items, afftrack.ConversionItem{Sku: fmt.Sprintf("SKU-%d", i), Quantity: 1,
					SaleValue: afftrack.ItemMoney(100000 / n), Category: "Books"})
			}
			if n > 0 {
				c.SaleValue = afftrack.Money(100000 / n * n)
			}
			return c
		}
		// held records the conversions orders made while writes are held,
		// so that all of them wait, then lets them be written.
		held := func(orders []string) ([]*afftrack.Transaction, []bool, []error) {
			got, created, errs := make([]*afftrack.Transaction, len(orders)), make([]bool, len(orders)), make([]error, len(orders))
			release := sqlstore.HoldConversionWrites(s)
			var wg sync.WaitGroup
			for i, order := range orders {
				wg.Go(func() {
					c := conv(order)
					got[i], created[i], errs[i] = s.RecordConversion(context.Background(), &c)
				})
			}
			waitForWaiting(t, s, len(orders))
			release()
			wg.Wait()
			return got, created, errs
		}

		t.Run("conversions that arrive while one is written wait and are written together", func(t *testing.T) {
			before := storedCounts(t, db)
			orders := make([]string, n)
			for i := range orders {
				orders[i] = fmt.Sprintf("GROUP-%d", i)
			}
			got, created, errs := held(orders)
			ids := map[int64]bool{}
			for i := range orders {
				if errs[i] != nil || !created[i] {
					t.Fatalf("conversion %d: created %v, %v; want created", i, created[i], errs[i])
				}
				if got[i].OrderID != orders[i] {
					t.Errorf("conversion %d got the transaction of OrderId %q", i, got[i].OrderID)
				}
				ids[got[i].ID] = true
			}
			if len(ids) != n {
				t.Errorf("%d distinct transaction ids, want %d", len(ids), n)
			}
			if c := storedCounts(t, db); c != [2]int64{before[0] + n, before[1] + n} {
				t.Errorf("rows of transactions, conversions = %v, want %v", c, [2]int64{before[0] + n, before[1] + n})
			}
			txs := sqlstore.NewTransactionService(db)
			for i := range orders {
				stored, err := txs.FindTransactionByID(context.Background(), 1, got[i].ID)
				if err != nil {
					t.Fatalf("transaction %d: %v", got[i].ID, err)
				}
				if diff := cmp.Diff(got[i], stored); diff != "" {
					t.Errorf("transaction %d reads back otherwise than it was answered (-answered +stored):\n%s",
						got[i].ID, diff)
				}
			}
		})
		t.Run("a conversion that fails in a group fails alone: the others are written", func(t *testing.T) {
			before := storedCounts(t, db)
			// The two of one OrderId both find it free, so their group
			// fails on the conversions key; written again one by one, the
			// second finds the first's.
			orders := []string{"SOLO-1", "SOLO-DUP", "SOLO-2", "SOLO-DUP", "SOLO-3"}
			got, created, errs := held(orders)
			won := 0
			for i, order := range orders {
				if errs[i] != nil {
					t.Fatalf("conversion %d (%s): %v", i, order, errs[i])
				}
				if order == "SOLO-DUP" {
					if created[i] {
						won++
					}
					continue
				}
				if !created[i] {
					t.Errorf("conversion %d (%s): created = false, want true", i, order)
				}
			}
			if won != 1 {
				t.Errorf("%d conversions of SOLO-DUP created, want 1", won)
			}
			if got[1].ID != got[3].ID {
				t.Errorf("the two conversions of SOLO-DUP got transactions %d and %d, want one", got[1].ID, got[3].ID)
			}
			if c := storedCounts(t, db); c != [2]int64{before[0] + 4, before[1] + 4} {
				t.Errorf("rows of transactions, conversions = %v, want %v", c, [2]int64{before[0] + 4, before[1] + 4})
			}
		})
		t.Run("a conversion whose request ends while it waits is withdrawn and nothing of it is stored", func(t *testing.T) {
			before := storedCounts(t, db)
			release := sqlstore.HoldConversionWrites(s)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				c := conv("GONE")
				_, _, err := s.RecordConversion(ctx, &c)
				done <- err
			}()
			waitForWaiting(t, s, 1)
			cancel()
			err := <-done
			release()
			if !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
			if w := sqlstore.ConversionsWaiting(s); w != 0 {
				t.Errorf("%d conversions still wait, want 0", w)
			}
			// A later conversion leads a group of its own, without GONE.
			c := conv("AFTER-GONE")
			if _, created, err := s.RecordConversion(context.Background(), &c); err != nil || !created {
				t.Fatalf("a later conversion: created %v, %v", created, err)
			}
			if c := storedCounts(t, db); c != [2]int64{before[0] + 1, before[1] + 1} {
				t.Errorf("rows of transactions, conversions = %v, want %v", c, [2]int64{before[0] + 1, before[1] + 1})
			}
		})
	})
}

func TestConversionNotificationIsItsStoredTransactions(t *testing.T) {
	// Every shortcode: the URL is expanded from the transaction before it
	// is written, and must be what its row, read back, expands to.
	const template = "https://hooks.example/all?tx=[TransactionId]&m=[MerchantId]&o=[OrderId]&s=[SaleValue]" +
		"&c=[Commission]&st=[Status2]&cr=[CreativeId]&u1=[UniqueId]&u2=[UniqueId2]&u3=[UniqueId3]&u4=[UniqueId4]" +
		"&at=[DateCreated]"
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := trackingDataset(t)
		d.Affiliates[0].NotificationURL = template
		mustImport(t, db, d)
		if err := sqlstore.NewClickService(db).WriteClicks(context.Background(), conversionClicks(t)); err != nil {
			t.Fatal(err)
		}
		s := sqlstore.NewConversionService(db, "AUD", trackingClock(t))
		c := afftrack.Conversion{MerchantID: 1, ClickID: testClickID(clickBanner), OrderID: "NOTIFY-ALL",
			SaleValue: 1234567, CurrencyCode: "AUD", CustomerType: afftrack.CustomerTypeNew}
		tr, created, err := s.RecordConversion(context.Background(), &c)
		if err != nil || !created {
			t.Fatalf("created %v, %v", created, err)
		}
		stored, err := sqlstore.NewTransactionService(db).FindTransactionByID(context.Background(), 1, tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		// The merchant's view leaves the affiliate's UniqueIds out.
		var unique [4]string
		if err := db.SQL().QueryRow(`SELECT unique_id, unique_id2, unique_id3, unique_id4 FROM transactions
		WHERE id = $1`, tr.ID).Scan(&unique[0], &unique[1], &unique[2], &unique[3]); err != nil {
			t.Fatal(err)
		}
		if unique != [4]string{"u-1", "u-2", "u-3", "u-4"} {
			t.Fatalf("stored UniqueIds %v, want the click's", unique)
		}
		want := []notificationRow{{AffiliateID: 1, TransactionID: tr.ID,
			URL: afftrack.ExpandNotificationURL(template, stored, unique)}}
		if diff := cmp.Diff(want, notificationsOf(t, db, tr.ID)); diff != "" {
			t.Errorf("notifications (-want +got):\n%s", diff)
		}
	})
}

// TestAConversionTheDiskHasNoSpaceFor: a conversion the database refuses
// for want of space is unavailable, to be sent again, not an internal
// error; nothing of it is stored, and the conversions before it stay.
func TestAConversionTheDiskHasNoSpaceFor(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, storetest.SQLite)
	conversionLoaded(t, db)
	s := sqlstore.NewConversionService(db, "AUD", trackingClock(t))
	if err := sqlstore.FillWriter(ctx, db); err != nil {
		t.Fatal(err)
	}
	// The file's last pages have room for a few rows: conversions are
	// sent until one needs a page more.
	for i := range 1000 {
		before := storedCounts(t, db)
		c := afftrack.Conversion{MerchantID: 1, ClickID: testClickID(clickBanner), OrderID: fmt.Sprintf("full-%d", i),
			SaleValue: 100000, CurrencyCode: "AUD", CustomerType: afftrack.CustomerTypeNew}
		_, _, err := s.RecordConversion(ctx, &c)
		if err == nil {
			continue
		}
		if code := afftrack.ErrorCode(err); code != afftrack.EUNAVAILABLE ||
			!strings.Contains(afftrack.ErrorMessage(err), "no space left") {
			t.Errorf("conversion %d on a full disk: %s %q, want unavailable saying there is no space", i,
				code, afftrack.ErrorMessage(err))
		}
		if got := storedCounts(t, db); got != before {
			t.Errorf("transactions and conversions stored: %v after the refused conversion, %v before", got, before)
		}
		if got := countRows(t, db, "transactions"); i > 0 && got == 0 {
			t.Error("no transaction stored of the conversions before it")
		}
		return
	}
	t.Fatal("1,000 conversions all stored on a full disk")
}

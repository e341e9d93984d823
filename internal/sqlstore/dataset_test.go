package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

func TestImportSummary(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		d := fixture(t)
		got := mustImport(t, db, d)
		want := afftrack.ImportSummary{Merchants: 2, Affiliates: 3, Memberships: 4, Transactions: 7, Banners: 4,
			Invoices: 3, Keys: 4, NewBannerGroups: 3}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("first import (-want +got):\n%s", diff)
		}
		// Re-running the same file is safe and adds no key or group.
		got = mustImport(t, db, d)
		want.Keys, want.NewBannerGroups = 0, 0
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("second import (-want +got):\n%s", diff)
		}
		for table, n := range map[string]int64{"merchants": 2, "affiliates": 3, "memberships": 4, "api_keys": 4,
			"transactions": 7, "banners": 4, "invoices": 3, "banner_groups": 3} {
			if got := countRows(t, db, table); got != n {
				t.Errorf("%s holds %d rows after two imports, want %d", table, got, n)
			}
		}
	})
}

func TestImportReplaces(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		d := loaded(t, db)
		ctx := context.Background()
		tr := transactionIn(t, d, 101)
		tr.Status2, tr.InvoiceID = afftrack.Status2Approved, afftrack.Null[int64]{}
		tr.CreativeName, tr.CouponCode = afftrack.Null[string]{}, afftrack.Null[string]{}
		tr.SaleValue = 5
		tr.Items = []afftrack.TransactionItem{{Sku: "ONLY", Quantity: 1, CartItemReference3: afftrack.Some("r3")}}
		empty := transactionIn(t, d, 103)
		empty.Items = nil
		merchant := d.Merchants[0]
		merchant.Name, merchant.RateLimit = "Renamed Pty Ltd", afftrack.RateLimit{PerMinute: afftrack.Some[int64](1)}
		merchant.APIKeys = nil
		affiliate := d.Affiliates[0]
		affiliate.ContactName, affiliate.GSTRegistered = "Johnny Smith", false
		affiliate.APIKeys = nil
		banner := d.Banners[0]
		banner.Width, banner.Height = 300, 250
		invoice := d.Invoices[0]
		invoice.Total = 1
		mustImport(t, db, &afftrack.Dataset{
			Merchants:   []afftrack.MerchantRecord{merchant},
			Affiliates:  []afftrack.AffiliateRecord{affiliate},
			Memberships: []afftrack.Membership{{AffiliateID: 1, MerchantID: 1, Status: afftrack.MembershipNotJoined}},
			Transactions: []afftrack.TransactionRecord{{Transaction: tr}, {Transaction: empty},
				{Transaction: tr, ClaimedContactName: afftrack.Some("Johnny Smith")}},
			Banners:  []afftrack.Banner{banner},
			Invoices: []afftrack.Invoice{invoice},
		})

		accounts := sqlstore.NewAccountService(db)
		gotM, err := accounts.FindMerchant(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&merchant.Merchant, gotM); diff != "" {
			t.Errorf("merchant (-want +got):\n%s", diff)
		}
		gotA, err := accounts.FindAffiliate(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&affiliate.Affiliate, gotA); diff != "" {
			t.Errorf("affiliate (-want +got):\n%s", diff)
		}
		txs := sqlstore.NewTransactionService(db)
		want := withNames(&afftrack.Dataset{Affiliates: []afftrack.AffiliateRecord{affiliate}}, tr)
		got, err := txs.FindTransactionByID(ctx, 1, 101)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("transaction 101, items replaced whole (-want +got):\n%s", diff)
		}
		got, err = txs.FindTransactionByID(ctx, 1, 103)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Items) != 0 {
			t.Errorf("transaction 103 kept %d items, want none", len(got.Items))
		}
		banners, err := sqlstore.NewBannerService(db).FindBanners(ctx, afftrack.BannerFilter{AffiliateID: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(banners) != 0 {
			t.Errorf("affiliate 1 left merchant 1 but sees %d banners", len(banners))
		}
		inv, err := sqlstore.NewInvoiceService(db).FindInvoiceByID(ctx, 1, 501)
		if err != nil {
			t.Fatal(err)
		}
		if inv.Total != 1 || inv.GST.Valid {
			t.Errorf("invoice 501 = %+v, want Total 1 and null GST (affiliate no longer registered)", inv)
		}
		if n := countRows(t, db, "transactions"); n != 7 {
			t.Errorf("%d transactions, want 7", n)
		}
	})
}

func TestImportLaterDuplicateWins(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		d := fixture(t)
		first := transactionIn(t, d, 101)
		second := first
		second.OrderID = "SECOND"
		second.Items = first.Items[:1]
		d.Transactions = append(d.Transactions, afftrack.TransactionRecord{Transaction: second})
		d.Merchants = append(d.Merchants, afftrack.MerchantRecord{Merchant: afftrack.Merchant{ID: 1, Name: "Later",
			Status: afftrack.AccountSuspended}})
		mustImport(t, db, d)
		got, err := sqlstore.NewTransactionService(db).FindTransactionByID(context.Background(), 1, 101)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(withNames(d, second), got); diff != "" {
			t.Errorf("transaction 101 (-want +got):\n%s", diff)
		}
		m, err := sqlstore.NewAccountService(db).FindMerchant(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if m.Name != "Later" || m.Status != afftrack.AccountSuspended {
			t.Errorf("merchant 1 = %+v, want the later record", m)
		}
	})
}

func TestImportReferencesStoredAccounts(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		d := loaded(t, db)
		tr := transactionIn(t, d, 101)
		tr.ID = 700
		sum := mustImport(t, db, &afftrack.Dataset{
			Memberships: []afftrack.Membership{{AffiliateID: 3, MerchantID: 2, Status: afftrack.MembershipJoined}},
			Transactions: []afftrack.TransactionRecord{{Transaction: tr, ClaimedContactName: afftrack.Some("John Smith"),
				ClaimedBusinessName: afftrack.Some("Smith Media")}},
			Banners:  []afftrack.Banner{{ID: 70, MerchantID: 2, Width: 1, Height: 1, TargetURL: "https://two.example/"}},
			Invoices: []afftrack.Invoice{{ID: 70, AffiliateID: 3}},
		})
		want := afftrack.ImportSummary{Memberships: 1, Transactions: 1, Banners: 1, Invoices: 1, NewBannerGroups: 1}
		if diff := cmp.Diff(want, sum); diff != "" {
			t.Errorf("summary (-want +got):\n%s", diff)
		}
	})
}

func TestImportErrors(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(d *afftrack.Dataset)
		message string
	}{
		{"a transaction's unknown affiliate", func(d *afftrack.Dataset) { d.Transactions[3].AffiliateID = 9 },
			"Transactions[3].AffiliateId: affiliate 9 does not exist"},
		{"a transaction's unknown merchant", func(d *afftrack.Dataset) { d.Transactions[2].MerchantID = 8 },
			"Transactions[2].MerchantId: merchant 8 does not exist"},
		{"a merchant id is not an affiliate id", func(d *afftrack.Dataset) { d.Transactions[0].MerchantID = 3 },
			"Transactions[0].MerchantId: merchant 3 does not exist"},
		{"a banner's unknown merchant", func(d *afftrack.Dataset) { d.Banners[1].MerchantID = 5 },
			"Banners[1].MerchantId: merchant 5 does not exist"},
		{"an invoice's unknown affiliate", func(d *afftrack.Dataset) { d.Invoices[2].AffiliateID = 6 },
			"Invoices[2].AffiliateId: affiliate 6 does not exist"},
		{"a membership's unknown affiliate", func(d *afftrack.Dataset) { d.Memberships[1].AffiliateID = 4 },
			"Memberships[1].AffiliateId: affiliate 4 does not exist"},
		{"a membership's unknown merchant", func(d *afftrack.Dataset) { d.Memberships[0].MerchantID = 4 },
			"Memberships[0].MerchantId: merchant 4 does not exist"},
		{"a membership's affiliate is checked before its merchant", func(d *afftrack.Dataset) {
			d.Memberships[0].MerchantID, d.Memberships[0].AffiliateID = 4, 4
		}, "Memberships[0].AffiliateId: affiliate 4 does not exist"},
		{"a merchant's key that is another merchant's", func(d *afftrack.Dataset) {
			d.Merchants[1].APIKeys = append(d.Merchants[1].APIKeys, secretMerchant1)
		}, "Merchants[1].ApiKeys[1]: the key belongs to another account"},
		{"an affiliate's key that is a merchant's", func(d *afftrack.Dataset) {
			d.Affiliates[2].APIKeys = []string{secretMerchant2}
		}, "Affiliates[2].ApiKeys[0]: the key belongs to another account"},
		{"a claimed contact name that differs", func(d *afftrack.Dataset) {
			d.Transactions[4].ClaimedContactName = afftrack.Some("john smith")
		}, `Transactions[4].AffiliateContactName: "john smith" does not match the affiliate's contact name "John Smith"`},
		{"a claimed business name that differs", func(d *afftrack.Dataset) {
			d.Transactions[1].ClaimedBusinessName = afftrack.Some("Doe")
		}, `Transactions[1].AffiliateBusinessName: "Doe" does not match the affiliate's business name "Doe Pty Ltd"`},
	}
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		for _, tt := range tests {
			t.Run(tt.name+" fails the import and writes nothing", func(t *testing.T) {
				d := fixture(t)
				tt.edit(d)
				_, err := sqlstore.NewImportService(db).Import(context.Background(), d)
				wantError(t, err, afftrack.EINVALID, tt.message)
				for _, table := range []string{"merchants", "affiliates", "memberships", "api_keys", "transactions",
					"banners", "invoices"} {
					if n := countRows(t, db, table); n != 0 {
						t.Errorf("%s holds %d rows after a failed import", table, n)
					}
				}
			})
		}
	})
}

func TestImportClaimsUseTheFilesAffiliate(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		loaded(t, db)
		d := fixture(t)
		d.Affiliates[1].BusinessName = "Doe Holdings"
		d.Transactions[1].ClaimedBusinessName = afftrack.Some("Doe Holdings") // transaction 201, affiliate 2
		mustImport(t, db, d)

		d = fixture(t)
		d.Affiliates = nil
		d.Transactions[1].ClaimedBusinessName = afftrack.Some("Doe Pty Ltd")
		_, err := sqlstore.NewImportService(db).Import(context.Background(), d)
		wantError(t, err, afftrack.EINVALID,
			`Transactions[1].AffiliateBusinessName: "Doe Pty Ltd" does not match the affiliate's business name "Doe Holdings"`)
	})
}

func TestImportKeys(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		imp := sqlstore.NewImportService(db)
		imp.Now = func() time.Time { return dt(t, "2024-05-06T07:08:09.010") }
		d := fixture(t)
		d.Affiliates[2].APIKeys = []string{"three-a", "three-b", "three-a"}
		if _, err := imp.Import(ctx, d); err != nil {
			t.Fatal(err)
		}
		accounts := sqlstore.NewAccountService(db)
		ref := afftrack.AccountRef{Kind: afftrack.KindAffiliate, ID: 3}
		keys, err := accounts.ListKeys(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) != 2 {
			t.Fatalf("affiliate 3 has %d keys, want 2 (a repeated secret is one key)", len(keys))
		}
		for _, k := range keys {
			if k.Label != "imported" || !k.Created.Equal(dt(t, "2024-05-06T07:08:09.010")) || k.Revoked.Valid ||
				k.Account != ref || k.ID == "" {
				t.Errorf("imported key %+v", k)
			}
		}
		if err := accounts.RevokeKey(ctx, keys[0].ID, dt(t, "2024-06-01")); err != nil {
			t.Fatal(err)
		}
		sum, err := imp.Import(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Keys != 0 {
			t.Errorf("re-import added %d keys, want 0", sum.Keys)
		}
		after, err := accounts.ListKeys(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != 2 || !after[0].Revoked.Valid {
			t.Errorf("after re-import: %+v; want the revoked key still revoked", after)
		}

		// The kinds have separate id spaces: affiliate 1's key is not
		// merchant 1's.
		_, err = imp.Import(ctx, &afftrack.Dataset{Merchants: []afftrack.MerchantRecord{{
			Merchant: d.Merchants[0].Merchant, APIKeys: []string{"new-one", secretAffiliate1}}}})
		wantError(t, err, afftrack.EINVALID, "Merchants[0].ApiKeys[1]: the key belongs to another account")
		if _, err := accounts.Authenticate(ctx, afftrack.HashKey("new-one")); err == nil {
			t.Error("the failed import's first key was kept")
		}
	})
}

func TestImportManyTransactions(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		d := fixture(t)
		tmpl := transactionIn(t, d, 101)
		tx := func(id int64, items int, sku string) afftrack.TransactionRecord {
			tr := tmpl
			tr.ID = id
			tr.Items = nil
			for j := range items {
				tr.Items = append(tr.Items, afftrack.TransactionItem{Sku: sku, Quantity: int64(j)})
			}
			return afftrack.TransactionRecord{Transaction: tr}
		}
		// More transactions and items than one statement carries on any
		// backend, with an id repeated close by and far away: the later
		// record wins, items and all.
		d.Transactions = nil
		wantItems := int64(0)
		for i := range int64(250) {
			d.Transactions = append(d.Transactions, tx(1000+i, int(i%7), "first"))
			wantItems += i % 7
		}
		d.Transactions[50] = tx(1010, 1, "near")
		d.Transactions[240] = tx(1020, 9, "far")
		wantItems += 1 - 50%7 - 10%7 + 9 - 240%7 - 20%7
		mustImport(t, db, d)
		if n := countRows(t, db, "transactions"); n != 248 {
			t.Errorf("%d transactions, want 248", n)
		}
		if n := storedItems(t, db); n != wantItems {
			t.Errorf("%d items, want %d", n, wantItems)
		}
		s := sqlstore.NewTransactionService(db)
		for id, want := range map[int64]afftrack.TransactionRecord{1010: d.Transactions[50], 1020: d.Transactions[240],
			1003: d.Transactions[3]} {
			got, err := s.FindTransactionByID(ctx, 1, id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(withNames(d, want.Transaction), got); diff != "" {
				t.Errorf("transaction %d (-want +got):\n%s", id, diff)
			}
		}

		// Importing them again with one item each replaces every set of items.
		for i := range d.Transactions {
			d.Transactions[i] = tx(d.Transactions[i].ID, 1, "again")
		}
		mustImport(t, db, d)
		if n := storedItems(t, db); n != 248 {
			t.Errorf("%d items after re-import, want one each", n)
		}
	})
}

// TestImportATransactionOfManyItems: one transaction may have more items
// than a statement takes parameters on any backend (SQLite's 32,766,
// PostgreSQL's 65,535); they are written in several.
func TestImportATransactionOfManyItems(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		d := fixture(t)
		tr := transactionIn(t, d, 101)
		tr.Items = nil
		for j := range 10_000 {
			tr.Items = append(tr.Items, afftrack.TransactionItem{Sku: fmt.Sprintf("s%d", j), Quantity: 1})
		}
		d.Transactions = []afftrack.TransactionRecord{{Transaction: tr}}
		mustImport(t, db, d)
		if n := storedItems(t, db); n != 10_000 {
			t.Errorf("%d items, want 10000", n)
		}
		if n := countRows(t, db, "transaction_items"); n != 10_000 {
			t.Errorf("%d item rows, want 10000", n)
		}
	})
}

// storedItems counts the items of merchant 1's transactions of any date.
func storedItems(t *testing.T, db *sqlstore.DB) int64 {
	t.Helper()
	var n int64
	f := afftrack.TransactionFilter{MerchantID: 1, From: dt(t, "2000-01-01"), To: dt(t, "2099-12-31")}
	if err := sqlstore.NewTransactionService(db).FindTransactions(context.Background(), f, func(tr *afftrack.Transaction) error {
		n += int64(len(tr.Items))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestImportChunks(t *testing.T) {
	ctx := context.Background()
	// chunks splits the fixture into one chunk per collection, then its
	// transactions one by one.
	chunks := func(t *testing.T) []*afftrack.Dataset {
		d := fixture(t)
		out := []*afftrack.Dataset{{Merchants: d.Merchants, Affiliates: d.Affiliates, Memberships: d.Memberships}}
		for _, tr := range d.Transactions {
			out = append(out, &afftrack.Dataset{Transactions: []afftrack.TransactionRecord{tr}})
		}
		return append(out, &afftrack.Dataset{Banners: d.Banners, Invoices: d.Invoices})
	}
	from := func(ds []*afftrack.Dataset) func() (*afftrack.Dataset, error) {
		return func() (*afftrack.Dataset, error) {
			if len(ds) == 0 {
				return nil, nil
			}
			d := ds[0]
			ds = ds[1:]
			return d, nil
		}
	}
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		indexes := func() int64 {
			q := `SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'transactions'`
			if db.Dialect() == "postgres" {
				q = `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'transactions'`
			}
			var n int64
			if err := db.SQL().QueryRowContext(ctx, q).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := indexes()
		t.Run("a failing chunk writes nothing, not even the chunks before it", func(t *testing.T) {
			cs := chunks(t)
			cs[2] = &afftrack.Dataset{Transactions: []afftrack.TransactionRecord{cs[2].Transactions[0]}}
			cs[2].Transactions[0].AffiliateID = 999
			_, err := sqlstore.NewImportService(db).ImportChunks(ctx, from(cs))
			wantError(t, err, afftrack.EINVALID, "Transactions[0].AffiliateId: affiliate 999 does not exist")
			for _, table := range []string{"merchants", "transactions"} {
				if n := countRows(t, db, table); n != 0 {
					t.Errorf("%s holds %d rows", table, n)
				}
			}
		})
		t.Run("an error of next writes nothing", func(t *testing.T) {
			cs := chunks(t)
			next := from(cs[:3])
			_, err := sqlstore.NewImportService(db).ImportChunks(ctx, func() (*afftrack.Dataset, error) {
				d, _ := next()
				if d == nil {
					return nil, errors.New("the file ends early")
				}
				return d, nil
			})
			if err == nil || err.Error() != "the file ends early" {
				t.Fatalf("err = %v, want next's", err)
			}
			if n := countRows(t, db, "merchants"); n != 0 {
				t.Errorf("merchants holds %d rows", n)
			}
		})
		t.Run("an import stopped while it writes says so and writes nothing", func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			next, calls := from(chunks(t)), 0
			_, err := sqlstore.NewImportService(db).ImportChunks(ctx, func() (*afftrack.Dataset, error) {
				// The second chunk is written under a context a signal
				// has ended, the first under a live one.
				if calls++; calls == 2 {
					cancel(errors.New("interrupt signal received"))
				}
				return next()
			})
			want := "import interrupted (interrupt signal received) before it was committed: nothing was written"
			if err == nil || err.Error() != want {
				t.Fatalf("err = %v, want %q", err, want)
			}
			for _, table := range []string{"merchants", "transactions"} {
				if n := countRows(t, db, table); n != 0 {
					t.Errorf("%s holds %d rows", table, n)
				}
			}
		})
		t.Run("the chunks read back as one import of them all", func(t *testing.T) {
			// One connection besides SQLite's write connection, which the
			// DB holds, to see the pragmas the bulk load leaves on it.
			conns := 1
			if db.Dialect() == "sqlite" {
				conns = 2
			}
			db.SQL().SetMaxOpenConns(conns)
			sum, err := sqlstore.NewImportService(db).ImportChunks(ctx, from(chunks(t)))
			if err != nil {
				t.Fatal(err)
			}
			if db.Dialect() == "sqlite" {
				for pragma, want := range map[string]int64{"cache_size": -8192, "foreign_keys": 1} {
					var got int64
					if err := db.SQL().QueryRowContext(ctx, `PRAGMA `+pragma).Scan(&got); err != nil || got != want {
						t.Errorf("%s after the load = %d (%v), want the pool's %d", pragma, got, err, want)
					}
				}
			}
			db.SQL().SetMaxOpenConns(0)
			d := fixture(t)
			want := afftrack.ImportSummary{Merchants: len(d.Merchants), Affiliates: len(d.Affiliates),
				Memberships: len(d.Memberships), Transactions: len(d.Transactions), Banners: len(d.Banners),
				Invoices: len(d.Invoices), Keys: sum.Keys, NewBannerGroups: 3}
			if diff := cmp.Diff(want, sum); diff != "" || sum.Keys == 0 {
				t.Errorf("summary (-want +got):\n%s (keys %d)", diff, sum.Keys)
			}
			s := sqlstore.NewTransactionService(db)
			for _, r := range d.Transactions {
				got, err := s.FindTransactionByID(ctx, r.MerchantID, r.ID)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(withNames(d, r.Transaction), got); diff != "" {
					t.Errorf("transaction %d (-want +got):\n%s", r.ID, diff)
				}
			}
			if n := indexes(); n != before {
				t.Errorf("transactions has %d indexes after a bulk load, %d before", n, before)
			}
		})
	})
}

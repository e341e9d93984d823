package sqlstore_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/generate"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// generated fills a new SQLite store with a generated network: the
// accounts through Import, the transactions by GenerateTransactions.
// before, if not nil, sees the store first.
func generated(t *testing.T, seed uint64, transactions int, before func(*sqlstore.DB)) (*sqlstore.DB, *generate.Generator, *generate.Bulk, sqlstore.GenerateResult) {
	t.Helper()
	ctx := context.Background()
	cfg := generate.DefaultConfig()
	cfg.Transactions, cfg.Merchants, cfg.Affiliates, cfg.Seed = transactions, 20, 300, seed
	cfg.Start, cfg.Days, cfg.MidDaily = time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), 120, 10
	g, err := generate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	bulk := g.Bulk()
	db := storetest.Open(t, "sqlite")
	if before != nil {
		before(db)
	}
	im := sqlstore.NewImportService(db)
	for d := g.Next(); d != nil; d = g.Next() {
		if len(d.Transactions) > 0 || len(d.Invoices) > 0 {
			t.Fatalf("after Bulk, Next gave %d transactions and %d invoices", len(d.Transactions), len(d.Invoices))
		}
		if _, err := im.Import(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	res, err := db.GenerateTransactions(ctx, bulk)
	if err != nil {
		t.Fatal(err)
	}
	return db, g, bulk, res
}

func TestGenerateTransactionsKeepsTheInvariants(t *testing.T) {
	const n = 6000
	db, g, bulk, res := generated(t, 7, n, nil)
	ctx := context.Background()

	t.Run("the counts are exact", func(t *testing.T) {
		var got [3]int
		if err := db.SQL().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM transactions),
			(SELECT count(*) FROM transaction_items), (SELECT count(*) FROM invoices)`).Scan(&got[0], &got[1], &got[2]); err != nil {
			t.Fatal(err)
		}
		if want := [3]int{n, res.Items, res.Invoices}; got != want || res.Transactions != n {
			t.Errorf("stored (transactions, items, invoices) %v, result %+v", got, res)
		}
		if res.Items < n || res.Invoices == 0 {
			t.Errorf("%d items and %d invoices for %d transactions: carts or invoices are missing", res.Items, res.Invoices, n)
		}
	})

	end := bulk.End.UnixMilli()
	violations := []struct {
		name, where string
	}{
		{"no Paid transaction lacks an invoice", "status2 = 4 AND invoice_id IS NULL"},
		{"only Paid transactions have an invoice", "status2 <> 4 AND invoice_id IS NOT NULL"},
		{"no Void transaction lacks a reason", "status2 = 5 AND void_reason IS NULL"},
		{"only Void transactions have a void reason", "status2 <> 5 AND void_reason IS NOT NULL"},
		{"a Void transaction is not amended", "status2 = 5 AND amended_reason IS NOT NULL"},
		{"every status is known", "status2 NOT BETWEEN 1 AND 5"},
		{"dates lie in the period", fmt.Sprintf("date_created < %d OR date_created >= %d OR date_modified < date_created OR date_modified > %d",
			bulk.Start.UnixMilli(), end, end)},
		{"validation is 30 days after creation", "validation_date <> date_created + 30 * 86400000"},
		{"ids ascend with creation", "EXISTS (SELECT 1 FROM transactions p WHERE p.id = t.id - 1 AND p.date_created > t.date_created)"},
		{"the sale value is its items' sum", `EXISTS (SELECT 1 FROM transaction_items i WHERE i.transaction_id = t.id)
			AND (sale_value, commission, reported_sale_value) <> (SELECT sum(sale_value) * 100, sum(commission) * 100,
			sum(reported_sale_value) * 100 FROM transaction_items i WHERE i.transaction_id = t.id)`},
		{"items are numbered from 1", `(SELECT count(*) FROM transaction_items i WHERE i.transaction_id = t.id) <>
			coalesce((SELECT max(position) FROM transaction_items i WHERE i.transaction_id = t.id), 0)`},
		{"the affiliate has joined the merchant", `NOT EXISTS (SELECT 1 FROM memberships ms WHERE ms.merchant_id = t.merchant_id
			AND ms.affiliate_id = t.affiliate_id AND ms.status = 1)`},
		{"a banner is the merchant's", "creative_type = 2 AND NOT EXISTS (SELECT 1 FROM banners b WHERE b.id = t.creative_id AND b.merchant_id = t.merchant_id)"},
		{"a coupon creative names its code", "creative_type = 3 AND (coupon_code IS NULL OR creative_name <> coupon_code)"},
		{"a paid invoice exists for invoiced affiliates", `status2 = 4 AND affiliate_id % 50 = 1
			AND NOT EXISTS (SELECT 1 FROM invoices v WHERE v.id = t.invoice_id AND v.affiliate_id = t.affiliate_id)`},
	}
	for _, v := range violations {
		t.Run(v.name, func(t *testing.T) {
			var bad int
			if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM transactions t WHERE "+v.where).Scan(&bad); err != nil {
				t.Fatal(err)
			}
			if bad > 0 {
				t.Errorf("%d transactions where %s", bad, v.where)
			}
		})
	}

	t.Run("every value of the enumerations occurs", func(t *testing.T) {
		for col, want := range map[string]int{"status2": 5, "void_reason": 11, "amended_reason": 5, "creative_type": 5,
			"tracking_method": 7, "customer_type": 2, "traffic_type": 6} {
			var got int
			q := fmt.Sprintf("SELECT count(DISTINCT %s) FROM transactions WHERE %[1]s IS NOT NULL", col)
			if err := db.SQL().QueryRowContext(ctx, q).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s has %d values, want %d", col, got, want)
			}
		}
	})

	t.Run("the service reads valid transactions of the summary's merchants", func(t *testing.T) {
		days, err := db.GeneratedDays(ctx, bulk)
		if err != nil {
			t.Fatal(err)
		}
		s := g.BulkSummary(days, res.Items, res.Invoices)
		svc := sqlstore.NewTransactionService(db)
		for _, m := range []generate.MerchantLoad{s.Largest, s.Mid} {
			got := 0
			f := afftrack.TransactionFilter{MerchantID: m.ID, From: bulk.Start, To: bulk.End}
			err := svc.FindTransactions(ctx, f, func(x *afftrack.Transaction) error {
				got++
				return x.Validate()
			})
			if err != nil {
				t.Fatalf("merchant %d: %v", m.ID, err)
			}
			if got != m.Transactions {
				t.Errorf("merchant %d has %d transactions, the summary says %d", m.ID, got, m.Transactions)
			}
		}
		x, err := svc.FindTransactionByID(ctx, s.Mid.ID, s.LookupID)
		if err != nil {
			t.Fatalf("lookup %d: %v", s.LookupID, err)
		}
		if !x.DateCreated.Truncate(24 * time.Hour).Equal(s.Day) {
			t.Errorf("lookup %d was created %v, not on the summary's day %v", s.LookupID, x.DateCreated, s.Day)
		}
	})
}

func TestGenerateTransactionsIsDeterministic(t *testing.T) {
	digest := func(seed uint64) string {
		db, _, _, _ := generated(t, seed, 1500, nil)
		h := sha256.New()
		for _, q := range []string{"SELECT * FROM transactions ORDER BY id", "SELECT * FROM transaction_items ORDER BY transaction_id, position",
			"SELECT * FROM invoices ORDER BY id"} {
			rows, err := db.SQL().Query(q)
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := rows.Columns()
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			for rows.Next() {
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintln(h, vals...)
			}
			rows.Close()
		}
		return fmt.Sprintf("%x", h.Sum(nil))
	}
	tests := []struct {
		name       string
		a, b       uint64
		wantEquals bool
	}{
		{"the same seed gives the same rows", 3, 3, true},
		{"another seed gives other rows", 3, 4, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := digest(tt.a) == digest(tt.b); got != tt.wantEquals {
				t.Errorf("digests equal: %v, want %v", got, tt.wantEquals)
			}
		})
	}
}

func TestGenerateTransactionsRestoresTheConnection(t *testing.T) {
	ctx := context.Background()
	// One pooled connection besides the one that keeps the in-memory
	// database: the load's, which anyone may get next. Its pragmas must be
	// as the pool set them, its TEMP tables gone.
	state := func(db *sqlstore.DB) [5]string {
		var got [5]string
		for i, q := range []string{"PRAGMA foreign_keys", "PRAGMA cache_size", "PRAGMA synchronous", "PRAGMA temp_store",
			"SELECT count(*) FROM sqlite_temp_master WHERE name LIKE 'gen_%'"} {
			if err := db.SQL().QueryRowContext(ctx, q).Scan(&got[i]); err != nil {
				t.Fatal(err)
			}
		}
		return got
	}
	var want [5]string
	db, _, _, _ := generated(t, 1, 200, func(db *sqlstore.DB) {
		db.SQL().SetMaxOpenConns(2)
		want = state(db)
	})
	if diff := cmp.Diff(want, state(db)); diff != "" {
		t.Errorf("foreign_keys, cache_size, synchronous, temp_store, temp tables (-want +got):\n%s", diff)
	}
	var indexes int
	if err := db.SQL().QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'transactions' AND sql IS NOT NULL").Scan(&indexes); err != nil {
		t.Fatal(err)
	}
	if indexes != 2 {
		t.Errorf("transactions have %d secondary indexes after the load, want 2", indexes)
	}
}

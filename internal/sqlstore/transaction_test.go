package sqlstore_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// withNames returns t as the store returns it: with its affiliate's names
// and a non-nil Items.
func withNames(d *afftrack.Dataset, t afftrack.Transaction) *afftrack.Transaction {
	for _, a := range d.Affiliates {
		if a.ID == t.AffiliateID {
			t.AffiliateContactName, t.AffiliateBusinessName = a.ContactName, a.BusinessName
		}
	}
	if t.Items == nil {
		t.Items = []afftrack.TransactionItem{}
	}
	return &t
}

// transactionIn returns the fixture's transaction with the given id.
func transactionIn(t testing.TB, d *afftrack.Dataset, id int64) afftrack.Transaction {
	t.Helper()
	for _, r := range d.Transactions {
		if r.ID == id {
			return r.Transaction
		}
	}
	t.Fatalf("no transaction %d in the dataset", id)
	return afftrack.Transaction{}
}

// eachTransactionStore runs fn on every backend and on the other ways
// transactions are read: an in-memory SQLite database, read through
// database/sql, and, with PostgreSQL, a connection in pgx's simple
// protocol mode (as behind a pooler), whose results arrive as text.
func eachTransactionStore(t *testing.T, fn func(t *testing.T, db *sqlstore.DB)) {
	t.Helper()
	eachBackend(t, fn)
	open := func(t *testing.T, dsn string) *sqlstore.DB {
		ctx := context.Background()
		db, err := sqlstore.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		return db
	}
	t.Run("sqlite in memory", func(t *testing.T) { fn(t, open(t, "sqlite::memory:")) })
	if slices.Contains(storetest.Backends(t), storetest.Postgres) {
		t.Run("postgres simple protocol", func(t *testing.T) {
			fn(t, open(t, storetest.URL(t, storetest.Postgres)+"&default_query_exec_mode=simple_protocol"))
		})
	}
}

// listIDs returns the ids FindTransactions gives for f, in order.
func listIDs(t testing.TB, db *sqlstore.DB, f afftrack.TransactionFilter) []int64 {
	t.Helper()
	ids := []int64{}
	err := sqlstore.NewTransactionService(db).FindTransactions(context.Background(), f,
		func(tr *afftrack.Transaction) error {
			ids = append(ids, tr.ID)
			return nil
		})
	if err != nil {
		t.Fatalf("FindTransactions: %v", err)
	}
	return ids
}

// march is merchant 1's filter for March 2024 by the given property.
func march(t testing.TB, p afftrack.DateProperty) afftrack.TransactionFilter {
	return afftrack.TransactionFilter{MerchantID: 1, From: dt(t, "2024-03-01"), To: dt(t, "2024-03-31"), DateProperty: p}
}

func TestFindTransactionByID(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := loaded(t, db)
		s := sqlstore.NewTransactionService(db)
		ctx := context.Background()
		for _, id := range []int64{101, 102, 103, 104, 105, 100} {
			got, err := s.FindTransactionByID(ctx, 1, id)
			if err != nil {
				t.Fatalf("FindTransactionByID(1, %d): %v", id, err)
			}
			if diff := cmp.Diff(withNames(d, transactionIn(t, d, id)), got); diff != "" {
				t.Errorf("transaction %d round trip (-want +got):\n%s", id, diff)
			}
		}
		t.Run("another merchant's transaction is not found", func(t *testing.T) {
			_, err := s.FindTransactionByID(ctx, 1, 201)
			wantError(t, err, afftrack.ENOTFOUND, "The requested item could not be found.")
			if _, err := s.FindTransactionByID(ctx, 2, 201); err != nil {
				t.Errorf("its own merchant cannot find it: %v", err)
			}
		})
		t.Run("a missing transaction is not found", func(t *testing.T) {
			_, err := s.FindTransactionByID(ctx, 1, 999)
			wantError(t, err, afftrack.ENOTFOUND, "The requested item could not be found.")
		})
	})
}

func TestTransactionExtremeValuesRoundTrip(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := fixture(t)
		tr := transactionIn(t, d, 101)
		tr.ID = 9_000_000_000_000
		tr.DateCreated = dt(t, "0001-01-01T00:00:00.000")
		tr.DateModified = dt(t, "9999-12-31T23:59:59.999")
		tr.SaleValue, tr.Commission, tr.OverrideFee, tr.ReportedSaleValue = -1, 1<<62, -(1 << 62), 123456789
		tr.Items = []afftrack.TransactionItem{{Sku: "", Quantity: -2, ReportedSaleValue: -1 << 62,
			SaleValue: 1<<63 - 1, Commission: -1 << 63, Name: "ünïcode ✓", Brand: "O'Brien \"quoted\"",
			CartItemReference: afftrack.Some(""), CartItemReference2: afftrack.Some("2"),
			CartItemReference3: afftrack.Some("3"), CartItemReference4: afftrack.Some("4")}}
		d.Transactions = []afftrack.TransactionRecord{{Transaction: tr}}
		mustImport(t, db, d)
		got, err := sqlstore.NewTransactionService(db).FindTransactionByID(context.Background(), 1, tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(withNames(d, tr), got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	})
}

func TestFindTransactionsOrderAndRange(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		loaded(t, db)
		tests := []struct {
			name string
			f    afftrack.TransactionFilter
			want []int64
		}{
			{"March by DateCreated includes midnight of From and excludes midnight after To",
				march(t, afftrack.ByDateCreated), []int64{101, 102, 103, 104}},
			{"March by DateModified orders by the modification date",
				march(t, afftrack.ByDateModified), []int64{103, 102, 105, 100, 101}},
			{"a single day covers all of it",
				afftrack.TransactionFilter{MerchantID: 1, From: dt(t, "2024-03-02"), To: dt(t, "2024-03-02")},
				[]int64{102, 103}},
			{"the day before From's midnight is another day",
				afftrack.TransactionFilter{MerchantID: 1, From: dt(t, "2024-02-29"), To: dt(t, "2024-02-29")},
				[]int64{100}},
			{"the midnight after To is the next day's",
				afftrack.TransactionFilter{MerchantID: 1, From: dt(t, "2024-04-01"), To: dt(t, "2024-04-01")},
				[]int64{105}},
			{"a range without transactions is empty",
				afftrack.TransactionFilter{MerchantID: 1, From: dt(t, "2023-01-01"), To: dt(t, "2023-12-31")},
				[]int64{}},
			{"another merchant sees only its own",
				afftrack.TransactionFilter{MerchantID: 2, From: dt(t, "2024-01-01"), To: dt(t, "2024-12-31")},
				[]int64{201}},
			{"an unknown merchant sees nothing",
				afftrack.TransactionFilter{MerchantID: 99, From: dt(t, "2024-01-01"), To: dt(t, "2024-12-31")},
				[]int64{}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if diff := cmp.Diff(tt.want, listIDs(t, db, tt.f)); diff != "" {
					t.Errorf("ids (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestFindTransactionsFilters(t *testing.T) {
	str := afftrack.Some[string]
	num := afftrack.Some[int64]
	tests := []struct {
		name string
		set  func(f *afftrack.TransactionFilter)
		want []int64
	}{
		{"affiliateId matches exactly", func(f *afftrack.TransactionFilter) { f.AffiliateID = num(1) }, []int64{101, 103}},
		{"affiliateContactName ignores case", func(f *afftrack.TransactionFilter) { f.AffiliateContactName = str("JOHN smith") }, []int64{101, 103}},
		{"affiliateContactName does not match part of the name", func(f *afftrack.TransactionFilter) { f.AffiliateContactName = str("John") }, []int64{}},
		{"affiliateBusinessName ignores case", func(f *afftrack.TransactionFilter) { f.AffiliateBusinessName = str("doe pty ltd") }, []int64{102, 104}},
		{"trafficType", func(f *afftrack.TransactionFilter) { f.TrafficType = afftrack.TrafficTypeEmailList }, []int64{102}},
		{"trafficSource ignores case", func(f *afftrack.TransactionFilter) { f.TrafficSource = str("EXAMPLE.COM") }, []int64{101, 103, 104}},
		{"creativeType", func(f *afftrack.TransactionFilter) { f.CreativeType = afftrack.CreativeTypeBanner }, []int64{102}},
		{"creativeId", func(f *afftrack.TransactionFilter) { f.CreativeID = num(7) }, []int64{101}},
		{"creativeName ignores case", func(f *afftrack.TransactionFilter) { f.CreativeName = str("spring SALE") }, []int64{101}},
		{"an empty creativeName matches empty, never null", func(f *afftrack.TransactionFilter) { f.CreativeName = str("") }, []int64{103}},
		{"customerCountryCode", func(f *afftrack.TransactionFilter) { f.CustomerCountryCode = str("nz") }, []int64{102}},
		{"customerCountryName", func(f *afftrack.TransactionFilter) { f.CustomerCountryName = str("new zealand") }, []int64{102}},
		{"customerIpAddress ignores case", func(f *afftrack.TransactionFilter) { f.CustomerIPAddress = str("0123456789ABCDEF0123456789ABCDEF") }, []int64{101}},
		{"customerType", func(f *afftrack.TransactionFilter) { f.CustomerType = afftrack.CustomerTypeReturn }, []int64{102}},
		{"orderId", func(f *afftrack.TransactionFilter) { f.OrderID = str("ord-104") }, []int64{104}},
		{"trackingMethod", func(f *afftrack.TransactionFilter) { f.TrackingMethod = afftrack.TrackingMethodManual }, []int64{102}},
		{"trafficSourceApproved false", func(f *afftrack.TransactionFilter) { f.TrafficSourceApproved = afftrack.Some(false) }, []int64{102}},
		{"trafficSourceApproved true", func(f *afftrack.TransactionFilter) { f.TrafficSourceApproved = afftrack.Some(true) }, []int64{101, 103, 104}},
		{"status Pending also matches Locked", func(f *afftrack.TransactionFilter) { f.Status = afftrack.StatusPending }, []int64{102, 103}},
		{"status Approved matches Paid", func(f *afftrack.TransactionFilter) { f.Status = afftrack.StatusApproved }, []int64{101}},
		{"status Void", func(f *afftrack.TransactionFilter) { f.Status = afftrack.StatusVoid }, []int64{104}},
		{"status2 Locked", func(f *afftrack.TransactionFilter) { f.Status2 = afftrack.Status2Locked }, []int64{103}},
		{"status2 Pending excludes Locked", func(f *afftrack.TransactionFilter) { f.Status2 = afftrack.Status2Pending }, []int64{102}},
		{"invoiceId", func(f *afftrack.TransactionFilter) { f.InvoiceID = num(501) }, []int64{101}},
		{"an invoiceId nobody has", func(f *afftrack.TransactionFilter) { f.InvoiceID = num(0) }, []int64{}},
		{"voidReason", func(f *afftrack.TransactionFilter) { f.VoidReason = afftrack.VoidReasonCancelledOrder }, []int64{104}},
		{"amendedReason", func(f *afftrack.TransactionFilter) { f.AmendedReason = afftrack.AmendedReasonPartialOrderReturn }, []int64{102}},
		{"filters combine with AND", func(f *afftrack.TransactionFilter) {
			f.AffiliateID = num(1)
			f.Status = afftrack.StatusPending
			f.TrafficSource = str("example.com")
		}, []int64{103}},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := loaded(t, db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f := march(t, afftrack.ByDateCreated)
				tt.set(&f)
				got := listIDs(t, db, f)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("ids (-want +got):\n%s", diff)
				}
				// The store's answer is exactly what the domain's Match says.
				var matched []int64
				for _, id := range []int64{101, 102, 103, 104} {
					if f.Match(withNames(d, transactionIn(t, d, id))) {
						matched = append(matched, id)
					}
				}
				if !slices.Equal(matched, got) {
					t.Errorf("Match selects %v, the store %v", matched, got)
				}
			})
		}
	})
}

func TestFindTransactionsStreams(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := loaded(t, db)
		s := sqlstore.NewTransactionService(db)
		ctx := context.Background()
		t.Run("fn sees each transaction once, in order", func(t *testing.T) {
			var got []*afftrack.Transaction
			err := s.FindTransactions(ctx, march(t, afftrack.ByDateCreated), func(tr *afftrack.Transaction) error {
				c := *tr
				c.Items = slices.Clone(tr.Items)
				got = append(got, &c)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []*afftrack.Transaction
			for _, id := range []int64{101, 102, 103, 104} {
				want = append(want, withNames(d, transactionIn(t, d, id)))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("streamed transactions (-want +got):\n%s", diff)
			}
		})
		t.Run("an error from fn stops the read and is returned", func(t *testing.T) {
			stop := errors.New("stop")
			calls := 0
			err := s.FindTransactions(ctx, march(t, afftrack.ByDateCreated), func(*afftrack.Transaction) error {
				calls++
				return stop
			})
			if !errors.Is(err, stop) {
				t.Errorf("err = %v, want %v", err, stop)
			}
			if calls != 1 {
				t.Errorf("fn was called %d times, want 1", calls)
			}
		})
		t.Run("a cancelled context stops the read", func(t *testing.T) {
			ctx, cancel := context.WithCancel(ctx)
			cancel()
			err := s.FindTransactions(ctx, march(t, afftrack.ByDateCreated), func(*afftrack.Transaction) error { return nil })
			if err == nil {
				t.Error("FindTransactions with a cancelled context succeeded")
			}
		})
	})
}

func TestFindTransactionsManyItems(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := fixture(t)
		d.Transactions = nil
		day := dt(t, "2024-06-01")
		// Alternate transactions with many, none and one item, so an item
		// left over from the previous transaction in the reused value shows.
		for i := range int64(60) {
			tr := transactionIn(t, fixture(t), 101)
			tr.ID = 1000 + i
			tr.DateCreated = day.Add(time.Duration(59-i) * time.Minute)
			tr.Items = nil
			for j := range (i % 3) * 5 {
				tr.Items = append(tr.Items, afftrack.TransactionItem{Sku: "S", Quantity: i*100 + j})
			}
			d.Transactions = append(d.Transactions, afftrack.TransactionRecord{Transaction: tr})
		}
		mustImport(t, db, d)
		n := 0
		prev := time.Time{}
		err := sqlstore.NewTransactionService(db).FindTransactions(context.Background(),
			afftrack.TransactionFilter{MerchantID: 1, From: day, To: day}, func(tr *afftrack.Transaction) error {
				n++
				i := tr.ID - 1000
				if tr.DateCreated.Before(prev) {
					t.Errorf("transaction %d is out of order", tr.ID)
				}
				prev = tr.DateCreated
				if want := int((i % 3) * 5); len(tr.Items) != want {
					t.Errorf("transaction %d has %d items, want %d", tr.ID, len(tr.Items), want)
				}
				for j, it := range tr.Items {
					if it.Quantity != i*100+int64(j) {
						t.Errorf("transaction %d item %d has quantity %d, want %d", tr.ID, j, it.Quantity, i*100+int64(j))
					}
				}
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		if n != 60 {
			t.Errorf("fn was called %d times, want 60", n)
		}
	})
}

package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// benchTransactions returns n transactions of merchant 1 with two items
// each, one a minute from 2024-01-01.
func benchTransactions(b testing.TB, n int) []afftrack.TransactionRecord {
	tmpl := transactionIn(b, fixture(b), 101)
	start := dt(b, "2024-01-01")
	recs := make([]afftrack.TransactionRecord, n)
	for i := range recs {
		tr := tmpl
		tr.ID = int64(10_000 + i)
		tr.DateCreated = start.Add(time.Duration(i) * time.Minute)
		tr.DateModified = tr.DateCreated
		recs[i] = afftrack.TransactionRecord{Transaction: tr}
	}
	return recs
}

// BenchmarkImport reports the import rate of transactions with two items.
func BenchmarkImport(b *testing.B) {
	const n = 5000
	for _, backend := range storetest.Backends(b) {
		b.Run(backend, func(b *testing.B) {
			db := storetest.Open(b, backend)
			mustImport(b, db, fixture(b))
			d := &afftrack.Dataset{Transactions: benchTransactions(b, n)}
			b.ResetTimer()
			for b.Loop() {
				mustImport(b, db, d)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "transactions/s")
		})
	}
}

// BenchmarkFindTransactions reports the read rate of a month's list.
func BenchmarkFindTransactions(b *testing.B) {
	benchmarkMonthList(b, 5000, func([]afftrack.TransactionRecord) {})
}

// BenchmarkFindTransactionsOfOneDate reports the read rate of a list
// whose transactions share one date, as a payout run's or an import's do:
// many pages of one date.
func BenchmarkFindTransactionsOfOneDate(b *testing.B) {
	benchmarkMonthList(b, 100_000, func(recs []afftrack.TransactionRecord) {
		for i := range recs {
			recs[i].DateCreated = recs[0].DateCreated
		}
	})
}

// benchmarkMonthList reports the read rate of a list of n transactions
// of January 2024, dated by date.
func benchmarkMonthList(b *testing.B, n int, date func([]afftrack.TransactionRecord)) {
	for _, backend := range storetest.Backends(b) {
		b.Run(backend, func(b *testing.B) {
			db := storetest.Open(b, backend)
			mustImport(b, db, fixture(b))
			recs := benchTransactions(b, n)
			date(recs)
			mustImport(b, db, &afftrack.Dataset{Transactions: recs})
			s := sqlstore.NewTransactionService(db)
			f := afftrack.TransactionFilter{MerchantID: 1, From: dt(b, "2024-01-01"), To: dt(b, "2024-01-31")}
			b.ResetTimer()
			for b.Loop() {
				count := 0
				if err := s.FindTransactions(context.Background(), f, func(*afftrack.Transaction) error {
					count++
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				if count != n {
					b.Fatalf("read %d transactions, want %d", count, n)
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "transactions/s")
		})
	}
}

// BenchmarkFindTransactionsOfADay reports the rate of one-day lists of
// about a hundred transactions, the benchmark's common list.
func BenchmarkFindTransactionsOfADay(b *testing.B) {
	const n, perDay = 3000, 100
	for _, backend := range storetest.Backends(b) {
		b.Run(backend, func(b *testing.B) {
			db := storetest.Open(b, backend)
			mustImport(b, db, fixture(b))
			recs := benchTransactions(b, n)
			for i := range recs {
				recs[i].DateCreated = dt(b, "2024-01-01").Add(time.Duration(i/perDay)*24*time.Hour + time.Duration(i%perDay)*time.Minute)
				recs[i].DateModified = recs[i].DateCreated
			}
			mustImport(b, db, &afftrack.Dataset{Transactions: recs})
			s := sqlstore.NewTransactionService(db)
			day := 0
			b.ResetTimer()
			for b.Loop() {
				from := dt(b, "2024-01-01").Add(time.Duration(day%(n/perDay)) * 24 * time.Hour)
				day++
				count := 0
				f := afftrack.TransactionFilter{MerchantID: 1, From: from, To: from}
				if err := s.FindTransactions(context.Background(), f, func(*afftrack.Transaction) error {
					count++
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				if count != perDay {
					b.Fatalf("read %d transactions, want %d", count, perDay)
				}
			}
		})
	}
}

// BenchmarkFindTransactionByID reports the rate of lookups of one
// transaction with two items, from 8 goroutines as a loaded server has.
func BenchmarkFindTransactionByID(b *testing.B) {
	const n = 1000
	for _, backend := range storetest.Backends(b) {
		b.Run(backend, func(b *testing.B) {
			db := storetest.Open(b, backend)
			mustImport(b, db, fixture(b))
			recs := benchTransactions(b, n)
			mustImport(b, db, &afftrack.Dataset{Transactions: recs})
			s := sqlstore.NewTransactionService(db)
			b.SetParallelism(4) // 8 goroutines on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					id := recs[i%n].Transaction.ID
					i++
					t, err := s.FindTransactionByID(context.Background(), 1, id)
					if err != nil {
						b.Error(err)
						return
					}
					if t.ID != id || len(t.Items) != 2 {
						b.Errorf("transaction %d has id %d and %d items, want two", id, t.ID, len(t.Items))
						return
					}
				}
			})
		})
	}
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/generate"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// runGenerate fills a database with a generated network (internal/generate)
// for load tests: chunk by chunk, all in one import (ImportChunks), generating
// the next chunk while the store writes the last.
func runGenerate(ctx context.Context, env *cliEnv, args []string) error {
	cfg := generate.DefaultConfig()
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	setUsage(fs, "afftrack generate [flags]", "Fills a database, best an empty one, with a generated network for load tests.")
	dsn := fs.String("db", "sqlite:afftrack.db", "database: sqlite:PATH or a postgres:// URL; best empty, as records with the same ids are replaced")
	intFlag(fs, &cfg.Transactions, "transactions", cfg.Transactions, "transactions to generate, each with 0 to 5 items")
	intFlag(fs, &cfg.Clicks, "clicks", cfg.Clicks, "clicks to generate; negative: ten per transaction")
	intFlag(fs, &cfg.Merchants, "merchants", cfg.Merchants, "merchants, a few large and most small")
	intFlag(fs, &cfg.Affiliates, "affiliates", cfg.Affiliates, "affiliates")
	intFlag(fs, &cfg.Seed, "seed", cfg.Seed, "random seed: the same flags always give the same data")
	start := fs.String("start", cfg.Start.Format(time.DateOnly), "first day of the transactions, YYYY-MM-DD")
	intFlag(fs, &cfg.Days, "days", cfg.Days, "days the transactions span")
	intFlag(fs, &cfg.ChunkSize, "chunk", cfg.ChunkSize, "records per chunk handed to the import; all chunks are one database transaction")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the load to `FILE` (go tool pprof)")
	if rest, err := env.parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usageError("generate", "generate takes no arguments, got %q", rest)
	}
	var err error
	if cfg.Start, err = time.Parse(time.DateOnly, *start); err != nil {
		return usageError("generate", "--start: %q is not a date; use YYYY-MM-DD", *start)
	}
	g, err := generate.New(cfg)
	if err != nil {
		return usageError("generate", "%v", err)
	}
	db, err := openStore(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	l := &loader{store: sqlstore.NewImportService(db), progress: env.stderr, total: cfg.Transactions}
	if err := l.load(ctx, g); err != nil {
		return err
	}
	l.report(env.stdout, g.Summary())
	return nil
}

// loader imports a generator's chunks and times them.
type loader struct {
	store    afftrack.ImportService
	progress io.Writer
	total    int // transactions to expect, for progress lines

	began, lastNote      time.Time
	elapsed              time.Duration
	txTime               time.Duration // from the first transaction chunk's import to the last one's end
	txImport, txGenerate time.Duration // spent in Import and in Next on transaction chunks
	transactions         int
	clicks, totalClicks  int
	clickTime            time.Duration // spent in Import on click chunks
}

// load imports every chunk in one database transaction, so a load into
// an empty database is the store's bulk load. A goroutine generates the
// next chunk while the store writes the current one: the generator keeps
// two chunks' memory, so this needs no copy.
func (l *loader) load(ctx context.Context, g *generate.Generator) error {
	type chunk struct {
		d    *afftrack.Dataset
		took time.Duration
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks := make(chan chunk)
	go func() {
		defer close(chunks)
		for {
			t0 := time.Now()
			d := g.Next()
			if d == nil {
				return
			}
			select {
			case chunks <- chunk{d, time.Since(t0)}:
			case <-ctx.Done():
				return
			}
		}
	}()
	l.began, l.lastNote = time.Now(), time.Now()
	l.totalClicks = g.Config().Clicks
	var txStart, handed time.Time
	var last *afftrack.Dataset // the chunk the store is writing
	next := func() (*afftrack.Dataset, error) {
		if last != nil {
			if n := len(last.Transactions); n > 0 {
				l.txImport += time.Since(handed)
				l.transactions += n
				l.txTime = time.Since(txStart)
			}
			if n := len(last.Clicks); n > 0 {
				l.clicks += n
				l.clickTime += time.Since(handed)
			}
			l.note(last)
		}
		c, ok := <-chunks
		if !ok {
			last = nil
			return nil, ctx.Err()
		}
		if len(c.d.Transactions) > 0 {
			if txStart.IsZero() {
				txStart = time.Now()
			}
			l.txGenerate += c.took
		}
		last, handed = c.d, time.Now()
		return c.d, nil
	}
	if _, err := l.store.ImportChunks(ctx, next); err != nil {
		if last != nil {
			return fmt.Errorf("generate: import of %s: %w", describe(last), err)
		}
		return fmt.Errorf("generate: %w", err)
	}
	// The rate counts the rebuilt indexes and the commit too, but not the
	// clicks, which come after the transactions and are timed apart.
	if !txStart.IsZero() {
		l.txTime = time.Since(txStart) - l.clickTime
	}
	l.elapsed = time.Since(l.began)
	return nil
}

// note prints a progress line at most once a second.
func (l *loader) note(d *afftrack.Dataset) {
	if time.Since(l.lastNote) < time.Second {
		return
	}
	l.lastNote = time.Now()
	if len(d.Clicks) > 0 {
		fmt.Fprintf(l.progress, "generate: %s of %s clicks (%d%%), %s elapsed\n", count(l.clicks), count(l.totalClicks),
			100*l.clicks/max(l.totalClicks, 1), roundDuration(time.Since(l.began)))
		return
	}
	if l.transactions == 0 {
		fmt.Fprintf(l.progress, "generate: %s loaded, %s elapsed\n", describe(d), roundDuration(time.Since(l.began)))
		return
	}
	fmt.Fprintf(l.progress, "generate: %s of %s transactions (%d%%), %s/s\n", count(l.transactions), count(l.total),
		100*l.transactions/max(l.total, 1), count(int(float64(l.transactions)/l.txTime.Seconds())))
}

// report prints what was loaded, how fast, and the benchmark's targets.
func (l *loader) report(w io.Writer, s generate.Summary) {
	fmt.Fprintf(w, "loaded %s merchants, %s banners, %s affiliates, %s memberships, %s transactions (%s items), %s invoices in %s\n",
		count(s.Merchants), count(s.Banners), count(s.Affiliates), count(s.Memberships), count(s.Transactions),
		count(s.Items), count(s.Invoices), roundDuration(l.elapsed))
	fmt.Fprintf(w, "and %s coupons, %s promotions, %s clicks\n", count(s.Coupons), count(s.Promotions), count(s.Clicks))
	if l.transactions > 0 {
		fmt.Fprintf(w, "transactions: %s in %s: %s transactions/s (import %s, generation %s alongside)\n",
			count(l.transactions), roundDuration(l.txTime), count(int(float64(l.transactions)/l.txTime.Seconds())),
			roundDuration(l.txImport), roundDuration(l.txGenerate))
	}
	if l.clicks > 0 {
		fmt.Fprintf(w, "clicks: %s in %s: %s clicks/s\n", count(l.clicks), roundDuration(l.clickTime),
			count(int(float64(l.clicks)/l.clickTime.Seconds())))
	}
	fmt.Fprintln(w, "benchmark targets:")
	fmt.Fprintf(w, "  largest merchant:   %d (key %s), %s transactions; %s to %s: %s\n", s.Largest.ID, s.Largest.Key,
		count(s.Largest.Transactions), s.Month.Format(time.DateOnly), s.MonthEnd.Format(time.DateOnly), count(s.MonthTransactions))
	fmt.Fprintf(w, "  mid-sized merchant: %d (key %s), %s transactions; %s: %s\n", s.Mid.ID, s.Mid.Key,
		count(s.Mid.Transactions), s.Day.Format(time.DateOnly), count(s.DayTransactions))
	fmt.Fprintf(w, "  lookup by id:       transaction %d of merchant %d\n", s.LookupID, s.Mid.ID)
	fmt.Fprintf(w, "  /V1/Merchant/Transactions/%d?apiKey=%s\n", s.LookupID, s.Mid.Key)
	fmt.Fprintf(w, "  /V1/Merchant/Transactions?apiKey=%s&fromDate=%s&toDate=%s\n", s.Mid.Key,
		s.Day.Format(time.DateOnly), s.Day.Format(time.DateOnly))
	fmt.Fprintf(w, "  /V1/Merchant/Transactions?apiKey=%s&fromDate=%s&toDate=%s\n", s.Largest.Key,
		s.Month.Format(time.DateOnly), s.MonthEnd.Format(time.DateOnly))
}

// describe names a chunk's content for messages.
func describe(d *afftrack.Dataset) string {
	for _, c := range []struct {
		n    int
		name string
	}{
		{len(d.Merchants), "merchants"}, {len(d.Banners), "banners"}, {len(d.Affiliates), "affiliates"},
		{len(d.Memberships), "memberships"}, {len(d.Transactions), "transactions"}, {len(d.Invoices), "invoices"},
		{len(d.Coupons), "coupons"}, {len(d.Promotions), "promotions"}, {len(d.Clicks), "clicks"},
	} {
		if c.n > 0 {
			return count(c.n) + " " + c.name
		}
	}
	return "an empty chunk"
}

// count formats n with thousands separators: 1,000,000.
func count(n int) string {
	if n < 0 {
		return "-" + count(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func roundDuration(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

// Command load is afftrack's load benchmark: one command that builds
// afftrack, generates a network (internal/generate) into SQLite, and into
// PostgreSQL when given one, serves it, and drives it with wrk.
//
//	go run ./bench/load [--duration 10s] [--connections 8] [--postgres URL] [--out FILE]
//
// For each scenario (lookups of random transactions of every merchant,
// lists of random days of mid-sized merchants, a one-month list of the
// largest merchant), format (JSON, XML) and backend, it measures afftrack
// and, in the same run with the same wrk settings, a bare net/http server
// answering a fixed body of the same (mean) size. Machines differ and
// drift; the ratio of the two holds, so the targets are ratios. It then
// serves each backend with the default rate limits and drives random
// lookups over every merchant's key, and, with --prest, measures pREST
// beside afftrack on PostgreSQL's random lookups under 32 connections.
// Last come the tracking scenarios (tracking.go): click redirects of
// random credited links against a bare handler answering the same 302,
// and conversions of many merchants against a bare handler committing one
// row per request to the same database, each checked against what the
// database holds after the run.
//
// It listens on loopback only, bounds every run, and stops by itself.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/afftrack/afftrack/internal/generate"
)

// config is everything the benchmark is run with.
type config struct {
	Load    loadConfig
	Warmup  time.Duration
	Network generate.Config

	SQLite        string // where to generate the SQLite database; "" is a temporary file
	Reuse         string // an SQLite file generated before with the same network flags
	Postgres      string // a PostgreSQL database to generate into, in a fresh schema
	ReusePostgres string // a PostgreSQL URL generated before with the same network flags
	NoSQLite      bool

	Only *regexp.Regexp // runs whose "scenario format backend" it matches; nil is all
	Out  string         // Markdown report file
	Perf string         // directory for perf profiles of afftrack during each run
	Keep bool           // keep the temporary directory and PostgreSQL schema
	RSS  bool           // measure peak memory of one whole-range request instead of throughput

	Prest string // a prestd binary to measure beside afftrack on PostgreSQL; "" for none
}

// parseConfig reads the command line; getenv supplies the PostgreSQL
// default that the test suites use too.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (*config, error) {
	cfg := &config{Network: generate.DefaultConfig()}
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&cfg.Load.Duration, "duration", 10*time.Second, "length of each measured run, in whole seconds")
	fs.DurationVar(&cfg.Warmup, "warmup", 2*time.Second, "unmeasured run before each measured one (0: none)")
	fs.IntVar(&cfg.Load.Threads, "threads", 1, "wrk threads")
	fs.IntVar(&cfg.Load.Connections, "connections", 8, "wrk connections, kept open")
	fs.DurationVar(&cfg.Load.Timeout, "timeout", 30*time.Second, "a request slower than this is a failure")
	n := &cfg.Network
	fs.IntVar(&n.Transactions, "transactions", n.Transactions, "transactions of the generated network")
	fs.IntVar(&n.Clicks, "clicks", n.Clicks, "clicks of the generated network; negative: ten per transaction")
	fs.IntVar(&n.Merchants, "merchants", n.Merchants, "merchants of the generated network")
	fs.IntVar(&n.Affiliates, "affiliates", n.Affiliates, "affiliates of the generated network")
	fs.Uint64Var(&n.Seed, "seed", n.Seed, "seed of the generated network")
	start := fs.String("start", n.Start.Format(time.DateOnly), "first day of the generated transactions")
	fs.IntVar(&n.Days, "days", n.Days, "days the generated transactions span")
	fs.StringVar(&cfg.SQLite, "sqlite", "", "generate the SQLite database at `FILE` (default: a temporary file, removed)")
	fs.StringVar(&cfg.Reuse, "reuse", "", "use the SQLite `FILE` generated before with the same network flags")
	fs.BoolVar(&cfg.NoSQLite, "no-sqlite", false, "measure PostgreSQL only")
	fs.StringVar(&cfg.Postgres, "postgres", getenv("AFFTRACK_TEST_POSTGRES_URL"),
		"also measure PostgreSQL: generate into a fresh schema of this database `URL` (default $AFFTRACK_TEST_POSTGRES_URL)")
	fs.StringVar(&cfg.ReusePostgres, "reuse-postgres", "", "measure PostgreSQL at this `URL`, generated before with the same network flags")
	fs.StringVar(&cfg.Prest, "prest", "", "also measure pREST, the prestd `BINARY` given (built by the operator), on PostgreSQL's random lookups")
	only := fs.String("only", "", "run only what this `REGEXP` matches in \"scenario format backend\", e.g. 'lookup|day'")
	fs.StringVar(&cfg.Out, "out", "", "also write the report as Markdown to `FILE`")
	fs.StringVar(&cfg.Perf, "perf", "", "record a perf profile of afftrack during each measured run into `DIR`")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the temporary directory and the PostgreSQL schema")
	fs.BoolVar(&cfg.RSS, "rss", false, "instead of throughput, measure afftrack's peak RSS while it answers one request for every\n"+
		"transaction of the largest merchant, in JSON and in XML, each with a server of its own (with --merchants 1,\n"+
		"every transaction of the network)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if n.Start, err = time.Parse(time.DateOnly, *start); err != nil {
		return nil, fmt.Errorf("--start: %q is not a date; use YYYY-MM-DD", *start)
	}
	if *only != "" {
		if cfg.Only, err = regexp.Compile(*only); err != nil {
			return nil, fmt.Errorf("--only: %v", err)
		}
	}
	switch {
	case cfg.Load.Duration < time.Second || cfg.Load.Duration > 10*time.Minute:
		return nil, errors.New("--duration must be between 1s and 10m")
	case cfg.Warmup < 0 || cfg.Warmup > 10*time.Minute:
		return nil, errors.New("--warmup must be between 0 and 10m")
	case cfg.Load.Threads < 1 || cfg.Load.Connections < cfg.Load.Threads:
		return nil, errors.New("--threads must be at least 1 and --connections at least --threads")
	case cfg.Reuse != "" && cfg.SQLite != "":
		return nil, errors.New("--reuse and --sqlite exclude each other")
	case cfg.NoSQLite && cfg.Postgres == "" && cfg.ReusePostgres == "":
		return nil, errors.New("--no-sqlite needs --postgres or --reuse-postgres")
	case cfg.RSS && cfg.Perf != "":
		return nil, errors.New("--rss and --perf exclude each other")
	}
	if cfg.ReusePostgres != "" {
		cfg.Postgres = "" // the database to use is given; none is generated
	}
	if _, err := generate.New(cfg.Network); err != nil {
		return nil, err
	}
	return cfg, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := parseConfig(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	if err := run(ctx, cfg, strings.Join(os.Args[1:], " "), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/afftrack/afftrack/internal/generate"
)

// scenario is one kind of request the benchmark measures.
type scenario struct {
	Name   string
	Path   string   // path and query, with the merchant's key
	Paths  []string // if set, each request is one of these at random, and Path is unused
	Target float64  // the least ratio to the baseline's requests/s; 0 for none
}

// postgresReadFloor is the PostgreSQL reads' floor: a fraction of the
// ratio the same benchmark measured for the store before the relational
// one, not a ratio of its own. The two stores' ratios must be measured
// side by side on one machine (docs/performance.md, "A ninth sitting"), so
// one run reports the ratio and leaves the verdict to that comparison.
const postgresReadFloor = 0.8

// floors returns the scenario's floors on a backend: on SQLite its Target;
// on PostgreSQL, where a read has no floor of its own, none, but the
// fraction of the old store's ratio (postgresReadFloor) instead.
func (sc scenario) floors(backendName string) (target, ofBefore float64) {
	if backendName == "postgres" && sc.Target > 0 {
		return 0, postgresReadFloor
	}
	return sc.Target, 0
}

// scenarios returns the benchmark's scenarios for the generated network:
// lookups of random transactions of every merchant, lists of random days
// of mid-sized merchants, and a month of the largest merchant.
func scenarios(s generate.Summary, smp *samples) []scenario {
	return []scenario{
		{Name: "lookup by random id", Target: 0.30, Paths: smp.lookups},
		{Name: "one-day list, random day", Target: 0.12, Paths: smp.days},
		{Name: fmt.Sprintf("one-month list (%d tx)", s.MonthTransactions),
			Path: fmt.Sprintf("/V1/Merchant/Transactions?apiKey=%s&fromDate=%s&toDate=%s", s.Largest.Key,
				s.Month.Format(time.DateOnly), s.MonthEnd.Format(time.DateOnly))},
	}
}

// format is a response format and the Accept header that asks for it.
type format struct{ Name, Accept string }

var formats = []format{{"JSON", "application/json"}, {"XML", "application/xml"}}

// backend is a database afftrack is measured on.
type backend struct {
	Name     string // sqlite or postgres
	DSN      string
	LoadRate string // `afftrack generate`'s rate line; "" when the database was reused
}

// bench is one run of the benchmark.
type bench struct {
	cfg      *config
	wrk      *wrk
	bin      string // the afftrack command
	dir      string // temporary files
	progress io.Writer
	summary  generate.Summary
	rows     []row
	rssRows  []rssRow
}

// run runs the whole benchmark and reports to stdout (and cfg.Out);
// progress goes to stderr.
func run(ctx context.Context, cfg *config, cmdline string, stdout, stderr io.Writer) (err error) {
	var w *wrk
	if !cfg.RSS { // the memory benchmark sends one request of its own
		if w, err = findWrk(); err != nil {
			return err
		}
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "afftrack-load-")
	if err != nil {
		return err
	}
	if cfg.Keep {
		fmt.Fprintln(stderr, "load: keeping temporary files in", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	b := &bench{cfg: cfg, wrk: w, dir: dir, progress: stderr}
	fmt.Fprintln(stderr, "load: building afftrack")
	if b.bin, err = buildAfftrack(ctx, root, dir); err != nil {
		return err
	}
	// The generator is deterministic: running it here, without a store,
	// names the same targets `afftrack generate` wrote, reused or not.
	if b.summary, err = plan(cfg.Network); err != nil {
		return err
	}
	backends, cleanup, err := b.prepare(ctx)
	defer func() {
		if cerr := cleanup(); err == nil {
			err = cerr
		}
	}()
	if err != nil {
		return err
	}
	for _, be := range backends {
		measure := b.measureBackend
		if cfg.RSS {
			measure = b.measureRSSBackend
		} else if err := settleLifecycle(ctx, b.bin, be.DSN, b.progress); err != nil {
			return err
		}
		if err := measure(ctx, be); err != nil {
			return err
		}
	}
	rep := &report{cfg: cfg, summary: b.summary, backends: backends, rows: b.rows, rssRows: b.rssRows,
		cmdline: cmdline, machine: describeMachine(), commit: describeCommit(ctx, root), at: time.Now().UTC()}
	markdown := rep.rssMarkdown
	if cfg.RSS {
		rep.writeRSSText(stdout)
	} else {
		rep.wrk = w.version(ctx)
		rep.writeText(stdout)
		markdown = rep.markdown
	}
	if cfg.Out != "" {
		if err := os.WriteFile(cfg.Out, []byte(markdown()), 0o644); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "load: wrote", cfg.Out)
	}
	return nil
}

// plan generates the network without storing it and returns its summary.
func plan(cfg generate.Config) (generate.Summary, error) {
	g, err := generate.New(cfg)
	if err != nil {
		return generate.Summary{}, err
	}
	for g.Next() != nil {
	}
	return g.Summary(), nil
}

// prepare generates (or takes) the databases to measure. cleanup removes
// what prepare created, and is never nil.
func (b *bench) prepare(ctx context.Context) (backends []backend, cleanup func() error, err error) {
	var drops []func() error
	cleanup = func() error {
		var errs []error
		for _, drop := range drops {
			errs = append(errs, drop())
		}
		return errors.Join(errs...)
	}
	cfg := b.cfg
	if !cfg.NoSQLite {
		be := backend{Name: "sqlite", DSN: "sqlite:" + cfg.Reuse}
		if cfg.Reuse == "" {
			path := cfg.SQLite
			if path == "" {
				path = filepath.Join(b.dir, "afftrack.db")
			}
			be.DSN = "sqlite:" + path
			fmt.Fprintln(b.progress, "load: generating the network into", path)
			if be.LoadRate, err = runGenerate(ctx, b.bin, be.DSN, cfg.Network, b.progress); err != nil {
				return nil, cleanup, err
			}
		}
		backends = append(backends, be)
	}
	switch {
	case cfg.ReusePostgres != "":
		if err := analyzePostgres(ctx, cfg.ReusePostgres); err != nil {
			return nil, cleanup, err
		}
		backends = append(backends, backend{Name: "postgres", DSN: cfg.ReusePostgres})
	case cfg.Postgres != "":
		dsn, drop, err := postgresSchema(ctx, cfg.Postgres)
		if err != nil {
			return nil, cleanup, err
		}
		if cfg.Keep {
			fmt.Fprintln(b.progress, "load: keeping the PostgreSQL database", redact(dsn))
		} else {
			drops = append(drops, drop)
		}
		be := backend{Name: "postgres", DSN: dsn}
		fmt.Fprintln(b.progress, "load: generating the network into PostgreSQL", redact(dsn))
		if be.LoadRate, err = runGenerate(ctx, b.bin, dsn, cfg.Network, b.progress); err != nil {
			return nil, cleanup, err
		}
		if err := analyzePostgres(ctx, dsn); err != nil {
			return nil, cleanup, err
		}
		backends = append(backends, be)
	}
	return backends, cleanup, nil
}

// measureBackend measures every scenario --only asks for on the
// backend: the reads, then the tracking scenarios.
func (b *bench) measureBackend(ctx context.Context, be backend) error {
	if b.wantsReads(be) {
		if err := b.measureReads(ctx, be); err != nil {
			return err
		}
	}
	if err := b.measureReports(ctx, be); err != nil {
		return err
	}
	return b.measureTracking(ctx, be)
}

// wantsReads reports whether --only asks for any of the read scenarios,
// so that a run of the tracking scenarios alone draws no samples and
// starts no server for them.
func (b *bench) wantsReads(be backend) bool {
	if b.cfg.Only == nil || b.cfg.Prest != "" && be.Name == "postgres" {
		return true
	}
	if b.wants("lookup by random id, default rate limits JSON " + be.Name) {
		return true
	}
	for _, sc := range scenarios(b.summary, &samples{}) {
		for _, f := range formats {
			if b.wants(sc.Name + " " + f.Name + " " + be.Name) {
				return true
			}
		}
	}
	return false
}

// measureReads serves the backend's database and measures every read
// scenario and format on it.
func (b *bench) measureReads(ctx context.Context, be backend) error {
	srv, err := startServer(ctx, b.bin, be.DSN, filepath.Join(b.dir, "serve-"+be.Name+".log"), false)
	if err != nil {
		return err
	}
	defer srv.kill()
	smp, err := sample(ctx, be.DSN, b.summary, b.cfg.Network)
	if err != nil {
		srv.kill()
		return err
	}
	for _, sc := range scenarios(b.summary, smp) {
		for _, f := range formats {
			name := sc.Name + " " + f.Name + " " + be.Name
			if !b.wants(name) {
				continue
			}
			fmt.Fprintln(b.progress, "load: measuring", name)
			r, err := b.measure(ctx, srv, be.Name, sc, f)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			b.rows = append(b.rows, r)
		}
	}
	if b.cfg.Prest != "" && be.Name == "postgres" {
		fmt.Fprintln(b.progress, "load: measuring afftrack and pREST, 32 connections")
		r, err := b.measurePrest(ctx, srv, be, smp)
		if err != nil {
			return fmt.Errorf("pREST: %w", err)
		}
		b.rows = append(b.rows, r)
	}
	if err := srv.stop(); err != nil {
		return err
	}
	name := "lookup by random id, default rate limits JSON " + be.Name
	if !b.wants(name) {
		return nil
	}
	fmt.Fprintln(b.progress, "load: measuring", name)
	r, err := b.measureLimited(ctx, be, smp)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	b.rows = append(b.rows, r)
	return nil
}

// measureLimited serves the backend with the server's default rate limits
// (30 calls a minute, 1,000 a day, one at a time per account) and every
// merchant's own limits removed, and drives lookups spread over every
// merchant's key: what the limiter itself costs when most calls are
// admitted and some refused. The generated limits are put back after.
func (b *bench) measureLimited(ctx context.Context, be backend, smp *samples) (row, error) {
	r := row{Scenario: "lookup by random id, default rate limits", Format: "JSON", Backend: be.Name, Limited: true}
	if err := setMerchantLimits(ctx, be.DSN, false); err != nil {
		return r, err
	}
	defer setMerchantLimits(context.WithoutCancel(ctx), be.DSN, true)
	srv, err := startServer(ctx, b.bin, be.DSN, filepath.Join(b.dir, "serve-limited-"+be.Name+".log"), true)
	if err != nil {
		return r, err
	}
	defer srv.kill()
	sc := scenario{Name: r.Scenario, Paths: smp.lookups}
	m, err := b.measure(ctx, srv, be.Name, sc, formats[0])
	if err != nil {
		return r, err
	}
	m.Limited, m.Target, m.Note = true, 0, ""
	return m, srv.stop()
}

// measure runs one scenario and format against afftrack and against a
// baseline serving a body of the same size.
func (b *bench) measure(ctx context.Context, srv *server, backendName string, sc scenario, f format) (row, error) {
	r := row{Scenario: sc.Name, Format: f.Name, Backend: backendName}
	r.Target, r.OfBefore = sc.floors(backendName)
	url := srv.base + sc.Path
	accept := "Accept: " + f.Accept
	var script string
	var body []byte
	var contentType string
	var err error
	if len(sc.Paths) > 0 {
		// The baseline answers the body of the average size of a sample
		// of the requests, so both move as many bytes.
		if body, contentType, err = typicalBody(ctx, srv.base, sc.Paths, f.Accept); err != nil {
			return r, err
		}
		script = filepath.Join(b.dir, r.fileName()+".lua")
		if err := os.WriteFile(script, []byte(luaScript(sc.Paths)), 0o644); err != nil {
			return r, err
		}
		url = srv.base + "/"
	} else {
		if body, contentType, err = fetch(ctx, url, f.Accept); err != nil {
			return r, fmt.Errorf("%w; the database does not hold the network these flags generate (see --reuse)", err)
		}
	}
	r.BodyBytes = len(body)
	warm := b.cfg.Load
	warm.Duration = b.cfg.Warmup
	if err := srv.clearLog(); err != nil {
		return r, err
	}
	if warm.Duration >= time.Second {
		if _, err := b.wrk.run(ctx, warm, url, script, accept); err != nil {
			return r, err
		}
	}
	var prof *perfRun
	if b.cfg.Perf != "" {
		if prof, err = startPerf(ctx, b.cfg.Perf, r.fileName(), srv.pid(), b.cfg.Load.Duration); err != nil {
			return r, err
		}
	}
	r.Afftrack, err = b.wrk.run(ctx, b.cfg.Load, url, script, accept)
	if prof != nil {
		if perr := prof.finish(ctx); err == nil {
			err = perr
		}
		r.Profile = prof.top
	}
	if err != nil {
		return r, err
	}
	if r.Afftrack.failed() {
		r.Note = fmt.Sprintf("afftrack: %d non-2xx, %d socket errors; the server's failed requests:\n%s",
			r.Afftrack.Non2xx, r.Afftrack.SocketErrors, srv.failedLines())
	}

	base, err := startBaseline(body, contentType)
	if err != nil {
		return r, err
	}
	defer base.stop()
	if warm.Duration >= time.Second {
		if _, err := b.wrk.run(ctx, warm, base.url, "", accept); err != nil {
			return r, err
		}
	}
	if r.Baseline, err = b.wrk.run(ctx, b.cfg.Load, base.url, "", accept); err != nil {
		return r, err
	}
	return r, base.stop()
}

// typicalBody fetches a sample of paths and returns the body whose size is
// nearest the sample's mean, and its Content-Type.
func typicalBody(ctx context.Context, base string, paths []string, accept string) ([]byte, string, error) {
	var bodies [][]byte
	var contentType string
	total := 0
	for i := 0; i < len(paths) && i < 50; i++ {
		body, ct, err := fetch(ctx, base+paths[i*len(paths)/min(len(paths), 50)], accept)
		if err != nil {
			return nil, "", err
		}
		bodies, contentType, total = append(bodies, body), ct, total+len(body)
	}
	mean := total / len(bodies)
	best := bodies[0]
	for _, b := range bodies {
		if abs(len(b)-mean) < abs(len(best)-mean) {
			best = b
		}
	}
	return best, contentType, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// fetch gets url once with the given Accept header and returns the body
// and its Content-Type; anything but a 200 is an error.
func fetch(ctx context.Context, url, accept string) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("GET %s: %s: %.300s", redactKey(url), resp.Status, body)
	}
	return body, resp.Header.Get("Content-Type"), nil
}

// redactKey hides a generated key in a URL shown in a message; generated
// keys are no secret, but the habit is worth keeping.
func redactKey(url string) string {
	before, after, ok := strings.Cut(url, "apiKey=")
	if !ok {
		return url
	}
	_, rest, _ := strings.Cut(after, "&")
	if rest != "" {
		rest = "&" + rest
	}
	return before + "apiKey=REDACTED" + rest
}

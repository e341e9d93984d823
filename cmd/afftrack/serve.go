package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/api"
	"github.com/afftrack/afftrack/internal/demo"
	"github.com/afftrack/afftrack/internal/keycache"
	"github.com/afftrack/afftrack/internal/metrics"
	"github.com/afftrack/afftrack/internal/ratelimit"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// serveConfig is everything `afftrack serve` is configured with.
type serveConfig struct {
	Addr            string
	DB              string
	DBMaxConns      int
	PublicURL       string
	TrackingURL     string
	Timezone        string
	Redis           string
	RedisPrefix     string
	RateFailClosed  bool
	Limits          afftrack.Limits
	Demo            bool
	LogFormat       string
	WriteTimeout    time.Duration
	MaxListStreams  int
	MaxConns        int
	AuthFailures    int
	ShutdownTimeout time.Duration
	KeyCacheTTL     time.Duration
	MetricsAddr     string
	Currency        string
	GeoIP           string
	TrustProxy      bool
	ClickFlush      time.Duration
	ClickBuffer     int
	LifecycleEvery  time.Duration
	NotifyPrivate   bool
	NotifyRetry     time.Duration
}

func (c *serveConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&c.DB, "db", defaultDB, dbUsage)
	intFlag(fs, &c.DBMaxConns, "db-max-conns", 0, "database connections open at once at most, 2 or more; a request waits for a free one (0: 4 per CPU, at least 8; on SQLite one more, for the writes)")
	fs.StringVar(&c.PublicURL, "public-url", "", "public base URL; XML namespaces and tracking links derive from it (default http:// and the --addr host and port, localhost for 127.0.0.1, ::1 or a wildcard host)")
	fs.StringVar(&c.TrackingURL, "tracking-url", "", "the base URL of every tracking link and of the pixel (default PUBLIC-URL/t)")
	fs.StringVar(&c.Timezone, "timezone", "UTC", "the network's time zone (IANA name)")
	fs.StringVar(&c.Redis, "redis", "", "Redis URL for rate limits shared by replicas (default: in process)")
	fs.StringVar(&c.RedisPrefix, "redis-prefix", "afftrack:rl:", "prefix of the rate-limit keys in Redis, so several networks can share one Redis")
	fs.BoolVar(&c.RateFailClosed, "rate-fail-closed", false, "refuse calls while Redis is unreachable instead of serving them")
	intFlag(fs, &c.Limits.PerMinute, "rate-per-minute", 30, "default calls per account in any 60 s (0: no limit)")
	intFlag(fs, &c.Limits.PerDay, "rate-per-day", 1000, "default calls per account in any 24 h (0: no limit)")
	intFlag(fs, &c.Limits.Concurrent, "rate-concurrent", 1, "default requests in progress per account (0: no limit)")
	fs.BoolVar(&c.Demo, "demo", false, "serve a demo data set and print its API keys: from memory, or loaded into --db when that is given")
	fs.StringVar(&c.LogFormat, "log-format", "text", "log format: text or json")
	fs.DurationVar(&c.WriteTimeout, "write-timeout", 30*time.Second, "cut a client that takes no part of a response for this long (0: never)")
	intFlag(fs, &c.MaxListStreams, "max-list-streams", 64, "transaction lists streamed at once, server-wide, and at most --db-max-conns less a quarter (2 or more kept for other requests, 1 of a pool of 2); one more waits a second, then 503 (0: the connections' share alone)")
	intFlag(fs, &c.MaxConns, "max-conns", 4096, "client connections open at once; one more takes the place of one silent for 2 s or idle for 10 s, else it is closed as it arrives (0: no bound)")
	intFlag(fs, &c.AuthFailures, "auth-failures-per-minute", 20, "failed authentications one client address may make in a minute before its key lookups are slowed to one every minute/N, 429 beyond a 5 s wait (0: no bound)")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", 20*time.Second, "how long to let requests in flight finish on SIGINT/SIGTERM")
	fs.DurationVar(&c.KeyCacheTTL, "key-cache-ttl", keycache.DefaultTTL, "how long a key lookup is reused; a revoked key or changed account applies within it (0: no cache)")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", "", "serve /metrics on this address only, e.g. an internal port (default: on --addr)")
	fs.StringVar(&c.Currency, "currency", "AUD", "the network's currency (ISO 4217): commissions are paid in it and sales converted to it")
	fs.StringVar(&c.GeoIP, "geoip", "", "a MaxMind-format country database (GeoLite2-Country.mmdb) to place clicks in countries (default: none)")
	fs.BoolVar(&c.TrustProxy, "trust-proxy", false, "take each client's address (a click's customer, the failed-authentication budget) from the first X-Forwarded-For entry (only behind a proxy that replaces it)")
	fs.DurationVar(&c.ClickFlush, "click-flush", 100*time.Millisecond, "how often clicks are written to the database; the most a crash can lose")
	intFlag(fs, &c.ClickBuffer, "click-buffer", 100_000, "clicks held while the database cannot take them; more are dropped and counted")
	fs.DurationVar(&c.LifecycleEvery, "lifecycle-interval", time.Minute, "how often to lock the transactions whose validation date has come (0: never; run afftrack lifecycle run instead)")
	fs.BoolVar(&c.NotifyPrivate, "notify-allow-private", false, "let affiliates' notifications reach loopback, private and link-local addresses (for tests)")
	fs.DurationVar(&c.NotifyRetry, "notify-first-retry", 30*time.Second, "wait after a notification's first failed call; it doubles with each failure, up to an hour")
}

func runServe(ctx context.Context, env *cliEnv, args []string) error {
	var cfg serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	setUsage(fs, "afftrack serve [flags]", "Serves the API on --addr from the database --db (migrated first). See docs/cli.md.")
	cfg.flags(fs)
	if rest, err := env.parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usageError("serve", "serve takes no arguments, got %q", rest)
	}
	if cfg.Limits.PerMinute < 0 || cfg.Limits.PerDay < 0 || cfg.Limits.Concurrent < 0 {
		return usageError("serve", "rate limits cannot be negative")
	}
	if cfg.DBMaxConns < 0 || cfg.DBMaxConns == 1 {
		return usageError("serve", "--db-max-conns must be 0 (the default) or at least %d", sqlstore.MinOpenConns)
	}
	if cfg.KeyCacheTTL < 0 {
		return usageError("serve", "--key-cache-ttl cannot be negative")
	}
	if cfg.WriteTimeout < 0 || cfg.ShutdownTimeout < 0 || cfg.MaxListStreams < 0 || cfg.MaxConns < 0 || cfg.AuthFailures < 0 {
		return usageError("serve", "--write-timeout, --shutdown-timeout, --max-list-streams, --max-conns and --auth-failures-per-minute cannot be negative")
	}
	if cfg.ClickFlush <= 0 || cfg.ClickBuffer < 1 {
		return usageError("serve", "--click-flush and --click-buffer must be positive")
	}
	if cfg.LifecycleEvery < 0 {
		return usageError("serve", "--lifecycle-interval cannot be negative")
	}
	if cfg.NotifyRetry <= 0 {
		return usageError("serve", "--notify-first-retry must be positive")
	}
	logger, err := newLogger(cfg.LogFormat, env.stderr)
	if err != nil {
		return err
	}
	loc, err := networkZone("serve", cfg.Timezone)
	if err != nil {
		return err
	}
	cfg.Currency = strings.ToUpper(cfg.Currency)
	if _, ok := afftrack.CurrencyName(cfg.Currency); !ok {
		return usageError("serve", "--currency %q is not an ISO 4217 currency code", cfg.Currency)
	}
	if err := checkBaseURL("--public-url", cfg.PublicURL); err != nil {
		return err
	}
	if err := checkBaseURL("--tracking-url", cfg.TrackingURL); err != nil {
		return err
	}
	// The addresses are checked before the database is opened, as the
	// other flags are; one that is well formed but taken still fails at
	// listen.
	for _, a := range []struct{ flag, addr string }{{"--addr", cfg.Addr}, {"--metrics-addr", cfg.MetricsAddr}} {
		if a.addr == "" {
			continue // no --metrics-addr: /metrics is served on --addr
		}
		if _, err := net.ResolveTCPAddr("tcp", a.addr); err != nil {
			return usageError("serve", "%s %q: %v", a.flag, a.addr, err)
		}
	}
	var redisOpts *redis.Options
	if cfg.Redis != "" {
		// Parsed before the database is opened: a mistake opens nothing.
		if redisOpts, err = redis.ParseURL(cfg.Redis); err != nil {
			return usageError("serve", "--redis %s: %v", redactDSN(cfg.Redis), redactError(urlError(err), cfg.Redis))
		}
	}

	dsn := cfg.DB
	dbGiven := false
	fs.Visit(func(f *flag.Flag) { dbGiven = dbGiven || f.Name == "db" })
	if cfg.Demo && !dbGiven {
		// A demo writes nothing to disk unless asked: with --db, the
		// command line (validate, release, payouts) can reach its data.
		dsn = "sqlite::memory:"
	}
	geo, err := openGeoIP(cfg)
	if err != nil {
		return err
	}
	if geo != nil {
		defer geo.Close()
	}
	db, err := openStore(ctx, dsn, sqlstore.Options{MaxOpenConns: cfg.DBMaxConns})
	if err != nil {
		return err
	}
	defer db.Close()
	if v := db.NewerSchema(); v != 0 {
		// Served as documented for a roll-out (migrations only add), but
		// said: a rollback leaves this release without the newer checks.
		logger.Warn("the database was migrated by a newer afftrack release; this one lacks its checks",
			"migration", v)
	}
	if err := db.CheckTimeZone(ctx, loc.String()); err != nil {
		return err
	}
	if err := db.CheckCurrency(ctx, cfg.Currency); err != nil {
		return err
	}
	if cfg.Demo {
		if err := loadDemo(ctx, db, loc, env, dbGiven); err != nil {
			return err
		}
	}

	m := metrics.New(logger)
	if err := m.RegisterDB(db.SQL()); err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	limiter, closeLimiter := newLimiter(ctx, cfg, redisOpts, logger, m.RateLimiterError)
	defer closeLimiter()
	tr, err := newTracking(ctx, cfg, db, geo, loc, logger, m)
	if err != nil {
		return err
	}
	defer tr.close()

	svc := api.Services{
		// Every call authenticates; the cache keeps that off the
		// database, at the price of changes taking up to the TTL to apply.
		Accounts:      keycache.New(sqlstore.NewAccountService(db), keycache.Options{TTL: cfg.KeyCacheTTL}),
		Transactions:  sqlstore.NewTransactionService(db),
		Banners:       sqlstore.NewBannerService(db),
		Invoices:      sqlstore.NewInvoiceService(db),
		RateLimiter:   limiter,
		Ready:         db.Ping,
		Observer:      m,
		Tracking:      tr.links,
		Clicks:        tr.clicks,
		Conversions:   tr.conversions,
		Lifecycle:     tr.lifecycle,
		Offers:        sqlstore.NewOfferService(db),
		Reports:       sqlstore.NewReportService(db),
		Catalog:       sqlstore.NewCatalogService(db),
		MerchantViews: sqlstore.NewMerchantViewService(db),
		IPHashKey:     tr.ipKey,
	}
	if tr.geo != nil {
		svc.Countries = tr.geo
	}
	if cfg.MetricsAddr == "" {
		svc.Metrics = m.Handler()
	}
	if limit, ok := openFileLimit(); ok {
		if capped := connsWithin(cfg.MaxConns, limit); capped != cfg.MaxConns {
			logger.Warn("client connections are bounded by what the limit of open files leaves",
				"max_conns", cfg.MaxConns, "open_files", limit, "bound", capped)
			cfg.MaxConns = capped
		}
	}
	servers, err := listen(cfg, m.Handler(), logger)
	if err != nil {
		return err
	}
	publicURL := cfg.PublicURL
	if publicURL == "" {
		publicURL = derivePublicURL(servers[0].ln.Addr())
	}
	server := api.NewServer(api.Config{
		PublicURL:             publicURL,
		TrackingBaseURL:       cfg.TrackingURL,
		DefaultLimits:         cfg.Limits,
		WriteTimeout:          cfg.WriteTimeout,
		MaxListStreams:        listStreams(cfg.MaxListStreams, cfg.DBMaxConns),
		AuthFailuresPerMinute: cfg.AuthFailures,
		Currency:              cfg.Currency,
		Location:              loc,
		TrustProxy:            cfg.TrustProxy,
		ClickFlush:            cfg.ClickFlush,
	}, svc, logger, time.Now)
	servers[0].http.Handler = server.Handler()

	// The scheduled work runs beside the API until the stop begins; the
	// notification calls under way then may finish within the timeout.
	workCtx, stopWork := context.WithCancel(ctx)
	drainWork, cutWork := context.WithCancel(context.WithoutCancel(ctx))
	work := tr.startWork(workCtx, drainWork, cfg, logger)
	defer func() { stopWork(); cutWork(); work.Wait() }()

	served := make(chan error, len(servers))
	for _, s := range servers {
		go func() { served <- s.http.Serve(s.ln) }()
	}
	fmt.Fprintf(env.stdout, "afftrack listening on http://%s\n", shownAddr(cfg.Addr, servers[0].ln.Addr()))
	if len(servers) > 1 {
		fmt.Fprintf(env.stdout, "afftrack metrics on http://%s/metrics\n", shownAddr(cfg.MetricsAddr, servers[1].ln.Addr()))
	}
	logger.Info("listening", "addr", servers[0].ln.Addr().String(), "db", redactDSN(dsn), "timezone", loc.String(),
		"key_cache_ttl", cfg.KeyCacheTTL.String())

	select {
	case err := <-served:
		// One listener failed: the process cannot serve as configured.
		for _, s := range servers {
			s.http.Close()
		}
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	context.AfterFunc(shutdownCtx, cutWork)
	// The requests may take all but the last quarter of the timeout (at
	// most 5 s of it), which is kept for writing the clicks they made: a
	// client that never finishes must not cost the clicks of the others.
	drainCtx, cancelDrain := context.WithTimeout(shutdownCtx, cfg.ShutdownTimeout-min(cfg.ShutdownTimeout/4, 5*time.Second))
	defer cancelDrain()
	// The API drains first, so the metrics can be scraped while it does.
	for _, s := range servers {
		if err := s.http.Shutdown(drainCtx); err != nil {
			// Requests still running after the timeout (a client that
			// reads slowly, say) are cut: the stop was asked for, and it
			// is not an error of the server's.
			logger.Warn("cutting the requests still in flight", "error", err)
			s.http.Close()
		}
	}
	for range servers {
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	// Every request is answered or cut: the clicks they made are written
	// now, within what is left of the timeout.
	if err := tr.clicks.Close(shutdownCtx); err != nil {
		logger.Error("clicks lost at stop", "error", err)
	}
	work.Wait() // the notification calls under way, cut when the timeout ends
	logger.Info("stopped")
	return nil
}

// listening is an HTTP server and the listener it is to serve.
type listening struct {
	http *http.Server
	ln   net.Listener
}

// listen opens the API's listener and, with --metrics-addr, a second one
// that serves only /metrics, so the metrics can stay on an internal port
// while the API faces the internet. The API's comes first.
// The API's server gets its handler once the public URL, which may
// depend on the port the listener got, is known.
func listen(cfg serveConfig, metricsHandler http.Handler, logger *slog.Logger) ([]listening, error) {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, err
	}
	ln = capConns(boundSendBuffers(ln), cfg.MaxConns)
	servers := []listening{capped(newHTTPServer(nil, logger), ln)}
	if cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("--metrics-addr: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metricsHandler)
		// The metrics listener shares the process's file descriptors and
		// shutdown with the API's, so it is bounded as tightly: a few
		// connections for the scrapers, a deadline on the whole request
		// and on the answer, and no body waited for.
		msrv := newHTTPServer(withoutBodies(mux), logger)
		msrv.ReadTimeout, msrv.WriteTimeout = 10*time.Second, 30*time.Second
		servers = append(servers, capped(msrv, capConns(mln, metricsMaxConns)))
	}
	return servers, nil
}

// reservedFiles are the open files kept beside the client connections:
// the database's (a SQLite file, its log and index, or PostgreSQL's
// connections), Redis's, the metrics listener's, the log and the rest.
const reservedFiles = 256

// connsWithin returns the client connections to allow, want (0: no
// bound) or fewer, so that they and the files the process needs besides
// stay within limit open files: past it, accept fails, and with it every
// other request of the process.
func connsWithin(want int, limit uint64) int {
	room := limit / 2
	if limit > 2*reservedFiles {
		room = limit - reservedFiles
	}
	room = max(min(room, 1<<20), 1)
	if want == 0 || uint64(want) > room {
		return int(room)
	}
	return want
}

// metricsMaxConns bounds the connections of the --metrics-addr listener:
// its clients are a few scrapers.
const metricsMaxConns = 32

// withoutBodies answers a request that carries a body 400 and closes its
// connection: the metrics listener reads no body, and net/http would
// otherwise wait for one, to discard it, before it answers; a read
// deadline already past makes it give up at once.
func withoutBodies(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 {
			w.Header().Set("Connection", "close")
			_ = http.NewResponseController(w).SetReadDeadline(time.Now())
			http.Error(w, "the request has a body; /metrics takes none", http.StatusBadRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// newHTTPServer returns a server for h with timeouts that keep a slow or
// idle client from holding a connection for ever.
func newHTTPServer(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// net/http's own answer to "OPTIONS *" reads up to 4 KiB of a
		// body with no deadline; the API's handler answers it instead,
		// closing the connection on a body it does not read.
		DisableGeneralOptionsHandler: true,
	}
}

// The --db flag of every command that touches data.
const (
	defaultDB = "sqlite:afftrack.db"
	dbUsage   = "database: sqlite:PATH or a postgres:// URL"
)

// dbFlag defines --db on fs.
func dbFlag(fs *flag.FlagSet) *string { return fs.String("db", defaultDB, dbUsage) }

// openStore opens the database and applies pending migrations.
func openStore(ctx context.Context, dsn string, opts ...sqlstore.Options) (*sqlstore.DB, error) {
	db, err := sqlstore.Open(ctx, dsn, opts...)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", redactDSN(dsn), redactError(err, dsn))
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate %s: %w", redactDSN(dsn), redactError(err, dsn))
	}
	return db, nil
}

// openExistingStore is openStore for the commands that read or change
// what a database already holds: a SQLite file that does not exist is an
// error, where opening it would create and migrate an empty database at
// a mistyped path. Only serve, import, migrate, generate and account
// create make one.
func openExistingStore(ctx context.Context, dsn string) (*sqlstore.DB, error) {
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok && path != "" && path != ":memory:" {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no database at %s; make one with afftrack import, serve or migrate", path)
		}
	}
	return openStore(ctx, dsn)
}

// loadDemo imports the demo data set and prints its keys.
func loadDemo(ctx context.Context, db *sqlstore.DB, loc *time.Location, env *cliEnv, onDisk bool) error {
	d, err := demo.Dataset(loc)
	if err != nil {
		return fmt.Errorf("demo data: %w", err)
	}
	// A database that holds accounts keeps them: an earlier --demo's, whose
	// sales may be paid already (loaded again, a paid one would be
	// Approved and paid twice), or a network of the operator's own.
	held := false
	if onDisk {
		if held, err = sqlstore.NewAccountService(db).HoldsAccounts(ctx); err != nil {
			return err
		}
	}
	if !held {
		if _, err := sqlstore.NewImportService(db).Import(ctx, d); err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
	}
	switch {
	case held:
		fmt.Fprintln(env.stdout, "afftrack demo: --db holds accounts already, kept as they are; the demo is loaded only into a database without any.")
		fmt.Fprintln(env.stdout, "The keys below are its keys if an earlier --demo loaded it.")
	case onDisk:
		fmt.Fprintln(env.stdout, "afftrack demo: a small network, loaded into --db.")
	default:
		fmt.Fprintln(env.stdout, "afftrack demo: a small network in memory; nothing is written to disk.")
	}
	fmt.Fprintln(env.stdout, "Demo API keys:")
	for _, k := range demo.Keys(d) {
		fmt.Fprintf(env.stdout, "  %-9s %d  %-18s %-9s  %s\n", k.Account.Kind, k.Account.ID, k.Owner, k.Status, k.Secret)
	}
	return nil
}

// newLimiter returns the in-process limiter, or with opts, --redis's, the
// Redis one (wrapped to fail open or closed, calling onError on each
// failure).
func newLimiter(ctx context.Context, cfg serveConfig, opts *redis.Options, logger *slog.Logger, onError func()) (afftrack.RateLimiter, func()) {
	if opts == nil {
		return ratelimit.NewMemory(), func() {}
	}
	// go-redis logs through one process-wide logger of its own; it is set
	// here, where the one client is made, so its lines take our format.
	redis.SetLogger(ratelimit.NewRedisLogger(logger, time.Minute, nil))
	// A rate-limit check sits on every request's path: when Redis is down
	// it must fail over in milliseconds, not after go-redis's default
	// retries and five-second dials.
	opts.DialTimeout = 500 * time.Millisecond
	opts.ReadTimeout = 500 * time.Millisecond
	opts.WriteTimeout = 500 * time.Millisecond
	opts.DialerRetries = 1
	opts.MaxRetries = 1
	client := redis.NewClient(opts)
	if err := client.Ping(ctx).Err(); err != nil {
		logger.Warn("redis is not answering; rate limits follow --rate-fail-closed until it does", "err", redactError(err, cfg.Redis))
	}
	inner := ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: cfg.RedisPrefix, Logger: logger})
	limiter := ratelimit.NewFailover(inner, cfg.RateFailClosed, logger, onError, time.Now)
	return limiter, func() { client.Close() }
}

// newLogger returns the process's logger in the chosen format.
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, usageError("serve", "--log-format must be text or json, not %q", format)
}

// checkBaseURL checks the value of --public-url or --tracking-url (name):
// empty (derived), or an absolute http or https URL with a host and
// nothing a base URL cannot carry on. The XML namespaces and every
// tracking link are this URL and a path, so "api.example.net" would make
// the namespace "api.example.net/V1/Merchant", "javascript:" a link that
// runs script, a query or a fragment links whose path is lost, and
// user information links that hand out a password. The value is not
// echoed: it may hold one.
func checkBaseURL(name, s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || afftrack.WebURLProblem(s) != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#") {
		return usageError("serve", "%s must be an absolute http or https URL with a host and no user information, query or fragment, such as https://api.example.net", name)
	}
	// The path prefixes the routes, so it must be one a request's path can
	// match as written: "//", "/./" or "/a/.." would make routes no
	// request reaches (net/http refuses to register them), and escapes
	// or wildcard braces would make them depend on how a client encodes.
	for _, seg := range strings.Split(strings.TrimSuffix(u.Path, "/"), "/")[1:] {
		if seg == "" || seg == "." || seg == ".." || strings.Trim(seg, plainPathChars) != "" || u.RawPath != "" {
			return usageError("serve", "%s's path %q must be segments of letters, digits and - . _ ~, none of them empty, . or ..", name, u.EscapedPath())
		}
	}
	return nil
}

// plainPathChars are the characters a base URL's path segment may hold.
const plainPathChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"

// derivePublicURL is the public URL of a server listening on addr: its
// host and port, with localhost for a loopback address or one that
// listens on every interface, as contract.md §1 pins it: the name a
// browser on the same machine uses. (localhost does not reach a server
// listening on 127.0.0.2 alone; its operator sets --public-url.)
func derivePublicURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); host == "" || ip == nil || ip.IsLoopback() || ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// shownAddr is the address a listener got, as the operator gave it: Go
// listens on every interface of both families for "0.0.0.0:8080" and
// reports "[::]:8080", which reads as if the operator's choice were
// ignored. The given host is kept; the port is the one got, so that
// ":0" shows the port the kernel picked.
func shownAddr(given string, got net.Addr) string {
	host, _, err := net.SplitHostPort(given)
	_, port, err2 := net.SplitHostPort(got.String())
	if err != nil || err2 != nil || host == "" {
		return got.String()
	}
	return net.JoinHostPort(host, port)
}

// listStreams is how many transaction lists serve streams at once. A list
// holds a database connection for as long as its client takes to read
// it, so whatever the operator allows (requested, 0 for no bound of its
// own), lists hold at most the pool of dbConns (0 for the default) less a
// quarter, and at least two are left (one of a pool of two): lists whose
// clients stopped reading (each held up to --write-timeout) leave
// connections for every other request.
func listStreams(requested, dbConns int) int {
	if dbConns <= 0 {
		dbConns = sqlstore.DefaultMaxOpenConns()
	}
	share := max(1, dbConns-max(2, dbConns/4))
	if requested == 0 || requested > share {
		return share
	}
	return requested
}

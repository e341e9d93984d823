package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/api"
	"github.com/afftrack/afftrack/internal/demo"
	"github.com/afftrack/afftrack/internal/ratelimit"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// serveConfig is everything `afftrack serve` is configured with.
type serveConfig struct {
	Addr            string
	DB              string
	PublicURL       string
	TrackingURL     string
	Timezone        string
	Redis           string
	RedisPrefix     string
	RateFailClosed  bool
	Limits          afftrack.Limits
	Demo            bool
	LogFormat       string
	ShutdownTimeout time.Duration
}

func (c *serveConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.Addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&c.DB, "db", "sqlite:afftrack.db", "database: sqlite:PATH or a postgres:// URL")
	fs.StringVar(&c.PublicURL, "public-url", "http://localhost:8080", "public base URL; XML namespaces and tracking links derive from it")
	fs.StringVar(&c.TrackingURL, "tracking-url", "", "tracking base URL for banner links (default PUBLIC-URL/t)")
	fs.StringVar(&c.Timezone, "timezone", "UTC", "the network's time zone (IANA name)")
	fs.StringVar(&c.Redis, "redis", "", "Redis URL for rate limits shared by replicas (default: in process)")
	fs.StringVar(&c.RedisPrefix, "redis-prefix", "afftrack:rl:", "prefix of the rate-limit keys in Redis, so several networks can share one Redis")
	fs.BoolVar(&c.RateFailClosed, "rate-fail-closed", false, "refuse calls while Redis is unreachable instead of serving them")
	fs.Int64Var(&c.Limits.PerMinute, "rate-per-minute", 30, "default calls per account in any 60 s (0: no limit)")
	fs.Int64Var(&c.Limits.PerDay, "rate-per-day", 1000, "default calls per account in any 24 h (0: no limit)")
	fs.Int64Var(&c.Limits.Concurrent, "rate-concurrent", 1, "default requests in progress per account (0: no limit)")
	fs.BoolVar(&c.Demo, "demo", false, "serve a demo data set from memory (ignores --db) and print its API keys")
	fs.StringVar(&c.LogFormat, "log-format", "text", "log format: text or json")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", 20*time.Second, "how long to let requests in flight finish on SIGINT/SIGTERM")
}

func runServe(ctx context.Context, env *cliEnv, args []string) error {
	var cfg serveConfig
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg.flags(fs)
	if rest, err := env.parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return fmt.Errorf("%w: serve takes no arguments, got %q", errUsage, rest)
	}
	if cfg.Limits.PerMinute < 0 || cfg.Limits.PerDay < 0 || cfg.Limits.Concurrent < 0 {
		return fmt.Errorf("%w: rate limits cannot be negative", errUsage)
	}
	logger, err := newLogger(cfg.LogFormat, env.stderr)
	if err != nil {
		return err
	}
	loc, err := time.LoadLocation(cfg.Timezone)
	if err != nil {
		return fmt.Errorf("%w: --timezone: %v", errUsage, err)
	}

	dsn := cfg.DB
	if cfg.Demo {
		dsn = "sqlite::memory:"
	}
	db, err := openStore(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if cfg.Demo {
		if err := loadDemo(ctx, db, loc, env); err != nil {
			return err
		}
	}

	limiter, closeLimiter, err := newLimiter(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer closeLimiter()

	server := api.NewServer(api.Config{
		PublicURL:       cfg.PublicURL,
		TrackingBaseURL: cfg.TrackingURL,
		DefaultLimits:   cfg.Limits,
	}, api.Services{
		Accounts:     sqlstore.NewAccountService(db),
		Transactions: sqlstore.NewTransactionService(db),
		Banners:      sqlstore.NewBannerService(db),
		Invoices:     sqlstore.NewInvoiceService(db),
		RateLimiter:  limiter,
		Ready:        db.Ping,
	}, logger, time.Now)

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	httpServer := &http.Server{
		Handler:           server.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	fmt.Fprintf(env.stdout, "afftrack listening on http://%s\n", ln.Addr())
	logger.Info("listening", "addr", ln.Addr().String(), "db", redactDSN(dsn), "timezone", loc.String())

	served := make(chan error, 1)
	go func() { served <- httpServer.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := httpServer.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}

// openStore opens the database and applies pending migrations.
func openStore(ctx context.Context, dsn string) (*sqlstore.DB, error) {
	db, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", redactDSN(dsn), err)
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate %s: %w", redactDSN(dsn), err)
	}
	return db, nil
}

// loadDemo imports the demo data set and prints its keys.
func loadDemo(ctx context.Context, db *sqlstore.DB, loc *time.Location, env *cliEnv) error {
	d, err := demo.Dataset(loc)
	if err != nil {
		return fmt.Errorf("demo data: %w", err)
	}
	if _, err := sqlstore.NewImportService(db).Import(ctx, d); err != nil {
		return fmt.Errorf("demo data: %w", err)
	}
	fmt.Fprintln(env.stdout, "afftrack demo: a small network in memory; nothing is written to disk.")
	fmt.Fprintln(env.stdout, "Demo API keys:")
	for _, k := range demo.Keys(d) {
		fmt.Fprintf(env.stdout, "  %-9s %d  %-18s %-9s  %s\n", k.Account.Kind, k.Account.ID, k.Owner, k.Status, k.Secret)
	}
	return nil
}

// newLimiter returns the in-process limiter, or the Redis one (wrapped to
// fail open or closed) when --redis is set.
func newLimiter(ctx context.Context, cfg serveConfig, logger *slog.Logger) (afftrack.RateLimiter, func(), error) {
	if cfg.Redis == "" {
		return ratelimit.NewMemory(), func() {}, nil
	}
	opts, err := redis.ParseURL(cfg.Redis)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: --redis: %v", errUsage, err)
	}
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
		logger.Warn("redis is not answering; rate limits follow --rate-fail-closed until it does", "err", err)
	}
	inner := ratelimit.NewRedis(client, ratelimit.RedisOptions{Prefix: cfg.RedisPrefix, Logger: logger})
	limiter := ratelimit.NewFailover(inner, cfg.RateFailClosed, logger, func() {}, time.Now)
	return limiter, func() { client.Close() }, nil
}

// newLogger returns the process's logger in the chosen format.
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, fmt.Errorf("%w: --log-format must be text or json, not %q", errUsage, format)
}

// redactDSN hides a password in a database URL before it is logged.
func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	return u.Redacted()
}

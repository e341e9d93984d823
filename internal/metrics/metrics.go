// Package metrics exposes afftrack's Prometheus metrics: requests by route,
// method and status, their durations, rate-limit refusals, rate-limiter
// failures, the store's connection pool, the tracking engine's clicks and
// conversions, and the Go runtime and process.
//
// It owns its own registry rather than the global one, so two servers in
// one process (as in tests) never collide, and it is the only package
// that imports Prometheus: the api package reports through the plain
// methods of Metrics (its Observer interface), the rate limiter through a
// func.
//
// No label ever holds a value a client chose freely: the route is a
// pattern of the route table (or "unmatched"), the method is folded into
// a fixed set, the status is a number the server wrote. So the number of
// series is bounded, and an API key cannot reach a scrape.
package metrics

import (
	"bytes"
	"database/sql"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/afftrack/afftrack"
)

// namespace prefixes every metric of afftrack's own.
const namespace = "afftrack"

// durationBuckets span a cached one-row answer (about a millisecond) to a
// long transaction list (seconds); beyond 10 s is +Inf, which is where an
// alert should look anyway.
var durationBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Metrics holds afftrack's collectors and the registry they are
// registered in.
type Metrics struct {
	registry      *prometheus.Registry
	logger        *slog.Logger
	requests      *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	refusals      *prometheus.CounterVec
	limiterErrors prometheus.Counter
	tracking      tracking

	// series caches the request series by route, folded method and
	// status: a lookup here reads no lock and formats no status, where
	// WithLabelValues hashes every label and takes its vector's lock on
	// every request. It holds no more series than the registry does.
	series sync.Map // requestKey -> *requestSeries
}

// requestKey names the series of one kind of request.
type requestKey struct {
	route, method string // the method folded by methodLabel
	status        int
}

// requestSeries is a request's counter and duration histogram.
type requestSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// New returns the metrics in a new registry that also holds the Go runtime
// and process collectors. logger receives errors met while serving a
// scrape; nil discards them.
func New(logger *slog.Logger) *Metrics {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		logger:   logger,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "http_requests_total",
			Help:      "HTTP requests answered, by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace,
			Name:      "http_request_duration_seconds",
			Help:      "Time from a request's arrival to the end of its response, by route pattern.",
			Buckets:   durationBuckets,
		}, []string{"route"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "rate_limit_refusals_total",
			Help:      "Calls answered 429 because the account's rate limit was spent, by account kind.",
		}, []string{"kind"}),
		limiterErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "rate_limiter_errors_total",
			Help:      "Rate-limit checks the shared limiter (Redis) failed to answer; each was decided by --rate-fail-closed.",
		}),
	}
	m.tracking = newTracking()
	m.registry.MustRegister(
		m.requests, m.duration, m.refusals, m.limiterErrors,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	m.registry.MustRegister(m.tracking.collectors()...)
	// Both kinds start at zero, so a rate() over them exists before the
	// first refusal and an alert on it is not silently empty.
	for _, k := range []afftrack.AccountKind{afftrack.KindMerchant, afftrack.KindAffiliate} {
		m.refusals.WithLabelValues(kindLabel(k))
	}
	return m
}

// Registry returns the registry, for collectors registered elsewhere.
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }

// RegisterDB adds the connection-pool statistics of db (open, in use and
// idle connections, waits and their total duration) as the go_sql_*
// series with db_name="afftrack".
func (m *Metrics) RegisterDB(db *sql.DB) error {
	return m.registry.Register(collectors.NewDBStatsCollector(db, namespace))
}

// Handler serves the registry in the Prometheus exposition formats. A
// collector that fails is logged and left out; the rest is still served,
// so one broken collector does not blind the whole scrape. The answer is
// made whole in memory (some tens of kilobytes) and then written at once:
// written as it is made, a client that hung up made every metric family's
// write fail, each logged as an error of the service.
func (m *Metrics) Handler() http.Handler {
	h := promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(m.logger.Handler(), slog.LevelError),
		ErrorHandling: promhttp.ContinueOnError,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := &bufferedResponse{header: w.Header(), status: http.StatusOK}
		h.ServeHTTP(b, r)
		w.WriteHeader(b.status)
		// A failed write is the client's going; the caller's writer
		// reports it.
		_, _ = w.Write(b.body.Bytes())
	})
}

// bufferedResponse is a ResponseWriter that keeps the body in memory and
// the header in the real response's, which is sent only when the real
// response's WriteHeader is called.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferedResponse) WriteHeader(status int)      { b.status = status }

// ObserveRequest counts one answered request and its duration. route must
// be a pattern of the route table or "unmatched", never a raw path.
func (m *Metrics) ObserveRequest(route, method string, status int, d time.Duration) {
	k := requestKey{route, methodLabel(method), status}
	v, ok := m.series.Load(k)
	if !ok {
		v, _ = m.series.LoadOrStore(k, &requestSeries{
			requests: m.requests.WithLabelValues(k.route, k.method, strconv.Itoa(status)),
			duration: m.duration.WithLabelValues(route),
		})
	}
	s := v.(*requestSeries)
	s.requests.Inc()
	s.duration.Observe(d.Seconds())
}

// RateLimited counts one call of an account of the given kind answered 429.
func (m *Metrics) RateLimited(kind afftrack.AccountKind) {
	m.refusals.WithLabelValues(kindLabel(kind)).Inc()
}

// RateLimiterError counts one failure of the shared rate limiter. It is
// the onError hook of ratelimit.Failover.
func (m *Metrics) RateLimiterError() { m.limiterErrors.Inc() }

// kindLabel returns "merchant" or "affiliate".
func kindLabel(k afftrack.AccountKind) string {
	switch k {
	case afftrack.KindMerchant:
		return "merchant"
	case afftrack.KindAffiliate:
		return "affiliate"
	}
	return "unknown"
}

// methodLabel folds a request method into the standard ones and "other":
// a client can send any token as a method, and each would otherwise make
// a series of its own.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}

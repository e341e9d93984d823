package api

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/keycache"
	"github.com/afftrack/afftrack/internal/metrics"
	"github.com/afftrack/afftrack/internal/ratelimit"
)

// lookupTarget is the load benchmark's lookup by id, as wrk sends it:
// the contract's spelling of the path and the key in the query.
const lookupTarget = "/V1/Merchant/Transactions/1?apiKey=" + merchantKey

// oneTransaction is a TransactionService that answers every lookup with
// the same transaction at once, so a benchmark measures what lies between
// the socket and the store.
type oneTransaction struct {
	afftrack.TransactionService
	t *afftrack.Transaction
}

func (o oneTransaction) FindTransactionByID(context.Context, int64, int64) (*afftrack.Transaction, error) {
	return o.t, nil
}

// benchResponse is a ResponseWriter reused from request to request: the
// header map is cleared, the body counted and dropped, so the benchmark
// measures the handler and not a recorder.
type benchResponse struct {
	h      http.Header
	status int
	n      int
}

func (w *benchResponse) Header() http.Header { return w.h }
func (w *benchResponse) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *benchResponse) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}

func (w *benchResponse) reset() {
	clear(w.h)
	w.status, w.n = 0, 0
}

// steppingClock returns a clock that moves on by step at every reading,
// so a rate limiter with limits sees calls spread out in time and keeps
// admitting them, as it would a steady client within its budget.
func steppingClock(step time.Duration) afftrack.Clock {
	var n atomic.Int64
	return func() time.Time { return fixedNow.Add(time.Duration(n.Add(1)) * step) }
}

// newServeBench returns a server wired the way `afftrack serve` wires one
// (the key cache, the in-process rate limiter, the Prometheus observer, a
// JSON request log) over one fixed transaction, with the given default
// limits and rate-limiter clock.
func newServeBench(t *afftrack.Transaction, limits afftrack.Limits, clock afftrack.Clock) *Server {
	accounts := &fakeAccounts{byHash: map[string]*afftrack.Account{
		afftrack.HashKey(merchantKey): {Ref: afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 1}, Status: afftrack.AccountActive},
	}}
	m := metrics.New(nil)
	svc := Services{
		Accounts:     keycache.New(accounts, keycache.Options{TTL: keycache.DefaultTTL}),
		Transactions: oneTransaction{t: t},
		RateLimiter:  ratelimit.NewMemory(),
		Ready:        func(context.Context) error { return nil },
		Observer:     m,
		Metrics:      m.Handler(),
	}
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	return NewServer(Config{PublicURL: publicURL, DefaultLimits: limits}, svc, logger, clock)
}

// newLookupRequest returns the lookup request wrk sends for JSON.
func newLookupRequest(b *testing.B) *http.Request {
	r, err := http.NewRequest(http.MethodGet, lookupTarget, nil)
	if err != nil {
		b.Fatal(err)
	}
	r.Header.Set("Accept", "application/json")
	r.RemoteAddr, r.RequestURI = "127.0.0.1:54321", lookupTarget
	return r
}

// BenchmarkServeLookup measures one lookup by id through the whole
// interface, middleware included, against a bare handler that writes the
// same bytes with the same Content-Type, as the load benchmark's baseline
// does over the wire. Each afftrack run reports pct-of-bare: the bare
// handler's ns/op of the same run as a percentage of its own (the share
// of the bare handler's requests/s it would reach if nothing but the
// handlers counted). Serial runs show the cost of one request; parallel
// ones add the contention of concurrent requests on shared locks.
func BenchmarkServeLookup(b *testing.B) {
	tx := &fixtureTransactions()[0]
	st := &requestState{neg: negotiation{format: formatJSON}}
	body := appendTransactionJSON(nil, tx)
	contentType := st.neg.contentType()
	bare := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	})
	// A limit of 30 calls a minute is the serve default; 2.5 s between
	// calls keeps within it, the day's limit is raised to match, and the
	// concurrency limit leaves room for every benchmark goroutine.
	withLimits := afftrack.Limits{PerMinute: 30, PerDay: 50_000, Concurrent: 1 << 10}
	cases := []struct {
		name    string
		handler func() http.Handler
	}{
		{"bare", func() http.Handler { return bare }},
		{"nolimits", func() http.Handler {
			return newServeBench(tx, afftrack.Limits{}, time.Now).Handler()
		}},
		{"limits", func() http.Handler {
			return newServeBench(tx, withLimits, steppingClock(2500*time.Millisecond)).Handler()
		}},
	}
	var bareNs [2]float64 // serial, parallel
	for _, c := range cases {
		for i, mode := range []string{"serial", "parallel"} {
			b.Run(c.name+"/"+mode, func(b *testing.B) {
				h := c.handler()
				checkLookup(b, h, body, contentType)
				b.ReportAllocs()
				if mode == "serial" {
					serveSerial(b, h)
				} else {
					serveParallel(b, h)
				}
				ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				if c.name == "bare" {
					bareNs[i] = ns
				} else if bareNs[i] > 0 {
					b.ReportMetric(100*bareNs[i]/ns, "pct-of-bare")
				}
			})
		}
	}
}

// checkLookup fails b unless h answers the lookup with body and
// contentType.
func checkLookup(b *testing.B, h http.Handler, body []byte, contentType string) {
	b.Helper()
	w := &bodyResponse{benchResponse: benchResponse{h: http.Header{}}}
	h.ServeHTTP(w, newLookupRequest(b))
	if w.status != http.StatusOK || !bytes.Equal(w.body.Bytes(), body) || w.h.Get("Content-Type") != contentType {
		b.Fatalf("lookup: status %d, Content-Type %q, body %s", w.status, w.h.Get("Content-Type"), w.body.Bytes())
	}
}

// bodyResponse is a benchResponse that keeps the body, for checkLookup.
type bodyResponse struct {
	benchResponse
	body bytes.Buffer
}

func (w *bodyResponse) Write(p []byte) (int, error) {
	w.body.Write(p)
	return w.benchResponse.Write(p)
}

func serveSerial(b *testing.B, h http.Handler) {
	r := newLookupRequest(b)
	w := &benchResponse{h: http.Header{}}
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, r)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}

func serveParallel(b *testing.B, h http.Handler) {
	var failed atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		r := newLookupRequest(b)
		w := &benchResponse{h: http.Header{}}
		for pb.Next() {
			w.reset()
			h.ServeHTTP(w, r)
			if w.status != http.StatusOK {
				failed.Store(int64(w.status))
			}
		}
	})
	if s := failed.Load(); s != 0 {
		b.Fatalf("status %d", s)
	}
}

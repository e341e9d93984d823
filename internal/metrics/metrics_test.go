package metrics

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/afftrack/afftrack"
)

// scrape returns the text exposition the handler serves.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if w.Code != http.StatusOK {
		t.Fatalf("scrape status = %d: %s", w.Code, w.Body.String())
	}
	body, _ := io.ReadAll(w.Body)
	return string(body)
}

// unreachable is a connector whose database is never reached: pool
// statistics need no connection.
type unreachable struct{}

func (unreachable) Connect(context.Context) (driver.Conn, error) {
	return nil, errors.New("unreachable")
}
func (unreachable) Driver() driver.Driver { return nil }

func TestScrape(t *testing.T) {
	m := New(nil)
	m.ObserveRequest("/v1/merchant/transactions/{id}", "GET", 200, 3*time.Millisecond)
	m.ObserveRequest("/v1/merchant/transactions/{id}", "GET", 200, 40*time.Millisecond)
	m.ObserveRequest("/v1/merchant/transactions/{id}", "HEAD", 404, time.Millisecond/2)
	m.ObserveRequest("unmatched", "BREW", 404, 20*time.Second)
	m.RateLimited(afftrack.KindMerchant)
	m.RateLimited(afftrack.KindMerchant)
	m.RateLimiterError()
	db := sql.OpenDB(unreachable{})
	defer db.Close()
	if err := m.RegisterDB(db); err != nil {
		t.Fatal(err)
	}
	out := scrape(t, m)

	for _, want := range []string{
		`afftrack_http_requests_total{method="GET",route="/v1/merchant/transactions/{id}",status="200"} 2`,
		`afftrack_http_requests_total{method="HEAD",route="/v1/merchant/transactions/{id}",status="404"} 1`,
		`afftrack_http_requests_total{method="other",route="unmatched",status="404"} 1`,
		`afftrack_http_request_duration_seconds_bucket{route="/v1/merchant/transactions/{id}",le="0.001"} 1`,
		`afftrack_http_request_duration_seconds_bucket{route="/v1/merchant/transactions/{id}",le="0.005"} 2`,
		`afftrack_http_request_duration_seconds_bucket{route="/v1/merchant/transactions/{id}",le="0.05"} 3`,
		`afftrack_http_request_duration_seconds_bucket{route="unmatched",le="10"} 0`,
		`afftrack_http_request_duration_seconds_bucket{route="unmatched",le="+Inf"} 1`,
		`afftrack_http_request_duration_seconds_count{route="/v1/merchant/transactions/{id}"} 3`,
		`afftrack_rate_limit_refusals_total{kind="merchant"} 2`,
		`afftrack_rate_limit_refusals_total{kind="affiliate"} 0`,
		`afftrack_rate_limiter_errors_total 1`,
		`go_sql_open_connections{db_name="afftrack"} 0`,
		`go_sql_in_use_connections{db_name="afftrack"} 0`,
		`go_sql_idle_connections{db_name="afftrack"} 0`,
		`go_sql_wait_count_total{db_name="afftrack"} 0`,
		`go_sql_wait_duration_seconds_total{db_name="afftrack"} 0`,
		"\ngo_goroutines ",
		"\nprocess_start_time_seconds ",
	} {
		t.Run("the scrape has "+want, func(t *testing.T) {
			if !strings.Contains(out, want) {
				t.Errorf("scrape lacks %s:\n%s", want, out)
			}
		})
	}

	t.Run("the method a client made up is not a label value", func(t *testing.T) {
		if strings.Contains(out, "BREW") {
			t.Errorf("the scrape holds the raw method:\n%s", out)
		}
	})

	t.Run("a second registration of the store is refused", func(t *testing.T) {
		if err := m.RegisterDB(db); err == nil {
			t.Error("RegisterDB twice succeeded; want a duplicate-collector error")
		}
	})
}

func TestRegistriesAreIndependent(t *testing.T) {
	a, b := New(nil), New(nil)
	a.RateLimiterError()
	if out := scrape(t, b); !strings.Contains(out, "afftrack_rate_limiter_errors_total 0") {
		t.Errorf("one Metrics' count shows in another's scrape:\n%s", out)
	}
}

func TestLabels(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"GET is kept", methodLabel("GET"), "GET"},
		{"DELETE is kept", methodLabel("DELETE"), "DELETE"},
		{"a lower-case get is another method", methodLabel("get"), "other"},
		{"an invented method is other", methodLabel("X-" + strings.Repeat("A", 100)), "other"},
		{"a merchant is merchant", kindLabel(afftrack.KindMerchant), "merchant"},
		{"an affiliate is affiliate", kindLabel(afftrack.KindAffiliate), "affiliate"},
		{"no kind is unknown", kindLabel(0), "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

// TestConcurrentRequests checks that requests observed at once, some of
// them the first of their series, are all counted, each in its own series,
// and that invented methods share the one series of "other".
func TestConcurrentRequests(t *testing.T) {
	m := New(nil)
	kinds := []struct{ route, method string }{
		{"/v1/merchant/transactions/{id}", "GET"},
		{"/v1/merchant/transactions/{id}", "HEAD"},
		{"unmatched", "BREW"},
		{"unmatched", "BREW2"},
	}
	const perKind = 200
	var wg sync.WaitGroup
	for _, k := range kinds {
		for range 4 {
			wg.Go(func() {
				for range perKind / 4 {
					m.ObserveRequest(k.route, k.method, 200, time.Millisecond)
				}
			})
		}
	}
	wg.Wait()
	out := scrape(t, m)
	for _, want := range []string{
		`afftrack_http_requests_total{method="GET",route="/v1/merchant/transactions/{id}",status="200"} 200`,
		`afftrack_http_requests_total{method="HEAD",route="/v1/merchant/transactions/{id}",status="200"} 200`,
		`afftrack_http_requests_total{method="other",route="unmatched",status="200"} 400`,
		`afftrack_http_request_duration_seconds_count{route="/v1/merchant/transactions/{id}"} 400`,
		`afftrack_http_request_duration_seconds_count{route="unmatched"} 400`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("scrape lacks %s", want)
		}
	}
}

// goneClient is a response whose every write fails, as a connection the
// client reset does.
type goneClient struct {
	header http.Header
	writes int
}

func (g *goneClient) Header() http.Header { return g.header }
func (g *goneClient) WriteHeader(int)     {}
func (g *goneClient) Write([]byte) (int, error) {
	g.writes++
	return 0, errors.New("write: broken pipe")
}

func TestAClientThatHungUpIsWrittenToOnceAndLogsNothing(t *testing.T) {
	var logs strings.Builder
	m := New(slog.New(slog.NewTextHandler(&logs, nil)))
	m.ObserveRequest("GET /V1/Merchant/Transactions/{id}", "GET", 200, time.Millisecond)
	g := &goneClient{header: http.Header{}}
	m.Handler().ServeHTTP(g, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if g.writes != 1 {
		t.Errorf("%d writes to the client, want 1", g.writes)
	}
	if logs.Len() > 0 {
		t.Errorf("logged:\n%s", logs.String())
	}
	if ct := g.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type = %q, want the exposition format's", ct)
	}
}

// TestOutboxCountsAreReusedForAWhile: the outbox is counted at most once
// every outboxCountsAge however often /metrics is asked, and a count that
// failed is not reused.
func TestOutboxCountsAreReusedForAWhile(t *testing.T) {
	var counted int
	fail := false
	c := &outboxCollector{desc: prometheus.NewDesc("x", "x", []string{"state"}, nil),
		counts: func(context.Context) (int64, int64, int64, error) {
			counted++
			if fail {
				return 0, 0, 0, errors.New("database is down")
			}
			return int64(counted), 0, 0, nil
		}}
	now := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	collect := func() (metrics int) {
		ch := make(chan prometheus.Metric, 10)
		c.Collect(ch)
		close(ch)
		for range ch {
			metrics++
		}
		return metrics
	}
	for _, step := range []struct {
		name        string
		advance     time.Duration
		fail        bool
		wantCounted int
	}{
		{"the first scrape counts", 0, false, 1},
		{"a scrape 14 s later reuses the counts", 14 * time.Second, false, 1},
		{"a scrape 15 s after the count counts again", time.Second, false, 2},
		{"a failed count is reported", 15 * time.Second, true, 3},
		{"and not reused: the next scrape counts again", time.Second, false, 4},
	} {
		now = now.Add(step.advance)
		fail = step.fail
		n := collect()
		if counted != step.wantCounted {
			t.Errorf("%s: counted %d times, want %d", step.name, counted, step.wantCounted)
		}
		if want := 3; !step.fail && n != want {
			t.Errorf("%s: %d series, want %d", step.name, n, want)
		}
	}
}

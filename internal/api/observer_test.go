package api

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/metrics"
)

// observed is one ObserveRequest call, without its duration.
type observed struct {
	Route, Method string
	Status        int
}

// recordingObserver records what the server reports and passes each
// request on to requests, when set, so a test can wait for a request a
// live server is still finishing.
type recordingObserver struct {
	mu       sync.Mutex
	seen     []observed
	refused  []afftrack.AccountKind
	requests chan observed
}

func (o *recordingObserver) Conversion(string) {}

func (o *recordingObserver) ObserveRequest(route, method string, status int, d time.Duration) {
	o.mu.Lock()
	o.seen = append(o.seen, observed{route, method, status})
	o.mu.Unlock()
	if o.requests != nil {
		o.requests <- observed{route, method, status}
	}
}

func (o *recordingObserver) RateLimited(kind afftrack.AccountKind) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.refused = append(o.refused, kind)
}

func TestObserverSeesRoutePatterns(t *testing.T) {
	tests := []struct {
		name    string
		method  string
		target  string
		header  []string
		want    observed
		refused []afftrack.AccountKind
	}{
		{"an item is reported by its pattern", "GET", "/V1/Merchant/Transactions/1?apiKey=" + merchantKey, nil,
			observed{"/v1/merchant/transactions/{id}", "GET", 200}, nil},
		{"a missing item is reported by its pattern", "HEAD", "/v1/merchant/transactions/99/", []string{"X-Api-Key", merchantKey},
			observed{"/v1/merchant/transactions/{id}", "HEAD", 404}, nil},
		{"a refused key is reported by its pattern", "GET", "/V1/Affiliate/Banners?apiKey=" + merchantKey, nil,
			observed{"/v1/affiliate/banners", "GET", 401}, nil},
		{"another method on a known path is reported by its pattern", "POST", "/V1/Affiliate/Invoices/1", nil,
			observed{"/v1/affiliate/invoices/{id}", "POST", 405}, nil},
		{"an unknown path is unmatched", "GET", "/V1/Merchant/" + merchantKey + "?apiKey=" + merchantKey, nil,
			observed{"unmatched", "GET", 404}, nil},
		{"a path with dot segments is unmatched", "GET", "/V1/Merchant/../Affiliate/Banners", nil,
			observed{"unmatched", "GET", 404}, nil},
		{"healthz is reported by its pattern", "GET", "/healthz", nil, observed{"/healthz", "GET", 200}, nil},
		{"a refusal is reported with its kind", "GET", "/V1/Affiliate/Invoices/1", []string{"X-Api-Key", affiliateKey},
			observed{"/v1/affiliate/invoices/{id}", "GET", 429}, []afftrack.AccountKind{afftrack.KindAffiliate}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := &recordingObserver{}
			h := newHarnessWith(t, func(s *Services) { s.Observer = obs })
			if len(tt.refused) > 0 {
				h.limiter.decide = func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision {
					return afftrack.RateDecision{RetryAfter: time.Second}
				}
			}
			h.do(tt.method, tt.target, tt.header...)
			if diff := cmp.Diff([]observed{tt.want}, obs.seen); diff != "" {
				t.Errorf("observed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.refused, obs.refused); diff != "" {
				t.Errorf("refusals (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMetricsEndpoint(t *testing.T) {
	newMetricsHarness := func(t *testing.T) (*harness, *metrics.Metrics) {
		m := metrics.New(nil)
		h := newHarnessWith(t, func(s *Services) { s.Observer, s.Metrics = m, m.Handler() })
		return h, m
	}

	t.Run("a scrape after some calls holds their series, by pattern and with no key", func(t *testing.T) {
		h, _ := newMetricsHarness(t)
		mustStatus(t, h.do("GET", "/V1/Merchant/Transactions/1?apiKey="+merchantKey), 200)
		mustStatus(t, h.do("GET", "/v1/merchant/transactions/2", "X-Api-Key", merchantKey), 200)
		mustStatus(t, h.do("GET", "/V1/Merchant/Transactions/"+otherMerchantKey, "X-Api-Key", merchantKey), 400)
		mustStatus(t, h.do("GET", "/V1/Affiliate/Banners/"+affiliateKey+"?apiKey="+affiliateKey), 404)
		mustStatus(t, h.do("DELETE", "/V1/Affiliate/Banners"), 405)
		h.limiter.decide = func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision {
			return afftrack.RateDecision{RetryAfter: time.Second}
		}
		mustStatus(t, h.do("GET", "/V1/Merchant/Transactions/1", "X-Api-Key", merchantKey), 429)

		w := h.do("GET", "/metrics")
		mustStatus(t, w, 200)
		out := w.Body.String()
		for _, want := range []string{
			`afftrack_http_requests_total{method="GET",route="/v1/merchant/transactions/{id}",status="200"} 2`,
			`afftrack_http_requests_total{method="GET",route="/v1/merchant/transactions/{id}",status="400"} 1`,
			`afftrack_http_requests_total{method="GET",route="/v1/merchant/transactions/{id}",status="429"} 1`,
			`afftrack_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
			`afftrack_http_requests_total{method="DELETE",route="/v1/affiliate/banners",status="405"} 1`,
			`afftrack_http_request_duration_seconds_count{route="/v1/merchant/transactions/{id}"} 4`,
			`afftrack_rate_limit_refusals_total{kind="merchant"} 1`,
			`afftrack_rate_limit_refusals_total{kind="affiliate"} 0`,
			"\ngo_goroutines ",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("scrape lacks %s", want)
			}
		}
		for _, leak := range []string{"SECRET", "Banners/", "/V1/", "Transactions/1"} {
			if strings.Contains(out, leak) {
				t.Errorf("the scrape holds %q:\n%s", leak, out)
			}
		}
	})

	t.Run("metrics need no key and are never rate limited", func(t *testing.T) {
		h, _ := newMetricsHarness(t)
		h.limiter.decide = func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision {
			return afftrack.RateDecision{RetryAfter: time.Second}
		}
		for range 3 {
			mustStatus(t, h.do("GET", "/metrics"), 200)
		}
		if got := h.limiter.acquired.Load(); got != 0 {
			t.Errorf("the rate limiter was asked %d times for /metrics, want 0", got)
		}
		w := h.do("GET", "/metrics")
		if !strings.Contains(w.Body.String(), `afftrack_http_requests_total{method="GET",route="/metrics",status="200"} 3`) {
			t.Errorf("earlier scrapes are not counted under their own route:\n%s", w.Body.String())
		}
	})

	t.Run("a scrape whose client hung up is counted as 499, not 200", func(t *testing.T) {
		h, _ := newMetricsHarness(t)
		h.srv.Handler().ServeHTTP(&hungUp{header: http.Header{}}, httptest.NewRequest("GET", "/metrics", nil))
		w := h.do("GET", "/metrics")
		if !strings.Contains(w.Body.String(), `afftrack_http_requests_total{method="GET",route="/metrics",status="499"} 1`) {
			t.Errorf("the scrape whose client hung up is not counted as 499:\n%s", w.Body.String())
		}
		if strings.Contains(h.logs.String(), "level=ERROR") {
			t.Errorf("logged an error:\n%s", h.logs.String())
		}
	})

	t.Run("without a metrics handler /metrics is a 404", func(t *testing.T) {
		h := newHarness(t)
		mustStatus(t, h.do("GET", "/metrics"), http.StatusNotFound)
	})
}

// hungUp is a response whose every write fails, as one to a client that
// reset its connection.
type hungUp struct{ header http.Header }

func (h *hungUp) Header() http.Header       { return h.header }
func (h *hungUp) WriteHeader(int)           {}
func (h *hungUp) Write([]byte) (int, error) { return 0, errors.New("write: connection reset by peer") }

package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

func TestAuthentication(t *testing.T) {
	const banners, transactions = "/V1/Affiliate/Banners", "/V1/Merchant/Transactions/1"
	tests := []struct {
		name       string
		target     string
		header     []string
		wantStatus int
	}{
		{"a missing key is refused", transactions, nil, 401},
		{"an empty key is refused", transactions + "?apiKey=", nil, 401},
		{"an unknown key is refused", transactions + "?apiKey=nope", nil, 401},
		{"an affiliate key on a merchant function is refused", transactions + "?apiKey=" + affiliateKey, nil, 401},
		{"a merchant key on an affiliate function is refused", banners + "?apiKey=" + merchantKey, nil, 401},
		{"a suspended account's key is refused", transactions + "?apiKey=" + suspendedMerchantKey, nil, 401},
		{"a closed account's key is refused", banners + "?apiKey=" + closedAffiliateKey, nil, 401},
		{"a header key that differs from the query key is refused", transactions + "?apiKey=" + merchantKey,
			[]string{"X-Api-Key", otherMerchantKey}, 401},
		{"a query key is accepted", transactions + "?apiKey=" + merchantKey, nil, 200},
		{"the key parameter name matches in any case", transactions + "?APIKEY=" + merchantKey, nil, 200},
		{"an empty key parameter beside a key is ignored", transactions + "?apikey=&apiKey=" + merchantKey, nil, 200},
		{"two different key parameters are refused", transactions + "?apiKey=" + merchantKey + "&ApiKey=" + otherMerchantKey, nil, 401},
		{"the same key parameter twice is accepted", transactions + "?apiKey=" + merchantKey + "&APIKEY=" + merchantKey, nil, 200},
		{"a name that only Unicode case mapping makes apiKey is not the key", transactions + "?AP%C4%B0KEY=" + merchantKey, nil, 401},
		{"a name with the Kelvin sign is not the key", transactions + "?api%E2%84%AAey=" + merchantKey, nil, 401},
		{"two different X-Api-Key headers are refused", transactions,
			[]string{"X-Api-Key", merchantKey, "X-Api-Key", otherMerchantKey}, 401},
		{"the same X-Api-Key header twice is accepted", transactions,
			[]string{"X-Api-Key", merchantKey, "X-Api-Key", merchantKey}, 200},
		{"a header key is accepted", transactions, []string{"X-Api-Key", merchantKey}, 200},
		{"the same key in header and query is accepted", transactions + "?apiKey=" + merchantKey,
			[]string{"X-Api-Key", merchantKey}, 200},
		{"an affiliate key works on an affiliate function", banners, []string{"X-Api-Key", affiliateKey}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", tt.target, tt.header...)
			mustStatus(t, w, tt.wantStatus)
			if tt.wantStatus == 401 {
				if diff := cmp.Diff(messageUnauthorized, jsonMessage(w.Body.String())); diff != "" {
					t.Errorf("message (-want +got):\n%s", diff)
				}
				if got := h.limiter.acquired.Load(); got != 0 {
					t.Errorf("the rate limiter was asked %d times for a refused key, want 0", got)
				}
			}
		})
	}

	t.Run("a store that is busy for now is a 503 that says when to come back", func(t *testing.T) {
		h := newHarness(t)
		h.accounts.err = afftrack.Errorf(afftrack.EUNAVAILABLE, "The database is busy; send this again in a few seconds.")
		w := h.do("GET", transactions, "X-Api-Key", merchantKey)
		mustStatus(t, w, http.StatusServiceUnavailable)
		if got := w.Header().Get("Retry-After"); got != "5" {
			t.Errorf("Retry-After = %q, want 5", got)
		}
	})
	t.Run("a failing account store is a 500, not a 401", func(t *testing.T) {
		h := newHarness(t)
		h.accounts.err = errStore
		w := h.do("GET", transactions, "X-Api-Key", merchantKey)
		mustStatus(t, w, http.StatusInternalServerError)
		if diff := cmp.Diff(messageInternal, jsonMessage(w.Body.String())); diff != "" {
			t.Errorf("message (-want +got):\n%s", diff)
		}
		if !strings.Contains(h.logs.String(), errStore.Error()) {
			t.Errorf("the cause is not logged:\n%s", h.logs.String())
		}
		if strings.Contains(w.Body.String(), "SELECT") {
			t.Errorf("the cause leaked to the client: %s", w.Body.String())
		}
	})
}

func TestRateLimit(t *testing.T) {
	refuse := func(retry time.Duration) func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision {
		return func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision {
			return afftrack.RateDecision{HasWindow: true, Limit: 30, Remaining: 0, Reset: 1500 * time.Millisecond, RetryAfter: retry}
		}
	}
	tests := []struct {
		name        string
		decide      func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision
		target      string
		wantStatus  int
		wantHeaders map[string]string // "" means absent
	}{
		{"an allowed call reports its window", nil, "/V1/Merchant/Transactions/1", 200,
			map[string]string{"X-RateLimit-Limit": "30", "X-RateLimit-Remaining": "29", "X-RateLimit-Reset": "60", "Retry-After": ""}},
		{"a refused call is a 429 with Retry-After rounded up", refuse(2100 * time.Millisecond), "/V1/Merchant/Transactions/1", 429,
			map[string]string{"Retry-After": "3", "X-RateLimit-Limit": "30", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "3"}},
		{"a call the day's window refused reports the day's wait as the reset of the minute's headers",
			func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision {
				return afftrack.RateDecision{HasWindow: true, Limit: 3, Remaining: 1, Reset: 20 * time.Second,
					RetryAfter: 86331 * time.Second}
			}, "/V1/Merchant/Transactions/1", 429,
			map[string]string{"Retry-After": "86331", "X-RateLimit-Limit": "3", "X-RateLimit-Reset": "86331"}},
		{"a call the minute's window refused keeps the minute's reset",
			func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision {
				return afftrack.RateDecision{HasWindow: true, Limit: 3, Remaining: 0, Reset: 20 * time.Second,
					RetryAfter: 20 * time.Second}
			}, "/V1/Merchant/Transactions/1", 429,
			map[string]string{"Retry-After": "20", "X-RateLimit-Reset": "20"}},
		{"a call refused while another is in progress reports the concurrent slot's wait as the reset",
			func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision {
				return afftrack.RateDecision{HasWindow: true, Limit: 100, Remaining: 97, Reset: 50 * time.Second,
					RetryAfter: time.Second}
			}, "/V1/Merchant/Transactions/1", 429,
			map[string]string{"Retry-After": "1", "X-RateLimit-Remaining": "97", "X-RateLimit-Reset": "1"}},
		{"Retry-After is at least one second", refuse(10 * time.Millisecond), "/V1/Merchant/Transactions/1", 429,
			map[string]string{"Retry-After": "1"}},
		{"Retry-After is at least one second even when unknown", refuse(0), "/V1/Merchant/Transactions/1", 429,
			map[string]string{"Retry-After": "1"}},
		{"a 400 carries the rate-limit headers", nil, "/V1/Merchant/Transactions/x", 400,
			map[string]string{"X-RateLimit-Limit": "30", "X-RateLimit-Remaining": "29", "X-RateLimit-Reset": "60"}},
		{"a 404 carries the rate-limit headers", nil, "/V1/Merchant/Transactions/4", 404,
			map[string]string{"X-RateLimit-Limit": "30", "X-RateLimit-Remaining": "29", "X-RateLimit-Reset": "60"}},
		{"an account without limits gets no rate-limit headers",
			func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision {
				return afftrack.RateDecision{Allowed: true}
			},
			"/V1/Merchant/Transactions/1", 200,
			map[string]string{"X-RateLimit-Limit": "", "X-RateLimit-Remaining": "", "X-RateLimit-Reset": ""}},
		{"a refused concurrent call without a window still gets Retry-After",
			func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision {
				return afftrack.RateDecision{RetryAfter: time.Second}
			}, "/V1/Merchant/Transactions/1", 429,
			map[string]string{"Retry-After": "1", "X-RateLimit-Limit": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.limiter.decide = tt.decide
			w := h.do("GET", tt.target, "X-Api-Key", merchantKey)
			mustStatus(t, w, tt.wantStatus)
			for name, want := range tt.wantHeaders {
				if got := w.Header().Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if tt.wantStatus == 429 {
				if diff := cmp.Diff(messageRateLimited, jsonMessage(w.Body.String())); diff != "" {
					t.Errorf("message (-want +got):\n%s", diff)
				}
			}
			if got := h.limiter.released.Load(); got != 1 {
				t.Errorf("released = %d, want 1", got)
			}
		})
	}

	t.Run("the account's own limits override the server defaults at the clock's time", func(t *testing.T) {
		h := newHarness(t)
		a := h.accounts.byHash[afftrack.HashKey(merchantKey)]
		a.RateLimit = afftrack.RateLimit{PerMinute: afftrack.Some[int64](5), Concurrent: afftrack.Some[int64](0)}
		mustStatus(t, h.do("GET", "/V1/Merchant/Transactions/1", "X-Api-Key", merchantKey), 200)
		if diff := cmp.Diff([]afftrack.Limits{{PerMinute: 5, PerDay: 1000, Concurrent: 0}}, h.limiter.limits); diff != "" {
			t.Errorf("limits (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]time.Time{fixedNow}, h.limiter.nows); diff != "" {
			t.Errorf("now (-want +got):\n%s", diff)
		}
	})

	t.Run("a failing limiter is a 500", func(t *testing.T) {
		h := newHarness(t)
		h.limiter.err = errStore
		w := h.do("GET", "/V1/Merchant/Transactions/1", "X-Api-Key", merchantKey)
		mustStatus(t, w, http.StatusInternalServerError)
		if !strings.Contains(h.logs.String(), errStore.Error()) {
			t.Errorf("the cause is not logged:\n%s", h.logs.String())
		}
	})
}

func TestCeilSeconds(t *testing.T) {
	for _, tt := range []struct {
		in   time.Duration
		want int64
	}{{0, 0}, {-time.Second, 0}, {time.Nanosecond, 1}, {time.Second, 1}, {time.Second + 1, 2}, {59500 * time.Millisecond, 60}} {
		if got := ceilSeconds(tt.in); got != tt.want {
			t.Errorf("ceilSeconds(%v) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

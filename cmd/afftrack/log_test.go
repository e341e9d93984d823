package main_test

import (
	"strings"
	"testing"
	"time"
)

func TestServeLog(t *testing.T) {
	const lookup = "/V1/Merchant/Transactions/1?apiKey=demo-merchant-1-key"
	for _, tc := range []struct {
		name  string
		flush string
		// within is how soon the request's line must be in the log while
		// the server runs: the interval, with room for a loaded machine.
		within time.Duration
	}{
		{"held lines reach the log within the flush interval", "200ms", 200*time.Millisecond + 3*time.Second},
		{"with --log-flush 0 each line is written as it is logged", "0", 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, "--demo", "--log-flush", tc.flush)
			s.get(t, lookup)
			sent := time.Now()
			for !strings.Contains(s.logs.String(), "url=\"/V1/Merchant/Transactions/1?apiKey=REDACTED\"") {
				if time.Since(sent) > tc.within {
					t.Fatalf("no request line %v after the request; log:\n%s", tc.within, s.logs)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}

	t.Run("a stop writes every held line", func(t *testing.T) {
		s := serve(t, "--demo", "--log-flush", "1h")
		for range 3 {
			s.get(t, lookup)
		}
		s.stop(t)
		if got := strings.Count(s.logs.String(), "msg=request "); got != 3 {
			t.Errorf("%d request lines after the stop, want 3; log:\n%s", got, s.logs)
		}
		if !strings.Contains(s.logs.String(), "msg=stopped") {
			t.Errorf("no stop line; log:\n%s", s.logs)
		}
	})

	t.Run("a negative interval is refused", func(t *testing.T) {
		out, err := afftrack(t, nil, "serve", "--demo", "--log-flush", "-1s")
		if err == nil || !strings.Contains(out, "--log-flush cannot be negative") {
			t.Errorf("serve with a negative --log-flush: %v\n%s", err, out)
		}
	})
}

package main_test

import (
	"strings"
	"testing"
	"time"
)

func TestServeLog(t *testing.T) {
	const lookup = "/V1/Merchant/Transactions/1?apiKey=demo-merchant-1-key"
	t.Run("each request's line is written as it is logged", func(t *testing.T) {
		s := serve(t, "--demo")
		s.get(t, lookup)
		sent := time.Now()
		for !strings.Contains(s.logs.String(), "url=\"/V1/Merchant/Transactions/1?apiKey=REDACTED\"") {
			if time.Since(sent) > 3*time.Second {
				t.Fatalf("no request line 3 s after the request; log:\n%s", s.logs)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	t.Run("a stop logs every request and the stop", func(t *testing.T) {
		s := serve(t, "--demo")
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
}

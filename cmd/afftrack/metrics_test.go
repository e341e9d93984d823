package main_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestServeMetrics(t *testing.T) {
	const list = "/V1/Merchant/Transactions?apiKey=demo-merchant-1-key&fromDate=2024-01-01&toDate=2024-01-31"
	wantSeries := []string{
		`afftrack_http_requests_total{method="GET",route="/v1/merchant/transactions",status="200"} 1`,
		`afftrack_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`afftrack_http_request_duration_seconds_count{route="/v1/merchant/transactions"} 1`,
		`afftrack_rate_limit_refusals_total{kind="merchant"} 0`,
		`afftrack_rate_limiter_errors_total 0`,
		`go_sql_open_connections{db_name="afftrack"} `,
		`go_sql_in_use_connections{db_name="afftrack"} `,
		"\ngo_goroutines ",
		"\nprocess_resident_memory_bytes ",
	}
	check := func(t *testing.T, s *server, metricsBase *server) {
		t.Helper()
		if status, _, body := s.get(t, list); status != 200 {
			t.Fatalf("list: %d %s", status, body)
		}
		if status, _, _ := s.get(t, "/nowhere/demo-merchant-1-key?apiKey=demo-merchant-1-key"); status != 404 {
			t.Fatalf("unknown path: %d, want 404", status)
		}
		status, h, out := metricsBase.get(t, "/metrics")
		if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
			t.Fatalf("/metrics: %d %q", status, h.Get("Content-Type"))
		}
		for _, want := range wantSeries {
			if !strings.Contains(out, want) {
				t.Errorf("the scrape lacks %s", want)
			}
		}
		for _, leak := range []string{"demo-merchant-1-key", "nowhere"} {
			if strings.Contains(out, leak) {
				t.Errorf("the scrape holds %q", leak)
			}
		}
	}

	t.Run("metrics are served on the API's address by default", func(t *testing.T) {
		s := serve(t, "--demo")
		check(t, s, s)
	})

	t.Run("with --metrics-addr they are served there and not on the API's address", func(t *testing.T) {
		addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		s := serve(t, "--demo", "--metrics-addr", addr)
		check(t, s, &server{base: "http://" + addr})
		if status, _, _ := s.get(t, "/metrics"); status != 404 {
			t.Errorf("/metrics on the API's address = %d, want 404", status)
		}
	})

	t.Run("the metrics address answers a body that never comes 400 at once, and closes", func(t *testing.T) {
		addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		serve(t, "--demo", "--metrics-addr", addr)
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprint(c, "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		br := bufio.NewReader(c)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("status %d, want 400", res.StatusCode)
		}
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("the connection stays open (%v), want it closed", err)
		}
	})

	t.Run("a negative key cache TTL is refused", func(t *testing.T) {
		out, err := afftrack(t, nil, "serve", "--demo", "--key-cache-ttl", "-1s")
		if err == nil || !strings.Contains(out, "--key-cache-ttl cannot be negative") {
			t.Errorf("serve with a negative TTL: %v\n%s", err, out)
		}
	})

	t.Run("a negative shutdown timeout is refused", func(t *testing.T) {
		out, err := afftrack(t, nil, "serve", "--demo", "--shutdown-timeout", "-5s")
		if code := exitCodeOf(err); code != 2 || !strings.Contains(out, "--shutdown-timeout") {
			t.Errorf("serve with a negative shutdown timeout: exit %d\n%s", code, out)
		}
	})
}

package main_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/generate"
)

func TestRequestsWithUnsentBodiesAreCut(t *testing.T) {
	s := serve(t, "--demo")
	addr := strings.TrimPrefix(s.base, "http://")
	const n = 1100
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		conns = append(conns, c)
		// A body is announced and never sent.
		if _, err := fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("the server answers 400 and closes each connection without waiting for the body", func(t *testing.T) {
		deadline := time.Now().Add(20 * time.Second)
		for i, c := range conns {
			c.SetReadDeadline(deadline)
			br := bufio.NewReader(c)
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest {
				t.Fatalf("connection %d: status %d, want 400", i, res.StatusCode)
			}
			if _, err := br.ReadByte(); err == nil || isTimeout(err) {
				t.Fatalf("connection %d is still open after the answer (%v)", i, err)
			}
		}
	})
	t.Run("/healthz still answers", func(t *testing.T) {
		if code, _, _ := s.get(t, "/healthz"); code != http.StatusOK {
			t.Errorf("status %d", code)
		}
	})
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// bigNetwork generates a network of one merchant with a list far larger
// than the sockets' buffers, and returns its database URL.
func bigNetwork(t *testing.T) string {
	t.Helper()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "big.db")
	if out, err := afftrack(t, nil, "generate", "--db", dsn, "--transactions", "20000", "--merchants", "1",
		"--affiliates", "20", "--days", "30"); err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	return dsn
}

// stall asks for the merchant's whole list and reads none of it.
func stall(t *testing.T, base string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).SetReadBuffer(4096)
	fmt.Fprintf(c, "GET /V1/Merchant/Transactions?fromDate=2000-01-01&toDate=2100-01-01 HTTP/1.1\r\nHost: x\r\nX-Api-Key: %s\r\n\r\n",
		generate.MerchantKey(1))
	return c
}

func TestAClientThatStopsReadingIsCut(t *testing.T) {
	s := serve(t, "--db", bigNetwork(t), "--write-timeout", "1s", "--rate-per-minute", "0", "--rate-per-day", "0")
	c := stall(t, s.base)
	defer c.Close()
	time.Sleep(500 * time.Millisecond) // the list is under way and stuck
	// The account may run one request at a time: the stalled list holds
	// its slot until the server cuts it.
	deadline := time.Now().Add(15 * time.Second)
	for {
		code, _, _ := s.get(t, "/V1/Merchant/Transactions/1", "X-Api-Key", generate.MerchantKey(1))
		if code != http.StatusTooManyRequests {
			if code != http.StatusOK && code != http.StatusNotFound {
				t.Fatalf("status %d", code)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stalled list still holds the account's slot after 15 s; log:\n%s", s.logs)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestSIGTERMDuringAStalledListExitsCleanly(t *testing.T) {
	s := serve(t, "--db", bigNetwork(t), "--write-timeout", "0", "--shutdown-timeout", "1s")
	c := stall(t, s.base)
	defer c.Close()
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("exit: %v; log:\n%s", err, s.logs)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the server did not stop")
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("stopped after %v, before --shutdown-timeout", d)
	}
}

// TestURLsAreReportedWithoutTheirPassword gives --db and --redis URLs
// with a password in each place one can be, most that do not parse or
// cannot be reached: the error never shows it.
func TestURLsAreReportedWithoutTheirPassword(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"a Redis URL that does not parse", []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--redis", "redis://:hunter2@host:badport/1"}},
		{"a Redis URL with an unknown option", []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--redis", "redis://:hunter2@host/1?bogus=1"}},
		{"a database URL with a bad port", []string{"migrate", "--db", "postgres://user:hunter2@host:badport/db"}},
		{"a database URL with a bad host", []string{"import", "--db", "postgresql://user:hunter2@[::1/db", "-"}},
		{"a password parameter of a database that does not answer",
			[]string{"migrate", "--db", "postgres://user@127.0.0.1:1/x?password=hunter2&connect_timeout=1"}},
		{"a password parameter in another case beside a bad parameter",
			[]string{"migrate", "--db", "postgres://user@127.0.0.1:1/x?PASSWORD=hunter2&connect_timeout=abc"}},
		{"a URL without slashes", []string{"migrate", "--db", "postgres:user:hunter2@h/x"}},
		{"a URL without a scheme", []string{"migrate", "--db", "user:hunter2@h/x"}},
		{"libpq's key=value form", []string{"migrate", "--db", "host=h password=hunter2"}},
	} {
		t.Run(tc.name+" is reported without its password", func(t *testing.T) {
			out, err := afftrack(t, strings.NewReader("{}"), tc.args...)
			if err == nil {
				t.Fatalf("succeeded:\n%s", out)
			}
			if strings.Contains(out, "hunter2") {
				t.Errorf("the password is in the output:\n%s", out)
			}
		})
	}
}

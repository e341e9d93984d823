package main_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/generate"
)

func TestRequestsWithUnsentBodiesAreCut(t *testing.T) {
	// No budget of failed authentications: every wrong key is a 401.
	s := serve(t, "--demo", "--auth-failures-per-minute", "0")
	addr := strings.TrimPrefix(s.base, "http://")
	// Each announces a body it never sends; whoever answers, the answer
	// comes without waiting for the body, and the connection is closed.
	shapes := []struct {
		request string
		status  int
	}{
		{"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n", http.StatusBadRequest},
		{"POST /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n", http.StatusNotFound},
		{"OPTIONS * HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n", http.StatusNotFound},
		{"POST /V1/Merchant/Conversions HTTP/1.1\r\nHost: x\r\nX-Api-Key: wrong\r\nContent-Length: 1000\r\n\r\n",
			http.StatusUnauthorized},
		{"DELETE /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n", http.StatusMethodNotAllowed},
	}
	const n = 1100
	conns := make([]net.Conn, 0, n+1)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	dial := func(request string) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		conns = append(conns, c)
		if _, err := fmt.Fprint(c, request); err != nil {
			t.Fatal(err)
		}
	}
	// The one function that reads a body waits for it bodyReadTimeout
	// (10 s), then answers 400.
	dial("POST /V1/Merchant/Conversions HTTP/1.1\r\nHost: x\r\nX-Api-Key: demo-merchant-1-key\r\nContent-Length: 1000\r\n\r\n")
	for i := range n {
		dial(shapes[i%len(shapes)].request)
	}
	t.Run("the server answers and closes each connection without waiting for the body", func(t *testing.T) {
		deadline := time.Now().Add(30 * time.Second)
		for i, c := range conns {
			want := http.StatusBadRequest
			if i > 0 {
				want = shapes[(i-1)%len(shapes)].status
			}
			c.SetReadDeadline(deadline)
			br := bufio.NewReader(c)
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != want {
				t.Fatalf("connection %d: status %d, want %d", i, res.StatusCode, want)
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

// TestAChunkedBodyClosesTheConnection sends a chunked conversion followed,
// on the same connection, by what a proxy going by a Content-Length would
// have taken for part of its body: the server answers the conversion and
// closes, never reading the rest as a second request.
func TestAChunkedBodyClosesTheConnection(t *testing.T) {
	s := serve(t, "--demo")
	c, err := net.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "POST /V1/Merchant/Conversions HTTP/1.1\r\nHost: x\r\nX-Api-Key: demo-merchant-1-key\r\n"+
		"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d, want 400 for an empty body", res.StatusCode)
	}
	if second, err := http.ReadResponse(br, nil); err == nil {
		t.Errorf("a second answer came (%d): the bytes after the chunks were read as a request", second.StatusCode)
	}
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

// TestASlowButSteadyReaderIsNotCut: the write timeout bounds a time
// without progress, so a client taking a long list slowly but steadily
// (the kernel's buffers full all along) keeps it coming for longer than
// the timeout.
func TestASlowButSteadyReaderIsNotCut(t *testing.T) {
	// A bound of 8 s asks at least about 21 KB/s of a client (170 KB in
	// 8 s); this one takes 48 KB/s. Left to the kernel, the buffers filled
	// with a few MB and a blocked write waited for more than a MB of it.
	s := serve(t, "--db", bigNetwork(t), "--write-timeout", "8s", "--rate-per-minute", "0", "--rate-per-day", "0")
	c, err := net.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /V1/Merchant/Transactions?fromDate=2000-01-01&toDate=2100-01-01 HTTP/1.1\r\nHost: x\r\nX-Api-Key: %s\r\n\r\n",
		generate.MerchantKey(1))
	buf := make([]byte, 4800)
	got := 0
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
		time.Sleep(100 * time.Millisecond) // about 48 KB a second
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := io.ReadFull(c, buf)
		got += n
		if err != nil {
			t.Fatalf("cut after %d bytes: %v; log:\n%s", got, err, s.logs)
		}
	}
	// What the kernel holds is still read after a cut: the server's log
	// tells whether it gave up on the client.
	if strings.Contains(s.logs.String(), "i/o timeout") {
		t.Errorf("the server cut a client that read %d bytes steadily; log:\n%s", got, s.logs)
	}
}

// TestStalledListsLeaveConnectionsForOtherRequests: lists whose clients
// stopped reading hold their database connections until --write-timeout;
// however many there are, a lookup of another kind still finds one.
func TestStalledListsLeaveConnectionsForOtherRequests(t *testing.T) {
	s := serve(t, "--db", bigNetwork(t), "--db-max-conns", "4", "--write-timeout", "20s",
		"--rate-per-minute", "0", "--rate-per-day", "0", "--rate-concurrent", "0")
	for range 6 {
		c := stall(t, s.base)
		defer c.Close()
	}
	time.Sleep(1500 * time.Millisecond) // the lists that found a slot are stuck, the others refused
	start := time.Now()
	code, _, body := s.get(t, "/V1/Merchant/Transactions/1", "X-Api-Key", generate.MerchantKey(1))
	if code != http.StatusOK && code != http.StatusNotFound {
		t.Fatalf("lookup: status %d %s", code, body)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a lookup beside stalled lists took %v; log:\n%s", d.Round(time.Millisecond), s.logs)
	}
}

func TestSIGTERMDuringAStalledListExitsCleanly(t *testing.T) {
	dsn := bigNetwork(t)
	program := filepath.Join(t.TempDir(), "program.json")
	if err := os.WriteFile(program, []byte(`{"TargetUrl": "https://shop.example/", "Commission": {"Percent": 5}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := afftrack(t, nil, "program", "set", "1", program, "--db", dsn); err != nil {
		t.Fatalf("program set: %v\n%s", err, out)
	}
	// Clicks are written only at the stop, which the stalled list would
	// take all of, were none of it kept for them.
	s := serve(t, "--db", dsn, "--write-timeout", "0", "--shutdown-timeout", "2s", "--click-flush", "1h")
	c := stall(t, s.base)
	defer c.Close()
	clicksBefore := count(t, openDB(t, dsn), `SELECT COUNT(*) FROM clicks`)
	const clicks = 20
	for i := range clicks {
		res, err := noRedirects.Get(fmt.Sprintf("%s/t/%d/t/1", s.base, 1+i%20))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusFound {
			t.Fatalf("click: status %d, want 302", res.StatusCode)
		}
	}
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
		t.Errorf("stopped after %v, before the requests' part of --shutdown-timeout", d)
	}
	if n := count(t, openDB(t, dsn), `SELECT COUNT(*) FROM clicks`) - clicksBefore; n != clicks {
		t.Errorf("%d of the %d clicks made before the stop were written; log:\n%s", n, clicks, s.logs)
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

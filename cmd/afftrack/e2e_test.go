package main_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// binary is the afftrack command built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "afftrack-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "afftrack")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build afftrack:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// afftrack runs the binary to completion and returns its combined output.
func afftrack(t *testing.T, stdin io.Reader, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "AFFTRACK_DB=") // only what the test passes
	cmd.Stdin = stdin
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// server is a running `afftrack serve`.
type server struct {
	cmd  *exec.Cmd
	base string
	logs *syncWriter
	done chan error
}

// serve starts `afftrack serve` on a free port and waits until it listens.
func serve(t *testing.T, args ...string) *server {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, logs: &syncWriter{}, done: make(chan error, 1)}
	cmd.Stderr = s.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "afftrack listening on "); ok {
				found <- addr
			}
		}
		close(found)
	}()
	go func() { s.done <- cmd.Wait() }()
	select {
	case s.base = <-found:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("server did not start; log:\n%s", s.logs)
	}
	if s.base == "" {
		t.Fatalf("server exited before listening; log:\n%s", s.logs)
	}
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop sends SIGTERM and expects a clean exit.
func (s *server) stop(t *testing.T) {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("server exit: %v; log:\n%s", err, s.logs)
		}
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		t.Errorf("server did not stop on SIGTERM")
	}
}

func (s *server) get(t *testing.T, path string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(body)
}

// syncWriter lets the server's stderr be written by the exec package's
// copier while a test reads it.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func TestImportThenServeOverHTTP(t *testing.T) {
	for _, backend := range storetest.Backends(t) {
		t.Run("on "+backend, func(t *testing.T) {
			dsn := storetest.URL(t, backend)
			out, err := afftrack(t, nil, "import", "--db", dsn, "testdata/network.json")
			if err != nil {
				t.Fatalf("import: %v\n%s", err, out)
			}
			if !strings.Contains(out, "imported 2 merchants (0 programs), 1 affiliates, 1 memberships, 2 transactions, 0 banner groups (0 more made for banners), 0 banners, 1 invoices, 0 coupons, 0 promotions, 0 currency rates, 0 clicks, 3 new keys") {
				t.Errorf("import output = %q", out)
			}
			// Re-running an import is safe and adds no keys.
			if out, err := afftrack(t, nil, "import", "--db", dsn, "testdata/network.json"); err != nil || !strings.Contains(out, "0 new keys") {
				t.Fatalf("re-import: %v\n%s", err, out)
			}

			s := serve(t, "--db", dsn, "--public-url", "https://api.example.net", "--key-cache-ttl", "1s")
			tests := []struct {
				name, path string
				header     []string
				status     int
				body       string
			}{
				{"a merchant lists its transactions in JSON",
					"/V1/Merchant/Transactions?apiKey=e2e-merchant-10-secret&fromDate=2024-03-01&toDate=2024-03-01", nil, 200,
					`[{"Id":100,"DateCreated":"2024-03-01T08:00:00.000","DateModified":"2024-03-02T08:00:00.000","ConsumptionDate":"2024-03-01T08:00:00.000","ValidationDate":"2024-03-01T08:00:00.000","AffiliateId":20,"AffiliateContactName":"Ann Lee","AffiliateBusinessName":"Lee Media","TrafficType":"Website","TrafficSource":"https://lee.example/","CreativeType":"Banner","CreativeId":5,"CreativeName":null,"CustomerCountryCode":"AUS","CustomerCountryName":"Australia","CustomerIpAddress":"00000000000000000000000000000001","CustomerType":"New","OrderId":"A-1","AdditionalNotes":null,"TrackingMethod":"Cookie","SaleValue":10.5000,"Commission":1.0500,"OverrideFee":0.0000,"ReportedCurrencyCode":"AUD","ReportedCurrencyName":"Australian Dollar","ReportedSaleValue":10.5000,"TrafficSourceApproved":true,"Status":"Approved","Status2":"Approved","InvoiceId":null,"VoidReason":null,"AmendedReason":null,"CouponCode":null,"PlacementId":null,"PlacementName":null,"Items":[{"Sku":"W-1","Quantity":3,"ReportedSaleValue":10.50,"SaleValue":10.50,"Commission":1.05,"Name":"Widget \u003cb\u003e","Brand":"Acme","Category":"Tools","CartItemReference":null,"CartItemReference2":null,"CartItemReference3":null,"CartItemReference4":null}]}]`},
				{"another merchant's transaction is not found",
					"/V1/Merchant/Transactions/101?apiKey=e2e-merchant-10-secret", nil, 404,
					`{"Message":"The requested item could not be found."}`},
				{"an affiliate reads its invoice in XML",
					"/v1/affiliate/invoices/7/?apikey=e2e-affiliate-20-secret&contentType=application/xml", nil, 200,
					`<Invoice xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="https://api.example.net/V1/Affiliate"><Id>7</Id><DateCreated>2024-04-01T00:00:00.000</DateCreated><DatePaid>2024-04-01T00:00:00.000</DatePaid><Number>INV-7</Number><Description></Description><SubTotal>1.0500</SubTotal><GST>0.1050</GST><Total>1.1550</Total></Invoice>`},
				{"an affiliate key cannot call a merchant function",
					"/V1/Merchant/Transactions/100", []string{"X-Api-Key", "e2e-affiliate-20-secret"}, 401,
					`{"Message":"The API key is missing, invalid, or for a different account type; or the user account has been suspended or closed."}`},
				{"a bad date is a 400 naming the parameter",
					"/V1/Merchant/Transactions?apiKey=e2e-merchant-10-secret&fromDate=2024-13-01&toDate=2024-03-01", nil, 400, ""},
				{"JSONP wraps the body",
					"/V1/Merchant/Transactions/100?apiKey=e2e-merchant-10-secret&callback=cb", []string{"Accept", "text/javascript"}, 200, ""},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					status, h, body := s.get(t, tt.path, tt.header...)
					if status != tt.status {
						t.Fatalf("status = %d, want %d; body %s", status, tt.status, body)
					}
					if tt.body != "" && body != tt.body {
						t.Errorf("body:\n got %s\nwant %s", body, tt.body)
					}
					if status == 400 && !strings.Contains(body, "fromDate") {
						t.Errorf("400 body does not name the parameter: %s", body)
					}
					if strings.Contains(tt.path, "callback=") && (!strings.HasPrefix(body, "cb({") || !strings.HasSuffix(body, "});") ||
						h.Get("Content-Type") != "text/javascript; charset=utf-8") {
						t.Errorf("JSONP response %q with type %q", body, h.Get("Content-Type"))
					}
				})
			}

			// A key revoked through the command line stops working within
			// the key cache's TTL.
			out, err = afftrack(t, nil, "key", "list", "merchant", "10", "--db", dsn)
			if err != nil {
				t.Fatalf("key list: %v\n%s", err, out)
			}
			id := strings.Fields(out)[0]
			if out, err := afftrack(t, nil, "key", "revoke", id, "--db", dsn); err != nil {
				t.Fatalf("key revoke: %v\n%s", err, out)
			}
			revoked := time.Now()
			for {
				status, _, _ := s.get(t, "/V1/Merchant/Transactions/100?apiKey=e2e-merchant-10-secret")
				if status == 401 {
					break
				}
				if time.Since(revoked) > time.Second+2*time.Second {
					t.Fatalf("revoked key: status %d %v after the revocation, want 401 within the 1s TTL", status, time.Since(revoked))
				}
				time.Sleep(50 * time.Millisecond)
			}

			s.stop(t)
			if strings.Contains(s.logs.String(), "e2e-merchant-10-secret") || strings.Contains(s.logs.String(), "e2e-affiliate-20-secret") {
				t.Errorf("a key appears in the server's log")
			}
			if !strings.Contains(s.logs.String(), "apiKey=REDACTED") {
				t.Errorf("request log lines do not show the redacted URL:\n%s", s.logs)
			}
		})
	}
}

func TestImportRejectsABadFileAndWritesNothing(t *testing.T) {
	dsn := storetest.URL(t, "sqlite")
	bad := `{"Merchants": [{"Id": 1, "Name": "M"}], "Transactions": [{"Id": 1, "MerchantId": 1, "AffiliateId": 9,
	  "DateCreated": "2024-01-01", "TrafficType": "Website", "CreativeType": "Banner", "CustomerType": "New",
	  "TrackingMethod": "Cookie", "Status2": "Pending"}]}`
	out, err := afftrack(t, strings.NewReader(bad), "import", "--db", dsn, "-")
	if err == nil {
		t.Fatalf("import of a bad file succeeded:\n%s", out)
	}
	if want := "afftrack: Transactions[0].AffiliateId: affiliate 9 does not exist\n"; out != want {
		t.Errorf("output = %q, want %q", out, want)
	}
	if out, err := afftrack(t, nil, "account", "show", "merchant", "1", "--db", dsn); err == nil {
		t.Errorf("merchant 1 was written by a failed import: %s", out)
	}
}

func TestServeDemoAnswersTheReadmeExample(t *testing.T) {
	s := serve(t, "--demo")
	status, h, body := s.get(t, "/V1/Merchant/Transactions?apiKey=demo-merchant-1-key&fromDate=2024-01-01&toDate=2024-01-31")
	if status != 200 || h.Get("Content-Type") != "application/json; charset=utf-8" || !strings.HasPrefix(body, `[{"Id":1,`) {
		t.Errorf("demo list: %d %q %.200s", status, h.Get("Content-Type"), body)
	}
	if status, _, _ := s.get(t, "/healthz"); status != 200 {
		t.Errorf("/healthz = %d", status)
	}
	if status, _, _ := s.get(t, "/readyz"); status != 200 {
		t.Errorf("/readyz = %d", status)
	}
}

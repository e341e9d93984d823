package main_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// browser is the User-Agent of a credited click: crawlers' are not
// credited, and curl's and Go's count as crawlers.
const browser = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36"

// noRedirects is a client that shows a redirect instead of following it.
var noRedirects = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       20 * time.Second,
}

// click follows a tracking link as a browser would and returns the
// response's status and Location, and the click id it carries.
func (s *server) click(t *testing.T, path string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", browser)
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	u, _ := url.Parse(loc)
	var id string
	if u != nil {
		id = u.Query().Get("afftrack_click")
	}
	return resp.StatusCode, loc, id
}

// post sends a JSON body with a header pair and returns the answer.
func (s *server) post(t *testing.T, path, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

const merchantKey = "e2e-merchant-30-secret-key"

// trackingDBs are the databases the tracking tests run on: a SQLite file
// always, PostgreSQL when its URL is set.
func trackingDBs(t *testing.T) map[string]string {
	dbs := map[string]string{"sqlite": "sqlite:" + filepath.Join(t.TempDir(), "tracking.db")}
	if os.Getenv("AFFTRACK_TEST_POSTGRES_URL") != "" {
		dbs["postgres"] = storetest.URL(t, "postgres")
	}
	return dbs
}

func importTracking(t *testing.T, dsn string) {
	t.Helper()
	if out, err := afftrack(t, nil, "import", "--db", dsn, "testdata/tracking.json"); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
}

// TestAClickBecomesATransaction walks the whole path on each database: a
// click on a banner link, a conversion with its id, the transaction in
// the merchant's list and by id, byte for byte as the 201 returned it.
func TestAClickBecomesATransaction(t *testing.T) {
	for name, dsn := range trackingDBs(t) {
		t.Run(name, func(t *testing.T) {
			importTracking(t, dsn)
			s := serve(t, "--db", dsn)
			status, loc, clickID := s.click(t, "/t/40/b/50?UniqueId=spring-post")
			if status != 302 || !strings.HasPrefix(loc, "https://shop.example/sale?afftrack_click=") || len(clickID) != 32 {
				t.Fatalf("click: %d %q", status, loc)
			}
			body := fmt.Sprintf(`{"ClickId": %q, "OrderId": "E2E-1", "CurrencyCode": "USD",
				"Items": [{"Sku": "TR-1", "SaleValue": 120.00, "Category": "Shoes"}, {"Sku": "SK-2", "Quantity": 2, "SaleValue": 15.50}]}`, clickID)
			status, h, created := s.post(t, "/V1/Merchant/Conversions", body, "X-Api-Key", merchantKey)
			if status != 201 {
				t.Fatalf("conversion: %d %s", status, created)
			}
			// 120 USD at 1.5 is 180.00 AUD at 12.5% (Shoes): 22.50; 15.50 USD is 23.25 AUD at 10%: 2.33 (2.325
			// rounds half away from zero); the commission 24.83, the network's fee 20% of it: 4.966.
			for _, want := range []string{`"AffiliateId":40`, `"TrafficType":"Search"`, `"TrafficSource":"walks.example"`,
				`"CreativeType":"Banner","CreativeId":50,"CreativeName":"Leaderboard"`, `"TrackingMethod":"Server"`,
				`"SaleValue":203.2500`, `"Commission":24.8300`, `"OverrideFee":4.9660`, `"ReportedCurrencyCode":"USD"`,
				`"ReportedSaleValue":135.5000`, `"Status2":"Pending"`, `"Commission":22.50`, `"Commission":2.33`} {
				if !strings.Contains(created, want) {
					t.Errorf("the transaction lacks %s:\n%s", want, created)
				}
			}
			locURL, err := url.Parse(h.Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			path := locURL.Path
			if status, _, got := s.get(t, path+"?apiKey="+merchantKey); status != 200 || got != created {
				t.Errorf("GET %s = %d\n%s\nwant the 201's body\n%s", path, status, got, created)
			}
			today := time.Now().UTC().Format(time.DateOnly)
			if status, _, list := s.get(t, "/V1/Merchant/Transactions?apiKey="+merchantKey+"&fromDate="+today+"&toDate="+today); status != 200 || list != "["+created+"]" {
				t.Errorf("today's list = %d %s", status, list)
			}
			if status, _, again := s.post(t, "/V1/Merchant/Conversions", body, "X-Api-Key", merchantKey); status != 200 || again != created {
				t.Errorf("the same conversion again = %d %s", status, again)
			}
			db := openDB(t, dsn)
			var unique sql.NullString
			if err := db.QueryRow(`SELECT unique_id FROM transactions WHERE order_id = 'E2E-1'`).Scan(&unique); err != nil || unique.String != "spring-post" {
				t.Errorf("the affiliate's UniqueId kept with the transaction = %v %v", unique, err)
			}
		})
	}
}

func openDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db.SQL()
}

func count(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAStopWritesEveryClick makes clicks that a long flush interval
// keeps in the buffer, stops the server with SIGTERM, and finds every one
// stored.
func TestAStopWritesEveryClick(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "stop.db")
	importTracking(t, dsn)
	s := serve(t, "--db", dsn, "--click-flush", "1h")
	const clicks, workers = 300, 8
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < clicks; i += workers {
				if status, _, _ := s.click(t, fmt.Sprintf("/t/40/t/30?UniqueId=%d", i)); status != 302 {
					t.Errorf("click %d: %d", i, status)
				}
			}
		}()
	}
	wg.Wait()
	s.stop(t)
	if n := count(t, openDB(t, dsn), `SELECT COUNT(*) FROM clicks`); n != clicks {
		t.Errorf("%d clicks stored after a clean stop, want %d", n, clicks)
	}
}

// TestAcknowledgedConversionsSurviveKill9 kills the server while
// conversions arrive: every conversion answered 201 is in the database.
func TestAcknowledgedConversionsSurviveKill9(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "kill.db")
	importTracking(t, dsn)
	s := serve(t, "--db", dsn)
	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				order := fmt.Sprintf("K-%d-%d", w, i)
				req, _ := http.NewRequest(http.MethodPost, s.base+"/V1/Merchant/Conversions",
					strings.NewReader(`{"OrderId": "`+order+`", "SaleValue": 10, "CouponCode": "ADA15"}`))
				req.Header.Set("X-Api-Key", merchantKey)
				resp, err := noRedirects.Do(req)
				if err != nil {
					return // the server is gone
				}
				resp.Body.Close()
				if resp.StatusCode == 201 {
					mu.Lock()
					acked = append(acked, order)
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
	s.cmd.ProcessState = &os.ProcessState{} // stopped: the cleanup has nothing to stop
	close(stop)
	wg.Wait()
	if len(acked) == 0 {
		t.Fatal("no conversion was acknowledged before the kill")
	}
	db := openDB(t, dsn)
	for _, order := range acked {
		if n := count(t, db, `SELECT COUNT(*) FROM transactions WHERE order_id = '`+order+`'`); n != 1 {
			t.Errorf("acknowledged conversion %s: %d transactions after kill -9", order, n)
		}
	}
	t.Logf("%d conversions acknowledged before kill -9, all kept", len(acked))
}

// TestTrackingAcrossReplicas clicks on one replica and converts on the
// other, at once: the second waits for the first's click buffer.
func TestTrackingAcrossReplicas(t *testing.T) {
	if os.Getenv("AFFTRACK_TEST_POSTGRES_URL") == "" {
		t.Skip("set AFFTRACK_TEST_POSTGRES_URL to run the replica test")
	}
	dsn := storetest.URL(t, "postgres")
	importTracking(t, dsn)
	a, b := serve(t, "--db", dsn), serve(t, "--db", dsn)
	for i := range 5 {
		status, _, clickID := a.click(t, "/t/40/t/30")
		if status != 302 || clickID == "" {
			t.Fatalf("click on replica a: %d", status)
		}
		body := fmt.Sprintf(`{"ClickId": %q, "OrderId": "R-%d", "SaleValue": 50}`, clickID, i)
		if status, _, got := b.post(t, "/V1/Merchant/Conversions", body, "X-Api-Key", merchantKey); status != 201 {
			t.Errorf("conversion %d on replica b of a click on replica a: %d %s", i, status, got)
		}
	}
}

// TestRedirectsRideOutADatabaseOutage stops PostgreSQL under a running
// server: links seen before still redirect, their clicks wait in the
// buffer, and they are all written once the database is back.
func TestRedirectsRideOutADatabaseOutage(t *testing.T) {
	pg := startPrivatePostgres(t)
	importTracking(t, pg.url())
	s := serve(t, "--db", pg.url())
	if status, _, _ := s.click(t, "/t/40/b/50"); status != 302 {
		t.Fatalf("click before the outage: %d", status)
	}
	pg.stop(t)
	const during = 20
	for i := range during {
		status, loc, id := s.click(t, "/t/40/b/50")
		if status != 302 || !strings.HasPrefix(loc, "https://shop.example/sale") || id == "" {
			t.Fatalf("click %d during the outage: %d %q", i, status, loc)
		}
	}
	if status, _, _ := s.click(t, "/t/40/t/30"); status != 503 {
		t.Errorf("a link never seen, during the outage: %d, want 503", status)
	}
	pg.start(t)
	db := openDB(t, pg.url())
	deadline := time.Now().Add(20 * time.Second)
	for {
		n := count(t, db, `SELECT COUNT(*) FROM clicks`)
		if n == during+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d clicks stored after the database came back, want %d", n, during+1)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestProgramAndRatesFromTheCommandLine sets a program and imports rates,
// then reads them back.
func TestProgramAndRatesFromTheCommandLine(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "cli.db")
	importTracking(t, dsn)
	program := `{"TargetUrl": "https://new.example/", "CookieDays": 7, "ClickAppend": "src=aff&c=[ClickId]", "Commission": {"Flat": 4.5},
		"Rules": [{"AffiliateId": 40, "Percent": 3}], "Listed": false, "CommissionType": "Dollar per Lead"}`
	if out, err := afftrack(t, strings.NewReader(program), "program", "set", "30", "-", "--db", dsn); err != nil {
		t.Fatalf("program set: %v\n%s", err, out)
	}
	out, err := afftrack(t, nil, "program", "show", "30", "--db", dsn)
	if err != nil {
		t.Fatalf("program show: %v\n%s", err, out)
	}
	for _, want := range []string{`"TargetUrl": "https://new.example/"`, `"CookieDays": 7`, `"Flat": 4.5000`, `"Percent": 3.0000`,
		`"AffiliateId": 40`, `"Listed": false`, `"CommissionType": "Dollar per Lead"`, `"ClickAppend": "src=aff&c=[ClickId]"`} {
		if !strings.Contains(out, want) {
			t.Errorf("program show lacks %s:\n%s", want, out)
		}
	}
	if out, err := afftrack(t, strings.NewReader(`{"TargetUrl": "javascript:alert(1)"}`), "program", "set", "30", "-", "--db", dsn); err == nil ||
		!strings.Contains(out, "Program.TargetUrl") {
		t.Errorf("a bad program was accepted: %v\n%s", err, out)
	}
	// What show prints, set takes back unchanged.
	if out, err := afftrack(t, strings.NewReader(out), "program", "set", "30", "-", "--db", dsn); err != nil {
		t.Fatalf("program set of program show's output: %v\n%s", err, out)
	}
	if again, err := afftrack(t, nil, "program", "show", "30", "--db", dsn); err != nil || again != out {
		t.Errorf("program show after set of its output: %v\n%s\nwant\n%s", err, again, out)
	}
	if out, err := afftrack(t, strings.NewReader(`{"Commission": {"Flat": 1}, "CommissionType": "Percent per Sale"}`),
		"program", "set", "30", "-", "--db", dsn); err == nil ||
		!strings.Contains(out, "Program.CommissionType: Percent per Sale needs a Commission with a Percent") {
		t.Errorf("a CommissionType that does not fit the Commission was accepted: %v\n%s", err, out)
	}
	rates := "Code,Date,Rate\nEUR,2024-02-01,1.65\nusd,2024-03-01,1.51\n"
	if out, err := afftrack(t, strings.NewReader(rates), "rates", "import", "-", "--db", dsn); err != nil || !strings.Contains(out, "imported 2 rates") {
		t.Fatalf("rates import: %v\n%s", err, out)
	}
	if out, err := afftrack(t, strings.NewReader("Code,Date,Rate\nUSD,2024-03-01,0\n"), "rates", "import", "-", "--db", dsn); err == nil ||
		!regexp.MustCompile(`line 2`).MatchString(out) {
		t.Errorf("a zero rate was accepted: %v\n%s", err, out)
	}
	if n := count(t, openDB(t, dsn), `SELECT COUNT(*) FROM currency_rates`); n != 3 {
		t.Errorf("%d rates stored, want 3 (one imported with the file, two from the CSV)", n)
	}
}

// TestReadmeTrackingWalkthrough runs the README's tracking walkthrough,
// verbatim but for the port, against `serve --demo`.
func TestReadmeTrackingWalkthrough(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "<!-- walkthrough:begin -->\n```\n")
	block, _, ok2 := strings.Cut(block, "```\n<!-- walkthrough:end -->")
	if !ok || !ok2 {
		t.Fatal("README.md has no walkthrough block")
	}
	s := serve(t, "--demo")
	script := "set -e\n" + strings.ReplaceAll(block, "http://localhost:8080", s.base)
	out, err := exec.Command("sh", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("the walkthrough failed: %v\n%s", err, out)
	}
	for _, want := range []string{"HTTP/1.1 302 Found", "Location: https://www.example.com/?utm_source=afftrack&afftrack_click=",
		"Set-Cookie: afftrack_1=", `"OrderId":"ORDER-1001"`, `"Commission":15.0000`, `"TrackingMethod":"Server"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the walkthrough's output lacks %s:\n%s", want, out)
		}
	}
	if n := strings.Count(string(out), `"OrderId":"ORDER-1001"`); n != 2 {
		t.Errorf("ORDER-1001 appears %d times, want 2 (the 201 and the list):\n%s", n, out)
	}
}

// TestReadmeLifecycleWalkthrough runs the README's two walkthroughs
// against `serve --demo --db FILE`, the second with the command line
// built here in place of `go run ./cmd/afftrack` and the file's path in
// place of demo.db.
func TestReadmeLifecycleWalkthrough(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := func(name string) string {
		_, b, ok := strings.Cut(string(readme), "<!-- "+name+":begin -->\n```\n")
		b, _, ok2 := strings.Cut(b, "```\n<!-- "+name+":end -->")
		if !ok || !ok2 {
			t.Fatalf("README.md has no %s block", name)
		}
		return b
	}
	file := filepath.Join(t.TempDir(), "demo.db")
	s := serve(t, "--demo", "--db", "sqlite:"+file)
	script := "set -e\n" + block("walkthrough") + block("lifecycle")
	script = strings.ReplaceAll(script, "http://localhost:8080", s.base)
	script = strings.ReplaceAll(script, "go run ./cmd/afftrack", binary)
	script = strings.ReplaceAll(script, "sqlite:demo.db", "sqlite:"+file)
	out, err := exec.Command("sh", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("the walkthrough failed: %v\n%s", err, out)
	}
	for _, want := range []string{`"OrderId":"ORDER-1001","Status2":"Locked","Error":null`, "approved ", "paid ",
		`"Number":"AT-1-0002"`, `"SubTotal":`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the walkthrough's output lacks %s:\n%s", want, out)
		}
	}
}

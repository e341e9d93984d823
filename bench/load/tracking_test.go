package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/generate"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

func TestLuaStringEscapesWhatLuaWouldMisread(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/t/12/b/7", `"/t/12/b/7"`},
		{`say "hi"`, `"say \034hi\034"`},
		{`a\b`, `"a\092b"`},
		{"tab\there", `"tab\009here"`},
		{"café", `"caf\195\169"`},
	}
	for _, tt := range tests {
		if got := luaString(tt.in); got != tt.want {
			t.Errorf("luaString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestWrittenCheckAllowsOnlyTheRequestsInFlight(t *testing.T) {
	tests := []struct {
		name             string
		written, counted int64
		failed           bool
		says             string
	}{
		{"as many rows as answers", 100, 100, false, "clicks written 100 for 100 302s"},
		{"a few more, in flight", 104, 100, false, "+4 in flight"},
		{"more than can be in flight", 117, 100, true, "17 more than"},
		{"fewer rows than answers", 99, 100, true, "1 MISSING"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, failed := writtenCheck("clicks written", tt.written, "302s", tt.counted, 16)
			if failed != tt.failed || !strings.Contains(got, tt.says) {
				t.Errorf("writtenCheck(%d, %d) = %q, %v; want one saying %q, failed %v", tt.written, tt.counted,
					got, failed, tt.says, tt.failed)
			}
		})
	}
}

func TestHeldCheckFailsAWriterThatFallsBehind(t *testing.T) {
	tests := []struct {
		name      string
		held      int64
		perSecond float64
		behind    bool
		says      string
	}{
		{"nothing held", 0, 10000, false, "0 held at the run's end (0.00 s of redirects)"},
		{"one flush interval's clicks", 1000, 10000, false, "1,000 held"},
		{"half a second's", 5000, 10000, false, "(0.50 s of redirects)"},
		{"more than half a second's", 5001, 10000, true, "WRITER IS BEHIND"},
		{"a full buffer", 100000, 14000, true, "(7.14 s of redirects): the click WRITER IS BEHIND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, behind := heldCheck(tt.held, tt.perSecond)
			if behind != tt.behind || !strings.Contains(got, tt.says) {
				t.Errorf("heldCheck(%d, %v) = %q, behind %v; want one saying %q, behind %v", tt.held, tt.perSecond,
					got, behind, tt.says, tt.behind)
			}
		})
	}
}

func TestBaselineTableHasATransactionsWidth(t *testing.T) {
	if n := len(baselineColumns) + 1; n < 30 || n > 40 {
		t.Errorf("the baseline's row has %d columns, want about 35 as a transaction's", n)
	}
	insert := baselineInsert()
	if !strings.Contains(insert, "$34)") || strings.Contains(insert, "$35") {
		t.Errorf("baselineInsert() = %s, want 34 placeholders", insert)
	}
	for _, d := range []string{"sqlite", "postgres"} {
		if ddl := baselineDDL(d); strings.Count(ddl, ",\n") != len(baselineColumns) {
			t.Errorf("baselineDDL(%s) = %s, want the id and %d columns", d, ddl, len(baselineColumns))
		}
	}
}

func TestConversionBaselineCommitsOneRowPerRequest(t *testing.T) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, "sqlite::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	head := http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Location": {"/V1/Merchant/Transactions/7"}}
	cb, err := newConversionBaseline(ctx, db, head, []byte(`{"Id":7}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(cb)
	defer srv.Close()
	for _, body := range []string{
		`{"OrderId":"a-1","ClickId":"0123456789abcdef0123456789abcdef","SaleValue":12.34,"CurrencyCode":"AUD","CustomerType":"New"}`,
		`{"OrderId":"a-2","CouponCode":"LOAD1X2","SaleValue":5.00,"CurrencyCode":"AUD","CustomerType":"Return"}`,
	} {
		resp, err := http.Post(srv.URL+"/V1/Merchant/Conversions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated || string(got) != `{"Id":7}` || resp.Header.Get("Location") == "" {
			t.Errorf("POST %s: %d %q with Location %q, want 201 with the fixed body and headers", body,
				resp.StatusCode, got, resp.Header.Get("Location"))
		}
	}
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"SaleValue":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a conversion without OrderId: %d, want 400", resp.StatusCode)
	}
	var rows int64
	var order, coupon string
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*), max(order_id), max(coupon_code) FROM `+baselineTable).
		Scan(&rows, &order, &coupon); err != nil {
		t.Fatal(err)
	}
	if rows != 2 || order != "a-2" || coupon != "LOAD1X2" {
		t.Errorf("%d rows (last order %q, coupon %q), want 2 rows of the two conversions", rows, order, coupon)
	}
}

// runWrk drives a test server with a script for a second, as the
// benchmark would; it skips the test without wrk.
func runWrk(t *testing.T, script, url string) result {
	t.Helper()
	if testing.Short() {
		t.Skip("drives wrk for a second")
	}
	w, err := findWrk()
	if err != nil {
		t.Skip(err)
	}
	path := filepath.Join(t.TempDir(), "s.lua")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := w.run(context.Background(), loadConfig{Threads: 2, Connections: 4, Duration: time.Second,
		Timeout: 5 * time.Second}, url, path)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.failed() {
		t.Fatalf("wrk: %+v, want requests and no failures", res)
	}
	return res
}

func TestClickScriptSendsTheLinksWithBrowsersHeaders(t *testing.T) {
	paths := []string{"/t/1/b/2", "/t/3/t/4", "/t/5/b/6"}
	agents := []string{"Mozilla/5.0 (A)", "Mozilla/5.0 (B)"}
	var mu sync.Mutex
	seenPaths, seenAgents := map[string]bool{}, map[string]bool{}
	var bad []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seenPaths[r.URL.Path], seenAgents[r.UserAgent()] = true, true
		if r.Method != http.MethodGet || !strings.HasPrefix(r.Header.Get("Accept"), "text/html") {
			bad = append(bad, r.Method+" "+r.Header.Get("Accept"))
		}
		w.Header().Set("Location", "https://shop.example/")
		w.WriteHeader(http.StatusFound)
	}))
	defer srv.Close()
	runWrk(t, clickScript(paths, agents), srv.URL+"/")
	mu.Lock()
	defer mu.Unlock()
	if len(seenPaths) != len(paths) || len(seenAgents) != len(agents) || len(bad) > 0 {
		t.Errorf("wrk asked for %v with %v (%d bad requests: %v); want every path and User-Agent, GETs accepting HTML",
			seenPaths, seenAgents, len(bad), bad[:min(len(bad), 3)])
	}
	for p := range seenPaths {
		if !strings.HasPrefix(p, "/t/") {
			t.Errorf("wrk asked for %q, not one of the links", p)
		}
	}
}

func TestConversionScriptSendsEachOrderIdOnce(t *testing.T) {
	credits := []credit{
		{Merchant: 3, Field: "ClickId", Value: "0123456789abcdef0123456789abcdef"},
		{Merchant: 9, Field: "CouponCode", Value: "LOAD12X9"},
	}
	keys := map[string]credit{}
	for _, c := range credits {
		keys[generate.MerchantKey(c.Merchant)] = c
	}
	var mu sync.Mutex
	orders := map[string]int{}
	var bad []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var in map[string]any
		err := json.Unmarshal(body, &in)
		c, ok := keys[r.Header.Get("X-Api-Key")]
		mu.Lock()
		defer mu.Unlock()
		order, _ := in["OrderId"].(string)
		orders[order]++
		sale, _ := in["SaleValue"].(float64)
		if err != nil || !ok || in[c.Field] != c.Value || len(in) != 5 || sale < 5 || sale >= 501 ||
			r.Method != http.MethodPost || r.URL.Path != "/V1/Merchant/Conversions" ||
			r.Header.Get("Content-Type") != "application/json" || !strings.HasPrefix(order, "run1-") {
			bad = append(bad, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Api-Key")+" "+string(body))
		}
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	res := runWrk(t, conversionScript(credits, "run1"), srv.URL+"/")
	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Errorf("%d requests are not conversions of a credit with its merchant's key, e.g. %q", len(bad), bad[0])
	}
	for order, n := range orders {
		if n > 1 {
			t.Errorf("OrderId %q was sent %d times", order, n)
		}
	}
	if int64(len(orders)) < res.Requests {
		t.Errorf("%d OrderIds for %d requests", len(orders), res.Requests)
	}
}

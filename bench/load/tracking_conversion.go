package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/afftrack/afftrack/internal/generate"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// measureConversions measures conversions reported by many merchants'
// servers, each with an OrderId no other has, credited half by a click
// made before the run and half by an exclusive coupon, on afftrack served
// with its default settings; and, with the same script, a bare handler
// that commits one row of a transaction's width per request to the same
// database (conversionBaseline). It then checks that every 2xx wrk
// counted is a transaction created.
func (b *bench) measureConversions(ctx context.Context, be backend, plan *trackingPlan) (row, error) {
	r := row{Scenario: conversionScenario, Format: conversionFormat, Backend: be.Name, Target: conversionTarget}
	srv, err := startServer(ctx, b.bin, be.DSN, filepath.Join(b.dir, "serve-conversions-"+be.Name+".log"), true)
	if err != nil {
		return r, err
	}
	defer srv.kill()
	credits, err := makeClickCredits(ctx, srv.base, plan.links, creditCount)
	if err != nil {
		return r, err
	}
	// Written before the run, so no conversion waits for its click.
	if err := waitClicksWritten(ctx, srv.base); err != nil {
		return r, err
	}
	credits = append(credits, plan.coupons...)
	run, err := runID()
	if err != nil {
		return r, err
	}
	// One conversion beforehand: its answer is the baseline's.
	head, body, err := postConversion(ctx, srv.base, credits[0], run+"-probe")
	if err != nil {
		return r, err
	}
	r.BodyBytes = len(body)
	before, err := countConversions(ctx, be.DSN)
	if err != nil {
		return r, err
	}
	var scripts [4]string // afftrack's warm-up and run, the baseline's: each OrderId once
	for i := range scripts {
		name := fmt.Sprintf("%s-%d", r.fileName(), i)
		if scripts[i], err = b.writeScript(name, conversionScript(credits, fmt.Sprintf("%s-%d", run, i))); err != nil {
			return r, err
		}
	}
	if err := srv.clearLog(); err != nil {
		return r, err
	}
	warm, res, prof, err := b.drive(ctx, srv.base+"/", scripts[0], scripts[1], r.fileName(), srv.pid())
	r.Afftrack, r.Profile = res, prof
	if err != nil {
		return r, err
	}
	if res.failed() {
		r.Note = fmt.Sprintf("afftrack: %d non-2xx, %d socket errors; the server's failed requests:\n%s",
			res.Non2xx, res.SocketErrors, trackingFailures(srv))
	}
	if err := srv.stop(); err != nil { // lets the requests in flight finish
		return r, err
	}
	after, err := countConversions(ctx, be.DSN)
	if err != nil {
		return r, err
	}
	runs := 1
	if warm.Requests > 0 {
		runs = 2
	}
	created := after[0] - before[0]
	r.Check, r.CheckFailed = writtenCheck("transactions created", created, "2xx",
		warm.Requests-warm.Non2xx+res.Requests-res.Non2xx, int64(runs*b.cfg.Load.Connections))
	if rows := after[1] - before[1]; rows != created {
		r.Check += fmt.Sprintf("; but %s conversions rows", thousands(rows))
		r.CheckFailed = true
	}
	merchants := map[int64]bool{}
	for _, c := range credits {
		merchants[c.Merchant] = true
	}
	r.Check += fmt.Sprintf("; %s credits (clicks and exclusive coupons) of %s merchants", thousands(int64(len(credits))),
		thousands(int64(len(merchants))))

	db, err := sqlstore.Open(ctx, be.DSN) // the pool and pragmas serve has
	if err != nil {
		return r, err
	}
	defer db.Close()
	cb, err := newConversionBaseline(ctx, db, head, body)
	if err != nil {
		return r, err
	}
	base, err := serveBaseline(cb)
	if err != nil {
		return r, err
	}
	defer base.stop()
	bwarm, bres, _, err := b.drive(ctx, base.url, scripts[2], scripts[3], "", 0)
	r.Baseline = bres
	if err != nil {
		return r, err
	}
	if err := base.stop(); err != nil {
		return r, err
	}
	var stored int64
	if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM `+baselineTable).Scan(&stored); err != nil {
		return r, err
	}
	check, failed := writtenCheck("rows committed", stored, "2xx",
		bwarm.Requests-bwarm.Non2xx+bres.Requests-bres.Non2xx, int64(runs*b.cfg.Load.Connections))
	r.Check += "; baseline: " + check
	r.CheckFailed = r.CheckFailed || failed
	if _, err := db.SQL().ExecContext(ctx, `DROP TABLE `+baselineTable); err != nil {
		return r, err
	}
	return r, nil
}

// countConversions counts the transactions and the conversions rows.
func countConversions(ctx context.Context, dsn string) ([2]int64, error) {
	var n [2]int64
	var err error
	if n[0], err = countRows(ctx, dsn, "transactions", ""); err != nil {
		return n, err
	}
	n[1], err = countRows(ctx, dsn, "conversions", "")
	return n, err
}

// runID names one run of the benchmark, so the OrderIds of its requests
// are none a run before it sent to the same database.
func runID() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return strconv.FormatInt(time.Now().Unix(), 36) + hex.EncodeToString(b[:]), nil
}

// makeClickCredits clicks n of the links (spread over them) as a browser
// would, and returns the click ids their cookies carry, as credits of the
// links' merchants.
func makeClickCredits(ctx context.Context, base string, links []trackingLink, n int) ([]credit, error) {
	client := noRedirectClient()
	n = min(n, len(links))
	credits := make([]credit, 0, n)
	for i := range n {
		l := links[i*len(links)/n]
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+l.Path, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("User-Agent", userAgents[i%len(userAgents)])
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		var id string
		for _, c := range resp.Cookies() {
			if c.Name == "afftrack_"+strconv.FormatInt(l.Merchant, 10) {
				id = c.Value
			}
		}
		if resp.StatusCode != http.StatusFound || id == "" {
			return nil, fmt.Errorf("GET %s: %s without the merchant's cookie: the click was not credited", l.Path, resp.Status)
		}
		credits = append(credits, credit{Merchant: l.Merchant, Field: "ClickId", Value: id})
	}
	return credits, nil
}

// postConversion reports one conversion and returns the 201's headers,
// without those net/http writes itself, and body.
func postConversion(ctx context.Context, base string, c credit, orderID string) (http.Header, []byte, error) {
	in := map[string]any{"OrderId": orderID, c.Field: c.Value, "SaleValue": 49.95, "CurrencyCode": "AUD",
		"CustomerType": "New"}
	body, err := json.Marshal(in)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/V1/Merchant/Conversions", bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("X-Api-Key", generate.MerchantKey(c.Merchant))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusCreated {
		return nil, nil, fmt.Errorf("POST /V1/Merchant/Conversions: %s: %.300s", resp.Status, out)
	}
	h := resp.Header.Clone()
	h.Del("Date")
	h.Del("Content-Length")
	return h, out, nil
}

// conversionScript is a wrk script whose every request POSTs a conversion
// of one of the credits, drawn at random, with its merchant's key and an
// OrderId made of run, the wrk thread and a per-thread count (unique)
// and a random number, a random SaleValue and CustomerType.
func conversionScript(credits []credit, run string) string {
	var b strings.Builder
	b.WriteString("-- written by bench/load: POST a conversion of a random credit, each OrderId once\nlocal credits = {\n")
	for _, c := range credits {
		fmt.Fprintf(&b, "  {%s, %s, %s},\n", luaString(generate.MerchantKey(c.Merchant)), luaString(c.Field),
			luaString(c.Value))
	}
	fmt.Fprintf(&b, "}\nlocal run = %s\n", luaString(run))
	b.WriteString(`local headers = {}
for i, c in ipairs(credits) do
  headers[i] = {["X-Api-Key"] = c[1], ["Content-Type"] = "application/json", ["Accept"] = "application/json"}
end
local customer = {"New", "Return"}
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local count = 0
math.randomseed(1)
request = function()
  count = count + 1
  local i = math.random(#credits)
  local c = credits[i]
  local body = string.format('{"OrderId":"%s-%d-%d-%d","%s":"%s","SaleValue":%d.%02d,"CurrencyCode":"AUD","CustomerType":"%s"}',
    run, tid or 0, count, math.random(1000000), c[2], c[3], math.random(5, 500), math.random(0, 99), customer[math.random(2)])
  return wrk.format("POST", "/V1/Merchant/Conversions", headers[i], body)
end
`)
	return b.String()
}

// baselineTable is the conversion baseline's table, created in the
// measured database for the run and dropped after it.
const baselineTable = "bench_conversions"

// baselineColumns are the baseline's row: a transaction's columns
// (migrations 0003 and 0006) with the reporting key and the conversion's
// fingerprint; 35 with the id.
var baselineColumns = []string{
	"merchant_key TEXT NOT NULL", "date_created BIGINT NOT NULL", "date_modified BIGINT NOT NULL",
	"consumption_date BIGINT NOT NULL", "validation_date BIGINT NOT NULL", "affiliate_id BIGINT NOT NULL",
	"traffic_type SMALLINT NOT NULL", "traffic_source TEXT NOT NULL", "creative_type SMALLINT NOT NULL",
	"creative_id BIGINT", "creative_name TEXT", "customer_country_code TEXT NOT NULL",
	"customer_country_name TEXT NOT NULL", "customer_ip_address TEXT NOT NULL", "customer_type SMALLINT NOT NULL",
	"order_id TEXT NOT NULL", "additional_notes TEXT", "tracking_method SMALLINT NOT NULL",
	"sale_value BIGINT NOT NULL", "commission BIGINT NOT NULL", "override_fee BIGINT NOT NULL",
	"reported_currency_code TEXT NOT NULL", "reported_currency_name TEXT NOT NULL",
	"reported_sale_value BIGINT NOT NULL", "traffic_source_approved BOOLEAN NOT NULL", "status2 SMALLINT NOT NULL",
	"invoice_id BIGINT", "void_reason SMALLINT", "amended_reason SMALLINT", "coupon_code TEXT",
	"placement_id BIGINT", "placement_name TEXT", "click_id TEXT", "fingerprint TEXT NOT NULL",
}

// baselineDDL creates the baseline's table in the dialect ("sqlite" or
// "postgres").
func baselineDDL(dialect string) string {
	id := "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
	if dialect == "sqlite" {
		id = "id INTEGER PRIMARY KEY"
	}
	return "CREATE TABLE " + baselineTable + " (\n  " + id + ",\n  " + strings.Join(baselineColumns, ",\n  ") + "\n)"
}

// baselineInsert inserts one row into the baseline's table.
func baselineInsert() string {
	names := make([]string, len(baselineColumns))
	marks := make([]string, len(baselineColumns))
	for i, c := range baselineColumns {
		names[i], _, _ = strings.Cut(c, " ")
		marks[i] = "$" + strconv.Itoa(i+1)
	}
	return "INSERT INTO " + baselineTable + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
}

// conversionBaseline is a bare net/http handler for conversions: it reads
// the body, decodes its JSON, and in one database transaction inserts one
// row of a transaction's width into a table of its own and commits, then
// answers 201 with afftrack's headers and body for one conversion. No
// key is checked, no program, click or coupon read, no id computed, no
// transaction read back: the least a handler that keeps what it
// acknowledges must do.
type conversionBaseline struct {
	db     *sqlstore.DB
	insert string
	head   http.Header
	body   []byte
}

// newConversionBaseline creates the baseline's table, afresh, in db.
func newConversionBaseline(ctx context.Context, db *sqlstore.DB, head http.Header, body []byte) (*conversionBaseline, error) {
	if _, err := db.SQL().ExecContext(ctx, `DROP TABLE IF EXISTS `+baselineTable); err != nil {
		return nil, err
	}
	if _, err := db.SQL().ExecContext(ctx, baselineDDL(db.Dialect())); err != nil {
		return nil, fmt.Errorf("create %s: %w", baselineTable, err)
	}
	return &conversionBaseline{db: db, insert: baselineInsert(), head: head, body: body}, nil
}

// baselineInput is what the baseline reads of a conversion.
type baselineInput struct {
	OrderID      string      `json:"OrderId"`
	ClickID      string      `json:"ClickId"`
	CouponCode   string      `json:"CouponCode"`
	SaleValue    json.Number `json:"SaleValue"`
	CurrencyCode string      `json:"CurrencyCode"`
	CustomerType string      `json:"CustomerType"`
}

func (cb *conversionBaseline) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var in baselineInput
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	sale, err := strconv.ParseFloat(in.SaleValue.String(), 64)
	if err != nil || in.OrderID == "" {
		http.Error(w, "OrderId and SaleValue are required", http.StatusBadRequest)
		return
	}
	value := int64(sale * 10_000)
	now := time.Now().UnixMilli()
	ip, _, _ := net.SplitHostPort(r.RemoteAddr)
	customerType, method := int64(1), int64(4)
	if in.CustomerType == "Return" {
		customerType = 2
	}
	var click, coupon any
	if in.ClickID != "" {
		click = in.ClickID
	}
	if in.CouponCode != "" {
		coupon, method = in.CouponCode, 5
	}
	sum := sha256.Sum256(body)
	ctx := r.Context()
	tx, err := cb.db.SQL().BeginTx(ctx, nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, cb.insert, r.Header.Get("X-Api-Key"), now, now, now, now+30*86_400_000,
		int64(0), int64(1), "", int64(1), nil, nil, "", "", ip, customerType, in.OrderID, nil, method,
		value, value/10, value/50, in.CurrencyCode, "Australian Dollar", value, true, int64(1), nil, nil, nil,
		coupon, nil, nil, click, hex.EncodeToString(sum[:])); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if err := tx.Commit(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	for k, v := range cb.head {
		h[k] = v
	}
	w.WriteHeader(http.StatusCreated)
	w.Write(cb.body)
}

package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	vErrors "github.com/pb33f/libopenapi-validator/errors"

	"github.com/afftrack/afftrack/openapi"
)

// openAPIValidator builds the validator of the repository's document,
// failing the test if the document does not build as OpenAPI 3.1.
func openAPIValidator(t *testing.T) validator.Validator {
	t.Helper()
	return validatorOf(t, openapi.Document)
}

// validatorOf builds the validator of a document, reading XML and JSONP
// answers as the contract writes them.
func validatorOf(t *testing.T, document []byte) validator.Validator {
	t.Helper()
	doc, err := libopenapi.NewDocument(document)
	if err != nil {
		t.Fatalf("parse openapi.json: %v", err)
	}
	if _, err := doc.BuildV3Model(); err != nil {
		t.Fatalf("build openapi.json's model: %v", err)
	}
	v, errs := validator.NewValidator(doc,
		config.WithBodyDecoder("application/xml", contractXML()),
		config.WithBodyDecoder("text/javascript", jsonpText()))
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	return v
}

// describeErrors makes a validator's findings readable in a failure.
func describeErrors(errs []*vErrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "\n  %s: %s", e.Message, e.Reason)
		for _, f := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n    at %s: %s", f.FieldPath, f.Reason)
		}
	}
	return b.String()
}

func TestOpenAPIDocumentIsValidOpenAPI31(t *testing.T) {
	v := openAPIValidator(t)
	if ok, errs := v.ValidateDocument(); !ok {
		t.Fatalf("openapi.json is not a valid OpenAPI document:%s", describeErrors(errs))
	}
	var head struct{ OpenAPI string }
	if err := json.Unmarshal(openapi.Document, &head); err != nil || head.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q (%v), want 3.1.0", head.OpenAPI, err)
	}
}

// TestOpenAPIDocumentsEveryRoute holds the document's paths equal to the
// server's route table, so a new route cannot go undocumented and a
// removed one cannot linger.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "internal", "api", "routes.go"))
	if err != nil {
		t.Fatal(err)
	}
	var routes []string
	// Route paths are string literals, the tracking ones after the
	// tracking path's variable t (served at /t by default).
	for _, m := range regexp.MustCompile(`\{(?:"[A-Z]*"|http\.Method(\w+)), (t \+ )?"(/[^"]*)"`).FindAllStringSubmatch(string(src), -1) {
		method := strings.ToUpper(m[1])
		if method == "" {
			method = "GET"
		}
		path := m[3]
		if m[2] != "" {
			path = "/t" + path
		}
		routes = append(routes, method+" "+strings.ToLower(path))
	}
	if len(routes) < 30 {
		t.Fatalf("found %d routes in routes.go; the pattern lost some", len(routes))
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	var documented []string
	for path, item := range doc.Paths {
		for method := range item {
			documented = append(documented, strings.ToUpper(method)+" "+strings.ToLower(path))
		}
	}
	slices.Sort(routes)
	slices.Sort(documented)
	if diff := cmp.Diff(routes, documented); diff != "" {
		t.Errorf("routes.go (-want) and openapi.json (+got) differ:\n%s", diff)
	}
}

// openAPICall is one request of the check and the status it must get.
type openAPICall struct {
	method, path string
	header       []string // name, value, ...
	body         string
	want         int
	base         string // the server to ask, if not the test's first
}

// v1Calls are the V1 functions called with the demo's keys and ids, with
// filters and link parameters, as JSON; each GET is also asked as XML
// and JSONP by the test.
var v1Calls = []openAPICall{
	{path: "/V1/Merchant/Transactions?fromDate=2024-01-01&toDate=2024-01-31", want: 200},
	{path: "/V1/Merchant/Transactions?fromDate=2024-01-01&toDate=2024-12-31&dateProperty=DateModified&status2=Void&trafficSourceApproved=true", want: 200},
	{path: "/V1/Merchant/Transactions/1", want: 200},
	{path: "/V1/Merchant/Transactions/2", want: 200},
	{path: "/V1/Merchant/Affiliates", want: 200},
	{path: "/V1/Merchant/Affiliates?status=Approved", want: 200},
	{path: "/V1/Merchant/Affiliates/1", want: 200},
	{path: "/V1/Merchant/Affiliates/2", want: 200},
	{path: "/V1/Merchant/Affiliates/3", want: 200},
	{path: "/V1/Merchant/Banners?bannerGroupId=1", want: 200},
	{path: "/V1/Merchant/Banners/2", want: 200},
	{path: "/V1/Merchant/BannerGroups", want: 200},
	{path: "/V1/Merchant/BannerGroups/2", want: 200},
	{path: "/V1/Merchant/Coupons", want: 200},
	{path: "/V1/Merchant/Promotions", want: 200},
	{path: "/V1/Merchant/Reports/Affiliate?fromDate=2024-01-01&toDate=2024-12-31", want: 200},
	{path: "/V1/Affiliate/Transactions?fromDate=2024-01-01&toDate=2024-01-31", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
	{path: "/V1/Affiliate/Transactions/1", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
	{path: "/V1/Affiliate/Transactions/5", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
	{path: "/V1/Affiliate/Banners", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
	{path: "/V1/Affiliate/Banners/2?uniqueId=summer", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
	{path: "/V1/Affiliate/Merchants", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
	{path: "/V1/Affiliate/Merchants?status=Pending", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
	{path: "/V1/Affiliate/Merchants/1?targetUrl=https%3A%2F%2Fwww.example.com%2Fshoes&uniqueId=post%2017", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
	{path: "/V1/Affiliate/Coupons", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
	{path: "/V1/Affiliate/Promotions?merchantId=1", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
	{path: "/V1/Affiliate/Promotions/1", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
	{path: "/V1/Affiliate/Invoices?fromDate=2024-02-01&toDate=2024-02-29", header: []string{"X-Api-Key", "demo-affiliate-2-key"}, want: 200},
	{path: "/V1/Affiliate/Invoices/2", header: []string{"X-Api-Key", "demo-affiliate-2-key"}, want: 200},
	{path: "/V1/Affiliate/Reports/TrafficType?fromDate=2024-01-01&toDate=2024-12-31", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
	{path: "/V1/Affiliate/Reports/Merchant?fromDate=2024-01-01&toDate=2024-12-31", header: []string{"X-Api-Key", "demo-affiliate-1-key"}, want: 200},
}

// otherCalls are the writes, the tracking routes, the probes and the
// errors; they are asked once, as given.
var otherCalls = []openAPICall{
	{method: "POST", path: "/V1/Merchant/Conversions", header: []string{"Content-Type", "application/json"},
		body: `{"OrderId": "OA-1", "SaleValue": 50, "CouponCode": "JOHN10"}`, want: 201},
	{method: "POST", path: "/V1/Merchant/Conversions", header: []string{"Content-Type", "application/json"},
		body: `{"OrderId": "OA-1", "SaleValue": 50, "CouponCode": "JOHN10"}`, want: 200},
	{method: "POST", path: "/V1/Merchant/Conversions?contentType=application/xml", header: []string{"Content-Type", "application/json"},
		body: `{"OrderId": "OA-2", "SaleValue": 12.5, "CouponCode": "JOHN10", "Items": [{"Sku": "A1", "Quantity": 2, "SaleValue": 12.5, "Category": "Shoes"}]}`, want: 201},
	{method: "POST", path: "/V1/Merchant/Conversions", header: []string{"Content-Type", "application/json"},
		body: `{"OrderId": "OA-1", "SaleValue": 51, "CouponCode": "JOHN10"}`, want: 409},
	{method: "POST", path: "/V1/Merchant/Conversions", header: []string{"Content-Type", "application/json"},
		body: `{"OrderId": "OA-3", "SaleValue": 50}`, want: 422},
	{method: "POST", path: "/V1/Merchant/Conversions", header: []string{"Content-Type", "application/json"},
		body: `{"OrderId": "OA-4", "SaleValue": "fifty"}`, want: 400},
	{method: "POST", path: "/V1/Merchant/Validations", header: []string{"Content-Type", "application/json"},
		body: `[{"Id": 3, "Action": "Approve"}, {"OrderId": "NO-SUCH", "Action": "Void", "VoidReason": "Test Transaction"}]`, want: 200},
	{method: "POST", path: "/V1/Merchant/Validations?contentType=application/xml", header: []string{"Content-Type", "application/json"},
		body: `[{"Id": 5, "Action": "Approve"}, {"Id": 99, "Action": "Approve"}]`, want: 200},
	{method: "POST", path: "/V1/Merchant/Validations?callback=done", header: []string{"Content-Type", "application/json"},
		body: `[{"OrderId": "OA-2", "Action": "Void", "VoidReason": "Cancelled Order"}]`, want: 200},
	{path: "/t/1/b/1", header: []string{"User-Agent", "Mozilla/5.0"}, want: 302},
	{path: "/t/1/t/1?UniqueId=post-17&Url=https%3A%2F%2Fwww.example.com%2Fshoes", header: []string{"User-Agent", "Mozilla/5.0"}, want: 302},
	{path: "/t/1/c/2", header: []string{"User-Agent", "Mozilla/5.0"}, want: 302},
	{path: "/t/1/o/1", header: []string{"User-Agent", "Mozilla/5.0"}, want: 302},
	{path: "/t/1/b/99", want: 404},
	{path: "/t/px/1?OrderId=OA-PX&SaleValue=10&CouponCode=JOHN10", want: 200},
	{path: "/t/px/1?OrderId=OA-PX2&CouponCode=JOHN10&Sku=A1&Quantity=2&ItemSaleValue=6&Name=Shoe&Brand=Acme&Category=Shoes" +
		"&Sku=A2&Quantity=&ItemSaleValue=4&Name=&Brand=&Category=&Sku=&ItemSaleValue=", want: 200},
	{path: "/t/1/b/1", header: []string{"User-Agent", "Mozilla/5.0"}, body: "x", want: 400},
	{path: "/healthz", body: "x", want: 400},
	{path: "/healthz", want: 200},
	{path: "/readyz", want: 200},
	{path: "/metrics", want: 200},
	{path: "/openapi.json", want: 200},
	{path: "/V1/Merchant/Coupons?apiKey=demo-merchant-1-key", want: 200},
	{path: "/V1/Merchant/Transactions?fromDate=2024-01-01&toDate=2024-01-31", header: []string{"X-Api-Key", "nobody"}, want: 401},
	{path: "/V1/Merchant/Transactions?toDate=2024-01-31", want: 400},
	{path: "/V1/Merchant/Transactions/one", want: 400},
	{path: "/V1/Merchant/Transactions/6", want: 404},
	{path: "/V1/Merchant/Transactions/6?contentType=application/xml", want: 404},
	{path: "/V1/Merchant/Affiliates?status=Joined", want: 400},
}

// TestOpenAPIOtherMethodsAnswer405: the document lists the methods each
// path serves, and any other answers components/responses/MethodNotAllowed.
// A validator cannot match a method the document lacks, so each case
// validates against a copy of the document in which the path lists the
// method with that one answer.
func TestOpenAPIOtherMethodsAnswer405(t *testing.T) {
	s := serve(t, "--demo")
	defer s.stop(t)
	for _, tc := range []struct{ method, path, template, allow string }{
		{"DELETE", "/V1/Merchant/Transactions/1", "/V1/Merchant/Transactions/{id}", "GET, HEAD"},
		{"PUT", "/V1/Affiliate/Banners?contentType=application/xml", "/V1/Affiliate/Banners", "GET, HEAD"},
		{"GET", "/V1/Merchant/Conversions", "/V1/Merchant/Conversions", "POST"},
		{"PUT", "/openapi.json", "/openapi.json", "GET, HEAD"},
	} {
		t.Run(tc.method+" "+tc.path+" is a 405 as documented", func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(openapi.Document, &doc); err != nil {
				t.Fatal(err)
			}
			item := doc["paths"].(map[string]any)[tc.template].(map[string]any)
			item[strings.ToLower(tc.method)] = map[string]any{"security": []any{},
				"responses": map[string]any{"405": map[string]any{"$ref": "#/components/responses/MethodNotAllowed"}}}
			withMethod, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			c := openAPICall{method: tc.method, path: tc.path, header: []string{"X-Api-Key", "demo-merchant-1-key"}, want: 405, base: s.base}
			resp, body := c.fetch(t, http.DefaultClient)
			if resp.StatusCode != 405 || resp.Header.Get("Allow") != tc.allow {
				t.Fatalf("%d, Allow %q; want 405, Allow %q", resp.StatusCode, resp.Header.Get("Allow"), tc.allow)
			}
			if ok, errs := validatorOf(t, withMethod).ValidateHttpResponse(c.request(t, s.base), resp); !ok {
				t.Errorf("not as openapi.json says:%s\nbody: %.300s", describeErrors(errs), body)
			}
		})
	}
}

// TestOpenAPIAnswersMatchTheDocument calls every function of the running
// demo server, in each format, and validates each request and its answer
// against openapi.json with an OpenAPI 3.1 validator: statuses, headers
// and JSON and XML bodies. Error answers are validated as answers only,
// since their requests are wrong on purpose.
func TestOpenAPIAnswersMatchTheDocument(t *testing.T) {
	v := openAPIValidator(t)
	s := serve(t, "--demo", "--lifecycle-interval", "0", "--rate-per-minute", "0", "--rate-per-day", "0", "--rate-concurrent", "0")
	defer s.stop(t)
	limited := serve(t, "--demo", "--rate-per-minute", "1")
	defer limited.stop(t)

	var calls []openAPICall
	for _, c := range v1Calls {
		if c.header == nil {
			c.header = []string{"X-Api-Key", "demo-merchant-1-key"}
		}
		sep := "?"
		if strings.Contains(c.path, "?") {
			sep = "&"
		}
		xml, jsonp := c, c
		xml.path += sep + "contentType=application/xml"
		jsonp.path += sep + "callback=app.show"
		calls = append(calls, c, xml, jsonp)
	}
	for _, c := range otherCalls {
		hasKey := slices.Contains(c.header, "X-Api-Key") || strings.Contains(c.path, "apiKey=")
		if !hasKey && (c.header == nil || strings.HasPrefix(c.path, "/V1/")) {
			c.header = append([]string{"X-Api-Key", "demo-merchant-1-key"}, c.header...)
		}
		calls = append(calls, c)
	}
	limit := openAPICall{path: "/V1/Merchant/BannerGroups", header: []string{"X-Api-Key", "demo-merchant-2-key"}}
	limit.want, limit.base = 200, limited.base
	over := limit
	over.want = 429
	calls = append(calls, limit, over)
	for _, c := range calls {
		if c.base == "" {
			c.base = s.base
		}
		c.check(t, v)
	}
}

// noRedirect is a client that shows a redirect instead of following it.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// check makes the call, wants its status, and validates the request and
// the answer against the document (the answer only, for an error); an XML
// answer must also say what the JSON answer to the same call says.
func (c openAPICall) check(t *testing.T, v validator.Validator) {
	t.Helper()
	if c.method == "" {
		c.method = http.MethodGet
	}
	t.Run(fmt.Sprintf("%s %s answers %d as documented", c.method, c.path, c.want), func(t *testing.T) {
		resp, body := c.fetch(t, noRedirect)
		if resp.StatusCode != c.want {
			t.Fatalf("status %d, want %d; body: %.300s", resp.StatusCode, c.want, body)
		}
		check := c.request(t, c.base) // a body the validator can read
		var ok bool
		var errs []*vErrors.ValidationError
		if c.want < 400 {
			ok, errs = v.ValidateHttpRequestResponse(check, resp)
		} else {
			ok, errs = v.ValidateHttpResponse(check, resp)
		}
		if !ok {
			t.Errorf("not as openapi.json says:%s\nbody: %.500s", describeErrors(errs), body)
		}
		// The schemas cannot tell 100.00 from 100.0000, nor see inside a
		// JSONP answer: the other formats must say what JSON says.
		if c.want != 200 || c.method != http.MethodGet {
			return
		}
		if jsonPath, ok := strings.CutSuffix(c.path, "contentType=application/xml"); ok {
			if err := xmlMatchesJSON(body, c.jsonAnswer(t, jsonPath), xmlRoot(t, c.path)); err != nil {
				t.Errorf("the XML answer is not the JSON one: %v\nXML: %.500s", err, body)
			}
		}
		if jsonPath, ok := strings.CutSuffix(c.path, "callback=app.show"); ok {
			if want := "app.show(" + string(c.jsonAnswer(t, jsonPath)) + ");"; string(body) != want {
				t.Errorf("the JSONP answer is not the JSON one in a call:\n got %.300s\nwant %.300s", body, want)
			}
		}
	})
}

// jsonAnswer is the JSON answer to the call with its last parameter (the
// format's) replaced: path is the call's path up to that parameter.
func (c openAPICall) jsonAnswer(t *testing.T, path string) []byte {
	t.Helper()
	c.path = path + "contentType=application/json"
	resp, err := noRedirect.Do(c.request(t, c.base))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the JSON answer: %d %v", resp.StatusCode, err)
	}
	return body
}

// TestOpenAPIAnswersOnAGeneratedNetwork validates the answers of a
// network made by `afftrack generate`, whose transactions, memberships,
// coupons and clicks take the states and nulls a small demo lacks, in
// JSON and XML, for every list function of a sample of accounts.
func TestOpenAPIAnswersOnAGeneratedNetwork(t *testing.T) {
	v := openAPIValidator(t)
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "generated.db")
	if out, err := afftrack(t, nil, "generate", "--db", dsn, "--transactions", "1500", "--merchants", "8",
		"--affiliates", "60", "--seed", "7", "--start", "2024-01-01", "--days", "90"); err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	// No scheduled locking: it would change transactions between an XML
	// answer and the JSON one it is compared with.
	s := serve(t, "--db", dsn, "--lifecycle-interval", "0", "--rate-per-minute", "0", "--rate-per-day", "0", "--rate-concurrent", "0")
	defer s.stop(t)
	const year = "fromDate=2024-01-01&toDate=2024-12-31"
	var calls []openAPICall
	add := func(key string, paths ...string) {
		for _, p := range paths {
			sep := "?"
			if strings.Contains(p, "?") {
				sep = "&"
			}
			for _, format := range []string{"", sep + "contentType=application/xml"} {
				calls = append(calls, openAPICall{path: p + format, header: []string{"X-Api-Key", key}, want: 200, base: s.base})
			}
		}
	}
	for m := 1; m <= 8; m++ {
		add(fmt.Sprintf("gen-merchant-%d-key", m), "/V1/Merchant/Transactions?"+year, "/V1/Merchant/Affiliates",
			"/V1/Merchant/Banners", "/V1/Merchant/BannerGroups", "/V1/Merchant/Coupons", "/V1/Merchant/Promotions",
			"/V1/Merchant/Reports/Affiliate?"+year)
	}
	for a := 1; a <= 60; a += 7 {
		add(fmt.Sprintf("gen-affiliate-%d-key", a), "/V1/Affiliate/Transactions?"+year, "/V1/Affiliate/Merchants",
			"/V1/Affiliate/Banners", "/V1/Affiliate/Coupons", "/V1/Affiliate/Promotions", "/V1/Affiliate/Invoices?"+year,
			"/V1/Affiliate/Reports/TrafficType?"+year, "/V1/Affiliate/Reports/Merchant?"+year)
	}
	for _, c := range calls {
		c.check(t, v)
	}
}

// fetch makes the call through hc and returns the answer, its body read
// and put back for the validator, and the body.
func (c openAPICall) fetch(t *testing.T, hc *http.Client) (*http.Response, []byte) {
	t.Helper()
	resp, err := hc.Do(c.request(t, c.base))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, body
}

func (c openAPICall) request(t *testing.T, base string) *http.Request {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, base+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(c.header); i += 2 {
		req.Header.Set(c.header[i], c.header[i+1])
	}
	return req
}

// TestOpenAPICheckCatchesAWrongAnswer proves the check can fail: a real
// answer with a field removed, or with a field of the wrong type, or an
// undocumented field added, or JSON sent as JSONP, is reported.
func TestOpenAPICheckCatchesAWrongAnswer(t *testing.T) {
	v := openAPIValidator(t)
	s := serve(t, "--demo")
	defer s.stop(t)
	c := openAPICall{method: "GET", path: "/V1/Merchant/Transactions/1", header: []string{"X-Api-Key", "demo-merchant-1-key"}, want: 200}
	_, header, body := s.get(t, c.path, c.header...)
	var tx map[string]any
	if err := json.Unmarshal([]byte(body), &tx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(map[string]any)
	}{
		{"a missing field", func(m map[string]any) { delete(m, "Commission") }},
		{"a number as text", func(m map[string]any) { m["SaleValue"] = "100.0000" }},
		{"a value outside its enum", func(m map[string]any) { m["Status2"] = "Settled" }},
		{"a datetime with a zone", func(m map[string]any) { m["DateCreated"] = "2024-01-01T09:15:00Z" }},
		{"an undocumented field", func(m map[string]any) { m["Extra"] = 1 }},
		{"a null where none may be", func(m map[string]any) { m["OrderId"] = nil }},
	} {
		t.Run(tc.name+" is reported", func(t *testing.T) {
			m := map[string]any{}
			for k, v := range tx {
				m[k] = v
			}
			tc.change(m)
			changed, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			resp := &http.Response{StatusCode: 200, Header: header, Body: io.NopCloser(bytes.NewReader(changed))}
			if ok, _ := v.ValidateHttpResponse(c.request(t, s.base), resp); ok {
				t.Errorf("the validator passed %s", changed)
			}
		})
	}
	t.Run("a JSONP answer that is no call is reported", func(t *testing.T) {
		_, header, _ := s.get(t, c.path+"?callback=app.show", c.header...)
		resp := &http.Response{StatusCode: 200, Header: header, Body: io.NopCloser(strings.NewReader(body))}
		if ok, _ := v.ValidateHttpResponse(c.request(t, s.base), resp); ok {
			t.Errorf("the validator passed %s as %s", body, header.Get("Content-Type"))
		}
	})
}

// TestOpenAPIIsServed: GET /openapi.json answers the repository's file,
// byte for byte, with no key, and a 304 to a client that holds it.
func TestOpenAPIIsServed(t *testing.T) {
	s := serve(t, "--demo")
	defer s.stop(t)
	code, header, body := s.get(t, "/openapi.json")
	if code != 200 || header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("GET /openapi.json: %d %q", code, header.Get("Content-Type"))
	}
	file, err := os.ReadFile(filepath.Join("..", "..", "openapi", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	if body != string(file) {
		t.Errorf("GET /openapi.json is not openapi/openapi.json (%d bytes, want %d)", len(body), len(file))
	}
	again := openAPICall{path: "/openapi.json", header: []string{"If-None-Match", header.Get("ETag")}, want: 304, base: s.base}
	again.check(t, openAPIValidator(t))
}

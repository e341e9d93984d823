package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"

	"github.com/google/go-cmp/cmp"
)

// jsonMessage returns the body of a plain JSON error response.
func jsonMessage(body string) string {
	const prefix, suffix = `{"Message":"`, `"}`
	if !strings.HasPrefix(body, prefix) || !strings.HasSuffix(body, suffix) {
		return "<not an error body: " + body + ">"
	}
	return strings.ReplaceAll(body[len(prefix):len(body)-len(suffix)], `\"`, `"`)
}

func TestNegotiationThroughTheHandler(t *testing.T) {
	const invoice = "/V1/Affiliate/Invoices/1"
	tests := []struct {
		name       string
		target     string
		header     []string
		wantStatus int
		wantType   string
		wantPrefix string
	}{
		{"no preference answers JSON", invoice, nil, 200, contentTypeJSON, `{"Id":1,`},
		{"contentType wins over Accept", invoice + "?contentType=application/xml", []string{"Accept", "application/json"},
			200, contentTypeXML, `<Invoice xmlns:i=`},
		{"the contentType name matches in any case", invoice + "?CONTENTTYPE=text%2Fxml", nil, 200, contentTypeXML, `<Invoice `},
		{"Accept q-values pick XML", invoice, []string{"Accept", "application/json;q=0.4, application/xml;q=0.6"},
			200, contentTypeXML, `<Invoice `},
		{"Accept */* answers JSON", invoice, []string{"Accept", "*/*", "Content-Type", "application/xml"}, 200, contentTypeJSON, `{"Id":1,`},
		{"Accept application/* answers JSON", invoice, []string{"Accept", "application/*"}, 200, contentTypeJSON, `{"Id":1,`},
		{"an Accept tie goes to the earlier type", invoice, []string{"Accept", "text/xml, application/json"}, 200, contentTypeXML, `<Invoice `},
		{"an unsupported Accept answers JSON despite Content-Type", invoice,
			[]string{"Accept", "text/html", "Content-Type", "application/xml"}, 200, contentTypeJSON, `{"Id":1,`},
		{"Content-Type decides without Accept", invoice, []string{"Content-Type", "application/xml"}, 200, contentTypeXML, `<Invoice `},
		{"several Accept headers are read as one list", invoice,
			[]string{"Accept", "application/json;q=0.1", "Accept", "text/xml"}, 200, contentTypeXML, `<Invoice `},
		{"a bad contentType is a 400 in the Accept format", invoice + "?contentType=text/html", []string{"Accept", "text/xml"},
			400, contentTypeXML, `<Error xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://localhost:8080/V1/Affiliate"><Message>contentType: "text/html" is not one of`},
		{"a valid callback answers JSONP", invoice + "?callback=my.cb_1$", nil, 200, contentTypeJSONP, `my.cb_1$({"Id":1,`},
		{"an invalid callback is a 400 in plain JSON", invoice + "?callback=alert(document.cookie)", nil,
			400, contentTypeJSON, `{"Message":"callback: \"alert(document.cookie)\" is not a valid JavaScript function name`},
		{"a callback on an XML request is ignored", invoice + "?callback=1%20bad&contentType=application/xml", nil,
			200, contentTypeXML, `<Invoice `},
		{"an error on a JSONP request is JSONP too", "/V1/Affiliate/Invoices/3?callback=cb", nil,
			404, contentTypeJSONP, `cb({"Message":"The requested item could not be found."});`},
		{"a bad contentType on a JSONP request is a JSONP 400", invoice + "?callback=cb&contentType=nope", nil,
			400, contentTypeJSONP, `cb({"Message":"contentType: \"nope\" is not one of`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", tt.target, append([]string{"X-Api-Key", affiliateKey}, tt.header...)...)
			mustStatus(t, w, tt.wantStatus)
			if got := w.Header().Get("Content-Type"); got != tt.wantType {
				t.Errorf("Content-Type = %q, want %q", got, tt.wantType)
			}
			if !strings.HasPrefix(w.Body.String(), tt.wantPrefix) {
				t.Errorf("body = %s\nwant prefix %s", w.Body.String(), tt.wantPrefix)
			}
		})
	}
}

func TestOrderOfChecks(t *testing.T) {
	refuse := func(h *harness) {
		h.limiter.decide = func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision {
			return afftrack.RateDecision{RetryAfter: time.Second}
		}
	}
	tests := []struct {
		name       string
		target     string
		key        string
		setup      func(*harness)
		wantStatus int
	}{
		{"a bad key with bad parameters is a 401", "/V1/Merchant/Transactions?fromDate=x", "nope", nil, 401},
		{"a bad key with a bad contentType is a 401", "/V1/Merchant/Transactions/1?contentType=nope", "nope", nil, 401},
		{"a bad key with a bad callback is a 401", "/V1/Merchant/Transactions/1?callback=1x", "nope", nil, 401},
		{"a bad key on a missing item is a 401", "/V1/Merchant/Transactions/99", "nope", nil, 401},
		{"a rate-limited call with bad parameters is a 429", "/V1/Merchant/Transactions?fromDate=x", merchantKey, refuse, 429},
		{"a rate-limited call with a bad contentType is a 429", "/V1/Merchant/Transactions/1?contentType=nope", merchantKey, refuse, 429},
		{"bad parameters on a missing item are a 400", "/V1/Affiliate/Invoices/99?contentType=nope", affiliateKey, nil, 400},
		{"a bad id is a 400 before any lookup", "/V1/Affiliate/Invoices/x", affiliateKey, nil, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			if tt.setup != nil {
				tt.setup(h)
			}
			mustStatus(t, h.do("GET", tt.target, "X-Api-Key", tt.key), tt.wantStatus)
		})
	}
}

func TestRouting(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		target     string
		header     []string
		wantStatus int
		wantBody   string // exact; "" skips
	}{
		{"paths match in any case", "GET", "/v1/MERCHANT/transactions/1", []string{"X-Api-Key", merchantKey}, 200, ""},
		{"a trailing slash is tolerated", "GET", "/v1/merchant/transactions/?fromDate=2000-01-01&toDate=2000-01-01",
			[]string{"X-Api-Key", merchantKey}, 200, ""},
		{"a trailing slash after an id is tolerated", "GET", "/V1/Affiliate/Invoices/1/", []string{"X-Api-Key", affiliateKey}, 200, ""},
		{"two trailing slashes are not a path", "GET", "/V1/Affiliate/Banners//", []string{"X-Api-Key", affiliateKey}, 404, ""},
		{"an unknown path is a 404", "GET", "/V1/Merchant/Payments", nil, 404,
			`{"Message":"The requested item could not be found."}`},
		{"an extra segment is a 404", "GET", "/V1/Merchant/Transactions/1/Items", []string{"X-Api-Key", merchantKey}, 404, ""},
		{"the root is a 404", "GET", "/", nil, 404, ""},
		{"a path with dot segments is a 404, not a redirect", "GET", "/V1/Merchant/../Affiliate/Banners", nil, 404, ""},
		{"an unknown path in XML uses the Merchant namespace", "GET", "/nowhere?contentType=text/xml", nil, 404,
			`<Error xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://localhost:8080/V1/Merchant"><Message>The requested item could not be found.</Message></Error>`},
		{"an unknown affiliate path in XML uses the Affiliate namespace", "GET", "/v1/affiliate/nowhere", []string{"Accept", "application/xml"}, 404,
			`<Error xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://localhost:8080/V1/Affiliate"><Message>The requested item could not be found.</Message></Error>`},
		{"POST on a known path is a 405", "POST", "/V1/Merchant/Transactions", nil, 405,
			`{"Message":"The requested resource does not support http method 'POST'."}`},
		{"DELETE on an item path is a 405", "DELETE", "/v1/merchant/transactions/1/", nil, 405, ""},
		{"PUT on healthz is a 405", "PUT", "/healthz", nil, 405, ""},
		{"healthz needs no key", "GET", "/healthz", nil, 200, `{"Status":"ok"}`},
		{"readyz needs no key", "GET", "/readyz", nil, 200, `{"Status":"ok"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do(tt.method, tt.target, tt.header...)
			mustStatus(t, w, tt.wantStatus)
			if tt.wantBody != "" {
				if diff := cmp.Diff(tt.wantBody, w.Body.String()); diff != "" {
					t.Errorf("body (-want +got):\n%s", diff)
				}
			}
			allow := w.Header().Get("Allow")
			if tt.wantStatus == 405 && allow != "GET, HEAD" {
				t.Errorf("Allow = %q, want %q", allow, "GET, HEAD")
			} else if tt.wantStatus != 405 && allow != "" {
				t.Errorf("Allow = %q on a %d", allow, tt.wantStatus)
			}
		})
	}

	t.Run("readyz is a 503 while the store cannot answer", func(t *testing.T) {
		h := newHarness(t)
		h.ready = errStore
		w := h.do("GET", "/readyz")
		mustStatus(t, w, http.StatusServiceUnavailable)
		if !strings.Contains(h.logs.String(), errStore.Error()) {
			t.Errorf("the cause is not logged:\n%s", h.logs.String())
		}
	})

	t.Run("HEAD answers like GET without a body", func(t *testing.T) {
		h := newHarness(t)
		for _, target := range []string{"/V1/Merchant/Transactions/1", "/V1/Merchant/Transactions/99", "/nowhere"} {
			get := h.do("GET", target, "X-Api-Key", merchantKey, "X-Request-Id", "r1")
			head := h.do("HEAD", target, "X-Api-Key", merchantKey, "X-Request-Id", "r1")
			if head.Code != get.Code {
				t.Errorf("%s: HEAD status = %d, GET status = %d", target, head.Code, get.Code)
			}
			if diff := cmp.Diff(get.Header(), head.Header()); diff != "" {
				t.Errorf("%s: HEAD headers differ from GET (-GET +HEAD):\n%s", target, diff)
			}
			if head.Body.Len() != 0 {
				t.Errorf("%s: HEAD body = %q, want empty", target, head.Body.String())
			}
		}
	})
}

func TestCommonHeaders(t *testing.T) {
	tests := []struct {
		name      string
		target    string
		requestID string
		keepID    bool
	}{
		{"a success echoes a sane request id", "/V1/Merchant/Transactions/1", "abc-123_X.y", true},
		{"an error echoes a sane request id", "/V1/Merchant/Transactions/99", "req.42", true},
		{"a 404 echoes a sane request id", "/nowhere", "A", true},
		{"a request id of 128 characters is echoed", "/healthz", strings.Repeat("a", 128), true},
		{"a request id of 129 characters is replaced", "/healthz", strings.Repeat("a", 129), false},
		{"a request id with other characters is replaced", "/healthz", "abc def", false},
		{"a request id with a control character is replaced", "/healthz", "abc\x01", false},
		{"a missing request id is generated", "/healthz", "", false},
		{"a 401 carries them too", "/V1/Affiliate/Transactions/1", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			header := []string{"X-Api-Key", merchantKey}
			if tt.requestID != "" {
				header = append(header, "X-Request-Id", tt.requestID)
			}
			w := h.do("GET", tt.target, header...)
			id := w.Header().Get("X-Request-Id")
			switch {
			case tt.keepID && id != tt.requestID:
				t.Errorf("X-Request-Id = %q, want %q", id, tt.requestID)
			case !tt.keepID && (id == tt.requestID || len(id) != 32 || strings.Trim(id, "0123456789abcdef") != ""):
				t.Errorf("X-Request-Id = %q, want a new random hex id", id)
			}
			if !strings.Contains(h.logs.String(), "request_id="+id) {
				t.Errorf("the log does not carry the request id %q:\n%s", id, h.logs.String())
			}
			for name, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Vary": "Accept, Content-Type",
				"Cache-Control": "no-store"} {
				if got := w.Header().Get(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestRequestLog(t *testing.T) {
	tests := []struct {
		name    string
		target  string
		header  []string
		wantURL string
	}{
		{"the apiKey value is redacted", "/V1/Merchant/Transactions/1?apiKey=" + merchantKey + "&x=1", nil,
			`url="/V1/Merchant/Transactions/1?apiKey=REDACTED&x=1"`},
		{"the apiKey value is redacted in any case of the name", "/V1/Merchant/Transactions/1?x=1&APIKEY=" + merchantKey, nil,
			`url="/V1/Merchant/Transactions/1?x=1&APIKEY=REDACTED"`},
		{"every apiKey value is redacted", "/V1/Merchant/Transactions/1?apikey=" + merchantKey + "&ApiKey=" + otherMerchantKey, nil,
			`url="/V1/Merchant/Transactions/1?apikey=REDACTED&ApiKey=REDACTED"`},
		{"an escaped apiKey name is redacted", "/V1/Merchant/Transactions/1?api%4Bey=" + merchantKey, nil,
			`url="/V1/Merchant/Transactions/1?api%4Bey=REDACTED"`},
		{"an apiKey after a semicolon is redacted", "/V1/Merchant/Transactions/1?x=1;apiKey=" + merchantKey, nil,
			`url="/V1/Merchant/Transactions/1?x=1;apiKey=REDACTED"`},
		{"a name that Unicode case mapping makes apiKey is redacted", "/V1/Merchant/Transactions/1?AP%C4%B0KEY=" + merchantKey, nil,
			`url="/V1/Merchant/Transactions/1?AP%C4%B0KEY=REDACTED"`},
		{"a name with the Kelvin sign is redacted", "/V1/Merchant/Transactions/1?api%E2%84%AAey=" + merchantKey, nil,
			`url="/V1/Merchant/Transactions/1?api%E2%84%AAey=REDACTED"`},
		{"a refused key is redacted", "/V1/Affiliate/Banners?apiKey=" + merchantKey, nil,
			`url="/V1/Affiliate/Banners?apiKey=REDACTED"`},
		{"a near miss with an underscore is redacted", "/V1/Merchant/Transactions/1?api_key=" + merchantKey, nil,
			`url="/V1/Merchant/Transactions/1?api_key=REDACTED"`},
		{"a near miss with brackets is redacted", "/V1/Merchant/Transactions/1?apiKey%5B%5D=" + merchantKey, nil,
			`url="/V1/Merchant/Transactions/1?apiKey%5B%5D=REDACTED"`},
		{"a near miss with a space is redacted", "/V1/Merchant/Transactions/1?+apiKey=" + merchantKey, nil,
			`url="/V1/Merchant/Transactions/1?+apiKey=REDACTED"`},
		{"a near miss with a NUL is redacted", "/V1/Merchant/Transactions/1?apiKey%00=" + merchantKey, nil,
			`url="/V1/Merchant/Transactions/1?apiKey%00=REDACTED"`},
		{"a value after a semicolon, of no name, is redacted", "/V1/Merchant/Transactions/1?apikey;=" + merchantKey, nil,
			`url="/V1/Merchant/Transactions/1?apikey;=REDACTED"`},
		{"a fullwidth letter is redacted", "/V1/Merchant/Transactions/1?%EF%BC%A1piKey=" + merchantKey, nil,
			`url="/V1/Merchant/Transactions/1?%EF%BC%A1piKey=REDACTED"`},
		{"a token is redacted", "/V1/Merchant/Transactions/1?access_token=" + merchantKey, nil,
			`url="/V1/Merchant/Transactions/1?access_token=REDACTED"`},
		{"a header key never reaches the log", "/V1/Merchant/Transactions/1", []string{"X-Api-Key", merchantKey},
			`url=/V1/Merchant/Transactions/1 `},
		{"a mismatched header key never reaches the log", "/V1/Merchant/Transactions/1?apiKey=" + merchantKey,
			[]string{"X-Api-Key", otherMerchantKey}, `url="/V1/Merchant/Transactions/1?apiKey=REDACTED"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", tt.target, tt.header...)
			logs := h.logs.String()
			for _, key := range []string{merchantKey, otherMerchantKey, "SECRET"} {
				if strings.Contains(logs, key) || strings.Contains(w.Body.String(), key) {
					t.Errorf("the key %q leaked:\nlog: %s\nbody: %s", key, logs, w.Body.String())
				}
			}
			if !strings.Contains(logs, tt.wantURL) {
				t.Errorf("log lacks %s:\n%s", tt.wantURL, logs)
			}
		})
	}

	t.Run("a long URL and method are cut, saying how much", func(t *testing.T) {
		h := newHarness(t)
		method := strings.Repeat("M", 5000)
		h.do(method, "/V1/Merchant/Transactions/1?x="+strings.Repeat("a", 10_000)+"&apiKey="+merchantKey)
		logs := h.logs.String()
		if strings.Contains(logs, merchantKey) {
			t.Errorf("the key leaked: %s", logs)
		}
		if len(logs) > 2*maxLoggedText || !strings.Contains(logs, "more bytes)") {
			t.Errorf("a line of %d bytes, want it cut to about %d:\n%.300s", len(logs), maxLoggedText, logs)
		}
		w := h.do(method, "/V1/Merchant/Transactions/1")
		if w.Code != http.StatusMethodNotAllowed || w.Body.Len() > 2*maxMethodQuoted+200 {
			t.Errorf("%d, a body of %d bytes, want 405 quoting the method cut", w.Code, w.Body.Len())
		}
	})

	t.Run("the line carries method, status, bytes, duration, request id and account", func(t *testing.T) {
		h := newHarness(t)
		w := h.do("GET", "/V1/Merchant/Transactions/1", "X-Api-Key", merchantKey, "X-Request-Id", "rid-7")
		logs := h.logs.String()
		for _, want := range []string{"msg=request", "method=GET", "status=200", "bytes=" + strconv.Itoa(w.Body.Len()),
			"duration=", "request_id=rid-7", "account=merchant:1"} {
			if !strings.Contains(logs, want) {
				t.Errorf("log lacks %q:\n%s", want, logs)
			}
		}
		if n := strings.Count(logs, "msg=request"); n != 1 {
			t.Errorf("%d request lines, want 1", n)
		}
	})
}

func TestPanicRecovery(t *testing.T) {
	h := newHarness(t)
	h.tx.panicByID = true
	w := h.do("GET", "/V1/Merchant/Transactions/1?contentType=application/xml", "X-Api-Key", merchantKey, "X-Request-Id", "boom-1")
	mustStatus(t, w, http.StatusInternalServerError)
	want := `<Error xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://localhost:8080/V1/Merchant"><Message>` +
		messageInternal + `</Message></Error>`
	if diff := cmp.Diff(want, w.Body.String()); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	logs := h.logs.String()
	for _, want := range []string{"fake store exploded", "request_id=boom-1", "goroutine", "status=500"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if strings.Contains(w.Body.String(), "exploded") {
		t.Errorf("the panic leaked to the client: %s", w.Body.String())
	}
	if got := h.limiter.released.Load(); got != 1 {
		t.Errorf("released = %d after a panic, want 1", got)
	}
	h.tx.panicByID = false
	mustStatus(t, h.do("GET", "/V1/Merchant/Transactions/1", "X-Api-Key", merchantKey), http.StatusOK)
}

func TestOverARealConnection(t *testing.T) {
	h := newHarness(t)
	srv := httptest.NewServer(h.srv.Handler())
	defer srv.Close()
	do := func(method, path string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		req.Header.Set("X-Api-Key", affiliateKey)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, string(body)
	}

	t.Run("HEAD sends GET's status and length without a body", func(t *testing.T) {
		get, getBody := do("GET", "/v1/affiliate/invoices/2/")
		head, headBody := do("HEAD", "/v1/affiliate/invoices/2/")
		if get.StatusCode != 200 || head.StatusCode != 200 {
			t.Fatalf("statuses GET %d HEAD %d, want 200", get.StatusCode, head.StatusCode)
		}
		if headBody != "" {
			t.Errorf("HEAD body = %q, want none", headBody)
		}
		if want := strconv.Itoa(len(getBody)); head.Header.Get("Content-Length") != want {
			t.Errorf("HEAD Content-Length = %q, want %s", head.Header.Get("Content-Length"), want)
		}
	})

	t.Run("another method is a 405 with Allow and an error body", func(t *testing.T) {
		res, body := do("PATCH", "/V1/Affiliate/Banners")
		if res.StatusCode != 405 || res.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("status %d Allow %q, want 405 and GET, HEAD", res.StatusCode, res.Header.Get("Allow"))
		}
		if want := `{"Message":"The requested resource does not support http method 'PATCH'."}`; body != want {
			t.Errorf("body = %s, want %s", body, want)
		}
	})
}

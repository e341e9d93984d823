package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/api"
	"github.com/afftrack/afftrack/internal/clickbuf"
	"github.com/afftrack/afftrack/internal/importfile"
	"github.com/afftrack/afftrack/internal/linkcache"
	"github.com/afftrack/afftrack/internal/ratelimit"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// newValidationEnv serves trNetwork as newTrackingEnv does, with merchants'
// validations routed (api.Services.Lifecycle), on a fresh in-memory store.
func newValidationEnv(t *testing.T, limits afftrack.Limits) *trEnv {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, "sqlite::memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	d, err := importfile.Parse(strings.NewReader(trNetwork), time.UTC)
	if err != nil {
		t.Fatalf("parse the network: %v", err)
	}
	if _, err := sqlstore.NewImportService(db).Import(ctx, d); err != nil {
		t.Fatalf("import the network: %v", err)
	}
	store := sqlstore.NewClickService(db)
	key, err := store.IPHashKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	clicks := clickbuf.New(store, clickbuf.Options{FlushInterval: 5 * time.Millisecond})
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := clicks.Close(cctx); err != nil {
			t.Errorf("closing the click buffer: %v", err)
		}
	})
	clock := func() time.Time { return afftrack.WallClock(time.Now(), time.UTC) }
	e := &trEnv{t: t, db: db, ipKey: key}
	var handler http.Handler
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	e.server = api.NewServer(api.Config{
		PublicURL:     e.srv.URL,
		Currency:      "AUD",
		Location:      time.UTC,
		DefaultLimits: limits,
	}, api.Services{
		Accounts:     sqlstore.NewAccountService(db),
		Transactions: sqlstore.NewTransactionService(db),
		Banners:      sqlstore.NewBannerService(db),
		Invoices:     sqlstore.NewInvoiceService(db),
		RateLimiter:  ratelimit.NewMemory(),
		Tracking:     linkcache.New(store, linkcache.Options{}),
		Clicks:       clicks,
		Conversions:  sqlstore.NewConversionService(db, "AUD", clock),
		Lifecycle:    sqlstore.NewLifecycleService(db, "AUD", clock),
		IPHashKey:    key,
	}, nil, time.Now)
	handler = e.server.Handler()
	e.client = &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return e
}

// validate posts a validation body with merchant 1's key (or the header
// pairs given instead); a query may follow the path's "?".
func (e *trEnv) validate(query, body string, header ...string) trResponse {
	e.t.Helper()
	if len(header) == 0 {
		header = []string{"X-Api-Key", trMerchant1Key}
	}
	path := "/V1/Merchant/Validations"
	if query != "" {
		path += "?" + query
	}
	return e.do(http.MethodPost, path, strings.NewReader(body),
		append([]string{"Content-Type", "application/json"}, header...)...)
}

// sale records a conversion of merchant 1 credited by coupon AFF1ONLY and
// returns its transaction's Id.
func (e *trEnv) sale(order, saleValue string) int64 {
	e.t.Helper()
	r := e.convert(fmt.Sprintf(`{"OrderId":%q,"SaleValue":%s,"CouponCode":"AFF1ONLY"}`, order, saleValue))
	if r.StatusCode != http.StatusCreated {
		e.t.Fatalf("conversion %s: %d %s", order, r.StatusCode, r.body)
	}
	var tx trTransaction
	if err := json.Unmarshal([]byte(r.body), &tx); err != nil {
		e.t.Fatal(err)
	}
	return tx.Id
}

// stored is what the tests read of a transaction row.
type stored struct {
	Status2, VoidReason, AmendedReason int64
	SaleValue, Commission              int64
}

func (e *trEnv) stored(id int64) stored {
	e.t.Helper()
	var s stored
	if err := e.db.SQL().QueryRow(`SELECT status2, COALESCE(void_reason, 0), COALESCE(amended_reason, 0), sale_value,
		commission FROM transactions WHERE id = $1`, id).Scan(&s.Status2, &s.VoidReason, &s.AmendedReason, &s.SaleValue,
		&s.Commission); err != nil {
		e.t.Fatalf("read transaction %d: %v", id, err)
	}
	return s
}

func TestValidations(t *testing.T) {
	e := newValidationEnv(t, afftrack.Limits{})
	approve, void, amend := e.sale("V-1", "100"), e.sale("V-2", "100"), e.sale("V-3", "100")
	body := fmt.Sprintf(`[
		{"Id": %d, "Action": "Approve"},
		{"OrderId": "V-2", "Action": "Void", "VoidReason": "Cancelled Order"},
		{"Id": 999999, "Action": "Approve"},
		{"orderid": "V-3", "action": "amend", "amendedReason": "incorrect sale value", "SaleValue": 50.5}
	]`, approve)
	r := e.validate("", body)

	t.Run("the answer is 200 with a result per row in order", func(t *testing.T) {
		if r.StatusCode != http.StatusOK {
			t.Fatalf("status %d %s, want 200", r.StatusCode, r.body)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		want := fmt.Sprintf(`[{"Id":%d,"OrderId":"V-1","Status2":"Locked","Error":null},`+
			`{"Id":%d,"OrderId":"V-2","Status2":"Void","Error":null},`+
			`{"Id":999999,"OrderId":null,"Status2":null,"Error":"No transaction of this merchant has Id 999999."},`+
			`{"Id":%d,"OrderId":"V-3","Status2":"Pending","Error":null}]`, approve, void, amend)
		if r.body != want {
			t.Errorf("body\n%s\nwant\n%s", r.body, want)
		}
	})
	t.Run("each row is applied", func(t *testing.T) {
		got := []stored{e.stored(approve), e.stored(void), e.stored(amend)}
		want := []stored{
			{Status2: int64(afftrack.Status2Locked), SaleValue: 1000000, Commission: 100000},
			{Status2: int64(afftrack.Status2Void), VoidReason: int64(afftrack.VoidReasonCancelledOrder), SaleValue: 1000000,
				Commission: 100000},
			{Status2: int64(afftrack.Status2Pending), AmendedReason: int64(afftrack.AmendedReasonIncorrectSaleValue),
				SaleValue: 505000, Commission: 50500},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("transactions (-want +got):\n%s", diff)
		}
	})
	t.Run("the changes are the merchant's key's in the history", func(t *testing.T) {
		account, err := sqlstore.NewAccountService(e.db).Authenticate(context.Background(), afftrack.HashKey(trMerchant1Key))
		if err != nil {
			t.Fatal(err)
		}
		events, err := sqlstore.NewLifecycleService(e.db, "AUD", time.Now).History(context.Background(), approve)
		if err != nil {
			t.Fatal(err)
		}
		want := afftrack.AccountActor(account)
		if len(events) != 2 || events[0].Actor != want || events[1].Actor != want {
			t.Errorf("history %+v, want the creation and the approval by %q", events, want)
		}
		if !strings.Contains(string(want), " key ") {
			t.Errorf("actor %q does not name the key", want)
		}
	})
	t.Run("the same rows again are refused row by row with the current status", func(t *testing.T) {
		again := e.validate("", fmt.Sprintf(`[{"Id": %d, "Action": "Approve"}]`, approve))
		want := fmt.Sprintf(`[{"Id":%d,"OrderId":"V-1","Status2":"Locked",`+
			`"Error":"The transaction is Locked; only a Pending transaction can be validated."}]`, approve)
		if again.StatusCode != http.StatusOK || again.body != want {
			t.Errorf("%d %s\nwant 200 %s", again.StatusCode, again.body, want)
		}
	})
	t.Run("an empty array is an empty answer", func(t *testing.T) {
		empty := e.validate("", `[]`)
		if empty.StatusCode != http.StatusOK || empty.body != `[]` {
			t.Errorf("%d %s, want 200 []", empty.StatusCode, empty.body)
		}
	})
}

// cancellingLifecycle ends the request's context as its rows begin to be
// applied, as a client that gives up does.
type cancellingLifecycle struct {
	afftrack.LifecycleService
	cancel context.CancelFunc
}

func (c cancellingLifecycle) Validate(ctx context.Context, merchantID int64, actor afftrack.Actor,
	rows []afftrack.Validation) ([]afftrack.ValidationResult, error) {
	c.cancel()
	return c.LifecycleService.Validate(ctx, merchantID, actor, rows)
}

func TestValidationsAreAppliedWhenTheClientGoesAway(t *testing.T) {
	e := newValidationEnv(t, afftrack.Limits{})
	ids := []int64{e.sale("G-1", "100"), e.sale("G-2", "100"), e.sale("G-3", "100")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs strings.Builder
	srv := api.NewServer(api.Config{PublicURL: "http://afftrack.test", Currency: "AUD", Location: time.UTC},
		api.Services{
			Accounts:    sqlstore.NewAccountService(e.db),
			RateLimiter: ratelimit.NewMemory(),
			Lifecycle: cancellingLifecycle{LifecycleService: sqlstore.NewLifecycleService(e.db, "AUD", time.Now),
				cancel: cancel},
		}, slog.New(slog.NewTextHandler(&logs, nil)), time.Now)
	body := `[{"OrderId": "G-1", "Action": "Approve"}, {"OrderId": "G-2", "Action": "Approve"},
		{"OrderId": "G-3", "Action": "Approve"}]`
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/V1/Merchant/Validations", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", trMerchant1Key)
	func() {
		// A handler whose client is gone aborts its response; what matters
		// here is what was stored.
		defer func() {
			if p := recover(); p != nil && p != http.ErrAbortHandler {
				panic(p)
			}
		}()
		srv.Handler().ServeHTTP(httptest.NewRecorder(), req)
	}()
	for _, id := range ids {
		if got := e.stored(id).Status2; got != int64(afftrack.Status2Locked) {
			t.Errorf("transaction %d is %s, want Locked: every row is applied", id, afftrack.TransactionStatus2(got))
		}
	}
	if log := logs.String(); !strings.Contains(log, "client went away") || !strings.Contains(log, "status=499") {
		t.Errorf("the request is not logged as its client gone:\n%s", log)
	}
}

func TestValidationsFormats(t *testing.T) {
	e := newValidationEnv(t, afftrack.Limits{})
	id := e.sale("F-1", "10")
	rows := func(order string) string {
		return fmt.Sprintf(`[{"OrderId": %q, "Action": "Amend", "AmendedReason": "Partial Order Return", "SaleValue": 5},
			{"Id": 424242, "Action": "Approve"}]`, order)
	}
	ns := e.srv.URL + "/V1/Merchant"
	tests := []struct {
		name, query string
		header      []string
		contentType string
		want        string
	}{
		{"XML by Accept", "", []string{"X-Api-Key", trMerchant1Key, "Accept", "application/xml"}, "application/xml; charset=utf-8",
			`<ValidationResultArray xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="` + ns + `">` +
				fmt.Sprintf(`<ValidationResult><Id>%d</Id><OrderId>F-1</OrderId><Status2>Pending</Status2><Error i:nil="true" /></ValidationResult>`, id) +
				`<ValidationResult><Id>424242</Id><OrderId i:nil="true" /><Status2 i:nil="true" /><Error>No transaction of this merchant has Id 424242.</Error></ValidationResult>` +
				`</ValidationResultArray>`},
		{"XML by the contentType parameter", "contentType=text/xml", nil, "application/xml; charset=utf-8",
			`<ValidationResultArray xmlns:i="http://www.w3.org/2001/XMLSchema-instance" xmlns="` + ns + `">` +
				fmt.Sprintf(`<ValidationResult><Id>%d</Id><OrderId>F-1</OrderId><Status2>Pending</Status2><Error i:nil="true" /></ValidationResult>`, id) +
				`<ValidationResult><Id>424242</Id><OrderId i:nil="true" /><Status2 i:nil="true" /><Error>No transaction of this merchant has Id 424242.</Error></ValidationResult>` +
				`</ValidationResultArray>`},
		{"JSONP with a callback", "callback=done", nil, "text/javascript; charset=utf-8",
			fmt.Sprintf(`done([{"Id":%d,"OrderId":"F-1","Status2":"Pending","Error":null},`, id) +
				`{"Id":424242,"OrderId":null,"Status2":null,"Error":"No transaction of this merchant has Id 424242."}]);`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.validate(tt.query, rows("F-1"), tt.header...)
			if r.StatusCode != http.StatusOK {
				t.Fatalf("status %d %s, want 200", r.StatusCode, r.body)
			}
			if ct := r.Header.Get("Content-Type"); ct != tt.contentType {
				t.Errorf("Content-Type %q, want %q", ct, tt.contentType)
			}
			if r.body != tt.want {
				t.Errorf("body\n%s\nwant\n%s", r.body, tt.want)
			}
		})
	}
}

func TestValidationsBadRequest(t *testing.T) {
	e := newValidationEnv(t, afftrack.Limits{})
	id := e.sale("B-1", "10")
	approve := fmt.Sprintf(`{"Id": %d, "Action": "Approve"}`, id)
	tests := []struct {
		name, body, message string
	}{
		{"a body that is not JSON", `Id=1&Action=Approve`, "the body must be a JSON array of validation objects"},
		{"an empty body", ``, "the body must be a JSON array of validation objects"},
		{"null", `null`, "the body must be a JSON array of validation objects"},
		{"an object instead of an array", approve, "the body must be a JSON array of validation objects"},
		{"an array with a number", `[` + approve + `, 1]`, "[1]: must be a JSON object"},
		{"an array with a string", `["` + "x" + `"]`, "[0]: must be a JSON object"},
		{"an array with null", `[null]`, "[0]: must be a JSON object"},
		{"an array with an array", `[[` + approve + `]]`, "[0]: must be a JSON object"},
		{"1,001 rows", `[` + strings.Repeat(approve+`,`, 1000) + approve + `]`, "the body has 1001 rows; at most 1000"},
		{"trailing garbage after the array", `[` + approve + `] x`, "the body holds more than one JSON value"},
		{"two arrays", `[` + approve + `][]`, "the body holds more than one JSON value"},
		{"an unfinished array", `[` + approve, "the body must be a JSON array of validation objects"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is a 400 that applies nothing", func(t *testing.T) {
			r := e.validate("", tt.body)
			if r.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d %s, want 400", r.StatusCode, r.body)
			}
			if got := message(r.body); got != tt.message {
				t.Errorf("Message %q, want %q", got, tt.message)
			}
			if s := e.stored(id).Status2; s != int64(afftrack.Status2Pending) {
				t.Errorf("the transaction is %s, want Pending", afftrack.TransactionStatus2(s))
			}
		})
	}
	t.Run("1,000 rows are answered row by row", func(t *testing.T) {
		r := e.validate("", `[`+strings.Repeat(`{"OrderId":"NONE","Action":"Approve"},`, 999)+`{"OrderId":"NONE","Action":"Approve"}]`)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("status %d %s, want 200", r.StatusCode, r.body[:min(len(r.body), 300)])
		}
		var results []map[string]any
		if err := json.Unmarshal([]byte(r.body), &results); err != nil {
			t.Fatal(err)
		}
		if len(results) != 1000 {
			t.Errorf("%d results, want 1000", len(results))
		}
	})
}

func TestValidationsRowErrors(t *testing.T) {
	e := newValidationEnv(t, afftrack.Limits{})
	id := e.sale("R-1", "10")
	tests := []struct {
		name, row, want string
	}{
		{"an unknown Action", fmt.Sprintf(`{"Id": %d, "Action": "Bless"}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"Action: \"Bless\" is not one of %s"}`, id,
				afftrack.ValidationActionNames())},
		{"no Action", fmt.Sprintf(`{"Id": %d}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"Action is required; use one of %s."}`, id,
				afftrack.ValidationActionNames())},
		{"an unknown VoidReason", fmt.Sprintf(`{"Id": %d, "Action": "Void", "VoidReason": "Bored"}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"VoidReason: \"Bored\" is not one of %s"}`, id,
				afftrack.VoidReasonNames())},
		{"Void without a VoidReason", fmt.Sprintf(`{"Id": %d, "Action": "Void"}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"VoidReason is required to void; use one of %s."}`, id,
				afftrack.VoidReasonNames())},
		{"an unknown AmendedReason", fmt.Sprintf(`{"Id": %d, "Action": "Amend", "AmendedReason": "Whim", "SaleValue": 1}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"AmendedReason: \"Whim\" is not one of %s"}`, id,
				afftrack.AmendedReasonNames())},
		{"an Id that is not a number", `{"Id": "x", "Action": "Approve"}`,
			`{"Id":null,"OrderId":null,"Status2":null,"Error":"Id: must be a JSON number"}`},
		{"a SaleValue that is a string", fmt.Sprintf(`{"Id": %d, "Action": "Amend", "AmendedReason": "Incorrect Sale Value", "SaleValue": "12.5"}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"SaleValue: must be a JSON number"}`, id)},
		{"a SaleValue that is a string, the row named by OrderId", `{"OrderId": "R-1", "Action": "Amend", "AmendedReason": "Incorrect Sale Value", "SaleValue": "12.5"}`,
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"SaleValue: must be a JSON number"}`, id)},
		{"an Id given twice alike is not read on its own", fmt.Sprintf(`{"Id": 999, "Id": %d, "Action": "Approve"}`, id),
			`{"Id":null,"OrderId":null,"Status2":null,"Error":"Id: is given twice"}`},
		{"an Id given twice in two cases is not read on its own", fmt.Sprintf(`{"Id": %d, "ID": %d, "Action": "Approve"}`, id, id),
			`{"Id":null,"OrderId":null,"Status2":null,"Error":"Id: is given twice"}`},
		{"a SaleValue of 0", fmt.Sprintf(`{"Id": %d, "Action": "Amend", "AmendedReason": "Incorrect Sale Value", "SaleValue": 0}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"SaleValue: must be greater than 0 and at most 1000000000000"}`, id)},
		{"an unknown field", fmt.Sprintf(`{"Id": %d, "Action": "Approve", "Colour": "red"}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"Colour: is not a field; the fields are Id, OrderId, Action, VoidReason, AmendedReason, SaleValue, Items"}`, id)},
		{"an Approve with a SaleValue", fmt.Sprintf(`{"Id": %d, "Action": "Approve", "SaleValue": 5}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"SaleValue: applies only to Amend"}`, id)},
		{"an Approve with a SaleValue of 0", fmt.Sprintf(`{"Id": %d, "Action": "Approve", "SaleValue": 0}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"SaleValue: applies only to Amend"}`, id)},
		{"an Approve with a VoidReason", fmt.Sprintf(`{"Id": %d, "Action": "Approve", "VoidReason": "Cancelled Order"}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"VoidReason: applies only to Void"}`, id)},
		{"an Approve with an AmendedReason", fmt.Sprintf(`{"Id": %d, "Action": "Approve", "AmendedReason": "Incorrect Sale Value"}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"AmendedReason: applies only to Amend"}`, id)},
		{"an Approve with Items", fmt.Sprintf(`{"Id": %d, "Action": "Approve", "Items": [{"Sku": "A", "SaleValue": 5}]}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"Items: applies only to Amend"}`, id)},
		{"an Approve with a SaleValue and a VoidReason, by OrderId", `{"OrderId": "R-1", "Action": "Approve", "SaleValue": 5, "VoidReason": "Cancelled Order"}`,
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"VoidReason: applies only to Void"}`, id)},
		{"a Void with an AmendedReason and a SaleValue", fmt.Sprintf(`{"Id": %d, "Action": "Void", "VoidReason": "Cancelled Order", "AmendedReason": "Incorrect Sale Value", "SaleValue": 1}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"AmendedReason: applies only to Amend"}`, id)},
		{"a Void with a SaleValue", fmt.Sprintf(`{"Id": %d, "Action": "Void", "VoidReason": "Cancelled Order", "SaleValue": 1}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"SaleValue: applies only to Amend"}`, id)},
		{"a Void with Items", fmt.Sprintf(`{"Id": %d, "action": "void", "VoidReason": "Cancelled Order", "items": [{"Sku": "A", "SaleValue": 5}]}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"Items: applies only to Amend"}`, id)},
		{"an Amend with a VoidReason", fmt.Sprintf(`{"Id": %d, "Action": "Amend", "AmendedReason": "Incorrect Sale Value", "SaleValue": 7, "VoidReason": "Test Transaction"}`, id),
			fmt.Sprintf(`{"Id":%d,"OrderId":"R-1","Status2":"Pending","Error":"VoidReason: applies only to Void"}`, id)},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is the row's Error and changes nothing", func(t *testing.T) {
			r := e.validate("", `[`+tt.row+`]`)
			if r.StatusCode != http.StatusOK {
				t.Fatalf("status %d %s, want 200", r.StatusCode, r.body)
			}
			if want := `[` + tt.want + `]`; r.body != want {
				t.Errorf("body\n%s\nwant\n%s", r.body, want)
			}
			want := stored{Status2: int64(afftrack.Status2Pending), SaleValue: 100000, Commission: 10000}
			if diff := cmp.Diff(want, e.stored(id)); diff != "" {
				t.Errorf("transaction (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidationsFieldsGivenEmptyAreNotGiven(t *testing.T) {
	e := newValidationEnv(t, afftrack.Limits{})
	approve, void, amend := e.sale("N-1", "10"), e.sale("N-2", "10"), e.sale("N-3", "10")
	r := e.validate("", `[
		{"OrderId": "N-1", "Action": "Approve", "VoidReason": null, "AmendedReason": null, "SaleValue": null, "Items": null},
		{"OrderId": "N-2", "Action": "Void", "VoidReason": "Cancelled Order", "AmendedReason": "", "SaleValue": null, "Items": [ ]},
		{"OrderId": "N-3", "Action": "Amend", "AmendedReason": "Incorrect Sale Value", "SaleValue": 5, "VoidReason": null}
	]`)
	want := fmt.Sprintf(`[{"Id":%d,"OrderId":"N-1","Status2":"Locked","Error":null},`+
		`{"Id":%d,"OrderId":"N-2","Status2":"Void","Error":null},`+
		`{"Id":%d,"OrderId":"N-3","Status2":"Pending","Error":null}]`, approve, void, amend)
	if r.StatusCode != http.StatusOK || r.body != want {
		t.Errorf("%d %s\nwant 200 %s", r.StatusCode, r.body, want)
	}
}

func TestValidationsAuthMethodAndRateLimit(t *testing.T) {
	e := newValidationEnv(t, afftrack.Limits{PerMinute: 1})
	// Conversions do not count against the rate limit.
	a, b := e.sale("L-1", "10"), e.sale("L-2", "10")

	t.Run("an affiliate's key is a 401", func(t *testing.T) {
		r := e.validate("", fmt.Sprintf(`[{"Id": %d, "Action": "Approve"}]`, a), "X-Api-Key", trAffiliate1Key)
		if r.StatusCode != http.StatusUnauthorized || message(r.body) == "" {
			t.Errorf("%d %s, want 401 with a Message", r.StatusCode, r.body)
		}
	})
	t.Run("no key is a 401", func(t *testing.T) {
		r := e.do(http.MethodPost, "/V1/Merchant/Validations", strings.NewReader(`[]`), "Content-Type", "application/json")
		if r.StatusCode != http.StatusUnauthorized {
			t.Errorf("%d %s, want 401", r.StatusCode, r.body)
		}
	})
	t.Run("GET is a 405 allowing POST", func(t *testing.T) {
		r := e.do(http.MethodGet, "/V1/Merchant/Validations", nil, "X-Api-Key", trMerchant1Key)
		if r.StatusCode != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "POST" {
			t.Errorf("%d Allow %q %s, want 405 Allow POST", r.StatusCode, r.Header.Get("Allow"), r.body)
		}
	})
	t.Run("a call of many rows counts as one against the rate limit", func(t *testing.T) {
		first := e.validate("", fmt.Sprintf(`[{"Id": %d, "Action": "Approve"}, {"Id": %d, "Action": "Approve"}]`, a, b))
		if first.StatusCode != http.StatusOK {
			t.Fatalf("first call: %d %s, want 200", first.StatusCode, first.body)
		}
		second := e.validate("", `[]`)
		if second.StatusCode != http.StatusTooManyRequests {
			t.Errorf("second call: %d %s, want 429", second.StatusCode, second.body)
		}
		if s := []int64{e.stored(a).Status2, e.stored(b).Status2}; s[0] != int64(afftrack.Status2Locked) ||
			s[1] != int64(afftrack.Status2Locked) {
			t.Errorf("statuses %v, want both Locked", s)
		}
	})
}

func TestValidationsAmendItems(t *testing.T) {
	e := newValidationEnv(t, afftrack.Limits{})
	id := e.sale("I-1", "10")
	r := e.validate("", fmt.Sprintf(`[{"Id": %d, "Action": "Amend", "AmendedReason": "Cart Items Edited",
		"Items": [{"Sku": "A", "Quantity": 2, "SaleValue": 12.34, "Category": "Toys"}, {"Sku": "B", "SaleValue": 7.66}]},
		{"Id": %d, "Action": "Amend", "AmendedReason": "Cart Items Edited", "Items": [{"Sku": "C", "SaleValue": "x"}]}]`, id, id))
	want := fmt.Sprintf(`[{"Id":%d,"OrderId":"I-1","Status2":"Pending","Error":null},`+
		`{"Id":%d,"OrderId":"I-1","Status2":"Pending","Error":"Items[0].SaleValue: must be a JSON number"}]`, id, id)
	if r.StatusCode != http.StatusOK || r.body != want {
		t.Fatalf("%d %s\nwant 200 %s", r.StatusCode, r.body, want)
	}
	t.Run("the items are repriced and their sum is the SaleValue", func(t *testing.T) {
		// 10% of 12.34 is 1.234, of 7.66 is 0.766: 1.23 + 0.77.
		want := stored{Status2: int64(afftrack.Status2Pending), AmendedReason: int64(afftrack.AmendedReasonCartItemsEdited),
			SaleValue: 200000, Commission: 20000}
		if diff := cmp.Diff(want, e.stored(id)); diff != "" {
			t.Errorf("transaction (-want +got):\n%s", diff)
		}
		got := e.findTransaction("I-1")
		if got == nil || len(got.Items) != 2 || got.Items[0].Sku != "A" || got.Items[0].Quantity != 2 ||
			got.Items[0].SaleValue.String() != "12.34" || got.Items[1].Sku != "B" || got.Items[1].Quantity != 1 {
			t.Errorf("items %+v, want A x2 12.34 and B x1 7.66", got)
		}
	})
}

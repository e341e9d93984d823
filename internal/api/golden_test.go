package api

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with the golden file testdata/name, or rewrites the
// file when -update is given.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// TestGoldenBodies pins the exact bytes of every kind of response in the
// three formats.
func TestGoldenBodies(t *testing.T) {
	refuse := func(h *harness) {
		h.limiter.decide = func(afftrack.AccountRef, afftrack.Limits) afftrack.RateDecision {
			return afftrack.RateDecision{HasWindow: true, Limit: 30, Reset: 42 * time.Second, RetryAfter: 42 * time.Second}
		}
	}
	tests := []struct {
		name   string
		method string
		target string
		key    string
		setup  func(*harness)
		status int
	}{
		{"transactions", "GET", "/V1/Merchant/Transactions?fromDate=2000-01-01&toDate=2000-01-31", merchantKey, nil, 200},
		{"transactions_empty", "GET", "/V1/Merchant/Transactions?fromDate=2010-01-01&toDate=2010-01-02", merchantKey, nil, 200},
		{"transaction", "GET", "/V1/Merchant/Transactions/1", merchantKey, nil, 200},
		{"banners", "GET", "/V1/Affiliate/Banners", affiliateKey, nil, 200},
		{"banners_empty", "GET", "/V1/Affiliate/Banners?merchantId=99", affiliateKey, nil, 200},
		{"invoice_gst", "GET", "/V1/Affiliate/Invoices/2", affiliateKey, nil, 200},
		{"invoice_no_gst", "GET", "/V1/Affiliate/Invoices/1", affiliateKey, nil, 200},
		{"error_400", "GET", "/V1/Merchant/Transactions?fromDate=2024-13-01&toDate=2024-01-01", merchantKey, nil, 400},
		{"error_401", "GET", "/V1/Affiliate/Banners", "", nil, 401},
		{"error_404", "GET", "/V1/Merchant/Transactions/4", merchantKey, nil, 404},
		{"error_404_unknown_path", "GET", "/V1/Affiliate/Payments", "", nil, 404},
		{"error_405", "POST", "/V1/Affiliate/Banners", affiliateKey, nil, 405},
		{"error_429", "GET", "/V1/Merchant/Transactions/1", merchantKey, refuse, 429},
		{"error_500", "GET", "/V1/Affiliate/Banners", affiliateKey, func(h *harness) { h.banners.err = errStore }, 500},
	}
	formats := []struct {
		ext         string
		query       string
		contentType string
	}{
		{".json", "", contentTypeJSON},
		{".xml", "contentType=application/xml", contentTypeXML},
		{".js", "callback=jQuery123.done", contentTypeJSONP},
	}
	for _, tt := range tests {
		for _, f := range formats {
			t.Run(tt.name+f.ext+" is exact", func(t *testing.T) {
				h := newHarness(t)
				if tt.setup != nil {
					tt.setup(h)
				}
				target := tt.target
				if f.query != "" {
					sep := "?"
					if strings.Contains(target, "?") {
						sep = "&"
					}
					target += sep + f.query
				}
				var header []string
				if tt.key != "" {
					header = []string{"X-Api-Key", tt.key}
				}
				w := h.do(tt.method, target, header...)
				mustStatus(t, w, tt.status)
				if got := w.Header().Get("Content-Type"); got != f.contentType {
					t.Errorf("Content-Type = %q, want %q", got, f.contentType)
				}
				golden(t, tt.name+f.ext, w.Body.Bytes())
			})
		}
	}
}

package main_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// receiver is an affiliate's notification endpoint that fails its first
// calls, then answers 200, and keeps what it was sent.
type receiver struct {
	mu       sync.Mutex
	failures int
	calls    []string // every request URI
	ok       []string // those answered 200
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.calls = append(rc.calls, r.URL.RequestURI())
	if len(rc.calls) <= rc.failures {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	rc.ok = append(rc.ok, r.URL.RequestURI())
}

func (rc *receiver) snapshot() (calls, ok []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.calls...), append([]string(nil), rc.ok...)
}

// waitFor polls cond for up to 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitUpTo(t, 20*time.Second, what, cond)
}

// waitUpTo is waitFor with a bound of d.
func waitUpTo(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNotificationsReachAReceiverThatRecovers sends an affiliate's
// notifications to a receiver that fails at first, across a restart of
// the server: every one arrives once it recovers, in order of the changes.
func TestNotificationsReachAReceiverThatRecovers(t *testing.T) {
	rc := &receiver{failures: 3}
	ts := httptest.NewServer(rc)
	defer ts.Close()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "notify.db")
	importTracking(t, dsn)
	doc := `{"Affiliates": [{"Id": 40, "ContactName": "Ada Walker", "BusinessName": "Walks Blog",
		"NotificationUrl": "` + ts.URL + `/n?t=[TransactionId]&o=[OrderId]&s=[Status2]&c=[Commission]"}]}`
	if out, err := afftrack(t, strings.NewReader(doc), "import", "--db", dsn, "-"); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	args := []string{"--db", dsn, "--notify-allow-private", "--notify-first-retry", "100ms"}
	s := serve(t, args...)
	if status, _, body := s.post(t, "/V1/Merchant/Conversions", `{"OrderId": "N-1", "SaleValue": 80, "CouponCode": "ADA15"}`,
		"X-Api-Key", merchantKey); status != 201 {
		t.Fatalf("conversion: %d %s", status, body)
	}
	waitFor(t, "a first, failed call", func() bool { calls, _ := rc.snapshot(); return len(calls) >= 1 })
	s.stop(t)

	s = serve(t, args...)
	// A call the stop cut short is not recorded, so its claim holds the
	// notification for the claim's lease (1 minute) before the new
	// server may call again.
	waitUpTo(t, 80*time.Second, "the creation's notification", func() bool { _, ok := rc.snapshot(); return len(ok) >= 1 })
	if status, _, body := s.post(t, "/V1/Merchant/Validations", `[{"OrderId": "N-1", "Action": "Approve"}]`,
		"X-Api-Key", merchantKey); status != 200 || !strings.Contains(body, `"Status2":"Locked","Error":null`) {
		t.Fatalf("validation: %d %s", status, body)
	}
	waitFor(t, "the approval's notification", func() bool { _, ok := rc.snapshot(); return len(ok) >= 2 })
	calls, ok := rc.snapshot()
	// At least once: a call cut by the restart may be made again, so a
	// notification can arrive twice, but every one arrives, in order.
	var distinct []string
	for _, u := range ok {
		if len(distinct) == 0 || distinct[len(distinct)-1] != u {
			distinct = append(distinct, u)
		}
	}
	want := []string{"/n?t=1&o=N-1&s=Pending&c=8.0000", "/n?t=1&o=N-1&s=Locked&c=8.0000"}
	if strings.Join(distinct, " ") != strings.Join(want, " ") {
		t.Errorf("delivered %q, want %q", ok, want)
	}
	if len(calls) < 5 {
		t.Errorf("%d calls (%q), want at least 5: three failures, then one per notification", len(calls), calls)
	}
}

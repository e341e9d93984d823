package main_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// TestAdministeringAccountsAndKeys drives the account and key commands
// against a running server: a created key works at once, and suspending,
// reactivating and closing the account turn it off and on.
func TestAdministeringAccountsAndKeys(t *testing.T) {
	dsn := storetest.URL(t, "sqlite")
	must := func(args ...string) string {
		t.Helper()
		out, err := afftrack(t, nil, append(args, "--db", dsn)...)
		if err != nil {
			t.Fatalf("afftrack %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	if out := must("account", "create", "affiliate", "--contact-name", "Zoe Park", "--business-name", "Park Media"); out != "created affiliate 1 \"Zoe Park\"\n" {
		t.Errorf("create output = %q", out)
	}
	if out := must("account", "create", "merchant", "--name", "Shop", "--id", "42"); out != "created merchant 42 \"Shop\"\n" {
		t.Errorf("create output = %q", out)
	}
	out := must("key", "create", "affiliate", "1", "--label", "reports")
	m := regexp.MustCompile(`(?m)^key (k_[0-9a-f]+) for Affiliate 1\n([A-Za-z0-9_-]{32})\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("key create output = %q", out)
	}
	keyID, secret := m[1], m[2]
	if list := must("key", "list", "affiliate", "1"); !strings.Contains(list, keyID) || !strings.Contains(list, "reports") || strings.Contains(list, secret) {
		t.Errorf("key list = %q: want the id and label, never the secret", list)
	}

	// Polling while the key cache catches up makes many calls: no rate
	// limit, so only the account's state decides the status.
	s := serve(t, "--db", dsn, "--rate-per-minute", "0", "--rate-per-day", "0", "--key-cache-ttl", "0")
	banners := "/V1/Affiliate/Banners?apiKey=" + secret
	steps := []struct {
		command []string
		status  int
	}{
		{nil, 200},
		{[]string{"account", "suspend", "affiliate", "1"}, 401},
		{[]string{"account", "reactivate", "affiliate", "1"}, 200},
		{[]string{"account", "close", "affiliate", "1"}, 401},
		{[]string{"account", "reactivate", "affiliate", "1"}, 200},
		{[]string{"key", "revoke", keyID}, 401},
	}
	for _, step := range steps {
		if step.command != nil {
			must(step.command...)
		}
		if status := waitForStatus(t, s, banners, step.status); status != step.status {
			t.Errorf("after %v: status %d, want %d", step.command, status, step.status)
		}
	}
	if out, err := afftrack(t, nil, "account", "suspend", "affiliate", "99", "--db", dsn); err == nil {
		t.Errorf("suspending a missing account succeeded: %s", out)
	}
	if out, err := afftrack(t, nil, "key", "create", "vendor", "1", "--db", dsn); err == nil || !strings.Contains(out, "is not merchant or affiliate") {
		t.Errorf("a bad account kind: %v %s", err, out)
	}
}

// TestKeyListShowsALabelOnItsOwnLine: a label holding a line break and
// text like another key's line is shown quoted on its key's line, so it
// cannot pass for a key of its own.
func TestKeyListShowsALabelOnItsOwnLine(t *testing.T) {
	dsn := storetest.URL(t, "sqlite")
	if out, err := afftrack(t, nil, "account", "create", "affiliate", "--contact-name", "x", "--id", "8", "--db", dsn); err != nil {
		t.Fatalf("account create: %v\n%s", err, out)
	}
	const label = "ops\n  k_0000deadbeef  created 2020-01-01T00:00:00  revoked  old"
	if out, err := afftrack(t, nil, "key", "create", "affiliate", "8", "--label", label, "--db", dsn); err != nil {
		t.Fatalf("key create: %v\n%s", err, out)
	}
	out, err := afftrack(t, nil, "key", "list", "affiliate", "8", "--db", dsn)
	if err != nil {
		t.Fatalf("key list: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 1 || !strings.HasSuffix(lines[0], `  active  "ops\n  k_0000deadbeef  created 2020-01-01T00:00:00  revoked  old"`) {
		t.Errorf("key list shows %d lines, want one ending in the label quoted:\n%s", len(lines), out)
	}
}

// waitForStatus polls path until it answers want or the key cache's bound
// (plus a margin) has passed, and returns the last status.
func waitForStatus(t *testing.T, s *server, path string, want int) int {
	t.Helper()
	var status int
	for range int((keyCacheBound.Seconds() + 2) * 10) {
		if status, _, _ = s.get(t, path); status == want {
			return status
		}
		sleepTenth()
	}
	return status
}

// TestKeysAreStampedInTheNetworksZone creates a key on a network whose
// recorded zone is fourteen hours ahead of UTC: its created time is that
// zone's wall clock, as every time the service stamps is.
func TestKeysAreStampedInTheNetworksZone(t *testing.T) {
	dsn := storetest.URL(t, "sqlite")
	zone := "Pacific/Kiritimati"
	if out, err := afftrack(t, strings.NewReader(`{"Merchants": [{"Id": 1, "Name": "Shop"}]}`),
		"import", "-", "--timezone", zone, "--db", dsn); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if out, err := afftrack(t, nil, "key", "create", "merchant", "1", "--db", dsn); err != nil {
		t.Fatalf("key create: %v\n%s", err, out)
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Skip(err)
	}
	out, err := afftrack(t, nil, "key", "list", "merchant", "1", "--db", dsn)
	m := regexp.MustCompile(`created (\S+)`).FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("key list: %v\n%s", err, out)
	}
	created, err := time.Parse("2006-01-02T15:04:05", m[1]) // the zone's wall clock, read as UTC
	if err != nil {
		t.Fatal(err)
	}
	const layout = "2006-01-02T15:04:05"
	wall, _ := time.Parse(layout, time.Now().In(loc).Format(layout))
	if d := wall.Sub(created); d < 0 || d > time.Minute {
		t.Errorf("key created %s, want the zone's wall clock, about %s", created, wall.Format("2006-01-02T15:04:05"))
	}
}

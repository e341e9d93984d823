package main_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// privatePostgres is a PostgreSQL server of the test's own, so a test can
// stop and start a real database without disturbing anyone else's.
type privatePostgres struct {
	bin, dir string
	port     int
}

// startPrivatePostgres initialises and starts a server in a new directory,
// or skips the test where that cannot be done (no PostgreSQL binaries, or
// no postgres user to run them as root).
func startPrivatePostgres(t *testing.T) *privatePostgres {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: not starting a private PostgreSQL")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		t.Skip("no PostgreSQL server binaries installed; skipping the database outage test")
	}
	if os.Geteuid() != 0 {
		t.Skip("the database outage test runs PostgreSQL as the postgres user and needs root")
	}
	if _, err := exec.LookPath("runuser"); err != nil {
		t.Skip("runuser not found")
	}
	// PostgreSQL refuses to run as root, so the directory must be the
	// postgres user's, under a parent it can traverse.
	parent, err := os.MkdirTemp("", "afftrack-pg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	pg := &privatePostgres{bin: filepath.Dir(bins[len(bins)-1]), dir: filepath.Join(parent, "data"), port: freePort(t)}
	if out, err := exec.Command("install", "-d", "-o", "postgres", "-m", "0700", pg.dir).CombinedOutput(); err != nil {
		t.Fatalf("make data directory: %v\n%s", err, out)
	}
	pg.run(t, "initdb", "-D", pg.dir, "-A", "trust", "-U", "postgres", "--no-sync", "--encoding", "UTF8", "--locale", "C.UTF-8")
	pg.start(t)
	t.Cleanup(func() { pg.ctl(t, "stop", "-m", "immediate") })
	return pg
}

func (pg *privatePostgres) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", pg.port)
}

func (pg *privatePostgres) start(t *testing.T) {
	pg.ctl(t, "start", "-w", "-l", filepath.Join(pg.dir, "server.log"),
		"-o", fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", pg.port, pg.dir))
}

func (pg *privatePostgres) stop(t *testing.T) { pg.ctl(t, "stop", "-w", "-m", "fast") }

func (pg *privatePostgres) ctl(t *testing.T, args ...string) {
	pg.run(t, "pg_ctl", append([]string{"-D", pg.dir}, args...)...)
}

func (pg *privatePostgres) run(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(pg.bin, name)}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestServeRidesOutADatabaseOutage stops the database under a running
// server: /readyz turns 503 and API calls answer the contract's 500
// promptly rather than hang; when the database returns, the server
// recovers by itself.
func TestServeRidesOutADatabaseOutage(t *testing.T) {
	pg := startPrivatePostgres(t)
	if out, err := afftrack(t, nil, "import", "--db", pg.url(), "testdata/network.json"); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	s := serve(t, "--db", pg.url())
	const lookup = "/V1/Merchant/Transactions/100?apiKey=e2e-merchant-10-secret"
	if status, _, body := s.get(t, lookup); status != 200 {
		t.Fatalf("before the outage: %d %s", status, body)
	}

	pg.stop(t)
	start := time.Now()
	if status, _, _ := s.get(t, "/readyz"); status != 503 {
		t.Errorf("/readyz during the outage = %d, want 503", status)
	}
	status, _, body := s.get(t, lookup)
	if want := `{"Message":"An unexpected error occurred while processing your request."}`; status != 500 || body != want {
		t.Errorf("during the outage: %d %s, want 500 %s", status, body, want)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("answers during the outage took %v; they must not hang", took)
	}
	if status, _, _ := s.get(t, "/healthz"); status != 200 {
		t.Errorf("/healthz during the outage = %d; the process still serves", status)
	}

	pg.start(t)
	deadline := time.Now().Add(15 * time.Second)
	for {
		status, _, _ := s.get(t, lookup)
		if status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not recover after the database came back: last status %d", status)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if status, _, _ := s.get(t, "/readyz"); status != 200 {
		t.Errorf("/readyz after recovery = %d, want 200", status)
	}
	if strings.Contains(s.logs.String(), "e2e-merchant-10-secret") {
		t.Errorf("a key appears in the log")
	}
}

// Package storetest opens throwaway sqlstore databases for tests: a fresh
// SQLite file always, and a fresh schema of a PostgreSQL database when
// AFFTRACK_TEST_POSTGRES_URL names one, so one suite runs on every backend.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/sqlstore"
)

// PostgresEnv is the environment variable naming the PostgreSQL database
// tests may use, as a postgres:// URL. Each test gets its own schema in
// it, dropped afterwards.
const PostgresEnv = "AFFTRACK_TEST_POSTGRES_URL"

// Backend names.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// skipOnce makes the note that PostgreSQL is not tested appear once per
// test binary rather than once per test.
var skipOnce sync.Once

// Backends returns the backends to run a test on: "sqlite" always, and
// "postgres" when PostgresEnv is set.
func Backends(t testing.TB) []string {
	t.Helper()
	if os.Getenv(PostgresEnv) == "" {
		skipOnce.Do(func() { t.Logf("%s is not set: skipping the postgres backend", PostgresEnv) })
		return []string{SQLite}
	}
	return []string{SQLite, Postgres}
}

// Open opens a fresh, migrated database of the backend, closed (and for
// PostgreSQL, dropped) when the test ends.
func Open(t testing.TB, backend string) *sqlstore.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sqlstore.Open(ctx, URL(t, backend))
	if err != nil {
		t.Fatalf("open %s: %v", backend, err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate %s: %v", backend, err)
	}
	return db
}

// URL returns the DSN of a fresh, empty database of the backend, for tests
// that open it themselves or hand it to the binary: a file in the test's
// temporary directory, or a PostgreSQL URL whose search_path is a new
// schema, dropped when the test ends. Cleanups run last-in first-out, so a
// database the test opens after calling URL is closed before the drop.
func URL(t testing.TB, backend string) string {
	t.Helper()
	switch backend {
	case SQLite:
		return "sqlite:" + filepath.Join(t.TempDir(), "afftrack.db")
	case Postgres:
		return postgresSchema(t)
	}
	t.Fatalf("unknown backend %q", backend)
	return ""
}

// postgresSchema creates a schema with a random name in the database of
// PostgresEnv and returns that URL with search_path set to it; pgx sends
// unknown URL parameters to the server as run-time parameters.
func postgresSchema(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Fatalf("%s is not set", PostgresEnv)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s cannot be parsed", PostgresEnv)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "afftrack_test_" + hex.EncodeToString(b[:])

	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("open %s: %v", PostgresEnv, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The name is generated from hex digits, so it needs no quoting.
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

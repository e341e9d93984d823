package sqlstore_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// TestOpenRefusesAPostgresDatabaseThatFoldsASCIIOnly: in a database
// created with LC_CTYPE C, lower() and upper() change ASCII letters only,
// so "é" would not find "É". Open says so rather than serve filters that
// ignore the case of some letters and not of others.
func TestOpenRefusesAPostgresDatabaseThatFoldsASCIIOnly(t *testing.T) {
	base := os.Getenv(storetest.PostgresEnv)
	if base == "" {
		t.Skipf("%s is not set", storetest.PostgresEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := "afftrack_test_c_" + hex.EncodeToString(b[:])
	// The name is generated from hex digits, so it needs no quoting.
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+
		" ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"); err != nil {
		t.Skipf("cannot create a database to test with: %v", err)
	}
	defer func() {
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	}()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	db, err := sqlstore.Open(ctx, u.String())
	if err == nil {
		db.Close()
		t.Fatal("Open succeeded on a database whose locale folds ASCII only")
	}
	if !strings.Contains(err.Error(), "its locale (LC_CTYPE C) does not fold the case of non-ASCII letters") {
		t.Errorf("Open: %v; want an error naming the locale", err)
	}
}

// TestACancelledQueryKeepsItsPostgresConnection: a query whose context
// ends (its client went away) is cancelled on the server and its
// connection kept, so a client that hangs up again and again does not
// make PostgreSQL start a backend for each request.
func TestACancelledQueryKeepsItsPostgresConnection(t *testing.T) {
	if os.Getenv(storetest.PostgresEnv) == "" {
		t.Skipf("%s is not set", storetest.PostgresEnv)
	}
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, storetest.URL(t, storetest.Postgres), sqlstore.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pid := func() int64 {
		t.Helper()
		var pid int64
		if err := db.SQL().QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		return pid
	}
	before := pid()
	for i := range 5 {
		cut, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		start := time.Now()
		_, err := db.SQL().ExecContext(cut, `SELECT pg_sleep(10)`)
		cancel()
		if err == nil {
			t.Fatalf("query %d: no error, want it cancelled", i)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("query %d took %s to be cancelled", i, d)
		}
	}
	if after := pid(); after != before {
		t.Errorf("backend %d after five cancelled queries, %d before: the connection was cut", after, before)
	}
}

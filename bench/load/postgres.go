package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// postgresSchema creates a schema with a fresh name in the database of
// base and returns base's URL with search_path set to it, and a function
// that drops it. pgx sends unknown URL parameters (search_path) to the
// server as run-time parameters, so afftrack uses the schema unaware.
func postgresSchema(ctx context.Context, base string) (dsn string, drop func() error, err error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, errors.New("--postgres: the URL cannot be parsed")
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, err
	}
	// Generated from hex digits, the name needs no quoting.
	schema := "afftrack_load_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", base)
	if err != nil {
		return "", nil, fmt.Errorf("open postgres: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("create schema %s: %w", schema, err)
	}
	drop = func() error {
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			return fmt.Errorf("drop schema %s: %w", schema, err)
		}
		return nil
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}

// redact hides the password of a database URL before it is printed.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn
	}
	return u.Redacted()
}

// analyzePostgres gathers the planner's statistics on the tables the
// benchmark reads, as autovacuum would some time after a bulk load.
// Without them, after a million rows arrive at once, PostgreSQL's planner
// costs plans for tables it takes to be small (with the items table of
// schema 0001 it scanned all of it for every list: 440 ms instead of 2 ms
// for a list of 100 transactions); a benchmark of that measures the
// missing statistics, not afftrack. Test
// servers often run with autovacuum off, so the benchmark does not wait.
func analyzePostgres(ctx context.Context, dsn string) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return fmt.Errorf("open postgres: %w", err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	if _, err := db.ExecContext(ctx, "ANALYZE merchants, affiliates, api_keys, transactions, transaction_items"); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}

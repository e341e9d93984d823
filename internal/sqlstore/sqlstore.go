// Package sqlstore implements the afftrack services on SQL databases:
// SQLite (modernc.org/sqlite, pure Go) and PostgreSQL (pgx). Both engines
// share one schema and one set of SQL texts; what differs is kept in
// dialect.go, and in the few migrations that need a file per engine. The
// transactions, the main work, are read beneath database/sql from the same
// SQL texts: through SQLite's C API on a file (sqlite_reader.go), through
// pgx's own interface on PostgreSQL (postgres_reader.go).
//
// Storage conventions, the same on both engines: datetimes are BIGINT
// milliseconds since the Unix epoch of their UTC reading (the domain's
// wall clocks are carried in UTC); money is BIGINT in the domain's integer
// units; enumerations are SMALLINT of their numeric values, NULL for a
// nullable one that is null; booleans are BOOLEAN. A transaction is the
// exception: one row of the columns searched and its details in one
// binary value (transaction_details.go), as lists are the service's main
// work.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/afftrack/afftrack"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver
)

// DB is an open database: a connection pool and its dialect.
type DB struct {
	sql     *sql.DB
	dialect dialect
	stmts   stmtCache // the hot reads, prepared

	affiliates affiliateNameCache // for the transaction reads

	// reader runs the transaction reads (sqlite_reader.go,
	// postgres_reader.go); nil for an in-memory SQLite database, read
	// through database/sql.
	reader transactionReader

	// keeper holds an in-memory SQLite database alive: it is dropped when
	// its last connection closes, which the pool may otherwise do.
	keeper *sql.Conn
}

// transactionReader runs the transaction reads, the service's main work,
// beneath database/sql, whose per-query and per-row work was a large part
// of their cost (docs/performance.md). query runs query, whose parameters
// are $1, $2, ... in order, with args, and calls row for each row with its
// two columns, a blob and an integer, until the rows end, row returns an
// error (returned as it is), or ctx is done. The blob is valid only until
// row returns.
type transactionReader interface {
	query(ctx context.Context, query string, args []int64, row readerRow) error
	close()
}

// readerRow receives a row of a transactionReader's query.
type readerRow func(blob []byte, n int64) error

// Open opens and pings the database named by dsn: "sqlite:PATH" (the file
// is created on first use), "sqlite::memory:" (a private in-memory database
// that lives until Close), or a "postgres://" or "postgresql://" URL. It
// does not migrate; call Migrate.
func Open(ctx context.Context, dsn string) (*DB, error) {
	var db *DB
	var err error
	switch {
	case dsn == "sqlite::memory:":
		db, err = openSQLite(ctx, "", true)
	case strings.HasPrefix(dsn, "sqlite:"):
		db, err = openSQLite(ctx, strings.TrimPrefix(dsn, "sqlite:"), false)
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		db, err = openPostgres(dsn)
	default:
		// The DSN is not echoed: it may hold a password.
		return nil, errors.New(`open database: the URL must start with "sqlite:", "postgres://" or "postgresql://"`)
	}
	if err != nil {
		return nil, err
	}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// pingTimeout bounds a Ping whose context has no deadline, so a probe
// never waits on an unreachable server for as long as TCP would.
const pingTimeout = 5 * time.Second

// Ping checks that the database answers a query. It gives up when ctx is
// done, or after pingTimeout if ctx has no deadline, so a readiness probe
// returns promptly.
func (db *DB) Ping(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, pingTimeout)
		defer cancel()
	}
	var one int64
	if err := db.sql.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		return fmt.Errorf("ping %s database: %w", db.dialect.name(), err)
	}
	return nil
}

// Close closes every connection. An in-memory database is gone afterwards.
func (db *DB) Close() error {
	db.stmts.close()
	if db.reader != nil {
		db.reader.close()
	}
	if db.keeper != nil {
		db.keeper.Close()
	}
	return db.sql.Close()
}

// Dialect returns "sqlite" or "postgres".
func (db *DB) Dialect() string { return db.dialect.name() }

// SQL returns the underlying pool, for tests and benchmarks that need to
// look under the services.
func (db *DB) SQL() *sql.DB { return db.sql }

// notFound is the error of a lookup that finds nothing the caller may see.
func notFound() error {
	return afftrack.Errorf(afftrack.ENOTFOUND, "The requested item could not be found.")
}

// rollback ends a transaction that was not committed; after a commit it
// does nothing, so it can be deferred.
func rollback(tx *sql.Tx) { _ = tx.Rollback() }

// toMillis stores a domain datetime (a wall clock carried in UTC).
func toMillis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis reads back a datetime stored by toMillis.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// nullInt is the argument for a nullable BIGINT column.
func nullInt(n afftrack.Null[int64]) any {
	if !n.Valid {
		return nil
	}
	return n.Value
}

// nullMillis is the argument for a nullable datetime column.
func nullMillis(n afftrack.Null[time.Time]) any {
	if !n.Valid {
		return nil
	}
	return toMillis(n.Value)
}

// fromNull converts a scanned nullable column to the domain's Null.
func fromNull[T any](n sql.Null[T]) afftrack.Null[T] {
	return afftrack.Null[T]{Value: n.V, Valid: n.Valid}
}

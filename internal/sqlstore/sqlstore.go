// Package sqlstore implements the afftrack services on SQL databases:
// SQLite (modernc.org/sqlite, pure Go) and PostgreSQL (pgx), both through
// database/sql. Both engines share one schema and one set of SQL texts;
// what differs is kept in the dialect files (dialect.go, dialect_sqlite.go,
// dialect_postgres.go) and in the few migrations that need a file per
// engine.
//
// Storage conventions, the same on both engines: every field is a typed
// column; datetimes are BIGINT milliseconds since the Unix epoch of their
// UTC reading (the domain's wall clocks are carried in UTC); money is
// BIGINT in the domain's integer units; enumerations are SMALLINT of their
// numeric values, NULL for a nullable one that is null; booleans are
// BOOLEAN. A transaction's items are rows of transaction_items keyed by
// (transaction_id, position), and also, for the reads of whole
// transactions, an encoding of those rows in transactions.items_cache
// written by the same statement as the transaction (items_cache.go).
package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
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
	clock   afftrack.Clock

	// keeper holds an in-memory SQLite database alive: it is dropped when
	// its last connection closes, which the pool may otherwise do.
	keeper *sql.Conn

	// writer holds SQLite's write connection (nil on PostgreSQL): taking
	// it admits one write transaction at a time. SQLite has one write
	// lock; a writer that finds it taken sleeps in the busy handler with
	// growing pauses, up to 100 ms, and under concurrent writes the lock
	// sits free while every waiter sleeps. Queued here, the next writer
	// starts as the last one ends. One connection writes, too, because in
	// WAL mode a connection drops its whole page cache when another has
	// written since its last transaction: writes spread over the pool
	// started cold, reading every index page they touched from the file
	// (a fifth of a conversion's time), while one connection that does
	// every write keeps its cache.
	writer chan *sql.Conn

	// newerSchema is NewerSchema's answer, set by Migrate.
	newerSchema int64
	// applied is Applied's answer, set by Migrate.
	applied []int64
}

// beginWrite begins a transaction that will write. The returned release
// must be called once the transaction is committed or rolled back; a
// second call does nothing.
func (db *DB) beginWrite(ctx context.Context) (*sql.Tx, func(), error) {
	if db.writer == nil {
		tx, err := db.sql.BeginTx(ctx, nil)
		return tx, func() {}, err
	}
	var conn *sql.Conn
	select {
	case conn = <-db.writer:
	case <-ctx.Done():
		return nil, func() {}, ctx.Err()
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil && db.dialect.isBusy(err) {
		db.writer <- conn
		return nil, func() {}, errWriteLockHeld
	}
	if err != nil && ctx.Err() == nil {
		// The connection may be broken: a new one from the pool takes
		// its place, so one bad connection cannot stop every write.
		conn.Close()
		if fresh, ferr := db.sql.Conn(ctx); ferr == nil {
			conn = fresh
			tx, err = conn.BeginTx(ctx, nil)
		}
	}
	release := sync.OnceFunc(func() { db.writer <- conn })
	if err != nil {
		release()
		return nil, func() {}, err
	}
	return tx, release, nil
}

// errWriteLockHeld answers a write that waited out SQLite's busy_timeout
// (5 s) for the write lock another process holds: an import or a batch
// of the command line. It is a 503 to a client, who may send it again.
var errWriteLockHeld = afftrack.Errorf(afftrack.EUNAVAILABLE,
	"The database is busy with a long write of another process (an import?); send this again in a few seconds.")

// messageDatabaseFull answers a write the database refused for want of
// disk space. The write is not kept, and will succeed once an operator
// frees space: a 503 to a client, who may send it again, rather than a
// 500 that tells it nothing.
const messageDatabaseFull = "The database has no space left for this write, which was not stored " +
	"(a validation's rows before it stay applied). Send it again later."

// writeFailed returns err, the failure of a write a client asked for, as
// an EUNAVAILABLE whose Cause is err if the database had no space for it.
func (db *DB) writeFailed(err error) error {
	if err != nil && db.dialect.isFull(err) {
		return &afftrack.Error{Code: afftrack.EUNAVAILABLE, Message: messageDatabaseFull, Cause: err}
	}
	return err
}

// Options tune the connection pool. The zero value is the default.
type Options struct {
	// MaxOpenConns bounds the connections open at once; 0 is
	// DefaultMaxOpenConns. On SQLite the DB opens one more, the
	// connection every write runs on. A request that finds them all busy
	// waits for one, within its context's deadline. The bound keeps a
	// burst of requests from becoming as many busy PostgreSQL backends,
	// which on a small machine makes every one of them slow, and bounds
	// what slow clients can hold.
	MaxOpenConns int

	// Clock is the instant the store reads when it stamps a time of its
	// own (an account or key created from the command line, an import's
	// "now"); nil is time.Now. Services that take a clock of their own
	// (conversions, the lifecycle) use theirs.
	Clock afftrack.Clock
}

// MinOpenConns is the smallest pool Open makes, whatever Options say.
const MinOpenConns = 2

// DefaultMaxOpenConns is the pool's bound when Options set none: four
// connections per CPU, at least 8. More connections than the database can
// run at once only queue inside it, where no deadline sees them.
func DefaultMaxOpenConns() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

// CheckURL reports whether dsn names a kind of database Open opens, so
// that a command can refuse one before it does anything else. The error
// does not echo dsn: it may hold a password.
func CheckURL(dsn string) error {
	for _, prefix := range []string{"sqlite:", "postgres://", "postgresql://"} {
		if strings.HasPrefix(dsn, prefix) {
			return nil
		}
	}
	return errors.New(`the URL must start with "sqlite:", "postgres://" or "postgresql://"`)
}

// Open opens and pings the database named by dsn: "sqlite:PATH" (the file
// is created on first use), "sqlite::memory:" (a private in-memory database
// that lives until Close), or a "postgres://" or "postgresql://" URL. It
// does not migrate; call Migrate.
func Open(ctx context.Context, dsn string, opts ...Options) (*DB, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.MaxOpenConns <= 0 {
		o.MaxOpenConns = DefaultMaxOpenConns()
	}
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
		return nil, fmt.Errorf("open database: %w", CheckURL(dsn))
	}
	if err != nil {
		return nil, err
	}
	db.clock = o.Clock
	if db.clock == nil {
		db.clock = time.Now
	}
	// At least two: a migration on PostgreSQL holds its lock on one
	// connection while it works on another, and would wait for ever on a
	// pool of one.
	conns := max(o.MaxOpenConns, MinOpenConns)
	if db.writer != nil {
		conns++ // SQLite's write connection, held by the DB, is not the readers' to wait for
	}
	if db.keeper != nil {
		conns++ // and the connection that keeps an in-memory database alive
	}
	db.sql.SetMaxOpenConns(conns)
	db.sql.SetMaxIdleConns(conns)
	db.sql.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.dialect.checkText(ctx, db.sql); err != nil {
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
	if db.writer != nil {
		select {
		case conn := <-db.writer:
			conn.Close()
		default: // a write is in progress; closing the pool ends it
		}
	}
	db.stmts.close()
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

// newID checks an id the store gives itself, one above the largest taken.
// An import may take ids up to afftrack.MaxID, the largest a JSON client
// reading numbers as doubles keeps whole and an import file can name, so
// after it there is none left to give: the write is refused, saying so,
// rather than handing out an id no client can read back.
func newID(noun string, id int64) error {
	if id > afftrack.MaxID {
		return afftrack.Errorf(afftrack.EUNPROCESSABLE,
			"no %s id is left: ids run to %d, and an imported %s took the last", noun, afftrack.MaxID, noun)
	}
	return nil
}

// restoreConn runs the statements that set conn back after a bulk load or
// a rebuild changed its settings. It is best effort, with a fresh context
// since ctx may be why the caller is leaving; a failure discards the
// connection rather than return it to the pool with the change still on.
//
// With ctx ended (an import stopped by a signal), the connection is
// discarded at once: database/sql rolls back a transaction whose context
// ended in a goroutine of its own, which may not have reached the
// connection yet, and a PRAGMA foreign_keys run inside the transaction is
// ignored by SQLite, so the pool would get the connection back with
// foreign keys off.
func restoreConn(ctx context.Context, conn *sql.Conn, restore []string) {
	if ctx.Err() != nil && len(restore) > 0 {
		conn.Raw(func(any) error { return driver.ErrBadConn }) //nolint:errcheck // discards the connection
		return
	}
	for _, q := range restore {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), q); err != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn }) //nolint:errcheck // discards the connection
			return
		}
	}
}

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

// nullText is the argument for a nullable TEXT column.
func nullText(n afftrack.Null[string]) any {
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

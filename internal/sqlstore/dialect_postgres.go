package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/stdlib"
)

// openPostgres opens the PostgreSQL database at a postgres:// URL. pgx
// passes unknown URL parameters (search_path, for instance) to the server
// as run-time parameters.
//
// A query whose context ends (its client went away) is cancelled by a
// cancel request to the server, and its connection kept. pgx's default
// cuts the connection instead, so a client that sends a request and
// hangs up, again and again, made PostgreSQL start a backend for each
// (a soak review counted 30 sessions for 30 such requests). The deadline
// is the fallback for a server that does not answer the cancel request:
// then the connection is cut, as before.
func openPostgres(dsn string) (*DB, error) {
	if _, err := url.Parse(dsn); err != nil {
		// The URL's own error would repeat it, password included.
		return nil, errors.New("open database: the postgres URL cannot be parsed")
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open postgres database: %w", err)
	}
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelAnswerWait}
	}
	return &DB{sql: stdlib.OpenDB(*cfg), dialect: postgresDialect{}}, nil
}

// cancelAnswerWait is how long a cancelled query's connection waits for
// the server to end the query before it is cut.
const cancelAnswerWait = time.Second

// payoutLock is the key of the advisory lock that payout runs take.
const payoutLock = 0x61667470 // "aftp"

// lockPayouts takes a transaction-scoped advisory lock on PostgreSQL, so
// a second run waits for the first to commit and then finds its
// transactions Paid.
func (postgresDialect) lockPayouts(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, payoutLock)
	return err
}

func (postgresDialect) skipLocked(of string) string { return " FOR UPDATE OF " + of + " SKIP LOCKED" }

func (postgresDialect) forUpdate() string { return " FOR UPDATE OF t" }

// nextTransactionIDs on PostgreSQL take the sequence's next values
// (migration 0007): concurrent write transactions each get their own at
// once, where MAX(id)+1 would give them the same and make all but one fail.
func (postgresDialect) nextTransactionIDs(ctx context.Context, tx queryer, n int) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT nextval('transaction_ids') FROM generate_series(1, $1)`, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := make([]int64, 0, n)
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(ids) != n {
		return nil, fmt.Errorf("transaction ids: %d of %d", len(ids), n)
	}
	return ids, nil
}

// syncTransactionIDs sets the sequence past the largest id stored, unless
// it is past it already.
func (postgresDialect) syncTransactionIDs(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `SELECT setval('transaction_ids',
		GREATEST((SELECT COALESCE(MAX(id), 0) FROM transactions) + 1, nextval('transaction_ids')), false)`)
	return err
}

// postgresDialect is the dialect of PostgreSQL through pgx.
type postgresDialect struct{}

func (postgresDialect) name() string { return dialectPostgres }

// lockMigrations holds a row lock (SELECT ... FOR UPDATE) on the single row
// of schema_migrations_lock in a transaction of its own, which the
// migrations' transactions, on other connections, do not touch. A row lock
// was chosen over pg_advisory_lock because CockroachDB has no advisory
// locks, while every PostgreSQL-compatible engine has row locks; it is also
// released by the server if this process dies, as the transaction ends.
//
// The lock table itself is created with CREATE TABLE IF NOT EXISTS, which
// PostgreSQL does not make race-free: two sessions creating it at once can
// fail with a unique violation on pg_type (23505), duplicate_table (42P07)
// or duplicate_object for the table's row type (42710). Each means another
// process created it, so the creation is retried and then finds it exists.
func (d postgresDialect) lockMigrations(ctx context.Context, db *sql.DB) (func(), error) {
	const create = `CREATE TABLE IF NOT EXISTS schema_migrations_lock (id BIGINT PRIMARY KEY)`
	for attempt := 1; ; attempt++ {
		_, err := db.ExecContext(ctx, create)
		if err == nil {
			break
		}
		if attempt >= 10 || !isCreateRace(err) {
			return nil, fmt.Errorf("create schema_migrations_lock: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt) * 10 * time.Millisecond):
		}
	}
	if _, err := db.ExecContext(ctx,
		`INSERT INTO schema_migrations_lock (id) VALUES (1) ON CONFLICT (id) DO NOTHING`); err != nil {
		return nil, fmt.Errorf("seed schema_migrations_lock: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin migration lock: %w", err)
	}
	var id int64
	if err := tx.QueryRowContext(ctx,
		`SELECT id FROM schema_migrations_lock WHERE id = 1 FOR UPDATE`).Scan(&id); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("take migration lock: %w", err)
	}
	// Nothing was written, so rolling back only releases the lock.
	return func() { tx.Rollback() }, nil
}

// batchParams is large on PostgreSQL, where each statement is a round trip
// to the server, and far below its limit of 65535 parameters.
func (postgresDialect) batchParams() int { return 3300 }

// placeholders are numbered on PostgreSQL, which knows no other kind.
func (postgresDialect) placeholders(rows, cols int) string { return placeholderList(rows, cols, true) }

// insertNew is an INSERT with ON CONFLICT DO NOTHING on PostgreSQL.
func (postgresDialect) insertNew(table string) (head, tail string) {
	return "INSERT INTO " + table, " ON CONFLICT DO NOTHING"
}

// beginImport makes every execution of the import's prepared statements
// planned for the tables as they are then. By default PostgreSQL switches a
// prepared statement to a generic plan after five executions, costed for
// the tables' sizes at that moment; on a fresh database that plan deletes
// items with a sequential scan, which the import's own rows then turn
// quadratic (a million transactions would take hours). The setting exists
// from PostgreSQL 12 and in CockroachDB; on an engine without it the
// savepoint undoes the failed SET and the import goes on with default
// planning.
func (postgresDialect) beginImport(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `SAVEPOINT import_planning`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `SET LOCAL plan_cache_mode = force_custom_plan`); err != nil {
		_, err = tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT import_planning`)
		return err
	}
	_, err := tx.ExecContext(ctx, `RELEASE SAVEPOINT import_planning`)
	return err
}

// beginBulkLoad does nothing on PostgreSQL: dropping an index locks the
// table against readers until the load commits.
func (postgresDialect) beginBulkLoad(context.Context, *sql.Conn) (*bulkLoad, error) { return nil, nil }

// beginRebuild does nothing on PostgreSQL: it alters a table in place, and
// its foreign keys are checked by every statement.
func (postgresDialect) beginRebuild(context.Context, *sql.Conn) ([]string, error) { return nil, nil }

// checkRebuild has nothing to check on PostgreSQL, whose foreign keys were
// never off.
func (postgresDialect) checkRebuild(context.Context, *sql.Tx) error { return nil }

// analyze gathers statistics of the transactions and their items. Until
// autovacuum comes by, a table filled by a load has none, and PostgreSQL
// then plans a list's join to the items as a scan of all of them.
func (postgresDialect) analyze(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, `ANALYZE transactions, transaction_items`)
	return err
}

// fold is lower() on PostgreSQL, with a final sigma made a middle one,
// as foldText does: lower() of a libc UTF-8 locale makes an upper-case
// word's last Σ a σ where the stored word has ς, and an ICU locale's
// makes it ς; both then agree.
func (postgresDialect) fold(expr string) string { return "translate(lower(" + expr + "), 'ς', 'σ')" }

// foldProbe is text whose folding tells a locale that folds every script
// (libc's UTF-8 locales, ICU's) from one that folds ASCII only (LC_CTYPE
// C or POSIX) or a database not encoded in UTF-8.
const foldProbe = "ÀÉÎ"

// checkText refuses a database whose locale folds ASCII only: every text
// filter would then ignore the case of ASCII letters alone, unlike
// SQLite's and the lists filtered in Go.
func (d postgresDialect) checkText(ctx context.Context, db *sql.DB) error {
	var folded string
	if err := db.QueryRowContext(ctx, `SELECT `+d.fold("$1::text"), foldProbe).Scan(&folded); err != nil {
		return fmt.Errorf("check the postgres database's text folding: %w", err)
	}
	if folded != foldText(foldProbe) {
		var ctype string // for the message only: pg_database has it on every version
		_ = db.QueryRowContext(ctx, `SELECT datctype FROM pg_database WHERE datname = current_database()`).Scan(&ctype)
		return fmt.Errorf("open postgres database: its locale (LC_CTYPE %s) does not fold the case of "+
			"non-ASCII letters, which the API's text filters ignore; use a database created with a UTF-8 locale "+
			"(CREATE DATABASE afftrack ENCODING 'UTF8' LOCALE 'C.UTF-8' TEMPLATE template0)", ctype)
	}
	return nil
}

// prepares is false on PostgreSQL: pgx caches a prepared statement per
// query on each connection already (see stmt.go).
func (postgresDialect) prepares() bool { return false }

func (postgresDialect) isBusy(error) bool { return false }

// isFull: disk_full, which PostgreSQL raises when a write finds no space.
func (postgresDialect) isFull(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == "53100"
}

func (postgresDialect) isUniqueViolation(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == "23505"
}

// isOutOfRange: numeric_value_out_of_range, which a CAST of a NUMERIC
// sum to BIGINT raises.
func (postgresDialect) isOutOfRange(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && e.Code == "22003"
}

// isCreateRace reports whether err is how PostgreSQL fails a CREATE TABLE
// IF NOT EXISTS that raced another one.
func isCreateRace(err error) bool {
	var e *pgconn.PgError
	return errors.As(err, &e) && (e.Code == "23505" || e.Code == "42P07" || e.Code == "42710")
}

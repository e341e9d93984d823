package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Every difference between SQLite and PostgreSQL lives in this file: how a
// connection is opened and set up, how Migrate excludes other processes,
// and how a driver's error is classified. The schema and every query are
// shared text using $n placeholders, which modernc's SQLite accepts too.

// Dialect names returned by DB.Dialect.
const (
	dialectSQLite   = "sqlite"
	dialectPostgres = "postgres"
)

// sqlitePragmas are applied by the driver to every new pooled connection,
// so no connection ever runs without them. WAL lets readers proceed while a
// write is in progress; busy_timeout makes a writer wait for the lock rather
// than fail; NORMAL synchronous is durable across application crashes in
// WAL mode and much faster than FULL. _txlock=immediate takes the write
// lock at BEGIN, so two write transactions never deadlock upgrading a read
// lock, which deferred transactions can do.
//
// The page cache is 8 MiB per connection instead of SQLite's 2 MB. It is
// per connection and stays with an idle one, so a larger cache multiplies:
// at 64 MiB one whole-year list pushed the server to the 150 MiB
// memory bound, and two at once to 275 MiB (docs/performance.md, Memory).
// The write connection keeps it too: a larger one gained the click writer
// little once its transactions grew, and held 50 MB more while the
// lifecycle locked a backlog (docs/performance.md, "An eighth sitting").
// The generator's bulk load raises its own connection's cache for the
// load.
// Temporary storage in memory keeps the statement journal of an import's
// multi-row upserts off the disk.
const sqlitePragmas = sqliteCommonPragmas + "&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"

// sqliteCommonPragmas are those of sqlitePragmas that an in-memory
// database, which cannot use WAL, takes too.
const sqliteCommonPragmas = "_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)" +
	"&_pragma=cache_size(-8192)&_pragma=temp_store(MEMORY)&_txlock=immediate"

// openSQLite opens the SQLite database at path, or a private in-memory one
// when memory is true. The in-memory database is named uniquely and opened
// with a shared cache, so every pooled connection of this DB (and none of
// another DB) sees the same data; it lives while a connection is open, so
// the DB keeps one open until Close.
func openSQLite(ctx context.Context, path string, memory bool) (*DB, error) {
	var dsn string
	if memory {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("name in-memory database: %w", err)
		}
		dsn = "file:afftrack-" + hex.EncodeToString(b[:]) + "?mode=memory&cache=shared&" + sqliteCommonPragmas
	} else {
		if path == "" {
			return nil, errors.New(`open database: "sqlite:" needs a file path, as in sqlite:afftrack.db`)
		}
		// The driver cuts the DSN at the first '?' to find its parameters,
		// so a path holding one would be misread.
		if strings.ContainsRune(path, '?') {
			return nil, fmt.Errorf("open database: sqlite path %q must not contain '?'", path)
		}
		dsn = path + "?" + sqlitePragmas
	}
	sqlDB, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite database: %w", err)
	}
	db := &DB{sql: sqlDB, dialect: sqliteDialect{}, writer: make(chan *sql.Conn, 1)}
	if memory {
		keeper, err := sqlDB.Conn(ctx)
		if err != nil {
			sqlDB.Close()
			return nil, fmt.Errorf("open in-memory sqlite database: %w", err)
		}
		db.keeper = keeper
	}
	// The write connection is the pool's, held by the DB.
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite database: %w", err)
	}
	db.writer <- conn
	return db, nil
}

// openPostgres opens the PostgreSQL database at a postgres:// URL. pgx
// passes unknown URL parameters (search_path, for instance) to the server
// as run-time parameters.
func openPostgres(dsn string) (*DB, error) {
	if _, err := url.Parse(dsn); err != nil {
		// The URL's own error would repeat it, password included.
		return nil, errors.New("open database: the postgres URL cannot be parsed")
	}
	sqlDB, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("open postgres database: %w", err)
	}
	return &DB{sql: sqlDB, dialect: postgresDialect{}}, nil
}

// dialect is what differs between the engines at run time.
type dialect interface {
	// name is "sqlite" or "postgres".
	name() string

	// lockMigrations excludes every other Migrate on the same database,
	// from this process or another, until release is called.
	lockMigrations(ctx context.Context, db *sql.DB) (release func(), err error)

	// isOutOfRange reports whether err is an integer result beyond the
	// BIGINT range, such as a SUM of amounts.
	isOutOfRange(err error) bool
	// isUniqueViolation reports whether err is a primary key or unique
	// constraint violation.
	isUniqueViolation(err error) bool

	// batchParams is how many parameters a multi-row statement of an
	// import should carry: enough rows to amortise a statement's cost.
	batchParams() int

	// placeholders returns the parameters of a multi-row statement: rows
	// parenthesised lists of cols parameters, "(?, ?), (?, ?)" or
	// "($1, $2), ($3, $4)".
	placeholders(rows, cols int) string

	// insertNew returns the head and tail of a multi-row INSERT into table
	// that skips the rows whose key is stored already.
	insertNew(table string) (head, tail string)

	// beginImport prepares an import's transaction for a bulk load.
	beginImport(ctx context.Context, tx *sql.Tx) error

	// beginBulkLoad prepares an import's connection, before its
	// transaction, for loading the transactions table if it is empty, and
	// returns nil if it is not or the dialect has no bulk load.
	beginBulkLoad(ctx context.Context, conn *sql.Conn) (*bulkLoad, error)

	// beginRebuild prepares a migration's connection, before its
	// transaction, for rebuilding tables that others refer to
	// (rebuildMigrations), and returns the statements that set the
	// connection back afterwards.
	beginRebuild(ctx context.Context, conn *sql.Conn) (restore []string, err error)

	// checkRebuild fails if a rebuild left a reference without the row it
	// refers to; it runs in the migration's transaction, before its commit.
	checkRebuild(ctx context.Context, tx *sql.Tx) error

	// analyze refreshes the planner's statistics of the transactions
	// tables after a large write, as autovacuum would later.
	analyze(ctx context.Context, db *sql.DB) error

	// foldFunc names the SQL function that folds text for a
	// case-insensitive comparison of whole values.
	foldFunc() string

	// prepares reports whether the hot reads should run through statements
	// the DB prepares and holds, which pays where the driver parses every
	// query anew.
	prepares() bool

	// nextTransactionIDs returns the ids of n transactions the network
	// creates, inside the write transaction that tx runs statements in.
	nextTransactionIDs(ctx context.Context, tx queryer, n int) ([]int64, error)

	// syncTransactionIDs moves what nextTransactionIDs hands out past the
	// ids an import wrote, in the import's transaction.
	syncTransactionIDs(ctx context.Context, tx *sql.Tx) error

	// skipLocked ends a subquery that picks rows to claim: on PostgreSQL
	// rows another transaction is claiming are skipped; SQLite's writes
	// are serial and need nothing.
	skipLocked() string

	// lockPayouts makes a payout run exclude every other until its
	// transaction ends.
	lockPayouts(ctx context.Context, tx *sql.Tx) error
}

// lockPayouts needs nothing on SQLite: the run's transaction holds the
// database's one write lock from BEGIN.
func (sqliteDialect) lockPayouts(context.Context, *sql.Tx) error { return nil }

// payoutLock is the key of the advisory lock that payout runs take.
const payoutLock = 0x61667470 // "aftp"

// lockPayouts takes a transaction-scoped advisory lock on PostgreSQL, so
// a second run waits for the first to commit and then finds its
// transactions Paid.
func (postgresDialect) lockPayouts(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, payoutLock)
	return err
}

func (sqliteDialect) skipLocked() string   { return "" }
func (postgresDialect) skipLocked() string { return " FOR UPDATE SKIP LOCKED" }

// nextTransactionIDs on SQLite follow MAX(id): a write transaction holds
// the database's one write lock from BEGIN, so no other can take the same
// ids, and the maximum of the rowid is its B-tree's last entry.
func (sqliteDialect) nextTransactionIDs(ctx context.Context, tx queryer, n int) ([]int64, error) {
	var last int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM transactions`).Scan(&last); err != nil {
		return nil, err
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = last + 1 + int64(i)
	}
	return ids, nil
}

func (sqliteDialect) syncTransactionIDs(context.Context, *sql.Tx) error { return nil }

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

// sqliteDialect is the dialect of modernc.org/sqlite.
type sqliteDialect struct{}

func (sqliteDialect) name() string { return dialectSQLite }

// lockMigrations needs no lock of its own on SQLite: every migration runs in
// a transaction that takes the database's single write lock at BEGIN
// (_txlock=immediate) and re-reads schema_migrations under it, so concurrent
// processes apply each migration exactly once, one after another.
func (sqliteDialect) lockMigrations(context.Context, *sql.DB) (func(), error) {
	return func() {}, nil
}

func (sqliteDialect) isUniqueViolation(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// isOutOfRange: SQLite's sum() of integers fails with a plain
// SQLITE_ERROR that says "integer overflow"; there is no code of its own.
func (sqliteDialect) isOutOfRange(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code() == sqlite3.SQLITE_ERROR && strings.Contains(e.Error(), "integer overflow")
}

// batchParams is moderate on SQLite: a statement costs no round trip
// there, but a hundred rows per statement still halve an import's calls
// into the driver.
func (sqliteDialect) batchParams() int { return 600 }

// placeholders are anonymous on SQLite. SQLite finds the name of a
// numbered parameter ($n) by a linear search of the statement's names,
// and modernc asks for the name of every parameter it binds, so binding n
// numbered parameters costs n²: measured, 31% of a load's CPU at 600
// parameters per statement. Anonymous ones have no name.
func (sqliteDialect) placeholders(rows, cols int) string { return placeholderList(rows, cols, false) }

// insertNew is INSERT OR IGNORE on SQLite rather than an upsert's ON
// CONFLICT DO NOTHING. A multi-row statement that could abort halfway (a
// NOT NULL column under the default ABORT) keeps a statement journal, a
// copy of every page it changes, so that it can undo itself inside the
// transaction; OR IGNORE cannot abort, so SQLite keeps none. Measured on
// the click writer: the journal was 14% of the server's CPU under click
// load, and without it the redirects ran 1.5 times as fast. Ignoring also
// skips a row with a NULL in a NOT NULL column, which the callers never
// write (their columns are filled from Go values).
func (sqliteDialect) insertNew(table string) (head, tail string) {
	return "INSERT OR IGNORE INTO " + table, ""
}

// beginImport needs nothing on SQLite, whose planner always uses an index
// for an equality on its leading columns.
func (sqliteDialect) beginImport(context.Context, *sql.Tx) error { return nil }

// bulkLoad is what an import does around a bulk load.
type bulkLoad struct {
	finish  []string // run in the transaction before its commit
	restore []string // run on the connection after the transaction
}

// beginBulkLoad applies the settings of a bulk load to conn before the
// import's transaction begins, if the transactions table is empty: no
// foreign key checks, which cost a search of merchants and one of
// affiliates per transaction and repeat the importer's own: it refuses
// every record whose merchant or affiliate does not exist
// (TestImportErrors).
//
// The page cache stays the pool's. A cache large enough to hold the whole
// load until its commit was measured both ways: 5% faster on one machine,
// 25% slower on another, whose kernel made the allocator's page faults and
// the release of a gigabyte of cache pages (one madvise each) expensive;
// with the small cache, pages spill to the WAL as the load goes.
func (sqliteDialect) beginBulkLoad(ctx context.Context, conn *sql.Conn) (*bulkLoad, error) {
	var empty bool
	if err := conn.QueryRowContext(ctx, `SELECT NOT EXISTS (SELECT 1 FROM transactions)`).Scan(&empty); err != nil || !empty {
		return nil, err
	}
	// The indexes are rebuilt at the end by sorting every row; in memory,
	// that sort of a large load would hold it all, so it goes to files.
	restore, err := setPragmas(ctx, conn, [2]string{"foreign_keys", "OFF"}, [2]string{"temp_store", "FILE"})
	return &bulkLoad{restore: restore}, err
}

// beginRebuild turns foreign key checks off on conn: SQLite applies them to
// the DROP TABLE of a table being rebuilt, and ignores the pragma inside
// a transaction, so it is set before the migration's transaction begins.
func (sqliteDialect) beginRebuild(ctx context.Context, conn *sql.Conn) ([]string, error) {
	return setPragmas(ctx, conn, [2]string{"foreign_keys", "OFF"})
}

// setPragmas sets each integer pragma of set, a name and its new value, on
// conn, and returns the statements that set back those it changed, for
// restoreConn.
func setPragmas(ctx context.Context, conn *sql.Conn, set ...[2]string) ([]string, error) {
	var restore []string
	for _, p := range set {
		var was int64
		if err := conn.QueryRowContext(ctx, "PRAGMA "+p[0]).Scan(&was); err != nil {
			return restore, err
		}
		restore = append(restore, fmt.Sprintf("PRAGMA %s = %d", p[0], was))
		if _, err := conn.ExecContext(ctx, "PRAGMA "+p[0]+" = "+p[1]); err != nil {
			return restore, err
		}
	}
	return restore, nil
}

// checkRebuild runs SQLite's foreign key check over the whole database and
// reports the first reference it finds without its row.
func (sqliteDialect) checkRebuild(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return fmt.Errorf("foreign key check: %w", err)
	}
	defer rows.Close()
	if rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int64
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return fmt.Errorf("foreign key check: %w", err)
		}
		return fmt.Errorf("foreign key check: a row of %s (rowid %d) refers to a missing row of %s", table, rowid.Int64, parent)
	}
	return rows.Err()
}

// dropIndexes drops the transactions' indexes other than the primary
// key's, in the import's transaction, if the table is still empty (an
// import of another process may have come first), to be rebuilt by
// finish. They are read back from the schema, so whatever a migration made
// them is rebuilt.
func (b *bulkLoad) dropIndexes(ctx context.Context, tx *sql.Tx) error {
	var empty bool
	if err := tx.QueryRowContext(ctx, `SELECT NOT EXISTS (SELECT 1 FROM transactions)`).Scan(&empty); err != nil || !empty {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_schema
		WHERE type = 'index' AND tbl_name = 'transactions' AND sql IS NOT NULL ORDER BY name`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var drop []string
	for rows.Next() {
		var name, create string
		if err := rows.Scan(&name, &create); err != nil {
			return err
		}
		drop = append(drop, `DROP INDEX "`+name+`"`)
		b.finish = append(b.finish, create)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, q := range drop {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// analyze does nothing on SQLite, whose planner picks the indexes these
// queries need without statistics.
func (sqliteDialect) analyze(context.Context, *sql.DB) error { return nil }

// foldFunc is a function of ours on SQLite, whose lower() folds ASCII
// only: the contract's filters ignore case in every script.
func (sqliteDialect) foldFunc() string { return sqliteFoldFunc }

// sqliteFoldFunc is the name under which foldText is registered with the
// SQLite driver.
const sqliteFoldFunc = "afftrack_fold"

func init() {
	// The driver's functions are registered process-wide, before any
	// connection opens; deterministic, so SQLite may use it in indexes
	// and factor it out of loops.
	sqlite.MustRegisterDeterministicScalarFunction(sqliteFoldFunc, 1,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			switch v := args[0].(type) {
			case string:
				return foldText(v), nil
			case []byte:
				return foldText(string(v)), nil
			}
			return args[0], nil // NULL stays NULL, and numbers compare as they are
		})
}

// foldText folds s for comparison ignoring case, as PostgreSQL's lower()
// does in a UTF-8 locale.
func foldText(s string) string { return strings.ToLower(s) }

// prepares is true on SQLite: modernc keeps no statement cache, and
// parsing a lookup's query took nearly half of its CPU.
func (sqliteDialect) prepares() bool { return true }

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

// placeholderList returns rows parenthesised lists of cols parameters,
// numbered from $1 or anonymous: "($1, $2), ($3, $4)" or "(?, ?), (?, ?)".
func placeholderList(rows, cols int, numbered bool) string {
	var b strings.Builder
	n := 1
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := range cols {
			if c > 0 {
				b.WriteString(", ")
			}
			if numbered {
				b.WriteByte('$')
				b.WriteString(strconv.Itoa(n))
			} else {
				b.WriteByte('?')
			}
			n++
		}
		b.WriteByte(')')
	}
	return b.String()
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

// foldFunc is lower() on PostgreSQL, which folds every script in a
// UTF-8 locale.
func (postgresDialect) foldFunc() string { return "lower" }

// prepares is false on PostgreSQL: pgx caches a prepared statement per
// query on each connection already (see stmt.go).
func (postgresDialect) prepares() bool { return false }

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

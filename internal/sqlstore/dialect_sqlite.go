package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
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
// Temporary storage in memory keeps the statement journal of an import's
// multi-row upserts off the disk.
//
// The write-ahead log keeps the size its largest transaction gave it
// unless limited: after an import of a million transactions, or clicks
// held through a full disk, it would keep gigabytes. journal_size_limit
// truncates it to 64 MiB when a checkpoint starts it over, more than the
// served writes need.
const sqlitePragmas = sqliteCommonPragmas + "&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)" +
	"&_pragma=journal_size_limit(" + walSizeLimit + ")"

// walSizeLimit is journal_size_limit's value, in bytes: 64 MiB.
const walSizeLimit = "67108864"

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

// lockPayouts needs nothing on SQLite: the run's transaction holds the
// database's one write lock from BEGIN.
func (sqliteDialect) lockPayouts(context.Context, *sql.Tx) error { return nil }

func (sqliteDialect) skipLocked(string) string { return "" }

func (sqliteDialect) forUpdate() string { return "" }

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

func (sqliteDialect) isBusy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}

func (sqliteDialect) isFull(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_FULL
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

// analyze does nothing on SQLite, whose planner picks the indexes these
// queries need without statistics.
func (sqliteDialect) analyze(context.Context, *sql.DB) error { return nil }

// fold is a function of ours on SQLite, whose lower() folds ASCII
// only: the contract's filters ignore case in every script.
func (sqliteDialect) fold(expr string) string { return sqliteFoldFunc + "(" + expr + ")" }

// checkText has nothing to check on SQLite: the fold is ours.
func (sqliteDialect) checkText(context.Context, *sql.DB) error { return nil }

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

// foldText folds s for comparison ignoring case, as the PostgreSQL
// dialect's fold does: lower case, with a final sigma made a middle one,
// since upper-case Greek ΝΊΚΟΣ lowers to νίκοσ while the stored Νίκος is
// νίκος.
func foldText(s string) string { return strings.ReplaceAll(strings.ToLower(s), "ς", "σ") }

// prepares is true on SQLite: modernc keeps no statement cache, and
// parsing a lookup's query took nearly half of its CPU.
func (sqliteDialect) prepares() bool { return true }

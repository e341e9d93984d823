package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// migrationFiles holds the schema's history: migrations/NNNN_name.sql (or
// one NNNN_name.ENGINE.sql per engine), applied in order of NNNN. A
// released file is never edited; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema change.
type migration struct {
	version int64
	name    string
	sql     string
	step    migrationStep // nil for most
	rebuild bool          // in rebuildMigrations
}

// migrationStep is the Go part of a migration that SQL alone cannot do,
// such as re-encoding rows. It runs after the migration's SQL, in its
// transaction; now is the DB's clock, for a step that stamps rows.
type migrationStep func(ctx context.Context, tx *sql.Tx, d dialect, now time.Time) error

// migrationSteps are the Go steps by migration version.
var migrationSteps = map[int64]migrationStep{
	2: migrateTransactionDetails,
	3: migrateRelationalTransactions,
	5: migrateItemsCache,
	9: migrateV1Surface,
}

// rebuildMigrations are the migrations that rebuild a table other tables
// refer to. SQLite cannot change a table's primary key in place; its
// documented way is to create the new table, copy the rows, drop the old
// one and rename the new one, and with foreign keys on, the drop would
// delete or refuse to leave every referring row. These run with the
// dialect's foreign key checks off on their connection, and check every
// reference in their transaction before they commit.
var rebuildMigrations = map[int64]bool{10: true}

// loadMigrations reads the migrations of fsys for the engine named
// dialect, in version order, with their Go steps from steps. A migration
// is one file, NNNN_description.sql, run on every engine, or, where the
// engines need different text, one file per engine,
// NNNN_description.ENGINE.sql (sqlite, postgres), each engine taking its
// own.
func loadMigrations(fsys fs.FS, steps map[int64]migrationStep, rebuilds map[int64]bool, dialect string) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, fmt.Errorf("list migrations: %w", err)
	}
	var ms []migration
	seen := map[int64]string{}
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, rest, ok := strings.Cut(base, "_")
		v, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_description.sql", base)
		}
		if desc, engine, ok := strings.Cut(strings.TrimSuffix(rest, ".sql"), "."); ok {
			if engine != dialectSQLite && engine != dialectPostgres || desc == "" {
				return nil, fmt.Errorf("migration %s: name must be NNNN_description.sql or NNNN_description.ENGINE.sql, ENGINE sqlite or postgres", base)
			}
			if engine != dialect {
				continue
			}
		}
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %s and %s share version %d", other, base, v)
		}
		seen[v] = base
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", base, err)
		}
		ms = append(ms, migration{version: v, name: base, sql: string(body), step: steps[v], rebuild: rebuilds[v]})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// Migrate applies the migrations the database has not recorded yet, each in
// its own transaction that also records it in schema_migrations. It is safe
// when several processes start at once: the dialect's lock lets one migrate
// while the others wait, and each migration's transaction re-reads
// schema_migrations, so a migration is never applied twice.
func (db *DB) Migrate(ctx context.Context) error { return db.migrateTo(ctx, math.MaxInt64) }

// migrateTo is Migrate up to version last, for tests of a migration's
// conversion of the data of the versions before it.
func (db *DB) migrateTo(ctx context.Context, last int64) error {
	ms, err := loadMigrations(migrationFiles, migrationSteps, rebuildMigrations, db.dialect.name())
	if err != nil {
		return err
	}
	// A database that is up to date is told by a read: on SQLite every
	// migration's transaction takes the one write lock, which a command
	// would otherwise wait for (and fail on) while an import holds it.
	db.applied = nil
	recorded, err := db.recordedMigrations(ctx)
	if err == nil && len(ms) > 0 {
		db.newerSchema = 0
		for v := range recorded {
			if v > ms[len(ms)-1].version {
				db.newerSchema = max(db.newerSchema, v)
			}
		}
		if !slices.ContainsFunc(ms, func(m migration) bool { return m.version <= last && !recorded[m.version] }) {
			return nil
		}
	}
	release, err := db.dialect.lockMigrations(ctx, db.sql)
	if err != nil {
		return err
	}
	defer release()
	if _, err := db.sql.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    BIGINT NOT NULL PRIMARY KEY,
		applied_at BIGINT NOT NULL
	)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	for _, m := range ms {
		if m.version > last {
			break
		}
		if err := db.applyMigration(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// recordedMigrations returns the versions schema_migrations records; an
// error for a database without the table.
func (db *DB) recordedMigrations(ctx context.Context) (map[int64]bool, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	recorded := map[int64]bool{}
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		recorded[v] = true
	}
	return recorded, rows.Err()
}

// NewerSchema returns the latest migration the database records that this
// release does not know (one a newer release applied), 0 for none, as the
// last Migrate found it.
func (db *DB) NewerSchema() int64 { return db.newerSchema }

// Applied returns the versions of the migrations the last Migrate applied
// itself, in order: none when the database was up to date, or when
// another process applied them meanwhile.
func (db *DB) Applied() []int64 { return db.applied }

// applyMigration runs m unless it is recorded already, on a connection of
// its own, so that what a rebuild sets on it is set back before the
// connection returns to the pool.
func (db *DB) applyMigration(ctx context.Context, m migration) error {
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	defer conn.Close()
	if m.rebuild {
		restore, err := db.dialect.beginRebuild(ctx, conn)
		defer restoreConn(ctx, conn, restore)
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: begin: %w", m.name, err)
	}
	defer rollback(tx)
	var applied int64
	if err := tx.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM schema_migrations WHERE version = $1`, m.version).Scan(&applied); err != nil {
		return fmt.Errorf("migration %s: read schema_migrations: %w", m.name, err)
	}
	if applied > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	if m.step != nil {
		if err := m.step(ctx, tx, db.dialect, db.clock()); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	if m.rebuild {
		if err := db.dialect.checkRebuild(ctx, tx); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	// applied_at is an instant, not a network wall clock: it is only for
	// operators reading the table.
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`,
		m.version, db.clock().UnixMilli()); err != nil {
		return fmt.Errorf("migration %s: record: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %s: commit: %w", m.name, err)
	}
	db.applied = append(db.applied, m.version)
	return nil
}

package sqlstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// migrationCount is the number of files under migrations/.
const migrationCount = 15

// openMigratedTo opens a database of backend b migrated up to version
// last, for a test of what the next migration does to the rows of its
// layout; it is closed when the test ends.
func openMigratedTo(t *testing.T, b string, last int64, opts ...sqlstore.Options) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), storetest.URL(t, b), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.MigrateTo(context.Background(), last); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestMigrate(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b, func(t *testing.T) {
			ctx := context.Background()
			t.Run("is idempotent and records each migration once", func(t *testing.T) {
				db := storetest.Open(t, b) // migrated once already
				before := time.Now().UnixMilli()
				for range 2 {
					if err := db.Migrate(ctx); err != nil {
						t.Fatalf("Migrate again: %v", err)
					}
				}
				rows, err := db.SQL().QueryContext(ctx, `SELECT version, applied_at FROM schema_migrations ORDER BY version`)
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				var versions []int64
				for rows.Next() {
					var v, at int64
					if err := rows.Scan(&v, &at); err != nil {
						t.Fatal(err)
					}
					if at > before || at < before-time.Hour.Milliseconds() {
						t.Errorf("version %d applied_at %d is not the first migration's time", v, at)
					}
					versions = append(versions, v)
				}
				if err := rows.Err(); err != nil {
					t.Fatal(err)
				}
				if len(versions) != migrationCount || versions[0] != 1 {
					t.Errorf("schema_migrations holds %v, want versions 1..%d", versions, migrationCount)
				}
			})
			t.Run("is safe when several processes start at once", func(t *testing.T) {
				url := storetest.URL(t, b)
				const n = 6
				dbs := make([]*sqlstore.DB, n)
				for i := range dbs {
					db, err := sqlstore.Open(ctx, url)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { db.Close() })
					dbs[i] = db
				}
				var wg sync.WaitGroup
				start := make(chan struct{})
				errs := make([]error, n)
				for i, db := range dbs {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						errs[i] = db.Migrate(ctx)
					}()
				}
				close(start)
				wg.Wait()
				for i, err := range errs {
					if err != nil {
						t.Errorf("Migrate %d: %v", i, err)
					}
				}
				if got := countRows(t, dbs[0], "schema_migrations"); got != migrationCount {
					t.Errorf("schema_migrations holds %d rows, want %d", got, migrationCount)
				}
				mustImport(t, dbs[0], fixture(t))
			})
		})
	}
}

// TestAnUpToDateDatabaseIsMigratedWithoutTheWriteLock: every command
// migrates as it opens the database; on SQLite one that is up to date
// must not wait for the write lock another process (an import) holds.
func TestAnUpToDateDatabaseIsMigratedWithoutTheWriteLock(t *testing.T) {
	dsn := storetest.URL(t, storetest.SQLite)
	ctx := context.Background()
	openAndMigrate(t, dsn)
	holdWriteLock(t, dsn)
	other, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	quick, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := other.Migrate(quick); err != nil {
		t.Errorf("Migrate of an up-to-date database beside a held write lock: %v", err)
	}
}

// TestMigrateTellsOfANewerSchema: a database a newer release migrated is
// served (its migrations only add), but the release can say so.
func TestMigrateTellsOfANewerSchema(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		ctx := context.Background()
		if got := db.NewerSchema(); got != 0 {
			t.Fatalf("NewerSchema of a database this release migrated = %d, want 0", got)
		}
		if _, err := db.SQL().ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (9999, 0)`); err != nil {
			t.Fatal(err)
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if got := db.NewerSchema(); got != 9999 {
			t.Errorf("NewerSchema = %d, want 9999", got)
		}
	})
}

func openAndMigrate(t *testing.T, dsn string) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestAWriteBehindAnotherProcesssLongWriteIsUnavailable: on SQLite a write
// that waits out the busy timeout for the lock another process holds (an
// import) is EUNAVAILABLE, which a client may retry, not an internal error.
func TestAWriteBehindAnotherProcesssLongWriteIsUnavailable(t *testing.T) {
	dsn := storetest.URL(t, storetest.SQLite)
	ctx := context.Background()
	db := openAndMigrate(t, dsn)
	holdWriteLock(t, dsn)
	now := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	_, err := sqlstore.NewLifecycleService(db, "AUD", func() time.Time { return now }).LockDue(ctx, now)
	if afftrack.ErrorCode(err) != afftrack.EUNAVAILABLE {
		t.Errorf("a write behind a held lock: %v (%s); want %s", err, afftrack.ErrorCode(err), afftrack.EUNAVAILABLE)
	}
}

// holdWriteLock holds the write lock of the SQLite database at dsn, as
// another process (an import) would, until the test ends.
func holdWriteLock(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	other := openAndMigrate(t, dsn)
	holder, err := other.SQL().BeginTx(ctx, nil) // _txlock=immediate: the lock is taken at BEGIN
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Rollback() })
	if _, err := holder.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ('held', 'x')`); err != nil {
		t.Fatal(err)
	}
}

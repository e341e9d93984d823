package sqlstore

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// openTestSQLite opens an unmigrated SQLite file database, closed when the
// test ends, for the package's own tests of SQLite's side; storetest cannot
// be used from inside the package.
func openTestSQLite(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "stmt.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestStatementCache(t *testing.T) {
	ctx := context.Background()
	t.Run("prepares a query once and hands out the same statement after", func(t *testing.T) {
		db := openTestSQLite(t)
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		first := db.prepared(ctx, selectInvoice)
		if first == nil {
			t.Fatal("prepared returned nil for a valid query")
		}
		if again := db.prepared(ctx, selectInvoice); again != first {
			t.Error("a second prepared call returned another statement")
		}
		if n := db.stmts.cached(); n != 1 {
			t.Errorf("cached statements = %d, want 1", n)
		}
	})
	t.Run("does not remember a query that failed to prepare", func(t *testing.T) {
		db := openTestSQLite(t)
		if st := db.prepared(ctx, selectInvoice); st != nil {
			t.Fatal("prepared a query of a table that does not exist yet")
		}
		if n := db.stmts.cached(); n != 0 {
			t.Fatalf("cached statements = %d after a failure, want 0", n)
		}
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if st := db.prepared(ctx, selectInvoice); st == nil {
			t.Error("the query is not prepared once its table exists")
		}
	})
	t.Run("runs queries unprepared beyond its bound", func(t *testing.T) {
		db := openTestSQLite(t)
		text := func(i int) string { return fmt.Sprintf("SELECT %d", i) }
		for i := range maxStmts {
			if db.prepared(ctx, text(i)) == nil {
				t.Fatalf("statement %d of %d was not prepared", i+1, maxStmts)
			}
		}
		if st := db.prepared(ctx, text(maxStmts)); st != nil {
			t.Fatalf("prepared statement %d beyond the bound of %d", maxStmts+1, maxStmts)
		}
		var got int64
		if err := db.queryRow(ctx, text(maxStmts)).Scan(&got); err != nil {
			t.Fatalf("unprepared query: %v", err)
		}
		if got != maxStmts {
			t.Errorf("unprepared query returned %d, want %d", got, maxStmts)
		}
		if n := db.stmts.cached(); n != maxStmts {
			t.Errorf("cached statements = %d, want %d", n, maxStmts)
		}
	})
	t.Run("leaves statements to the driver on PostgreSQL", func(t *testing.T) {
		// No connection is needed: the dialect decides before any is used.
		db := &DB{dialect: postgresDialect{}}
		if st := db.prepared(ctx, selectInvoice); st != nil {
			t.Error("prepared a statement for a driver that caches its own")
		}
	})
	t.Run("closes its statements with the database and prepares no more", func(t *testing.T) {
		db := openTestSQLite(t)
		st := db.prepared(ctx, "SELECT 1")
		if st == nil {
			t.Fatal("prepared returned nil for a valid query")
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		var one int64
		if err := st.QueryRowContext(ctx).Scan(&one); err == nil {
			t.Error("a statement prepared before Close still runs")
		}
		if db.prepared(ctx, "SELECT 2") != nil {
			t.Error("prepared a statement after Close")
		}
		if n := db.stmts.cached(); n != 0 {
			t.Errorf("cached statements = %d after Close, want 0", n)
		}
	})
}

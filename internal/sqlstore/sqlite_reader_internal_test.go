package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// openTestReader returns a migrated SQLite file database holding a table
// t(b BLOB, n INTEGER) of rows (b = "row i", n = i) for i in 1..rows.
func openTestReader(t *testing.T, rows int) *DB {
	t.Helper()
	db := openTestSQLite(t)
	ctx := context.Background()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(ctx, `CREATE TABLE t (b BLOB, n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= rows; i++ {
		if _, err := db.sql.ExecContext(ctx, `INSERT INTO t (b, n) VALUES ($1, $2)`, []byte(fmt.Sprintf("row %d", i)), i); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := db.reader.(*sqliteReader); !ok {
		t.Fatalf("a SQLite file database's reader is %T", db.reader)
	}
	return db
}

// collect runs query on db's reader and returns the rows it saw.
func collect(ctx context.Context, db *DB, query string, args ...int64) ([]string, error) {
	var got []string
	err := db.reader.query(ctx, query, args, func(b []byte, n int64) error {
		got = append(got, fmt.Sprintf("%s=%d", b, n))
		return nil
	})
	return got, err
}

func TestSQLiteReader(t *testing.T) {
	ctx := context.Background()
	const byRange = `SELECT b, n FROM t WHERE n >= $1 AND n <= $2 ORDER BY n`

	t.Run("reads each row's blob and integer with the arguments bound in order", func(t *testing.T) {
		db := openTestReader(t, 5)
		got, err := collect(ctx, db, byRange, 2, 4)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"row 2=2", "row 3=3", "row 4=4"}, got); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}
	})
	t.Run("sees what was committed after its connection was pooled", func(t *testing.T) {
		db := openTestReader(t, 1)
		if _, err := collect(ctx, db, byRange, 1, 9); err != nil {
			t.Fatal(err)
		}
		if _, err := db.sql.ExecContext(ctx, `INSERT INTO t (b, n) VALUES (X'00FF', 2)`); err != nil {
			t.Fatal(err)
		}
		got, err := collect(ctx, db, byRange, 1, 9)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"row 1=1", "\x00\xff=2"}, got); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}
	})
	t.Run("stops at once when the context is cancelled between rows", func(t *testing.T) {
		db := openTestReader(t, 50)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		calls := 0
		err := db.reader.query(ctx, byRange, []int64{1, 50}, func([]byte, int64) error {
			calls++
			cancel()
			return nil
		})
		if !errors.Is(err, context.Canceled) || calls != 1 {
			t.Errorf("err = %v after %d rows, want context.Canceled after 1", err, calls)
		}
		if got, err := collect(context.Background(), db, byRange, 1, 2); err != nil || len(got) != 2 {
			t.Errorf("the next query on the pool: %q, %v", got, err)
		}
	})
	t.Run("refuses to write", func(t *testing.T) {
		db := openTestReader(t, 1)
		err := db.reader.query(ctx, `DELETE FROM t RETURNING b, n`, nil, func([]byte, int64) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "readonly") {
			t.Errorf("a DELETE through the reader: %v, want a read-only error", err)
		}
		if got, _ := collect(ctx, db, byRange, 1, 9); len(got) != 1 {
			t.Errorf("rows after the refused DELETE: %q", got)
		}
	})
	t.Run("refuses parameters other than $1, $2, ... in order", func(t *testing.T) {
		db := openTestReader(t, 1)
		for _, q := range []string{`SELECT b, n FROM t WHERE n = ?`, `SELECT b, n FROM t WHERE n = $2 OR n = $1`, `SELECT b, n FROM t WHERE n = :n`} {
			if _, err := collect(ctx, db, q, 1, 1); err == nil {
				t.Errorf("%s: no error", q)
			}
		}
	})
	t.Run("reports the engine's errors and keeps serving after them", func(t *testing.T) {
		db := openTestReader(t, 1)
		_, err := collect(ctx, db, `SELECT b, n FROM missing`)
		if err == nil || !strings.Contains(err.Error(), "no such table: missing") {
			t.Errorf("err = %v, want the engine's message", err)
		}
		if got, err := collect(ctx, db, byRange, 1, 1); err != nil || len(got) != 1 {
			t.Errorf("the next query: %q, %v", got, err)
		}
	})
	t.Run("keeps at most maxStmts statements per connection and still runs others", func(t *testing.T) {
		db := openTestReader(t, 1)
		for i := range maxStmts + 3 {
			got, err := collect(ctx, db, fmt.Sprintf(`SELECT b, n + %d FROM t`, i))
			if err != nil || len(got) != 1 || got[0] != fmt.Sprintf("row 1=%d", 1+i) {
				t.Fatalf("query %d: %q, %v", i, got, err)
			}
		}
		c, err := db.reader.(*sqliteReader).get()
		if err != nil {
			t.Fatal(err)
		}
		if n := len(c.stmts); n != maxStmts {
			t.Errorf("the connection keeps %d statements, want %d", n, maxStmts)
		}
		db.reader.(*sqliteReader).put(c)
	})
	t.Run("serves many goroutines at once, each on a connection of its own", func(t *testing.T) {
		db := openTestReader(t, 20)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					n := int64((g+i)%20 + 1)
					got, err := collect(ctx, db, byRange, n, n)
					if err == nil && (len(got) != 1 || got[0] != fmt.Sprintf("row %d=%d", n, n)) {
						err = fmt.Errorf("row %d read as %q", n, got)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if n := len(db.reader.(*sqliteReader).idle); n > maxIdleConns {
			t.Errorf("%d idle connections, want at most %d", n, maxIdleConns)
		}
	})
	t.Run("closes with the database and refuses queries after", func(t *testing.T) {
		db := openTestReader(t, 1)
		if _, err := collect(ctx, db, byRange, 1, 1); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if n := len(db.reader.(*sqliteReader).idle); n != 0 {
			t.Errorf("%d idle connections after Close", n)
		}
		if _, err := collect(ctx, db, byRange, 1, 1); err == nil {
			t.Error("a query after Close succeeded")
		}
	})
}

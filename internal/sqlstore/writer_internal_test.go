package sqlstore

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestWritersQueueOnSQLite: on a SQLite file one write transaction runs at
// a time, on the DB's write connection; the next starts when the last
// releases, a writer that gives up waiting takes nothing, and a release
// twice gives the connection back once.
func TestWritersQueueOnSQLite(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.sql.ExecContext(ctx, `CREATE TABLE w (n INTEGER)`); err != nil {
		t.Fatal(err)
	}

	t.Run("a writer waits for the one before it", func(t *testing.T) {
		tx, release, err := db.beginWrite(ctx)
		if err != nil {
			t.Fatal(err)
		}
		waiting, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if _, _, err := db.beginWrite(waiting); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("second writer while the first holds the slot: %v, want the context's deadline", err)
		}
		rollback(tx)
		release()
		release() // a second call frees nothing more
		tx2, release2, err := db.beginWrite(ctx)
		if err != nil {
			t.Fatalf("a writer after the release: %v", err)
		}
		rollback(tx2)
		release2()
	})

	t.Run("every write runs on the same connection", func(t *testing.T) {
		// A temporary table is its connection's alone. A reader holds
		// the pool's idle connection meanwhile, which a write taken from
		// the pool would have had.
		for i := range 3 {
			reader, err := db.sql.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer reader.Close()
			tx, release, err := db.beginWrite(ctx)
			if err != nil {
				t.Fatal(err)
			}
			q := `CREATE TEMP TABLE mark (n INTEGER)`
			if i > 0 {
				q = `INSERT INTO temp.mark (n) VALUES (1)`
			}
			if _, err := tx.ExecContext(ctx, q); err != nil {
				t.Errorf("write %d: %v (another connection?)", i, err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			release()
		}
	})

	t.Run("concurrent writers all commit, one at a time", func(t *testing.T) {
		const writers = 16
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tx, release, err := db.beginWrite(ctx)
				if err != nil {
					errs <- err
					return
				}
				defer release()
				defer rollback(tx)
				if _, err := tx.ExecContext(ctx, `INSERT INTO w (n) VALUES ($1)`, i); err != nil {
					errs <- err
					return
				}
				errs <- tx.Commit()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		var n int
		if err := db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM w`).Scan(&n); err != nil || n != writers {
			t.Errorf("rows = %d (%v), want %d", n, err, writers)
		}
		if len(db.writer) != 1 {
			t.Error("the write connection was not given back")
		}
	})
}

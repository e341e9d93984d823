package sqlstore

import (
	"context"
	"database/sql"
	"sync"
)

// The hot reads (a transaction by id, the transaction lists, Authenticate,
// banners, an invoice) run on every request. The SQLite driver keeps no
// statement cache, so each call would hand its SQL text to SQLite to parse
// and plan anew; they run through *sql.Stmts prepared once per DB instead,
// on first use rather than at Open because the tables exist only after
// Migrate. database/sql prepares each on every pooled connection it meets,
// once per connection.
//
// On PostgreSQL the driver does this itself: pgx prepares every query on
// first use on a connection and keeps it in a per-connection cache, so the
// store prepares nothing there (docs/performance.md has the figures).

// maxStmts bounds the statements a DB keeps prepared. The list queries
// vary with the filters a request combines, so without a bound a client
// could make every connection hold thousands of statements; the common
// shapes are prepared long before the bound is reached, and a text beyond
// it runs unprepared.
const maxStmts = 64

// stmtCache holds a DB's prepared statements by SQL text.
type stmtCache struct {
	stmts sync.Map // string → *sql.Stmt; read without the lock on every call

	mu     sync.Mutex // held to prepare, to count and to close
	n      int
	closed bool
}

// prepared returns the statement of query, preparing it on first use, or
// nil when it is not to be prepared (the dialect's driver caches
// statements itself, the cache is full or closed, or the database refused
// it), in which case the caller runs query unprepared and meets the
// database's error, if any, there.
func (db *DB) prepared(ctx context.Context, query string) *sql.Stmt {
	if !db.dialect.prepares() {
		return nil
	}
	c := &db.stmts
	if st, ok := c.stmts.Load(query); ok {
		return st.(*sql.Stmt)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.stmts.Load(query); ok {
		return st.(*sql.Stmt)
	}
	if c.closed || c.n >= maxStmts {
		return nil
	}
	// A failure is not remembered: before Migrate the tables are missing,
	// and a cancelled request must not spoil the statement for the next.
	st, err := db.sql.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	c.stmts.Store(query, st)
	c.n++
	return st
}

// query runs query through its prepared statement.
func (db *DB) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := db.prepared(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return db.sql.QueryContext(ctx, query, args...)
}

// queryRow runs query, expected to return at most one row, through its
// prepared statement.
func (db *DB) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if st := db.prepared(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return db.sql.QueryRowContext(ctx, query, args...)
}

// pooled is a queryer on the DB's pool that runs each statement through
// its prepared statement, for reads made outside a transaction.
type pooled struct{ db *DB }

// QueryContext runs query on the pool, prepared where that pays.
func (p pooled) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return p.db.query(ctx, query, args...)
}

// QueryRowContext runs query on the pool, prepared where that pays.
func (p pooled) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.db.queryRow(ctx, query, args...)
}

// ExecContext runs query on the pool, prepared where that pays.
func (p pooled) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := p.db.prepared(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return p.db.sql.ExecContext(ctx, query, args...)
}

// lookup returns the statement of query if it is prepared, else nil; it
// never prepares, so it needs no connection.
func (c *stmtCache) lookup(query string) *sql.Stmt {
	if st, ok := c.stmts.Load(query); ok {
		return st.(*sql.Stmt)
	}
	return nil
}

// close closes every prepared statement and stops preparing more.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	c.stmts.Range(func(k, st any) bool {
		st.(*sql.Stmt).Close()
		c.stmts.Delete(k)
		return true
	})
	c.n = 0
}

// cached reports how many statements are prepared, for tests.
func (c *stmtCache) cached() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

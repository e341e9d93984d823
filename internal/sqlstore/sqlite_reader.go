package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteReader runs the transactions' reads (a lookup by id, the lists) on
// a SQLite file through the engine's C API, as modernc.org/sqlite/lib
// exposes it, instead of through database/sql and the driver.
//
// Why: those reads are the service's main work, and on SQLite most of
// their cost was not the query. Per lookup, database/sql and the driver
// made some 20 allocations (the column names read back from the engine on
// every query among them), started a goroutine to watch the request's
// context, and took the driver's and the engine's per-connection mutexes
// on every call, the engine's because the driver opens every connection
// SQLITE_OPEN_FULLMUTEX. A connection here is used by one goroutine at a
// time, so it is opened SQLITE_OPEN_NOMUTEX, and a row's values are read
// in place. Measured in BenchmarkFindTransactionByID and
// BenchmarkFindTransactions (docs/performance.md).
//
// Only reads run here; every write goes through database/sql, and the
// connections are query_only besides. The connections open the same file
// with the same library, so the engine's locking (WAL) treats them like
// any other connection of the process. An in-memory database has no
// reader: its connections could not see each other's data.
type sqliteReader struct {
	name string // the file name as the driver passes it to the engine

	mu     sync.Mutex
	idle   []*sqliteConn
	closed bool
}

// sqliteConn is one connection of a sqliteReader, used by one goroutine at
// a time.
type sqliteConn struct {
	tls   *libc.TLS
	db    uintptr            // sqlite3*
	stmts map[string]uintptr // sqlite3_stmt* by SQL text
}

// sqliteReaderPragmas are run on every connection a sqliteReader opens:
// the serving page cache of sqlitePragmas, and no writes.
var sqliteReaderPragmas = []string{
	"PRAGMA cache_size = -8192",
	"PRAGMA query_only = 1",
}

// sqliteBusyTimeoutMS is the busy timeout of sqlitePragmas, in ms.
const sqliteBusyTimeoutMS = 5000

func newSQLiteReader(name string) *sqliteReader { return &sqliteReader{name: name} }

// query runs query with args bound to $1, $2, ... and calls row for each
// row until the rows end, row returns an error, or ctx is done; see
// transactionReader.
func (r *sqliteReader) query(ctx context.Context, query string, args []int64, row readerRow) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c, err := r.get()
	if err != nil {
		return err
	}
	err = c.query(ctx, query, args, row)
	if _, broken := err.(*sqliteError); broken {
		// The engine failed: the connection is not trusted again.
		c.close()
		return err
	}
	r.put(c)
	return err
}

// get returns an idle connection or opens one.
func (r *sqliteReader) get() (*sqliteConn, error) {
	r.mu.Lock()
	if n := len(r.idle); n > 0 {
		c := r.idle[n-1]
		r.idle = r.idle[:n-1]
		r.mu.Unlock()
		return c, nil
	}
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("sqlite reader: closed")
	}
	return openSQLiteConn(r.name)
}

// put keeps c for the next query, up to the pool's idle bound, or closes
// it.
func (r *sqliteReader) put(c *sqliteConn) {
	r.mu.Lock()
	if r.closed || len(r.idle) >= maxIdleConns {
		r.mu.Unlock()
		c.close()
		return
	}
	r.idle = append(r.idle, c)
	r.mu.Unlock()
}

// close closes the idle connections; those in use close when they are
// put back.
func (r *sqliteReader) close() {
	r.mu.Lock()
	idle := r.idle
	r.idle, r.closed = nil, true
	r.mu.Unlock()
	for _, c := range idle {
		c.close()
	}
}

// sqliteError is an error the engine returned.
type sqliteError struct {
	op   string
	code int32
	msg  string
}

func (e *sqliteError) Error() string {
	return "sqlite " + e.op + ": " + e.msg + " (" + strconv.Itoa(int(e.code)) + ")"
}

// openSQLiteConn opens a read connection to the file name.
func openSQLiteConn(name string) (*sqliteConn, error) {
	c := &sqliteConn{tls: libc.NewTLS(), stmts: map[string]uintptr{}}
	zName, err := libc.CString(name)
	if err != nil {
		c.tls.Close()
		return nil, err
	}
	ppDb := c.tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	rc := sqlite3.Xsqlite3_open_v2(c.tls, zName, ppDb,
		sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_NOMUTEX|sqlite3.SQLITE_OPEN_URI, 0)
	c.db = *(*uintptr)(cMemory(ppDb))
	c.tls.Free(int(unsafe.Sizeof(uintptr(0))))
	libc.Xfree(c.tls, zName)
	if rc != sqlite3.SQLITE_OK {
		err := c.err("open", rc)
		c.close()
		return nil, err
	}
	sqlite3.Xsqlite3_busy_timeout(c.tls, c.db, sqliteBusyTimeoutMS)
	for _, p := range sqliteReaderPragmas {
		if err := c.exec(p); err != nil {
			c.close()
			return nil, err
		}
	}
	return c, nil
}

// exec runs a statement that returns no rows.
func (c *sqliteConn) exec(query string) error {
	st, err := c.prepare(query, 0)
	if err != nil {
		return err
	}
	defer sqlite3.Xsqlite3_finalize(c.tls, st)
	for {
		switch rc := sqlite3.Xsqlite3_step(c.tls, st); rc {
		case sqlite3.SQLITE_ROW:
		case sqlite3.SQLITE_DONE:
			return nil
		default:
			return c.err("exec", rc)
		}
	}
}

// prepare compiles query, whose parameters must be $1, $2, ... in order,
// so that the n-th argument binds to index n.
func (c *sqliteConn) prepare(query string, flags uint32) (uintptr, error) {
	zSQL, err := libc.CString(query)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(c.tls, zSQL)
	ppStmt := c.tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	defer c.tls.Free(int(unsafe.Sizeof(uintptr(0))))
	if rc := sqlite3.Xsqlite3_prepare_v3(c.tls, c.db, zSQL, -1, flags, ppStmt, 0); rc != sqlite3.SQLITE_OK {
		return 0, c.err("prepare", rc)
	}
	st := *(*uintptr)(cMemory(ppStmt))
	for i := int32(1); i <= sqlite3.Xsqlite3_bind_parameter_count(c.tls, st); i++ {
		if name := libc.GoString(sqlite3.Xsqlite3_bind_parameter_name(c.tls, st, i)); name != "$"+strconv.Itoa(int(i)) {
			sqlite3.Xsqlite3_finalize(c.tls, st)
			return 0, fmt.Errorf("sqlite reader: parameter %d of %q is %q, want $%d", i, query, name, i)
		}
	}
	return st, nil
}

// statement returns the prepared statement of query, preparing it on first
// use; once maxStmts are kept, a new text is prepared for the one query.
func (c *sqliteConn) statement(query string) (st uintptr, keep bool, err error) {
	if st, ok := c.stmts[query]; ok {
		return st, true, nil
	}
	keep = len(c.stmts) < maxStmts
	var flags uint32
	if keep {
		flags = sqlite3.SQLITE_PREPARE_PERSISTENT
	}
	st, err = c.prepare(query, flags)
	if err != nil {
		return 0, false, err
	}
	if keep {
		c.stmts[query] = st
	}
	return st, keep, nil
}

// query runs query on c; see sqliteReader.query.
func (c *sqliteConn) query(ctx context.Context, query string, args []int64, row readerRow) error {
	st, keep, err := c.statement(query)
	if err != nil {
		return err
	}
	if keep {
		// Ends the statement's read transaction whichever way the rows
		// end; the bindings are all replaced by the next query.
		defer sqlite3.Xsqlite3_reset(c.tls, st)
	} else {
		defer sqlite3.Xsqlite3_finalize(c.tls, st)
	}
	for i, a := range args {
		if rc := sqlite3.Xsqlite3_bind_int64(c.tls, st, int32(i+1), a); rc != sqlite3.SQLITE_OK {
			return c.err("bind", rc)
		}
	}
	done := ctx.Done()
	for {
		if done != nil {
			select {
			case <-done:
				return ctx.Err()
			default:
			}
		}
		switch rc := sqlite3.Xsqlite3_step(c.tls, st); rc {
		case sqlite3.SQLITE_ROW:
			var blob []byte
			if p := sqlite3.Xsqlite3_column_blob(c.tls, st, 0); p != 0 {
				blob = unsafe.Slice((*byte)(cMemory(p)), sqlite3.Xsqlite3_column_bytes(c.tls, st, 0))
			}
			if err := row(blob, sqlite3.Xsqlite3_column_int64(c.tls, st, 1)); err != nil {
				return err
			}
		case sqlite3.SQLITE_DONE:
			return nil
		default:
			return c.err("step", rc)
		}
	}
}

// cMemory returns a pointer to the engine's memory at address p, which the
// engine allocated outside the Go heap (the Go garbage collector neither
// moves nor frees it).
func cMemory(p uintptr) unsafe.Pointer { return unsafe.Add(nil, p) }

// err returns the engine's error for result code rc.
func (c *sqliteConn) err(op string, rc int32) error {
	msg := "out of memory"
	if c.db != 0 {
		msg = libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db))
	}
	return &sqliteError{op: op, code: rc, msg: msg}
}

// close finalizes c's statements and closes it.
func (c *sqliteConn) close() {
	for q, st := range c.stmts {
		sqlite3.Xsqlite3_finalize(c.tls, st)
		delete(c.stmts, q)
	}
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	c.tls.Close()
}

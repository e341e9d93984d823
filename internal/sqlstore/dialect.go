package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// Every difference between SQLite and PostgreSQL lives in the dialect
// files: how a connection is opened and set up, how Migrate excludes other
// processes, and how a driver's error is classified. This one holds what
// both share; dialect_sqlite.go and dialect_postgres.go each engine's own.
// The schema and every query are shared text using $n placeholders, which
// modernc's SQLite accepts too.

// Dialect names returned by DB.Dialect.
const (
	dialectSQLite   = "sqlite"
	dialectPostgres = "postgres"
)

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
	// isBusy reports whether err is the database's write lock still held
	// by another process when the wait for it ran out (SQLite's
	// busy_timeout); PostgreSQL waits for its row locks.
	isBusy(err error) bool
	// isFull reports whether err is the database refusing a write for
	// want of disk space.
	isFull(err error) bool

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

	// fold is the SQL expression that folds the text expr for a
	// case-insensitive comparison of whole values, as foldText does.
	fold(expr string) string

	// checkText reports a database whose text the fold cannot fold as
	// foldText does.
	checkText(ctx context.Context, db *sql.DB) error

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

	// skipLocked ends a query that picks rows of the table (or alias) of
	// to claim: on PostgreSQL it locks them, skipping rows another
	// transaction is claiming; SQLite's writes are serial and need
	// nothing.
	skipLocked(of string) string
	// forUpdate ends a query that reads a row its transaction will
	// change: on PostgreSQL it locks the row, so a concurrent change waits
	// and then reads what this one wrote; on SQLite the write transaction
	// already holds the database's one write lock.
	forUpdate() string

	// lockPayouts makes a payout run exclude every other until its
	// transaction ends.
	lockPayouts(ctx context.Context, tx *sql.Tx) error
}

// bulkLoad is what an import does around a bulk load.
type bulkLoad struct {
	finish  []string // run in the transaction before its commit
	restore []string // run on the connection after the transaction
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
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, q := range drop {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
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

package sqlstore

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// postgresReader runs the transactions' reads on PostgreSQL through pgx's
// own interface, on a connection of the database/sql pool (sql.Conn.Raw),
// and hands each row's values over as pgx received them, without copying
// them.
//
// Why: through database/sql, each row was converted to driver values (a
// copy of the details), then assigned to the scan targets, each step with
// its own locks and checks; on a one-day list that was a fifth of the
// server's CPU. The pool, its limits and its metrics stay database/sql's.
type postgresReader struct {
	db *sql.DB
}

// The OIDs of the two columns a transaction read returns.
const (
	oidBytea = 17
	oidInt8  = 20
)

// query runs query with args as $1, $2, ... and calls row for each row
// until the rows end, row returns an error, or ctx is done; see
// transactionReader.
func (r postgresReader) query(ctx context.Context, query string, args []int64, row readerRow) error {
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres reader: unexpected driver connection %T", driverConn)
		}
		qargs := make([]any, len(args))
		for i, a := range args {
			qargs[i] = a
		}
		rows, err := c.Conn().Query(ctx, query, qargs...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var scratch []byte // a text-format bytea, decoded
		for rows.Next() {
			fields, values := rows.FieldDescriptions(), rows.RawValues()
			if len(fields) != 2 || len(values) != 2 {
				return fmt.Errorf("postgres reader: %d columns, want 2", len(values))
			}
			blob, err := byteaValue(fields[0].DataTypeOID, fields[0].Format, values[0], &scratch)
			if err != nil {
				return err
			}
			n, err := int8Value(fields[1].DataTypeOID, fields[1].Format, values[1])
			if err != nil {
				return err
			}
			if err := row(blob, n); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// close does nothing: the connections are the pool's.
func (postgresReader) close() {}

// byteaValue returns a bytea column's bytes. pgx asks for binary results
// when it knows the statement's columns, as it does with its default
// statement cache; text arrives through poolers that need the simple
// protocol, as hex ("\x0a1b...").
func byteaValue(oid uint32, format int16, v []byte, scratch *[]byte) ([]byte, error) {
	if oid != oidBytea {
		return nil, fmt.Errorf("postgres reader: column of type %d, want bytea", oid)
	}
	if format == pgx.BinaryFormatCode {
		return v, nil
	}
	if len(v) < 2 || v[0] != '\\' || v[1] != 'x' {
		return nil, fmt.Errorf("postgres reader: bytea text is not hex")
	}
	n := hex.DecodedLen(len(v) - 2)
	if cap(*scratch) < n {
		*scratch = make([]byte, n)
	}
	b := (*scratch)[:n]
	if _, err := hex.Decode(b, v[2:]); err != nil {
		return nil, fmt.Errorf("postgres reader: bytea: %w", err)
	}
	return b, nil
}

// int8Value returns a bigint column's value, binary or text.
func int8Value(oid uint32, format int16, v []byte) (int64, error) {
	if oid != oidInt8 {
		return 0, fmt.Errorf("postgres reader: column of type %d, want bigint", oid)
	}
	if format == pgx.BinaryFormatCode {
		if len(v) != 8 {
			return 0, fmt.Errorf("postgres reader: bigint of %d bytes", len(v))
		}
		return int64(binary.BigEndian.Uint64(v)), nil
	}
	return strconv.ParseInt(string(v), 10, 64)
}

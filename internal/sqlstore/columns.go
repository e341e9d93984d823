package sqlstore

import (
	"fmt"

	"github.com/afftrack/afftrack"
)

// columns converts the values of a row scanned into interface values, as
// the drivers return them: int64 for every integer column on both engines,
// string for text, bool for a PostgreSQL BOOLEAN and int64 for SQLite's,
// nil for NULL. Converting in Go with a type switch skips database/sql's
// reflective conversions. The first value of an unexpected type is
// remembered and reported by err, so a schema that drifted from the code
// fails the read instead of yielding zeros.
type columns struct {
	vals []any
	bad  int // 1 + the position of the first unexpected value; 0 if none
}

// fail remembers that the value at position i has an unexpected type.
func (c *columns) fail(i int) {
	if c.bad == 0 {
		c.bad = i + 1
	}
}

// err returns the error of the first unexpected value converted since the
// last call, and forgets it.
func (c *columns) err() error {
	if c.bad == 0 {
		return nil
	}
	i := c.bad - 1
	c.bad = 0
	return fmt.Errorf("column %d: unexpected %T value", i, c.vals[i])
}

// int reads an integer column that is never NULL.
func (c *columns) int(i int) int64 {
	if v, ok := c.vals[i].(int64); ok {
		return v
	}
	c.fail(i)
	return 0
}

// nullInt reads a nullable integer column.
func (c *columns) nullInt(i int) afftrack.Null[int64] {
	switch v := c.vals[i].(type) {
	case int64:
		return afftrack.Null[int64]{Value: v, Valid: true}
	case nil:
		return afftrack.Null[int64]{}
	}
	c.fail(i)
	return afftrack.Null[int64]{}
}

// text reads a text column that is never NULL.
func (c *columns) text(i int) string {
	switch v := c.vals[i].(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	c.fail(i)
	return ""
}

// nullText reads a nullable text column.
func (c *columns) nullText(i int) afftrack.Null[string] {
	switch v := c.vals[i].(type) {
	case string:
		return afftrack.Null[string]{Value: v, Valid: true}
	case []byte:
		return afftrack.Null[string]{Value: string(v), Valid: true}
	case nil:
		return afftrack.Null[string]{}
	}
	c.fail(i)
	return afftrack.Null[string]{}
}

// bool reads a BOOLEAN column that is never NULL.
func (c *columns) bool(i int) bool {
	switch v := c.vals[i].(type) {
	case bool:
		return v
	case int64:
		return v != 0
	}
	c.fail(i)
	return false
}

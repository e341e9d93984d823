// Package afftrack holds the domain of an affiliate-network tracking service:
// merchants, affiliates, their API keys, transactions, banners and invoices,
// and the interfaces through which the service reads and writes them.
//
// The package imports only the standard library. Technology (SQL, HTTP,
// Redis) lives in internal packages that implement or consume the
// interfaces declared here.
//
// Datetimes are wall-clock times of the network's time zone. They are
// carried as time.Time values in UTC whose fields are that wall clock, so
// they compare, store and print without any zone arithmetic. WallClock
// turns an instant into such a value.
package afftrack

import "time"

// Clock returns the current instant. Code that stamps times takes a Clock
// so tests can fix the time.
type Clock func() time.Time

// Null is a value that may be absent, as a nullable field of the interface
// is. The zero Null is null.
type Null[T any] struct {
	Value T
	Valid bool
}

// Some returns a non-null Null holding v.
func Some[T any](v T) Null[T] { return Null[T]{Value: v, Valid: true} }

// WallClock returns the wall-clock reading of instant t in loc, carried in
// UTC as the package's datetimes are.
func WallClock(t time.Time, loc *time.Location) time.Time {
	t = t.In(loc)
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return time.Date(y, mo, d, h, mi, s, t.Nanosecond()/1e6*1e6, time.UTC)
}

// MaxID is the largest id a record may be given (an import's, or
// `account create --id`). Above 2^53 an id loses digits in the many JSON
// clients that read numbers as doubles (JavaScript's among them), and an
// id at the int64 bound would leave the service no next id for what it
// creates itself (a conversion's transaction, an invoice, a banner group).
const MaxID int64 = 1<<53 - 1

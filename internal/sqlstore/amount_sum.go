package sqlstore

import (
	"math/bits"

	"github.com/afftrack/afftrack"
)

// sumAmount is the SQL of an exact sum of an amount column, as two
// BIGINT columns that amountSum.addParts puts back together: the sum of
// each amount's upper 32 bits and the sum of its lower 32. SQLite's sum()
// of integers fails as soon as its running total passes the int64 range,
// even when the total it is on the way to fits (the largest sale, then a
// refund of it), and so did a report or a payout run there that
// PostgreSQL, which sums a BIGINT as a NUMERIC, answered. Each part of a
// part-sum stays below 2^32 in magnitude, so neither sum can overflow
// before some two billion rows, on either engine; the shifts are the
// same arithmetic on both.
//
// The columns are named after column: sale_value gives sale_value_hi
// and sale_value_lo.
func sumAmount(column string) string {
	return "CAST(SUM(" + column + " >> 32) AS BIGINT) AS " + column + "_hi, CAST(SUM(" + column +
		" & 4294967295) AS BIGINT) AS " + column + "_lo"
}

// amountParts is the two columns of one sumAmount.
type amountParts struct{ hi, lo int64 }

// amountSum adds amounts in 128 bits, so a sum is exact whatever the
// order and size of its parts, and only its final value is checked
// against the int64 range of an amount.
type amountSum struct {
	hi int64
	lo uint64
}

// add adds v.
func (s *amountSum) add(v int64) { s.add128(v>>63, uint64(v)) }

// addParts adds high·2^32 + low, the two columns of sumAmount.
func (s *amountSum) addParts(high, low int64) {
	s.add128(high>>32, uint64(high)<<32)
	s.add(low)
}

func (s *amountSum) add128(hi int64, lo uint64) {
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, lo, 0)
	s.hi += hi + int64(carry)
}

// money returns the sum, or false when it is beyond an amount's range.
func (s amountSum) money() (afftrack.Money, bool) {
	if s.hi != int64(s.lo)>>63 {
		return 0, false
	}
	return afftrack.Money(s.lo), true
}

// negative reports whether the sum is below 0, in range or not.
func (s amountSum) negative() bool { return s.hi < 0 }

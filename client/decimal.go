package client

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
)

// Decimal is an exact decimal number as the API writes it: money with
// four fractional digits (100.0000), item amounts and report sums with
// two (50.00). It keeps the text of the JSON number, so no digit is lost
// to binary floating point; the empty Decimal is "no value" and is left
// out of request bodies.
type Decimal string

// ParseDecimal checks that s is a plain decimal number (an optional
// minus, digits, and an optional fraction) and returns it as a Decimal.
// Exponents are refused: the API never writes them, and allowing them
// would make two spellings of one amount.
func ParseDecimal(s string) (Decimal, error) {
	if !isDecimal(s) {
		return "", fmt.Errorf("client: %q is not a decimal number", s)
	}
	return Decimal(s), nil
}

// MustDecimal is ParseDecimal for constants in code: it panics on a
// malformed s.
func MustDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// String returns the number as the server wrote it, trailing zeros
// included, so it can be shown or stored without reformatting.
func (d Decimal) String() string { return string(d) }

// Rat returns d as an exact rational number, for arithmetic; nil for the
// empty or a malformed Decimal.
func (d Decimal) Rat() *big.Rat {
	if !isDecimal(string(d)) {
		return nil
	}
	r, ok := new(big.Rat).SetString(string(d))
	if !ok {
		return nil
	}
	return r
}

// Cmp compares d and e by value, exactly: 10.50 equals 10.5000. It
// returns -1, 0 or +1; a malformed or empty operand counts as zero.
func (d Decimal) Cmp(e Decimal) int {
	a, b := d.Rat(), e.Rat()
	if a == nil {
		a = new(big.Rat)
	}
	if b == nil {
		b = new(big.Rat)
	}
	return a.Cmp(b)
}

// Float64 returns the nearest float64. It rounds: use it for charts, not
// for sums that must balance.
func (d Decimal) Float64() float64 {
	f, _ := strconv.ParseFloat(string(d), 64)
	return f
}

// MarshalJSON writes d as a JSON number literal, digit for digit, and the
// empty Decimal as null, so a zero struct of this package still encodes.
func (d Decimal) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("null"), nil
	}
	if !isDecimal(string(d)) {
		return nil, fmt.Errorf("client: %q is not a decimal number", string(d))
	}
	return []byte(d), nil
}

// errNotDecimal is what UnmarshalJSON says of a JSON value that is not a
// plain number.
var errNotDecimal = errors.New("client: a Decimal must be a JSON number without an exponent")

// UnmarshalJSON reads a JSON number literal as it is written; null
// leaves d unchanged, as encoding/json does for other types.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if !isDecimal(string(b)) {
		return errNotDecimal
	}
	*d = Decimal(b)
	return nil
}

// isDecimal reports whether s is -?digits(.digits)?, with no leading
// plus, no exponent and digits on both sides of a point.
func isDecimal(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	digits := func() int {
		n := 0
		for n < len(s) && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		s = s[n:]
		return n
	}
	if digits() == 0 {
		return false
	}
	if s == "" {
		return true
	}
	if s[0] != '.' {
		return false
	}
	s = s[1:]
	return digits() > 0 && s == ""
}

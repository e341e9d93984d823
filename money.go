package afftrack

import (
	"math"
	"strconv"
)

// Money is an exact transaction- or invoice-level amount in ten-thousandths
// of the currency unit: 100.0000 is Money(1000000).
type Money int64

// ItemMoney is an exact item-level amount in hundredths of the currency
// unit: 50.00 is ItemMoney(5000).
type ItemMoney int64

// MoneyScale and ItemMoneyScale are the fractional digits of Money and
// ItemMoney, in input and in output.
const (
	MoneyScale     = 4
	ItemMoneyScale = 2
)

// Add returns m+n, or false when the sum is beyond Money's range.
func (m Money) Add(n Money) (Money, bool) {
	v, ok := addInt64(int64(m), int64(n))
	return Money(v), ok
}

// String formats m with exactly four fractional digits.
func (m Money) String() string { return string(AppendFixed(nil, int64(m), MoneyScale)) }

// String formats m with exactly two fractional digits.
func (m ItemMoney) String() string { return string(AppendFixed(nil, int64(m), ItemMoneyScale)) }

// ParseMoney parses a JSON number with at most four fractional digits.
func ParseMoney(s string) (Money, error) {
	v, err := ParseDecimal(s, MoneyScale)
	return Money(v), err
}

// ParseItemMoney parses a JSON number with at most two fractional digits.
func ParseItemMoney(s string) (ItemMoney, error) {
	v, err := ParseDecimal(s, ItemMoneyScale)
	return ItemMoney(v), err
}

// AppendFixed appends v, a count of 10^-scale units, as a decimal with
// exactly scale fractional digits (scale >= 1).
func AppendFixed(b []byte, v int64, scale int) []byte {
	u := uint64(v)
	if v < 0 {
		b = append(b, '-')
		u = -u // two's complement: exact even for math.MinInt64
	}
	var buf [24]byte
	i := len(buf)
	for d := 0; d < scale; d++ {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
	}
	i--
	buf[i] = '.'
	for {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	return append(b, buf[i:]...)
}

// ParseDecimal parses s, the text of a JSON number, into a count of
// 10^-scale units. It fails with a message fit for a client when s is not
// a JSON number, has more than scale fractional digits (after applying any
// exponent), or does not fit in an int64.
func ParseDecimal(s string, scale int) (int64, error) {
	bad := func(why string) error { return Errorf(EINVALID, "%q %s", s, why) }
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	// Collect the significant digits and where the decimal point falls.
	var digits []byte
	var stack [40]byte
	digits = stack[:0]
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		digits = append(digits, s[i])
		i++
	}
	if i == intStart || (s[intStart] == '0' && i-intStart > 1) {
		return 0, bad("is not a number")
	}
	frac := 0
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			digits = append(digits, s[i])
			i++
		}
		if i == start {
			return 0, bad("is not a number")
		}
		frac = i - start
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		start := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || i-start > 6 {
			return 0, bad("is not a number")
		}
		e, err := strconv.Atoi(s[start:])
		if err != nil {
			return 0, bad("is not a number")
		}
		exp = e
		i = len(s)
	}
	if i != len(s) {
		return 0, bad("is not a number")
	}
	// value = digits * 10^(exp-frac); we want digits * 10^(exp-frac+scale).
	shift := exp - frac + scale
	// Trailing zeros beyond the scale are harmless: 1.50000 is 1.5.
	for shift < 0 && len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		shift++
	}
	if shift < 0 {
		if allZero(digits) {
			return 0, nil
		}
		return 0, bad("has more than " + strconv.Itoa(scale) + " fractional digits")
	}
	var u uint64
	for _, c := range digits {
		if u > (math.MaxUint64-9)/10 {
			return 0, bad("is out of range")
		}
		u = u*10 + uint64(c-'0')
	}
	for ; shift > 0 && u != 0; shift-- {
		if u > math.MaxUint64/10 {
			return 0, bad("is out of range")
		}
		u *= 10
	}
	if u > math.MaxInt64 {
		return 0, bad("is out of range")
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
}

func allZero(digits []byte) bool {
	for _, c := range digits {
		if c != '0' {
			return false
		}
	}
	return true
}

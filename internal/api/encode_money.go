package api

import (
	"math/bits"

	"github.com/afftrack/afftrack"
)

// The integers and amounts of a response are formatted here rather than by
// strconv and afftrack.AppendFixed, which build digits aside and copy
// them: these work out the length first and write the digits in place, two
// at a time.

// pairs holds the two digits of each number below 100, so digits are
// written two at a time. It has 256 entries so that an index converted to
// uint8 needs no bounds check; the ones past 99 are never used.
var pairs = func() (p [256][2]byte) {
	for i := range 100 {
		p[i] = [2]byte{byte('0' + i/10), byte('0' + i%10)}
	}
	return p
}()

// grow returns b with room for n more bytes, so a formatter can write
// its digits in place rather than build them aside and copy them.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		return growSlow(b, n)
	}
	return b
}

// growSlow is grow's rare path, kept out of line so the formatters that
// inline grow do not carry its register spills.
//
//go:noinline
func growSlow(b []byte, n int) []byte {
	return append(b[:cap(b)], make([]byte, n)...)[:len(b)]
}

// pow10 holds the powers of ten an uint64 can hold.
var pow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
	1e17, 1e18, 1e19}

// decimalLen returns the number of decimal digits of u: its bit length
// times log10(2), plus one if u reaches the next power of ten.
func decimalLen(u uint64) int {
	u |= 1 // 0 has a digit too; no power of ten above 1 is odd, so no other count changes
	n := bits.Len64(u) * 1233 >> 12
	if u >= pow10[n] {
		n++
	}
	return n
}

// putDigits writes the decimal digits of u at the end of d, which is at
// least decimalLen(u) long, two at a time from the right.
func putDigits(d []byte, u uint64) {
	i := len(d)
	for u >= 100 {
		q := u / 100
		i -= 2
		*(*[2]byte)(d[i:]) = pairs[uint8(u-q*100)]
		u = q
	}
	if u >= 10 {
		*(*[2]byte)(d[i-2:]) = pairs[uint8(u)]
	} else {
		d[i-1] = byte('0' + u)
	}
}

// abs returns the magnitude of v, exact even for math.MinInt64 (two's
// complement), and 1 for a negative v, the length of its sign.
func abs(v int64) (uint64, int) {
	if v < 0 {
		return -uint64(v), 1
	}
	return uint64(v), 0
}

// appendUint appends u in decimal, as strconv.AppendUint does, with the
// digits written in place.
func appendUint(b []byte, u uint64) []byte {
	n := decimalLen(u)
	l := len(b)
	b = grow(b, n)
	putDigits(b[l:l+n], u)
	return b[:l+n]
}

// appendInt appends v in decimal, as strconv.AppendInt does. The sign is
// written first and overwritten by a digit when v is not negative, which
// saves a branch.
func appendInt(b []byte, v int64) []byte {
	u, neg := abs(v)
	n := neg + decimalLen(u)
	l := len(b)
	b = grow(b, n)
	d := b[l : l+n]
	d[0] = '-'
	putDigits(d, u)
	return b[:l+n]
}

// appendMoney appends a transaction- or invoice-level amount with four
// fractional digits, as afftrack.AppendFixed does, the digits written in
// place two at a time.
func appendMoney(b []byte, m afftrack.Money) []byte {
	u, neg := abs(int64(m))
	q, f := u/10000, u%10000
	n := neg + decimalLen(q) + 5
	l := len(b)
	b = grow(b, n)
	d := b[l : l+n]
	d[0] = '-'
	putDigits(d[:n-5], q)
	d[n-5] = '.'
	*(*[2]byte)(d[n-4:]) = pairs[uint8(f/100)]
	*(*[2]byte)(d[n-2:]) = pairs[uint8(f%100)]
	return b[:l+n]
}

// appendItemMoney appends an item-level amount with two fractional digits.
func appendItemMoney(b []byte, m afftrack.ItemMoney) []byte {
	u, neg := abs(int64(m))
	q := u / 100
	n := neg + decimalLen(q) + 3
	l := len(b)
	b = grow(b, n)
	d := b[l : l+n]
	d[0] = '-'
	putDigits(d[:n-3], q)
	d[n-3] = '.'
	*(*[2]byte)(d[n-2:]) = pairs[uint8(u-q*100)]
	return b[:l+n]
}

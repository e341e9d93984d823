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
// written two at a time.
var pairs = func() (p [100][2]byte) {
	for i := range p {
		p[i] = [2]byte{byte('0' + i/10), byte('0' + i%10)}
	}
	return p
}()

// grow returns b with room for n more bytes, so a formatter can write
// its digits in place rather than build them aside and copy them.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		b = append(b[:cap(b)], make([]byte, n)...)[:len(b)]
	}
	return b
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

// putDigits writes the decimal digits of u to fill d, which is
// decimalLen(u) long, two at a time from the right.
func putDigits(d []byte, u uint64) {
	i := len(d)
	for u >= 100 {
		q := u / 100
		i -= 2
		*(*[2]byte)(d[i:]) = pairs[u-q*100]
		u = q
	}
	if u >= 10 {
		*(*[2]byte)(d[i-2:]) = pairs[u]
	} else {
		d[i-1] = byte('0' + u)
	}
}

// appendUint appends u in decimal, as strconv.AppendUint does, with the
// digits written in place.
func appendUint(b []byte, u uint64) []byte {
	n := decimalLen(u)
	l := len(b)
	b = grow(b, n)[:l+n]
	putDigits(b[l:], u)
	return b
}

// appendInt appends v in decimal, as strconv.AppendInt does.
func appendInt(b []byte, v int64) []byte {
	if v < 0 {
		b = append(b, '-')
		return appendUint(b, -uint64(v)) // two's complement: exact even for math.MinInt64
	}
	return appendUint(b, uint64(v))
}

// appendMoney appends a transaction- or invoice-level amount with four
// fractional digits, as afftrack.AppendFixed does, the digits written in
// place two at a time.
func appendMoney(b []byte, m afftrack.Money) []byte {
	u := uint64(m)
	if m < 0 {
		b = append(b, '-')
		u = -u
	}
	q, f := u/10000, u%10000
	n := decimalLen(q)
	l := len(b)
	b = grow(b, n+5)[:l+n+5]
	d := b[l:]
	putDigits(d[:n], q)
	d[n] = '.'
	*(*[2]byte)(d[n+1:]) = pairs[f/100]
	*(*[2]byte)(d[n+3:]) = pairs[f%100]
	return b
}

// appendItemMoney appends an item-level amount with two fractional digits.
func appendItemMoney(b []byte, m afftrack.ItemMoney) []byte {
	u := uint64(m)
	if m < 0 {
		b = append(b, '-')
		u = -u
	}
	q := u / 100
	n := decimalLen(q)
	l := len(b)
	b = grow(b, n+3)[:l+n+3]
	d := b[l:]
	putDigits(d[:n], q)
	d[n] = '.'
	*(*[2]byte)(d[n+1:]) = pairs[u-q*100]
	return b
}

package api

import "time"

// Datetimes between these instants (years 1 to 9999) take the fast path.
const (
	minFastUnix = -62135596800 // 0001-01-01T00:00:00
	maxFastUnix = 253402300799 // 9999-12-31T23:59:59
	daysTo1970  = 719162       // days from 0001-01-01 to 1970-01-01
)

// appendDateTime appends t as the contract's datetime,
// YYYY-MM-DDThh:mm:ss.fff: always three fractional digits and no zone,
// as t already carries the network's wall clock.
//
// A UTC value of years 1 to 9999, which is every datetime the stores
// produce, is formatted from its Unix seconds by civilDate, which costs a
// few multiplications, instead of time.Time's Date and Clock, which each
// redo the calendar arithmetic; the digits are written in pairs straight
// into b.
func appendDateTime(b []byte, t time.Time) []byte {
	sec := t.Unix()
	if t.Location() != time.UTC || sec < minFastUnix || sec > maxFastUnix {
		return appendDateTimeSlow(b, t)
	}
	u := uint64(sec - minFastUnix)
	year, month, day := civilDate(int32(u/86400) - daysTo1970)
	sod := uint32(u % 86400)
	minutes := sod / 60
	ms := uint32(t.Nanosecond()) / 1e6

	n := len(b)
	b = grow(b, 23)
	d := b[n : n+23]
	*(*[2]byte)(d[0:]) = pairs[uint8(year/100)]
	*(*[2]byte)(d[2:]) = pairs[uint8(year%100)]
	d[4] = '-'
	*(*[2]byte)(d[5:]) = pairs[uint8(month)]
	d[7] = '-'
	*(*[2]byte)(d[8:]) = pairs[uint8(day)]
	d[10] = 'T'
	*(*[2]byte)(d[11:]) = pairs[uint8(minutes/60)]
	d[13] = ':'
	*(*[2]byte)(d[14:]) = pairs[uint8(minutes%60)]
	d[16] = ':'
	*(*[2]byte)(d[17:]) = pairs[uint8(sod%60)]
	d[19] = '.'
	d[20] = byte('0' + ms/100)
	*(*[2]byte)(d[21:]) = pairs[uint8(ms%100)]
	return b[:n+23]
}

// civilDate returns the proleptic Gregorian date of a day counted from
// 1970-01-01, for years 1 to 9999, by the algorithm of Neri and Schneider
// ("Euclidean affine functions and their application to calendar
// algorithms", 2022): a handful of multiplications and shifts, no
// division by a variable and no branch but one.
func civilDate(days int32) (year, month, day uint32) {
	const (
		s = 82                // 400-year eras the count is shifted by, so it is never negative
		k = 719468 + 146097*s // 0000-03-01 shifted by s eras
		l = 400 * s
	)
	n := uint32(days + k)
	n1 := 4*n + 3
	century := n1 / 146097
	n2 := n1%146097 | 3 // 4 × day of the century + 3
	p := uint64(2939745) * uint64(n2)
	yearOfCentury := uint32(p >> 32)
	dayOfYear := uint32(p) / 2939745 / 4 // counted from March 1st
	n3 := 2141*dayOfYear + 197913
	month, day = n3>>16, (n3&0xffff)/2141+1
	year = 100*century + yearOfCentury - l
	if dayOfYear >= 306 { // January or February: of the next calendar year
		year++
		month -= 12
	}
	return year, month, day
}

// appendDateTimeSlow is appendDateTime for any time.Time: another zone,
// or a year outside 1 to 9999.
func appendDateTimeSlow(b []byte, t time.Time) []byte {
	year, month, day := t.Date()
	hour, min, sec := t.Clock()
	if year < 0 {
		b = append(b, '-')
		year = -year
	}
	if year < 1000 {
		b = append(b, '0')
		if year < 100 {
			b = append(b, '0')
			if year < 10 {
				b = append(b, '0')
			}
		}
	}
	b = appendInt(b, int64(year))
	b = append(b, '-')
	b = append2(b, int(month))
	b = append(b, '-')
	b = append2(b, day)
	b = append(b, 'T')
	b = append2(b, hour)
	b = append(b, ':')
	b = append2(b, min)
	b = append(b, ':')
	b = append2(b, sec)
	ms := t.Nanosecond() / 1e6
	return append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
}

// append2 appends a value below 100 as two digits.
func append2(b []byte, v int) []byte {
	p := pairs[uint8(v)]
	return append(b, p[0], p[1])
}

package afftrack

import "time"

// DateTimeInput is a datetime as a client or an import file wrote it: a
// wall clock, and the zone offset if one was written.
type DateTimeInput struct {
	Wall   time.Time // the written fields, carried in UTC
	Zoned  bool      // a Z or ±hh:mm followed the time
	Offset int       // seconds east of UTC, when Zoned
}

// In returns the datetime as a wall clock of loc: a zoned input is
// converted to loc, an unzoned one is taken as already in loc.
func (d DateTimeInput) In(loc *time.Location) time.Time {
	if !d.Zoned {
		return d.Wall
	}
	return WallClock(d.Wall.Add(-time.Duration(d.Offset)*time.Second), loc)
}

// Date returns the date the input wrote, at midnight, ignoring its time
// and zone, as the contract wants of fromDate and toDate.
func (d DateTimeInput) Date() time.Time {
	y, m, day := d.Wall.Date()
	return time.Date(y, m, day, 0, 0, 0, 0, time.UTC)
}

// ParseDateTime parses the input form of a datetime: YYYY-MM-DD, optionally
// followed by T or one space and hh:mm, hh:mm:ss or hh:mm:ss.f (1 to 7
// fractional digits), optionally followed by Z or ±hh:mm. Fractions finer
// than a millisecond are truncated, as the service keeps milliseconds.
func ParseDateTime(s string) (DateTimeInput, error) {
	var in DateTimeInput
	p := dtReader{s: s, ok: true}
	year := p.digits(4)
	p.lit('-')
	month := p.digits(2)
	p.lit('-')
	day := p.digits(2)
	hour, min, sec, msec := 0, 0, 0, 0
	if p.more() {
		if !p.peek('T') {
			p.lit(' ')
		} else {
			p.lit('T')
		}
		hour = p.digits(2)
		p.lit(':')
		min = p.digits(2)
		if p.peek(':') {
			p.lit(':')
			sec = p.digits(2)
			if p.peek('.') {
				p.lit('.')
				msec = p.fraction()
			}
		}
		switch {
		case p.peek('Z'):
			p.lit('Z')
			in.Zoned = true
		case p.peek('+'), p.peek('-'):
			sign := 1
			if p.peek('-') {
				sign = -1
			}
			p.i++
			oh := p.digits(2)
			p.lit(':')
			om := p.digits(2)
			p.ok = p.ok && oh <= 23 && om <= 59
			in.Zoned = true
			in.Offset = sign * (oh*3600 + om*60)
		}
	}
	if !p.ok || p.more() || year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
		hour > 23 || min > 59 || sec > 59 {
		return DateTimeInput{}, Errorf(EINVALID, "%q is not a date; use YYYY-MM-DD or YYYY-MM-DDThh:mm:ss", s)
	}
	in.Wall = time.Date(year, time.Month(month), day, hour, min, sec, msec*1e6, time.UTC)
	return in, nil
}

// dtReader reads fixed-width fields from s. ok turns false at the first
// mismatch and stays false, so the caller checks it once at the end.
type dtReader struct {
	s  string
	i  int
	ok bool
}

func (p *dtReader) more() bool { return p.ok && p.i < len(p.s) }

func (p *dtReader) peek(c byte) bool { return p.more() && p.s[p.i] == c }

func (p *dtReader) lit(c byte) {
	if !p.peek(c) {
		p.ok = false
		return
	}
	p.i++
}

func (p *dtReader) digits(n int) int {
	v := 0
	for k := 0; k < n; k++ {
		if !p.more() || p.s[p.i] < '0' || p.s[p.i] > '9' {
			p.ok = false
			return 0
		}
		v = v*10 + int(p.s[p.i]-'0')
		p.i++
	}
	return v
}

// fraction reads 1 to 7 digits of a fraction of a second and returns its
// whole milliseconds.
func (p *dtReader) fraction() int {
	start, ms := p.i, 0
	for p.more() && p.s[p.i] >= '0' && p.s[p.i] <= '9' && p.i-start < 7 {
		if p.i-start < 3 {
			ms = ms*10 + int(p.s[p.i]-'0')
		}
		p.i++
	}
	n := p.i - start
	if n == 0 {
		p.ok = false
	}
	for ; n < 3; n++ {
		ms *= 10
	}
	return ms
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

package api

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestAppendDateTime(t *testing.T) {
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), "2000-01-01T00:00:00.000"},
		{time.Date(2024, 12, 31, 23, 59, 59, 999_999_999, time.UTC), "2024-12-31T23:59:59.999"},
		{time.Date(1, 2, 3, 4, 5, 6, 7_000_000, time.UTC), "0001-02-03T04:05:06.007"},
		{time.Date(999, 10, 11, 12, 13, 14, 50_000_000, time.UTC), "0999-10-11T12:13:14.050"},
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), "0001-01-01T00:00:00.000"},
		{time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC), "9999-12-31T23:59:59.999"},
		{time.Date(1969, 12, 31, 23, 59, 59, 999_000_000, time.UTC), "1969-12-31T23:59:59.999"},
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), "1970-01-01T00:00:00.000"},
		{time.Date(2000, 2, 29, 12, 0, 0, 0, time.UTC), "2000-02-29T12:00:00.000"},
		{time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC), "1900-03-01T00:00:00.000"},
		{time.Date(2100, 2, 28, 0, 0, 0, 0, time.UTC), "2100-02-28T00:00:00.000"},
		{time.UnixMilli(1_700_000_000_123).UTC(), "2023-11-14T22:13:20.123"},
		// Outside the fast path: a year the format cannot hold in four
		// digits, and a zone other than UTC, whose wall clock is written.
		{time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC), "0000-12-31T00:00:00.000"},
		{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "10000-01-01T00:00:00.000"},
		{time.Date(-5, 6, 7, 8, 9, 10, 0, time.UTC), "-0005-06-07T08:09:10.000"},
		{time.Date(2024, 1, 1, 9, 30, 0, 0, time.FixedZone("AEST", 10*3600)), "2024-01-01T09:30:00.000"},
	}
	for _, tt := range tests {
		t.Run("formats "+tt.want, func(t *testing.T) {
			if got := string(appendDateTime(nil, tt.in)); got != tt.want {
				t.Errorf("appendDateTime = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAppendDateTimeAgreesWithTimeFormat(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 20000 {
		in := time.UnixMilli(minFastUnix*1000 + rng.Int64N((maxFastUnix-minFastUnix+1)*1000)).UTC()
		if got, want := string(appendDateTime(nil, in)), in.Format(wireDateTime); got != want {
			t.Fatalf("appendDateTime(%v) = %q, want %q", in, got, want)
		}
	}
}

// TestCivilDateIsRightEveryDay walks the calendar from 0001-01-01 to
// 9999-12-31 a day at a time, the slow obvious way, and checks the fast
// arithmetic against it on every day.
func TestCivilDateIsRightEveryDay(t *testing.T) {
	daysIn := [13]uint32{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	year, month, day := uint32(1), uint32(1), uint32(1)
	for n := int32(-daysTo1970); year <= 9999; n++ {
		if y, m, d := civilDate(n); y != year || m != month || d != day {
			t.Fatalf("civilDate(%d) = %04d-%02d-%02d, want %04d-%02d-%02d", n, y, m, d, year, month, day)
		}
		last := daysIn[month]
		if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			last = 29
		}
		if day++; day > last {
			day, month = 1, month+1
			if month > 12 {
				month, year = 1, year+1
			}
		}
	}
}

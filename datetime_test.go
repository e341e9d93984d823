package afftrack_test

import (
	"testing"
	"time"

	"github.com/afftrack/afftrack"
)

func TestParseDateTime(t *testing.T) {
	utc := func(s string) time.Time {
		v, err := time.Parse("2006-01-02T15:04:05.000", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		in     string
		wall   string
		zoned  bool
		offset int
	}{
		{"2024-01-31", "2024-01-31T00:00:00.000", false, 0},
		{"2024-02-29T13:45", "2024-02-29T13:45:00.000", false, 0},
		{"2024-02-29 13:45:07", "2024-02-29T13:45:07.000", false, 0},
		{"2024-02-29T13:45:07.1", "2024-02-29T13:45:07.100", false, 0},
		{"2024-02-29T13:45:07.1234567", "2024-02-29T13:45:07.123", false, 0},
		{"2024-02-29T13:45:07Z", "2024-02-29T13:45:07.000", true, 0},
		{"2024-02-29T13:45+10:00", "2024-02-29T13:45:00.000", true, 36000},
		{"2024-02-29T13:45:07.5-03:30", "2024-02-29T13:45:07.500", true, -12600},
	}
	for _, tt := range tests {
		t.Run(tt.in+" is accepted", func(t *testing.T) {
			got, err := afftrack.ParseDateTime(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			want := afftrack.DateTimeInput{Wall: utc(tt.wall), Zoned: tt.zoned, Offset: tt.offset}
			if got != want {
				t.Errorf("ParseDateTime(%q) = %+v, want %+v", tt.in, got, want)
			}
		})
	}
	for _, in := range []string{
		"", "2024", "2024-1-01", "2024-13-01", "2023-02-29", "2024-00-10", "2024-01-32", "0000-01-01",
		"2024-01-01T", "2024-01-01T24:00", "2024-01-01T10:60", "2024-01-01T10:00:60", "2024-01-01T10",
		"2024-01-01T10:00:00.", "2024-01-01T10:00:00.12345678", "2024-01-01T10:00Z+", "2024-01-01Z",
		"2024-01-01T10:00+1000", "2024-01-01T10:00+24:00", "2024-01-01  10:00", "2024-01-01t10:00",
		" 2024-01-01", "2024-01-01 ", "２０２４-01-01",
	} {
		t.Run(in+" is rejected", func(t *testing.T) {
			if got, err := afftrack.ParseDateTime(in); err == nil {
				t.Errorf("ParseDateTime(%q) = %+v, want an error", in, got)
			} else if afftrack.ErrorCode(err) != afftrack.EINVALID {
				t.Errorf("error code = %s, want %s", afftrack.ErrorCode(err), afftrack.EINVALID)
			}
		})
	}
}

func TestDateTimeInputIn(t *testing.T) {
	sydney, err := time.LoadLocation("Australia/Sydney")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	in, _ := afftrack.ParseDateTime("2024-01-01T10:00:00Z")
	if got, want := in.In(sydney), time.Date(2024, 1, 1, 21, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("zoned input in Sydney = %v, want %v", got, want)
	}
	in, _ = afftrack.ParseDateTime("2024-01-01T10:00:00")
	if got, want := in.In(sydney), time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("unzoned input in Sydney = %v, want %v", got, want)
	}
}

func FuzzParseDateTime(f *testing.F) {
	for _, s := range []string{"2024-01-31", "2024-02-29T13:45:07.1234567+10:00", "2024-01-01 00:00Z", "9999-12-31T23:59:59.999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		in, err := afftrack.ParseDateTime(s)
		if err != nil {
			if afftrack.ErrorCode(err) != afftrack.EINVALID {
				t.Fatalf("error for %q has code %s", s, afftrack.ErrorCode(err))
			}
			return
		}
		if y := in.Wall.Year(); y < 1 || y > 9999 {
			t.Fatalf("%q parsed to year %d", s, y)
		}
		// Whatever parsed must re-parse to the same wall clock in the output form.
		back, err := afftrack.ParseDateTime(in.Wall.Format("2006-01-02T15:04:05.000"))
		if err != nil || !back.Wall.Equal(in.Wall) {
			t.Fatalf("%q: output form does not round-trip: %v %v", s, back, err)
		}
	})
}

package sqlstore

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
)

func TestPostgresReaderValues(t *testing.T) {
	t.Run("reads a bytea in either format", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			format int16
			in     string
			want   []byte
		}{
			{"binary", pgx.BinaryFormatCode, "\x00\xffab", []byte("\x00\xffab")},
			{"text, as hex", pgx.TextFormatCode, `\x00ff6162`, []byte("\x00\xffab")},
			{"empty text", pgx.TextFormatCode, `\x`, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var scratch []byte
				got, err := byteaValue(oidBytea, tc.format, []byte(tc.in), &scratch)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("bytes (-want +got):\n%s", diff)
				}
			})
		}
	})
	t.Run("reads a bigint in either format", func(t *testing.T) {
		for _, tc := range []struct {
			format int16
			in     string
			want   int64
		}{
			{pgx.BinaryFormatCode, "\xff\xff\xff\xff\xff\xff\xff\xfe", -2},
			{pgx.BinaryFormatCode, "\x00\x00\x00\x00\x00\x00\x01\x00", 256},
			{pgx.TextFormatCode, "-9223372036854775808", -1 << 63},
		} {
			got, err := int8Value(oidInt8, tc.format, []byte(tc.in))
			if err != nil || got != tc.want {
				t.Errorf("int8Value(%d, %q) = %d, %v, want %d", tc.format, tc.in, got, err, tc.want)
			}
		}
	})
	t.Run("refuses what is not the two columns' types and forms", func(t *testing.T) {
		var scratch []byte
		for name, err := range map[string]error{
			"a text column as bytea": func() error { _, err := byteaValue(25, pgx.BinaryFormatCode, nil, &scratch); return err }(),
			"bytea text not in hex":  func() error { _, err := byteaValue(oidBytea, pgx.TextFormatCode, []byte(`\001`), &scratch); return err }(),
			"bad hex":                func() error { _, err := byteaValue(oidBytea, pgx.TextFormatCode, []byte(`\xzz`), &scratch); return err }(),
			"an int4 as bigint":      func() error { _, err := int8Value(23, pgx.BinaryFormatCode, []byte{0, 0, 0, 1}); return err }(),
			"a short binary bigint":  func() error { _, err := int8Value(oidInt8, pgx.BinaryFormatCode, []byte{1}); return err }(),
			"a NULL bigint":          func() error { _, err := int8Value(oidInt8, pgx.BinaryFormatCode, nil); return err }(),
			"bigint text not a number": func() error {
				_, err := int8Value(oidInt8, pgx.TextFormatCode, []byte("1e3"))
				return err
			}(),
		} {
			if err == nil {
				t.Errorf("%s: no error", name)
			}
		}
	})
}

package sqlstore

import (
	"testing"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

func TestColumns(t *testing.T) {
	type read struct {
		Int      int64
		NullInt  afftrack.Null[int64]
		Text     string
		NullText afftrack.Null[string]
		Bool     bool
	}
	tests := []struct {
		name    string
		vals    []any // int, nullInt, text, nullText, bool
		want    read
		wantErr string
	}{
		{
			name: "reads SQLite's values, booleans as integers",
			vals: []any{int64(-7), int64(3), "é&", "x", int64(1)},
			want: read{-7, afftrack.Some(int64(3)), "é&", afftrack.Some("x"), true},
		},
		{
			name: "reads PostgreSQL's values, booleans as booleans",
			vals: []any{int64(1) << 40, nil, "", nil, true},
			want: read{Int: 1 << 40, Bool: true},
		},
		{
			name: "reads text given as bytes",
			vals: []any{int64(0), nil, []byte("b"), []byte(""), int64(0)},
			want: read{Text: "b", NullText: afftrack.Some("")},
		},
		{
			name:    "reports the first value of an unexpected type",
			vals:    []any{int64(1), "2", 3.5, nil, int64(1)},
			want:    read{Int: 1, Bool: true},
			wantErr: "column 1: unexpected string value",
		},
		{
			name:    "reports NULL in a column that is never NULL",
			vals:    []any{nil, nil, "a", nil, int64(0)},
			want:    read{Text: "a"},
			wantErr: "column 0: unexpected <nil> value",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := columns{vals: tt.vals}
			got := read{c.int(0), c.nullInt(1), c.text(2), c.nullText(3), c.bool(4)}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
			err := c.err()
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Errorf("err = %q, want %q", gotErr, tt.wantErr)
			}
			if err := c.err(); err != nil {
				t.Errorf("a second err call returned %v, want nil", err)
			}
		})
	}
}

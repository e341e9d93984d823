package sqlstore

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestLoadMigrations(t *testing.T) {
	file := func(body string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(body)} }
	t.Run("orders migrations by number, not by name", func(t *testing.T) {
		ms, err := loadMigrations(fstest.MapFS{
			"migrations/0010_ten.sql": file("ten"),
			"migrations/0002_two.sql": file("two"),
			"migrations/0001_one.sql": file("one"),
			"migrations/README.md":    file("not a migration"),
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []migration{{1, "0001_one.sql", "one"}, {2, "0002_two.sql", "two"}, {10, "0010_ten.sql", "ten"}}
		if diff := cmp.Diff(want, ms, cmp.AllowUnexported(migration{})); diff != "" {
			t.Errorf("migrations (-want +got):\n%s", diff)
		}
	})
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"refuses a file without a number", fstest.MapFS{"migrations/init.sql": file("")}, "must be NNNN_description.sql"},
		{"refuses version 0", fstest.MapFS{"migrations/0000_zero.sql": file("")}, "must be NNNN_description.sql"},
		{"refuses two files of one version", fstest.MapFS{
			"migrations/0001_a.sql": file(""), "migrations/001_b.sql": file(""),
		}, "share version 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadMigrations(tt.fsys)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
	t.Run("the embedded migrations load", func(t *testing.T) {
		ms, err := loadMigrations(migrationFiles)
		if err != nil || len(ms) == 0 || ms[0].version != 1 {
			t.Errorf("embedded migrations = %d, %v", len(ms), err)
		}
	})
}

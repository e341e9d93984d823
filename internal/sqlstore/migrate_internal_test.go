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
		}, nil, "sqlite")
		if err != nil {
			t.Fatal(err)
		}
		want := []migration{{1, "0001_one.sql", "one", nil}, {2, "0002_two.sql", "two", nil}, {10, "0010_ten.sql", "ten", nil}}
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
		{"refuses an engine it does not know", fstest.MapFS{"migrations/0001_a.mysql.sql": file("")}, "ENGINE sqlite or postgres"},
		{"refuses a shared file and an engine's of one version", fstest.MapFS{
			"migrations/0001_a.sql": file(""), "migrations/0001_a.sqlite.sql": file(""),
		}, "share version 1"},
		{"refuses two files of one version", fstest.MapFS{
			"migrations/0001_a.sql": file(""), "migrations/001_b.sql": file(""),
		}, "share version 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadMigrations(tt.fsys, nil, "sqlite")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
	t.Run("the embedded migrations load", func(t *testing.T) {
		for _, d := range []string{"sqlite", "postgres"} {
			ms, err := loadMigrations(migrationFiles, migrationSteps, d)
			if err != nil || len(ms) == 0 || ms[0].version != 1 {
				t.Errorf("embedded migrations of %s = %d, %v", d, len(ms), err)
			}
			for i, m := range ms {
				if m.version != int64(i+1) {
					t.Errorf("%s: migration %s is number %d of the list", d, m.name, i+1)
				}
			}
		}
	})
}

func TestLoadMigrationsByEngine(t *testing.T) {
	fsys := fstest.MapFS{
		"migrations/0001_one.sql":          {Data: []byte("both")},
		"migrations/0002_two.sqlite.sql":   {Data: []byte("sqlite's")},
		"migrations/0002_two.postgres.sql": {Data: []byte("postgres's")},
	}
	for _, d := range []string{"sqlite", "postgres"} {
		t.Run(d+" takes the shared file and its own", func(t *testing.T) {
			ms, err := loadMigrations(fsys, nil, d)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range ms {
				got = append(got, m.sql)
			}
			if diff := cmp.Diff([]string{"both", d + "'s"}, got); diff != "" {
				t.Errorf("migrations (-want +got):\n%s", diff)
			}
		})
	}
}

package sqlstore

import (
	"context"
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
		}, nil, nil, "sqlite")
		if err != nil {
			t.Fatal(err)
		}
		want := []migration{{version: 1, name: "0001_one.sql", sql: "one"}, {version: 2, name: "0002_two.sql", sql: "two"},
			{version: 10, name: "0010_ten.sql", sql: "ten"}}
		if diff := cmp.Diff(want, ms, cmp.AllowUnexported(migration{})); diff != "" {
			t.Errorf("migrations (-want +got):\n%s", diff)
		}
	})
	t.Run("marks the migrations that rebuild tables", func(t *testing.T) {
		ms, err := loadMigrations(fstest.MapFS{
			"migrations/0001_one.sql": file("one"),
			"migrations/0002_two.sql": file("two"),
		}, nil, map[int64]bool{2: true}, "sqlite")
		if err != nil {
			t.Fatal(err)
		}
		want := []migration{{version: 1, name: "0001_one.sql", sql: "one"},
			{version: 2, name: "0002_two.sql", sql: "two", rebuild: true}}
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
			_, err := loadMigrations(tt.fsys, nil, nil, "sqlite")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
	t.Run("the embedded migrations load", func(t *testing.T) {
		for _, d := range []string{"sqlite", "postgres"} {
			ms, err := loadMigrations(migrationFiles, migrationSteps, rebuildMigrations, d)
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
			ms, err := loadMigrations(fsys, nil, nil, d)
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

// TestCheckRebuild checks that a rebuild on SQLite, whose foreign keys are
// off while it runs, cannot commit a reference to a row it lost.
func TestCheckRebuild(t *testing.T) {
	ctx := context.Background()
	db := openTestSQLite(t)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	restore, err := db.dialect.beginRebuild(ctx, conn)
	defer restoreConn(ctx, conn, restore)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rollback(tx)
	for _, q := range []string{
		`INSERT INTO merchants (id, name, avatar_url, status) VALUES (1, 'One', '', 1)`,
		`INSERT INTO affiliates (id, contact_name, business_name, status, gst_registered) VALUES (2, 'Ann', '', 1, FALSE)`,
		`INSERT INTO memberships (affiliate_id, merchant_id, status) VALUES (2, 1, 1)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Run("passes while every reference has its row", func(t *testing.T) {
		if err := db.dialect.checkRebuild(ctx, tx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("names the table whose row lost its reference", func(t *testing.T) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM affiliates WHERE id = 2`); err != nil {
			t.Fatal(err)
		}
		err := db.dialect.checkRebuild(ctx, tx)
		if err == nil || !strings.Contains(err.Error(), "memberships") || !strings.Contains(err.Error(), "affiliates") {
			t.Fatalf("checkRebuild = %v, want an error naming memberships and affiliates", err)
		}
	})
}

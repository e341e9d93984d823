package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	env := func(pg string) func(string) string {
		return func(k string) string {
			if k == "AFFTRACK_TEST_POSTGRES_URL" {
				return pg
			}
			return ""
		}
	}
	tests := []struct {
		name    string
		args    string
		pg      string
		check   func(*config) bool
		wantErr string
	}{
		{"the defaults suit a 2-core machine", "", "", func(c *config) bool {
			return c.Load.Threads == 1 && c.Load.Connections == 8 && c.Load.Duration == 10*time.Second &&
				c.Network.Transactions == 1_000_000 && c.Postgres == "" && !c.NoSQLite
		}, ""},
		{"PostgreSQL comes from the test suites' variable", "", "postgres://h/db", func(c *config) bool {
			return c.Postgres == "postgres://h/db"
		}, ""},
		{"a reused PostgreSQL database replaces generating one", "--reuse-postgres postgres://h/old", "postgres://h/db",
			func(c *config) bool { return c.Postgres == "" && c.ReusePostgres == "postgres://h/old" }, ""},
		{"network flags reach the generator's config", "--transactions 500 --merchants 7 --start 2023-03-01 --days 30",
			"", func(c *config) bool {
				return c.Network.Transactions == 500 && c.Network.Merchants == 7 && c.Network.Days == 30 &&
					c.Network.Start.Equal(time.Date(2023, 3, 1, 0, 0, 0, 0, time.UTC))
			}, ""},
		{"--only is a regular expression", "--only lookup|day", "", func(c *config) bool {
			return c.Only.MatchString("lookup by id JSON sqlite") && !c.Only.MatchString("one-month list XML sqlite")
		}, ""},
		{"a run shorter than a second is refused", "--duration 500ms", "", nil, "--duration"},
		{"fewer connections than threads are refused", "--threads 4 --connections 2", "", nil, "--connections"},
		{"--reuse and --sqlite together are refused", "--reuse a.db --sqlite b.db", "", nil, "exclude"},
		{"--no-sqlite without PostgreSQL is refused", "--no-sqlite", "", nil, "--no-sqlite"},
		{"a bad start date is refused", "--start 2024-02-30", "", nil, "--start"},
		{"a bad --only is refused", "--only (", "", nil, "--only"},
		{"a network the generator cannot make is refused", "--merchants 0", "", nil, "merchant"},
		{"--rss asks for the memory benchmark", "--rss --merchants 1", "", func(c *config) bool {
			return c.RSS && c.Network.Merchants == 1
		}, ""},
		{"--rss and --perf together are refused", "--rss --perf dir", "", nil, "exclude"},
		{"arguments are refused", "extra", "", nil, "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig(strings.Fields(tt.args), env(tt.pg), io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("parseConfig(%q) error = %v, want one mentioning %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseConfig(%q): %v", tt.args, err)
			}
			if !tt.check(cfg) {
				t.Errorf("parseConfig(%q) = %+v", tt.args, cfg)
			}
		})
	}
}

package main_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/generate"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

func TestGenerateFillsAStoreThatServesItsTargets(t *testing.T) {
	for _, backend := range storetest.Backends(t) {
		t.Run("on "+backend, func(t *testing.T) {
			dsn := storetest.URL(t, backend)
			out, err := afftrack(t, nil, "generate", "--db", dsn, "--transactions", "3000", "--merchants", "20",
				"--affiliates", "200", "--seed", "3", "--start", "2024-02-01", "--days", "120", "--chunk", "1000")
			if err != nil {
				t.Fatalf("generate: %v\n%s", err, out)
			}
			// The same flags give the same network, so the command's
			// targets are the generator's.
			cfg := generate.DefaultConfig()
			cfg.Transactions, cfg.Merchants, cfg.Affiliates, cfg.Seed = 3000, 20, 200, 3
			cfg.Start, cfg.Days, cfg.ChunkSize = time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), 120, 1000
			g, err := generate.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for g.Next() != nil {
			}
			s := g.Summary()
			wants := []string{
				fmt.Sprintf("loaded 20 merchants, %s banners, 200 affiliates, %s memberships, 3,000 transactions (",
					thousands(s.Banners), thousands(s.Memberships)),
				"transactions: 3,000 in ",
				fmt.Sprintf("mid-sized merchant: %d (key %s)", s.Mid.ID, s.Mid.Key),
				// Imported, the network is the generator's record for record.
				fmt.Sprintf("3,000 transactions (%s items), %s invoices in ", thousands(s.Items), thousands(s.Invoices)),
				fmt.Sprintf("largest merchant:   %d (key %s)", s.Largest.ID, s.Largest.Key),
				fmt.Sprintf("lookup by id:       transaction %d of merchant %d", s.LookupID, s.Mid.ID),
			}
			for _, want := range wants {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if !regexp.MustCompile(`transactions: 3,000 in [0-9.]+m?s: [0-9,]+ transactions/s`).MatchString(out) {
				t.Errorf("output has no rate line:\n%s", out)
			}
			// The targets printed are what the server serves.
			targets := regexp.MustCompile(`(?s)largest merchant: .*?: ([0-9,]+)\n.*mid-sized merchant: .*?: ([0-9,]+)\n.*lookup by id: +transaction ([0-9]+) `).FindStringSubmatch(out)
			if targets == nil {
				t.Fatalf("output names no targets:\n%s", out)
			}
			monthN, dayN := number(t, targets[1]), number(t, targets[2])
			if monthN != s.MonthTransactions || dayN != s.DayTransactions {
				t.Errorf("targets of %d and %d transactions, the generator's are %d and %d", monthN, dayN, s.MonthTransactions, s.DayTransactions)
			}

			srv := serve(t, "--db", dsn)
			paths := regexp.MustCompile(`(?m)^  (/V1/\S+)$`).FindAllStringSubmatch(out, -1)
			if len(paths) != 3 {
				t.Fatalf("output names %d target paths, want 3:\n%s", len(paths), out)
			}
			served := []struct {
				prefix string
				n      int
			}{
				{fmt.Sprintf(`{"Id":%s,`, targets[3]), 1},
				{`[{"Id":`, dayN},
				{`[{"Id":`, monthN},
			}
			for i, p := range paths {
				status, _, body := srv.get(t, p[1])
				if status != 200 || !strings.HasPrefix(body, served[i].prefix) {
					t.Errorf("GET %s: %d %.200s", p[1], status, body)
				}
				if n := strings.Count(body, `{"Id":`); n != served[i].n {
					t.Errorf("GET %s: %d transactions, want %d", p[1], n, served[i].n)
				}
			}
		})
	}
}

func TestGenerateRefusesBadFlags(t *testing.T) {
	dsn := storetest.URL(t, "sqlite")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a start that is not a date", []string{"--start", "2024-13-01"}, `--start: "2024-13-01" is not a date`},
		{"no merchants", []string{"--merchants", "0"}, "at least one merchant"},
		{"negative transactions", []string{"--transactions", "-5"}, "must not be negative"},
		{"an argument", []string{"extra"}, "generate takes no arguments"},
	}
	for _, tt := range tests {
		t.Run("generate refuses "+tt.name, func(t *testing.T) {
			out, err := afftrack(t, nil, append([]string{"generate", "--db", dsn}, tt.args...)...)
			if err == nil || !strings.Contains(out, tt.want) {
				t.Errorf("generate %v: %v\n%s\nwant an error with %q", tt.args, err, out, tt.want)
			}
		})
	}
}

// number parses a count the command printed: 1,761,199.
func number(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		t.Fatalf("%q is not a count: %v", s, err)
	}
	return n
}

// thousands formats n as the command does: 1,761,199.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

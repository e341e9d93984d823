package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack/internal/generate"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestRowVerdictComparesTheRatioWithTheTarget(t *testing.T) {
	ok := func(rps float64) result { return result{RequestsPerS: rps, Requests: 100} }
	tests := []struct {
		name   string
		r      row
		ratio  float64
		result string
	}{
		{"a ratio above the target passes", row{Afftrack: ok(600), Baseline: ok(1000), Target: 0.5}, 0.6, "pass"},
		{"a ratio at the target passes", row{Afftrack: ok(350), Baseline: ok(1000), Target: 0.35}, 0.35, "pass"},
		{"a ratio below the target misses", row{Afftrack: ok(300), Baseline: ok(1000), Target: 0.35}, 0.3, "MISS"},
		{"a row without a target has no verdict", row{Afftrack: ok(10), Baseline: ok(1000)}, 0.01, "-"},
		{"failed requests fail the row whatever the ratio",
			row{Afftrack: result{RequestsPerS: 900, Non2xx: 3}, Baseline: ok(1000), Target: 0.5}, 0.9, "FAILED"},
		{"a baseline without requests gives no ratio", row{Afftrack: ok(10), Target: 0.5}, 0, "MISS"},
		{"a floor relative to the old store is not judged from this run alone",
			row{Afftrack: ok(170), Baseline: ok(1000), OfBefore: 0.8}, 0.17, "not judged here"},
		{"failed requests fail a row with a relative floor too",
			row{Afftrack: result{RequestsPerS: 170, Non2xx: 1}, Baseline: ok(1000), OfBefore: 0.8}, 0.17, "FAILED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.ratio(); got < tt.ratio-1e-9 || got > tt.ratio+1e-9 {
				t.Errorf("ratio() = %v, want %v", got, tt.ratio)
			}
			if got := tt.r.verdict(); got != tt.result {
				t.Errorf("verdict() = %q, want %q", got, tt.result)
			}
		})
	}
}

func TestReportMatchesTheGoldenFiles(t *testing.T) {
	cfg := &config{Load: loadConfig{Threads: 1, Connections: 8, Duration: 10 * time.Second, Timeout: 30 * time.Second},
		Warmup: 2 * time.Second, Network: generate.DefaultConfig()}
	day := time.Date(2024, 7, 1, 0, 0, 0, 0, time.UTC)
	rep := &report{
		cfg: cfg,
		summary: generate.Summary{Merchants: 1000, Affiliates: 50000, Transactions: 1000000, Items: 1761197,
			Largest: generate.MerchantLoad{ID: 144, Key: "gen-merchant-144-key", Transactions: 133794},
			Month:   time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), MonthEnd: time.Date(2024, 5, 31, 0, 0, 0, 0, time.UTC),
			Mid: generate.MerchantLoad{ID: 471, Key: "gen-merchant-471-key", Transactions: 33297},
			Day: day, DayTransactions: 100, LookupID: 434222},
		backends: []backend{{Name: "sqlite", LoadRate: "transactions: 1,000,000 in 1m15s: 13,326 transactions/s"},
			{Name: "postgres"}},
		rows: []row{
			{Scenario: "lookup by id", Format: "JSON", Backend: "sqlite", BodyBytes: 2114, Target: 0.5,
				Afftrack: result{RequestsPerS: 5649.2, P50: 1310 * time.Microsecond, P99: 5420 * time.Microsecond},
				Baseline: result{RequestsPerS: 46951, P50: 136 * time.Microsecond, P99: 4210 * time.Microsecond},
				Profile:  []string{"2.79% [.] modernc.org/sqlite/lib._sqlite3VdbeExec"}},
			{Scenario: "lookup by id", Format: "JSON", Backend: "postgres", BodyBytes: 2114, OfBefore: 0.8,
				Afftrack: result{RequestsPerS: 5786, P50: 1230 * time.Microsecond, P99: 4250 * time.Microsecond},
				Baseline: result{RequestsPerS: 33579, P50: 202 * time.Microsecond, P99: 4200 * time.Microsecond}},
			{Scenario: "one-month list (10633 tx)", Format: "XML", Backend: "postgres", BodyBytes: 23_456_789,
				Afftrack: result{RequestsPerS: 3.5, P50: 2100 * time.Millisecond, P99: 2900 * time.Millisecond, Non2xx: 2},
				Baseline: result{RequestsPerS: 120.25, P50: 66 * time.Millisecond, P99: 80 * time.Millisecond},
				Note:     "afftrack: 2 non-2xx, 0 socket errors; server log:\n..."},
		},
		cmdline: "--duration 10s --out docs/run.md",
		machine: "2 CPUs (AMD EPYC), 23.5 GiB memory, linux/amd64, go1.26.8",
		commit:  "abc1234",
		wrk:     "wrk debian/4.1.0-3+b2 [epoll]",
		at:      time.Date(2026, 11, 22, 3, 39, 43, 0, time.UTC),
	}
	var text bytes.Buffer
	rep.writeText(&text)
	for name, got := range map[string]string{"report.txt": text.String(), "report.md": rep.markdown()} {
		t.Run("the "+name+" report is as golden", func(t *testing.T) {
			path := filepath.Join("testdata", name)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormattingHelpers(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"thousands groups digits", thousands(1234567), "1,234,567"},
		{"thousands leaves small numbers", thousands(999), "999"},
		{"thousands keeps the sign", thousands(-1234), "-1,234"},
		{"a rate above 100 is whole", rate(5649.5), "5,650"},
		{"a rate below 100 has a tenth", rate(3.46), "3.5"},
		{"latency below a millisecond is in microseconds", latency(136 * time.Microsecond), "136µs"},
		{"latency below ten milliseconds has two decimals", latency(5420 * time.Microsecond), "5.42ms"},
		{"latency below a second is in whole milliseconds", latency(72 * time.Millisecond), "72ms"},
		{"latency of seconds has two decimals", latency(2100 * time.Millisecond), "2.10s"},
		{"a file name is made of the row's words",
			row{Backend: "sqlite", Scenario: "one-day list (100 tx)", Format: "XML"}.fileName(), "sqlite-one-day-list-100-tx-xml"},
		{"a key in a URL is hidden", redactKey("http://h/V1/Merchant/Transactions?apiKey=k1&fromDate=x"),
			"http://h/V1/Merchant/Transactions?apiKey=REDACTED&fromDate=x"},
		{"a key at the end of a URL is hidden", redactKey("http://h/V1/Merchant/Transactions/5?apiKey=k1"),
			"http://h/V1/Merchant/Transactions/5?apiKey=REDACTED"},
		{"a database password is hidden", redact("postgres://u:secret@h:5432/db?search_path=s"),
			"postgres://u:xxxxx@h:5432/db?search_path=s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestPerfTopKeepsTheSampleLines(t *testing.T) {
	report := `# Overhead  Symbol
# ........  ......
#
     2.79%  [.] modernc.org/sqlite/lib._sqlite3VdbeExec                 -      -
     1.94%  [k] _raw_spin_unlock_irqrestore                             -      -
     1.90%  [.] modernc.org/memory.(*Allocator).UintptrMalloc           -      -

# (Tip: ...)
`
	want := []string{
		"2.79% [.] modernc.org/sqlite/lib._sqlite3VdbeExec",
		"1.94% [k] _raw_spin_unlock_irqrestore",
	}
	if diff := cmp.Diff(want, perfTop(report, 2)); diff != "" {
		t.Errorf("perfTop (-want +got):\n%s", diff)
	}
}

func TestScenarioFloorsDependOnTheBackend(t *testing.T) {
	tests := []struct {
		name             string
		sc               scenario
		backend          string
		target, ofBefore float64
	}{
		{"SQLite keeps the scenario's target", scenario{Target: 0.3}, "sqlite", 0.3, 0},
		{"PostgreSQL reads are held to a fraction of the old store's ratio", scenario{Target: 0.3}, "postgres", 0, postgresReadFloor},
		{"a scenario without a target has no floor on PostgreSQL either", scenario{}, "postgres", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target, ofBefore := tt.sc.floors(tt.backend)
			if target != tt.target || ofBefore != tt.ofBefore {
				t.Errorf("floors(%q) = %v, %v, want %v, %v", tt.backend, target, ofBefore, tt.target, tt.ofBefore)
			}
		})
	}
}

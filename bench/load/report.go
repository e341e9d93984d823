package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/afftrack/afftrack/internal/generate"
)

// row is one measured scenario, format and backend.
type row struct {
	Scenario, Format, Backend string
	BodyBytes                 int
	Afftrack, Baseline        result
	Target                    float64 // least ratio; 0 for none
	// OfBefore, with no Target, is the least fraction of the ratio
	// measured before the relational store, which this run did not
	// measure: the row gives its ratio and no verdict.
	OfBefore    float64
	Note        string   // what went wrong, if anything
	Limited     bool     // under the default rate limits: 429s are expected, not failures
	Profile     []string // perf's hottest functions, with --perf
	Check       string   // what a write scenario found stored after its run
	CheckFailed bool     // the check found answers with nothing stored behind them
}

// ratio is afftrack's requests/s as a fraction of the baseline's.
func (r row) ratio() float64 {
	if r.Baseline.RequestsPerS == 0 {
		return 0
	}
	return r.Afftrack.RequestsPerS / r.Baseline.RequestsPerS
}

// verdict is "pass" or "MISS" against the target, "-" without one, and
// "FAILED" when requests failed, whatever the figures say.
func (r row) verdict() string {
	switch {
	case r.Limited:
		return fmt.Sprintf("%d of %d refused", r.Afftrack.Non2xx, r.Afftrack.Requests)
	case r.Afftrack.failed() || r.Baseline.failed() || r.CheckFailed:
		return "FAILED"
	case r.OfBefore > 0:
		return "not judged here"
	case r.Target == 0:
		return "-"
	case r.ratio() >= r.Target:
		return "pass"
	}
	return "MISS"
}

// fileName names the row's files, such as profiles: "sqlite-lookup-by-id-json".
func (r row) fileName() string {
	words := strings.FieldsFunc(strings.ToLower(r.Backend+" "+r.Scenario+" "+r.Format), func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9')
	})
	return strings.Join(words, "-")
}

// cells are the row's table cells, in the order of tableHeader.
func (r row) cells() []string {
	target := "-"
	switch {
	case r.Target > 0:
		target = fmt.Sprintf("≥ %.0f%%", 100*r.Target)
	case r.OfBefore > 0:
		target = fmt.Sprintf("≥ %.1f × before", r.OfBefore)
	}
	return []string{r.Scenario, r.Format, r.Backend, thousands(int64(r.BodyBytes)),
		rate(r.Afftrack.RequestsPerS), latency(r.Afftrack.P50), latency(r.Afftrack.P99),
		rate(r.Baseline.RequestsPerS), latency(r.Baseline.P50), latency(r.Baseline.P99),
		fmt.Sprintf("%.0f%%", 100*r.ratio()), target, r.verdict()}
}

var tableHeader = []string{"scenario", "format", "backend", "body bytes", "afftrack req/s", "p50", "p99",
	"baseline req/s", "p50", "p99", "ratio", "target", "result"}

// report is the benchmark's outcome with what is needed to read it.
type report struct {
	cfg      *config
	summary  generate.Summary
	backends []backend
	rows     []row
	rssRows  []rssRow
	cmdline  string
	machine  string
	commit   string
	wrk      string
	at       time.Time
}

// writeText prints the table for a terminal.
func (rep *report) writeText(w io.Writer) {
	fmt.Fprintf(w, "\n%s, commit %s\n%s\n%s\n\n", rep.at.Format(time.RFC3339), rep.commit, rep.machine, rep.settings())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(tableHeader, "\t")+"\t")
	for _, r := range rep.rows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t")+"\t")
	}
	tw.Flush()
	for _, r := range rep.rows {
		if r.Check != "" {
			fmt.Fprintf(w, "\n%s %s %s: %s\n", r.Scenario, r.Format, r.Backend, r.Check)
		}
	}
	for _, r := range rep.rows {
		if r.Note != "" {
			fmt.Fprintf(w, "\n%s %s %s: %s\n", r.Scenario, r.Format, r.Backend, r.Note)
		}
	}
}

// settings describes the load and the data set in a few lines.
func (rep *report) settings() string {
	l, n, s := rep.cfg.Load, rep.cfg.Network, rep.summary
	var b strings.Builder
	fmt.Fprintf(&b, "wrk -t%d -c%d -d%s --latency (%s), %s warm-up before each run\n", l.Threads, l.Connections,
		l.Duration, rep.wrk, rep.cfg.Warmup)
	fmt.Fprintf(&b, "network: %s transactions (%s items), %s merchants, %s affiliates, seed %d, %s from %s\n",
		thousands(int64(s.Transactions)), thousands(int64(s.Items)), thousands(int64(s.Merchants)),
		thousands(int64(s.Affiliates)), n.Seed, plural(n.Days, "day"), n.Start.Format(time.DateOnly))
	fmt.Fprintf(&b, "lookup: transaction %d of merchant %d; one-day list: merchant %d on %s; one-month list: merchant %d (%s transactions in all), %s to %s",
		s.LookupID, s.Mid.ID, s.Mid.ID, s.Day.Format(time.DateOnly), s.Largest.ID, thousands(int64(s.Largest.Transactions)),
		s.Month.Format(time.DateOnly), s.MonthEnd.Format(time.DateOnly))
	for _, be := range rep.backends {
		if be.LoadRate != "" {
			fmt.Fprintf(&b, "\nload into %s: %s", be.Name, be.LoadRate)
		}
	}
	return b.String()
}

// markdown is the report as a Markdown section, for docs/performance.md.
func (rep *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Run of %s, commit %s\n\n", rep.at.Format("2006-01-02 15:04 MST"), rep.commit)
	fmt.Fprintf(&b, "Command: `go run ./bench/load %s`\n\n", rep.cmdline)
	fmt.Fprintf(&b, "Machine: %s\n\n", rep.machine)
	for line := range strings.Lines(rep.settings()) {
		fmt.Fprintf(&b, "- %s", line)
	}
	b.WriteString("\n\n| " + strings.Join(tableHeader, " | ") + " |\n|")
	for i := range tableHeader {
		if i < 3 {
			b.WriteString("---|")
		} else {
			b.WriteString("--:|")
		}
	}
	b.WriteString("\n")
	for _, r := range rep.rows {
		b.WriteString("| " + strings.Join(r.cells(), " | ") + " |\n")
	}
	for _, r := range rep.rows {
		if r.Check != "" {
			fmt.Fprintf(&b, "\n%s %s %s: %s\n", r.Scenario, r.Format, r.Backend, r.Check)
		}
	}
	for _, r := range rep.rows {
		if r.Note != "" {
			fmt.Fprintf(&b, "\n%s %s %s:\n\n```\n%s\n```\n", r.Scenario, r.Format, r.Backend, r.Note)
		}
	}
	for _, r := range rep.rows {
		if len(r.Profile) > 0 {
			fmt.Fprintf(&b, "\nperf, %s %s %s (own time):\n\n```\n%s\n```\n", r.Scenario, r.Format, r.Backend,
				strings.Join(r.Profile, "\n"))
		}
	}
	return b.String()
}

// describeMachine says what the figures were measured on.
func describeMachine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					mem = fmt.Sprintf(", %.1f GiB memory", float64(kb)/(1<<20))
				}
			}
		}
	}
	return fmt.Sprintf("%d CPUs (%s)%s, %s/%s, %s", runtime.NumCPU(), model, mem, runtime.GOOS, runtime.GOARCH,
		runtime.Version())
}

// describeCommit names the commit measured, and says so when the working
// tree differs from it.
func describeCommit(ctx context.Context, root string) string {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(out))
	cmd = exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil && len(strings.TrimSpace(string(out))) > 0 {
		commit += " with uncommitted changes"
	}
	return commit
}

// thousands formats n with thousands separators: 1,234,567.
func thousands(n int64) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// rate formats requests per second: whole above 100, else to a tenth.
func rate(rps float64) string {
	if rps >= 100 {
		return thousands(int64(rps + 0.5))
	}
	return strconv.FormatFloat(rps, 'f', 1, 64)
}

// latency formats a latency with three significant digits or so.
func latency(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.0fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

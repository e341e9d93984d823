package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// perfRun is a perf recording of afftrack during one measured run: the
// server has no profiling endpoint, and perf needs none. Go binaries
// carry their symbols, so perf names Go functions (inlined ones are
// counted in their callers).
type perfRun struct {
	cmd        *exec.Cmd
	out        bytes.Buffer
	data, text string   // the recording, and its report as text
	top        []string // the hottest functions by own time, for the report
}

// startPerf records the process pid for d, at a modest frequency so the
// profiler costs the measurement little.
func startPerf(ctx context.Context, dir, name string, pid int, d time.Duration) (*perfRun, error) {
	path, err := exec.LookPath("perf")
	if err != nil {
		return nil, errors.New("--perf needs perf: apt-get install -y linux-perf")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p := &perfRun{data: filepath.Join(dir, name+".perf.data"), text: filepath.Join(dir, name+".txt")}
	p.cmd = exec.CommandContext(ctx, path, "record", "-F", "499", "-g", "-p", strconv.Itoa(pid), "-o", p.data,
		"--", "sleep", strconv.Itoa(int(d/time.Second)))
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("perf record: %w", err)
	}
	return p, nil
}

// finish waits for the recording, writes its reports (own time, and time
// including callees) next to it, and keeps the top of the first.
func (p *perfRun) finish(ctx context.Context) error {
	if err := p.cmd.Wait(); err != nil {
		return fmt.Errorf("perf record: %w\n%s", err, p.out.String())
	}
	var text bytes.Buffer
	for _, mode := range []string{"--no-children", "--children"} {
		out, err := exec.CommandContext(ctx, p.cmd.Path, "report", "-i", p.data, "--stdio", mode,
			"--sort", "symbol", "--percent-limit", "0.5", "-g", "none").Output()
		if err != nil {
			return fmt.Errorf("perf report: %w", err)
		}
		fmt.Fprintf(&text, "# perf report %s\n%s\n", mode, out)
		if mode == "--no-children" {
			p.top = perfTop(string(out), 12)
		}
	}
	return os.WriteFile(p.text, text.Bytes(), 0o644)
}

// perfTop returns the first n sample lines of a perf report as
// "12.34% [.] runtime.mallocgc": share, kind (user or kernel), symbol.
func perfTop(report string, n int) []string {
	var top []string
	for line := range strings.Lines(report) {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasSuffix(f[0], "%") || strings.HasPrefix(f[0], "#") {
			continue
		}
		top = append(top, strings.Join(f[:3], " "))
		if len(top) == n {
			break
		}
	}
	return top
}

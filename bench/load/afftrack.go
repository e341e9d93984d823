package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/afftrack/afftrack/internal/generate"
)

// moduleRoot returns the directory of the afftrack module, so the
// benchmark builds the right command whatever directory it runs from.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run the benchmark inside the afftrack module: go run ./bench/load")
	}
	return filepath.Dir(gomod), nil
}

// buildAfftrack builds the afftrack command into dir and returns its path.
func buildAfftrack(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "afftrack")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/afftrack")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/afftrack: %w\n%s", err, out)
	}
	return bin, nil
}

// generateArgs are the flags of `afftrack generate` for cfg.
func generateArgs(cfg generate.Config) []string {
	return []string{
		"--transactions", strconv.Itoa(cfg.Transactions), "--clicks", strconv.Itoa(cfg.Clicks), "--merchants", strconv.Itoa(cfg.Merchants),
		"--affiliates", strconv.Itoa(cfg.Affiliates), "--seed", strconv.FormatUint(cfg.Seed, 10),
		"--start", cfg.Start.Format(time.DateOnly), "--days", strconv.Itoa(cfg.Days),
	}
}

// afftrackEnv is the environment of every afftrack command the benchmark
// runs: the benchmark's own, with AFFTRACK_DB cleared, since each command
// is given its database with --db and must reach no other.
func afftrackEnv() []string { return append(os.Environ(), "AFFTRACK_DB=") }

// runGenerate loads the network into dsn with `afftrack generate`, passing
// its progress to progress, and returns its rate line ("transactions: ...
// transactions/s ...").
func runGenerate(ctx context.Context, bin, dsn string, cfg generate.Config, progress io.Writer) (string, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, append([]string{"generate", "--db", dsn}, generateArgs(cfg)...)...)
	cmd.Env = afftrackEnv()
	cmd.Stdout = io.MultiWriter(&out, progress)
	cmd.Stderr = progress
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("afftrack generate: %w", err)
	}
	// The load leaves hundreds of MB of dirty pages, which the kernel
	// writes back in the background: written now, their writeback does
	// not share the CPU with the first measured run.
	syscall.Sync()
	for line := range strings.Lines(out.String()) {
		if strings.HasPrefix(line, "transactions: ") {
			return strings.TrimSpace(line), nil
		}
	}
	return "", fmt.Errorf("afftrack generate printed no rate line:\n%s", out.String())
}

// settleLifecycle runs `afftrack lifecycle run` on dsn once, before any
// measured run. A generated network spans a year that no server lived
// through, so a hundred thousand of its transactions are past their
// validation date and still Pending; the first server started on it
// would lock them all while the first scenario ran, and measure that
// backlog instead of the network's steady state. The memory runs skip
// this: there the first pass beside a large list is the worst case.
func settleLifecycle(ctx context.Context, bin, dsn string, progress io.Writer) error {
	cmd := exec.CommandContext(ctx, bin, "lifecycle", "run", "--db", dsn)
	cmd.Env = afftrackEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("afftrack lifecycle run: %w\n%s", err, out)
	}
	fmt.Fprintf(progress, "load: lifecycle run before measuring: %s", out)
	return nil
}

// server is a running `afftrack serve`.
type server struct {
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:PORT
	logPath string
	exited  chan struct{} // closed when the process has exited
	waitErr error         // how it exited, once exited is closed
}

// startServer starts `afftrack serve` on a free loopback port with no rate
// limits, logging to logPath, and waits until it listens.
func startServer(ctx context.Context, bin, dsn, logPath string, defaultLimits bool) (*server, error) {
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	args := []string{"serve", "--addr", "127.0.0.1:0", "--db", dsn}
	if !defaultLimits {
		args = append(args, "--rate-per-minute", "0", "--rate-per-day", "0", "--rate-concurrent", "0")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = afftrackEnv()
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("afftrack serve: %w", err)
	}
	s := &server{cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "afftrack listening on "); ok {
				found <- addr
			}
		}
		close(found)
	}()
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	select {
	case s.base = <-found:
	case <-time.After(60 * time.Second):
	case <-ctx.Done():
	}
	if s.base == "" {
		s.kill()
		return nil, fmt.Errorf("afftrack serve did not start; its log:\n%s", s.logTail())
	}
	return s, nil
}

// pid is the server's process id, for profilers.
func (s *server) pid() int { return s.cmd.Process.Pid }

// clearLog empties the server's log between runs, so that it never grows
// large and a failure shows the lines of its own run. The server appends
// to the file, so its writes land at the new end.
func (s *server) clearLog() error { return os.Truncate(s.logPath, 0) }

// logTail returns the end of the server's log.
func (s *server) logTail() string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return err.Error()
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// failedLines returns up to ten of the log's request lines whose status
// is not 200, which say why a run had failures.
func (s *server) failedLines() string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "msg=request") && !strings.Contains(line, "status=200") && len(out) < 10 {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// stop asks the server to shut down and waits for it.
func (s *server) stop() error {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		if s.waitErr != nil {
			return fmt.Errorf("afftrack serve: %w; log:\n%s", s.waitErr, s.logTail())
		}
		return nil
	case <-time.After(30 * time.Second):
		s.kill()
		return errors.New("afftrack serve did not stop within 30s of SIGTERM")
	}
}

// kill stops the server at once, unless it has exited already.
func (s *server) kill() {
	select {
	case <-s.exited:
		return
	default:
	}
	s.cmd.Process.Kill()
	<-s.exited
}

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// errNoWrk is returned when wrk is not installed.
var errNoWrk = errors.New("wrk is not installed; install it with: apt-get install -y wrk")

// loadConfig is how hard and how long a load run drives a server.
type loadConfig struct {
	Threads     int
	Connections int
	Duration    time.Duration
	Timeout     time.Duration // a request slower than this counts as a timeout
}

// result is what one wrk run measured.
type result struct {
	Requests     int64
	RequestsPerS float64
	P50, P99     time.Duration
	Non2xx       int64
	SocketErrors int64 // connect, read, write and timeout errors together
}

// failed reports whether any request went wrong: a figure with failures
// measures errors, not the service.
func (r result) failed() bool { return r.Non2xx > 0 || r.SocketErrors > 0 }

// wrk runs the wrk load tool.
type wrk struct {
	path string
}

// findWrk returns the wrk on the PATH, or errNoWrk.
func findWrk() (*wrk, error) {
	path, err := exec.LookPath("wrk")
	if err != nil {
		return nil, errNoWrk
	}
	return &wrk{path: path}, nil
}

// version returns wrk's version line, for the report.
func (w *wrk) version(ctx context.Context) string {
	// wrk prints its version in the usage text of -v, and exits 1.
	out, _ := exec.CommandContext(ctx, w.path, "-v").CombinedOutput()
	line, _, _ := strings.Cut(string(out), "\n")
	line, _, _ = strings.Cut(line, " Copyright")
	return strings.TrimSpace(line)
}

// run drives url for cfg.Duration with the given request headers and
// returns what wrk measured. A script, if not "", is a wrk Lua script
// that chooses each request's path.
func (w *wrk) run(ctx context.Context, cfg loadConfig, url, script string, headers ...string) (result, error) {
	args := []string{
		"-t", strconv.Itoa(cfg.Threads), "-c", strconv.Itoa(cfg.Connections),
		"-d", strconv.Itoa(int(cfg.Duration.Round(time.Second)/time.Second)) + "s",
		"--timeout", strconv.Itoa(max(1, int(cfg.Timeout.Round(time.Second)/time.Second))) + "s",
		"--latency",
	}
	for _, h := range headers {
		args = append(args, "-H", h)
	}
	if script != "" {
		args = append(args, "-s", script)
	}
	args = append(args, url)
	// wrk stops by itself; the context's deadline is a backstop should it
	// hang on a connection.
	ctx, cancel := context.WithTimeout(ctx, cfg.Duration+cfg.Timeout+30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, w.path, args...).CombinedOutput()
	if err != nil {
		return result{}, fmt.Errorf("wrk %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	r, err := parseWrk(string(out))
	if err != nil {
		return result{}, fmt.Errorf("wrk %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return r, nil
}

// parseWrk reads the summary wrk prints with --latency.
func parseWrk(out string) (result, error) {
	var r result
	var seen struct{ rps, p50, p99, requests bool }
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		var err error
		switch {
		case len(f) == 2 && f[0] == "Requests/sec:":
			r.RequestsPerS, err = strconv.ParseFloat(f[1], 64)
			seen.rps = true
		case len(f) == 2 && f[0] == "50%":
			r.P50, err = parseWrkDuration(f[1])
			seen.p50 = true
		case len(f) == 2 && f[0] == "99%":
			r.P99, err = parseWrkDuration(f[1])
			seen.p99 = true
		case len(f) >= 3 && f[1] == "requests" && f[2] == "in":
			r.Requests, err = strconv.ParseInt(f[0], 10, 64)
			seen.requests = true
		case len(f) == 5 && f[0] == "Non-2xx":
			r.Non2xx, err = strconv.ParseInt(f[4], 10, 64)
		case len(f) >= 2 && f[0] == "Socket" && f[1] == "errors:":
			// Socket errors: connect 0, read 2, write 0, timeout 3
			for i := 3; i < len(f); i += 2 {
				n, perr := strconv.ParseInt(strings.TrimSuffix(f[i], ","), 10, 64)
				if perr != nil {
					err = perr
					break
				}
				r.SocketErrors += n
			}
		}
		if err != nil {
			return result{}, fmt.Errorf("read wrk output %q: %w", sc.Text(), err)
		}
	}
	if !seen.rps || !seen.p50 || !seen.p99 || !seen.requests {
		return result{}, errors.New("wrk output lacks requests/sec, the request count or the latency distribution")
	}
	return r, nil
}

// parseWrkDuration reads a wrk latency: a number and a unit, us to h.
func parseWrkDuration(s string) (time.Duration, error) {
	units := []struct {
		suffix string
		unit   time.Duration
	}{{"us", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, fmt.Errorf("latency %q: %w", s, err)
			}
			return time.Duration(v * float64(u.unit)), nil
		}
	}
	return 0, fmt.Errorf("latency %q has no unit", s)
}

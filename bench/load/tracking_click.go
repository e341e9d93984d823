package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// measureClicks measures the redirect of random credited links, each
// request with a browser's User-Agent, on afftrack served with its default
// settings, and a bare handler answering the same 302 (the same headers,
// a Location and a Set-Cookie of the same length) with the same script.
// It then checks that every redirect wrk counted is a click written.
func (b *bench) measureClicks(ctx context.Context, be backend, plan *trackingPlan) (row, error) {
	r := row{Scenario: clickScenario, Format: clickFormat, Backend: be.Name, Target: clickTarget}
	srv, err := startServer(ctx, b.bin, be.DSN, filepath.Join(b.dir, "serve-clicks-"+be.Name+".log"), true)
	if err != nil {
		return r, err
	}
	defer srv.kill()
	paths := make([]string, len(plan.links))
	for i, l := range plan.links {
		paths[i] = l.Path
	}
	script, err := b.writeScript(r.fileName(), clickScript(paths, userAgents))
	if err != nil {
		return r, err
	}
	head, err := typicalRedirect(ctx, srv.base, paths)
	if err != nil {
		return r, err
	}
	// In a steady state each link is clicked again within the link
	// cache's 30 s: every one is clicked once, so the runs find them
	// cached, as they would be, rather than measure a cold cache.
	if err := clickAll(ctx, srv.base, paths); err != nil {
		return r, err
	}
	// These clicks are written before the count starts.
	if err := waitClicksWritten(ctx, srv.base); err != nil {
		return r, err
	}
	before, err := countRows(ctx, be.DSN, "clicks", "")
	if err != nil {
		return r, err
	}
	if err := srv.clearLog(); err != nil {
		return r, err
	}
	warm, res, prof, err := b.drive(ctx, srv.base+"/", script, script, r.fileName(), srv.pid())
	r.Afftrack, r.Profile = res, prof
	if err != nil {
		return r, err
	}
	if res.failed() {
		r.Note = fmt.Sprintf("afftrack: %d non-2xx/3xx, %d socket errors; the server's failed requests:\n%s",
			res.Non2xx, res.SocketErrors, trackingFailures(srv))
	}
	// Read at once, before the clicks the run left are written: a writer
	// that keeps up holds about one flush interval's clicks.
	held, err := scrapeMetric(ctx, srv.base+"/metrics", "afftrack_clicks_held")
	if err != nil {
		return r, err
	}
	dropped, err := scrapeMetric(ctx, srv.base+"/metrics", "afftrack_clicks_dropped_total")
	if err != nil {
		return r, err
	}
	if err := srv.stop(); err != nil { // a clean stop writes every click held
		return r, err
	}
	after, err := countRows(ctx, be.DSN, "clicks", "")
	if err != nil {
		return r, err
	}
	runs := 1
	if warm.Requests > 0 {
		runs = 2
	}
	redirects := warm.Requests - warm.Non2xx + res.Requests - res.Non2xx
	r.Check, r.CheckFailed = writtenCheck("clicks written", after-before, "302s", redirects,
		int64(runs*b.cfg.Load.Connections))
	if dropped > 0 {
		r.Check += fmt.Sprintf("; %s clicks DROPPED (buffer full): redirected uncredited", thousands(int64(dropped)))
		r.CheckFailed = true
	} else {
		r.Check += "; 0 dropped"
	}
	heldSays, behind := heldCheck(int64(held), res.RequestsPerS)
	r.Check += "; " + heldSays
	r.CheckFailed = r.CheckFailed || behind
	r.Check += fmt.Sprintf("; %s links of %s affiliates and %s merchants", thousands(int64(len(paths))),
		thousands(int64(plan.affiliates)), thousands(int64(plan.merchants)))

	base, err := serveBaseline(redirectHandler(head))
	if err != nil {
		return r, err
	}
	defer base.stop()
	if _, r.Baseline, _, err = b.drive(ctx, base.url, script, script, "", 0); err != nil {
		return r, err
	}
	return r, base.stop()
}

// writtenCheck compares the rows a run wrote with the successes wrk
// counted. wrk counts the answers it read; a request still in flight when
// it stops (at most one per connection and run) may be served, and its
// row written, uncounted. Fewer rows than answers means answers with no
// row behind them.
func writtenCheck(what string, written int64, answers string, counted, inFlight int64) (string, bool) {
	s := fmt.Sprintf("%s %s for %s %s counted by wrk", what, thousands(written), thousands(counted), answers)
	switch extra := written - counted; {
	case extra < 0:
		return s + fmt.Sprintf(": %s MISSING", thousands(-extra)), true
	case extra > inFlight:
		return s + fmt.Sprintf(": %s more than the %d requests that can be in flight when wrk stops", thousands(extra), inFlight), true
	case extra > 0:
		return s + fmt.Sprintf(" (+%d in flight when wrk stopped, at most %d)", extra, inFlight), false
	}
	return s, false
}

// clickScript is a wrk script whose every request GETs one of paths, with
// one of the User-Agents, each drawn at random (seeded, so runs repeat).
func clickScript(paths, agents []string) string {
	var b strings.Builder
	b.WriteString("-- written by bench/load: GET a random tracking link with a random browser's headers\nlocal paths = {\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "  %s,\n", luaString(p))
	}
	b.WriteString("}\nlocal headers = {\n")
	for _, ua := range agents {
		fmt.Fprintf(&b, "  {[\"User-Agent\"] = %s, [\"Accept\"] = %s},\n", luaString(ua),
			luaString("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"))
	}
	b.WriteString(`}
math.randomseed(1)
request = function()
  return wrk.format("GET", paths[math.random(#paths)], headers[math.random(#headers)])
end
`)
	return b.String()
}

// luaString quotes s as a Lua string literal: a double-quoted string
// whose every byte that is not printable ASCII, a quote or a backslash is
// written as a decimal escape, which Lua 5.1 and LuaJIT read alike.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			fmt.Fprintf(&b, "\\%03d", c)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String()
}

// typicalRedirect follows a sample of the links once each, checks every
// answer is a credited 302 (a Location and a cookie), and returns the
// headers of the one whose size is nearest the sample's mean, without
// those net/http writes itself (Date, Content-Length).
func typicalRedirect(ctx context.Context, base string, paths []string) (http.Header, error) {
	client := noRedirectClient()
	var heads []http.Header
	total := 0
	size := func(h http.Header) int {
		n := 0
		for k, vs := range h {
			for _, v := range vs {
				n += len(k) + len(v)
			}
		}
		return n
	}
	for i := 0; i < len(paths) && i < 50; i++ {
		path := paths[i*len(paths)/min(len(paths), 50)]
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("User-Agent", userAgents[i%len(userAgents)])
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") == "" || len(resp.Cookies()) == 0 {
			return nil, fmt.Errorf("GET %s: %s with Location %q and %d cookies, want a credited 302: %.300s",
				path, resp.Status, resp.Header.Get("Location"), len(resp.Cookies()), body)
		}
		h := resp.Header.Clone()
		h.Del("Date")
		h.Del("Content-Length")
		heads, total = append(heads, h), total+size(h)
	}
	if len(heads) == 0 {
		return nil, errors.New("no tracking links to sample")
	}
	mean := total / len(heads)
	best := heads[0]
	for _, h := range heads {
		if abs(size(h)-mean) < abs(size(best)-mean) {
			best = h
		}
	}
	return best, nil
}

// clickAll GETs every path once, a few at a time, as browsers would, and
// checks each is a 302.
func clickAll(ctx context.Context, base string, paths []string) error {
	const workers = 4
	client := noRedirectClient()
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := w; i < len(paths); i += workers {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+paths[i], nil)
				if err != nil {
					errs <- err
					return
				}
				req.Header.Set("User-Agent", userAgents[i%len(userAgents)])
				resp, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusFound {
					errs <- fmt.Errorf("GET %s: %s, want a 302", paths[i], resp.Status)
					return
				}
			}
			errs <- nil
		}()
	}
	var err error
	for range workers {
		err = errors.Join(err, <-errs)
	}
	return err
}

// redirectHandler answers every request with a 302 carrying head: a bare
// net/http handler doing what any redirect must, and nothing else.
func redirectHandler(head http.Header) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		for k, v := range head {
			h[k] = v
		}
		w.WriteHeader(http.StatusFound)
	})
}

// waitClicksWritten waits until the server holds no click unwritten.
func waitClicksWritten(ctx context.Context, base string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		held, err := scrapeMetric(ctx, base+"/metrics", "afftrack_clicks_held")
		if err != nil {
			return err
		}
		if held == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%v clicks still held after 30 s", held)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// scrapeMetric reads one series of the server's /metrics: name as the
// exposition writes it, labels and all, e.g.
// `afftrack_conversions_total{outcome="created"}`.
func scrapeMetric(ctx context.Context, url, name string) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("/metrics has no series %s", name)
}

// heldCheck describes the clicks still held when a run ends, and reports
// whether they show a click writer that cannot keep up with the
// redirects: more than half a second of them. One that keeps up holds
// about one flush interval's (100 ms); one that falls behind holds ever
// more, until its buffer is full and clicks are dropped, which a short run
// ended by a clean stop (that writes them all) would not show.
func heldCheck(held int64, perSecond float64) (string, bool) {
	s := fmt.Sprintf("%s held at the run's end", thousands(held))
	if perSecond > 0 {
		s += fmt.Sprintf(" (%.2f s of redirects)", float64(held)/perSecond)
	}
	behind := float64(held) > perSecond/2
	if behind {
		s += ": the click WRITER IS BEHIND"
	}
	return s, behind
}

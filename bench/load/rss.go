package main

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// rssTarget is issue 4's bound on the server's peak resident memory while
// it answers one request for a million transactions.
const rssTarget = 150 << 20

// rssRow is one whole-range request in one format on one backend, made to
// a server started for it alone, so that its peak memory is the request's.
type rssRow struct {
	Format, Backend string
	Transactions    int   // counted in the body
	Want            int   // the merchant's transactions, from the generator
	BodyBytes       int64 // read in full
	Took            time.Duration
	IdleHWM         int64 // the server's peak RSS before the request, in bytes
	PeakHWM         int64 // its peak RSS after the request, in bytes
}

// verdict is "pass" or "MISS" against rssTarget, and "FAILED" when the
// body did not hold every transaction.
func (r rssRow) verdict() string {
	switch {
	case r.Transactions != r.Want:
		return "FAILED"
	case r.PeakHWM < rssTarget:
		return "pass"
	}
	return "MISS"
}

// cells are the row's table cells, in the order of rssHeader.
func (r rssRow) cells() []string {
	return []string{r.Format, r.Backend, thousands(int64(r.Transactions)), thousands(r.BodyBytes),
		latency(r.Took), mib(r.IdleHWM), mib(r.PeakHWM), "< " + mib(rssTarget), r.verdict()}
}

var rssHeader = []string{"format", "backend", "transactions", "body bytes", "took",
	"peak RSS idle", "peak RSS after", "target", "result"}

func mib(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB" }

// rssPath is the request for every transaction of the largest merchant,
// over the whole span the generator filled.
func (b *bench) rssPath() string {
	n, s := b.cfg.Network, b.summary
	last := n.Start.AddDate(0, 0, n.Days-1)
	return fmt.Sprintf("/V1/Merchant/Transactions?apiKey=%s&fromDate=%s&toDate=%s", s.Largest.Key,
		n.Start.Format(time.DateOnly), last.Format(time.DateOnly))
}

// measureRSSBackend measures the whole-range request in each format on
// the backend, each with a server of its own.
func (b *bench) measureRSSBackend(ctx context.Context, be backend) error {
	for _, f := range formats {
		name := "rss " + f.Name + " " + be.Name
		if b.cfg.Only != nil && !b.cfg.Only.MatchString(name) {
			continue
		}
		fmt.Fprintln(b.progress, "load: measuring", name)
		r, err := b.measureRSS(ctx, be, f)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		b.rssRows = append(b.rssRows, r)
	}
	return nil
}

// measureRSS starts a server, asks it for every transaction of the
// largest merchant, reads and checks the body as it arrives (never holding
// it), and reads the server's peak RSS (VmHWM) before it stops.
func (b *bench) measureRSS(ctx context.Context, be backend, f format) (rssRow, error) {
	r := rssRow{Format: f.Name, Backend: be.Name, Want: b.summary.Largest.Transactions}
	logPath := filepath.Join(b.dir, "serve-rss-"+be.Name+"-"+strings.ToLower(f.Name)+".log")
	srv, err := startServer(ctx, b.bin, be.DSN, logPath, false)
	if err != nil {
		return r, err
	}
	defer srv.kill()
	if r.IdleHWM, err = peakRSS(srv.pid()); err != nil {
		return r, err
	}
	count := countJSON
	if f.Name == "XML" {
		count = countXML
	}
	t0 := time.Now()
	r.Transactions, r.BodyBytes, err = fetchCounting(ctx, srv.base+b.rssPath(), f.Accept, count)
	r.Took = time.Since(t0)
	if err != nil {
		return r, fmt.Errorf("%w; server log:\n%s", err, srv.logTail())
	}
	if r.PeakHWM, err = peakRSS(srv.pid()); err != nil {
		return r, err
	}
	return r, srv.stop()
}

// fetchCounting gets url with the given Accept header and passes the body,
// as it arrives, to count; it returns count's answer and the body's size.
func fetchCounting(ctx context.Context, url, accept string, count func(io.Reader) (int, error)) (int, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return 0, 0, fmt.Errorf("GET %s: %s: %s", redactKey(url), resp.Status, body)
	}
	cr := &countingReader{r: resp.Body}
	n, err := count(bufio.NewReaderSize(cr, 64<<10))
	if err != nil {
		return n, cr.n, fmt.Errorf("body of GET %s, after %d transactions and %d bytes: %w", redactKey(url), n, cr.n, err)
	}
	// Whatever follows the document must be nothing at all.
	if extra, err := io.Copy(io.Discard, cr); err != nil {
		return n, cr.n, err
	} else if extra > 0 {
		return n, cr.n, fmt.Errorf("body of GET %s: %d bytes after the document", redactKey(url), extra)
	}
	return n, cr.n, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// countJSON reads one JSON array of transaction objects, decoding each on
// its own so that memory stays small, and returns how many it held. Each
// must have an Id, and Ids must not repeat in a row, a cheap sign that the
// server did not write a transaction twice.
func countJSON(r io.Reader) (int, error) {
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil {
		return 0, err
	} else if tok != json.Delim('[') {
		return 0, fmt.Errorf("the body starts with %v, not an array", tok)
	}
	n := 0
	var prev int64
	for dec.More() {
		var t struct{ Id *int64 }
		if err := dec.Decode(&t); err != nil {
			return n, err
		}
		if t.Id == nil {
			return n, fmt.Errorf("transaction %d has no Id", n+1)
		}
		if n > 0 && *t.Id == prev {
			return n, fmt.Errorf("transaction %d repeats Id %d", n+1, prev)
		}
		prev = *t.Id
		n++
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return n, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return n, errors.New("more follows the array")
	}
	return n, nil
}

// countXML reads one XML document token by token, which checks that it is
// well formed, and returns how many Transaction elements its root element
// holds.
func countXML(r io.Reader) (int, error) {
	dec := xml.NewDecoder(r)
	n, depth, roots := 0, 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		} else if err != nil {
			return n, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				roots++
			}
			if depth == 2 && t.Name.Local == "Transaction" {
				n++
			}
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 {
		return n, fmt.Errorf("the document has %d root elements, not 1", roots)
	}
	return n, nil
}

// peakRSS reads the process's peak resident set size (VmHWM) from
// /proc/PID/status, in bytes.
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("peak RSS of process %d: %w (the RSS mode needs Linux's /proc)", pid, err)
	}
	return parseHWM(string(b))
}

// parseHWM finds VmHWM in the text of /proc/PID/status.
func parseHWM(status string) (int64, error) {
	for line := range strings.Lines(status) {
		v, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("unexpected VmHWM line %q", strings.TrimSpace(line))
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("unexpected VmHWM line %q", strings.TrimSpace(line))
		}
		return kb << 10, nil
	}
	return 0, errors.New("no VmHWM line in the process status")
}

// writeRSSText prints the memory table for a terminal.
func (rep *report) writeRSSText(w io.Writer) {
	fmt.Fprintf(w, "\n%s, commit %s\n%s\n%s\n\n", rep.at.Format(time.RFC3339), rep.commit, rep.machine, rep.rssSettings())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(rssHeader, "\t")+"\t")
	for _, r := range rep.rssRows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t")+"\t")
	}
	tw.Flush()
}

// rssSettings describes the request and the data set.
func (rep *report) rssSettings() string {
	n, s := rep.cfg.Network, rep.summary
	return fmt.Sprintf("network: %s transactions (%s items), %s merchants, %s affiliates, seed %d, %s from %s\n"+
		"request: every transaction of merchant %d (%s), %s to %s, one server process per format",
		thousands(int64(s.Transactions)), thousands(int64(s.Items)), thousands(int64(s.Merchants)),
		thousands(int64(s.Affiliates)), n.Seed, plural(n.Days, "day"), n.Start.Format(time.DateOnly),
		s.Largest.ID, thousands(int64(s.Largest.Transactions)), n.Start.Format(time.DateOnly),
		n.Start.AddDate(0, 0, n.Days-1).Format(time.DateOnly))
}

// rssMarkdown is the memory report as a Markdown section.
func (rep *report) rssMarkdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Memory, %s, commit %s\n\n", rep.at.Format("2006-01-02 15:04 MST"), rep.commit)
	fmt.Fprintf(&b, "Command: `go run ./bench/load %s`\n\n", rep.cmdline)
	fmt.Fprintf(&b, "Machine: %s\n\n", rep.machine)
	for line := range strings.Lines(rep.rssSettings()) {
		fmt.Fprintf(&b, "- %s", line)
	}
	b.WriteString("\n\n| " + strings.Join(rssHeader, " | ") + " |\n|---|---|")
	for range rssHeader[2:] {
		b.WriteString("--:|")
	}
	b.WriteString("\n")
	for _, r := range rep.rssRows {
		b.WriteString("| " + strings.Join(r.cells(), " | ") + " |\n")
	}
	return b.String()
}

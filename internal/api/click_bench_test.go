package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/afftrack/afftrack"
)

// uncountedClicks takes every click and keeps none, so the benchmark below
// measures the redirect's own work and not the click writer behind it.
type uncountedClicks struct{}

func (uncountedClicks) Add(afftrack.Click) bool     { return true }
func (uncountedClicks) Flush(context.Context) error { return nil }

// redirectRecorder keeps a response's status and headers and drops its
// body.
type redirectRecorder struct {
	h      http.Header
	status int
}

func (w *redirectRecorder) Header() http.Header         { return w.h }
func (w *redirectRecorder) WriteHeader(status int)      { w.status = status }
func (w *redirectRecorder) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkClickRedirect measures what a credited click costs in the
// process, middleware and request log line included, with the links in the
// link cache (their steady state) and browsers' User-Agents: the share of
// a redirect that is afftrack's own, beside the HTTP server's and the click
// writer's (docs/performance.md, "A fifth sitting"). The log is formatted
// as `serve` formats it and then discarded, so its write to a file, which
// costs about as much again under load, is not in the figure.
func BenchmarkClickRedirect(b *testing.B) {
	e := newTrackingEnv(b, trOptions{clicks: uncountedClicks{},
		logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := e.server.Handler()

	// Every credited link of the test network, each with a browser of
	// its own.
	links := []struct{ path, agent string }{
		{"/t/1/t/1", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"},
		{"/t/1/t/2?UniqueId=newsletter-42", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"},
		{"/t/1/b/1", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0"},
		{"/t/1/b/2", "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36"},
	}
	reqs := make([]*http.Request, len(links))
	for i, l := range links {
		r, err := http.NewRequest(http.MethodGet, e.srv.URL+l.path, nil)
		if err != nil {
			b.Fatal(err)
		}
		r.Header.Set("User-Agent", l.agent)
		r.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
		r.RemoteAddr = "203.0.113.7:50312"
		reqs[i] = r
	}
	w := &redirectRecorder{h: http.Header{}}
	for _, r := range reqs { // fills the link cache, and checks every link is credited
		clear(w.h)
		h.ServeHTTP(w, r)
		if w.status != http.StatusFound || w.h.Get("Set-Cookie") == "" {
			b.Fatalf("GET %s: %d with headers %v, want a credited 302", r.URL.Path, w.status, w.h)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, reqs[i%len(reqs)])
		i++
	}
}

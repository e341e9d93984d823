package ratelimit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// newJSONLogger returns a logger that writes JSON lines without their time
// to buf: the Failover's clock is fake, the logger's is not.
func newJSONLogger(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// logLines decodes the JSON log lines in buf.
func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var lines []map[string]any
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	for dec.More() {
		var line map[string]any
		if err := dec.Decode(&line); err != nil {
			t.Fatalf("log line: %v", err)
		}
		lines = append(lines, line)
	}
	return lines
}

func TestFailover(t *testing.T) {
	l := afftrack.Limits{PerMinute: 30, PerDay: 1000, Concurrent: 1}
	for _, tc := range []struct {
		name    string
		closed  bool
		want    afftrack.RateDecision
		message string
	}{
		{
			name:    "fail-open allows calls without window headers while Redis is down",
			closed:  false,
			want:    afftrack.RateDecision{Allowed: true},
			message: "rate limiter unavailable; allowing calls until it answers",
		},
		{
			name:    "fail-closed refuses calls, retry in a second, while Redis is down",
			closed:  true,
			want:    afftrack.RateDecision{RetryAfter: sec},
			message: "rate limiter unavailable; refusing calls until it answers",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			clock := &fakeClock{now: t0}
			errors := 0
			f := NewFailover(NewRedis(unreachableClient(t), RedisOptions{}), tc.closed, newJSONLogger(&buf), func() { errors++ }, clock.Now)

			var wantLogs []map[string]any
			for i, at := range []time.Duration{0, 0, 30 * sec, 60*sec - ms, 60 * sec, 61 * sec, 2 * time.Minute} {
				clock.now = t0.Add(at)
				d, release, err := f.Acquire(context.Background(), merchant42, l, clock.now)
				if err != nil {
					t.Fatalf("call %d: Acquire: %v", i, err)
				}
				if release == nil {
					t.Fatalf("call %d: nil release", i)
				}
				release()
				release()
				if diff := cmp.Diff(tc.want, d); diff != "" {
					t.Errorf("call %d: decision (-want +got):\n%s", i, diff)
				}
			}
			if errors != 7 {
				t.Errorf("onError called %d times for 7 failures", errors)
			}
			// A warning at 0, at 60 s (three failures unlogged since) and
			// at 2 min (one).
			for _, notLogged := range []float64{0, 3, 1} {
				wantLogs = append(wantLogs, map[string]any{
					"level": "WARN", "msg": tc.message, "failures_not_logged": notLogged,
				})
			}
			got := logLines(t, &buf)
			for _, line := range got {
				if err, _ := line["err"].(string); err == "" {
					t.Errorf("log line without the error: %v", line)
				}
				delete(line, "err")
			}
			if diff := cmp.Diff(wantLogs, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFailoverPassesDecisionsThrough(t *testing.T) {
	var buf bytes.Buffer
	errors := 0
	f := NewFailover(NewMemory(), true, newJSONLogger(&buf), func() { errors++ }, nil)
	l := afftrack.Limits{PerMinute: 5, Concurrent: 1}
	var got []afftrack.RateDecision
	for range 2 {
		d, release, err := f.Acquire(context.Background(), merchant42, l, t0)
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		got = append(got, d)
	}
	want := []afftrack.RateDecision{accepted(5, 4, 60*sec), refused(5, 4, 60*sec, sec)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if errors != 0 || buf.Len() != 0 {
		t.Errorf("a working limiter caused %d onError calls and logged %q", errors, buf.String())
	}
}

func TestFailoverReturnsTheErrorOfACallWhoseContextIsDone(t *testing.T) {
	var buf bytes.Buffer
	errors := 0
	f := NewFailover(NewRedis(unreachableClient(t), RedisOptions{}), false, newJSONLogger(&buf), func() { errors++ }, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, release, err := f.Acquire(ctx, merchant42, afftrack.Limits{PerMinute: 5}, t0)
	if err == nil || release != nil {
		t.Fatalf("Acquire with a cancelled context: err %v, release nil %v; want an error and no release", err, release == nil)
	}
	if errors != 0 || buf.Len() != 0 {
		t.Errorf("a cancelled call caused %d onError calls and logged %q", errors, buf.String())
	}
}

func TestFailoverPeekReportsNoBudgetWhileRedisIsDown(t *testing.T) {
	for _, closed := range []bool{false, true} {
		t.Run(fmt.Sprintf("closed %v", closed), func(t *testing.T) {
			errors := 0
			f := NewFailover(NewRedis(unreachableClient(t), RedisOptions{}), closed, nil, func() { errors++ }, nil)
			d, err := f.Peek(context.Background(), merchant42, afftrack.Limits{PerMinute: 30}, t0)
			if err != nil {
				t.Fatal(err)
			}
			if d != (afftrack.RateDecision{}) {
				t.Errorf("decision %+v, want none (no headers)", d)
			}
			if errors != 1 {
				t.Errorf("onError called %d times for one failure", errors)
			}
		})
	}
}

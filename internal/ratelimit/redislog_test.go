package ratelimit

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRedisLogger(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	handler := slog.NewJSONHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})
	l := NewRedisLogger(slog.New(handler), time.Minute, func() time.Time { return now })
	ctx := context.Background()
	l.Printf(ctx, "redis: dial %s: %v", "127.0.0.1:1", "connection refused")
	for range 5 {
		l.Printf(ctx, "redis: dial %s: %v", "127.0.0.1:1", "connection refused")
	}
	l.Printf(ctx, "redis: pool %d", 3) // another format is logged at once
	now = now.Add(time.Minute)
	l.Printf(ctx, "redis: dial %s: %v", "127.0.0.1:1", "connection refused")

	var got []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", line, err)
		}
		got = append(got, m)
	}
	want := []map[string]any{
		{"level": "WARN", "msg": "redis client", "detail": "redis: dial 127.0.0.1:1: connection refused"},
		{"level": "WARN", "msg": "redis client", "detail": "redis: pool 3"},
		{"level": "WARN", "msg": "redis client", "detail": "redis: dial 127.0.0.1:1: connection refused", "suppressed": float64(5)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log lines (-want +got):\n%s", diff)
	}
}

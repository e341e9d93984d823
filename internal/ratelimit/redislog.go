package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// RedisLogger carries the go-redis client's own log lines (pool and
// connection trouble) into the service's logger, so they take its format
// (JSON with --log-format json) instead of go-redis's plain lines on
// standard error. While Redis is down the client may say the same thing on
// every call, so each distinct message format is logged at most once per
// interval; the lines in between are counted and the count reported with
// the next one.
type RedisLogger struct {
	logger *slog.Logger
	every  time.Duration
	now    func() time.Time

	mu   sync.Mutex
	seen map[string]*redisLogEntry
}

type redisLogEntry struct {
	last       time.Time
	suppressed int
}

// maxRedisFormats bounds the formats remembered; go-redis has a few dozen.
const maxRedisFormats = 256

// NewRedisLogger returns a RedisLogger writing to logger at most once per
// every for each message format; now is the clock (nil: time.Now).
func NewRedisLogger(logger *slog.Logger, every time.Duration, now func() time.Time) *RedisLogger {
	if now == nil {
		now = time.Now
	}
	return &RedisLogger{logger: logger, every: every, now: now, seen: map[string]*redisLogEntry{}}
}

// Printf implements go-redis's internal.Logging.
func (l *RedisLogger) Printf(ctx context.Context, format string, v ...any) {
	now := l.now()
	l.mu.Lock()
	e := l.seen[format]
	if e == nil {
		if len(l.seen) >= maxRedisFormats {
			clear(l.seen)
		}
		e = &redisLogEntry{}
		l.seen[format] = e
	} else if now.Sub(e.last) < l.every {
		e.suppressed++
		l.mu.Unlock()
		return
	}
	suppressed := e.suppressed
	e.last, e.suppressed = now, 0
	l.mu.Unlock()
	attrs := []slog.Attr{slog.String("detail", fmt.Sprintf(format, v...))}
	if suppressed > 0 {
		attrs = append(attrs, slog.Int("suppressed", suppressed))
	}
	l.logger.LogAttrs(ctx, slog.LevelWarn, "redis client", attrs...)
}

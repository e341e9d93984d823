package logbuf_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack/internal/logbuf"
)

// recorder is an io.Writer that keeps every call's bytes.
type recorder struct {
	mu    sync.Mutex
	calls []string
	err   error
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return 0, r.err
	}
	r.calls = append(r.calls, string(p))
	return len(p), nil
}

func (r *recorder) written() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

func TestWriter(t *testing.T) {
	t.Run("holds lines until the interval has passed, then writes them in one call", func(t *testing.T) {
		rec := &recorder{}
		w := logbuf.New(rec, 50*time.Millisecond, 1<<10)
		defer w.Close()
		start := time.Now()
		for _, line := range []string{"a\n", "b\n", "c\n"} {
			if n, err := w.Write([]byte(line)); n != len(line) || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		if got := rec.written(); len(got) != 0 && time.Since(start) < 50*time.Millisecond {
			t.Fatalf("written before the interval: %q", got)
		}
		deadline := time.Now().Add(5 * time.Second)
		for len(rec.written()) == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if diff := cmp.Diff([]string{"a\nb\nc\n"}, rec.written()); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
	})
	t.Run("writes at once when the next line would overflow the buffer", func(t *testing.T) {
		rec := &recorder{}
		w := logbuf.New(rec, time.Hour, 10)
		defer w.Close()
		for _, line := range []string{"1234\n", "5678\n", "90\n"} {
			w.Write([]byte(line))
		}
		if diff := cmp.Diff([]string{"1234\n5678\n"}, rec.written()); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
	})
	t.Run("passes on a line longer than the buffer whole", func(t *testing.T) {
		rec := &recorder{}
		w := logbuf.New(rec, time.Hour, 4)
		long := strings.Repeat("x", 10) + "\n"
		w.Write([]byte("a\n"))
		w.Write([]byte(long))
		w.Write([]byte("b\n"))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"a\n", long, "b\n"}, rec.written()); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
	})
	t.Run("keeps every writer's lines whole and in order", func(t *testing.T) {
		rec := &recorder{}
		w := logbuf.New(rec, time.Millisecond, 64)
		const writers, lines = 8, 500
		var wg sync.WaitGroup
		for g := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range lines {
					fmt.Fprintf(w, "writer %d line %d\n", g, i)
				}
			}()
		}
		wg.Wait()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		next := make([]int, writers)
		out := strings.Join(rec.written(), "")
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			var g, i int
			if _, err := fmt.Sscanf(line, "writer %d line %d", &g, &i); err != nil || g < 0 || g >= writers {
				t.Fatalf("torn line %q", line)
			}
			if i != next[g] {
				t.Fatalf("writer %d: line %d after line %d", g, i, next[g]-1)
			}
			next[g]++
		}
		for g, n := range next {
			if n != lines {
				t.Errorf("writer %d: %d lines out, want %d", g, n, lines)
			}
		}
	})
	t.Run("Close writes what is held and later lines go straight through", func(t *testing.T) {
		rec := &recorder{}
		w := logbuf.New(rec, time.Hour, 1<<10)
		w.Write([]byte("held\n"))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("after\n"))
		if diff := cmp.Diff([]string{"held\n", "after\n"}, rec.written()); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
	})
	t.Run("Flush reports the underlying writer's error", func(t *testing.T) {
		broken := errors.New("disk full")
		rec := &recorder{err: broken}
		w := logbuf.New(rec, time.Hour, 1<<10)
		if _, err := w.Write([]byte("line\n")); err != nil {
			t.Fatalf("Write = %v, want no error until the flush", err)
		}
		if err := w.Flush(); !errors.Is(err, broken) {
			t.Errorf("Flush = %v, want %v", err, broken)
		}
	})
}

// BenchmarkWrite compares a log line written through a Writer with one
// written straight to the file, as the server's log would be.
func BenchmarkWrite(b *testing.B) {
	line := []byte(`time=2026-11-22T08:21:14.123Z level=INFO msg=request method=GET url="/V1/Merchant/Transactions/434222?apiKey=REDACTED" status=200 bytes=1561 duration=212.5µs request_id=8f3a2c4c1d account=merchant:471` + "\n")
	open := func(b *testing.B) *os.File {
		f, err := os.Create(filepath.Join(b.TempDir(), "log"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		return f
	}
	b.Run("direct", func(b *testing.B) {
		f := open(b)
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			f.Write(line)
		}
	})
	b.Run("buffered", func(b *testing.B) {
		w := logbuf.New(open(b), 100*time.Millisecond, 64<<10)
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			w.Write(line)
		}
		w.Close()
	})
}

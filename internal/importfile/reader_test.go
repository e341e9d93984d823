package importfile_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/importfile"
)

// spaced serves head, then n bytes of white space c, then tail, without
// holding the white space, and counts the bytes it has served.
type spaced struct {
	head, tail string
	c          byte
	n          int64
	served     atomic.Int64 // read by the test while the reader may read on
}

func (s *spaced) Read(p []byte) (int, error) {
	var n int
	for n < len(p) {
		switch at := s.served.Load(); {
		case at < int64(len(s.head)):
			p[n] = s.head[at]
		case at < int64(len(s.head))+s.n:
			p[n] = s.c
		case at < int64(len(s.head))+s.n+int64(len(s.tail)):
			p[n] = s.tail[at-int64(len(s.head))-s.n]
		default:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
		n++
		s.served.Add(1)
	}
	return n, nil
}

// TestAWhiteSpaceRunIsRefusedAsItIsRead: encoding/json keeps the white
// space it looks past between two tokens, so a long run is refused once
// it passes 1 MiB, naming its byte, before more of it is read: 64 MiB of
// it would otherwise be held whole.
func TestAWhiteSpaceRunIsRefusedAsItIsRead(t *testing.T) {
	for _, tt := range []struct {
		name, head, tail string
		c                byte
		want             string
	}{
		{"in the file's object", `{`, `}`, ' ', "the white space at byte 1 runs longer than 1048576 bytes"},
		{"in a collection", `{"Merchants": [`, `]}`, ' ', "the white space at byte 15 runs longer than 1048576 bytes"},
		{"between two records", `{"Merchants": [{"Id": 1, "Name": "x"},`, `{"Id": 2, "Name": "y"}]}`, '\t',
			"Merchants[1]: the white space at byte 38 runs longer than 1048576 bytes"},
		{"after the file's object", `{}`, ``, '\n', "the white space at byte 2 runs longer than 1048576 bytes"},
		{"in a record", `{"Merchants": [{"Id": 1,`, `"Name": "x"}]}`, '\r',
			"Merchants[0]: the white space at byte 24 runs longer than 1048576 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := &spaced{head: tt.head, tail: tt.tail, c: tt.c, n: 64 << 20}
			_, err := importfile.Parse(in, time.UTC)
			if got := afftrack.ErrorMessage(err); got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
			if n := in.served.Load(); n > 2<<20 {
				t.Errorf("%d bytes read, want the run refused within its first 2 MiB", n)
			}
		})
	}
	t.Run("a run of 1 MiB is white space like any other", func(t *testing.T) {
		in := &spaced{head: `{"Merchants": [`, tail: `{"Id": 1, "Name": "x"}]}`, c: '\n', n: 1 << 20}
		if d, err := importfile.Parse(in, time.UTC); err != nil || len(d.Merchants) != 1 {
			t.Errorf("Parse: %v", err)
		}
	})
}

// endless serves a Merchants collection that never ends, counting the
// reads it begins once stopped.
type endless struct {
	next    int
	buf     []byte
	stopped atomic.Bool
	after   atomic.Int32
}

func (e *endless) Read(p []byte) (int, error) {
	if e.stopped.Load() {
		e.after.Add(1)
	}
	if len(e.buf) == 0 {
		if e.next == 0 {
			e.buf = append(e.buf, `{"Merchants": [`...)
		}
		e.next++
		e.buf = fmt.Appendf(e.buf, `{"Id": %d, "Name": "m"},`, e.next)
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

func TestReaderStopsReadingOnceItsContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &endless{}
	rd := importfile.NewReader(ctx, in, importfile.Options{ChunkSize: 10})
	defer rd.Close()
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	in.stopped.Store(true)
	cancel()
	var err error
	// What the reader had buffered it may still hand on; a chunk is ten
	// records of about 25 bytes, so a few thousand chunks would mean it
	// read on.
	for range 10_000 {
		if _, err = rd.Next(); err != nil {
			break
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Next: %v, want the context's error", err)
	}
	// The reader reads a buffer ahead: one read under way may end.
	if n := in.after.Load(); n > 1 {
		t.Errorf("the file was read %d times after the context was done, want at most once", n)
	}
}

// stalled serves head, then waits in Read until released, as standard
// input does while nothing is written to it; entered is closed when it
// begins to wait.
type stalled struct {
	head     string
	entered  chan struct{}
	released chan struct{}
}

func (s *stalled) Read(p []byte) (int, error) {
	if s.head != "" {
		n := copy(p, s.head)
		s.head = s.head[n:]
		return n, nil
	}
	close(s.entered)
	<-s.released
	return 0, io.EOF
}

func TestReaderStopsWaitingForInputOnceItsContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &stalled{head: `{"Merchants": [{"Id": 1, "Name": "m"},`, entered: make(chan struct{}), released: make(chan struct{})}
	defer close(in.released)
	errs := make(chan error)
	go func() {
		rd := importfile.NewReader(ctx, in, importfile.Options{})
		defer rd.Close()
		_, err := rd.Next()
		errs <- err
	}()
	<-in.entered
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("Next: %v, want the context's error", err)
	}
}

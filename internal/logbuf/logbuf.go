// Package logbuf gathers a server's log lines and writes them out in
// batches, so that a request's log line does not cost a system call of its
// own.
//
// A busy server logs a line per request. Written one at a time, each line
// is a write(2) to the log's file or pipe: measured, some 5% of the CPU of
// a lookup by id. Gathered for a short interval, thousands of lines leave
// in one write. The price is the interval: a process killed without warning
// loses at most its last interval of lines, and a line reaches the log at
// most an interval late. A process that stops normally calls Close, which
// writes everything.
package logbuf

import (
	"io"
	"sync"
	"time"
)

// Writer is an io.Writer that holds what is written to it for up to an
// interval, or until it holds size bytes, and then writes it to the
// underlying writer in one call, in order. It is safe for concurrent use.
//
// Every Write is kept whole: a log handler writes one record per call, so
// the lines a Writer passes on are the lines it was given.
type Writer struct {
	w        io.Writer
	interval time.Duration
	size     int

	// out is held while the held bytes are written to w, so batches
	// leave in the order they were taken. It is taken before mu.
	out sync.Mutex

	mu     sync.Mutex
	buf    []byte // held bytes
	spare  []byte // the other buffer, written from while buf fills
	timer  *time.Timer
	armed  bool // the timer will flush
	closed bool
	err    error // the first error from w, returned by Flush and Close
}

// New returns a Writer to w that holds lines for at most interval and at
// most size bytes at a time. interval must be positive.
func New(w io.Writer, interval time.Duration, size int) *Writer {
	b := &Writer{w: w, interval: interval, size: size,
		buf: make([]byte, 0, size), spare: make([]byte, 0, size)}
	b.timer = time.AfterFunc(time.Hour, func() { _ = b.flush(true) })
	b.timer.Stop()
	return b
}

// Write holds p until the next flush. It never fails: an error of the
// underlying writer is reported by Flush and Close, as a logger has no one
// to report it to per line.
func (b *Writer) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.closed {
		// After Close there is no flush to wait for: write through.
		b.mu.Unlock()
		b.out.Lock()
		defer b.out.Unlock()
		return b.w.Write(p)
	}
	if len(b.buf)+len(p) > b.size && len(b.buf) > 0 {
		b.mu.Unlock()
		_ = b.flush(false)
		b.mu.Lock()
	}
	b.buf = append(b.buf, p...)
	if !b.armed {
		b.armed = true
		b.timer.Reset(b.interval)
	}
	b.mu.Unlock()
	return len(p), nil
}

// Flush writes everything held so far.
func (b *Writer) Flush() error { return b.flush(false) }

// Close writes everything held and stops the timer; later writes go
// straight to the underlying writer.
func (b *Writer) Close() error {
	b.mu.Lock()
	b.closed = true
	b.timer.Stop()
	b.mu.Unlock()
	return b.flush(false)
}

// flush writes the held bytes. fromTimer tells the timer's own call,
// which disarms it.
func (b *Writer) flush(fromTimer bool) error {
	b.out.Lock()
	defer b.out.Unlock()
	b.mu.Lock()
	if fromTimer {
		b.armed = false
	}
	held := b.buf
	b.buf, b.spare = b.spare[:0], nil
	b.mu.Unlock()

	var err error
	if len(held) > 0 {
		_, err = b.w.Write(held)
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	if cap(held) > b.size {
		// A line longer than size grew the buffer: do not keep it.
		held = make([]byte, 0, b.size)
	}
	b.spare = held[:0]
	if err != nil && b.err == nil {
		b.err = err
	}
	return b.err
}

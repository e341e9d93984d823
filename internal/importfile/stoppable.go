package importfile

import (
	"context"
	"io"
	"sync"
)

// stoppable reads r a buffer ahead, in a goroutine of its own, so that a
// Read returns once ctx is done even while r's Read waits: standard
// input with nothing coming (a terminal, a pipe whose writer stalls)
// would otherwise hold the import past a signal, which restarts the
// system's read rather than ending it.
type stoppable struct {
	ctx   context.Context
	full  chan filled   // read, to be handed on
	empty chan []byte   // handed on, to be read into again
	done  chan struct{} // closed by close: the goroutine ends
	once  sync.Once
	rest  []byte // of the buffer being handed on
	buf   []byte // that buffer, whole
	err   error  // r's, once rest is handed on; or the context's
}

// filled is one Read of r.
type filled struct {
	b   []byte
	err error
}

// stoppableBuffer is the size of stoppable's two buffers.
const stoppableBuffer = 64 << 10

func newStoppable(ctx context.Context, r io.Reader) *stoppable {
	s := &stoppable{ctx: ctx, full: make(chan filled, 1), empty: make(chan []byte, 2), done: make(chan struct{})}
	s.empty <- make([]byte, stoppableBuffer)
	s.empty <- make([]byte, stoppableBuffer)
	go s.fill(r)
	return s
}

func (s *stoppable) fill(r io.Reader) {
	for {
		var buf []byte
		select {
		case buf = <-s.empty:
		case <-s.done:
			return
		case <-s.ctx.Done():
			return
		}
		n, err := r.Read(buf)
		select {
		case s.full <- filled{buf[:n], err}:
		case <-s.done:
			return
		case <-s.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

func (s *stoppable) Read(p []byte) (int, error) {
	if s.ctx.Err() != nil {
		return 0, context.Cause(s.ctx)
	}
	for len(s.rest) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		if s.buf != nil {
			s.empty <- s.buf[:cap(s.buf)] // one of two: there is room
			s.buf = nil
		}
		select {
		case f := <-s.full:
			s.buf, s.rest, s.err = f.b, f.b, f.err
		case <-s.ctx.Done():
			return 0, context.Cause(s.ctx)
		}
	}
	n := copy(p, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}

// close ends the goroutine, unless it waits on r's Read: then it ends
// with that Read.
func (s *stoppable) close() { s.once.Do(func() { close(s.done) }) }

// StopOnDone returns a reader of r whose Read returns context.Cause(ctx)
// once ctx is done, even while r's Read waits (standard input with
// nothing coming), and what ends its goroutine: a command reading a file
// a user is still typing, or a stalled pipe, stops at a signal.
func StopOnDone(ctx context.Context, r io.Reader) (io.Reader, func()) {
	s := newStoppable(ctx, r)
	return s, s.close
}

package main

import (
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// capConns bounds the connections open at once on ln to max (0: no
// bound). A connection beyond it takes the place of one that has long
// waited for a request: first one silent for minSilent since it connected
// (a client that connects and sends nothing, or a request's first bytes
// and no more), else one idle for minIdle since its last answer; the one
// that has waited the longest goes. So clients which only hold
// connections cannot shut new ones out for the minutes of the idle
// timeout, and a flood of silent connections takes the places of its own
// kind before a client's that pauses between requests. The server's
// ConnState must be the listener's. With none such, the new connection is
// accepted and closed at once rather than left in the kernel's queue: the
// client learns straight away, and the process never runs out of file
// descriptors however many clients connect and dawdle.
func capConns(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		return ln
	}
	return &cappedListener{Listener: ln, slots: make(chan struct{}, max), conns: map[*cappedConn]struct{}{},
		minSilent: minSilent, minIdle: minIdle}
}

// capped pairs srv with ln, telling a capped listener the states of its
// connections, which it needs to know which may give their place up.
func capped(srv *http.Server, ln net.Listener) listening {
	if cl, ok := ln.(*cappedListener); ok {
		srv.ConnState = cl.ConnState
	}
	return listening{http: srv, ln: ln}
}

// minSilent is how long a connection must have been silent since it
// connected before a new one may take its place: a client sends its
// request as soon as it connects.
const minSilent = 2 * time.Second

// minIdle is how long a connection must have been idle since its last
// answer before a new one may take its place: beyond the pauses of a
// client that polls every few seconds, so only one its client has left
// alone goes, as at the idle timeout, which every HTTP client must expect.
const minIdle = 10 * time.Second

// evictionWait bounds how long a connection beyond the cap waits for the
// place of the one told to go.
const evictionWait = 100 * time.Millisecond

type cappedListener struct {
	net.Listener
	slots              chan struct{}
	minSilent, minIdle time.Duration

	mu    sync.Mutex
	conns map[*cappedConn]struct{}
}

// Accept returns the next connection for which there is a place.
func (l *cappedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return l.track(c), nil
		default:
		}
		if l.evict(time.Now()) {
			t := time.NewTimer(evictionWait)
			select {
			case l.slots <- struct{}{}:
				t.Stop()
				return l.track(c), nil
			case <-t.C:
			}
		}
		c.Close()
	}
}

// track returns c as a connection holding a place, waiting for its first
// request.
func (l *cappedListener) track(c net.Conn) *cappedConn {
	cc := &cappedConn{Conn: c, l: l}
	cc.waiting.Store(time.Now().UnixNano())
	l.mu.Lock()
	l.conns[cc] = struct{}{}
	l.mu.Unlock()
	return cc
}

// evict tells the connection that has waited the longest for a request,
// of those silent for minSilent or, with none, of those idle for minIdle,
// to stop: its read deadline is set to now, so net/http, waiting to read
// its next request, closes it as at its idle timeout. A request that has
// just arrived is not cut: net/http sets its own deadlines as it reads
// one, and the answer's writes have none of ours. It reports whether one
// was told.
func (l *cappedListener) evict(now time.Time) bool {
	silent, idle := now.Add(-l.minSilent).UnixNano(), now.Add(-l.minIdle).UnixNano()
	l.mu.Lock()
	var oldest *cappedConn
	var since int64
	oldestSilent := false
	for c := range l.conns {
		w := c.waiting.Load()
		isSilent := !c.answered.Load()
		switch {
		case w == 0, isSilent && w > silent, !isSilent && w > idle:
			continue // not waiting, or not for long enough
		case oldest == nil, isSilent && !oldestSilent, isSilent == oldestSilent && w < since:
			oldest, since, oldestSilent = c, w, isSilent
		}
	}
	if oldest != nil && !oldest.waiting.CompareAndSwap(since, 0) {
		oldest = nil // a request began meanwhile
	}
	l.mu.Unlock()
	if oldest == nil {
		return false
	}
	_ = oldest.SetReadDeadline(now)
	return true
}

// ConnState keeps, for evict, since when each connection has waited for
// a request: from its last answer (idle) until the next request is read
// (active).
func (l *cappedListener) ConnState(c net.Conn, s http.ConnState) {
	cc, ok := c.(*cappedConn)
	if !ok {
		return
	}
	switch s {
	case http.StateIdle:
		cc.answered.Store(true)
		cc.waiting.Store(time.Now().UnixNano())
	case http.StateActive, http.StateHijacked, http.StateClosed:
		cc.waiting.Store(0)
	}
}

// cappedConn gives its place back when it is closed, once.
type cappedConn struct {
	net.Conn
	l        *cappedListener
	once     sync.Once
	waiting  atomic.Int64 // Unix nanoseconds since it waits for a request; 0: it does not
	answered atomic.Bool  // it has been answered a request, so it waits idle, not silent
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
		<-c.l.slots
	})
	return err
}

// sendBuffer is the kernel's send buffer asked for each client connection
// (Linux doubles it). Left to itself the kernel grows a buffer up to 4 MB
// for a client that reads slowly, and wakes a blocked write only once a
// third of it has drained: a client taking a long list at a steady 30 KB/s
// then made no progress the write deadline could see for 30 s and was cut
// mid-list. With this buffer a write blocks for at most about 170 KB of
// what the client's side takes; its receive buffer, which opens its
// window in steps, sets the rest, so a steady reader at 12 KB/s keeps a
// long list and one at 7 KB/s may not (docs/api.md). A connection can
// still have 512 KB in flight, some 2.5 MB/s at 200 ms of round trip.
const sendBuffer = 256 << 10

// boundSendBuffers sets each accepted TCP connection's send buffer to
// sendBuffer.
func boundSendBuffers(ln net.Listener) net.Listener { return sendBoundListener{ln} }

type sendBoundListener struct{ net.Listener }

// Accept returns the next connection with its send buffer bounded.
func (l sendBoundListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		// An error leaves the kernel's own buffer, as before.
		_ = tc.SetWriteBuffer(sendBuffer)
	}
	return c, err
}

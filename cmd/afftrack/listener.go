package main

import (
	"net"
	"net/http"
	"sync"
)

// capConns bounds the connections open at once on ln to max (0: no
// bound). A connection beyond it takes the place of the connection idle
// the longest between requests, which is closed, as a server stopping
// closes its idle ones (a client sends its next request on a new
// connection); with none idle it is accepted and closed at once rather
// than left in the kernel's queue: the client learns straight away, and
// the process never runs out of file descriptors however many clients
// connect and then dawdle. Without the first rule, clients that keep
// connections open between requests held every place for the
// 2 minutes of the server's IdleTimeout. The server of the listener
// must report its connections' states to ConnState.
func capConns(ln net.Listener, max int) *cappedListener {
	l := &cappedListener{Listener: ln, idle: map[*cappedConn]uint64{}}
	if max > 0 {
		l.slots = make(chan struct{}, max)
	}
	return l
}

// cappedListener is a listener of capConns.
type cappedListener struct {
	net.Listener
	slots chan struct{} // nil: no bound

	mu   sync.Mutex
	idle map[*cappedConn]uint64 // connections idle between requests, by when they became so
	seq  uint64
}

// Accept returns the next connection for which there is a place.
func (l *cappedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.slots == nil {
			return c, nil
		}
		if l.take() || (l.closeLongestIdle() && l.take()) {
			return &cappedConn{Conn: c, free: func() { <-l.slots }}, nil
		}
		c.Close()
	}
}

// take takes a place, if one is free.
func (l *cappedListener) take() bool {
	select {
	case l.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// closeLongestIdle closes the connection idle the longest, if any,
// giving back its place.
func (l *cappedListener) closeLongestIdle() bool {
	l.mu.Lock()
	var oldest *cappedConn
	for c, since := range l.idle {
		if oldest == nil || since < l.idle[oldest] {
			oldest = c
		}
	}
	delete(l.idle, oldest)
	l.mu.Unlock()
	if oldest == nil {
		return false
	}
	oldest.Close()
	return true
}

// ConnState follows the states of the listener's connections, as an
// http.Server's ConnState hook.
func (l *cappedListener) ConnState(c net.Conn, state http.ConnState) {
	cc, ok := c.(*cappedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	if state == http.StateIdle {
		l.seq++
		l.idle[cc] = l.seq
	} else {
		delete(l.idle, cc)
	}
	l.mu.Unlock()
}

// cappedConn gives its place back when it is closed, once.
type cappedConn struct {
	net.Conn
	once sync.Once
	free func()
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
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

package main

import (
	"net"
	"sync"
)

// capConns bounds the connections open at once on ln to max (0: no
// bound). A connection beyond it is accepted and closed at once rather
// than left in the kernel's queue: the client learns straight away, and
// the process never runs out of file descriptors however many clients
// connect and then dawdle.
func capConns(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		return ln
	}
	return &cappedListener{Listener: ln, slots: make(chan struct{}, max)}
}

type cappedListener struct {
	net.Listener
	slots chan struct{}
}

// Accept returns the next connection for which there is a slot.
func (l *cappedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &cappedConn{Conn: c, free: func() { <-l.slots }}, nil
		default:
			c.Close()
		}
	}
}

// cappedConn gives its slot back when it is closed, once.
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

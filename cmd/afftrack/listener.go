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

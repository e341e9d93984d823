package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestAConnectionBeyondTheCap: a connection beyond --max-conns takes the
// place of one that has waited long enough for a request, a silent one
// before one idle between requests, and is closed on arrival when none
// has; a connection whose request is being answered keeps its place
// however long it takes.
func TestAConnectionBeyondTheCap(t *testing.T) {
	const wait = 300 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	capped := capConns(ln, 2).(*cappedListener)
	capped.minSilent, capped.minIdle = wait, wait
	release := make(chan struct{})
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				<-release
			}
			io.WriteString(w, "ok")
		}),
		ConnState: capped.ConnState,
	}
	go srv.Serve(capped)
	t.Cleanup(func() { srv.Close() })
	addr := ln.Addr().String()

	dial := func(t *testing.T) (net.Conn, *bufio.Reader) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c, bufio.NewReader(c)
	}
	// get sends a request for path on c and reports whether its answer came.
	get := func(c net.Conn, br *bufio.Reader, path string) bool {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return false
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return false
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	// closed reports whether the server closed c.
	closed := func(c net.Conn, br *bufio.Reader) bool {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := br.ReadByte()
		return err == io.EOF
	}
	// drained closes cs and waits until every connection of a subtest has
	// given its place back.
	drained := func(t *testing.T, cs ...net.Conn) {
		t.Helper()
		for _, c := range cs {
			c.Close()
		}
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if len(capped.slots) == 0 {
				return
			}
		}
		t.Fatal("the connections' places were never given back")
	}
	// newcomer dials a connection beyond the cap and fails t unless it is
	// served.
	newcomer := func(t *testing.T) net.Conn {
		t.Helper()
		c, r := dial(t)
		if !get(c, r, "/") {
			t.Fatal("a third connection was not served")
		}
		return c
	}

	t.Run("a connection idle between requests long enough gives its place, the longest idle first", func(t *testing.T) {
		c1, r1 := dial(t)
		c2, r2 := dial(t)
		if !get(c1, r1, "/") || !get(c2, r2, "/") {
			t.Fatal("the first two connections were not served")
		}
		time.Sleep(wait / 3)
		if !get(c2, r2, "/") { // c2 idle again, later than c1
			t.Fatal("the second connection's second request was not served")
		}
		time.Sleep(wait + wait/3) // both idle long enough, c1 the longer
		c3 := newcomer(t)
		if !closed(c1, r1) {
			t.Error("the connection idle the longest was not closed")
		}
		if !get(c2, r2, "/") {
			t.Error("the other idle connection was closed too")
		}
		drained(t, c2, c3)
	})

	t.Run("a connection silent since it connected gives its place", func(t *testing.T) {
		c1, r1 := dial(t)
		c2, r2 := dial(t)
		io.WriteString(c2, "GET / HTTP/1.1\r\n") // half a request, then nothing
		time.Sleep(wait + wait/3)
		c3 := newcomer(t)
		if !closed(c1, r1) && !closed(c2, r2) {
			t.Error("neither silent connection was closed")
		}
		drained(t, c1, c2, c3)
	})

	t.Run("a silent connection gives its place before one idle between requests", func(t *testing.T) {
		c1, r1 := dial(t)
		if !get(c1, r1, "/") {
			t.Fatal("the first connection was not served")
		}
		time.Sleep(wait) // c1 idle long enough, and longer than c2 will be silent
		c2, r2 := dial(t)
		io.WriteString(c2, "GET / HTTP/1.1\r\n")
		time.Sleep(wait + wait/3)
		c3 := newcomer(t)
		if !closed(c2, r2) {
			t.Error("the silent connection was not closed")
		}
		if !get(c1, r1, "/") {
			t.Error("the idle connection was closed instead")
		}
		drained(t, c1, c3)
	})

	t.Run("connections that have just been answered keep their places", func(t *testing.T) {
		c1, r1 := dial(t)
		c2, r2 := dial(t)
		if !get(c1, r1, "/") || !get(c2, r2, "/") {
			t.Fatal("the first two connections were not served")
		}
		c3, r3 := dial(t)
		if !closed(c3, r3) {
			t.Error("a connection beyond the cap was not closed")
		}
		if !get(c1, r1, "/") || !get(c2, r2, "/") {
			t.Error("a busy connection lost its place")
		}
		drained(t, c1, c2)
	})

	t.Run("a connection whose answer takes long keeps its place", func(t *testing.T) {
		c1, r1 := dial(t)
		c2, r2 := dial(t)
		answered := make(chan bool, 2)
		go func() { answered <- get(c1, r1, "/slow") }()
		go func() { answered <- get(c2, r2, "/slow") }()
		time.Sleep(wait + wait/3)
		c3, r3 := dial(t)
		if !closed(c3, r3) {
			t.Error("a connection beyond the cap was not closed")
		}
		close(release)
		if !<-answered || !<-answered {
			t.Error("a slow request was cut")
		}
	})
}

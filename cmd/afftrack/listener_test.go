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
// place of the one idle the longest between requests, and is closed on
// arrival only when none is idle.
func TestAConnectionBeyondTheCap(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	capped := capConns(ln, 2)
	srv := &http.Server{
		Handler:   http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }),
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
	// get sends a request on c and reports whether its answer came.
	get := func(c net.Conn, br *bufio.Reader) bool {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
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
	// idle waits until n connections are idle between requests.
	idle := func(t *testing.T, n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			capped.mu.Lock()
			got := len(capped.idle)
			capped.mu.Unlock()
			if got == n {
				return
			}
		}
		t.Fatalf("connections idle never became %d", n)
	}
	// closed reports whether the server closed c.
	closed := func(c net.Conn, br *bufio.Reader) bool {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := br.ReadByte()
		return err == io.EOF
	}

	t.Run("takes the place of the connection idle the longest", func(t *testing.T) {
		c1, r1 := dial(t)
		c2, r2 := dial(t)
		if !get(c1, r1) || !get(c2, r2) {
			t.Fatal("the first two connections were not served")
		}
		idle(t, 2)
		if !get(c2, r2) { // c2 idle again, later than c1
			t.Fatal("the second connection's second request was not served")
		}
		idle(t, 2)
		c3, r3 := dial(t)
		if !get(c3, r3) {
			t.Fatal("a third connection was not served")
		}
		if !closed(c1, r1) {
			t.Error("the connection idle the longest was not closed")
		}
		if !get(c2, r2) {
			t.Error("the other idle connection was closed too")
		}
		c3.Close()
		c2.Close()
		idle(t, 0)
	})

	t.Run("is closed on arrival when no connection is idle", func(t *testing.T) {
		// Two connections that have not sent a request yet are not idle.
		dial(t)
		dial(t)
		time.Sleep(50 * time.Millisecond) // accepted
		c, r := dial(t)
		if !closed(c, r) {
			t.Error("a connection beyond the cap was not closed")
		}
	})
}

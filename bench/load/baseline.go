package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// baseline is a bare net/http server that answers every request with one
// fixed body: the most a Go HTTP server can do on this machine for a
// response of that size, against which afftrack's figures are read.
type baseline struct {
	srv  *http.Server
	url  string
	done chan error

	stopOnce sync.Once
	stopErr  error
}

// startBaseline serves body with the given Content-Type on a free loopback
// port. The handler does what any handler must (set a header, write the
// body) and nothing else.
func startBaseline(body []byte, contentType string) (*baseline, error) {
	return serveBaseline(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(body)
	}))
}

// serveBaseline serves h on a free loopback port.
func serveBaseline(h http.Handler) (*baseline, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &baseline{
		srv:  &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second},
		url:  "http://" + ln.Addr().String() + "/",
		done: make(chan error, 1),
	}
	go func() { b.done <- b.srv.Serve(ln) }()
	return b, nil
}

// stop closes the server and its connections. It may be called again,
// and returns the first call's answer.
func (b *baseline) stop() error {
	b.stopOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := b.srv.Shutdown(ctx); err != nil {
			b.srv.Close()
		}
		if err := <-b.done; !errors.Is(err, http.ErrServerClosed) {
			b.stopErr = err
		}
	})
	return b.stopErr
}

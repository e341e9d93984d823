package main

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

func TestBaselineAnswersItsFixedBody(t *testing.T) {
	body := bytes.Repeat([]byte("<Transaction>x</Transaction>"), 1000)
	b, err := startBaseline(body, "application/xml; charset=utf-8")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.stop() })
	for _, path := range []string{"", "V1/Merchant/Transactions?apiKey=k"} {
		t.Run("GET /"+path+" answers the body", func(t *testing.T) {
			resp, err := http.Get(b.url + path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/xml; charset=utf-8" || !bytes.Equal(got, body) {
				t.Errorf("got %d %q and %d bytes, want 200, the content type and %d bytes",
					resp.StatusCode, resp.Header.Get("Content-Type"), len(got), len(body))
			}
		})
	}
	if err := b.stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if err := b.stop(); err != nil {
		t.Errorf("a second stop: %v", err)
	}
	if _, err := http.Get(b.url); err == nil {
		t.Errorf("the baseline still answers after stop")
	}
}

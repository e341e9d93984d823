package api

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"

	"github.com/afftrack/afftrack/openapi"
)

// openAPIDocument serves the interface's OpenAPI document. Like the
// probes it needs no key and no rate limit: a client generator fetches it
// before it has a key. The document is part of the binary, so its hash
// is a strong ETag for as long as the process runs.
func openAPIDocument() http.Handler {
	sum := sha256.Sum256(openapi.Document)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	length := strconv.Itoa(len(openapi.Document))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("ETag", etag)
		h.Set("Cache-Control", "public, max-age=300")
		if noneMatch(r.Header.Values("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Type", contentTypeJSON)
		h.Set("Content-Length", length)
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(openapi.Document)
		}
	})
}

// noneMatch reports whether an If-None-Match header (its lines) names
// etag or is "*": by weak comparison (RFC 9110 section 13.1.2), so
// W/"x" matches "x", and a list matches if any of its tags does.
func noneMatch(lines []string, etag string) bool {
	for _, line := range lines {
		for tag := range strings.SplitSeq(line, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
				return true
			}
		}
	}
	return false
}

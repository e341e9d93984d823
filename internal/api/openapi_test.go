package api

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack/openapi"
)

func TestOpenAPIDocumentIsServed(t *testing.T) {
	h := newHarness(t)
	etag := h.do(http.MethodGet, "/openapi.json").Header().Get("ETag")
	if etag == "" {
		t.Fatal("GET /openapi.json has no ETag")
	}
	type answer struct {
		Status       int
		ContentType  string
		CacheControl string
		ETag         string
		Body         string
	}
	document := string(openapi.Document)
	for _, tc := range []struct {
		name, method, target string
		header               []string
		want                 answer
	}{
		{"a GET without a key is the embedded document", http.MethodGet, "/openapi.json", nil,
			answer{200, contentTypeJSON, "public, max-age=300", etag, document}},
		{"the path matches in any case", http.MethodGet, "/OpenAPI.json", nil,
			answer{200, contentTypeJSON, "public, max-age=300", etag, document}},
		{"a HEAD has the headers and no body", http.MethodHead, "/openapi.json", nil,
			answer{200, contentTypeJSON, "public, max-age=300", etag, ""}},
		{"a client holding the document gets a 304", http.MethodGet, "/openapi.json", []string{"If-None-Match", etag},
			answer{304, "", "public, max-age=300", etag, ""}},
		{"a weak tag of the document is a 304", http.MethodGet, "/openapi.json", []string{"If-None-Match", "W/" + etag},
			answer{304, "", "public, max-age=300", etag, ""}},
		{"a list holding the document's tag is a 304", http.MethodGet, "/openapi.json", []string{"If-None-Match", `"0", ` + etag},
			answer{304, "", "public, max-age=300", etag, ""}},
		{"any tag (*) is a 304", http.MethodGet, "/openapi.json", []string{"If-None-Match", "*"},
			answer{304, "", "public, max-age=300", etag, ""}},
		{"a client holding another version gets the document", http.MethodGet, "/openapi.json", []string{"If-None-Match", `"0"`},
			answer{200, contentTypeJSON, "public, max-age=300", etag, document}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := h.do(tc.method, tc.target, tc.header...)
			got := answer{w.Code, w.Header().Get("Content-Type"), w.Header().Get("Cache-Control"), w.Header().Get("ETag"), w.Body.String()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s %s (-want +got):\n%.2000s", tc.method, tc.target, diff)
			}
		})
	}
}

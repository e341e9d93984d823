package openapi

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestOpenAPIDocumentIsPrettyPrinted keeps the hand-kept file in one layout (two
// spaces, a final newline), so an edit's diff shows only what it changed;
// it also fails on a document that is not JSON.
func TestOpenAPIDocumentIsPrettyPrinted(t *testing.T) {
	var compact, want bytes.Buffer
	if err := json.Compact(&compact, Document); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	want.WriteByte('\n')
	if !bytes.Equal(Document, want.Bytes()) {
		t.Error("openapi.json is not indented by two spaces with a final newline; jq --indent 2 . makes it so")
	}
}

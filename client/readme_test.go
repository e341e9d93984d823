package client_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// TestTheReadmeShowsTheExample keeps README.md's "Go client" section and
// Example in example_test.go the same code: the README shows the
// example's body from its second statement on (the first starts the demo
// server in process, where the README's reader runs `afftrack serve
// --demo`), and the output the example checks.
func TestTheReadmeShowsTheExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	code, output := exampleBody(t, "example_test.go", "Example")
	tests := []struct {
		name, marker, want string
	}{
		{"the README's Go block is the example's code", "client-example", code},
		{"the README's output block is what the example prints", "client-output", output},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := markedBlock(t, string(readme), tt.marker)
			if got != tt.want {
				t.Errorf("README.md between <!-- %s:begin --> and end:\n%s\n\nwant (from example_test.go):\n%s", tt.marker, got, tt.want)
			}
		})
	}
}

// exampleBody returns the body of the named function in file, less its
// first statement and the blank line after it, dedented one tab, and the
// lines of its // Output: comment.
func exampleBody(t *testing.T, file, name string) (code, output string) {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var body *ast.BlockStmt
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == name {
			body = fn.Body
		}
	}
	if body == nil || len(body.List) < 2 {
		t.Fatalf("%s has no function %s of two statements or more", file, name)
	}
	text := string(src[fset.Position(body.Lbrace).Offset+1 : fset.Position(body.Rbrace).Offset])
	lines := strings.Split(strings.Trim(text, "\n"), "\n")
	if !strings.Contains(lines[0], "DemoServerURL()") || strings.TrimSpace(lines[1]) != "" {
		t.Fatalf("%s's first line should start the demo server and a blank line follow it; got %q, %q", name, lines[0], lines[1])
	}
	lines = lines[2:]
	var codeLines, outLines []string
	inOutput := false
	for _, l := range lines {
		switch {
		case strings.TrimSpace(l) == "// Output:":
			inOutput = true
		case inOutput:
			outLines = append(outLines, strings.TrimPrefix(strings.TrimSpace(l), "// "))
		default:
			codeLines = append(codeLines, strings.TrimPrefix(l, "\t"))
		}
	}
	return strings.Join(codeLines, "\n"), strings.Join(outLines, "\n")
}

// markedBlock returns the fenced block between <!-- marker:begin --> and
// <!-- marker:end -->, without its fences.
func markedBlock(t *testing.T, doc, marker string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "<!-- "+marker+":begin -->\n")
	block, _, ok2 := strings.Cut(rest, "\n<!-- "+marker+":end -->")
	if !ok || !ok2 {
		t.Fatalf("README.md has no <!-- %s:begin/end --> pair", marker)
	}
	lines := strings.Split(block, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "```") || lines[len(lines)-1] != "```" {
		t.Fatalf("the %s block is not one fenced code block:\n%s", marker, block)
	}
	return strings.Join(lines[1:len(lines)-1], "\n")
}

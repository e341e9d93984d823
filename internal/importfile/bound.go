package importfile

import (
	"io"

	"github.com/afftrack/afftrack"
)

// maxToken bounds one JSON value of the import file (a string, a number,
// a literal): far beyond any field's own limit (text 4 KiB, URLs 2 KiB,
// each character at most six bytes escaped), and small enough that the
// decoder, which holds a value whole, stays within the import's memory
// whatever a file holds.
const maxToken = 1 << 20

// tokenBound passes a JSON text through, failing at the first value
// longer than maxToken. It follows strings and their escapes, and counts
// any other run of bytes that is not structure or space (a number, a
// literal) as a value.
type tokenBound struct {
	r        io.Reader
	offset   int64 // of the next byte
	inString bool
	escaped  bool
	length   int // of the value under way
}

func (t *tokenBound) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	for i, c := range p[:n] {
		switch {
		case t.inString:
			t.length++
			switch {
			case t.escaped:
				t.escaped = false
			case c == '\\':
				t.escaped = true
			case c == '"':
				t.inString, t.length = false, 0
			}
		case c == '"':
			t.inString, t.length = true, 1
		case c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':' ||
			c == ' ' || c == '\t' || c == '\n' || c == '\r':
			t.length = 0
		default:
			t.length++
		}
		if t.length > maxToken {
			at := t.offset + int64(i) - int64(t.length) + 1
			t.offset += int64(i)
			return i, afftrack.Errorf(afftrack.EINVALID, "the value at byte %d is longer than %d bytes", at, maxToken)
		}
	}
	t.offset += int64(n)
	return n, err
}

// maxLine bounds a line of a CSV file (rates, validations): a few short
// fields.
const maxLine = 4096

// lineBound passes a text through, failing at the first line longer than
// maxLine, so a CSV reader, which holds a record whole, stays small.
type lineBound struct {
	r      io.Reader
	line   int // the line under way, from 1
	length int
}

// BoundLines returns r failing at the first line longer than 4,096 bytes,
// with an error naming it.
func BoundLines(r io.Reader) io.Reader { return &lineBound{r: r, line: 1} }

func (l *lineBound) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.line, l.length = l.line+1, 0
			continue
		}
		if l.length++; l.length > maxLine {
			return i, afftrack.Errorf(afftrack.EINVALID, "line %d: longer than %d bytes", l.line, maxLine)
		}
	}
	return n, err
}

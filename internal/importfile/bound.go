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

// maxSpace bounds a run of white space between two tokens: encoding/json's
// Decoder keeps in its buffer the white space it has looked past while it
// looks for the next token, so an unbounded run would be held whole.
// Indentation needs a few bytes a line.
const maxSpace = 1 << 20

// tokenBound passes a JSON text through, failing at the first value
// longer than maxToken, run of white space longer than maxSpace, or
// record longer than maxRecord. It follows strings and their escapes and
// the nesting of objects and arrays, and counts any other run of bytes
// that is not structure or space (a number, a literal) as a value.
type tokenBound struct {
	r        io.Reader
	offset   int64 // of the next byte
	inString bool
	escaped  bool
	length   int   // of the value under way
	space    int   // of the run of white space under way
	err      error // the bound broken, returned by every later Read
	depth    int   // of nesting: 1 in the file's object, 2 in a collection, 3 in a record
	record   int64 // bytes of the record under way
	start    int64 // where it began
}

// maxRecord bounds one record of a collection (a merchant, a transaction
// with its items), which the reader holds whole: 10,000 items of a few
// hundred bytes each fit several times over.
const maxRecord = 16 << 20

// Read fails for good once a bound is broken: the Decoder's More, which
// has no error to return, would read on past it.
func (t *tokenBound) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.r.Read(p)
	for i, c := range p[:n] {
		white := false
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
		case c == '{' || c == '[':
			t.depth++
			if t.depth == 3 {
				t.record, t.start = 0, t.offset+int64(i)
			}
			t.length = 0
		case c == '}' || c == ']':
			t.depth--
			t.length = 0
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			t.length, white = 0, true
		case c == ',' || c == ':':
			t.length = 0
		default:
			t.length++
		}
		if !white {
			t.space = 0
		} else if t.space++; t.space > maxSpace {
			at := t.offset + int64(i) - int64(t.space) + 1
			t.offset += int64(i)
			t.err = afftrack.Errorf(afftrack.EINVALID, "the white space at byte %d runs longer than %d bytes", at, maxSpace)
			return i, t.err
		}
		if t.depth >= 3 {
			if t.record++; t.record > maxRecord {
				t.offset += int64(i)
				t.err = afftrack.Errorf(afftrack.EINVALID, "the record at byte %d is longer than %d bytes", t.start, maxRecord)
				return i, t.err
			}
		}
		if t.length > maxToken {
			at := t.offset + int64(i) - int64(t.length) + 1
			t.offset += int64(i)
			t.err = afftrack.Errorf(afftrack.EINVALID, "the value at byte %d is longer than %d bytes", at, maxToken)
			return i, t.err
		}
	}
	t.offset += int64(n)
	return n, err
}

// maxCSVRecord bounds a record of a CSV file (rates, validations): a few
// short fields.
const maxCSVRecord = 4096

// csvBound passes a CSV text through, failing at the first record longer
// than maxCSVRecord, so a CSV reader, which holds a record whole, stays
// small. A record is a line, or several joined by a quoted field; a
// quote opens or closes a quoted field ("" inside one does both).
type csvBound struct {
	r       io.Reader
	line    int // the line under way, from 1
	length  int // of the record under way
	inQuote bool
}

// BoundCSVRecords returns r failing at the first CSV record longer than
// 4,096 bytes, with an error naming its line.
func BoundCSVRecords(r io.Reader) io.Reader { return &csvBound{r: r, line: 1} }

func (b *csvBound) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	for i, c := range p[:n] {
		switch {
		case c == '"':
			b.inQuote = !b.inQuote
		case c == '\n':
			b.line++
			if !b.inQuote {
				b.length = 0
				continue
			}
		}
		if b.length++; b.length > maxCSVRecord {
			return i, afftrack.Errorf(afftrack.EINVALID, "line %d: a record longer than %d bytes", b.line, maxCSVRecord)
		}
	}
	return n, err
}

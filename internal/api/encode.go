package api

import (
	"math/bits"
	"time"
	"unicode/utf8"

	"github.com/afftrack/afftrack"
)

// The encoders below append to a caller's buffer instead of going through
// encoding/json or encoding/xml: the contract fixes every byte (field order,
// fractional digits, null forms), and the transaction list is written one
// row at a time into a reused buffer, so encoding must not allocate.
//
// They are also the service's hot path: a list is written as the store
// reads it, so the encoders are built for speed. Text is scanned eight
// bytes at a time and copied in one piece when nothing needs escaping,
// which is nearly always; datetimes and amounts are formatted from their
// integers with a two-digit table; constant markup is appended in as few
// pieces as the format allows. The benchmarks in encode_bench_test.go
// measure the result against encoding/json and encoding/xml.

// xsiNamespace is the XML Schema instance namespace bound to the prefix i.
const xsiNamespace = "http://www.w3.org/2001/XMLSchema-instance"

const hexDigits = "0123456789abcdef"

// Byte-parallel ("SWAR") masks: every byte 0x01, every byte 0x80.
const (
	lsbs = 0x0101010101010101
	msbs = 0x8080808080808080
)

// load64 reads s[0:8] as a little-endian word; the compiler makes it one
// load.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// load32 reads s[0:4] as a little-endian word.
func load32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

// eq64 sets the top bit of each byte of x equal to c, provided x holds no
// byte of 0x80 or more (the callers test for those separately and the
// borrow can only raise bits above a real match).
func eq64(x uint64, c byte) uint64 { return (x ^ lsbs*uint64(c)) - lsbs }

// jsonSpecial64 is non-zero when the word x holds a byte that a JSON
// string cannot carry as it is: a control character, '"', '\\', '<', '>',
// '&', or a byte of a multi-byte rune (which may be U+2028, U+2029 or
// invalid).
//
// The five characters take three comparisons: '"' (0x22) and '&' (0x26)
// are the only bytes that equal 0x26 once bit 2 is set, '<' (0x3C) and '>'
// (0x3E) the only ones that equal 0x3E once bit 1 is set.
func jsonSpecial64(x uint64) uint64 {
	return (x | (x - lsbs*0x20) | eq64(x|lsbs*0x04, '&') | eq64(x|lsbs*0x02, '>') | eq64(x, '\\')) & msbs
}

// xmlSpecial64 is non-zero when the word x holds a byte XML character data
// may not carry as it is, or might not: a control character (tab and LF are
// sorted out byte by byte), '&', '<', '>', '"' (for attributes), or a byte
// of a multi-byte rune (which may be U+FFFE, U+FFFF or invalid).
//
// As in jsonSpecial64, the four characters take two comparisons.
func xmlSpecial64(x uint64) uint64 {
	return (x | (x - lsbs*0x20) | eq64(x|lsbs*0x04, '&') | eq64(x|lsbs*0x02, '>')) & msbs
}

// jsonSafe marks the bytes a JSON string carries as they are; bytes of
// multi-byte runes are not marked, so they take the slow path.
var jsonSafe = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// xmlSafe marks the bytes XML text carries as they are in text and in
// attributes; the double quote, safe in text only, takes the slow path.
var xmlSafe = func() (t [256]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = (c >= 0x20 || c == '\t' || c == '\n') && c != '&' && c != '<' && c != '>' && c != '"'
	}
	return t
}()

// jsonSafePrefix returns the length of the longest prefix of s that a JSON
// string carries unchanged, up to the first byte that is not ASCII. It
// checks eight bytes at a time and finds the first byte to escape in a
// flagged word from its lowest flag, which is exact (a borrow only ever
// raises flags above a real one).
func jsonSafePrefix(s string) int {
	i := 0
	for ; len(s)-i >= 8; i += 8 {
		if m := jsonSpecial64(load64(s[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && jsonSafe[s[i]] {
		i++
	}
	return i
}

// xmlSafePrefix is jsonSafePrefix for XML text.
func xmlSafePrefix(s string) int {
	i := 0
	for ; len(s)-i >= 8; i += 8 {
		if m := xmlSpecial64(load64(s[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(s) && xmlSafe[s[i]] {
		i++
	}
	return i
}

// appendJSONString appends s as a JSON string, escaped exactly as
// encoding/json does with HTML escaping on: the output is safe inside a
// <script>, which JSONP needs, and invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendJSONText(b, s)
	return append(b, '"')
}

// appendJSONText appends the inside of appendJSONString's string: s
// escaped, without the quotes, so callers can merge the quotes into the
// constant text around it.
//
// Nearly every string needs no escape, so the whole of s is checked first,
// in line, and copied in one piece: eight bytes at a time, the last eight
// overlapping the ones before them; a shorter string as one word, of two
// overlapping 4-byte loads or, below 4 bytes, its first, middle and last
// bytes (which are all of them) padded with spaces.
func appendJSONText(b []byte, s string) []byte {
	var m uint64
	switch n := len(s); {
	case n >= 8:
		for i := 0; n-i > 8 && m == 0; i += 8 {
			m = jsonSpecial64(load64(s[i:]))
		}
		m |= jsonSpecial64(load64(s[n-8:]))
	case n >= 4:
		m = jsonSpecial64(load32(s) | load32(s[n-4:])<<32)
	case n > 0:
		m = jsonSpecial64(uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16 | 0x2020202020<<24)
	}
	if m == 0 {
		return append(b, s...)
	}
	return appendJSONEscaped(b, s, jsonSafePrefix(s))
}

// appendJSONEscaped is appendJSONText's slow path, for s whose first i
// bytes need no escape and whose byte i may.
func appendJSONEscaped(b []byte, s string, i int) []byte {
	start := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				start = i + size
			case r == '\u2028' || r == '\u2029':
				b = append(b, s[start:i]...)
				b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
				start = i + size
			}
			i += size
		}
		i += jsonSafePrefix(s[i:])
	}
	return append(b, s[start:]...)
}

// appendJSONNullString appends a nullable string: the string, or null.
func appendJSONNullString(b []byte, s afftrack.Null[string]) []byte {
	if !s.Valid {
		return append(b, "null"...)
	}
	return appendJSONString(b, s.Value)
}

// appendJSONNullInt appends a nullable integer: the number, or null.
func appendJSONNullInt(b []byte, v afftrack.Null[int64]) []byte {
	if !v.Valid {
		return append(b, "null"...)
	}
	return appendInt(b, v.Value)
}

// appendXMLText appends s as XML character data. Besides the markup
// characters it escapes CR, which an XML parser would otherwise turn into
// LF, and it replaces what XML 1.0 cannot carry at all (most control
// characters, U+FFFE, U+FFFF, invalid UTF-8) with U+FFFD so the document
// always parses. attr also escapes the double quote, for attribute values.
//
// As in appendJSONText, the whole of s is checked first, in line.
func appendXMLText(b []byte, s string, attr bool) []byte {
	var m uint64
	switch n := len(s); {
	case n >= 8:
		for i := 0; n-i > 8 && m == 0; i += 8 {
			m = xmlSpecial64(load64(s[i:]))
		}
		m |= xmlSpecial64(load64(s[n-8:]))
	case n >= 4:
		m = xmlSpecial64(load32(s) | load32(s[n-4:])<<32)
	case n > 0:
		m = xmlSpecial64(uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16 | 0x2020202020<<24)
	}
	if m == 0 {
		return append(b, s...)
	}
	return appendXMLEscaped(b, s, attr, xmlSafePrefix(s))
}

// appendXMLEscaped is appendXMLText's slow path, for s whose first i bytes
// need no escape and whose byte i may.
func appendXMLEscaped(b []byte, s string, attr bool, i int) []byte {
	start := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			var esc string
			switch {
			case c == '&':
				esc = "&amp;"
			case c == '<':
				esc = "&lt;"
			case c == '>':
				esc = "&gt;"
			case c == '"' && attr:
				esc = "&quot;"
			case c == '\r':
				esc = "&#xD;"
			case c < 0x20 && c != '\n' && c != '\t':
				esc = "\uFFFD"
			}
			if esc != "" {
				b = append(b, s[start:i]...)
				b = append(b, esc...)
				start = i + 1
			}
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && size == 1) || r == 0xFFFE || r == 0xFFFF {
				b = append(b, s[start:i]...)
				b = append(b, "\uFFFD"...)
				start = i + size
			}
			i += size
		}
		i += xmlSafePrefix(s[i:])
	}
	return append(b, s[start:]...)
}

// appendXMLOpen appends the start tag of an element. A non-empty ns makes
// it a document's root element, carrying the i prefix and the default
// namespace.
func appendXMLOpen(b []byte, name, ns string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	if ns != "" {
		b = append(b, ` xmlns:i="`+xsiNamespace+`" xmlns="`...)
		b = appendXMLText(b, ns, true)
		b = append(b, '"')
	}
	return append(b, '>')
}

// appendXMLClose appends the end tag of an element.
func appendXMLClose(b []byte, name string) []byte {
	b = append(b, '<', '/')
	b = append(b, name...)
	return append(b, '>')
}

// appendXMLNil appends the null form of an element: <Name i:nil="true" />.
func appendXMLNil(b []byte, name string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	return append(b, ` i:nil="true" />`...)
}

// appendXMLString appends an element holding text.
func appendXMLString(b []byte, name, s string) []byte {
	b = appendXMLOpen(b, name, "")
	b = appendXMLText(b, s, false)
	return appendXMLClose(b, name)
}

// appendXMLInt appends an element holding an integer.
func appendXMLInt(b []byte, name string, v int64) []byte {
	b = appendXMLOpen(b, name, "")
	b = appendInt(b, v)
	return appendXMLClose(b, name)
}

// appendXMLDateTime appends an element holding a datetime.
func appendXMLDateTime(b []byte, name string, t time.Time) []byte {
	b = appendXMLOpen(b, name, "")
	b = appendDateTime(b, t)
	return appendXMLClose(b, name)
}

// appendXMLMoney appends an element holding a four-digit amount.
func appendXMLMoney(b []byte, name string, m afftrack.Money) []byte {
	b = appendXMLOpen(b, name, "")
	b = appendMoney(b, m)
	return appendXMLClose(b, name)
}

// xmlElement holds the three constant forms of one element, built once so
// a hot encoder appends each in one piece.
type xmlElement struct {
	open, close, null string
}

// newXMLElement returns the forms of the element called name.
func newXMLElement(name string) xmlElement {
	return xmlElement{open: "<" + name + ">", close: "</" + name + ">", null: "<" + name + ` i:nil="true" />`}
}

// appendXMLNullText appends an element holding nullable text.
func appendXMLNullText(b []byte, e *xmlElement, s afftrack.Null[string]) []byte {
	if !s.Valid {
		return append(b, e.null...)
	}
	b = append(b, e.open...)
	b = appendXMLText(b, s.Value, false)
	return append(b, e.close...)
}

// appendXMLNullInt appends an element holding a nullable integer.
func appendXMLNullInt(b []byte, e *xmlElement, v afftrack.Null[int64]) []byte {
	if !v.Valid {
		return append(b, e.null...)
	}
	b = append(b, e.open...)
	b = appendInt(b, v.Value)
	return append(b, e.close...)
}

// enumForms holds the encoded form of each value of an enumeration, so an
// encoder appends a precomputed string instead of looking the name up and
// escaping it. The last entry is the form of every value past the names
// (an empty name, as their String methods give).
type enumForms []string

// newEnumForms encodes each value of an enumeration whose String method is
// name, with form, up to and including the first value past the names.
func newEnumForms(name func(uint8) string, form func(v uint8, name string) string) enumForms {
	var f enumForms
	for v := 0; v < 256; v++ {
		n := name(uint8(v))
		f = append(f, form(uint8(v), n))
		if v > 0 && n == "" {
			break
		}
	}
	return f
}

// of returns the form of v.
func (f enumForms) of(v uint8) string { return f[min(int(v), len(f)-1)] }

// jsonEnumForm writes an enumeration value as a JSON string after key, the
// constant text before it. nullable makes zero null, as it is for the
// enumerations that may be null.
func jsonEnumForm(key string, nullable bool) func(uint8, string) string {
	return func(v uint8, name string) string {
		if nullable && v == 0 {
			return key + "null"
		}
		return key + string(appendJSONString(nil, name))
	}
}

// xmlEnumForm writes an enumeration value as a whole element. nullable
// makes zero the element's null form.
func xmlEnumForm(element string, nullable bool) func(uint8, string) string {
	e := newXMLElement(element)
	return func(v uint8, name string) string {
		if nullable && v == 0 {
			return e.null
		}
		return e.open + string(appendXMLText(nil, name, false)) + e.close
	}
}

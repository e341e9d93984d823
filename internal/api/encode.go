package api

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/afftrack/afftrack"
)

// The encoders below append to a caller's buffer instead of going through
// encoding/json or encoding/xml: the contract fixes every byte (field order,
// fractional digits, null forms), and the transaction list is written one
// row at a time into a reused buffer, so encoding must not allocate.

// xsiNamespace is the XML Schema instance namespace bound to the prefix i.
const xsiNamespace = "http://www.w3.org/2001/XMLSchema-instance"

const hexDigits = "0123456789abcdef"

// jsonSafe marks the ASCII bytes a JSON string carries as they are; the
// escaper's fast path is one table lookup per byte.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendJSONString appends s as a JSON string, escaped exactly as
// encoding/json does with HTML escaping on: the output is safe inside a
// <script>, which JSONP needs, and invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
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
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
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
	return strconv.AppendInt(b, v.Value, 10)
}

// appendJSONEnum appends an enumeration value's name, or null when the
// value is zero, which the nullable enumerations use for null.
func appendJSONEnum(b []byte, zero bool, name string) []byte {
	if zero {
		return append(b, "null"...)
	}
	return appendJSONString(b, name)
}

// appendJSONBool appends true or false.
func appendJSONBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

// appendDateTime appends t as the contract's datetime,
// YYYY-MM-DDThh:mm:ss.fff: always three fractional digits and no zone,
// as t already carries the network's wall clock.
func appendDateTime(b []byte, t time.Time) []byte {
	year, month, day := t.Date()
	hour, min, sec := t.Clock()
	if year < 0 {
		b = append(b, '-')
		year = -year
	}
	if year < 1000 {
		b = append(b, '0')
		if year < 100 {
			b = append(b, '0')
			if year < 10 {
				b = append(b, '0')
			}
		}
	}
	b = strconv.AppendInt(b, int64(year), 10)
	b = append(b, '-')
	b = append2(b, int(month))
	b = append(b, '-')
	b = append2(b, day)
	b = append(b, 'T')
	b = append2(b, hour)
	b = append(b, ':')
	b = append2(b, min)
	b = append(b, ':')
	b = append2(b, sec)
	ms := t.Nanosecond() / 1e6
	return append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
}

// append2 appends a value below 100 as two digits.
func append2(b []byte, v int) []byte {
	return append(b, byte('0'+v/10), byte('0'+v%10))
}

// appendMoney appends a transaction- or invoice-level amount with four
// fractional digits.
func appendMoney(b []byte, m afftrack.Money) []byte {
	return afftrack.AppendFixed(b, int64(m), afftrack.MoneyScale)
}

// appendItemMoney appends an item-level amount with two fractional digits.
func appendItemMoney(b []byte, m afftrack.ItemMoney) []byte {
	return afftrack.AppendFixed(b, int64(m), afftrack.ItemMoneyScale)
}

// appendXMLText appends s as XML character data. Besides the markup
// characters it escapes CR, which an XML parser would otherwise turn into
// LF, and it replaces what XML 1.0 cannot carry at all (most control
// characters, U+FFFE, U+FFFF, invalid UTF-8) with U+FFFD so the document
// always parses. attr also escapes the double quote, for attribute values.
func appendXMLText(b []byte, s string, attr bool) []byte {
	start := 0
	for i := 0; i < len(s); {
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
			default:
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, esc...)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == 0xFFFE || r == 0xFFFF {
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
			i += size
			start = i
			continue
		}
		i += size
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

// appendXMLNullString appends an element holding nullable text.
func appendXMLNullString(b []byte, name string, s afftrack.Null[string]) []byte {
	if !s.Valid {
		return appendXMLNil(b, name)
	}
	return appendXMLString(b, name, s.Value)
}

// appendXMLInt appends an element holding an integer.
func appendXMLInt(b []byte, name string, v int64) []byte {
	b = appendXMLOpen(b, name, "")
	b = strconv.AppendInt(b, v, 10)
	return appendXMLClose(b, name)
}

// appendXMLNullInt appends an element holding a nullable integer.
func appendXMLNullInt(b []byte, name string, v afftrack.Null[int64]) []byte {
	if !v.Valid {
		return appendXMLNil(b, name)
	}
	return appendXMLInt(b, name, v.Value)
}

// appendXMLEnum appends an element holding an enumeration value's name, or
// its null form when the value is zero.
func appendXMLEnum(b []byte, name string, zero bool, value string) []byte {
	if zero {
		return appendXMLNil(b, name)
	}
	return appendXMLString(b, name, value)
}

// appendXMLBool appends an element holding true or false.
func appendXMLBool(b []byte, name string, v bool) []byte {
	b = appendXMLOpen(b, name, "")
	b = appendJSONBool(b, v)
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

// appendXMLItemMoney appends an element holding a two-digit amount.
func appendXMLItemMoney(b []byte, name string, m afftrack.ItemMoney) []byte {
	b = appendXMLOpen(b, name, "")
	b = appendItemMoney(b, m)
	return appendXMLClose(b, name)
}

// Package jsontext checks JSON text for what encoding/json would change
// silently on decoding.
package jsontext

import "unicode/utf8"

// Storable reports whether raw, a JSON value as written, is valid UTF-8
// whose \u escapes pair every UTF-16 surrogate. encoding/json decodes
// both faults to U+FFFD without a word, so two different texts could
// become one; callers refuse such a value instead.
func Storable(raw []byte) bool {
	if !utf8.Valid(raw) {
		return false
	}
	hex4 := func(b []byte) (rune, bool) {
		var r rune
		for _, c := range b {
			switch {
			case '0' <= c && c <= '9':
				r = r<<4 | rune(c-'0')
			case 'a' <= c && c <= 'f':
				r = r<<4 | rune(c-'a'+10)
			case 'A' <= c && c <= 'F':
				r = r<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return r, true
	}
	// escape returns the rune of a \u escape at raw[i:], if there is one.
	escape := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		return hex4(raw[i+2 : i+6])
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := escape(i)
		if !ok {
			i++ // another escape: skip its letter, which may be a backslash
			continue
		}
		switch {
		case 0xD800 <= r && r < 0xDC00:
			low, ok := escape(i + 6)
			if !ok || low < 0xDC00 || low > 0xDFFF {
				return false
			}
			i += 11
		case 0xDC00 <= r && r <= 0xDFFF:
			return false
		default:
			i += 5
		}
	}
	return true
}

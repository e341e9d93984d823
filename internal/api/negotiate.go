package api

import (
	"net/http"
	"strings"

	"github.com/afftrack/afftrack"
)

// format is a response representation. JSONP is JSON with a callback.
type format uint8

// Supported formats.
const (
	formatJSON format = iota
	formatXML
)

// Content types of responses, exactly as the contract writes them.
const (
	contentTypeJSON  = "application/json; charset=utf-8"
	contentTypeXML   = "application/xml; charset=utf-8"
	contentTypeJSONP = "text/javascript; charset=utf-8"
)

// supportedTypes lists the media types a client may ask for, for the
// message of a 400 on an unsupported contentType.
const supportedTypes = "application/json, text/json, application/javascript, text/javascript, application/xml, text/xml"

// maxCallback is the longest JSONP callback accepted.
const maxCallback = 128

// negotiation is the outcome of content negotiation for one request.
type negotiation struct {
	format   format
	callback string // a valid JSONP callback when format is JSON; "" for none

	// err is a 400 the request has earned through contentType or callback.
	// It is raised in the order of checks for parameters, after
	// authentication and rate limiting; until then (and for requests that
	// need neither, such as an unknown path) responses use format.
	err error
}

// negotiateRequest negotiates the format of r's response from its query
// and headers.
func negotiateRequest(r *http.Request, q query) negotiation {
	accept := strings.Join(r.Header[headerAccept], ",")
	return negotiate(q.raw("contenttype"), accept, r.Header.Get(headerContentType), q.raw("callback"))
}

// negotiate applies the contract's precedence: the contentType parameter,
// else Accept (when non-empty), else a supported Content-Type, else JSON.
// A callback applies to JSON only; an invalid one forces plain JSON so it
// is never echoed into a script.
func negotiate(contentTypeParam, accept, contentType, callback string) negotiation {
	var n negotiation
	fromParam := false
	if contentTypeParam != "" {
		if f, ok := mediaFormat(contentTypeParam); ok {
			n.format, fromParam = f, true
		} else {
			n.err = afftrack.Errorf(afftrack.EINVALID, "contentType: %q is not one of %s", contentTypeParam, supportedTypes)
		}
	}
	if !fromParam {
		switch {
		case strings.TrimSpace(accept) != "":
			n.format = acceptFormat(accept)
		default:
			if f, ok := mediaFormat(contentType); ok {
				n.format = f
			}
		}
	}
	if n.format != formatJSON || callback == "" {
		return n
	}
	if !validCallback(callback) {
		if n.err == nil {
			n.err = afftrack.Errorf(afftrack.EINVALID,
				"callback: %q is not a valid JavaScript function name; use name(.name)*, at most %d characters",
				callback, maxCallback)
		}
		return n
	}
	n.callback = callback
	return n
}

// mediaFormat returns the format a media type names, ignoring its
// parameters, case and surrounding space.
func mediaFormat(s string) (format, bool) {
	s, _, _ = strings.Cut(s, ";")
	s = strings.TrimSpace(s)
	switch {
	case strings.EqualFold(s, "application/json"), strings.EqualFold(s, "text/json"),
		strings.EqualFold(s, "application/javascript"), strings.EqualFold(s, "text/javascript"):
		return formatJSON, true
	case strings.EqualFold(s, "application/xml"), strings.EqualFold(s, "text/xml"):
		return formatXML, true
	}
	return 0, false
}

// acceptFormat picks the supported format of an Accept header with the
// highest q-value, the earlier on a tie; */* and application/* mean JSON,
// q=0 excludes, malformed entries are skipped, and an Accept naming
// nothing supported gives JSON.
func acceptFormat(accept string) format {
	best, bestQ := formatJSON, 0
	// Cut in a loop, as strings.SplitSeq would yield: every request has
	// an Accept to read, and the loop costs no iterator.
	for rest, more := accept, true; more; {
		var entry string
		entry, rest, more = strings.Cut(rest, ",")
		mediaType, params, _ := strings.Cut(entry, ";")
		mediaType = strings.TrimSpace(mediaType)
		var f format
		switch {
		case strings.EqualFold(mediaType, "*/*"), strings.EqualFold(mediaType, "application/*"):
			f = formatJSON
		default:
			var ok bool
			if f, ok = mediaFormat(mediaType); !ok {
				continue
			}
		}
		q, ok := acceptQ(params)
		if !ok {
			continue
		}
		if q > bestQ {
			best, bestQ = f, q
		}
	}
	return best
}

// acceptQ returns the q-value of an Accept entry's parameters in
// thousandths: 1000 when absent, false when malformed.
func acceptQ(params string) (int, bool) {
	q := 1000
	for rest, more := params, true; more; {
		var p string
		p, rest, more = strings.Cut(rest, ";")
		name, value, found := strings.Cut(p, "=")
		name = strings.TrimSpace(name)
		if !found {
			if name == "" {
				continue
			}
			return 0, false
		}
		if !strings.EqualFold(name, "q") {
			continue
		}
		v, ok := parseQValue(strings.TrimSpace(value))
		if !ok {
			return 0, false
		}
		q = v
	}
	return q, true
}

// parseQValue parses an RFC 9110 qvalue, 0 to 1 with at most three
// decimals, into thousandths.
func parseQValue(s string) (int, bool) {
	if s == "" || (s[0] != '0' && s[0] != '1') {
		return 0, false
	}
	v := int(s[0]-'0') * 1000
	if len(s) == 1 {
		return v, true
	}
	if s[1] != '.' || len(s) > 5 {
		return 0, false
	}
	scale := 100
	for i := 2; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v += int(s[i]-'0') * scale
		scale /= 10
	}
	if v > 1000 {
		return 0, false
	}
	return v, true
}

// validCallback reports whether s is name(.name)*, at most maxCallback
// characters, each name an ASCII JavaScript identifier: not a reserved
// word, which would make the script fail to parse (function({...});).
func validCallback(s string) bool {
	if len(s) == 0 || len(s) > maxCallback {
		return false
	}
	for name := range strings.SplitSeq(s, ".") {
		if !validIdentifier(name) {
			return false
		}
	}
	return true
}

// validIdentifier reports whether name is an ASCII JavaScript identifier.
func validIdentifier(name string) bool {
	if name == "" || reservedWords[name] {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '$':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// reservedWords are ECMAScript's reserved words, strict mode's and those
// reserved in modules included, none of which is an identifier.
var reservedWords = map[string]bool{
	"await": true, "break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true,
	"debugger": true, "default": true, "delete": true, "do": true, "else": true, "enum": true, "export": true,
	"extends": true, "false": true, "finally": true, "for": true, "function": true, "if": true, "implements": true,
	"import": true, "in": true, "instanceof": true, "interface": true, "let": true, "new": true, "null": true,
	"package": true, "private": true, "protected": true, "public": true, "return": true, "static": true,
	"super": true, "switch": true, "this": true, "throw": true, "true": true, "try": true, "typeof": true,
	"var": true, "void": true, "while": true, "with": true, "yield": true,
}

// contentType returns the response Content-Type of the negotiated format.
func (n *negotiation) contentType() string {
	switch {
	case n.format == formatXML:
		return contentTypeXML
	case n.callback != "":
		return contentTypeJSONP
	}
	return contentTypeJSON
}

// open appends what precedes the document: the callback and its
// parenthesis for JSONP, nothing otherwise.
func (n *negotiation) open(b []byte) []byte {
	if n.callback == "" {
		return b
	}
	b = append(b, n.callback...)
	return append(b, '(')
}

// close appends what follows the document: ");" for JSONP.
func (n *negotiation) close(b []byte) []byte {
	if n.callback == "" {
		return b
	}
	return append(b, ");"...)
}

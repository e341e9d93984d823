package api

import (
	"strings"
	"testing"

	"github.com/afftrack/afftrack"
)

func TestNegotiate(t *testing.T) {
	tests := []struct {
		name                                 string
		param, accept, contentType, callback string
		want                                 format
		wantCallback                         string
		wantErr                              string // substring of the pending 400; "" for none
	}{
		{name: "nothing asked gives JSON", want: formatJSON},
		{name: "the contentType parameter wins over Accept", param: "application/xml", accept: "application/json", want: formatXML},
		{name: "the contentType parameter wins over Content-Type", param: "text/json", contentType: "text/xml", want: formatJSON},
		{name: "contentType ignores case, parameters and spaces", param: "  TEXT/XML ; charset=utf-8 ", want: formatXML},
		{name: "contentType text/javascript means JSON", param: "text/javascript", accept: "application/xml", want: formatJSON},
		{name: "contentType application/javascript means JSON", param: "application/javascript", want: formatJSON},
		{name: "an unsupported contentType is a pending 400 and Accept decides the format",
			param: "text/html", accept: "application/xml", want: formatXML, wantErr: `contentType: "text/html" is not one of`},
		{name: "an unsupported contentType falls back to Content-Type for the format",
			param: "*/*", contentType: "text/xml", want: formatXML, wantErr: `contentType: "*/*"`},
		{name: "Accept picks the supported type with the highest q",
			accept: "application/json;q=0.5, application/xml", want: formatXML},
		{name: "Accept q-values are compared to three decimals",
			accept: "application/xml;q=0.501, application/json;q=0.5", want: formatXML},
		{name: "Accept */* means JSON", accept: "*/*", contentType: "application/xml", want: formatJSON},
		{name: "Accept application/* means JSON", accept: "application/*", want: formatJSON},
		{name: "Accept */* with a higher q beats XML", accept: "application/xml;q=0.8, */*", want: formatJSON},
		{name: "a tie goes to the earlier type", accept: "text/xml, application/json", want: formatXML},
		{name: "a tie goes to the earlier type the other way round", accept: "text/json;q=0.7, application/xml;q=0.7", want: formatJSON},
		{name: "q=0 excludes a type", accept: "application/json;q=0, text/xml;q=0.1", want: formatXML},
		{name: "an Accept naming nothing supported gives JSON, not Content-Type",
			accept: "text/html, image/png", contentType: "application/xml", want: formatJSON},
		{name: "an Accept excluding everything gives JSON", accept: "application/xml;q=0", want: formatJSON},
		{name: "malformed Accept entries are skipped",
			accept: "application/json;q=abc, ;;, application/xml;q=0.9, text/json;q=1.5", want: formatXML},
		{name: "Accept parameters other than q are allowed", accept: "application/json;charset=utf-8;q=0.2, text/xml;q=0.3", want: formatXML},
		{name: "Accept ignores case", accept: "APPLICATION/XML", want: formatXML},
		{name: "Accept text/javascript means JSON", accept: "text/javascript, application/xml;q=0.9", want: formatJSON},
		{name: "Content-Type is used without Accept", contentType: "text/xml; charset=utf-8", want: formatXML},
		{name: "an empty Accept counts as absent", accept: "  ", contentType: "application/xml", want: formatXML},
		{name: "an unsupported Content-Type gives JSON", contentType: "text/plain", want: formatJSON},
		{name: "a valid callback makes JSONP", callback: "cb", want: formatJSON, wantCallback: "cb"},
		{name: "a callback may be a dotted path of identifiers", callback: "jQuery_1.$cb.x9", want: formatJSON, wantCallback: "jQuery_1.$cb.x9"},
		{name: "a callback starting with a digit is a pending 400", callback: "1cb", want: formatJSON, wantErr: `callback: "1cb"`},
		{name: "a callback with markup is a pending 400", callback: "alert(1)//", want: formatJSON, wantErr: "callback:"},
		{name: "a callback with an empty name is a pending 400", callback: "a..b", want: formatJSON, wantErr: "callback:"},
		{name: "a callback ending in a dot is a pending 400", callback: "a.", want: formatJSON, wantErr: "callback:"},
		{name: "a callback with non-ASCII letters is a pending 400", callback: "café", want: formatJSON, wantErr: "callback:"},
		{name: "a callback that is a reserved word is a pending 400", callback: "function", want: formatJSON, wantErr: `callback: "function"`},
		{name: "a callback with a reserved word in its path is a pending 400", callback: "if.x", want: formatJSON, wantErr: "callback:"},
		{name: "a callback whose later name is reserved is a pending 400", callback: "jQuery.new", want: formatJSON, wantErr: "callback:"},
		{name: "a callback that only begins like a reserved word is accepted", callback: "newsFeed.iffy", want: formatJSON, wantCallback: "newsFeed.iffy"},
		{name: "a callback of 128 characters is accepted", callback: strings.Repeat("a", 128), want: formatJSON, wantCallback: strings.Repeat("a", 128)},
		{name: "a callback of 129 characters is a pending 400", callback: strings.Repeat("a", 129), want: formatJSON, wantErr: "callback:"},
		{name: "a callback on an XML request is ignored", param: "application/xml", callback: "1 bad", want: formatXML},
		{name: "a bad contentType is reported before a bad callback",
			param: "nope", callback: "1bad", want: formatJSON, wantErr: "contentType:"},
		{name: "a valid callback still wraps when contentType is bad",
			param: "nope", callback: "cb", want: formatJSON, wantCallback: "cb", wantErr: "contentType:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := negotiate(tt.param, tt.accept, tt.contentType, tt.callback)
			if n.format != tt.want {
				t.Errorf("format = %v, want %v", n.format, tt.want)
			}
			if n.callback != tt.wantCallback {
				t.Errorf("callback = %q, want %q", n.callback, tt.wantCallback)
			}
			switch {
			case tt.wantErr == "" && n.err != nil:
				t.Errorf("err = %v, want none", n.err)
			case tt.wantErr != "" && (n.err == nil || !strings.Contains(afftrack.ErrorMessage(n.err), tt.wantErr)):
				t.Errorf("err = %v, want a message containing %q", n.err, tt.wantErr)
			case n.err != nil && afftrack.ErrorCode(n.err) != afftrack.EINVALID:
				t.Errorf("err code = %q, want %q", afftrack.ErrorCode(n.err), afftrack.EINVALID)
			}
		})
	}
}

func TestParseQValue(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"1", 1000, true}, {"1.0", 1000, true}, {"1.000", 1000, true}, {"0", 0, true}, {"0.5", 500, true},
		{"0.001", 1, true}, {"0.", 0, true}, {"1.001", 0, false}, {"0.0001", 0, false}, {"2", 0, false},
		{"", 0, false}, {"-0.5", 0, false}, {".5", 0, false}, {"0.a", 0, false}, {"0,5", 0, false},
	}
	for _, tt := range tests {
		t.Run("parses "+tt.in, func(t *testing.T) {
			got, ok := parseQValue(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("parseQValue(%q) = %d, %v, want %d, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

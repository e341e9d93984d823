package main_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi-validator/content"
	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/afftrack/afftrack/openapi"
)

// The validator's own XML support maps XML onto JSON by a generic rule
// that knows neither i:nil="true" nor a root that is an array, and counts
// the namespace declarations as fields; contract section 1's XML needs
// both. contractXML reads that XML by the document's xml names instead,
// into the value its JSON form would be, and the validator then checks
// the value against the same schema as the JSON answer: every required
// element, no undocumented one, enums, patterns and nulls.

// contractXML decodes an XML answer for the validator. A wrong root or
// item name, an element out of the schema's order or a repeated one is a
// decoding error, which the validator reports as an invalid body; text
// that is not the number or boolean the schema wants is left as text, so
// the schema check names the field.
func contractXML() content.Decoder {
	return content.DecoderFunc(func(in *content.DecodeInput) (any, error) {
		var root xmlNode
		if err := xml.NewDecoder(in.Body).Decode(&root); err != nil {
			return nil, err
		}
		want := ""
		if in.Schema != nil && in.Schema.XML != nil {
			want = in.Schema.XML.Name
		}
		if want == "" || root.XMLName.Local != want {
			return nil, fmt.Errorf("root element <%s>, the document names <%s>", root.XMLName.Local, want)
		}
		return xmlValue(root, in.Schema, want)
	})
}

// jsonpText hands a JSONP answer to the validator as the text it is, so
// the JSONP schema's pattern is checked.
func jsonpText() content.Decoder {
	return content.DecoderFunc(func(in *content.DecodeInput) (any, error) {
		b, err := io.ReadAll(in.Body)
		return string(b), err
	})
}

// xmlValue is the JSON value of an element read by its schema.
func xmlValue(n xmlNode, s *base.Schema, at string) (any, error) {
	for _, a := range n.Attrs {
		if a.Name.Local == "nil" && a.Value == "true" {
			if len(n.Children) > 0 || n.Text != "" {
				return nil, fmt.Errorf("%s: i:nil with content", at)
			}
			return nil, nil
		}
	}
	s = concrete(s)
	switch schemaType(s) {
	case "array":
		item := concrete(s.Items.A.Schema())
		name := ""
		if item.XML != nil {
			name = item.XML.Name
		}
		out := []any{}
		for i, c := range n.Children {
			if c.XMLName.Local != name || name == "" {
				return nil, fmt.Errorf("%s[%d]: element <%s>, the document names <%s>", at, i, c.XMLName.Local, name)
			}
			v, err := xmlValue(c, item, fmt.Sprintf("%s[%d]", at, i))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case "object":
		out := map[string]any{}
		last := -1
		for _, c := range n.Children {
			field := c.XMLName.Local
			if _, dup := out[field]; dup {
				return nil, fmt.Errorf("%s: <%s> twice", at, field)
			}
			var fs *base.Schema
			if s.Properties != nil {
				if p := s.Properties.GetOrZero(field); p != nil {
					fs = p.Schema()
				}
			}
			if fs == nil { // left for additionalProperties to report
				out[field] = c.Text
				continue
			}
			pos := propertyIndex(s, field)
			if pos < last {
				return nil, fmt.Errorf("%s: <%s> is out of the document's order", at, field)
			}
			last = pos
			v, err := xmlValue(c, fs, at+"."+field)
			if err != nil {
				return nil, err
			}
			out[field] = v
		}
		return out, nil
	case "integer":
		if i, err := strconv.ParseInt(n.Text, 10, 64); err == nil {
			return i, nil
		}
	case "number":
		if regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`).MatchString(n.Text) {
			return json.Number(n.Text), nil
		}
	case "boolean":
		if n.Text == "true" || n.Text == "false" {
			return n.Text == "true", nil
		}
	}
	if len(n.Children) > 0 {
		return nil, fmt.Errorf("%s: elements inside a %s", at, schemaType(s))
	}
	return n.Text, nil
}

// concrete looks through a nullable wrapper (anyOf a schema and null) to
// the schema that says the type.
func concrete(s *base.Schema) *base.Schema {
	if s == nil || len(s.Type) > 0 {
		return s
	}
	for _, group := range [][]*base.SchemaProxy{s.AnyOf, s.OneOf, s.AllOf} {
		for _, p := range group {
			if c := concrete(p.Schema()); c != nil && schemaType(c) != "" {
				return c
			}
		}
	}
	return s
}

// schemaType is the schema's type other than null.
func schemaType(s *base.Schema) string {
	if s == nil {
		return ""
	}
	for _, t := range s.Type {
		if t != "null" {
			return t
		}
	}
	return ""
}

func propertyIndex(s *base.Schema, name string) int {
	i := 0
	for k := range s.Properties.KeysFromOldest() {
		if k == name {
			return i
		}
		i++
	}
	return -1
}

// TestOpenAPIXMLCheckCatchesAWrongAnswer proves the XML checks can fail:
// a real XML answer that drops an element, changes a value, loses a null,
// names an item or its root otherwise, or reorders its elements is
// reported by the validator, by the comparison with the JSON answer, or
// both, as each can see.
func TestOpenAPIXMLCheckCatchesAWrongAnswer(t *testing.T) {
	v := openAPIValidator(t)
	s := serve(t, "--demo")
	defer s.stop(t)
	key := []string{"X-Api-Key", "demo-merchant-1-key"}
	const list = "/V1/Merchant/Transactions?fromDate=2024-01-01&toDate=2024-01-31"
	_, header, xmlBody := s.get(t, list+"&contentType=application/xml", key...)
	_, _, jsonBody := s.get(t, list, key...)
	c := openAPICall{method: "GET", path: list, header: key}
	validate := func(body string) (bool, string) {
		resp := &http.Response{StatusCode: 200, Header: header, Body: io.NopCloser(strings.NewReader(body))}
		ok, errs := v.ValidateHttpResponse(c.request(t, s.base), resp)
		return ok, describeErrors(errs)
	}
	if ok, errs := validate(xmlBody); !ok {
		t.Fatalf("the real answer is invalid:%s", errs)
	}
	if err := xmlMatchesJSON([]byte(xmlBody), []byte(jsonBody), "TransactionArray"); err != nil {
		t.Fatalf("the real answers differ: %v", err)
	}
	for _, tc := range []struct {
		name      string
		edits     []string // old, new, ...
		validator bool     // whether the schema check can see it
		compare   bool     // whether the comparison with the JSON answer can
	}{
		{"a dropped element", []string{"<OrderId>T0001</OrderId>", ""}, true, true},
		{"a number as a word", []string{"<SaleValue>100.0000</SaleValue>", "<SaleValue>one hundred</SaleValue>"}, true, true},
		{"a value outside its enum", []string{"<Status2>Paid</Status2>", "<Status2>Settled</Status2>"}, true, true},
		{"an undocumented element", []string{"<OrderId>T0001</OrderId>", "<OrderId>T0001</OrderId><Extra>1</Extra>"}, true, true},
		{"a null written as empty", []string{`<CreativeId i:nil="true" />`, "<CreativeId></CreativeId>"}, true, true},
		{"an item named otherwise", []string{"<TransactionItem>", "<Item>", "</TransactionItem>", "</Item>"}, true, true},
		{"another root", []string{"<TransactionArray ", "<Transactions ", "</TransactionArray>", "</Transactions>"}, true, true},
		{"elements out of order", []string{"<OrderId>T0001</OrderId>", "", "<Id>1</Id>", "<Id>1</Id><OrderId>T0001</OrderId>"}, true, false},
		{"a changed amount", []string{"<SaleValue>100.0000</SaleValue>", "<SaleValue>100.00</SaleValue>"}, false, true},
	} {
		t.Run(tc.name+" is reported", func(t *testing.T) {
			changed := xmlBody
			for i := 0; i+1 < len(tc.edits); i += 2 {
				if !strings.Contains(changed, tc.edits[i]) {
					t.Fatalf("%q is not in the answer", tc.edits[i])
				}
				changed = strings.Replace(changed, tc.edits[i], tc.edits[i+1], 1)
			}
			ok, _ := validate(changed)
			if tc.validator && ok {
				t.Errorf("the validator passed %.300s", changed)
			}
			if err := xmlMatchesJSON([]byte(changed), []byte(jsonBody), "TransactionArray"); tc.compare && err == nil {
				t.Errorf("the comparison with the JSON answer passed %.300s", changed)
			}
		})
	}
}

// xmlItemNames names the elements of the arrays inside an answer, by the
// field that holds them (the contract's XML rules; the document's xml
// names).
var xmlItemNames = map[string]string{"Items": "TransactionItem", "TrafficSources": "TrafficSource"}

// xmlNode is an element of an XML answer.
type xmlNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []xmlNode  `xml:",any"`
	Text     string     `xml:",chardata"`
}

// xmlMatchesJSON checks that an XML answer says what the JSON answer of
// the same call says, element for field, to the character: the schema
// check takes 100.00 for 100.0000, which the contract tells apart.
func xmlMatchesJSON(xmlBody, jsonBody []byte, root string) error {
	var n xmlNode
	if err := xml.Unmarshal(xmlBody, &n); err != nil {
		return fmt.Errorf("not XML: %v", err)
	}
	if n.XMLName.Local != root {
		return fmt.Errorf("root element %s, want %s", n.XMLName.Local, root)
	}
	dec := json.NewDecoder(bytes.NewReader(jsonBody))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("JSON: %v", err)
	}
	item := strings.TrimSuffix(root, "Array")
	return matchXML(n, v, item, root)
}

func matchXML(n xmlNode, v any, item, at string) error {
	nilAttr := false
	for _, a := range n.Attrs {
		if a.Name.Local == "nil" && a.Value == "true" {
			nilAttr = true
		}
	}
	switch v := v.(type) {
	case nil:
		if !nilAttr {
			return fmt.Errorf("%s: null in JSON, %q in XML", at, n.Text)
		}
	case []any:
		if len(n.Children) != len(v) {
			return fmt.Errorf("%s: %d items in JSON, %d in XML", at, len(v), len(n.Children))
		}
		for i, c := range n.Children {
			if c.XMLName.Local != item {
				return fmt.Errorf("%s[%d]: element %s, want %s", at, i, c.XMLName.Local, item)
			}
			if err := matchXML(c, v[i], "", fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case map[string]any:
		if len(n.Children) != len(v) {
			return fmt.Errorf("%s: %d fields in JSON, %d elements in XML", at, len(v), len(n.Children))
		}
		for _, c := range n.Children {
			field, ok := v[c.XMLName.Local]
			if !ok {
				return fmt.Errorf("%s: element %s is not a JSON field", at, c.XMLName.Local)
			}
			if err := matchXML(c, field, xmlItemNames[c.XMLName.Local], at+"."+c.XMLName.Local); err != nil {
				return err
			}
		}
	default:
		if nilAttr || fmt.Sprint(v) != n.Text {
			return fmt.Errorf("%s: %v in JSON, %q in XML", at, v, n.Text)
		}
	}
	return nil
}

// xmlRoot returns the XML root element the document names for a GET
// path's 200 answer: its schema's xml name.
func xmlRoot(t *testing.T, path string) string {
	t.Helper()
	var doc struct {
		Paths map[string]struct {
			Get struct {
				Responses map[string]struct {
					Content map[string]struct {
						Schema struct {
							Ref string `json:"$ref"`
						}
					}
				}
			}
		}
		Components struct {
			Schemas map[string]struct {
				XML struct{ Name string }
			}
		}
	}
	if err := json.Unmarshal(openapi.Document, &doc); err != nil {
		t.Fatal(err)
	}
	path, _, _ = strings.Cut(path, "?")
	for template, item := range doc.Paths {
		pattern := "^" + regexp.MustCompile(`\\\{[^}]*\\\}`).ReplaceAllString(regexp.QuoteMeta(template), `[^/]+`) + "$"
		if !regexp.MustCompile(pattern).MatchString(path) {
			continue
		}
		ref := item.Get.Responses["200"].Content["application/xml"].Schema.Ref
		return doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")].XML.Name
	}
	t.Fatalf("no path of the document matches %s", path)
	return ""
}

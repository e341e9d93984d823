package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The answers are decoded by walking the result types with reflection
// over encoding/json's tokens, rather than by json.Unmarshal, for two
// reasons: datetimes carry no zone, so turning them into time.Time needs
// the network's zone, which differs per Client and so cannot live in an
// UnmarshalJSON method; and tests need a strict mode that fails on a
// field the server writes but the types lack, or the reverse.

// wireDateTime is the layout of the API's datetimes. time.Parse accepts
// any fraction after the seconds, so it reads the contract's exact three
// digits and is not thrown by fewer or more.
const wireDateTime = "2006-01-02T15:04:05"

var (
	timeType    = reflect.TypeFor[time.Time]()
	decimalType = reflect.TypeFor[Decimal]()
)

// decodeJSON decodes one JSON document into out, a pointer. In strict
// mode an object's member with no field, or a field (not tagged
// omitempty) with no member, is an error.
func decodeJSON(r io.Reader, out any, loc *time.Location, strict bool) error {
	v := reflect.ValueOf(out)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return errors.New("decode needs a non-nil pointer")
	}
	dec := json.NewDecoder(r)
	dec.UseNumber() // numbers stay text: exact for Decimal, checked for integers
	d := &decoder{dec: dec, loc: loc, strict: strict}
	if err := d.value(v.Elem(), "$"); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("the body holds more than one JSON value")
	}
	return nil
}

// decoder holds one document's decoding.
type decoder struct {
	dec    *json.Decoder
	loc    *time.Location
	strict bool
}

// value decodes the next JSON value into v; at names it in errors, as
// a path from the document's root ($[3].Items[0].Sku).
func (d *decoder) value(v reflect.Value, at string) error {
	tok, err := d.dec.Token()
	if err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	return d.token(tok, v, at)
}

// token decodes the value that starts with tok into v.
func (d *decoder) token(tok json.Token, v reflect.Value, at string) error {
	if tok == nil {
		v.SetZero()
		return nil
	}
	if v.Kind() == reflect.Pointer {
		p := reflect.New(v.Type().Elem())
		if err := d.token(tok, p.Elem(), at); err != nil {
			return err
		}
		v.Set(p)
		return nil
	}
	mismatch := func(want string) error {
		return fmt.Errorf("%s: want %s, got %v (%T)", at, want, tok, tok)
	}
	switch v.Type() {
	case timeType:
		s, ok := tok.(string)
		if !ok {
			return mismatch("a datetime string")
		}
		t, err := time.ParseInLocation(wireDateTime, s, d.loc)
		if err != nil {
			return fmt.Errorf("%s: %q is not a datetime of the form YYYY-MM-DDThh:mm:ss.fff", at, s)
		}
		v.Set(reflect.ValueOf(t))
		return nil
	case decimalType:
		n, ok := tok.(json.Number)
		if !ok || !isDecimal(string(n)) {
			return mismatch("a decimal number")
		}
		v.SetString(string(n))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		s, ok := tok.(string)
		if !ok {
			return mismatch("a string")
		}
		v.SetString(s)
	case reflect.Int, reflect.Int64:
		n, ok := tok.(json.Number)
		if !ok {
			return mismatch("an integer")
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || v.OverflowInt(i) {
			return mismatch("an integer")
		}
		v.SetInt(i)
	case reflect.Bool:
		b, ok := tok.(bool)
		if !ok {
			return mismatch("true or false")
		}
		v.SetBool(b)
	case reflect.Slice:
		if tok != json.Delim('[') {
			return mismatch("an array")
		}
		// [] stays an empty slice, not nil, so an empty list and a null
		// one remain different.
		s := reflect.MakeSlice(v.Type(), 0, 0)
		for i := 0; d.dec.More(); i++ {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := d.value(e, at+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
			s = reflect.Append(s, e)
		}
		if _, err := d.dec.Token(); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		v.Set(s)
	case reflect.Struct:
		if tok != json.Delim('{') {
			return mismatch("an object")
		}
		return d.object(v, at)
	default:
		return fmt.Errorf("%s: cannot decode into %s", at, v.Type())
	}
	return nil
}

// object decodes an object's members into the struct v, its '{' read.
func (d *decoder) object(v reflect.Value, at string) error {
	fields := fieldsOf(v.Type())
	seen := make([]bool, len(fields.list))
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		name, _ := tok.(string)
		i, ok := fields.find(name, d.strict)
		if !ok {
			if d.strict {
				return fmt.Errorf("%s: the server wrote %q, which %s has no field for", at, name, v.Type())
			}
			var skip json.RawMessage
			if err := d.dec.Decode(&skip); err != nil {
				return fmt.Errorf("%s.%s: %w", at, name, err)
			}
			continue
		}
		f := &fields.list[i]
		if err := d.value(v.FieldByIndex(f.index), at+"."+name); err != nil {
			return err
		}
		seen[i] = true
	}
	if _, err := d.dec.Token(); err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	if d.strict {
		for i, f := range fields.list {
			if !seen[i] && !f.optional {
				return fmt.Errorf("%s: the server did not write %q of %s", at, f.name, v.Type())
			}
		}
	}
	return nil
}

// field is a struct field as a JSON member.
type field struct {
	name     string
	index    []int
	optional bool // tagged omitempty: absent from some answers by design
}

// structFields are a struct type's members, embedded structs' included.
type structFields struct {
	list   []field
	byName map[string]int
}

// find returns the field of a member name: exact, else ignoring case,
// as encoding/json matches, unless exact says the spelling must be the
// contract's.
func (s *structFields) find(name string, exact bool) (int, bool) {
	if i, ok := s.byName[name]; ok || exact {
		return i, ok
	}
	for i, f := range s.list {
		if strings.EqualFold(f.name, name) {
			return i, true
		}
	}
	return 0, false
}

var fieldCache sync.Map // reflect.Type: *structFields

// fieldsOf returns t's members, computed once per type.
func fieldsOf(t reflect.Type) *structFields {
	if s, ok := fieldCache.Load(t); ok {
		return s.(*structFields)
	}
	s := &structFields{byName: map[string]int{}}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			idx := append(append([]int(nil), index...), i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
				walk(sf.Type, idx)
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			s.byName[name] = len(s.list)
			s.list = append(s.list, field{name: name, index: idx,
				optional: strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")})
		}
	}
	walk(t, nil)
	actual, _ := fieldCache.LoadOrStore(t, s)
	return actual.(*structFields)
}

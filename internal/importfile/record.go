package importfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/jsontext"
)

// record reads the fields of one JSON object of the file. It keeps the
// first error, prefixed with the record's path (`Transactions[3]`), so a
// parse function reads every field unconditionally and checks err once.
type record struct {
	path   string
	fields map[string]json.RawMessage // keyed by the name as written
	used   map[string]bool
	opts   *Options
	err    error
}

func newRecord(path string, raw json.RawMessage, opts *Options) *record {
	r := &record{path: path, used: map[string]bool{}, opts: opts}
	fields, err := decodeObject(raw)
	switch {
	case errors.Is(err, errNotObject):
		r.err = afftrack.Errorf(afftrack.EINVALID, "%s: must be a JSON object", path)
	case err != nil:
		r.err = afftrack.Errorf(afftrack.EINVALID, "%s%s", path, err.Error())
	}
	r.fields = fields
	return r
}

// fail records an error about field name unless one is already recorded.
func (r *record) fail(name, format string, args ...any) {
	if r.err == nil {
		r.err = afftrack.Errorf(afftrack.EINVALID, "%s.%s: %s", r.path, name, shorten(fmt.Sprintf(format, args...)))
	}
}

// maxMessage bounds the part of an error that may quote the file, so that
// a megabyte-long value or name is not echoed back whole.
const maxMessage = 512

// shorten cuts msg to about maxMessage bytes, on a character boundary,
// saying how much was left out.
func shorten(msg string) string {
	if len(msg) <= maxMessage {
		return msg
	}
	cut := afftrack.CutUTF8(msg, maxMessage)
	return fmt.Sprintf("%s… (%d more bytes)", cut, len(msg)-len(cut))
}

// raw returns the field's JSON text, or nil when it is absent or null.
// Names match case-insensitively, as encoding/json matches them, but the
// exact spelling wins.
func (r *record) raw(name string) json.RawMessage {
	if r.err != nil {
		return nil
	}
	v, ok := r.fields[name]
	if !ok {
		for k, kv := range r.fields {
			if strings.EqualFold(k, name) {
				v, ok, name = kv, true, k
				break
			}
		}
	}
	if !ok {
		return nil
	}
	r.used[name] = true
	if string(bytes.TrimSpace(v)) == "null" {
		return nil
	}
	return v
}

// done fails on any field no reader asked for: a misspelt field would
// otherwise be dropped without a word.
func (r *record) done() error {
	if r.err != nil {
		return r.err
	}
	for k := range r.fields {
		if !r.used[k] {
			return afftrack.Errorf(afftrack.EINVALID, "%s.%s: is not a field of this record", r.path, shorten(k))
		}
	}
	return nil
}

func (r *record) missing(name string, required bool) {
	if required {
		r.fail(name, "is required")
	}
}

// int reads an integer field; absent or null gives def (or an error when
// required).
func (r *record) int(name string, required bool, def int64) int64 {
	v := r.nullInt(name, required)
	if !v.Valid {
		return def
	}
	return v.Value
}

func (r *record) nullInt(name string, required bool) afftrack.Null[int64] {
	raw := r.raw(name)
	if raw == nil {
		r.missing(name, required)
		return afftrack.Null[int64]{}
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		r.fail(name, "%s is not an integer", raw)
	}
	return afftrack.Some(n)
}

// id reads a record's own id or a reference to one: a positive integer.
func (r *record) id(name string) int64 {
	n := r.int(name, true, 0)
	if r.err == nil && (n < 1 || n > afftrack.MaxID) {
		r.fail(name, "%d is not a valid id; ids are from 1 to %d", n, afftrack.MaxID)
	}
	return n
}

func (r *record) str(name string, required bool) string {
	return r.nullStr(name, required).Value
}

func (r *record) nullStr(name string, required bool) afftrack.Null[string] {
	raw := r.raw(name)
	if raw == nil {
		r.missing(name, required)
		return afftrack.Null[string]{}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		r.fail(name, "%s is not a string", raw)
		return afftrack.Null[string]{}
	}
	r.text(name, s)
	return afftrack.Some(s)
}

// text checks s, the value of field name (a string field, or an element
// of a list of strings), as text: no character XML cannot carry, at most
// afftrack.MaxText bytes.
func (r *record) text(name, s string) {
	if i := afftrack.TextProblem(s); i >= 0 {
		r.fail(name, "contains a character XML cannot carry (at byte %d)", i)
	}
	if len(s) > afftrack.MaxText {
		r.fail(name, "is %d bytes long; text is at most %d bytes", len(s), afftrack.MaxText)
	}
}

// url reads an optional absolute http or https URL; empty is allowed.
func (r *record) url(name string) string {
	s := r.str(name, false)
	if s == "" || r.err != nil {
		return s
	}
	if problem := afftrack.WebURLProblem(s); problem != "" {
		r.fail(name, "%s", problem)
	}
	return s
}

// bool reads a boolean: JSON true/false, or the strings "true"/"false" in
// any case.
func (r *record) bool(name string) bool {
	raw := r.raw(name)
	if raw == nil {
		return false
	}
	text := string(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		text = strings.ToLower(s)
	}
	switch text {
	case "true":
		return true
	case "false":
		return false
	}
	r.fail(name, "%s is not a boolean; use true or false", raw)
	return false
}

func (r *record) decimal(name string, scale int) afftrack.Null[int64] {
	raw := r.raw(name)
	if raw == nil {
		return afftrack.Null[int64]{}
	}
	if raw[0] == '"' {
		r.fail(name, "%s must be a JSON number, not a string", raw)
		return afftrack.Null[int64]{}
	}
	v, err := afftrack.ParseDecimal(string(raw), scale)
	if err != nil {
		r.fail(name, "%s", afftrack.ErrorMessage(err))
		return afftrack.Null[int64]{}
	}
	return afftrack.Some(v)
}

func (r *record) money(name string) afftrack.Money {
	return afftrack.Money(r.decimal(name, afftrack.MoneyScale).Value)
}

func (r *record) itemMoney(name string) afftrack.ItemMoney {
	return afftrack.ItemMoney(r.decimal(name, afftrack.ItemMoneyScale).Value)
}

func (r *record) nullMoney(name string) afftrack.Null[afftrack.Money] {
	v := r.decimal(name, afftrack.MoneyScale)
	return afftrack.Null[afftrack.Money]{Value: afftrack.Money(v.Value), Valid: v.Valid}
}

// datetime reads a datetime, converting a zoned one to the network's
// zone; absent gives def (or an error when required).
func (r *record) datetime(name string, required bool, def time.Time) time.Time {
	s := r.nullStr(name, required)
	if !s.Valid {
		return def
	}
	in, err := afftrack.ParseDateTime(s.Value)
	if err != nil {
		r.fail(name, "%s", afftrack.ErrorMessage(err))
		return def
	}
	t := in.In(r.opts.location())
	if y := t.Year(); y < 1 || y > 9999 {
		r.fail(name, "%q is in year %d in the network's time zone; datetimes must fall in years 0001 to 9999", s.Value, y)
		return def
	}
	return t
}

// nullDatetime reads an optional datetime: null when absent.
func (r *record) nullDatetime(name string) afftrack.Null[time.Time] {
	if r.raw(name) == nil {
		return afftrack.Null[time.Time]{}
	}
	return afftrack.Some(r.datetime(name, false, time.Time{}))
}

// nullBool reads an optional boolean: null when absent.
func (r *record) nullBool(name string) afftrack.Null[bool] {
	if r.raw(name) == nil {
		return afftrack.Null[bool]{}
	}
	return afftrack.Some(r.bool(name))
}

// idRef reads an optional reference to a record: null, or an id in the
// range id reads.
func (r *record) idRef(name string) afftrack.Null[int64] {
	v := r.nullInt(name, false)
	if v.Valid && (v.Value < 1 || v.Value > afftrack.MaxID) && r.err == nil {
		r.fail(name, "%d is not a valid id; ids are from 1 to %d", v.Value, afftrack.MaxID)
	}
	return v
}

// shortText reads optional text of at most n characters: null when absent.
func (r *record) shortText(name string, n int) afftrack.Null[string] {
	s := r.nullStr(name, false)
	if s.Valid && r.err == nil && utf8.RuneCountInString(s.Value) > n {
		r.fail(name, "is %d characters long; at most %d", utf8.RuneCountInString(s.Value), n)
	}
	return s
}

// list reads an optional array field into its elements' JSON; null when
// absent.
func (r *record) list(name, what string, max int) []json.RawMessage {
	raw := r.raw(name)
	if raw == nil {
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		r.fail(name, "must be an array of %s", what)
		return nil
	}
	if len(list) > max {
		r.fail(name, "has %d elements; at most %d", len(list), max)
		return nil
	}
	return list
}

// sub reads the element raw of a list field as a record of its own,
// path name[i], handing its first error to r.
func (r *record) sub(name string, i int, raw json.RawMessage, read func(*record)) {
	sr := newRecord(fmt.Sprintf("%s.%s[%d]", r.path, name, i), raw, r.opts)
	if sr.err == nil {
		read(sr)
	}
	if err := sr.done(); err != nil && r.err == nil {
		r.err = err
	}
}

// enum reads a value name of an enumeration, case-insensitively.
func enum[T ~uint8](r *record, name string, required bool, parse func(string) (T, bool), names string) T {
	s := r.nullStr(name, required)
	if !s.Valid {
		return 0
	}
	v, ok := parse(s.Value)
	if !ok {
		r.fail(name, "%q is not one of %s", s.Value, names)
	}
	return v
}

// notStorable says what is wrong with a string jsontext.Storable refuses.
const notStorable = "holds invalid UTF-8 or a lone UTF-16 surrogate escape, which text cannot keep"

// stringList reads a list field of JSON strings, what naming them in the
// error of a field that is not one. Each is checked as decodeObject
// checks a string field, the error naming it (ApiKeys[1]).
func (r *record) stringList(name, what string) []string {
	elems := r.list(name, what, math.MaxInt)
	if elems == nil {
		return nil
	}
	list := make([]string, len(elems))
	for i, e := range elems {
		if err := json.Unmarshal(e, &list[i]); err != nil {
			r.fail(name, "must be an array of %s", what)
			return nil
		}
		if !jsontext.Storable(e) {
			r.fail(fmt.Sprintf("%s[%d]", name, i), "%s", notStorable)
			return nil
		}
	}
	return list
}

// errNotObject is decodeObject's error for a value that is not an object.
var errNotObject = errors.New("not a JSON object")

// decodeObject reads the members of one JSON object. A name given twice
// (in any case, since fields match ignoring case) is an error naming it:
// encoding/json would keep the last and drop the first without a word.
func decodeObject(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errNotObject
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return nil, errNotObject
	}
	fields := map[string]json.RawMessage{}
	folded := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errNotObject
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errNotObject
		}
		// A string is checked here, whatever reads it; an array or an
		// object is left to the reader of its elements or fields, so the
		// error names the one at fault (Items[1].Name).
		if len(v) > 0 && v[0] == '"' && !jsontext.Storable(v) {
			return nil, fmt.Errorf(".%s: %s", name, notStorable)
		}
		if first, dup := folded[strings.ToLower(name)]; dup {
			return nil, fmt.Errorf(".%s: is given twice in one object (also as %q)", name, first)
		}
		folded[strings.ToLower(name)] = name
		fields[name] = v
	}
	return fields, nil
}

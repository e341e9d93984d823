package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/jsontext"
)

// Bounds of a conversion's body (tracking.md section 3). Where the
// contract gives none, these are ours, documented in docs/tracking.md.
const (
	maxConversionBody  = 64 << 10
	maxConversionItems = 500
	maxConversionText  = 4096 // AdditionalNotes
	maxConversionField = 255  // OrderId, CouponCode, an item's Sku, Name, Brand, Category
)

// conversionFields are a conversion body's fields, as the contract spells
// them; names match ignoring case.
var conversionFields = []string{"ClickId", "OrderId", "SaleValue", "CurrencyCode", "CustomerType", "CouponCode",
	"ConsumptionDate", "AdditionalNotes", "CustomerCountryCode", "Items"}

// itemFields are an item's fields.
var itemFields = []string{"Sku", "Quantity", "SaleValue", "Name", "Brand", "Category"}

// conversionInput is what a conversion body or a pixel's query gives, as
// text, before it is checked: both ways in share one set of rules.
type conversionInput struct {
	values map[string]string // field name as the contract spells it: raw text (a JSON number's digits, a string's value)
	isNum  map[string]bool   // whether the JSON value was a number
	typed  bool              // from JSON, whose values have types; a query's have none
	items  []map[string]string
	itemsN []map[string]bool
}

// parseConversionBody reads a conversion's JSON body into an input: an
// object whose fields are the contract's, in any case, each at most once,
// with Items an array of objects. Every problem is an EINVALID error
// naming the field.
func parseConversionBody(body []byte) (*conversionInput, error) {
	top, err := decodeFields(body, "", conversionFields)
	if err != nil {
		return nil, err
	}
	in := &conversionInput{values: map[string]string{}, isNum: map[string]bool{}, typed: true}
	for name, raw := range top {
		if name == "Items" {
			continue
		}
		v, num, err := scalar(name, raw)
		if err != nil {
			return nil, err
		}
		if v != "" || num {
			in.values[name], in.isNum[name] = v, num
		}
	}
	if raw, ok := top["Items"]; ok && !isNull(raw) {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, afftrack.Errorf(afftrack.EINVALID, "Items: must be an array of objects")
		}
		if len(list) > maxConversionItems {
			return nil, afftrack.Errorf(afftrack.EINVALID, "Items: has %d items; at most %d", len(list), maxConversionItems)
		}
		for i, rawItem := range list {
			at := fmt.Sprintf("Items[%d].", i)
			fields, err := decodeFields(rawItem, at, itemFields)
			if err != nil {
				return nil, err
			}
			item, nums := map[string]string{}, map[string]bool{}
			for name, raw := range fields {
				v, num, err := scalar(at+name, raw)
				if err != nil {
					return nil, err
				}
				if v != "" || num {
					item[name], nums[name] = v, num
				}
			}
			in.items = append(in.items, item)
			in.itemsN = append(in.itemsN, nums)
		}
	}
	return in, nil
}

// decodeFields decodes a JSON object whose names must be among known
// (ignoring case), each at most once, returning its values by the known
// spelling. prefix names the object in errors.
func decodeFields(raw []byte, prefix string, known []string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		what := "the body"
		if prefix != "" {
			what = strings.TrimSuffix(prefix, ".")
		}
		return nil, afftrack.Errorf(afftrack.EINVALID, "%s must be a JSON object", what)
	}
	out := map[string]json.RawMessage{}
	// The decoder reads a number as far as it is one, so in "SaleValue":01
	// it is what follows the value that is malformed: the field just read
	// is named.
	last := ""
	malformed := func() error {
		if last != "" {
			return afftrack.Errorf(afftrack.EINVALID, "%s%s: the JSON is malformed", prefix, last)
		}
		return afftrack.Errorf(afftrack.EINVALID, "%sthe JSON is malformed", prefix)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, malformed()
		}
		name, _ := tok.(string)
		field := ""
		for _, k := range known {
			if strings.EqualFold(k, name) {
				field = k
			}
		}
		if field == "" {
			if name == "" {
				name = `""`
			}
			return nil, afftrack.Errorf(afftrack.EINVALID, "%s%s: is not a field; the fields are %s",
				prefix, name, strings.Join(known, ", "))
		}
		if _, dup := out[field]; dup {
			return nil, afftrack.Errorf(afftrack.EINVALID, "%s%s: is given twice", prefix, field)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, afftrack.Errorf(afftrack.EINVALID, "%s%s: the JSON is malformed", prefix, field)
		}
		out[field] = v
		last = field
	}
	if _, err := dec.Token(); err != nil {
		return nil, malformed()
	}
	if prefix == "" {
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, afftrack.Errorf(afftrack.EINVALID, "the body holds more than one JSON value")
		}
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// scalar returns the text of a string or number value ("" for null), and
// whether it was a number. Objects, arrays and booleans are refused.
func scalar(name string, raw json.RawMessage) (string, bool, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case isNull(raw):
		return "", false, nil
	case len(raw) > 0 && raw[0] == '"':
		// The decoder would turn invalid UTF-8 and a lone surrogate into
		// U+FFFD, so two different OrderIds could become one.
		if !jsontext.Storable(raw) {
			return "", false, afftrack.Errorf(afftrack.EINVALID,
				"%s: holds a character that cannot be stored (invalid UTF-8 or a lone UTF-16 surrogate)", name)
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false, afftrack.Errorf(afftrack.EINVALID, "%s: is not a valid string", name)
		}
		return s, false, nil
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		return string(raw), true, nil
	}
	base := name[strings.LastIndexByte(name, '.')+1:]
	if conversionNumbers[base] || itemNumbers[base] {
		return "", false, afftrack.Errorf(afftrack.EINVALID, "%s: must be a JSON number", name)
	}
	return "", false, afftrack.Errorf(afftrack.EINVALID, "%s: must be a JSON string", name)
}

// conversion checks an input against tracking.md section 3 and returns
// the Conversion of merchantID. currency is the network's, the default of
// CurrencyCode; loc is the network's zone, for ConsumptionDate.
func (in *conversionInput) conversion(merchantID int64, currency string, loc *time.Location) (*afftrack.Conversion, error) {
	bad := func(field, format string, args ...any) error {
		return afftrack.Errorf(afftrack.EINVALID, "%s: %s", field, fmt.Sprintf(format, args...))
	}
	c := &afftrack.Conversion{MerchantID: merchantID, CurrencyCode: currency, CustomerType: afftrack.CustomerTypeNew}
	v := in.values
	if err := in.checkTypes("", v, in.isNum, conversionNumbers); err != nil {
		return nil, err
	}
	if id := v["ClickId"]; id != "" {
		c.ClickID = strings.ToLower(id)
		if !afftrack.IsClickID(c.ClickID) {
			return nil, bad("ClickId", "%q is not a click id (32 hexadecimal digits)", id)
		}
	}
	c.OrderID = v["OrderId"]
	switch {
	case c.OrderID == "":
		return nil, bad("OrderId", "is required")
	case utf8.RuneCountInString(c.OrderID) > afftrack.MaxOrderIDLength:
		return nil, bad("OrderId", "is %d characters long; at most %d",
			utf8.RuneCountInString(c.OrderID), afftrack.MaxOrderIDLength)
	}
	if s := v["CurrencyCode"]; s != "" {
		code := strings.ToUpper(s)
		if _, ok := afftrack.CurrencyName(code); !ok || len(code) != 3 {
			return nil, bad("CurrencyCode", "%q is not an ISO 4217 currency code", s)
		}
		c.CurrencyCode = code
	}
	if s := v["CustomerType"]; s != "" {
		ct, ok := afftrack.ParseCustomerType(s)
		if !ok {
			return nil, bad("CustomerType", "%q is not one of %s", s, afftrack.CustomerTypeNames())
		}
		c.CustomerType = ct
	}
	c.CouponCode = v["CouponCode"]
	if len(c.CouponCode) > maxConversionField {
		return nil, bad("CouponCode", "is %d bytes long; at most %d", len(c.CouponCode), maxConversionField)
	}
	if s := v["ConsumptionDate"]; s != "" {
		d, err := afftrack.ParseDateTime(s)
		if err != nil {
			return nil, bad("ConsumptionDate", "%s", afftrack.ErrorMessage(err))
		}
		t := d.In(loc)
		if y := t.Year(); y < 1 || y > 9999 {
			return nil, bad("ConsumptionDate", "%q falls outside the years 0001 to 9999", s)
		}
		c.ConsumptionDate = afftrack.Some(t)
	}
	if s, ok := v["AdditionalNotes"]; ok {
		if len(s) > maxConversionText {
			return nil, bad("AdditionalNotes", "is %d bytes long; at most %d", len(s), maxConversionText)
		}
		c.AdditionalNotes = afftrack.Some(s)
	}
	if s := v["CustomerCountryCode"]; s != "" {
		country, ok := afftrack.CountryByCode(s)
		if !ok {
			return nil, bad("CustomerCountryCode", "%q is not an ISO 3166 country code", s)
		}
		c.CustomerCountryCode = country.Alpha3
	}
	var sum int64
	for i, item := range in.items {
		at := fmt.Sprintf("Items[%d].", i)
		if err := in.checkTypes(at, item, in.itemsN[i], itemNumbers); err != nil {
			return nil, err
		}
		it, err := conversionItem(at, item, in.itemsN[i])
		if err != nil {
			return nil, err
		}
		c.Items = append(c.Items, it)
		sum += int64(it.SaleValue) // at most 500 items of at most 10^15: no overflow
	}
	sale, given := v["SaleValue"]
	switch {
	case given:
		m, err := afftrack.ParseMoney(sale)
		if err != nil {
			return nil, bad("SaleValue", "%s", afftrack.ErrorMessage(err))
		}
		if m <= 0 || m > afftrack.MaxSaleValue {
			return nil, bad("SaleValue", "must be greater than 0 and at most %d", afftrack.MaxSaleValue/10_000)
		}
		c.SaleValue = m
		if len(c.Items) > 0 && int64(m) != sum*100 {
			return nil, bad("SaleValue", "%s is not the sum of the Items' SaleValue (%s)", m,
				afftrack.ItemMoney(sum))
		}
	case len(c.Items) > 0:
		c.SaleValue = afftrack.Money(sum * 100)
		if c.SaleValue <= 0 || c.SaleValue > afftrack.MaxSaleValue {
			return nil, bad("SaleValue", "the Items' SaleValue add up to %s; a sale must be greater than 0 and at most %d",
				afftrack.ItemMoney(sum), afftrack.MaxSaleValue/10_000)
		}
	default:
		return nil, bad("SaleValue", "is required (or Items, whose SaleValue add up to it)")
	}
	return c, nil
}

// The fields whose values are numbers; every other field is text.
var (
	conversionNumbers = map[string]bool{"SaleValue": true}
	itemNumbers       = map[string]bool{"Quantity": true, "SaleValue": true}
)

// checkTypes checks the values of one object: in JSON a number field must
// be a number and a text field a string; in JSON or a query, text must be
// storable (see afftrack.TextProblem).
func (in *conversionInput) checkTypes(at string, v map[string]string, isNum, numbers map[string]bool) error {
	for name, value := range v {
		switch {
		case in.typed && numbers[name] && !isNum[name]:
			return afftrack.Errorf(afftrack.EINVALID, "%s%s: must be a JSON number", at, name)
		case in.typed && !numbers[name] && isNum[name]:
			return afftrack.Errorf(afftrack.EINVALID, "%s%s: must be a JSON string", at, name)
		}
		if i := afftrack.TextProblem(value); i >= 0 {
			return afftrack.Errorf(afftrack.EINVALID,
				"%s%s: holds a character that cannot be stored (a control character or invalid UTF-8) at byte %d", at, name, i)
		}
	}
	return nil
}

// conversionItem checks one item.
func conversionItem(at string, v map[string]string, num map[string]bool) (afftrack.ConversionItem, error) {
	bad := func(field, format string, args ...any) error {
		return afftrack.Errorf(afftrack.EINVALID, "%s%s: %s", at, field, fmt.Sprintf(format, args...))
	}
	it := afftrack.ConversionItem{Quantity: 1}
	for _, f := range []string{"Sku", "Name", "Brand", "Category"} {
		if len(v[f]) > maxConversionField {
			return it, bad(f, "is %d bytes long; at most %d", len(v[f]), maxConversionField)
		}
	}
	it.Sku, it.Name, it.Brand, it.Category = v["Sku"], v["Name"], v["Brand"], v["Category"]
	if q, ok := v["Quantity"]; ok {
		n, err := afftrack.ParseDecimal(q, 0)
		if err != nil {
			return it, bad("Quantity", "%q is not a whole number", q)
		}
		if n < 1 || n > 1_000_000 {
			return it, bad("Quantity", "must be from 1 to 1000000")
		}
		it.Quantity = n
	}
	s, ok := v["SaleValue"]
	if !ok {
		return it, bad("SaleValue", "is required")
	}
	m, err := afftrack.ParseItemMoney(s)
	if err != nil {
		return it, bad("SaleValue", "%s", afftrack.ErrorMessage(err))
	}
	if m < 0 || int64(m) > int64(afftrack.MaxSaleValue)/100 {
		return it, bad("SaleValue", "must be from 0 to %d", afftrack.MaxSaleValue/10_000)
	}
	it.SaleValue = m
	return it, nil
}

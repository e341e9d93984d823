package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/afftrack/afftrack"
)

// maxValidationBody bounds a validation's body: 1,000 rows with a few
// items each.
const maxValidationBody = 1 << 20

// validationFields are a validation row's fields; names match ignoring case.
var validationFields = []string{"Id", "OrderId", "Action", "VoidReason", "AmendedReason", "SaleValue", "Items"}

// handleValidations applies a merchant's validation rows (tracking.md
// section 6) and answers their results in order. Only a body that is not
// a JSON array of objects, or has more rows than allowed, is a 400; a
// row that cannot be applied gets its own Error. It counts as one call
// against the rate limits.
func (s *Server) handleValidations(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	body, err := readBody(w, r, maxValidationBody)
	if err != nil {
		return err
	}
	rows, err := parseValidations(body)
	if err != nil {
		return err
	}
	// The rows are applied whatever the client does meanwhile: a client
	// gone midway would otherwise leave part of its rows applied and not
	// know which (each row is a transaction of its own), and its retry
	// would find them no longer Pending.
	ctx := context.WithoutCancel(r.Context())
	results, err := s.svc.Lifecycle.Validate(ctx, account.Ref.ID, afftrack.AccountActor(account), rows)
	if err != nil {
		return err
	}
	if err := r.Context().Err(); err != nil {
		s.abortClientGone(r, err) // applied, but no one is there to be told
	}
	st := stateOf(r)
	buf := getBody()
	b := st.neg.open(*buf)
	if st.neg.format == formatXML {
		b = appendValidationResultsXML(b, results, st.ns)
	} else {
		b = appendValidationResultsJSON(b, results)
	}
	s.respond(w, st, http.StatusOK, st.neg.close(b))
	putBody(buf, b)
	return nil
}

// parseValidations reads the body: a JSON array of at most
// afftrack.MaxValidations objects. What is wrong within a row becomes
// that row's Problem, not an error of the call.
func parseValidations(body []byte) ([]afftrack.Validation, error) {
	var list []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&list); err != nil || list == nil {
		return nil, afftrack.Errorf(afftrack.EINVALID, "the body must be a JSON array of validation objects")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, afftrack.Errorf(afftrack.EINVALID, "the body holds more than one JSON value")
	}
	if len(list) > afftrack.MaxValidations {
		return nil, afftrack.Errorf(afftrack.EINVALID, "the body has %d rows; at most %d", len(list), afftrack.MaxValidations)
	}
	rows := make([]afftrack.Validation, len(list))
	for i, raw := range list {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || raw[0] != '{' {
			return nil, afftrack.Errorf(afftrack.EINVALID, "[%d]: must be a JSON object", i)
		}
		rows[i] = parseValidation(raw)
	}
	return rows, nil
}

// parseValidation reads one row; a problem is kept as the row's Problem.
func parseValidation(raw []byte) afftrack.Validation {
	v := parseValidationFields(raw)
	if v.Problem != "" && !v.ID.Valid && !v.OrderID.Valid {
		// The row is refused, but its result still names the transaction
		// and its Status2 when Id or OrderId can be read on their own.
		v.ID, v.OrderID = identifyValidation(raw)
	}
	return v
}

// identifyValidation reads a row's Id and OrderId alone, as far as they
// are well formed and named once (in any case), for a row refused for
// another field.
func identifyValidation(raw []byte) (afftrack.Null[int64], afftrack.Null[string]) {
	// Read key by key rather than into a map, which would keep only the
	// last of two keys spelt alike.
	var ids, orders []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return afftrack.Null[int64]{}, afftrack.Null[string]{}
	}
	for dec.More() {
		tok, err := dec.Token()
		name, isName := tok.(string)
		var value json.RawMessage
		if err != nil || !isName || dec.Decode(&value) != nil {
			return afftrack.Null[int64]{}, afftrack.Null[string]{}
		}
		switch {
		case strings.EqualFold(name, "Id"):
			ids = append(ids, value)
		case strings.EqualFold(name, "OrderId"):
			orders = append(orders, value)
		}
	}
	var id afftrack.Null[int64]
	if len(ids) == 1 {
		if n, err := strconv.ParseInt(string(bytes.TrimSpace(ids[0])), 10, 64); err == nil && n >= 1 {
			id = afftrack.Some(n)
		}
	}
	var order afftrack.Null[string]
	if len(orders) == 1 {
		var s string
		if json.Unmarshal(orders[0], &s) == nil && s != "" {
			order = afftrack.Some(s)
		}
	}
	return id, order
}

// parseValidationFields reads one row's fields; the first problem found
// is kept as the row's Problem.
func parseValidationFields(raw []byte) afftrack.Validation {
	var v afftrack.Validation
	fields, err := decodeFields(raw, "", validationFields)
	if err != nil {
		v.Problem = afftrack.ErrorMessage(err)
		return v
	}
	in := &conversionInput{values: map[string]string{}, isNum: map[string]bool{}, typed: true}
	for name, raw := range fields {
		if name == "Items" {
			continue
		}
		val, num, err := scalar(name, raw)
		if err != nil {
			v.Problem = afftrack.ErrorMessage(err)
			return v
		}
		if val != "" || num {
			in.values[name], in.isNum[name] = val, num
		}
	}
	problem := func(format string, args ...any) afftrack.Validation {
		v.Problem = fmt.Sprintf(format, args...)
		return v
	}
	if err := in.checkTypes("", in.values, in.isNum, validationNumbers); err != nil {
		return problem("%s", afftrack.ErrorMessage(err))
	}
	if s, ok := in.values["Id"]; ok {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id < 1 {
			return problem("Id: %q is not a transaction id", s)
		}
		v.ID = afftrack.Some(id)
	}
	if s, ok := in.values["OrderId"]; ok {
		v.OrderID = afftrack.Some(s)
	}
	if s := in.values["Action"]; s != "" {
		a, ok := afftrack.ParseValidationAction(s)
		if !ok {
			return problem("Action: %q is not one of %s", s, afftrack.ValidationActionNames())
		}
		v.Action = a
		for _, f := range actionFields {
			_, given := in.values[f.name]
			if f.name == "Items" {
				given = fields["Items"] != nil && !isNull(fields["Items"]) && !isEmptyArray(fields["Items"])
			}
			if given && a != f.action {
				return problem("%s: applies only to %s", f.name, f.action)
			}
		}
	}
	if s := in.values["VoidReason"]; s != "" {
		r, ok := afftrack.ParseVoidReason(s)
		if !ok {
			return problem("VoidReason: %q is not one of %s", s, afftrack.VoidReasonNames())
		}
		v.VoidReason = r
	}
	if s := in.values["AmendedReason"]; s != "" {
		r, ok := afftrack.ParseAmendedReason(s)
		if !ok {
			return problem("AmendedReason: %q is not one of %s", s, afftrack.AmendedReasonNames())
		}
		v.AmendedReason = r
	}
	if s, ok := in.values["SaleValue"]; ok {
		m, err := afftrack.ParseMoney(s)
		if err != nil {
			return problem("SaleValue: %s", afftrack.ErrorMessage(err))
		}
		if m <= 0 || m > afftrack.MaxSaleValue {
			return problem("SaleValue: must be greater than 0 and at most %d", afftrack.MaxSaleValue/10_000)
		}
		v.SaleValue = afftrack.Some(m)
	}
	if raw, ok := fields["Items"]; ok && !isNull(raw) {
		items, err := parseItems(raw)
		if err != nil {
			return problem("%s", afftrack.ErrorMessage(err))
		}
		v.Items = items
	}
	return v
}

// actionFields are the row's fields that belong to one Action. A row of
// another Action that gives one is refused rather than applied without
// it: an Approve with a SaleValue may have meant "approve at this
// amount", and the Lock it would make cannot be undone. A field given as
// null (or as "", like any text, or Items as []) is not given, so a
// client that always sends every field, empty, is served.
var actionFields = []struct {
	name   string
	action afftrack.ValidationAction
}{
	{"VoidReason", afftrack.ActionVoid},
	{"AmendedReason", afftrack.ActionAmend},
	{"SaleValue", afftrack.ActionAmend},
	{"Items", afftrack.ActionAmend},
}

// isEmptyArray reports whether raw is a JSON array of nothing.
func isEmptyArray(raw json.RawMessage) bool {
	var list []json.RawMessage
	return json.Unmarshal(raw, &list) == nil && list != nil && len(list) == 0
}

// validationNumbers are the number fields of a validation row.
var validationNumbers = map[string]bool{"Id": true, "SaleValue": true}

// parseItems reads an Items array as a conversion's body has it.
func parseItems(raw json.RawMessage) ([]afftrack.ConversionItem, error) {
	body, err := json.Marshal(map[string]json.RawMessage{"Items": raw})
	if err != nil {
		return nil, afftrack.Errorf(afftrack.EINVALID, "Items: must be an array of objects")
	}
	in, err := parseConversionBody(body)
	if err != nil {
		return nil, err
	}
	var items []afftrack.ConversionItem
	for i, item := range in.items {
		at := fmt.Sprintf("Items[%d].", i)
		if err := in.checkTypes(at, item, in.itemsN[i], itemNumbers); err != nil {
			return nil, err
		}
		it, err := conversionItem(at, item, in.itemsN[i])
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, nil
}

// Elements of a validation result in XML.
var (
	xmlResultID      = newXMLElement("Id")
	xmlResultOrderID = newXMLElement("OrderId")
	xmlResultStatus  = newXMLElement("Status2")
	xmlResultError   = newXMLElement("Error")
)

// appendValidationResultsJSON appends [{"Id":..,"OrderId":..,"Status2":..,"Error":..}].
func appendValidationResultsJSON(b []byte, results []afftrack.ValidationResult) []byte {
	b = append(b, '[')
	for i, r := range results {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"Id":`...)
		b = appendJSONNullInt(b, r.ID)
		b = append(b, `,"OrderId":`...)
		b = appendJSONNullString(b, r.OrderID)
		b = append(b, `,"Status2":`...)
		b = appendJSONNullString(b, statusText(r.Status2))
		b = append(b, `,"Error":`...)
		b = appendJSONNullString(b, r.Error)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendValidationResultsXML appends a ValidationResultArray in namespace ns.
func appendValidationResultsXML(b []byte, results []afftrack.ValidationResult, ns string) []byte {
	b = appendXMLOpen(b, "ValidationResultArray", ns)
	for _, r := range results {
		b = appendXMLOpen(b, "ValidationResult", "")
		b = appendXMLNullInt(b, &xmlResultID, r.ID)
		b = appendXMLNullText(b, &xmlResultOrderID, r.OrderID)
		b = appendXMLNullText(b, &xmlResultStatus, statusText(r.Status2))
		b = appendXMLNullText(b, &xmlResultError, r.Error)
		b = appendXMLClose(b, "ValidationResult")
	}
	return appendXMLClose(b, "ValidationResultArray")
}

// statusText is a Status2 as nullable text, 0 being null.
func statusText(s afftrack.TransactionStatus2) afftrack.Null[string] {
	if s == 0 {
		return afftrack.Null[string]{}
	}
	return afftrack.Some(s.String())
}

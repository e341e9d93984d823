package client

import (
	"context"
	"errors"
)

// Validation is one row of a merchant's verdicts on its Pending
// transactions: the transaction by ID or by OrderID, and the Action.
// Fields not needed by the Action are left out when zero.
type Validation struct {
	ID            int64            `json:"Id,omitempty"`
	OrderID       string           `json:"OrderId,omitempty"`
	Action        ValidationAction `json:"Action"`
	VoidReason    VoidReason       `json:"VoidReason,omitempty"`    // required by Void
	AmendedReason AmendedReason    `json:"AmendedReason,omitempty"` // required by Amend
	SaleValue     Decimal          `json:"SaleValue,omitempty"`     // Amend: the new sale value
	Items         []ConversionItem `json:"Items,omitempty"`         // Amend: the new items
}

// ValidationResult is the outcome of one Validation row, in the rows'
// order. Error is nil when the row was applied; a row that could not be
// applied changed nothing.
type ValidationResult struct {
	ID      *int64              `json:"Id"`
	OrderID *string             `json:"OrderId"`
	Status2 *TransactionStatus2 `json:"Status2"` // the transaction's state after the row
	Error   *string             `json:"Error"`
}

// Err returns the row's error as an error, or nil if it was applied, so
// rows can be checked with the usual if err != nil.
func (r ValidationResult) Err() error {
	if r.Error == nil {
		return nil
	}
	return errors.New(*r.Error)
}

// Validate applies the rows (at most 1,000) to the merchant's
// transactions (POST /V1/Merchant/Validations), each on its own. A row
// that fails does not fail the call: look at each result's Error. The
// call fails only when the server refuses the whole request. It counts
// as one call against the rate limits.
func (m MerchantAPI) Validate(ctx context.Context, rows []Validation) ([]ValidationResult, error) {
	if rows == nil {
		rows = []Validation{} // the server wants an array; null is a 400
	}
	var out []ValidationResult
	if _, err := m.c.post(ctx, "/V1/Merchant/Validations", rows, &out); err != nil {
		return nil, err
	}
	return out, nil
}

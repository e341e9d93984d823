package client

import (
	"context"
	"net/http"
	"time"
)

// Conversion is a sale the merchant's server reports for the network to
// credit to an affiliate: by ClickID (the id the tracking link's redirect
// carried, kept by the shop) or by CouponCode (an affiliate's own code).
// Only OrderID is always required; each other field is left out of the
// request when zero, and the server's default applies.
type Conversion struct {
	ClickID string
	OrderID string // the merchant's order: a retry with the same content is answered with the same transaction
	// SaleValue is the sale in CurrencyCode, at most 4 fractional digits;
	// with Items it may be left empty and is then their sum.
	SaleValue           Decimal
	CurrencyCode        string // ISO 4217; the network's currency when empty
	CustomerType        CustomerType
	CouponCode          string
	ConsumptionDate     time.Time // sent with its zone, so it is the same instant on any network
	AdditionalNotes     string
	CustomerCountryCode string
	Items               []ConversionItem
}

// ConversionItem is one line of a reported sale; commissions are worked
// out per item by its Category.
type ConversionItem struct {
	Sku       string  `json:"Sku,omitempty"`
	Quantity  int64   `json:"Quantity,omitempty"`  // 1 when 0
	SaleValue Decimal `json:"SaleValue,omitempty"` // required: the line's total, at most 2 fractional digits
	Name      string  `json:"Name,omitempty"`
	Brand     string  `json:"Brand,omitempty"`
	Category  string  `json:"Category,omitempty"`
}

// wireConversion is a Conversion as the request's JSON; ConsumptionDate
// is text because time.Time's JSON form is not the contract's.
type wireConversion struct {
	ClickID             string           `json:"ClickId,omitempty"`
	OrderID             string           `json:"OrderId"`
	SaleValue           Decimal          `json:"SaleValue,omitempty"`
	CurrencyCode        string           `json:"CurrencyCode,omitempty"`
	CustomerType        CustomerType     `json:"CustomerType,omitempty"`
	CouponCode          string           `json:"CouponCode,omitempty"`
	ConsumptionDate     string           `json:"ConsumptionDate,omitempty"`
	AdditionalNotes     string           `json:"AdditionalNotes,omitempty"`
	CustomerCountryCode string           `json:"CustomerCountryCode,omitempty"`
	Items               []ConversionItem `json:"Items,omitempty"`
}

// wireZonedDateTime writes an instant the server reads in any network
// zone: the contract's datetime with an offset.
const wireZonedDateTime = "2006-01-02T15:04:05.000Z07:00"

// ConversionResult is the transaction a conversion made.
type ConversionResult struct {
	// Transaction is the merchant's view of it, as
	// [MerchantAPI.Transaction] returns it.
	Transaction Transaction

	// Created is false when the server already had this OrderID with the
	// same content and answered the stored transaction: a retry that
	// changed nothing.
	Created bool

	// Location is the transaction's URL on the server.
	Location string
}

// RecordConversion reports a sale (POST /V1/Merchant/Conversions).
// Nothing is stored when it fails: a 422 *Error says why it could not be
// credited (an unknown or expired click, no click or coupon), a 409 that
// the OrderID was reported before with other content, a 400 which field
// is wrong. Conversions do not count against the rate limits.
func (m MerchantAPI) RecordConversion(ctx context.Context, c Conversion) (*ConversionResult, error) {
	w := wireConversion{
		ClickID: c.ClickID, OrderID: c.OrderID, SaleValue: c.SaleValue, CurrencyCode: c.CurrencyCode,
		CustomerType: c.CustomerType, CouponCode: c.CouponCode, AdditionalNotes: c.AdditionalNotes,
		CustomerCountryCode: c.CustomerCountryCode, Items: c.Items,
	}
	if !c.ConsumptionDate.IsZero() {
		w.ConsumptionDate = c.ConsumptionDate.Format(wireZonedDateTime)
	}
	var r ConversionResult
	resp, err := m.c.post(ctx, "/V1/Merchant/Conversions", w, &r.Transaction)
	if err != nil {
		return nil, err
	}
	r.Created = resp.StatusCode == http.StatusCreated
	r.Location = resp.Header.Get("Location")
	return &r, nil
}

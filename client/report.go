package client

import "context"

// ReportMetrics are the counts and sums every report line ends with.
// Transactions count by their coarse status (Pending includes Locked,
// Approved includes Paid); sums have two fractional digits.
type ReportMetrics struct {
	ImpressionsTotal     int64   `json:"ImpressionsTotal"` // afftrack records no impressions: always 0
	ImpressionsBot       int64   `json:"ImpressionsBot"`
	ClicksTotal          int64   `json:"ClicksTotal"` // crawlers' clicks included
	ClicksBot            int64   `json:"ClicksBot"`
	TransactionsPending  int64   `json:"TransactionsPending"`
	TransactionsApproved int64   `json:"TransactionsApproved"`
	TransactionsVoid     int64   `json:"TransactionsVoid"`
	SaleValuePending     Decimal `json:"SaleValuePending"`
	SaleValueApproved    Decimal `json:"SaleValueApproved"`
	SaleValueVoid        Decimal `json:"SaleValueVoid"`
	CommissionPending    Decimal `json:"CommissionPending"`
	CommissionApproved   Decimal `json:"CommissionApproved"`
	CommissionVoid       Decimal `json:"CommissionVoid"`
}

// TrafficTypeReport is an affiliate's activity from one kind of traffic.
type TrafficTypeReport struct {
	TrafficType TrafficType `json:"TrafficType"`
	ReportMetrics
}

// MerchantReport is an affiliate's activity with one merchant.
type MerchantReport struct {
	MerchantID        int64  `json:"MerchantId"`
	MerchantName      string `json:"MerchantName"`
	MerchantAvatarURL string `json:"MerchantAvatarUrl"`
	ReportMetrics
}

// AffiliateReport is a merchant's activity with one affiliate, with the
// network's fees on it.
type AffiliateReport struct {
	AffiliateID           int64   `json:"AffiliateId"`
	AffiliateContactName  string  `json:"AffiliateContactName"`
	AffiliateBusinessName *string `json:"AffiliateBusinessName"`
	ReportMetrics
	OverridePending  Decimal `json:"OverridePending"`
	OverrideApproved Decimal `json:"OverrideApproved"`
	OverrideVoid     Decimal `json:"OverrideVoid"`
}

// TrafficTypeReport sums the affiliate's clicks and transactions in the
// range by traffic type: a line for each type with any, in the order of
// the TrafficType constants.
func (a AffiliateAPI) TrafficTypeReport(ctx context.Context, p ReportParams) ([]TrafficTypeReport, error) {
	return list[TrafficTypeReport](ctx, a.c, "/V1/Affiliate/Reports/TrafficType", p.query())
}

// MerchantReport sums the affiliate's clicks and transactions in the
// range by merchant, ordered by MerchantId.
func (a AffiliateAPI) MerchantReport(ctx context.Context, p ReportParams) ([]MerchantReport, error) {
	return list[MerchantReport](ctx, a.c, "/V1/Affiliate/Reports/Merchant", p.query())
}

// AffiliateReport sums the merchant's clicks and transactions in the
// range by affiliate, ordered by AffiliateId.
func (m MerchantAPI) AffiliateReport(ctx context.Context, p ReportParams) ([]AffiliateReport, error) {
	return list[AffiliateReport](ctx, m.c, "/V1/Merchant/Reports/Affiliate", p.query())
}

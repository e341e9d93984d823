package main_test

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack/client"
)

// TestTheGoClientFollowsASaleFromClickToValidation walks the README's
// tracking walkthrough through the Go client: a click, a conversion of it,
// the transaction in the lists, its validation.
func TestTheGoClientFollowsASaleFromClickToValidation(t *testing.T) {
	s, pub := serveDemo(t)
	ctx := context.Background()
	aff1 := client.New(s.base, "demo-affiliate-1-key").Affiliate()
	m1 := client.New(s.base, "demo-merchant-1-key").Merchant()

	// 1. The affiliate takes its text link to merchant 1, with a sub-id, and
	// a customer clicks it.
	merchant, err := aff1.Merchant(ctx, 1, client.LinkParams{UniqueID: "client-e2e"})
	if err != nil {
		t.Fatal(err)
	}
	path, ok := strings.CutPrefix(merchant.TrackingURL, pub)
	if !ok {
		t.Fatalf("TrackingUrl %q is not on %s", merchant.TrackingURL, pub)
	}
	status, loc, clickID := s.click(t, path)
	if status != 302 || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(clickID) {
		t.Fatalf("click: %d %q", status, loc)
	}

	// 2. The merchant's server reports the sale with the click's id.
	sale := client.Conversion{ClickID: clickID, OrderID: "CLIENT-1001",
		Items: []client.ConversionItem{{Sku: "RUN-1", SaleValue: "120.00", Category: "Shoes"}}}
	before := time.Now().UTC().Add(-time.Minute)
	got, err := m1.RecordConversion(ctx, sale)
	if err != nil {
		t.Fatal(err)
	}
	tx := got.Transaction
	if !got.Created || got.Location != pub+"/V1/Merchant/Transactions/"+strconv.FormatInt(tx.ID, 10) {
		t.Errorf("Created %v, Location %q", got.Created, got.Location)
	}
	// The times are the server's clock: checked against each other, then
	// left out of the comparison.
	if tx.DateCreated.Before(before) || !tx.DateModified.Equal(tx.DateCreated) || !tx.ConsumptionDate.Equal(tx.DateCreated) ||
		!tx.ValidationDate.Equal(tx.DateCreated.AddDate(0, 0, 14)) {
		t.Errorf("dates: created %v, modified %v, consumed %v, validation %v (the program validates in 14 days)",
			tx.DateCreated, tx.DateModified, tx.ConsumptionDate, tx.ValidationDate)
	}
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(tx.CustomerIPAddress) {
		t.Errorf("CustomerIpAddress %q is not a hash", tx.CustomerIPAddress)
	}
	masked := tx
	masked.DateCreated, masked.DateModified, masked.ConsumptionDate, masked.ValidationDate = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	masked.CustomerIPAddress = ""
	// 120.00 of shoes at 12.5%: 15.0000; the network's fee is 25% of it.
	want := client.Transaction{
		ID: tx.ID, AffiliateID: 1, AffiliateContactName: "John Smith", AffiliateBusinessName: "Example Pty Ltd",
		TrafficType: client.TrafficTypeWebsite, TrafficSource: "https://www.example.com/", CreativeType: client.CreativeTypeTextLink,
		CustomerType: client.CustomerTypeNew, OrderID: "CLIENT-1001", TrackingMethod: client.TrackingMethodServer,
		SaleValue: "120.0000", Commission: "15.0000", OverrideFee: "3.7500", ReportedCurrencyCode: "AUD",
		ReportedCurrencyName: "Australian Dollar", ReportedSaleValue: "120.0000", TrafficSourceApproved: true,
		Status: client.StatusPending, Status2: client.Status2Pending,
		Items: []client.TransactionItem{{Sku: "RUN-1", Quantity: 1, ReportedSaleValue: "120.00", SaleValue: "120.00",
			Commission: "15.00", Category: "Shoes"}},
	}
	if diff := cmp.Diff(want, masked); diff != "" {
		t.Errorf("the conversion's transaction (-want +got):\n%s", diff)
	}

	steps := []struct {
		name string
		call func() (any, error)
		want any
	}{
		{"the same report again is the stored transaction, not a new one", func() (any, error) {
			r, err := m1.RecordConversion(ctx, sale)
			if err != nil {
				return nil, err
			}
			return []any{r.Created, r.Transaction}, nil
		}, []any{false, tx}},
		{"the merchant reads the transaction as the conversion answered it", func() (any, error) {
			return m1.Transaction(ctx, tx.ID)
		}, &tx},
		{"the merchant finds it among today's transactions by its order id", func() (any, error) {
			v, err := m1.Transactions(ctx, client.MerchantTransactionsParams{From: tx.DateCreated, To: tx.DateCreated, OrderID: "client-1001"})
			return idsOf(v, func(t client.Transaction) int64 { return t.ID }), err
		}, []int64{tx.ID}},
		{"the affiliate sees its commission and the click's sub-id", func() (any, error) {
			v, err := aff1.Transaction(ctx, tx.ID)
			if err != nil {
				return nil, err
			}
			return []any{v.Commission, v.UniqueID, v.Paid, v.Status2}, nil
		}, []any{client.Decimal("15.0000"), new("client-e2e"), false, client.Status2Pending}},
		{"the affiliate finds it by its sub-id", func() (any, error) {
			v, err := aff1.Transactions(ctx, client.AffiliateTransactionsParams{From: tx.DateCreated, To: tx.DateCreated, UniqueID: "CLIENT-E2E"})
			return idsOf(v, func(t client.AffiliateTransaction) int64 { return t.ID }), err
		}, []int64{tx.ID}},
		{"the merchant approves it, and a row for no transaction fails alone", func() (any, error) {
			v, err := m1.Validate(ctx, []client.Validation{{OrderID: "CLIENT-1001", Action: client.ActionApprove},
				{ID: 999999, Action: client.ActionApprove}})
			if err != nil || len(v) != 2 {
				return v, err
			}
			return []any{*v[0].ID, *v[0].Status2, v[0].Err(), v[1].Error != nil}, nil
		}, []any{tx.ID, client.Status2Locked, nil, true}},
		{"the approved sale is Locked", func() (any, error) {
			v, err := m1.Transaction(ctx, tx.ID)
			if err != nil {
				return nil, err
			}
			return v.Status2, nil
		}, client.Status2Locked},
		{"the same order id with other content is a 409", func() (any, error) {
			changed := sale
			changed.Items = []client.ConversionItem{{Sku: "RUN-1", SaleValue: "99.00", Category: "Shoes"}}
			_, err := m1.RecordConversion(ctx, changed)
			var apiErr *client.Error
			if !errors.As(err, &apiErr) {
				return nil, err
			}
			return apiErr.StatusCode, nil
		}, 409},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			got, err := st.call()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(st.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

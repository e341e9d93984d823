package client

import (
	"context"
	"testing"
	"time"
)

// TestTypesCoverEveryFieldTheServerWrites calls every function of the
// demo network with strict decoding: a member the server writes that the
// types lack, or a field of the types the server does not write (other
// than a TrafficSource's groups, tagged omitempty), fails the call. Each
// answer must hold something, so no type passes by being absent.
func TestTypesCoverEveryFieldTheServerWrites(t *testing.T) {
	base := DemoServerURL()
	strict := func(key string) *Client {
		c := New(base, key)
		c.strict = true
		return c
	}
	aff1, aff2 := strict("demo-affiliate-1-key").Affiliate(), strict("demo-affiliate-2-key").Affiliate()
	m1 := strict("demo-merchant-1-key").Merchant()
	jan := ReportParams{From: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)}
	ctx := context.Background()

	// count returns how many values a call answered, or its error.
	count := func(n int, err error) (int, error) { return n, err }
	one := func(found bool, err error) (int, error) {
		if found {
			return 1, err
		}
		return 0, err
	}
	tests := []struct {
		name string
		call func() (int, error)
	}{
		{"the affiliate's transactions decode strictly", func() (int, error) {
			v, err := aff1.Transactions(ctx, AffiliateTransactionsParams{From: jan.From, To: jan.To})
			return count(len(v), err)
		}},
		{"an affiliate's transaction decodes strictly", func() (int, error) {
			v, err := aff1.Transaction(ctx, 1)
			return one(v != nil && len(v.Items) > 0, err)
		}},
		{"the affiliate's banners decode strictly", func() (int, error) {
			v, err := aff1.Banners(ctx, BannersParams{})
			return count(len(v), err)
		}},
		{"an affiliate's banner decodes strictly", func() (int, error) {
			v, err := aff1.Banner(ctx, 1, LinkParams{UniqueID: "strict"})
			return one(v != nil, err)
		}},
		{"the affiliate's merchants decode strictly", func() (int, error) {
			v, err := aff1.Merchants(ctx, MerchantsParams{})
			return count(len(v), err)
		}},
		{"an affiliate's merchant decodes strictly", func() (int, error) {
			v, err := aff1.Merchant(ctx, 1, LinkParams{})
			return one(v != nil, err)
		}},
		{"the affiliate's coupons decode strictly", func() (int, error) {
			v, err := aff1.Coupons(ctx, OffersParams{})
			return count(len(v), err)
		}},
		{"the affiliate's promotions decode strictly", func() (int, error) {
			v, err := aff1.Promotions(ctx, OffersParams{})
			return count(len(v), err)
		}},
		{"an affiliate's promotion decodes strictly", func() (int, error) {
			v, err := aff1.Promotion(ctx, 1, LinkParams{})
			return one(v != nil, err)
		}},
		{"the affiliate's invoices decode strictly", func() (int, error) {
			v, err := aff2.Invoices(ctx, InvoicesParams{From: time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)})
			return count(len(v), err)
		}},
		{"an affiliate's invoice decodes strictly", func() (int, error) {
			v, err := aff2.Invoice(ctx, 2)
			return one(v != nil && v.GST != nil, err)
		}},
		{"the traffic type report decodes strictly", func() (int, error) {
			v, err := aff1.TrafficTypeReport(ctx, jan)
			return count(len(v), err)
		}},
		{"the merchant report decodes strictly", func() (int, error) {
			v, err := aff1.MerchantReport(ctx, jan)
			return count(len(v), err)
		}},
		{"the merchant's transactions decode strictly", func() (int, error) {
			v, err := m1.Transactions(ctx, MerchantTransactionsParams{From: jan.From, To: jan.To})
			return count(len(v), err)
		}},
		{"a merchant's transaction decodes strictly", func() (int, error) {
			v, err := m1.Transaction(ctx, 4)
			return one(v != nil && len(v.Items) > 0, err)
		}},
		{"the merchant's affiliates decode strictly", func() (int, error) {
			v, err := m1.Affiliates(ctx, AffiliatesParams{})
			return count(len(v), err)
		}},
		{"a merchant's affiliate with its traffic sources decodes strictly", func() (int, error) {
			v, err := m1.Affiliate(ctx, 2)
			if v == nil {
				return 0, err
			}
			return len(v.TrafficSources), err
		}},
		{"the merchant's banners decode strictly", func() (int, error) {
			v, err := m1.Banners(ctx, MerchantBannersParams{})
			return count(len(v), err)
		}},
		{"a merchant's banner decodes strictly", func() (int, error) {
			v, err := m1.Banner(ctx, 2)
			return one(v != nil, err)
		}},
		{"the merchant's banner groups decode strictly", func() (int, error) {
			v, err := m1.BannerGroups(ctx)
			return count(len(v), err)
		}},
		{"a merchant's banner group decodes strictly", func() (int, error) {
			v, err := m1.BannerGroup(ctx, 2)
			return one(v != nil && v.ExpiryDate != nil, err)
		}},
		{"the merchant's coupons decode strictly", func() (int, error) {
			v, err := m1.Coupons(ctx, MerchantOffersParams{})
			return count(len(v), err)
		}},
		{"the merchant's promotions decode strictly", func() (int, error) {
			v, err := m1.Promotions(ctx, MerchantOffersParams{})
			return count(len(v), err)
		}},
		{"the affiliate report decodes strictly", func() (int, error) {
			v, err := m1.AffiliateReport(ctx, jan)
			return count(len(v), err)
		}},
		{"a conversion's transaction decodes strictly", func() (int, error) {
			v, err := m1.RecordConversion(ctx, Conversion{OrderID: "STRICT-1", SaleValue: "50", CouponCode: "JOHN10"})
			return one(v != nil, err) // Created only the first time: -count=2 shares the server
		}},
		{"validation results decode strictly", func() (int, error) {
			v, err := m1.Validate(ctx, []Validation{{OrderID: "STRICT-1", Action: ActionApprove}, {ID: 999, Action: ActionApprove}})
			return count(len(v), err)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := tt.call()
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Fatal("the answer held nothing to check")
			}
		})
	}
}

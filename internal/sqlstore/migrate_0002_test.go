package sqlstore_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
	"github.com/google/go-cmp/cmp"
)

// TestMigration0002 writes transactions and items in the layout of
// migration 0001 and checks that every field reads back after 0002, on
// every backend, over more transactions than the migration reads at once.
func TestMigration0002(t *testing.T) {
	ctx := context.Background()
	for _, b := range storetest.Backends(t) {
		t.Run(b+": every transaction and item of 0001 reads back after 0002", func(t *testing.T) {
			db := openMigratedTo(t, b, 1)
			// The accounts as 0001 stored them, since an import now writes
			// 0002's tables.
			d := fixture(t)
			for _, m := range d.Merchants {
				if _, err := db.SQL().Exec(`INSERT INTO merchants (id, name, avatar_url, status) VALUES ($1, $2, $3, $4)`,
					m.ID, m.Name, m.AvatarURL, int64(m.Status)); err != nil {
					t.Fatal(err)
				}
			}
			for _, a := range d.Affiliates {
				if _, err := db.SQL().Exec(`INSERT INTO affiliates (id, contact_name, business_name, status, gst_registered)
					VALUES ($1, $2, $3, $4, $5)`, a.ID, a.ContactName, a.BusinessName, int64(a.Status), a.GSTRegistered); err != nil {
					t.Fatal(err)
				}
			}
			txs := d.Transactions
			var want []afftrack.Transaction
			for i := range 1200 {
				tr := txs[i%len(txs)].Transaction
				tr.ID = int64(5000 + i)
				want = append(want, tr)
			}
			for i := range want {
				insertV1(t, db.SQL(), &want[i])
			}
			if err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			s := sqlstore.NewTransactionService(db)
			for _, tr := range want {
				got, err := s.FindTransactionByID(ctx, tr.MerchantID, tr.ID)
				if err != nil {
					t.Fatalf("transaction %d: %v", tr.ID, err)
				}
				if diff := cmp.Diff(withNames(d, tr), got); diff != "" {
					t.Fatalf("transaction %d (-want +got):\n%s", tr.ID, diff)
				}
			}
			var old int64
			if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM transactions`).Scan(&old); err != nil || old != int64(len(want)) {
				t.Errorf("transactions holds %d rows (%v), want %d", old, err, len(want))
			}
		})
	}
}

// insertV1 writes tr as migration 0001 stored it.
func insertV1(t *testing.T, db *sql.DB, tr *afftrack.Transaction) {
	t.Helper()
	ms := func(d interface{ UnixMilli() int64 }) int64 { return d.UnixMilli() }
	nInt := func(n afftrack.Null[int64]) any {
		if n.Valid {
			return n.Value
		}
		return nil
	}
	nText := func(n afftrack.Null[string]) any {
		if n.Valid {
			return n.Value
		}
		return nil
	}
	nEnum := func(v uint8) any {
		if v == 0 {
			return nil
		}
		return int64(v)
	}
	if _, err := db.Exec(`INSERT INTO transactions (id, merchant_id, date_created, date_modified,
	consumption_date, validation_date, affiliate_id, traffic_type, traffic_source, creative_type, creative_id,
	creative_name, customer_country_code, customer_country_name, customer_ip_address, customer_type, order_id,
	additional_notes, tracking_method, sale_value, commission, override_fee, reported_currency_code,
	reported_currency_name, reported_sale_value, traffic_source_approved, status2, invoice_id, void_reason,
	amended_reason, coupon_code, placement_id, placement_name)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
	$22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33)`,
		tr.ID, tr.MerchantID, ms(tr.DateCreated), ms(tr.DateModified), ms(tr.ConsumptionDate),
		ms(tr.ValidationDate), tr.AffiliateID, int64(tr.TrafficType), tr.TrafficSource, int64(tr.CreativeType),
		nInt(tr.CreativeID), nText(tr.CreativeName), tr.CustomerCountryCode, tr.CustomerCountryName,
		tr.CustomerIPAddress, int64(tr.CustomerType), tr.OrderID, nText(tr.AdditionalNotes),
		int64(tr.TrackingMethod), int64(tr.SaleValue), int64(tr.Commission), int64(tr.OverrideFee),
		tr.ReportedCurrencyCode, tr.ReportedCurrencyName, int64(tr.ReportedSaleValue), tr.TrafficSourceApproved,
		int64(tr.Status2), nInt(tr.InvoiceID), nEnum(uint8(tr.VoidReason)), nEnum(uint8(tr.AmendedReason)),
		nText(tr.CouponCode), nInt(tr.PlacementID), nText(tr.PlacementName)); err != nil {
		t.Fatal(err)
	}
	for pos, it := range tr.Items {
		if _, err := db.Exec(`INSERT INTO transaction_items (transaction_id, position, sku, quantity,
		reported_sale_value, sale_value, commission, name, brand, category, cart_item_reference,
		cart_item_reference2, cart_item_reference3, cart_item_reference4)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
			tr.ID, int64(pos+1), it.Sku, it.Quantity, int64(it.ReportedSaleValue), int64(it.SaleValue),
			int64(it.Commission), it.Name, it.Brand, it.Category, nText(it.CartItemReference),
			nText(it.CartItemReference2), nText(it.CartItemReference3), nText(it.CartItemReference4)); err != nil {
			t.Fatal(err)
		}
	}
}

package sqlstore_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

func TestFindInvoiceByID(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		d := loaded(t, db)
		s := sqlstore.NewInvoiceService(db)
		ctx := context.Background()
		invoice := func(id int64) *afftrack.Invoice {
			for _, inv := range d.Invoices {
				if inv.ID == id {
					return &inv
				}
			}
			t.Fatalf("no invoice %d", id)
			return nil
		}
		t.Run("a GST-registered affiliate's invoice has its GST", func(t *testing.T) {
			got, err := s.FindInvoiceByID(ctx, 1, 501)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(invoice(501), got); diff != "" {
				t.Errorf("invoice (-want +got):\n%s", diff)
			}
		})
		t.Run("a null GST stays null", func(t *testing.T) {
			got, err := s.FindInvoiceByID(ctx, 1, 503)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(invoice(503), got); diff != "" {
				t.Errorf("invoice (-want +got):\n%s", diff)
			}
		})
		t.Run("an affiliate not registered for GST gets null GST whatever is stored", func(t *testing.T) {
			got, err := s.FindInvoiceByID(ctx, 2, 502)
			if err != nil {
				t.Fatal(err)
			}
			want := invoice(502)
			want.GST = afftrack.Null[afftrack.Money]{}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("invoice (-want +got):\n%s", diff)
			}
		})
		t.Run("another affiliate's invoice is not found", func(t *testing.T) {
			_, err := s.FindInvoiceByID(ctx, 2, 501)
			wantError(t, err, afftrack.ENOTFOUND, "The requested item could not be found.")
		})
		t.Run("a missing invoice is not found", func(t *testing.T) {
			_, err := s.FindInvoiceByID(ctx, 1, 999)
			wantError(t, err, afftrack.ENOTFOUND, "The requested item could not be found.")
		})
	})
}

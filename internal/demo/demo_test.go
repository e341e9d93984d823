package demo_test

import (
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/demo"
)

func TestDemoDatasetCoversTheInterfacesStatusPatterns(t *testing.T) {
	d, err := demo.Dataset(time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[afftrack.TransactionStatus2]bool{}
	var paidWithItems, voidWithReason, pendingAmended bool
	for _, r := range d.Transactions {
		seen[r.Status2] = true
		paidWithItems = paidWithItems || (r.Status2 == afftrack.Status2Paid && r.InvoiceID.Valid && len(r.Items) > 0)
		voidWithReason = voidWithReason || (r.Status2 == afftrack.Status2Void && r.VoidReason != 0)
		pendingAmended = pendingAmended || (r.Status2 == afftrack.Status2Pending && r.AmendedReason != 0 && len(r.Items) == 0)
	}
	if len(seen) != 5 || !paidWithItems || !voidWithReason || !pendingAmended {
		t.Errorf("statuses %v, paid with items %v, void with reason %v, pending amended %v",
			seen, paidWithItems, voidWithReason, pendingAmended)
	}
	var gst, noGST bool
	for _, in := range d.Invoices {
		gst, noGST = gst || in.GST.Valid, noGST || !in.GST.Valid
	}
	if !gst || !noGST {
		t.Errorf("want invoices with and without GST")
	}
	if got := len(demo.Keys(d)); got != 6 {
		t.Errorf("demo keys = %d, want 6", got)
	}
}

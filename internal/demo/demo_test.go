package demo_test

import (
	"context"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/demo"
	"github.com/afftrack/afftrack/internal/sqlstore"
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

// TestDemoDatasetFeedsTheV1Surface: the demo has data for the V1
// surface's functions (v1-surface.md): merchants' summaries and
// categories, membership dates and traffic sources, banner groups (given
// and made for banners), promotions and clicks, and it imports.
func TestDemoDatasetFeedsTheV1Surface(t *testing.T) {
	d, err := demo.Dataset(time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	var summaries, categories, applied, approved, sources int
	for _, m := range d.Merchants {
		if m.Summary != "" {
			summaries++
		}
		categories += len(m.Categories)
	}
	for _, ms := range d.Memberships {
		if ms.DateApplied.Valid {
			applied++
		}
		if ms.DateApproved.Valid {
			approved++
		}
		sources += len(ms.TrafficSources)
	}
	var assigned bool
	for _, p := range d.Promotions {
		assigned = assigned || p.AffiliateID.Valid
	}
	if summaries < 2 || categories < 2 || applied < 2 || approved < 1 || sources < 2 || len(d.BannerGroups) < 1 ||
		len(d.Promotions) < 2 || !assigned || len(d.Clicks) < 2 {
		t.Errorf("summaries %d, categories %d, memberships applied %d, approved %d, traffic sources %d, banner groups %d, "+
			"promotions %d (one assigned: %v), clicks %d", summaries, categories, applied, approved, sources,
			len(d.BannerGroups), len(d.Promotions), assigned, len(d.Clicks))
	}
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, "sqlite::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		sum, err := sqlstore.NewImportService(db).Import(ctx, d)
		if err != nil {
			t.Fatalf("import the demo: %v", err)
		}
		if sum.Promotions != len(d.Promotions) || sum.BannerGroups != len(d.BannerGroups) || sum.Clicks != len(d.Clicks) {
			t.Errorf("summary %+v", sum)
		}
	}
	var groups int
	if err := db.SQL().QueryRow(`SELECT COUNT(*) FROM banner_groups`).Scan(&groups); err != nil {
		t.Fatal(err)
	}
	if groups <= len(d.BannerGroups) {
		t.Errorf("%d banner groups stored, want more than the %d given: banners' GroupName makes some", groups, len(d.BannerGroups))
	}
}

package generate_test

import (
	"regexp"
	"slices"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/generate"
)

func TestEveryRecordOfTheMediumNetworkIsValid(t *testing.T) {
	checkRecords(t, mediumNet(t), medium())
}

var (
	unlimited = afftrack.RateLimit{PerMinute: afftrack.Some[int64](0), PerDay: afftrack.Some[int64](0),
		Concurrent: afftrack.Some[int64](0)}
	ipHash = regexp.MustCompile(`^[0-9a-f]{32}$`)
)

// checkRecords checks what an import would check, and what makes the data
// realistic: references resolve, the status rules hold (Validate), amounts
// add up, dates stay in the period, and every account is reachable with
// its generated key and no rate limit.
func checkRecords(t *testing.T, n *network, cfg generate.Config) {
	t.Helper()
	y, m, d := cfg.Start.Date()
	start := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(0, 0, cfg.Days)
	text := func(where string, ss ...string) {
		for _, s := range ss {
			if !utf8.ValidString(s) {
				t.Errorf("%s: %q is not UTF-8", where, s)
			}
			for _, c := range s {
				if c < 0x20 {
					t.Errorf("%s: %q holds a control character", where, s)
				}
			}
		}
	}

	// Every account and membership dates from the day before the first
	// transaction, whatever the day it is generated on.
	since := afftrack.Some(start.AddDate(0, 0, -1))
	merchants := map[int64]*afftrack.MerchantRecord{}
	for i := range n.Merchants {
		m := &n.Merchants[i]
		if m.ID != int64(i+1) || m.Name == "" || m.Status == 0 ||
			!slices.Equal(m.APIKeys, []string{generate.MerchantKey(m.ID)}) || m.RateLimit != unlimited ||
			m.DateCreated != since || m.DateModified != since {
			t.Errorf("Merchants[%d] = %+v", i, m)
		}
		text("merchant name", m.Name, m.AvatarURL)
		merchants[m.ID] = m
	}
	affiliates := map[int64]*afftrack.AffiliateRecord{}
	for i := range n.Affiliates {
		a := &n.Affiliates[i]
		if a.ID != int64(i+1) || a.ContactName == "" || a.Status == 0 ||
			!slices.Equal(a.APIKeys, []string{generate.AffiliateKey(a.ID)}) || a.RateLimit != unlimited ||
			a.DateCreated != since || a.DateModified != since {
			t.Errorf("Affiliates[%d] = %+v", i, a)
		}
		text("affiliate names", a.ContactName, a.BusinessName)
		affiliates[a.ID] = a
	}
	joined := map[[2]int64]bool{}
	for i, ms := range n.Memberships {
		key := [2]int64{ms.MerchantID, ms.AffiliateID}
		if _, seen := joined[key]; seen || merchants[ms.MerchantID] == nil || affiliates[ms.AffiliateID] == nil || ms.Status == 0 {
			t.Errorf("Memberships[%d] = %+v is a duplicate, refers to a missing account or has no status", i, ms)
		}
		joined[key] = ms.Status == afftrack.MembershipJoined
		wantApplied, wantApproved := since, afftrack.Null[time.Time]{}
		if ms.Status == afftrack.MembershipInvited {
			wantApplied = afftrack.Null[time.Time]{}
		}
		if joined[key] {
			wantApproved = since
		}
		if ms.DateApplied != wantApplied || ms.DateApproved != wantApproved || ms.DateModified != since {
			t.Errorf("Memberships[%d] = %+v: dates not of the network's start", i, ms)
		}
	}
	banners := map[int64]int64{}
	for i, b := range n.Banners {
		if _, dup := banners[b.ID]; dup || merchants[b.MerchantID] == nil || b.Width <= 0 || b.Height <= 0 ||
			b.DateModified.Before(b.DateCreated) {
			t.Errorf("Banners[%d] = %+v", i, b)
		}
		text("banner", b.GroupName, b.Name, b.TargetURL, b.ImageURL, b.AltText)
		banners[b.ID] = b.MerchantID
	}

	orders := map[string]bool{}
	paid := map[int64]afftrack.Money{}
	for i := range n.Transactions {
		tx := &n.Transactions[i].Transaction
		fail := func(format string, args ...any) {
			t.Helper()
			t.Errorf("Transactions[%d] (id %d): "+format, append([]any{i, tx.ID}, args...)...)
		}
		if err := tx.Validate(); err != nil {
			fail("%v", err)
		}
		if tx.ID != int64(i+1) {
			fail("ids do not run 1, 2, 3...")
		}
		if i > 0 && tx.DateCreated.Before(n.Transactions[i-1].DateCreated) {
			fail("created before the transaction before it")
		}
		for _, dt := range []time.Time{tx.DateCreated, tx.DateModified, tx.ConsumptionDate, tx.ValidationDate} {
			if dt.Location() != time.UTC || dt.Nanosecond()%int(time.Millisecond) != 0 {
				fail("datetime %v is not a wall clock in milliseconds", dt)
			}
		}
		if tx.DateCreated.Before(start) || !tx.DateCreated.Before(end) || tx.DateModified.Before(tx.DateCreated) ||
			tx.DateModified.After(end) || !tx.ValidationDate.After(tx.DateCreated) || tx.ConsumptionDate.Before(tx.DateCreated) {
			fail("dates out of order or out of the period: %v %v %v %v",
				tx.DateCreated, tx.DateModified, tx.ConsumptionDate, tx.ValidationDate)
		}
		a := affiliates[tx.AffiliateID]
		if merchants[tx.MerchantID] == nil || a == nil {
			fail("refers to a missing account")
			continue
		}
		if tx.AffiliateContactName != a.ContactName || tx.AffiliateBusinessName != a.BusinessName {
			fail("affiliate names %q, %q are not the account's", tx.AffiliateContactName, tx.AffiliateBusinessName)
		}
		if !joined[[2]int64{tx.MerchantID, tx.AffiliateID}] {
			fail("affiliate %d has not joined merchant %d", tx.AffiliateID, tx.MerchantID)
		}
		if tx.CreativeType == afftrack.CreativeTypeBanner && banners[tx.CreativeID.Value] != tx.MerchantID {
			fail("banner %v is not the merchant's", tx.CreativeID)
		}
		if tx.TrafficType == 0 || tx.CreativeType == 0 || tx.CustomerType == 0 || tx.TrackingMethod == 0 {
			fail("a required enumeration is zero")
		}
		if !ipHash.MatchString(tx.CustomerIPAddress) {
			fail("CustomerIpAddress %q is not 32 hexadecimal digits", tx.CustomerIPAddress)
		}
		if orders[tx.OrderID] || tx.OrderID == "" {
			fail("OrderId %q is empty or not unique", tx.OrderID)
		}
		orders[tx.OrderID] = true
		text("transaction", tx.TrafficSource, tx.CreativeName.Value, tx.CustomerCountryCode, tx.CustomerCountryName,
			tx.AdditionalNotes.Value, tx.ReportedCurrencyCode, tx.ReportedCurrencyName, tx.CouponCode.Value,
			tx.PlacementName.Value)
		if len(tx.Items) > 5 {
			fail("%d items, more than 5", len(tx.Items))
		}
		var sale, commission afftrack.ItemMoney
		for _, it := range tx.Items {
			if it.Quantity < 1 || it.SaleValue <= 0 || it.Commission < 0 || it.ReportedSaleValue <= 0 || it.Sku == "" {
				fail("item %+v", it)
			}
			text("item", it.Sku, it.Name, it.Brand, it.Category, it.CartItemReference.Value)
			sale += it.SaleValue
			commission += it.Commission
		}
		if len(tx.Items) > 0 && (tx.SaleValue != afftrack.Money(sale)*100 || tx.Commission != afftrack.Money(commission)*100) {
			fail("sale %v and commission %v are not the sums of the items' %v and %v", tx.SaleValue, tx.Commission, sale, commission)
		}
		if tx.SaleValue <= 0 || tx.Commission < 0 || tx.OverrideFee < 0 || tx.ReportedSaleValue <= 0 {
			fail("amounts %v %v %v %v", tx.SaleValue, tx.Commission, tx.OverrideFee, tx.ReportedSaleValue)
		}
		if tx.Status2 == afftrack.Status2Paid {
			paid[tx.InvoiceID.Value] += tx.Commission
		}
	}

	for i, inv := range n.Invoices {
		a := affiliates[inv.AffiliateID]
		if a == nil {
			t.Errorf("Invoices[%d] refers to missing affiliate %d", i, inv.AffiliateID)
			continue
		}
		want := inv
		want.SubTotal, want.GST, want.Total = paid[inv.ID], afftrack.Null[afftrack.Money]{}, paid[inv.ID]
		if a.GSTRegistered {
			want.GST = afftrack.Some((paid[inv.ID] + 5) / 10)
			want.Total += want.GST.Value
		}
		if diff := cmp.Diff(want, inv); diff != "" {
			t.Errorf("Invoices[%d] amounts are not the affiliate's paid commission (-want +got):\n%s", i, diff)
		}
		if inv.DatePaid.Before(inv.DateCreated) || inv.DatePaid.After(end) {
			t.Errorf("Invoices[%d] is paid %v, created %v, the period ends %v", i, inv.DatePaid, inv.DateCreated, end)
		}
		text("invoice", inv.Number, inv.Description)
	}
}

package sqlstore_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/google/go-cmp/cmp"
)

// reportDataset is a network with June 2024 activity, for reports:
//
//	tx  merchant affiliate type        Status2   DateCreated              SaleValue Commission Override
//	1   1        1         Website     Pending   2024-06-01 00:00         10.0050   1.0050     0.0050
//	2   1        1         Website     Locked    2024-06-15               0.0100    0.0025     0
//	3   1        1         Email List  Approved  2024-06-30 23:59:59.999  20.0000   2.0000     0
//	4   1        1         Website     Paid      2024-06-10               0.0149    0.0149     0
//	5   1        2         Website     Void      2024-06-05               -0.0150   -0.0050    -0.0049
//	6   2        1         Email List  Pending   2024-06-20               0.5000    0.0500     0
//	7   1        1         Website     Approved  2024-05-31 23:59:59.999  (out of June)
//	8   1        1         Website     Approved  2024-07-01 00:00         (out of June)
//	9   2        3         Search      Approved  2024-06-02               1.0000    0.1000     0.0100
//
//	click merchant affiliate type (stored)          bot  time
//	1     1        1         Website                no   2024-06-01 00:00
//	2     1        1         Website                yes  2024-06-30 23:59:59.999
//	3     1        1         Search                 no   2024-06-03
//	4     3        1         Other                  yes  2024-06-04
//	5     1        1         Website                no   2024-05-31 23:59:59.999 (out)
//	6     1        2         (membership: Website)  no   2024-06-07
//	7     2        3         (membership: Social)   no   2024-06-08
//	8     1        2         Website                no   2024-07-01 00:00 (out)
func reportDataset(t testing.TB) *afftrack.Dataset {
	t.Helper()
	merchant := func(id int64, name string) afftrack.MerchantRecord {
		return afftrack.MerchantRecord{Merchant: afftrack.Merchant{ID: id, Name: name,
			AvatarURL: fmt.Sprintf("https://img.example/m%d.png", id), Status: afftrack.AccountActive}}
	}
	affiliate := func(id int64, contact, business string) afftrack.AffiliateRecord {
		return afftrack.AffiliateRecord{Affiliate: afftrack.Affiliate{ID: id, ContactName: contact,
			BusinessName: business, Status: afftrack.AccountActive}}
	}
	joined := func(aff, m int64, tt afftrack.TrafficType) afftrack.Membership {
		return afftrack.Membership{AffiliateID: aff, MerchantID: m, Status: afftrack.MembershipJoined,
			TrafficType: tt, TrafficSourceApproved: true}
	}
	tx := func(id, m, aff int64, tt afftrack.TrafficType, s afftrack.TransactionStatus2, created string,
		sale, commission, override afftrack.Money) afftrack.TransactionRecord {
		tr := afftrack.Transaction{
			ID: id, MerchantID: m, AffiliateID: aff,
			DateCreated: dt(t, created), DateModified: dt(t, created),
			ConsumptionDate: dt(t, created), ValidationDate: dt(t, created),
			TrafficType: tt, TrafficSource: "example.com", CreativeType: afftrack.CreativeTypeTextLink,
			CustomerCountryCode: "AU", CustomerCountryName: "Australia",
			CustomerIPAddress: "ffffffffffffffffffffffffffffffff", CustomerType: afftrack.CustomerTypeNew,
			OrderID: fmt.Sprintf("ORD-%d", id), TrackingMethod: afftrack.TrackingMethodCookie,
			SaleValue: sale, Commission: commission, OverrideFee: override, ReportedCurrencyCode: "AUD",
			ReportedCurrencyName: "Australian Dollar", ReportedSaleValue: sale,
			TrafficSourceApproved: true, Status2: s,
		}
		switch s {
		case afftrack.Status2Paid:
			tr.InvoiceID = afftrack.Some[int64](501)
		case afftrack.Status2Void:
			tr.VoidReason = afftrack.VoidReasonCancelledOrder
		}
		return afftrack.TransactionRecord{Transaction: tr}
	}
	click := func(n, m, aff int64, tt afftrack.TrafficType, bot bool, at string) afftrack.Click {
		return afftrack.Click{ID: fmt.Sprintf("%032x", n), Time: dt(t, at), MerchantID: m, AffiliateID: aff,
			CreativeType: afftrack.CreativeTypeTextLink, Bot: bot, Credited: !bot, TrafficType: tt}
	}
	web, email, search := afftrack.TrafficTypeWebsite, afftrack.TrafficTypeEmailList, afftrack.TrafficTypeSearch
	return &afftrack.Dataset{
		Merchants: []afftrack.MerchantRecord{merchant(1, "Shop One"), merchant(2, "Shop Two"), merchant(3, "Shop Three")},
		Affiliates: []afftrack.AffiliateRecord{
			affiliate(1, "Ann Lee", "Lee Media"), affiliate(2, "Bob Roe", ""), affiliate(3, "Cat Poe", "Poe Pages"),
		},
		Memberships: []afftrack.Membership{
			joined(1, 1, web), joined(1, 2, email), joined(2, 1, web), joined(3, 2, afftrack.TrafficTypeSocialMediaPage),
		},
		Invoices: []afftrack.Invoice{{ID: 501, AffiliateID: 1, DateCreated: dt(t, "2024-06-30"),
			DatePaid: dt(t, "2024-07-02"), Number: "INV-501", Description: "June", SubTotal: 149, Total: 149}},
		Transactions: []afftrack.TransactionRecord{
			tx(1, 1, 1, web, afftrack.Status2Pending, "2024-06-01T00:00:00", 100050, 10050, 50),
			tx(2, 1, 1, web, afftrack.Status2Locked, "2024-06-15T12:00:00", 100, 25, 0),
			tx(3, 1, 1, email, afftrack.Status2Approved, "2024-06-30T23:59:59.999", 200000, 20000, 0),
			tx(4, 1, 1, web, afftrack.Status2Paid, "2024-06-10T08:00:00", 149, 149, 0),
			tx(5, 1, 2, web, afftrack.Status2Void, "2024-06-05T08:00:00", -150, -50, -49),
			tx(6, 2, 1, email, afftrack.Status2Pending, "2024-06-20T08:00:00", 5000, 500, 0),
			tx(7, 1, 1, web, afftrack.Status2Approved, "2024-05-31T23:59:59.999", 10000, 1000, 0),
			tx(8, 1, 1, web, afftrack.Status2Approved, "2024-07-01T00:00:00", 10000, 1000, 0),
			tx(9, 2, 3, search, afftrack.Status2Approved, "2024-06-02T08:00:00", 10000, 1000, 100),
		},
		Clicks: []afftrack.Click{
			click(1, 1, 1, web, false, "2024-06-01T00:00:00"),
			click(2, 1, 1, web, true, "2024-06-30T23:59:59.999"),
			click(3, 1, 1, search, false, "2024-06-03T10:00:00"),
			click(4, 3, 1, afftrack.TrafficTypeOther, true, "2024-06-04T10:00:00"),
			click(5, 1, 1, web, false, "2024-05-31T23:59:59.999"),
			click(6, 1, 2, 0, false, "2024-06-07T10:00:00"),
			click(7, 2, 3, 0, false, "2024-06-08T10:00:00"),
			click(8, 1, 2, web, false, "2024-07-01T00:00:00"),
		},
	}
}

// m is a metric block for the report tests: clicks, then per Status the
// count, sale value, commission and override.
func m(clicks, bots int64, p, a, v [4]int64) afftrack.ReportMetrics {
	return afftrack.ReportMetrics{ClicksTotal: clicks, ClicksBot: bots,
		TransactionsPending: p[0], SaleValuePending: afftrack.Money(p[1]), CommissionPending: afftrack.Money(p[2]),
		OverridePending:      afftrack.Money(p[3]),
		TransactionsApproved: a[0], SaleValueApproved: afftrack.Money(a[1]), CommissionApproved: afftrack.Money(a[2]),
		OverrideApproved: afftrack.Money(a[3]),
		TransactionsVoid: v[0], SaleValueVoid: afftrack.Money(v[1]), CommissionVoid: afftrack.Money(v[2]),
		OverrideVoid: afftrack.Money(v[3])}
}

func TestReports(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		mustImport(t, db, reportDataset(t))
		ctx := context.Background()
		rs := sqlstore.NewReportService(db)
		june1, june30 := dt(t, "2024-06-01"), dt(t, "2024-06-30")
		none := [4]int64{}

		t.Run("traffic type", func(t *testing.T) {
			got, err := rs.TrafficTypeReport(ctx, 1, june1, june30)
			if err != nil {
				t.Fatal(err)
			}
			want := []afftrack.TrafficTypeReport{
				{TrafficType: afftrack.TrafficTypeWebsite, ReportMetrics: m(2, 1, [4]int64{2, 100150, 10075}, [4]int64{1, 149, 149}, none)},
				{TrafficType: afftrack.TrafficTypeEmailList, ReportMetrics: m(0, 0, [4]int64{1, 5000, 500}, [4]int64{1, 200000, 20000}, none)},
				{TrafficType: afftrack.TrafficTypeSearch, ReportMetrics: m(1, 0, none, none, none)},
				{TrafficType: afftrack.TrafficTypeOther, ReportMetrics: m(1, 1, none, none, none)},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
		t.Run("merchant", func(t *testing.T) {
			got, err := rs.MerchantReport(ctx, 1, june30, june1) // the store takes them as given: from after to is empty
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 0 {
				t.Errorf("from after to: got %d lines, want none", len(got))
			}
			got, err = rs.MerchantReport(ctx, 1, june1, june30)
			if err != nil {
				t.Fatal(err)
			}
			want := []afftrack.MerchantReport{
				{MerchantID: 1, MerchantName: "Shop One", MerchantAvatarURL: "https://img.example/m1.png",
					ReportMetrics: m(3, 1, [4]int64{2, 100150, 10075}, [4]int64{2, 200149, 20149}, none)},
				{MerchantID: 2, MerchantName: "Shop Two", MerchantAvatarURL: "https://img.example/m2.png",
					ReportMetrics: m(0, 0, [4]int64{1, 5000, 500}, none, none)},
				{MerchantID: 3, MerchantName: "Shop Three", MerchantAvatarURL: "https://img.example/m3.png",
					ReportMetrics: m(1, 1, none, none, none)},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			got, err = rs.MerchantReport(ctx, 2, june1, june30)
			if err != nil {
				t.Fatal(err)
			}
			want = []afftrack.MerchantReport{
				{MerchantID: 1, MerchantName: "Shop One", MerchantAvatarURL: "https://img.example/m1.png",
					ReportMetrics: m(1, 0, none, none, [4]int64{1, -150, -50})},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("affiliate 2 (-want +got):\n%s", diff)
			}
		})
		t.Run("affiliate", func(t *testing.T) {
			got, err := rs.AffiliateReport(ctx, 1, june1, june30)
			if err != nil {
				t.Fatal(err)
			}
			want := []afftrack.AffiliateReport{
				{AffiliateID: 1, AffiliateContactName: "Ann Lee", AffiliateBusinessName: "Lee Media",
					ReportMetrics: m(3, 1, [4]int64{2, 100150, 10075, 50}, [4]int64{2, 200149, 20149, 0}, none)},
				{AffiliateID: 2, AffiliateContactName: "Bob Roe",
					ReportMetrics: m(1, 0, none, none, [4]int64{1, -150, -50, -49})},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("merchant 1 (-want +got):\n%s", diff)
			}
			got, err = rs.AffiliateReport(ctx, 2, june1, june30)
			if err != nil {
				t.Fatal(err)
			}
			want = []afftrack.AffiliateReport{
				{AffiliateID: 1, AffiliateContactName: "Ann Lee", AffiliateBusinessName: "Lee Media",
					ReportMetrics: m(0, 0, [4]int64{1, 5000, 500, 0}, none, none)},
				{AffiliateID: 3, AffiliateContactName: "Cat Poe", AffiliateBusinessName: "Poe Pages",
					ReportMetrics: m(1, 0, none, [4]int64{1, 10000, 1000, 100}, none)},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("merchant 2 (-want +got):\n%s", diff)
			}
			got, err = rs.AffiliateReport(ctx, 3, june1, june30)
			if err != nil {
				t.Fatal(err)
			}
			want = []afftrack.AffiliateReport{
				{AffiliateID: 1, AffiliateContactName: "Ann Lee", AffiliateBusinessName: "Lee Media",
					ReportMetrics: m(1, 1, none, none, none)},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("merchant 3 (-want +got):\n%s", diff)
			}
		})
		t.Run("rounded sums", func(t *testing.T) {
			got, err := rs.AffiliateReport(ctx, 1, june1, june30)
			if err != nil || len(got) != 2 {
				t.Fatalf("got %v, %v", got, err)
			}
			a1, a2 := got[0], got[1]
			for _, c := range []struct {
				name string
				sum  afftrack.Money
				want int64
			}{
				{"SaleValuePending 10.0150", a1.SaleValuePending, 1002},
				{"CommissionPending 1.0075", a1.CommissionPending, 101},
				{"OverridePending 0.0050", a1.OverridePending, 1},
				{"SaleValueApproved 20.0149", a1.SaleValueApproved, 2001},
				{"SaleValueVoid -0.0150", a2.SaleValueVoid, -2},
				{"CommissionVoid -0.0050", a2.CommissionVoid, -1},
				{"OverrideVoid -0.0049", a2.OverrideVoid, 0},
			} {
				if r := afftrack.RoundCents(c.sum); r != c.want {
					t.Errorf("%s rounds to %d hundredths, want %d", c.name, r, c.want)
				}
			}
		})
		t.Run("one day, the range's edges", func(t *testing.T) {
			got, err := rs.TrafficTypeReport(ctx, 1, dt(t, "2024-06-30T15:00"), dt(t, "2024-06-30"))
			if err != nil {
				t.Fatal(err)
			}
			want := []afftrack.TrafficTypeReport{
				{TrafficType: afftrack.TrafficTypeWebsite, ReportMetrics: m(1, 1, none, none, none)},
				{TrafficType: afftrack.TrafficTypeEmailList, ReportMetrics: m(0, 0, none, [4]int64{1, 200000, 20000}, none)},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
		t.Run("empty", func(t *testing.T) {
			tt, err := rs.TrafficTypeReport(ctx, 1, dt(t, "2023-01-01"), dt(t, "2023-12-31"))
			if err != nil || tt == nil || len(tt) != 0 {
				t.Errorf("traffic type: got %v, %v; want an empty list", tt, err)
			}
			mr, err := rs.MerchantReport(ctx, 3, june1, june30) // affiliate 3: merchant 2 only
			if err != nil || mr == nil || len(mr) != 1 {
				t.Errorf("affiliate 3: got %v, %v; want merchant 2's line", mr, err)
			}
			ar, err := rs.AffiliateReport(ctx, 99, june1, june30)
			if err != nil || ar == nil || len(ar) != 0 {
				t.Errorf("unknown merchant: got %v, %v; want an empty list", ar, err)
			}
		})
	})
}

// TestReportSumsBeyondTheAmountRange: a sum past the int64 range of
// amounts is refused, whether the database sums it (one group) or the
// store merges it (Pending and Locked are both Pending), never wrapped.
func TestReportSumsBeyondTheAmountRange(t *testing.T) {
	tests := []struct {
		name     string
		statuses [2]afftrack.TransactionStatus2
	}{
		{"two Pending transactions summed by the database", [2]afftrack.TransactionStatus2{afftrack.Status2Pending, afftrack.Status2Pending}},
		{"a Pending and a Locked one merged by the store", [2]afftrack.TransactionStatus2{afftrack.Status2Pending, afftrack.Status2Locked}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" are refused", func(t *testing.T) {
			eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
				d := reportDataset(t)
				addLikeTheVoid(d, len(tt.statuses), func(i int, tr *afftrack.Transaction) {
					tr.Status2 = tt.statuses[i]
					tr.SaleValue, tr.ReportedSaleValue = 1, 1
					tr.Commission, tr.OverrideFee = 0, math.MaxInt64
				})
				mustImport(t, db, d)
				ctx := context.Background()
				_, err := sqlstore.NewReportService(db).AffiliateReport(ctx, 1, dt(t, "2024-06-01"), dt(t, "2024-06-30"))
				if afftrack.ErrorCode(err) != afftrack.EUNPROCESSABLE {
					t.Errorf("AffiliateReport: error %v, want %s", err, afftrack.EUNPROCESSABLE)
				}
			})
		})
	}
}

// TestReportSumsThatPassTheRangeOnTheWay: amounts whose exact sum fits
// are summed exactly on every engine, even when a running total taken in
// the rows' order would pass the int64 range (the largest sale, a cent,
// then the largest refund), as SQLite's own sum() cannot.
func TestReportSumsThatPassTheRangeOnTheWay(t *testing.T) {
	tests := []struct {
		name    string
		amounts []afftrack.Money
		want    afftrack.Money
	}{
		{"the largest amount, a little more, then minus the largest", []afftrack.Money{math.MaxInt64, 1, -math.MaxInt64}, 1},
		{"the smallest amount, a little less, then plus the largest", []afftrack.Money{math.MinInt64 + 1, -1, math.MaxInt64}, -1},
		{"twice the largest and back", []afftrack.Money{math.MaxInt64, math.MaxInt64, -math.MaxInt64, -math.MaxInt64 + 5}, 5},
	}
	// The same sums with the last amount Paid, not Approved: the store
	// merges the two groups of the Approved Status, one of them alone
	// beyond the range.
	paidLast := map[string]bool{}
	for _, tt := range tests[:2] {
		paidLast[tt.name+", the last one Paid"] = true
		tests = append(tests, struct {
			name    string
			amounts []afftrack.Money
			want    afftrack.Money
		}{tt.name + ", the last one Paid", tt.amounts, tt.want})
	}
	for _, tt := range tests {
		t.Run(tt.name+" sum exactly", func(t *testing.T) {
			eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
				d := reportDataset(t)
				addLikeTheVoid(d, len(tt.amounts), func(i int, tr *afftrack.Transaction) {
					a := tt.amounts[i]
					tr.Status2 = afftrack.Status2Approved
					if paidLast[tt.name] && i == len(tt.amounts)-1 {
						tr.Status2 = afftrack.Status2Paid
					}
					tr.SaleValue, tr.ReportedSaleValue, tr.Commission, tr.OverrideFee = a, a, a, a
				})
				d.Transactions = slices.Delete(d.Transactions, 4, 5) // only the amounts above on that day
				mustImport(t, db, d)
				ctx := context.Background()
				from, to := dt(t, "2024-06-05"), dt(t, "2024-06-05")
				reports := sqlstore.NewReportService(db)
				aff, err := reports.AffiliateReport(ctx, 1, from, to)
				if err != nil {
					t.Fatalf("AffiliateReport: %v", err)
				}
				merch, err := reports.MerchantReport(ctx, 2, from, to)
				if err != nil {
					t.Fatalf("MerchantReport: %v", err)
				}
				types, err := reports.TrafficTypeReport(ctx, 2, from, to)
				if err != nil {
					t.Fatalf("TrafficTypeReport: %v", err)
				}
				want := [3]afftrack.Money{tt.want, tt.want, tt.want}
				for _, got := range []struct {
					name string
					m    []afftrack.ReportMetrics
				}{
					{"AffiliateReport", metricsOf(aff, func(l afftrack.AffiliateReport) afftrack.ReportMetrics { return l.ReportMetrics })},
					{"MerchantReport", metricsOf(merch, func(l afftrack.MerchantReport) afftrack.ReportMetrics { return l.ReportMetrics })},
					{"TrafficTypeReport", metricsOf(types, func(l afftrack.TrafficTypeReport) afftrack.ReportMetrics { return l.ReportMetrics })},
				} {
					if len(got.m) != 1 {
						t.Fatalf("%s: %d lines, want 1", got.name, len(got.m))
					}
					m := got.m[0]
					sums := [3]afftrack.Money{m.SaleValueApproved, m.CommissionApproved, want[2]}
					if got.name == "AffiliateReport" {
						sums[2] = m.OverrideApproved
					}
					if diff := cmp.Diff(want, sums); diff != "" {
						t.Errorf("%s: approved sale, commission, override (-want +got):\n%s", got.name, diff)
					}
				}
			})
		})
	}
}

// addLikeTheVoid appends n copies of reportDataset's transaction 5
// (merchant 1, affiliate 2, Void, 2024-06-05) to d, as transactions 20,
// 21 ... not void, each changed by set.
func addLikeTheVoid(d *afftrack.Dataset, n int, set func(i int, tr *afftrack.Transaction)) {
	for i := range n {
		r := d.Transactions[4]
		r.Transaction.ID, r.Transaction.OrderID = int64(20+i), fmt.Sprintf("BIG-%d", i)
		r.Transaction.VoidReason = 0
		set(i, &r.Transaction)
		d.Transactions = append(d.Transactions, r)
	}
}

func metricsOf[L any](lines []L, m func(L) afftrack.ReportMetrics) []afftrack.ReportMetrics {
	var out []afftrack.ReportMetrics
	for _, l := range lines {
		out = append(out, m(l))
	}
	return out
}

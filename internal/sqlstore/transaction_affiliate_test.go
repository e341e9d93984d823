package sqlstore_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// fixtureUniqueIDs are the UniqueIds the affiliate tests give the
// fixture's transactions, as a click's would be recorded; the others have
// none.
var fixtureUniqueIDs = map[int64][4]afftrack.Null[string]{
	101: {afftrack.Some("Sub-A"), {}, afftrack.Some("x"), {}},
	102: {afftrack.Some("sub-a"), afftrack.Some("two"), {}, {}},
	201: {afftrack.Some("other"), {}, {}, afftrack.Some("four")},
}

// loadedWithUniqueIDs is loaded with fixtureUniqueIDs written into the
// transactions' columns, as the conversion path writes them (the import
// file has no UniqueIds).
func loadedWithUniqueIDs(t *testing.T, db *sqlstore.DB) *afftrack.Dataset {
	t.Helper()
	d := loaded(t, db)
	for id, u := range fixtureUniqueIDs {
		args := []any{id}
		for _, v := range u {
			if v.Valid {
				args = append(args, v.Value)
			} else {
				args = append(args, nil)
			}
		}
		if _, err := db.SQL().Exec(`UPDATE transactions SET unique_id = $2, unique_id2 = $3, unique_id3 = $4,
			unique_id4 = $5 WHERE id = $1`, args...); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// affiliateView returns the fixture's transaction id as the affiliate
// reads return it: with its merchant's name and avatar and its UniqueIds,
// without what the view lacks, and with a non-nil Items.
func affiliateView(t testing.TB, d *afftrack.Dataset, id int64) *afftrack.Transaction {
	t.Helper()
	tr := transactionIn(t, d, id)
	for _, m := range d.Merchants {
		if m.ID == tr.MerchantID {
			tr.MerchantName, tr.MerchantAvatarURL = m.Name, m.AvatarURL
		}
	}
	tr.UniqueIDs = fixtureUniqueIDs[id]
	tr.CustomerIPAddress, tr.OverrideFee = "", 0
	tr.PlacementID, tr.PlacementName = afftrack.Null[int64]{}, afftrack.Null[string]{}
	if tr.Items == nil {
		tr.Items = []afftrack.TransactionItem{}
	}
	return &tr
}

// affiliateListIDs returns the ids FindAffiliateTransactions gives for f,
// in order.
func affiliateListIDs(t testing.TB, db *sqlstore.DB, f afftrack.AffiliateTransactionFilter) []int64 {
	t.Helper()
	ids := []int64{}
	err := sqlstore.NewTransactionService(db).FindAffiliateTransactions(context.Background(), f,
		func(tr *afftrack.Transaction) error {
			ids = append(ids, tr.ID)
			return nil
		})
	if err != nil {
		t.Fatalf("FindAffiliateTransactions: %v", err)
	}
	return ids
}

// affiliateMarch is the affiliate's filter for March 2024 by the given
// property.
func affiliateMarch(t testing.TB, affiliate int64, p afftrack.DateProperty) afftrack.AffiliateTransactionFilter {
	return afftrack.AffiliateTransactionFilter{AffiliateID: affiliate, From: dt(t, "2024-03-01"), To: dt(t, "2024-03-31"),
		DateProperty: p}
}

func TestFindAffiliateTransactionByID(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := loadedWithUniqueIDs(t, db)
		s := sqlstore.NewTransactionService(db)
		ctx := context.Background()
		for _, r := range d.Transactions {
			got, err := s.FindAffiliateTransactionByID(ctx, r.AffiliateID, r.ID)
			if err != nil {
				t.Fatalf("FindAffiliateTransactionByID(%d, %d): %v", r.AffiliateID, r.ID, err)
			}
			if diff := cmp.Diff(affiliateView(t, d, r.ID), got); diff != "" {
				t.Errorf("transaction %d in the affiliate view (-want +got):\n%s", r.ID, diff)
			}
		}
		t.Run("another affiliate's transaction is not found", func(t *testing.T) {
			_, err := s.FindAffiliateTransactionByID(ctx, 1, 102)
			wantError(t, err, afftrack.ENOTFOUND, "The requested item could not be found.")
			_, err = s.FindAffiliateTransactionByID(ctx, 3, 101)
			wantError(t, err, afftrack.ENOTFOUND, "The requested item could not be found.")
		})
		t.Run("a missing transaction is not found", func(t *testing.T) {
			_, err := s.FindAffiliateTransactionByID(ctx, 1, 999)
			wantError(t, err, afftrack.ENOTFOUND, "The requested item could not be found.")
		})
		t.Run("its own, whatever the merchant's status or the membership now", func(t *testing.T) {
			// Affiliate 2 is only Pending with merchant 1; merchant 2 is closed.
			if _, err := db.SQL().Exec(`UPDATE merchants SET status = $1 WHERE id = 2`,
				int64(afftrack.AccountClosed)); err != nil {
				t.Fatal(err)
			}
			for _, id := range []int64{102, 201} {
				if _, err := s.FindAffiliateTransactionByID(ctx, 2, id); err != nil {
					t.Errorf("transaction %d: %v", id, err)
				}
			}
			if diff := cmp.Diff([]int64{102, 201, 104}, affiliateListIDs(t, db,
				affiliateMarch(t, 2, afftrack.ByDateCreated))); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	})
}

func TestFindAffiliateTransactionsOrderAndRange(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		loadedWithUniqueIDs(t, db)
		day := func(aff int64, s string) afftrack.AffiliateTransactionFilter {
			return afftrack.AffiliateTransactionFilter{AffiliateID: aff, From: dt(t, s), To: dt(t, s)}
		}
		tests := []struct {
			name string
			f    afftrack.AffiliateTransactionFilter
			want []int64
		}{
			{"March by DateCreated includes midnight of From", affiliateMarch(t, 1, afftrack.ByDateCreated), []int64{101, 103}},
			{"March by DateModified orders by the modification date", affiliateMarch(t, 1, afftrack.ByDateModified),
				[]int64{103, 105, 100, 101}},
			{"every merchant's, by date then id, up to the midnight after To", affiliateMarch(t, 2, afftrack.ByDateCreated),
				[]int64{102, 201, 104}},
			{"the day before From's midnight is another day", day(1, "2024-02-29"), []int64{100}},
			{"the midnight after To is the next day's", day(1, "2024-04-01"), []int64{105}},
			{"an affiliate without transactions sees none", affiliateMarch(t, 3, afftrack.ByDateCreated), []int64{}},
			{"an unknown affiliate sees none", affiliateMarch(t, 99, afftrack.ByDateCreated), []int64{}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				if diff := cmp.Diff(tt.want, affiliateListIDs(t, db, tt.f)); diff != "" {
					t.Errorf("ids (-want +got):\n%s", diff)
				}
			})
		}
	})
}

// TestFindAffiliateTransactionsFilters checks every filter of the
// affiliate list (v1-surface.md section 2.1) on every backend, and that
// the store selects exactly what the domain's Match says.
func TestFindAffiliateTransactionsFilters(t *testing.T) {
	str := afftrack.Some[string]
	num := afftrack.Some[int64]
	type filter = afftrack.AffiliateTransactionFilter
	// Affiliate 2's March: 102 (merchant 1, Pending), 201 (merchant 2,
	// Pending), 104 (merchant 1, Void). Affiliate 1's: 101 (Paid), 103
	// (Locked).
	tests := []struct {
		name      string
		affiliate int64
		set       func(f *filter)
		want      []int64
	}{
		{"merchantId matches exactly", 2, func(f *filter) { f.MerchantID = num(2) }, []int64{201}},
		{"merchantName ignores case", 2, func(f *filter) { f.MerchantName = str("other SHOP") }, []int64{201}},
		{"merchantName does not match part of the name", 2, func(f *filter) { f.MerchantName = str("Other") }, []int64{}},
		{"trafficType", 2, func(f *filter) { f.TrafficType = afftrack.TrafficTypeEmailList }, []int64{102}},
		{"trafficSource ignores case", 2, func(f *filter) { f.TrafficSource = str("NEWSLETTER") }, []int64{102}},
		{"creativeType", 2, func(f *filter) { f.CreativeType = afftrack.CreativeTypeBanner }, []int64{102}},
		{"creativeId", 1, func(f *filter) { f.CreativeID = num(7) }, []int64{101}},
		{"creativeName ignores case, never matches null", 2, func(f *filter) { f.CreativeName = str("SUMMER") }, []int64{201, 104}},
		{"an empty creativeName matches empty", 1, func(f *filter) { f.CreativeName = str("") }, []int64{103}},
		{"customerCountryCode", 2, func(f *filter) { f.CustomerCountryCode = str("nz") }, []int64{102}},
		{"customerCountryName", 2, func(f *filter) { f.CustomerCountryName = str("new zealand") }, []int64{102}},
		{"customerType", 2, func(f *filter) { f.CustomerType = afftrack.CustomerTypeReturn }, []int64{102}},
		{"orderId", 2, func(f *filter) { f.OrderID = str("ord-104") }, []int64{104}},
		{"uniqueId ignores case", 2, func(f *filter) { f.UniqueIDs[0] = str("SUB-A") }, []int64{102}},
		{"uniqueId of another affiliate's click", 1, func(f *filter) { f.UniqueIDs[0] = str("sub-a") }, []int64{101}},
		{"uniqueId2", 2, func(f *filter) { f.UniqueIDs[1] = str("Two") }, []int64{102}},
		{"uniqueId3", 1, func(f *filter) { f.UniqueIDs[2] = str("X") }, []int64{101}},
		{"uniqueId4", 2, func(f *filter) { f.UniqueIDs[3] = str("four") }, []int64{201}},
		{"an empty uniqueId never matches null", 2, func(f *filter) { f.UniqueIDs[2] = str("") }, []int64{}},
		{"trackingMethod", 2, func(f *filter) { f.TrackingMethod = afftrack.TrackingMethodManual }, []int64{102}},
		{"trafficSourceApproved false", 2, func(f *filter) { f.TrafficSourceApproved = afftrack.Some(false) }, []int64{102}},
		{"trafficSourceApproved true", 2, func(f *filter) { f.TrafficSourceApproved = afftrack.Some(true) }, []int64{201, 104}},
		{"status Pending", 2, func(f *filter) { f.Status = afftrack.StatusPending }, []int64{102, 201}},
		{"status Pending also matches Locked", 1, func(f *filter) { f.Status = afftrack.StatusPending }, []int64{103}},
		{"status Approved matches Paid", 1, func(f *filter) { f.Status = afftrack.StatusApproved }, []int64{101}},
		{"status Void", 2, func(f *filter) { f.Status = afftrack.StatusVoid }, []int64{104}},
		{"status2 Locked", 1, func(f *filter) { f.Status2 = afftrack.Status2Locked }, []int64{103}},
		{"status2 Pending excludes Locked", 1, func(f *filter) { f.Status2 = afftrack.Status2Pending }, []int64{}},
		{"invoiceId", 1, func(f *filter) { f.InvoiceID = num(501) }, []int64{101}},
		{"voidReason", 2, func(f *filter) { f.VoidReason = afftrack.VoidReasonCancelledOrder }, []int64{104}},
		{"filters combine with AND", 2, func(f *filter) {
			f.MerchantID = num(1)
			f.Status = afftrack.StatusPending
			f.UniqueIDs[0] = str("sub-a")
		}, []int64{102}},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := loadedWithUniqueIDs(t, db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f := affiliateMarch(t, tt.affiliate, afftrack.ByDateCreated)
				all := affiliateListIDs(t, db, f)
				tt.set(&f)
				got := affiliateListIDs(t, db, f)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("ids (-want +got):\n%s", diff)
				}
				// The store's answer is exactly what the domain's Match says.
				matched := []int64{}
				for _, id := range all {
					if f.Match(affiliateView(t, d, id)) {
						matched = append(matched, id)
					}
				}
				if !slices.Equal(matched, got) {
					t.Errorf("Match selects %v, the store %v", matched, got)
				}
			})
		}
	})
}

func TestFindAffiliateTransactionsStreams(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := loadedWithUniqueIDs(t, db)
		s := sqlstore.NewTransactionService(db)
		ctx := context.Background()
		t.Run("fn sees each transaction once, in order", func(t *testing.T) {
			var got []*afftrack.Transaction
			err := s.FindAffiliateTransactions(ctx, affiliateMarch(t, 2, afftrack.ByDateCreated), func(tr *afftrack.Transaction) error {
				c := *tr
				c.Items = slices.Clone(tr.Items)
				got = append(got, &c)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []*afftrack.Transaction
			for _, id := range []int64{102, 201, 104} {
				want = append(want, affiliateView(t, d, id))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("streamed transactions (-want +got):\n%s", diff)
			}
		})
		t.Run("an error from fn stops the read and is returned", func(t *testing.T) {
			stop := errors.New("stop")
			calls := 0
			err := s.FindAffiliateTransactions(ctx, affiliateMarch(t, 2, afftrack.ByDateCreated), func(*afftrack.Transaction) error {
				calls++
				return stop
			})
			if !errors.Is(err, stop) {
				t.Errorf("err = %v, want %v", err, stop)
			}
			if calls != 1 {
				t.Errorf("fn was called %d times, want 1", calls)
			}
		})
		t.Run("a cancelled context stops the read", func(t *testing.T) {
			ctx, cancel := context.WithCancel(ctx)
			cancel()
			err := s.FindAffiliateTransactions(ctx, affiliateMarch(t, 2, afftrack.ByDateCreated),
				func(*afftrack.Transaction) error { return nil })
			if err == nil {
				t.Error("FindAffiliateTransactions with a cancelled context succeeded")
			}
		})
	})
}

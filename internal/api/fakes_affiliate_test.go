package api

import (
	"context"
	"slices"
	"time"

	"github.com/afftrack/afftrack"
)

// The affiliate reads of fakeTransactions (fakes_test.go): they serve the
// same list the way the store's affiliate view does.

// fixtureMerchantAccounts are the fixture merchants' names and avatars, as
// the affiliate view reads them from the merchant accounts (those of
// fixtureBanners).
var fixtureMerchantAccounts = map[int64][2]string{
	1: {"Example Pty Ltd", "https://c.example.com/Avatars/0.png"},
	2: {"Sample & Sons", "https://c.example.com/Avatars/2.png"},
}

// fixtureUniqueIDs are the UniqueIds of the clicks behind fixture
// transactions, by transaction id; the others have none.
var fixtureUniqueIDs = map[int64][4]afftrack.Null[string]{
	1: {afftrack.Some("newsletter-2000-01"), {}, afftrack.Some("<b>&\"sub\"</b>"), afftrack.Some("")},
}

// affiliateView returns t as the store's affiliate reads fill it: with
// its merchant's name and avatar and its UniqueIds, and without what the
// view lacks.
func affiliateView(t afftrack.Transaction) afftrack.Transaction {
	m := fixtureMerchantAccounts[t.MerchantID]
	t.MerchantName, t.MerchantAvatarURL = m[0], m[1]
	t.UniqueIDs = fixtureUniqueIDs[t.ID]
	t.AffiliateContactName, t.AffiliateBusinessName, t.CustomerIPAddress, t.OverrideFee = "", "", "", 0
	t.PlacementID, t.PlacementName = afftrack.Null[int64]{}, afftrack.Null[string]{}
	t.Items = slices.Clone(t.Items)
	return t
}

func (f *fakeTransactions) FindAffiliateTransactionByID(_ context.Context, affiliateID, id int64) (*afftrack.Transaction, error) {
	if f.panicByID {
		panic("fake store exploded")
	}
	for i := range f.list {
		if t := f.list[i]; t.ID == id && t.AffiliateID == affiliateID {
			v := affiliateView(t)
			return &v, nil
		}
	}
	return nil, afftrack.Errorf(afftrack.ENOTFOUND, "transaction %d not found", id)
}

func (f *fakeTransactions) FindAffiliateTransactions(ctx context.Context, flt afftrack.AffiliateTransactionFilter,
	fn func(*afftrack.Transaction) error) error {
	date := func(t *afftrack.Transaction) time.Time {
		if flt.DateProperty == afftrack.ByDateModified {
			return t.DateModified
		}
		return t.DateCreated
	}
	var rows []afftrack.Transaction
	for i := range f.list {
		t := affiliateView(f.list[i])
		if d := date(&t); t.AffiliateID == flt.AffiliateID && !d.Before(flt.From) && d.Before(flt.Until()) && flt.Match(&t) {
			rows = append(rows, t)
		}
	}
	slices.SortStableFunc(rows, func(a, b afftrack.Transaction) int {
		if c := date(&a).Compare(date(&b)); c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	})
	var reused afftrack.Transaction
	for i, t := range rows {
		if f.blocked != nil && i == f.blockAt {
			close(f.blocked)
			<-ctx.Done()
			return ctx.Err()
		}
		if f.err != nil && i == f.failAfter {
			return f.err
		}
		if f.onRow != nil {
			f.onRow()
		}
		reused = t
		reused.Items = append(reused.Items[:0], t.Items...)
		if err := fn(&reused); err != nil {
			return err
		}
	}
	return f.err
}

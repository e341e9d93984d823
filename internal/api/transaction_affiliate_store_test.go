package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/api"
	"github.com/afftrack/afftrack/internal/ratelimit"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
	"github.com/google/go-cmp/cmp"
)

// storeServer serves d, imported into a fresh SQLite database, through the
// real handler; it returns the handler and the database.
func storeServer(t *testing.T, d *afftrack.Dataset) (http.Handler, *sqlstore.DB) {
	t.Helper()
	db := storetest.Open(t, storetest.SQLite)
	if _, err := sqlstore.NewImportService(db).Import(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	h := api.NewServer(api.Config{PublicURL: "http://test"}, api.Services{
		Accounts:     sqlstore.NewAccountService(db),
		Transactions: sqlstore.NewTransactionService(db),
		Banners:      sqlstore.NewBannerService(db),
		Invoices:     sqlstore.NewInvoiceService(db),
		RateLimiter:  ratelimit.NewMemory(),
	}, nil, nil).Handler()
	return h, db
}

// getJSON serves a GET of path and decodes a 200's JSON body into out,
// numbers kept as written; it returns the status.
func getJSON(t *testing.T, h http.Handler, path string, out any) int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code == http.StatusOK && out != nil {
		dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(out); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return rec.Code
}

// TestNoAffiliateSeesAnotherAffiliatesTransactions extends
// TestNoKeySeesAnotherAccountsData to the affiliate's transactions: over
// random networks, served by the real handler on a real store, each
// affiliate's list holds exactly its own transactions, of every merchant
// and whatever its memberships; any other id is a 404, exactly like one
// that does not exist; and a merchant key is refused.
func TestNoAffiliateSeesAnotherAffiliatesTransactions(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprintf("network %d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed*7919))
			d := randomNetwork(rng)
			h, _ := storeServer(t, d)
			for _, a := range d.Affiliates {
				key := a.APIKeys[0]
				var want []int64
				for _, tx := range d.Transactions {
					if tx.AffiliateID == a.ID {
						want = append(want, tx.ID)
					}
				}
				var list []struct{ Id int64 }
				if code := getJSON(t, h, "/V1/Affiliate/Transactions?apiKey="+key+"&fromDate=2020-01-01&toDate=2030-12-31", &list); code != 200 {
					t.Fatalf("affiliate %d list: %d", a.ID, code)
				}
				var got []int64
				for _, tx := range list {
					got = append(got, tx.Id)
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("affiliate %d sees transactions %v, want %v", a.ID, got, want)
				}
				for _, tx := range d.Transactions {
					code := getJSON(t, h, fmt.Sprintf("/V1/Affiliate/Transactions/%d?apiKey=%s", tx.ID, key), nil)
					if wantCode := map[bool]int{true: 200, false: 404}[tx.AffiliateID == a.ID]; code != wantCode {
						t.Errorf("affiliate %d asks for transaction %d of affiliate %d: %d, want %d", a.ID, tx.ID, tx.AffiliateID, code, wantCode)
					}
				}
				if code := getJSON(t, h, "/V1/Affiliate/Transactions/999999?apiKey="+key, nil); code != 404 {
					t.Errorf("affiliate %d asks for a missing transaction: %d, want 404", a.ID, code)
				}
			}
			for _, m := range d.Merchants {
				key := m.APIKeys[0]
				if code := getJSON(t, h, "/V1/Affiliate/Transactions?apiKey="+key+"&fromDate=2020-01-01&toDate=2030-12-31", nil); code != 401 {
					t.Errorf("merchant key on the affiliate list: %d, want 401", code)
				}
				if code := getJSON(t, h, "/V1/Affiliate/Transactions/1?apiKey="+key, nil); code != 401 {
					t.Errorf("merchant key on an affiliate transaction: %d, want 401", code)
				}
			}
		})
	}
}

// Keys only one view of a transaction has (v1-surface.md section 3).
var (
	merchantOnlyKeys  = []string{"AffiliateId", "AffiliateContactName", "AffiliateBusinessName", "CustomerIpAddress", "OverrideFee"}
	affiliateOnlyKeys = []string{"MerchantId", "MerchantName", "MerchantAvatarUrl", "UniqueId", "UniqueId2", "UniqueId3", "UniqueId4", "Paid"}
	// Shared keys whose values the views give differently on purpose: the
	// affiliate view has no placements, so writes them null.
	alwaysNullForAffiliates = []string{"PlacementId", "PlacementName"}
)

// TestAffiliateAndMerchantViewsAgree checks over generated data, stored in
// a real SQLite database and read through the real handler, that the
// affiliate and merchant views of each transaction, by id and in the
// lists, agree field by field wherever they share a field, items
// included; that each view has exactly its own fields besides; and that
// the affiliate's own fields say what the data says.
func TestAffiliateAndMerchantViewsAgree(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprintf("network %d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed*104729))
			d := randomNetwork(rng)
			richTransactions(rng, d)
			h, db := storeServer(t, d)
			unique := map[int64][4]any{}
			for _, tx := range d.Transactions {
				var u [4]any
				for i := range u {
					if rng.IntN(3) > 0 {
						u[i] = randomText(rng)
					}
				}
				unique[tx.ID] = u
				if _, err := db.SQL().Exec(`UPDATE transactions SET unique_id = $1, unique_id2 = $2, unique_id3 = $3,
					unique_id4 = $4 WHERE id = $5`, u[0], u[1], u[2], u[3], tx.ID); err != nil {
					t.Fatal(err)
				}
			}
			merchantKey, affiliateKey, merchantName := map[int64]string{}, map[int64]string{}, map[int64][2]string{}
			for _, m := range d.Merchants {
				merchantKey[m.ID], merchantName[m.ID] = m.APIKeys[0], [2]string{m.Name, m.AvatarURL}
			}
			for _, a := range d.Affiliates {
				affiliateKey[a.ID] = a.APIKeys[0]
			}

			// Both lists over the whole range, by id.
			const wholeRange = "&fromDate=2020-01-01&toDate=2030-12-31"
			merchantList, affiliateList := map[string]map[string]any{}, map[string]map[string]any{}
			byID := func(dst map[string]map[string]any, list []map[string]any) {
				for _, o := range list {
					dst[string(o["Id"].(json.Number))] = o
				}
			}
			for id, key := range merchantKey {
				var list []map[string]any
				if code := getJSON(t, h, "/V1/Merchant/Transactions?apiKey="+key+wholeRange, &list); code != 200 {
					t.Fatalf("merchant %d list: %d", id, code)
				}
				byID(merchantList, list)
			}
			for id, key := range affiliateKey {
				var list []map[string]any
				if code := getJSON(t, h, "/V1/Affiliate/Transactions?apiKey="+key+wholeRange, &list); code != 200 {
					t.Fatalf("affiliate %d list: %d", id, code)
				}
				byID(affiliateList, list)
			}

			for _, tx := range d.Transactions {
				id := fmt.Sprint(tx.ID)
				var m, a map[string]any
				if code := getJSON(t, h, fmt.Sprintf("/V1/Merchant/Transactions/%d?apiKey=%s", tx.ID, merchantKey[tx.MerchantID]), &m); code != 200 {
					t.Fatalf("merchant view of %d: %d", tx.ID, code)
				}
				if code := getJSON(t, h, fmt.Sprintf("/V1/Affiliate/Transactions/%d?apiKey=%s", tx.ID, affiliateKey[tx.AffiliateID]), &a); code != 200 {
					t.Fatalf("affiliate view of %d: %d", tx.ID, code)
				}
				for _, pair := range []struct {
					what string
					m, a map[string]any
				}{
					{"by id", m, a},
					{"in the lists", merchantList[id], affiliateList[id]},
				} {
					if pair.m == nil || pair.a == nil {
						t.Fatalf("transaction %d is missing from a list", tx.ID)
					}
					compareViews(t, fmt.Sprintf("transaction %d %s", tx.ID, pair.what), pair.m, pair.a)
				}
				if diff := cmp.Diff(m, merchantList[id]); diff != "" {
					t.Errorf("transaction %d: the merchant's view by id (-want) and in its list (+got):\n%s", tx.ID, diff)
				}
				if diff := cmp.Diff(a, affiliateList[id]); diff != "" {
					t.Errorf("transaction %d: the affiliate's view by id (-want) and in its list (+got):\n%s", tx.ID, diff)
				}

				// The affiliate's own fields say what the data says.
				want := map[string]any{
					"MerchantId":        json.Number(fmt.Sprint(tx.MerchantID)),
					"MerchantName":      merchantName[tx.MerchantID][0],
					"MerchantAvatarUrl": merchantName[tx.MerchantID][1],
					"Paid":              tx.Status2 == afftrack.Status2Paid,
				}
				for i, name := range []string{"UniqueId", "UniqueId2", "UniqueId3", "UniqueId4"} {
					want[name] = unique[tx.ID][i]
				}
				got := map[string]any{}
				for k := range want {
					got[k] = a[k]
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("transaction %d: the affiliate's own fields (-want +got):\n%s", tx.ID, diff)
				}
			}
		})
	}
}

// compareViews checks a merchant view m and an affiliate view a of one
// transaction: shared fields equal (items by their shared fields), each
// view's own fields present in it alone.
func compareViews(t *testing.T, what string, m, a map[string]any) {
	t.Helper()
	for _, k := range merchantOnlyKeys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: the merchant view lacks %s", what, k)
		}
		if _, ok := a[k]; ok {
			t.Errorf("%s: the affiliate view has %s", what, k)
		}
	}
	for _, k := range affiliateOnlyKeys {
		if _, ok := a[k]; !ok {
			t.Errorf("%s: the affiliate view lacks %s", what, k)
		}
		if _, ok := m[k]; ok {
			t.Errorf("%s: the merchant view has %s", what, k)
		}
	}
	shared := 0
	for k, mv := range m {
		av, ok := a[k]
		switch {
		case !ok:
		case slices.Contains(alwaysNullForAffiliates, k):
			if av != nil {
				t.Errorf("%s: affiliate view %s = %v, want null", what, k, av)
			}
		case k == "Items":
			compareItems(t, what, mv.([]any), av.([]any))
			shared++
		default:
			shared++
			if diff := cmp.Diff(mv, av); diff != "" {
				t.Errorf("%s: %s in the merchant view (-) and the affiliate view (+):\n%s", what, k, diff)
			}
		}
	}
	if want := len(m) - len(merchantOnlyKeys) - len(alwaysNullForAffiliates); shared != want {
		t.Errorf("%s: %d shared fields compared, want %d", what, shared, want)
	}
}

// compareItems checks the items of the two views: the same number, in
// the same order, equal in every field the affiliate's item has (Sku ...
// Category), which are all of the merchant's but the CartItemReferences.
func compareItems(t *testing.T, what string, m, a []any) {
	t.Helper()
	if len(m) != len(a) {
		t.Errorf("%s: %d items in the merchant view, %d in the affiliate view", what, len(m), len(a))
		return
	}
	for i := range m {
		mi, ai := m[i].(map[string]any), a[i].(map[string]any)
		if len(ai) != 8 || len(mi) != 12 {
			t.Errorf("%s: item %d has %d fields in the merchant view, %d in the affiliate view; want 12 and 8", what, i, len(mi), len(ai))
		}
		for k, av := range ai {
			if mv, ok := mi[k]; !ok || !cmp.Equal(mv, av) {
				t.Errorf("%s: item %d %s is %#v in the merchant view, %#v in the affiliate view", what, i, k, mv, av)
			}
		}
		for k := range mi {
			if _, ok := ai[k]; !ok && !strings.HasPrefix(k, "CartItemReference") {
				t.Errorf("%s: item %d lacks %s in the affiliate view", what, i, k)
			}
		}
	}
}

// randomText is a short text of characters the encoders escape, letters
// and non-ASCII, that an import accepts.
func randomText(rng *rand.Rand) string {
	pieces := []string{"a", "Z", " ", `"`, `\`, "<", ">", "&", "'", "é", "日本", "😀", "\u2028", "/"}
	var b strings.Builder
	for n := rng.IntN(6); n > 0; n-- {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// richTransactions gives d's transactions random values in every field,
// keeping their ids, owners and dates, and the status invariants; and its
// merchants random names and avatars.
func richTransactions(rng *rand.Rand, d *afftrack.Dataset) {
	s := randomText
	ns := func() afftrack.Null[string] {
		if rng.IntN(3) == 0 {
			return afftrack.Null[string]{}
		}
		return afftrack.Some(s(rng))
	}
	ni := func() afftrack.Null[int64] {
		if rng.IntN(3) == 0 {
			return afftrack.Null[int64]{}
		}
		return afftrack.Some(rng.Int64N(1e6))
	}
	for i := range d.Merchants {
		d.Merchants[i].Name, d.Merchants[i].AvatarURL = "M "+s(rng), "https://img.example/"+s(rng)
	}
	for i := range d.Transactions {
		tx := &d.Transactions[i].Transaction
		tx.DateModified = tx.DateCreated.Add(time.Duration(rng.IntN(1e6)) * time.Second)
		tx.ValidationDate = tx.DateCreated.Add(time.Duration(rng.IntN(1e6)) * time.Millisecond)
		tx.TrafficType = afftrack.TrafficType(1 + rng.IntN(6))
		tx.TrafficSource = s(rng)
		tx.CreativeType = afftrack.CreativeType(1 + rng.IntN(5))
		tx.CreativeID, tx.CreativeName = ni(), ns()
		tx.CustomerCountryCode, tx.CustomerCountryName = s(rng), s(rng)
		tx.CustomerIPAddress = fmt.Sprintf("%032x", rng.Uint64())
		tx.CustomerType = afftrack.CustomerType(1 + rng.IntN(2))
		tx.OrderID, tx.AdditionalNotes = fmt.Sprintf("O-%d-%s", tx.ID, s(rng)), ns()
		tx.TrackingMethod = afftrack.TrackingMethod(1 + rng.IntN(7))
		tx.SaleValue = afftrack.Money(rng.Int64N(1e10) - 1e9)
		tx.Commission = afftrack.Money(rng.Int64N(1e9))
		tx.OverrideFee = afftrack.Money(rng.Int64N(1e8))
		tx.ReportedCurrencyCode, tx.ReportedCurrencyName = s(rng), s(rng)
		tx.ReportedSaleValue = afftrack.Money(rng.Int64N(1e10))
		tx.TrafficSourceApproved = rng.IntN(2) == 0
		tx.Status2 = afftrack.TransactionStatus2(1 + rng.IntN(5))
		tx.InvoiceID, tx.VoidReason = afftrack.Null[int64]{}, 0
		switch tx.Status2 {
		case afftrack.Status2Paid:
			tx.InvoiceID = afftrack.Some(rng.Int64N(1e6))
		case afftrack.Status2Void:
			tx.VoidReason = afftrack.VoidReason(1 + rng.IntN(11))
		}
		tx.AmendedReason = afftrack.AmendedReason(rng.IntN(6))
		tx.CouponCode, tx.PlacementID, tx.PlacementName = ns(), ni(), ns()
		tx.Items = nil
		for n := rng.IntN(4); n > 0; n-- {
			tx.Items = append(tx.Items, afftrack.TransactionItem{
				Sku: s(rng), Quantity: rng.Int64N(10), ReportedSaleValue: afftrack.ItemMoney(rng.Int64N(1e6)),
				SaleValue: afftrack.ItemMoney(rng.Int64N(1e6)), Commission: afftrack.ItemMoney(rng.Int64N(1e5)),
				Name: s(rng), Brand: s(rng), Category: s(rng),
				CartItemReference: ns(), CartItemReference2: ns(), CartItemReference3: ns(), CartItemReference4: ns(),
			})
		}
	}
}

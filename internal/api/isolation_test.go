package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/api"
	"github.com/afftrack/afftrack/internal/ratelimit"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// TestNoKeySeesAnotherAccountsData is a property test over randomly
// generated networks, served through the real handler on a real store:
// every key sees exactly its own account's transactions and invoices, and
// exactly the banners of merchants its affiliate has joined; no other id
// answers anything but 404, and a key never works on the other kind's
// functions.
func TestNoKeySeesAnotherAccountsData(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprintf("network %d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed*7919))
			d := randomNetwork(rng)
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
			get := func(path string, out any) int {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
				if rec.Code == 200 && out != nil {
					if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
						t.Fatalf("%s: %v", path, err)
					}
				}
				return rec.Code
			}

			for _, m := range d.Merchants {
				key := m.APIKeys[0]
				var want []int64
				for _, tx := range d.Transactions {
					if tx.MerchantID == m.ID {
						want = append(want, tx.ID)
					}
				}
				var list []struct{ Id int64 }
				if code := get("/V1/Merchant/Transactions?apiKey="+key+"&fromDate=2020-01-01&toDate=2030-12-31", &list); code != 200 {
					t.Fatalf("merchant %d list: %d", m.ID, code)
				}
				var got []int64
				for _, tx := range list {
					got = append(got, tx.Id)
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("merchant %d sees transactions %v, want %v", m.ID, got, want)
				}
				for _, tx := range d.Transactions {
					code := get(fmt.Sprintf("/V1/Merchant/Transactions/%d?apiKey=%s", tx.ID, key), nil)
					if wantCode := map[bool]int{true: 200, false: 404}[tx.MerchantID == m.ID]; code != wantCode {
						t.Errorf("merchant %d asks for transaction %d of merchant %d: %d, want %d", m.ID, tx.ID, tx.MerchantID, code, wantCode)
					}
				}
				if code := get("/V1/Affiliate/Banners?apiKey="+key, nil); code != 401 {
					t.Errorf("merchant key on an affiliate function: %d, want 401", code)
				}
			}

			for _, a := range d.Affiliates {
				key := a.APIKeys[0]
				joined := map[int64]bool{}
				for _, ms := range d.Memberships {
					if ms.AffiliateID == a.ID && ms.Status == afftrack.MembershipJoined {
						joined[ms.MerchantID] = true
					}
				}
				var want []int64
				for _, b := range d.Banners {
					if joined[b.MerchantID] {
						want = append(want, b.ID)
					}
				}
				var list []struct{ Id int64 }
				if code := get("/V1/Affiliate/Banners?apiKey="+key, &list); code != 200 {
					t.Fatalf("affiliate %d banners: %d", a.ID, code)
				}
				var got []int64
				for _, b := range list {
					got = append(got, b.Id)
				}
				if !slices.Equal(got, want) { // both in id order
					t.Errorf("affiliate %d sees banners %v, want %v", a.ID, got, want)
				}
				for _, in := range d.Invoices {
					code := get(fmt.Sprintf("/V1/Affiliate/Invoices/%d?apiKey=%s", in.ID, key), nil)
					if wantCode := map[bool]int{true: 200, false: 404}[in.AffiliateID == a.ID]; code != wantCode {
						t.Errorf("affiliate %d asks for invoice %d of affiliate %d: %d, want %d", a.ID, in.ID, in.AffiliateID, code, wantCode)
					}
				}
				if code := get("/V1/Merchant/Transactions/1?apiKey="+key, nil); code != 401 {
					t.Errorf("affiliate key on a merchant function: %d, want 401", code)
				}
			}
		})
	}
}

// randomNetwork makes a small network of the contract's import file (no
// programs) with random ownership: a few merchants and affiliates,
// memberships of every status, and transactions, banners and invoices
// spread among them. Every account has no rate limit.
func randomNetwork(rng *rand.Rand) *afftrack.Dataset {
	d := &afftrack.Dataset{}
	unlimited := afftrack.RateLimit{PerMinute: afftrack.Some[int64](0), PerDay: afftrack.Some[int64](0), Concurrent: afftrack.Some[int64](0)}
	nm, na := 2+rng.IntN(4), 2+rng.IntN(5)
	for i := 1; i <= nm; i++ {
		d.Merchants = append(d.Merchants, afftrack.MerchantRecord{
			Merchant: afftrack.Merchant{ID: int64(i), Name: fmt.Sprintf("Merchant %d", i), Status: afftrack.AccountActive, RateLimit: unlimited},
			APIKeys:  []string{fmt.Sprintf("merchant-key-%d-%d", i, rng.Uint64())},
		})
	}
	for i := 1; i <= na; i++ {
		d.Affiliates = append(d.Affiliates, afftrack.AffiliateRecord{
			Affiliate: afftrack.Affiliate{ID: int64(i), ContactName: fmt.Sprintf("Affiliate %d", i), Status: afftrack.AccountActive, RateLimit: unlimited},
			APIKeys:   []string{fmt.Sprintf("affiliate-key-%d-%d", i, rng.Uint64())},
		})
		for m := 1; m <= nm; m++ {
			if rng.IntN(2) == 0 {
				d.Memberships = append(d.Memberships, afftrack.Membership{
					AffiliateID: int64(i), MerchantID: int64(m), Status: afftrack.MembershipStatus(1 + rng.IntN(4)),
				})
			}
		}
	}
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	// Each count is drawn once: a bound in the loop's condition would be
	// drawn again on every pass and make far fewer rows.
	transactions, banners, invoices := int64(5+rng.IntN(40)), int64(rng.IntN(12)), int64(rng.IntN(12))
	for id := int64(1); id <= transactions; id++ {
		created := day.Add(time.Duration(rng.IntN(366*24*60)) * time.Minute)
		d.Transactions = append(d.Transactions, afftrack.TransactionRecord{Transaction: afftrack.Transaction{
			ID: id, MerchantID: int64(1 + rng.IntN(nm)), AffiliateID: int64(1 + rng.IntN(na)),
			DateCreated: created, DateModified: created, ConsumptionDate: created, ValidationDate: created,
			TrafficType: afftrack.TrafficTypeWebsite, CreativeType: afftrack.CreativeTypeBanner,
			CustomerType: afftrack.CustomerTypeNew, TrackingMethod: afftrack.TrackingMethodCookie,
			Status2: afftrack.Status2Pending,
		}})
	}
	for id := int64(1); id <= banners; id++ {
		d.Banners = append(d.Banners, afftrack.Banner{ID: id, MerchantID: int64(1 + rng.IntN(nm)),
			DateCreated: day, DateModified: day, Width: 468, Height: 60, TargetURL: "https://shop.example/"})
	}
	for id := int64(1); id <= invoices; id++ {
		d.Invoices = append(d.Invoices, afftrack.Invoice{ID: id, AffiliateID: int64(1 + rng.IntN(na)), DateCreated: day, DatePaid: day})
	}
	return d
}

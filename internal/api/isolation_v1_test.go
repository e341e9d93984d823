package api_test

import (
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
)

// v1Now is the network's clock in TestIsolationV1: a fixed instant, so
// the dates the generator picks fall on known sides of it.
var v1Now = time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC)

// v1Range is a date range holding every generated click, transaction and
// invoice.
const v1Range = "&fromDate=2023-01-01&toDate=2025-12-31"

// TestIsolationV1 extends TestNoKeySeesAnotherAccountsData to the V1
// functions of v1-surface.md sections 2 and 4: over random networks,
// imported into a real SQLite store and served through the real handler,
// every key's lists hold exactly the rows the spec lets it see (by id),
// every /{id} of a row it may not see is a 404 and of one it may see a
// 200, a key of a suspended or closed account is a 401 everywhere, and a
// key is a 401 on every function of the other kind.
func TestIsolationV1(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		t.Run(fmt.Sprintf("network %d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed*6151))
			d := randomV1Network(rng)
			db := storetest.Open(t, storetest.SQLite)
			if _, err := sqlstore.NewImportService(db).Import(context.Background(), d); err != nil {
				t.Fatal(err)
			}
			h := api.NewServer(api.Config{PublicURL: "http://test"}, api.Services{
				Accounts:      sqlstore.NewAccountService(db),
				Transactions:  sqlstore.NewTransactionService(db),
				Banners:       sqlstore.NewBannerService(db),
				Invoices:      sqlstore.NewInvoiceService(db),
				Reports:       sqlstore.NewReportService(db),
				Offers:        sqlstore.NewOfferService(db),
				MerchantViews: sqlstore.NewMerchantViewService(db),
				Catalog:       sqlstore.NewCatalogService(db),
				RateLimiter:   ratelimit.NewMemory(),
			}, nil, func() time.Time { return v1Now }).Handler()
			n := indexV1(d)
			for _, a := range d.Affiliates {
				checkAffiliateV1(t, h, d, n, a)
			}
			for _, m := range d.Merchants {
				checkMerchantV1(t, h, d, n, m)
			}
		})
	}
}

// v1Index holds what the expectations need of a generated network.
type v1Index struct {
	merchantActive map[int64]bool
	membership     map[[2]int64]afftrack.MembershipStatus // {merchant, affiliate}
	program        map[int64]*afftrack.Program
	group          map[int64]afftrack.BannerGroup
}

func indexV1(d *afftrack.Dataset) *v1Index {
	n := &v1Index{merchantActive: map[int64]bool{}, membership: map[[2]int64]afftrack.MembershipStatus{},
		program: map[int64]*afftrack.Program{}, group: map[int64]afftrack.BannerGroup{}}
	for _, m := range d.Merchants {
		n.merchantActive[m.ID] = m.Status == afftrack.AccountActive
	}
	for _, ms := range d.Memberships {
		n.membership[[2]int64{ms.MerchantID, ms.AffiliateID}] = ms.Status
	}
	for i := range d.Programs {
		n.program[d.Programs[i].MerchantID] = &d.Programs[i]
	}
	for _, g := range d.BannerGroups {
		n.group[g.ID] = g
	}
	return n
}

func (n *v1Index) joined(merchant, affiliate int64) bool {
	return n.membership[[2]int64{merchant, affiliate}] == afftrack.MembershipJoined
}

// launched reports whether the merchant has a launched program (a
// TargetUrl and a Commission): only then do its creatives show.
func (n *v1Index) launched(merchant int64) bool {
	p := n.program[merchant]
	return p != nil && p.Launched()
}

// v1Get serves a GET and returns the status and, for a 200, the body's
// top-level JSON value.
func v1Get(t *testing.T, h http.Handler, path string, out any) int {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code == http.StatusOK && out != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			t.Fatalf("%s: %v: %s", path, err, rec.Body.String())
		}
	}
	return rec.Code
}

// v1IDs lists path with key and returns the Ids of its rows, or fails.
func v1IDs(t *testing.T, h http.Handler, path string) []int64 {
	t.Helper()
	var list []struct{ Id int64 }
	if code := v1Get(t, h, path, &list); code != http.StatusOK {
		t.Errorf("%s: %d, want 200", path, code)
		return nil
	}
	ids := []int64{}
	for _, r := range list {
		ids = append(ids, r.Id)
	}
	return ids
}

// checkList compares a list's ids with want, as sets (each function's
// order is tested elsewhere).
func checkList(t *testing.T, who, fn string, got, want []int64) {
	t.Helper()
	got, want = slices.Clone(got), slices.Clone(want)
	if want == nil {
		want = []int64{}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s %s: sees %v, want %v", who, fn, got, want)
	}
}

// checkByID asks for every id under path (a format with the id then the
// key) and wants a 200 exactly for those seen; 999999 is a 404 too.
func checkByID(t *testing.T, h http.Handler, who, path, key string, ids []int64, seen func(int64) bool) {
	t.Helper()
	for _, id := range append(slices.Clone(ids), 999999) {
		want := http.StatusNotFound
		if id != 999999 && seen(id) {
			want = http.StatusOK
		}
		if code := v1Get(t, h, fmt.Sprintf(path, id, key), nil); code != want {
			t.Errorf("%s %s: %d, want %d", who, fmt.Sprintf(path, id, "KEY"), code, want)
		}
	}
}

// affiliatePaths and merchantPaths are every V1 function of each kind,
// for the 401s; %d is an id, the key is appended.
var (
	affiliatePaths = []string{
		"/V1/Affiliate/Transactions?fromDate=2023-01-01&toDate=2025-12-31", "/V1/Affiliate/Transactions/%d?",
		"/V1/Affiliate/Merchants?", "/V1/Affiliate/Merchants/%d?", "/V1/Affiliate/Banners?", "/V1/Affiliate/Banners/%d?",
		"/V1/Affiliate/Coupons?", "/V1/Affiliate/Promotions?", "/V1/Affiliate/Promotions/%d?",
		"/V1/Affiliate/Invoices?fromDate=2023-01-01&toDate=2025-12-31", "/V1/Affiliate/Invoices/%d?",
		"/V1/Affiliate/Reports/TrafficType?fromDate=2023-01-01&toDate=2025-12-31",
		"/V1/Affiliate/Reports/Merchant?fromDate=2023-01-01&toDate=2025-12-31",
	}
	merchantPaths = []string{
		"/V1/Merchant/Transactions?fromDate=2023-01-01&toDate=2025-12-31", "/V1/Merchant/Transactions/%d?",
		"/V1/Merchant/Affiliates?", "/V1/Merchant/Affiliates/%d?", "/V1/Merchant/Banners?", "/V1/Merchant/Banners/%d?",
		"/V1/Merchant/BannerGroups?", "/V1/Merchant/BannerGroups/%d?", "/V1/Merchant/Coupons?", "/V1/Merchant/Promotions?",
		"/V1/Merchant/Reports/Affiliate?fromDate=2023-01-01&toDate=2025-12-31",
	}
)

// check401 wants a 401 from every path with key.
func check401(t *testing.T, h http.Handler, who, key string, paths []string) {
	t.Helper()
	for _, p := range paths {
		path := p
		if strings.Contains(p, "%") {
			path = fmt.Sprintf(p, 1)
		}
		sep := "&"
		if path[len(path)-1] == '?' {
			sep = ""
		}
		if code := v1Get(t, h, path+sep+"apiKey="+key, nil); code != http.StatusUnauthorized {
			t.Errorf("%s on %s: %d, want 401", who, path, code)
		}
	}
}

// offerSeen is the affiliate's rule for coupons and promotions (v1-surface
// sections 2 and 9): its Joined merchants', an Active merchant's with a
// launched program, public or assigned to it, from creation until
// EndDate's day ends.
func offerSeen(n *v1Index, affiliate, merchant int64, assigned afftrack.Null[int64], created, end afftrack.Null[time.Time]) bool {
	if !n.joined(merchant, affiliate) || !n.merchantActive[merchant] || !n.launched(merchant) {
		return false
	}
	if assigned.Valid && assigned.Value != affiliate {
		return false
	}
	if created.Value.After(v1Now) {
		return false
	}
	if end.Valid {
		e := end.Value
		dayEnds := time.Date(e.Year(), e.Month(), e.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
		if !v1Now.Before(dayEnds) {
			return false
		}
	}
	return true
}

func checkAffiliateV1(t *testing.T, h http.Handler, d *afftrack.Dataset, n *v1Index, a afftrack.AffiliateRecord) {
	key := a.APIKeys[0]
	who := fmt.Sprintf("affiliate %d", a.ID)
	check401(t, h, who+" key", key, merchantPaths)
	if a.Status != afftrack.AccountActive {
		check401(t, h, who+" ("+a.Status.String()+") key", key, affiliatePaths)
		return
	}
	q := "?apiKey=" + key

	// Transactions: its own, whatever the membership or merchant.
	var txIDs []int64
	own := map[int64]bool{}
	for _, tx := range d.Transactions {
		txIDs = append(txIDs, tx.ID)
		if tx.AffiliateID == a.ID {
			own[tx.ID] = true
		}
	}
	checkList(t, who, "Transactions", v1IDs(t, h, "/V1/Affiliate/Transactions"+q+v1Range), keys(own))
	checkByID(t, h, who, "/V1/Affiliate/Transactions/%d?apiKey=%s", key, txIDs, func(id int64) bool { return own[id] })

	// Merchants: Active, launched (TargetUrl and Commission), and Listed
	// or with a membership of any status.
	var mIDs []int64
	visible := map[int64]bool{}
	for _, m := range d.Merchants {
		mIDs = append(mIDs, m.ID)
		p := n.program[m.ID]
		_, member := n.membership[[2]int64{m.ID, a.ID}]
		if m.Status == afftrack.AccountActive && p != nil && p.TargetURL != "" && p.Commission.Pays() && (p.Listed || member) {
			visible[m.ID] = true
		}
	}
	checkList(t, who, "Merchants", v1IDs(t, h, "/V1/Affiliate/Merchants"+q), keys(visible))
	checkByID(t, h, who, "/V1/Affiliate/Merchants/%d?apiKey=%s", key, mIDs, func(id int64) bool { return visible[id] })

	// Banners and Banners/{id}: Joined merchants' (Active, launched or
	// not: contract.md §9), groups not expired.
	var bIDs []int64
	banners := map[int64]bool{}
	for _, b := range d.Banners {
		bIDs = append(bIDs, b.ID)
		g := n.group[b.BannerGroupID.Value]
		if n.joined(b.MerchantID, a.ID) && n.merchantActive[b.MerchantID] &&
			(!g.ExpiryDate.Valid || !g.ExpiryDate.Value.Before(v1Now)) {
			banners[b.ID] = true
		}
	}
	checkList(t, who, "Banners", v1IDs(t, h, "/V1/Affiliate/Banners"+q), keys(banners))
	checkByID(t, h, who, "/V1/Affiliate/Banners/%d?apiKey=%s", key, bIDs, func(id int64) bool { return banners[id] })

	// Coupons, Promotions, Promotions/{id}.
	coupons := map[int64]bool{}
	for _, c := range d.Coupons {
		if offerSeen(n, a.ID, c.MerchantID, c.AffiliateID, c.DateCreated, c.EndDate) {
			coupons[c.ID] = true
		}
	}
	checkList(t, who, "Coupons", v1IDs(t, h, "/V1/Affiliate/Coupons"+q), keys(coupons))
	var pIDs []int64
	promotions := map[int64]bool{}
	for _, p := range d.Promotions {
		pIDs = append(pIDs, p.ID)
		if offerSeen(n, a.ID, p.MerchantID, p.AffiliateID, p.DateCreated, p.EndDate) {
			promotions[p.ID] = true
		}
	}
	checkList(t, who, "Promotions", v1IDs(t, h, "/V1/Affiliate/Promotions"+q), keys(promotions))
	checkByID(t, h, who, "/V1/Affiliate/Promotions/%d?apiKey=%s", key, pIDs, func(id int64) bool { return promotions[id] })

	// Invoices: its own, DateCreated in range.
	invoices := map[int64]bool{}
	for _, in := range d.Invoices {
		if in.AffiliateID == a.ID {
			invoices[in.ID] = true
		}
	}
	checkList(t, who, "Invoices", v1IDs(t, h, "/V1/Affiliate/Invoices"+q+v1Range), keys(invoices))

	// Reports: its own clicks and transactions, per merchant and per
	// traffic type.
	byMerchant, byType := map[string][3]int64{}, map[string][3]int64{}
	add := func(m map[string][3]int64, k string, i int, bot bool) {
		c := m[k]
		c[i]++
		if bot {
			c[1]++
		}
		m[k] = c
	}
	for _, c := range d.Clicks {
		if c.AffiliateID == a.ID {
			add(byMerchant, fmt.Sprint(c.MerchantID), 0, c.Bot)
			add(byType, c.TrafficType.String(), 0, c.Bot)
		}
	}
	for _, tx := range d.Transactions {
		if tx.AffiliateID == a.ID {
			add(byMerchant, fmt.Sprint(tx.MerchantID), 2, false)
			add(byType, tx.TrafficType.String(), 2, false)
		}
	}
	checkReport(t, h, who, "/V1/Affiliate/Reports/Merchant"+q+v1Range, "MerchantId", byMerchant)
	checkReport(t, h, who, "/V1/Affiliate/Reports/TrafficType"+q+v1Range, "TrafficType", byType)
}

// checkReport wants exactly the lines of want, keyed by the field keyField:
// {clicks, bot clicks, transactions}.
func checkReport(t *testing.T, h http.Handler, who, path, keyField string, want map[string][3]int64) {
	t.Helper()
	var lines []map[string]any
	if code := v1Get(t, h, path, &lines); code != http.StatusOK {
		t.Errorf("%s %s: %d, want 200", who, path, code)
		return
	}
	num := func(l map[string]any, k string) int64 { f, _ := l[k].(float64); return int64(f) }
	got := map[string][3]int64{}
	for _, l := range lines {
		got[fmt.Sprint(l[keyField])] = [3]int64{num(l, "ClicksTotal"), num(l, "ClicksBot"),
			num(l, "TransactionsPending") + num(l, "TransactionsApproved") + num(l, "TransactionsVoid")}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s %s: lines %v, want %v", who, path, got, want)
	}
}

func checkMerchantV1(t *testing.T, h http.Handler, d *afftrack.Dataset, n *v1Index, m afftrack.MerchantRecord) {
	key := m.APIKeys[0]
	who := fmt.Sprintf("merchant %d", m.ID)
	check401(t, h, who+" key", key, affiliatePaths)
	if m.Status != afftrack.AccountActive {
		check401(t, h, who+" ("+m.Status.String()+") key", key, merchantPaths)
		return
	}
	q := "?apiKey=" + key

	// Affiliates: membership Joined, Invited or Pending, any account status.
	var aIDs []int64
	members := map[int64]bool{}
	for _, a := range d.Affiliates {
		aIDs = append(aIDs, a.ID)
		switch n.membership[[2]int64{m.ID, a.ID}] {
		case afftrack.MembershipJoined, afftrack.MembershipInvited, afftrack.MembershipPending:
			members[a.ID] = true
		}
	}
	checkList(t, who, "Affiliates", v1IDs(t, h, "/V1/Merchant/Affiliates"+q), keys(members))
	checkByID(t, h, who, "/V1/Merchant/Affiliates/%d?apiKey=%s", key, aIDs, func(id int64) bool { return members[id] })

	// Banners: its own, expired groups included.
	var bIDs []int64
	banners := map[int64]bool{}
	for _, b := range d.Banners {
		bIDs = append(bIDs, b.ID)
		if b.MerchantID == m.ID {
			banners[b.ID] = true
		}
	}
	checkList(t, who, "Banners", v1IDs(t, h, "/V1/Merchant/Banners"+q), keys(banners))
	checkByID(t, h, who, "/V1/Merchant/Banners/%d?apiKey=%s", key, bIDs, func(id int64) bool { return banners[id] })

	// BannerGroups: its own.
	var gIDs []int64
	groups := map[int64]bool{}
	for _, g := range d.BannerGroups {
		gIDs = append(gIDs, g.ID)
		if g.MerchantID == m.ID {
			groups[g.ID] = true
		}
	}
	checkList(t, who, "BannerGroups", v1IDs(t, h, "/V1/Merchant/BannerGroups"+q), keys(groups))
	checkByID(t, h, who, "/V1/Merchant/BannerGroups/%d?apiKey=%s", key, gIDs, func(id int64) bool { return groups[id] })

	// Coupons and Promotions: its own, any dates, public or assigned.
	coupons, promotions := map[int64]bool{}, map[int64]bool{}
	for _, c := range d.Coupons {
		if c.MerchantID == m.ID {
			coupons[c.ID] = true
		}
	}
	for _, p := range d.Promotions {
		if p.MerchantID == m.ID {
			promotions[p.ID] = true
		}
	}
	checkList(t, who, "Coupons", v1IDs(t, h, "/V1/Merchant/Coupons"+q), keys(coupons))
	checkList(t, who, "Promotions", v1IDs(t, h, "/V1/Merchant/Promotions"+q), keys(promotions))

	// Reports/Affiliate: its own clicks and transactions per affiliate.
	byAffiliate := map[string][3]int64{}
	for _, c := range d.Clicks {
		if c.MerchantID == m.ID {
			v := byAffiliate[fmt.Sprint(c.AffiliateID)]
			v[0]++
			if c.Bot {
				v[1]++
			}
			byAffiliate[fmt.Sprint(c.AffiliateID)] = v
		}
	}
	for _, tx := range d.Transactions {
		if tx.MerchantID == m.ID {
			v := byAffiliate[fmt.Sprint(tx.AffiliateID)]
			v[2]++
			byAffiliate[fmt.Sprint(tx.AffiliateID)] = v
		}
	}
	checkReport(t, h, who, "/V1/Merchant/Reports/Affiliate"+q+v1Range, "AffiliateId", byAffiliate)
}

// keys returns the set's members.
func keys(set map[int64]bool) []int64 {
	out := []int64{}
	for k := range set {
		out = append(out, k)
	}
	return out
}

// randomV1Network makes a network for TestIsolationV1: merchants and
// affiliates of every account status (mostly Active), programs listed or
// not, launched or not, memberships of every status, banner groups
// expired or not with their banners, coupons and promotions public or
// assigned (sometimes to a non-member) with dates on both sides of v1Now,
// invoices, transactions and clicks of every traffic type.
func randomV1Network(rng *rand.Rand) *afftrack.Dataset {
	d := &afftrack.Dataset{}
	status := func() afftrack.AccountStatus {
		if rng.IntN(5) == 0 {
			return afftrack.AccountStatus(2 + rng.IntN(2)) // Suspended or Closed
		}
		return afftrack.AccountActive
	}
	nm, na := 4+rng.IntN(3), 3+rng.IntN(4)
	for i := int64(1); i <= int64(nm); i++ {
		d.Merchants = append(d.Merchants, afftrack.MerchantRecord{
			Merchant: afftrack.Merchant{ID: i, Name: fmt.Sprintf("Merchant %d", i), AvatarURL: "https://img.example/m.png", Status: status()},
			APIKeys:  []string{fmt.Sprintf("v1-merchant-key-%d-%d", i, rng.Uint64())},
		})
		if rng.IntN(6) == 0 {
			continue // no program: not launched
		}
		p := afftrack.Program{MerchantID: i, TargetURL: fmt.Sprintf("https://m%d.example/", i), CookieDays: 30,
			ValidationDays: 30, Listed: rng.IntN(2) == 0}
		switch rng.IntN(6) {
		case 0:
			p.TargetURL = ""
		case 1:
			// no Commission
		case 2:
			p.Commission.Flat = afftrack.Some[afftrack.Money](500)
		}
		if !p.Commission.Flat.Valid && rng.IntN(6) != 1 {
			p.Commission.Percent = afftrack.Some[afftrack.Percent](1000)
		}
		d.Programs = append(d.Programs, p)
		d.ProgramAt = append(d.ProgramAt, int(i-1))
	}
	for i := int64(1); i <= int64(na); i++ {
		d.Affiliates = append(d.Affiliates, afftrack.AffiliateRecord{
			Affiliate: afftrack.Affiliate{ID: i, ContactName: fmt.Sprintf("Affiliate %d", i), Status: status()},
			APIKeys:   []string{fmt.Sprintf("v1-affiliate-key-%d-%d", i, rng.Uint64())},
		})
		for m := int64(1); m <= int64(nm); m++ {
			if rng.IntN(3) > 0 {
				d.Memberships = append(d.Memberships, afftrack.Membership{AffiliateID: i, MerchantID: m,
					Status: afftrack.MembershipStatus(1 + rng.IntN(4)), TrafficType: afftrack.TrafficType(1 + rng.IntN(6))})
			}
		}
	}
	day := func(offset int) time.Time { return v1Now.Truncate(24*time.Hour).AddDate(0, 0, offset) }
	at := func(offset int) time.Time { // a random time of the day offset days from v1Now's
		return day(offset).Add(time.Duration(rng.IntN(24*60)) * time.Minute)
	}
	created := day(-100)

	gid := int64(0)
	var groupsOf = map[int64][]int64{}
	for m := int64(1); m <= int64(nm); m++ {
		for range 1 + rng.IntN(3) {
			gid++
			g := afftrack.BannerGroup{ID: gid, MerchantID: m, Name: fmt.Sprintf("Group %d", gid),
				TargetURL: fmt.Sprintf("https://m%d.example/g%d", m, gid), DateCreated: afftrack.Some(created), DateModified: afftrack.Some(created)}
			switch rng.IntN(3) {
			case 0:
				g.ExpiryDate = afftrack.Some(at(-1 - rng.IntN(30)))
			case 1:
				g.ExpiryDate = afftrack.Some(at(1 + rng.IntN(30)))
			}
			d.BannerGroups = append(d.BannerGroups, g)
			groupsOf[m] = append(groupsOf[m], gid)
		}
	}
	if gid > 0 {
		for id, nb := int64(1), int64(5+rng.IntN(20)); id <= nb; id++ {
			g := d.BannerGroups[rng.IntN(len(d.BannerGroups))]
			d.Banners = append(d.Banners, afftrack.Banner{ID: id, MerchantID: g.MerchantID, BannerGroupID: afftrack.Some(g.ID),
				Name: fmt.Sprintf("Banner %d", id), DateCreated: created, DateModified: created, Width: 468, Height: 60,
				ImageURL: "https://img.example/b.png", TargetURL: g.TargetURL})
		}
	}

	// Offer dates: created in the past or the future; EndDate none, days
	// ago, earlier today (still shown), yesterday, or to come.
	offerDates := func() (c, end afftrack.Null[time.Time]) {
		c = afftrack.Some(at(-rng.IntN(60)))
		if rng.IntN(5) == 0 {
			c = afftrack.Some(at(1 + rng.IntN(10)))
		}
		switch rng.IntN(5) {
		case 1:
			end = afftrack.Some(at(-2 - rng.IntN(20)))
		case 2:
			end = afftrack.Some(day(0).Add(time.Duration(rng.IntN(12*60)) * time.Minute))
		case 3:
			end = afftrack.Some(at(-1))
		case 4:
			end = afftrack.Some(at(rng.IntN(20)))
		}
		return c, end
	}
	assignee := func() afftrack.Null[int64] {
		if rng.IntN(2) == 0 {
			return afftrack.Null[int64]{}
		}
		return afftrack.Some(1 + rng.Int64N(int64(na)))
	}
	for id, nc := int64(1), int64(5+rng.IntN(25)); id <= nc; id++ {
		m := 1 + rng.Int64N(int64(nm))
		c, end := offerDates()
		d.Coupons = append(d.Coupons, afftrack.Coupon{ID: id, MerchantID: m, Code: fmt.Sprintf("CODE%d", id),
			Description: fmt.Sprintf("Coupon %d", id), AffiliateID: assignee(), EndDate: end,
			DateCreated: c, DateModified: c, TargetURL: fmt.Sprintf("https://m%d.example/c", m)})
	}
	for id, np := int64(1), int64(5+rng.IntN(25)); id <= np; id++ {
		m := 1 + rng.Int64N(int64(nm))
		c, end := offerDates()
		d.Promotions = append(d.Promotions, afftrack.Promotion{ID: id, MerchantID: m,
			Description: fmt.Sprintf("Promotion %d", id), AffiliateID: assignee(), EndDate: end,
			DateCreated: c, DateModified: c, TargetURL: fmt.Sprintf("https://m%d.example/o", m)})
	}

	for id, ni := int64(1), int64(rng.IntN(12)); id <= ni; id++ {
		when := at(-rng.IntN(200))
		d.Invoices = append(d.Invoices, afftrack.Invoice{ID: id, AffiliateID: 1 + rng.Int64N(int64(na)),
			DateCreated: when, DatePaid: when, Number: fmt.Sprint(id)})
	}
	for id, nt := int64(1), int64(5+rng.IntN(30)); id <= nt; id++ {
		when := at(-rng.IntN(200)).Truncate(time.Second)
		d.Transactions = append(d.Transactions, afftrack.TransactionRecord{Transaction: afftrack.Transaction{
			ID: id, MerchantID: 1 + rng.Int64N(int64(nm)), AffiliateID: 1 + rng.Int64N(int64(na)),
			DateCreated: when, DateModified: when, ConsumptionDate: when, ValidationDate: when,
			TrafficType: afftrack.TrafficType(1 + rng.IntN(6)), CreativeType: afftrack.CreativeTypeTextLink,
			CustomerType: afftrack.CustomerTypeNew, TrackingMethod: afftrack.TrackingMethodCookie,
			Status2: afftrack.Status2Pending,
		}})
	}
	for i := range 10 + rng.IntN(40) {
		d.Clicks = append(d.Clicks, afftrack.Click{ID: fmt.Sprintf("%016x%016x", rng.Uint64(), i),
			Time: at(-rng.IntN(200)), MerchantID: 1 + rng.Int64N(int64(nm)), AffiliateID: 1 + rng.Int64N(int64(na)),
			CreativeType: afftrack.CreativeTypeTextLink, Bot: rng.IntN(3) == 0, TrafficType: afftrack.TrafficType(1 + rng.IntN(6))})
	}
	return d
}

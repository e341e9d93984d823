package generate_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/generate"
)

// network is every record a generator emitted, copied out of its reused
// chunks, with the chunks' sizes and collections.
type network struct {
	afftrack.Dataset
	chunks  []string // the collection of each chunk
	sizes   []int    // records of each chunk
	summary generate.Summary
}

// collect runs a generator for cfg to the end.
func collect(t testing.TB, cfg generate.Config) *network {
	t.Helper()
	g, err := generate.New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	n := &network{}
	for d := g.Next(); d != nil; d = g.Next() {
		kinds := map[string]int{"Merchants": len(d.Merchants), "Affiliates": len(d.Affiliates),
			"Memberships": len(d.Memberships), "Transactions": len(d.Transactions), "Banners": len(d.Banners),
			"Invoices": len(d.Invoices), "Coupons": len(d.Coupons), "Promotions": len(d.Promotions),
			"Clicks": len(d.Clicks)}
		kind := ""
		for k, size := range kinds {
			if size > 0 && kind != "" {
				t.Errorf("chunk %d holds both %s and %s", len(n.chunks), kind, k)
			}
			if size > 0 {
				kind = k
			}
		}
		n.chunks = append(n.chunks, kind)
		n.sizes = append(n.sizes, kinds[kind])
		n.Merchants = append(n.Merchants, d.Merchants...)
		n.Affiliates = append(n.Affiliates, d.Affiliates...)
		n.Memberships = append(n.Memberships, d.Memberships...)
		n.Banners = append(n.Banners, d.Banners...)
		n.Invoices = append(n.Invoices, d.Invoices...)
		n.Coupons = append(n.Coupons, d.Coupons...)
		n.Promotions = append(n.Promotions, d.Promotions...)
		n.Clicks = append(n.Clicks, d.Clicks...)
		for _, tx := range d.Transactions {
			tx.Items = slices.Clone(tx.Items)
			n.Transactions = append(n.Transactions, tx)
		}
	}
	n.summary = g.Summary()
	return n
}

// small is a network quick to generate that still spans a year.
func small() generate.Config {
	cfg := generate.DefaultConfig()
	cfg.Transactions, cfg.Merchants, cfg.Affiliates, cfg.ChunkSize = 3000, 20, 300, 700
	return cfg
}

// medium is shared by the tests that look at distributions: large enough
// for every enumeration value to occur and the skew to show.
var medium = sync.OnceValue(func() generate.Config {
	cfg := generate.DefaultConfig()
	cfg.Transactions, cfg.Merchants, cfg.Affiliates, cfg.MidDaily = 60_000, 100, 2_000, 20
	return cfg
})

var mediumNetwork struct {
	once sync.Once
	n    *network
}

func mediumNet(t *testing.T) *network {
	mediumNetwork.once.Do(func() { mediumNetwork.n = collect(t, medium()) })
	if mediumNetwork.n == nil {
		t.Fatal("the medium network could not be generated")
	}
	return mediumNetwork.n
}

func TestNewRefusesAConfigItCannotGenerate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*generate.Config)
	}{
		{"negative transactions", func(c *generate.Config) { c.Transactions = -1 }},
		{"no merchant", func(c *generate.Config) { c.Merchants = 0 }},
		{"no affiliate", func(c *generate.Config) { c.Affiliates = 0 }},
		{"no day", func(c *generate.Config) { c.Days = 0 }},
		{"an empty chunk", func(c *generate.Config) { c.ChunkSize = 0 }},
		{"no mid-sized volume", func(c *generate.Config) { c.MidDaily = 0 }},
		{"no start date", func(c *generate.Config) { c.Start = time.Time{} }},
	}
	for _, tt := range tests {
		t.Run("a config with "+tt.name+" is refused", func(t *testing.T) {
			cfg := small()
			tt.edit(&cfg)
			if _, err := generate.New(cfg); err == nil {
				t.Errorf("New(%+v) succeeded", cfg)
			}
		})
	}
}

func TestGeneratorHonoursTheCounts(t *testing.T) {
	configs := map[string]generate.Config{"a small network": small()}
	edge := func(name string, edit func(*generate.Config)) {
		cfg := small()
		edit(&cfg)
		configs[name] = cfg
	}
	edge("one of everything", func(c *generate.Config) { c.Transactions, c.Merchants, c.Affiliates, c.Days = 1, 1, 1, 1 })
	edge("no transactions", func(c *generate.Config) { c.Transactions = 0 })
	edge("chunks of one record", func(c *generate.Config) { c.Transactions, c.Affiliates, c.ChunkSize = 50, 20, 1 })
	edge("a start that is not midnight", func(c *generate.Config) { c.Start = c.Start.Add(13 * time.Hour) })
	edge("more transactions than a day can spread", func(c *generate.Config) { c.Days = 2 })
	// And random sizes: the counts hold for any config.
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 8 {
		cfg := generate.DefaultConfig()
		cfg.Transactions, cfg.Merchants, cfg.Affiliates = r.IntN(2000), 1+r.IntN(40), 1+r.IntN(400)
		cfg.Days, cfg.ChunkSize, cfg.Seed = 1+r.IntN(400), 1+r.IntN(900), r.Uint64()
		cfg.Start = cfg.Start.AddDate(0, 0, r.IntN(700)-350)
		configs[fmt.Sprintf("random config %d (%d transactions, %d merchants, %d affiliates, %d days)",
			i, cfg.Transactions, cfg.Merchants, cfg.Affiliates, cfg.Days)] = cfg
	}
	for name, cfg := range configs {
		t.Run(name+" has exactly the configured records", func(t *testing.T) {
			n := collect(t, cfg)
			got := [3]int{len(n.Merchants), len(n.Affiliates), len(n.Transactions)}
			if diff := cmp.Diff([3]int{cfg.Merchants, cfg.Affiliates, cfg.Transactions}, got); diff != "" {
				t.Errorf("merchants, affiliates, transactions (-want +got):\n%s", diff)
			}
			items := 0
			for _, tx := range n.Transactions {
				items += len(tx.Items)
			}
			want := generate.Summary{Merchants: len(n.Merchants), Affiliates: len(n.Affiliates),
				Memberships: len(n.Memberships), Transactions: len(n.Transactions), Items: items,
				Banners: len(n.Banners), Invoices: len(n.Invoices), Coupons: len(n.Coupons),
				Promotions: len(n.Promotions), Clicks: len(n.Clicks)}
			gotCounts := n.summary
			gotCounts.Largest, gotCounts.Mid = generate.MerchantLoad{}, generate.MerchantLoad{}
			gotCounts.Month, gotCounts.MonthEnd, gotCounts.MonthTransactions = time.Time{}, time.Time{}, 0
			gotCounts.Day, gotCounts.DayTransactions, gotCounts.LookupID = time.Time{}, 0, 0
			if diff := cmp.Diff(want, gotCounts); diff != "" {
				t.Errorf("summary counts (-want +got):\n%s", diff)
			}
			checkChunks(t, n, cfg.ChunkSize)
			checkRecords(t, n, cfg)
		})
	}
}

// checkChunks checks that every chunk holds at most size records, and
// that collections come in an order an import can follow.
func checkChunks(t *testing.T, n *network, size int) {
	t.Helper()
	order := []string{"Merchants", "Banners", "Affiliates", "Memberships", "Coupons", "Promotions",
		"Transactions", "Invoices", "Clicks"}
	last := 0
	for i, kind := range n.chunks {
		if n.sizes[i] > size {
			t.Errorf("chunk %d holds %d %s, more than %d", i, n.sizes[i], kind, size)
		}
		at := slices.Index(order, kind)
		if at < last {
			t.Errorf("chunk %d holds %s after %s", i, kind, order[last])
		}
		last = at
	}
}

func TestGeneratorIsDeterministic(t *testing.T) {
	base := collect(t, small())
	tests := []struct {
		name string
		edit func(*generate.Config)
		same bool
	}{
		{"the same config gives the same network", func(*generate.Config) {}, true},
		{"another chunk size gives the same network", func(c *generate.Config) { c.ChunkSize = 97 }, true},
		{"another seed gives another network", func(c *generate.Config) { c.Seed = 2 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := small()
			tt.edit(&cfg)
			n := collect(t, cfg)
			// reflect.DeepEqual decides, as cmp is slow on thousands of
			// records; cmp explains a difference that should not be.
			same := reflect.DeepEqual(base.Dataset, n.Dataset)
			if tt.same && !same {
				t.Errorf("records differ (-first +second):\n%.3000s", cmp.Diff(base.Dataset, n.Dataset))
			}
			if !tt.same && same {
				t.Errorf("records are the same")
			}
			if tt.same {
				if diff := cmp.Diff(base.summary, n.summary); diff != "" {
					t.Errorf("summary (-first +second):\n%s", diff)
				}
			}
		})
	}
}

func TestEveryEnumerationValueOccurs(t *testing.T) {
	n := mediumNet(t)
	seen := map[string]bool{}
	see := func(kind string, v fmt.Stringer) {
		if s := v.String(); s != "" {
			seen[kind+": "+s] = true
		}
	}
	for _, m := range n.Merchants {
		see("merchant status", m.Status)
	}
	for _, a := range n.Affiliates {
		see("affiliate status", a.Status)
	}
	for _, m := range n.Memberships {
		see("membership", m.Status)
	}
	for _, tx := range n.Transactions {
		see("traffic type", tx.TrafficType)
		see("creative type", tx.CreativeType)
		see("customer type", tx.CustomerType)
		see("tracking method", tx.TrackingMethod)
		see("status2", tx.Status2)
		see("void reason", tx.VoidReason)
		see("amended reason", tx.AmendedReason)
	}
	var want []string
	for kind, count := range map[string]int{"merchant status": 3, "affiliate status": 3, "membership": 4,
		"traffic type": 6, "creative type": 5, "customer type": 2, "tracking method": 7, "status2": 5,
		"void reason": 11, "amended reason": 5} {
		for v := 1; v <= count; v++ {
			var name string
			switch kind {
			case "merchant status", "affiliate status":
				name = afftrack.AccountStatus(v).String()
			case "membership":
				name = afftrack.MembershipStatus(v).String()
			case "traffic type":
				name = afftrack.TrafficType(v).String()
			case "creative type":
				name = afftrack.CreativeType(v).String()
			case "customer type":
				name = afftrack.CustomerType(v).String()
			case "tracking method":
				name = afftrack.TrackingMethod(v).String()
			case "status2":
				name = afftrack.TransactionStatus2(v).String()
			case "void reason":
				name = afftrack.VoidReason(v).String()
			case "amended reason":
				name = afftrack.AmendedReason(v).String()
			}
			want = append(want, kind+": "+name)
		}
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("%s never occurs", w)
		}
	}
	// Nullable fields are sometimes null, sometimes not.
	var nulls, values [6]int
	for _, tx := range n.Transactions {
		for i, valid := range []bool{tx.CreativeID.Valid, tx.AdditionalNotes.Valid, tx.CouponCode.Valid,
			tx.PlacementID.Valid, tx.InvoiceID.Valid, len(tx.Items) > 0 && tx.Items[0].CartItemReference.Valid} {
			if valid {
				values[i]++
			} else {
				nulls[i]++
			}
		}
	}
	for i, name := range []string{"CreativeId", "AdditionalNotes", "CouponCode", "PlacementId", "InvoiceId", "CartItemReference"} {
		if nulls[i] == 0 || values[i] == 0 {
			t.Errorf("%s: %d null, %d not null; want both", name, nulls[i], values[i])
		}
	}
}

func TestMerchantSizesAreSkewed(t *testing.T) {
	n := mediumNet(t)
	counts := map[int64]int{}
	for _, tx := range n.Transactions {
		counts[tx.MerchantID]++
	}
	sizes := make([]int, 0, len(n.Merchants))
	for _, m := range n.Merchants {
		sizes = append(sizes, counts[m.ID])
	}
	slices.Sort(sizes)
	slices.Reverse(sizes)
	top := 0
	for _, s := range sizes[:len(sizes)/10] {
		top += s
	}
	median := sizes[len(sizes)/2]
	if share := float64(top) / float64(len(n.Transactions)); share < 0.45 {
		t.Errorf("the largest tenth of merchants has %.0f%% of the transactions, want at least 45%%", 100*share)
	}
	if sizes[0] < 20*median {
		t.Errorf("the largest merchant has %d transactions, the median one %d: want a ratio of at least 20", sizes[0], median)
	}
	if sizes[0] != n.summary.Largest.Transactions {
		t.Errorf("the largest merchant has %d transactions, the summary says %d", sizes[0], n.summary.Largest.Transactions)
	}
}

func TestSummaryNamesTheBenchmarkTargets(t *testing.T) {
	n := mediumNet(t)
	s := n.summary
	cfg := medium()
	month, day := 0, 0
	var lookup *afftrack.Transaction
	for i := range n.Transactions {
		tx := &n.Transactions[i].Transaction
		if tx.MerchantID == s.Largest.ID && !tx.DateCreated.Before(s.Month) && tx.DateCreated.Before(s.MonthEnd.AddDate(0, 0, 1)) {
			month++
		}
		if tx.MerchantID == s.Mid.ID && !tx.DateCreated.Before(s.Day) && tx.DateCreated.Before(s.Day.AddDate(0, 0, 1)) {
			day++
		}
		if tx.ID == s.LookupID {
			lookup = tx
		}
	}
	if s.Month.Day() != 1 || s.MonthEnd.AddDate(0, 0, 1).Day() != 1 || s.MonthEnd.Month() != s.Month.Month() {
		t.Errorf("month %v to %v is not a calendar month", s.Month, s.MonthEnd)
	}
	if month != s.MonthTransactions {
		t.Errorf("the largest merchant has %d transactions in its month, the summary says %d", month, s.MonthTransactions)
	}
	if day != s.DayTransactions {
		t.Errorf("the mid-sized merchant has %d transactions on its day, the summary says %d", day, s.DayTransactions)
	}
	if diff := day - cfg.MidDaily; diff < -cfg.MidDaily/4 || diff > cfg.MidDaily/4 {
		t.Errorf("the mid-sized merchant's day has %d transactions, want about %d", day, cfg.MidDaily)
	}
	if s.Mid.ID == s.Largest.ID {
		t.Errorf("the mid-sized merchant is the largest one")
	}
	if s.Mid.Key != generate.MerchantKey(s.Mid.ID) || s.Largest.Key != generate.MerchantKey(s.Largest.ID) {
		t.Errorf("keys %q and %q do not belong to merchants %d and %d", s.Mid.Key, s.Largest.Key, s.Mid.ID, s.Largest.ID)
	}
	if lookup == nil || lookup.MerchantID != s.Mid.ID || len(lookup.Items) < 2 || lookup.DateCreated.Truncate(24*time.Hour) != s.Day {
		t.Errorf("lookup transaction %d is %+v; want one of merchant %d on %v with 2+ items", s.LookupID, lookup, s.Mid.ID, s.Day)
	}
	for _, m := range n.Merchants {
		if (m.ID == s.Mid.ID || m.ID == s.Largest.ID) && m.Status != afftrack.AccountActive {
			t.Errorf("benchmark merchant %d is %s", m.ID, m.Status)
		}
	}
}

package generate_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack/internal/generate"
)

func TestBulkLeavesTheTransactionsToTheStore(t *testing.T) {
	cfg := small()
	full := collect(t, cfg)
	g, err := generate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := g.Bulk()
	var got []string
	for d := g.Next(); d != nil; d = g.Next() {
		if len(d.Transactions) > 0 || len(d.Invoices) > 0 {
			got = append(got, "a chunk of transactions or invoices")
		}
	}
	if len(got) > 0 {
		t.Errorf("after Bulk, Next gave %v", got)
	}

	t.Run("its tables describe the network", func(t *testing.T) {
		days := 0
		for _, d := range b.Days {
			days += d.Transactions
		}
		if days != cfg.Transactions || len(b.Merchants) != cfg.Merchants || len(b.AffiliateSources) != cfg.Affiliates {
			t.Errorf("%d transactions over the days, %d merchants, %d affiliates; want %d, %d, %d", days,
				len(b.Merchants), len(b.AffiliateSources), cfg.Transactions, cfg.Merchants, cfg.Affiliates)
		}
		if last := b.Merchants[len(b.Merchants)-1].Share; last < 0.999999 || b.Merchants[0].Share <= 0 {
			t.Errorf("the shares run from %v to %v, want above 0 up to 1", b.Merchants[0].Share, last)
		}
		if b.Mid != full.summary.Mid.ID {
			t.Errorf("Mid is %d, the summary's mid-sized merchant %d", b.Mid, full.summary.Mid.ID)
		}
	})

	t.Run("the summary of the store's days is the generator's", func(t *testing.T) {
		// Fed the days of the generator's own transactions, BulkSummary
		// must name the targets Summary does.
		type key struct {
			merchant int64
			date     time.Time
		}
		loads := map[key]*generate.DayLoad{}
		var order []key
		items := 0
		for _, x := range full.Transactions {
			k := key{x.MerchantID, x.DateCreated.Truncate(24 * time.Hour)}
			l := loads[k]
			if l == nil {
				l = &generate.DayLoad{MerchantID: k.merchant, Date: k.date, Lookup: x.ID}
				loads[k] = l
				order = append(order, k)
			}
			if len(x.Items) >= 2 && l.Lookup != 0 && !hasTwoItems(full, l.Lookup) {
				l.Lookup = x.ID
			}
			l.Transactions++
			items += len(x.Items)
		}
		var days []generate.DayLoad
		for _, k := range order {
			days = append(days, *loads[k])
		}
		got := g.BulkSummary(days, items, len(full.Invoices))
		if diff := cmp.Diff(full.summary, got); diff != "" {
			t.Errorf("BulkSummary (-want +got):\n%s", diff)
		}
	})
}

// hasTwoItems reports whether the network's transaction id has two or
// more items; ids are positions plus one.
func hasTwoItems(n *network, id int64) bool { return len(n.Transactions[id-1].Items) >= 2 }

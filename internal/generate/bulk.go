package generate

import (
	"math"
	"time"
)

// Bulk describes the transactions (and invoices) of a network for a store
// that makes them itself, inside its database engine, far faster than it
// can import them one bound parameter at a time. It holds the draws'
// tables; the store's own pseudo-random expressions pick from them, so its
// transactions follow the same distributions as Next's but are not the
// same records. Summary's targets then come from what the store reports
// (see Generator.BulkSummary).
type Bulk struct {
	Transactions int
	FirstID      int64
	Seed         uint64
	Affiliates   int       // the affiliate count, which invoice ids are numbered by
	Start, End   time.Time // End is Start + Days: the network's "now"
	// Mid is the merchant the Summary's one-day target is chosen from:
	// BulkSummary needs the lookup transactions of its days.
	Mid int64

	// Days are the days with transactions, in order.
	Days []BulkDay
	// Months are the calendar months from Start's to two after End's, for
	// the invoices of transactions validated in them.
	Months []BulkMonth
	// Merchants are in order of rank, the largest first.
	Merchants []BulkMerchant
	// AffiliateSources are the affiliates' traffic, by id - 1.
	AffiliateSources []BulkSource

	// Percentages of transactions with a trait; InvoiceEvery: the
	// affiliates whose id is 1 modulo it have invoices.
	VoidPercent, AmendedPercent, ApprovedPercent, NewCustomerPercent int
	LaterConsumptionPercent, NotesPercent, PlacementPercent          int
	ExtraCouponPercent, CartRefPercent, InvoiceEvery                 int
	LockAfter, ValidateAfter                                         time.Duration
	Countries, CreativeTypes, TrackingMethods, VoidReasons           []Choice
	AmendedReasons, ItemCounts, Quantities, TextLinks, Promotions    []Choice
	Notes, Placements                                                []Choice
}

// Choice is one value of a weighted pick: a number, a text or both (a
// country's code and name).
type Choice struct {
	Value       int64
	Text, Text2 string
	Weight      int
}

// BulkDay is a day with transactions.
type BulkDay struct {
	Date         time.Time // midnight
	Transactions int
	// Paid is when a transaction created this day is paid if it is: the
	// 15th after the month of its validation; Month is that month's
	// index from Start's month, which invoice ids are made of.
	Paid  time.Time
	Month int
}

// BulkMonth is a calendar month whose invoices may be generated.
type BulkMonth struct {
	First               time.Time // first day
	Created, Paid       time.Time // of its invoices
	Number, Description string    // an invoice's number suffix (200601) and description
}

// BulkMerchant is a merchant and what its transactions draw on.
type BulkMerchant struct {
	ID    int64
	Share float64 // cumulative share of the transactions up to this rank
	// The merchant's Joined members are the affiliates (MemberOff +
	// j*MemberStep) mod the affiliate count, plus 1, for j < Members;
	// the first ones send most of its sales.
	Members, MemberOff, MemberStep int
	CurrencyCode, CurrencyName     string
	Per10k, RateBP                 int64 // reported currency per 10,000; commission in basis points
	OverrideFee                    bool
	OrderPrefix                    string
	Coupons                        []string
	Products                       []BulkProduct // the popular first
	Banners                        []BulkBanner
	TextLinkBase                   int64 // id of its first text link
}

// BulkProduct is a product of a merchant's catalogue.
type BulkProduct struct {
	Sku, Name, Brand, Category string
	Price                      int64 // ItemMoney
}

// BulkBanner is a banner a transaction may name.
type BulkBanner struct {
	ID   int64
	Name string
}

// BulkSource is an affiliate's traffic.
type BulkSource struct {
	TrafficType int64
	Source      string
	GST         bool
}

// Bulk returns the tables for a store that generates the transactions and
// invoices itself, and makes Next skip them: after Bulk, Next ends with
// the memberships.
func (g *Generator) Bulk() *Bulk {
	g.bulk = true
	b := &Bulk{
		Transactions: g.cfg.Transactions, FirstID: 1, Seed: g.cfg.Seed, Affiliates: g.cfg.Affiliates,
		Start: g.cfg.Start, End: g.end, Mid: g.merchantOfRank(g.midRank).id,
		VoidPercent: voidPercent, AmendedPercent: amendedPercent, ApprovedPercent: approvedPercent,
		NewCustomerPercent: newCustomer, LaterConsumptionPercent: laterConsumption, NotesPercent: notesPercent,
		PlacementPercent: placementPercent, ExtraCouponPercent: extraCoupon, CartRefPercent: cartRefPercent,
		InvoiceEvery: invoiceEvery, LockAfter: lockAfter, ValidateAfter: validateAfter,
	}
	for d, n := range g.dayCounts {
		if n == 0 {
			continue
		}
		date := g.cfg.Start.AddDate(0, 0, d)
		validated := date.Add(validateAfter)
		b.Days = append(b.Days, BulkDay{Date: date, Transactions: n, Paid: paymentDate(validated),
			Month: monthIndex(g.cfg.Start, validated)})
	}
	for k := range g.tx.months + 3 {
		first := time.Date(g.cfg.Start.Year(), g.cfg.Start.Month()+time.Month(k), 1, 0, 0, 0, 0, time.UTC)
		paid := paymentDate(first)
		b.Months = append(b.Months, BulkMonth{First: first, Created: paid.AddDate(0, 0, -14).Add(-8 * time.Hour),
			Paid: paid, Number: first.Format("200601"), Description: "Commission for " + first.Format("January 2006")})
	}
	for rank := 1; rank <= len(g.merchants); rank++ {
		m := g.merchantOfRank(rank)
		cur := currencies[m.currency]
		bm := BulkMerchant{
			ID: m.id, Share: g.cumShare[rank-1], Members: m.members, MemberOff: m.memberOff, MemberStep: m.memberStep,
			CurrencyCode: cur.code, CurrencyName: cur.name, Per10k: cur.per10k, RateBP: m.rateBP,
			OverrideFee: m.overrideFee, OrderPrefix: m.orderPrefix, Coupons: m.coupons,
			TextLinkBase: 1_000_000 + (m.id-1)*int64(len(textLinkNames)),
		}
		for _, p := range m.products {
			bm.Products = append(bm.Products, BulkProduct{Sku: p.sku, Name: p.name, Brand: p.brand, Category: p.category, Price: int64(p.price)})
		}
		for _, x := range m.banners {
			bm.Banners = append(bm.Banners, BulkBanner{ID: x.id, Name: x.name})
		}
		b.Merchants = append(b.Merchants, bm)
	}
	for _, a := range g.affiliates {
		b.AffiliateSources = append(b.AffiliateSources, BulkSource{TrafficType: int64(a.trafficType), Source: a.source, GST: a.gst})
	}
	for i, c := range countries.vals {
		b.Countries = append(b.Countries, Choice{Text: c[0], Text2: c[1], Weight: countries.weights[i]})
	}
	b.CreativeTypes = choices(creativeTypes)
	b.TrackingMethods = choices(trackingMethods)
	b.VoidReasons = choices(voidReasons)
	b.AmendedReasons = choices(amendedReasons)
	b.ItemCounts = choices(itemCounts)
	b.Quantities = choices(quantities)
	b.TextLinks = texts(textLinkNames)
	b.Promotions = texts(promotions)
	b.Notes = texts(additionalNotes)
	b.Placements = texts(placementNames)
	return b
}

func choices[T ~uint8 | ~int | ~int64](w weighted[T]) []Choice {
	cs := make([]Choice, len(w.vals))
	for i, v := range w.vals {
		cs[i] = Choice{Value: int64(v), Weight: w.weights[i]}
	}
	return cs
}

func texts(s []string) []Choice {
	cs := make([]Choice, len(s))
	for i, v := range s {
		cs[i] = Choice{Text: v, Weight: 1}
	}
	return cs
}

// DayLoad is what a store that generated the transactions reports of one
// merchant's day, for the Summary.
type DayLoad struct {
	MerchantID   int64
	Date         time.Time // midnight
	Transactions int
	// Lookup is its first transaction with two or more items, or its
	// first if none has.
	Lookup int64
}

// BulkSummary returns the Summary of a network whose transactions a store
// generated from Bulk: loads are its merchants' days, items and invoices
// what it stored.
func (g *Generator) BulkSummary(loads []DayLoad, items, invoices int) Summary {
	t := g.tx
	clear(t.perMerchant)
	clear(t.perMonth)
	clear(t.midDay)
	clear(t.midLookup)
	mid := g.merchantOfRank(g.midRank).id
	total := 0
	for _, l := range loads {
		d := int(math.Round(l.Date.Sub(g.cfg.Start).Hours() / 24))
		if d < 0 || d >= g.cfg.Days || l.MerchantID < 1 || int(l.MerchantID) > len(t.perMerchant) {
			continue
		}
		total += l.Transactions
		t.perMerchant[l.MerchantID-1] += l.Transactions
		t.perMonth[int(l.MerchantID-1)*t.months+monthIndex(g.cfg.Start, l.Date)] += l.Transactions
		if l.MerchantID == mid {
			t.midDay[d] += l.Transactions
			t.midLookup[d] = l.Lookup
		}
	}
	g.summary.Transactions, g.summary.Items, g.summary.Invoices = total, items, invoices
	return g.Summary()
}

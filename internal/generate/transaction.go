package generate

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/afftrack/afftrack"
)

// The life of a transaction: Pending while the merchant may still cancel
// the order, Locked for the last days before validation, then Approved
// (or Void), and Paid once the affiliate's invoice for the month of
// validation has been paid, mid-month after it.
const (
	lockAfter     = 25 * 24 * time.Hour
	validateAfter = 30 * 24 * time.Hour
	day           = 24 * time.Hour
)

// Percentages of transactions with a trait.
const (
	voidPercent      = 7
	amendedPercent   = 4
	approvedPercent  = 92 // TrafficSourceApproved
	newCustomer      = 65 // CustomerType New
	laterConsumption = 10 // ConsumptionDate after DateCreated (bookings, pre-orders)
	notesPercent     = 3
	placementPercent = 6
	extraCoupon      = 5 // a coupon used with a creative other than a coupon
	cartRefPercent   = 5 // items carry the merchant's cart references
	invoiceEvery     = 50
)

var textLinkNames = []string{"Homepage text link", "Category text link", "Product deep link"}

// transactionState is the progress of the transactions phase, and what the
// Summary and the invoices learn from it.
type transactionState struct {
	r        *rand.Rand
	day      int       // day whose times are loaded; -1 before the first
	dayStart time.Time // midnight of that day
	month    int       // its month, counted from Start's month
	times    []int64   // its creation times, ms after midnight, ascending
	pos      int       // next of times to use
	lastID   int64

	months      int     // calendar months the days touch
	perMerchant []int   // by merchant id - 1
	perMonth    []int   // by (merchant id - 1) * months + month
	midDay      []int   // the mid-sized merchant's transactions per day
	midLookup   []int64 // a transaction of it on each day, with 2+ items if any
	lookupItems int     // items of the loaded day's midLookup

	invoices   map[int64]afftrack.Money // commission paid, by invoice id, of invoiced affiliates
	invoiceIDs []int64                  // the keys of invoices in order, once transactions are done
}

func newTransactionState(g *Generator, r *rand.Rand) *transactionState {
	t := &transactionState{r: r, day: -1, invoices: map[int64]afftrack.Money{}}
	t.months = monthIndex(g.cfg.Start, g.end.Add(-time.Millisecond)) + 1
	t.perMerchant = make([]int, g.cfg.Merchants)
	t.perMonth = make([]int, g.cfg.Merchants*t.months)
	t.midDay = make([]int, g.cfg.Days)
	t.midLookup = make([]int64, g.cfg.Days)
	return t
}

// monthIndex counts the calendar months from start's to t's.
func monthIndex(start, t time.Time) int {
	return (t.Year()-start.Year())*12 + int(t.Month()-start.Month())
}

// spreadOverDays splits n transactions over the days: fewer at weekends,
// more towards the end of the year and on its sales days, and a network
// that grows by a fifth over the period. The counts add up to n exactly.
func spreadOverDays(n int, start time.Time, days int) []int {
	weights := make([]float64, days)
	total := 0.0
	for d := range weights {
		date := start.AddDate(0, 0, d)
		w := 1.0 + 0.2*float64(d)/float64(days)
		switch date.Weekday() {
		case time.Saturday:
			w *= 0.85
		case time.Sunday:
			w *= 0.8
		}
		switch date.Month() {
		case time.January, time.February:
			w *= 0.9
		case time.November:
			w *= 1.25
		case time.December:
			w *= 1.4
		}
		switch {
		case date.Month() == time.November && date.Weekday() == time.Friday && date.Day() >= 22 && date.Day() <= 28:
			w *= 3 // Black Friday
		case date.Month() == time.December && date.Day() == 26:
			w *= 2.5 // Boxing Day
		}
		weights[d] = w
		total += w
	}
	counts := make([]int, days)
	cum, given := 0.0, 0
	for d, w := range weights {
		cum += w
		upTo := int(math.Round(float64(n) * cum / total))
		counts[d] = upTo - given
		given = upTo
	}
	return counts
}

// timeOfDay returns a time within a day, weighted towards the evening.
func timeOfDay(r *rand.Rand) time.Duration {
	h := hours.pick(r)
	return time.Duration(h)*time.Hour + randomMillis(r, time.Hour)
}

var hours = func() weighted[int] {
	vals := make([]int, len(hourWeights))
	for i := range vals {
		vals[i] = i
	}
	return newWeighted(vals, hourWeights)
}()

// loadDay draws the creation times of the next day's transactions.
func (t *transactionState) loadDay(g *Generator) {
	t.day++
	t.dayStart = g.cfg.Start.AddDate(0, 0, t.day)
	t.month = monthIndex(g.cfg.Start, t.dayStart)
	t.times = t.times[:0]
	for range g.dayCounts[t.day] {
		t.times = append(t.times, int64(timeOfDay(t.r)/time.Millisecond))
	}
	slices.Sort(t.times)
	t.pos = 0
	t.lookupItems = 0
}

// emitTransactions emits the transactions in order of creation, so ids
// ascend with DateCreated as they would in a live system.
func (g *Generator) emitTransactions(limit int) (int, bool) {
	t := g.tx
	if cap(g.c.d.Transactions) < limit {
		g.c.d.Transactions = make([]afftrack.TransactionRecord, 0, limit)
		g.c.items = make([]afftrack.TransactionItem, 0, 2*limit)
	}
	g.c.items = g.c.items[:0]
	for len(g.c.d.Transactions) < limit {
		for t.pos == len(t.times) {
			if t.day+1 == g.cfg.Days {
				return len(g.c.d.Transactions), true
			}
			t.loadDay(g)
		}
		g.transaction(t.dayStart.Add(time.Duration(t.times[t.pos]) * time.Millisecond))
		t.pos++
	}
	return len(g.c.d.Transactions), false
}

// transaction appends the next transaction, created at created.
func (g *Generator) transaction(created time.Time) {
	t, r := g.tx, g.tx.r
	rank := min(sort.SearchFloat64s(g.cumShare, r.Float64())+1, len(g.cumShare))
	m := g.merchantOfRank(rank)
	// A merchant's first members send most of its sales.
	u := r.Float64()
	affID := g.member(m, int(float64(m.members)*u*u*u))
	a := &g.affiliates[affID-1]
	t.lastID++

	// The slice has room for the chunk (see emitTransactions): grow it in
	// place rather than copy a large zero record in.
	n := len(g.c.d.Transactions)
	g.c.d.Transactions = g.c.d.Transactions[:n+1]
	g.c.d.Transactions[n] = afftrack.TransactionRecord{}
	x := &g.c.d.Transactions[n].Transaction
	x.ID = t.lastID
	x.MerchantID = m.id
	x.AffiliateID = affID
	x.AffiliateContactName = a.contact
	x.AffiliateBusinessName = a.business
	x.DateCreated = created
	x.ConsumptionDate = created
	if r.IntN(100) < laterConsumption {
		x.ConsumptionDate = created.Add(time.Duration(1+r.IntN(60)) * day)
	}
	x.ValidationDate = created.Add(validateAfter)
	x.TrafficType = a.trafficType
	x.TrafficSource = a.source
	x.TrafficSourceApproved = r.IntN(100) < approvedPercent
	g.creative(x, m, r)
	country := countries.pick(r)
	x.CustomerCountryCode, x.CustomerCountryName = country[0], country[1]
	// The IP address hash and the order id share one allocation.
	var ip [16]byte
	binary.LittleEndian.PutUint64(ip[:8], r.Uint64())
	binary.LittleEndian.PutUint64(ip[8:], r.Uint64())
	var buf [96]byte
	hex.Encode(buf[:32], ip[:])
	b := strconv.AppendInt(append(buf[:32], m.orderPrefix...), x.ID, 10)
	text := string(b)
	x.CustomerIPAddress, x.OrderID = text[:32], text[32:]
	x.CustomerType = afftrack.CustomerTypeReturn
	if r.IntN(100) < newCustomer {
		x.CustomerType = afftrack.CustomerTypeNew
	}
	if r.IntN(100) < notesPercent {
		x.AdditionalNotes = afftrack.Some(additionalNotes[r.IntN(len(additionalNotes))])
	}
	x.TrackingMethod = trackingMethods.pick(r)
	if r.IntN(100) < placementPercent {
		k := r.IntN(len(placementNames))
		x.PlacementID = afftrack.Some(affID*10 + int64(k))
		x.PlacementName = afftrack.Some(placementNames[k])
	}
	g.cart(x, m, r)
	g.lifecycle(x, a, r)

	t.perMerchant[m.id-1]++
	t.perMonth[int(m.id-1)*t.months+t.month]++
	if rank == g.midRank {
		t.midDay[t.day]++
		if t.midLookup[t.day] == 0 || len(x.Items) >= 2 && t.lookupItems < 2 {
			t.midLookup[t.day] = x.ID
			t.lookupItems = len(x.Items)
		}
	}
	g.summary.Transactions++
	g.summary.Items += len(x.Items)
}

// creative sets how the customer came: the creative and any coupon.
func (g *Generator) creative(x *afftrack.Transaction, m *merchant, r *rand.Rand) {
	x.CreativeType = creativeTypes.pick(r)
	switch x.CreativeType {
	case afftrack.CreativeTypeTextLink:
		k := r.IntN(len(textLinkNames))
		x.CreativeID = afftrack.Some(1_000_000 + (m.id-1)*int64(len(textLinkNames)) + int64(k))
		x.CreativeName = afftrack.Some(textLinkNames[k])
	case afftrack.CreativeTypeBanner:
		b := m.banners[r.IntN(len(m.banners))]
		x.CreativeID = afftrack.Some(b.id)
		x.CreativeName = afftrack.Some(b.name)
	case afftrack.CreativeTypeCoupon:
		code := m.coupons[r.IntN(len(m.coupons))]
		x.CreativeName = afftrack.Some(code)
		x.CouponCode = afftrack.Some(code)
	case afftrack.CreativeTypePromotion:
		x.CreativeName = afftrack.Some(promotions[r.IntN(len(promotions))])
	case afftrack.CreativeTypeDataFeed:
		x.CreativeName = afftrack.Some("Product feed")
	}
	if !x.CouponCode.Valid && r.IntN(100) < extraCoupon {
		x.CouponCode = afftrack.Some(m.coupons[r.IntN(len(m.coupons))])
	}
}

// cart fills the items and the amounts, which add up: the sale value is
// the sum of the lines, the commission the sum of theirs.
func (g *Generator) cart(x *afftrack.Transaction, m *merchant, r *rand.Rand) {
	n := itemCounts.pick(r)
	cur := currencies[m.currency]
	x.ReportedCurrencyCode, x.ReportedCurrencyName = cur.code, cur.name
	start := len(g.c.items)
	refs := r.IntN(100) < cartRefPercent
	var sale, reported, commission int64 // in item units (cents)
	for pos := range n {
		// Popular products sell more.
		u := r.Float64()
		p := &m.products[int(float64(len(m.products))*u*u)]
		qty := quantities.pick(r)
		line := int64(p.price) * qty
		if len(g.c.items) == cap(g.c.items) {
			g.c.items = slices.Grow(g.c.items, 1)
		}
		g.c.items = g.c.items[:len(g.c.items)+1]
		it := &g.c.items[len(g.c.items)-1]
		*it = afftrack.TransactionItem{
			Sku: p.sku, Quantity: qty, Name: p.name, Brand: p.brand, Category: p.category,
			SaleValue:         afftrack.ItemMoney(line),
			ReportedSaleValue: afftrack.ItemMoney(mulDiv(line, cur.per10k, 10000)),
			Commission:        afftrack.ItemMoney(mulDiv(line, m.rateBP, 10000)),
		}
		if refs {
			it.CartItemReference = afftrack.Some(x.OrderID + "-" + strconv.Itoa(pos+1))
		}
		sale += int64(it.SaleValue)
		reported += int64(it.ReportedSaleValue)
		commission += int64(it.Commission)
	}
	if n == 0 {
		// A lead or a sale reported without its cart: $10 to $300.
		sale = int64(math.Exp(math.Log(1000) + r.Float64()*math.Log(30))) // cents
		reported = mulDiv(sale, cur.per10k, 10000)
		commission = mulDiv(sale, m.rateBP, 10000)
	}
	x.Items = g.c.items[start:len(g.c.items):len(g.c.items)]
	// Money has two more decimal places than ItemMoney.
	x.SaleValue = afftrack.Money(sale * 100)
	x.ReportedSaleValue = afftrack.Money(reported * 100)
	x.Commission = afftrack.Money(commission * 100)
	if m.overrideFee {
		x.OverrideFee = afftrack.Money(mulDiv(int64(x.Commission), 20, 100))
	}
}

// mulDiv returns v*num/den rounded half up, for v >= 0.
func mulDiv(v, num, den int64) int64 { return (v*num + den/2) / den }

// lifecycle sets the status, its dates and what goes with it, as of the
// end of the generated period: recent transactions are still pending,
// older ones approved and mostly paid, a few voided or amended.
func (g *Generator) lifecycle(x *afftrack.Transaction, a *affiliate, r *rand.Rand) {
	now := g.end
	created := x.DateCreated
	x.DateModified = created
	if r.IntN(100) < voidPercent {
		voided := created.Add(time.Hour + randomMillis(r, 40*day))
		if voided.Before(now) {
			x.Status2 = afftrack.Status2Void
			x.VoidReason = voidReasons.pick(r)
			x.DateModified = voided
			return
		}
	}
	switch paid := paymentDate(x.ValidationDate); {
	case !now.After(created.Add(lockAfter)):
		x.Status2 = afftrack.Status2Pending
	case !now.After(x.ValidationDate):
		x.Status2 = afftrack.Status2Locked
		x.DateModified = created.Add(lockAfter)
	case !paid.Before(now):
		x.Status2 = afftrack.Status2Approved
		x.DateModified = x.ValidationDate
	default:
		x.Status2 = afftrack.Status2Paid
		x.DateModified = paid
		month := monthIndex(g.cfg.Start, x.ValidationDate)
		x.InvoiceID = afftrack.Some(int64(month)*int64(g.cfg.Affiliates) + x.AffiliateID)
		if x.AffiliateID%invoiceEvery == 1%invoiceEvery {
			g.tx.invoices[x.InvoiceID.Value] += x.Commission
		}
	}
	if r.IntN(100) < amendedPercent {
		amended := created.Add(time.Hour + randomMillis(r, 20*day))
		if amended.Before(now) {
			x.AmendedReason = amendedReasons.pick(r)
			if amended.After(x.DateModified) {
				x.DateModified = amended
			}
		}
	}
}

// randomMillis returns a duration below d in whole milliseconds: the
// service keeps datetimes to the millisecond.
func randomMillis(r *rand.Rand, d time.Duration) time.Duration {
	return time.Duration(r.Int64N(int64(d/time.Millisecond))) * time.Millisecond
}

// paymentDate is when commission validated at validated is paid: the
// 15th of the next month, 10:00.
func paymentDate(validated time.Time) time.Time {
	y, m, _ := validated.Date()
	return time.Date(y, m+1, 15, 10, 0, 0, 0, time.UTC)
}

// typicalMonth returns the full calendar month of the merchant with the
// median number of its transactions (the earlier on a tie), its last day
// and that number. Without a full month in the period it returns the
// first month, cut to the period.
func (t *transactionState) typicalMonth(g *Generator, merchantID int64) (first, last time.Time, n int) {
	start := g.cfg.Start
	monthStart := func(k int) time.Time {
		return time.Date(start.Year(), start.Month()+time.Month(k), 1, 0, 0, 0, 0, time.UTC)
	}
	counts := t.perMonth[int(merchantID-1)*t.months : int(merchantID)*t.months]
	var full []int
	for k := range t.months {
		if !monthStart(k).Before(start) && !monthStart(k+1).After(g.end) {
			full = append(full, k)
		}
	}
	if len(full) == 0 {
		end := monthStart(1)
		if g.end.Before(end) {
			end = g.end
		}
		last = end.AddDate(0, 0, -1)
		return start, last, counts[0]
	}
	slices.SortStableFunc(full, func(a, b int) int { return counts[a] - counts[b] })
	k := full[(len(full)-1)/2]
	return monthStart(k), monthStart(k+1).AddDate(0, 0, -1), counts[k]
}

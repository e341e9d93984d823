package generate

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/afftrack/afftrack"
)

// Clicks: percentages of clicks with a trait, and the creatives they come
// through.
const (
	botPercent      = 3  // a known crawler's
	uniqueIDPercent = 30 // the affiliate passed a UniqueId
	clicksPerTx     = 10 // Config.Clicks < 0: this many per transaction
)

var clickCreatives = newWeighted(
	[]afftrack.CreativeType{afftrack.CreativeTypeTextLink, afftrack.CreativeTypeBanner,
		afftrack.CreativeTypeCoupon, afftrack.CreativeTypePromotion},
	[]int{45, 35, 10, 10})

// Coupons and promotions: every merchant has len(merchant.coupons)
// coupons, the second exclusive to its first member, and
// promotionsPerMerchant promotions, open to every Joined affiliate.
const promotionsPerMerchant = 2

func couponID(m *merchant, k int) int64 { return (m.id-1)*2 + int64(k) + 1 }

func promotionID(m *merchant, k int) int64 { return (m.id-1)*promotionsPerMerchant + int64(k) + 1 }

// clickState is the progress of the clicks phase.
type clickState struct {
	r         *rand.Rand
	dayCounts []int
	day       int
	dayStart  time.Time
	times     []int64 // the loaded day's click times, ms after midnight, ascending
	pos       int
	seq       uint64 // clicks emitted so far
}

func newClickState(g *Generator, r *rand.Rand) *clickState {
	return &clickState{r: r, day: -1, dayCounts: spreadOverDays(g.cfg.Clicks, g.cfg.Start, g.cfg.Days)}
}

func (c *clickState) loadDay(g *Generator) {
	c.day++
	c.dayStart = g.cfg.Start.AddDate(0, 0, c.day)
	c.times = c.times[:0]
	for range c.dayCounts[c.day] {
		c.times = append(c.times, int64(timeOfDay(c.r)/time.Millisecond))
	}
	slices.Sort(c.times)
	c.pos = 0
}

// emitClicks emits the clicks in order of time. Their merchants and
// affiliates follow the transactions' skew, so a large merchant's
// affiliates send it most clicks as they send it most sales. A ClickId is
// 128 random bits, as the service's own ids are (afftrack.NewClickID), so
// the clicks' id index has the shape a live network gives it.
func (g *Generator) emitClicks(limit int) (int, bool) {
	c, r := g.clicks, g.clicks.r
	if cap(g.c.d.Clicks) < limit {
		g.c.d.Clicks = make([]afftrack.Click, 0, limit)
	}
	for len(g.c.d.Clicks) < limit {
		for c.pos == len(c.times) {
			if c.day+1 == g.cfg.Days {
				g.summary.Clicks += len(g.c.d.Clicks)
				return len(g.c.d.Clicks), true
			}
			c.loadDay(g)
		}
		at := c.dayStart.Add(time.Duration(c.times[c.pos]) * time.Millisecond)
		c.pos++
		c.seq++

		rank := min(sort.SearchFloat64s(g.cumShare, r.Float64())+1, len(g.cumShare))
		m := g.merchantOfRank(rank)
		u := r.Float64()
		affID := g.member(m, int(float64(m.members)*u*u*u))
		var id [16]byte
		binary.LittleEndian.PutUint64(id[:8], r.Uint64())
		binary.LittleEndian.PutUint64(id[8:], r.Uint64())
		var text [32]byte
		hex.Encode(text[:], id[:])

		n := len(g.c.d.Clicks)
		g.c.d.Clicks = g.c.d.Clicks[:n+1]
		k := &g.c.d.Clicks[n]
		*k = afftrack.Click{ID: string(text[:]), Time: at, MerchantID: m.id, AffiliateID: affID,
			TrafficType: g.affiliates[affID-1].trafficType}
		k.CreativeType = clickCreatives.pick(r)
		switch k.CreativeType {
		case afftrack.CreativeTypeBanner:
			k.CreativeID = afftrack.Some(m.banners[r.IntN(len(m.banners))].id)
		case afftrack.CreativeTypeCoupon:
			k.CreativeID = afftrack.Some(couponID(m, r.IntN(len(m.coupons))))
		case afftrack.CreativeTypePromotion:
			k.CreativeID = afftrack.Some(promotionID(m, r.IntN(promotionsPerMerchant)))
		}
		k.Bot = r.IntN(100) < botPercent
		k.Credited = !k.Bot
		if r.IntN(100) < uniqueIDPercent {
			k.UniqueIDs[0] = "sub" + strconv.Itoa(r.IntN(1000))
		}
	}
	g.summary.Clicks += len(g.c.d.Clicks)
	return len(g.c.d.Clicks), c.seq == uint64(g.cfg.Clicks)
}

// emitCoupons walks the merchants by id (cursor[0]) and each one's
// coupons (cursor[1]): valid all the period, the second exclusive.
func (g *Generator) emitCoupons(limit int) (int, bool) {
	for g.cursor[0] < len(g.merchants) && len(g.c.d.Coupons) < limit {
		m := &g.merchants[g.cursor[0]]
		k := g.cursor[1]
		created := afftrack.Some(g.cfg.Start.AddDate(0, 0, -30))
		cp := afftrack.Coupon{ID: couponID(m, k), MerchantID: m.id, Code: m.coupons[k],
			Description: "Save with " + m.coupons[k] + " at " + m.name,
			StartDate:   afftrack.Some(g.cfg.Start), EndDate: afftrack.Some(g.end.AddDate(0, 0, -1)),
			DateCreated: created, DateModified: created}
		if k == 1 {
			cp.AffiliateID = afftrack.Some(g.member(m, 0))
		}
		g.c.d.Coupons = append(g.c.d.Coupons, cp)
		if g.cursor[1]++; g.cursor[1] == len(m.coupons) {
			g.cursor = [2]int{g.cursor[0] + 1, 0}
		}
	}
	g.summary.Coupons += len(g.c.d.Coupons)
	return len(g.c.d.Coupons), g.cursor[0] == len(g.merchants)
}

// emitPromotions walks the merchants by id (cursor[0]) and each one's
// promotions (cursor[1]).
func (g *Generator) emitPromotions(limit int) (int, bool) {
	for g.cursor[0] < len(g.merchants) && len(g.c.d.Promotions) < limit {
		m := &g.merchants[g.cursor[0]]
		k := g.cursor[1]
		created := afftrack.Some(g.cfg.Start.AddDate(0, 0, -30))
		name := promotions[(int(m.id)+k)%len(promotions)]
		g.c.d.Promotions = append(g.c.d.Promotions, afftrack.Promotion{ID: promotionID(m, k), MerchantID: m.id,
			Description: name + " at " + m.name,
			TargetURL:   "https://www." + m.slug + ".example.com/promo/" + strconv.Itoa(k+1),
			StartDate:   afftrack.Some(g.cfg.Start), EndDate: afftrack.Some(g.end.AddDate(0, 0, -1)),
			DateCreated: created, DateModified: created})
		if g.cursor[1]++; g.cursor[1] == promotionsPerMerchant {
			g.cursor = [2]int{g.cursor[0] + 1, 0}
		}
	}
	g.summary.Promotions += len(g.c.d.Promotions)
	return len(g.c.d.Promotions), g.cursor[0] == len(g.merchants)
}

package generate

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// merchantSkew is the exponent of the merchants' Zipf-like sizes: the
// merchant of rank r gets a share of the transactions proportional to
// 1/r^merchantSkew. With 1,000 merchants the largest has about 13% of
// them, the tenth 1.3%, and half of all merchants share less than 10%.
const merchantSkew = 1.0

// membershipSkew shapes how many affiliates join a merchant: the merchant
// of rank r has members proportional to 1/r^membershipSkew, so large
// programmes are large but not as lopsided as their sales.
const membershipSkew = 0.6

// membershipsPerAffiliate is the mean number of programmes an affiliate
// has joined.
const membershipsPerAffiliate = 2

// productsPerMerchant is the size of each merchant's catalogue.
const productsPerMerchant = 40

// merchant is a generated merchant with what its transactions draw on.
type merchant struct {
	id     int64
	rank   int
	name   string
	slug   string
	status afftrack.AccountStatus

	currency    int   // index in currencies
	rateBP      int64 // commission in basis points of the sale value
	overrideFee bool  // the network charges it a fee on commission
	orderPrefix string
	products    []product
	coupons     []string
	banners     []bannerRef

	// The merchant's members are the affiliates memberOff + j*memberStep
	// (mod the affiliate count, plus 1) for j < members (Joined) and
	// members <= j < members+invited (other statuses): distinct because
	// memberStep is coprime with the affiliate count.
	members, invited      int
	memberOff, memberStep int
}

// product is a line of a merchant's catalogue.
type product struct {
	sku, name, brand, category string
	price                      afftrack.ItemMoney
}

// affiliate is a generated affiliate with what its transactions draw on.
type affiliate struct {
	contact, business string
	status            afftrack.AccountStatus
	gst               bool
	trafficType       afftrack.TrafficType
	source            string
}

// setupMerchants makes every merchant and its catalogue, and ranks them:
// ranks are shuffled over ids so that the largest merchant is not simply
// merchant 1.
func (g *Generator) setupMerchants(r *rand.Rand) {
	n := g.cfg.Merchants
	g.merchants = make([]merchant, n)
	g.byRank = make([]int32, n)
	for i, p := range r.Perm(n) {
		g.byRank[i] = int32(p)
	}
	g.cumShare = make([]float64, n)
	sum := 0.0
	for rank := 1; rank <= n; rank++ {
		sum += math.Pow(float64(rank), -merchantSkew)
		g.cumShare[rank-1] = sum
	}
	for i := range g.cumShare {
		g.cumShare[i] /= sum
	}
	g.midRank = g.chooseMidRank()

	memberWeight := 0.0
	for rank := 1; rank <= n; rank++ {
		memberWeight += math.Pow(float64(rank), -membershipSkew)
	}
	a := g.cfg.Affiliates
	for rank := 1; rank <= n; rank++ {
		m := &g.merchants[g.byRank[rank-1]]
		m.id = int64(g.byRank[rank-1]) + 1
		m.rank = rank
		idx := int(m.id - 1)
		m.name = merchantAdjectives[idx%len(merchantAdjectives)] + " " +
			merchantNouns[(idx/len(merchantAdjectives))%len(merchantNouns)] + " " +
			merchantSuffixes[(idx/len(merchantAdjectives)/len(merchantNouns)+idx)%len(merchantSuffixes)]
		if idx >= len(merchantAdjectives)*len(merchantNouns) {
			m.name += " " + strconv.Itoa(idx/(len(merchantAdjectives)*len(merchantNouns))+1)
		}
		m.slug = slug(m.name) + strconv.FormatInt(m.id, 10)
		m.status = afftrack.AccountActive
		// The largest tenth and the benchmark's merchants stay active; of
		// the others a few are suspended or closed, as in a real network.
		if rank > max(1, n/10) && rank != g.midRank {
			switch x := r.IntN(100); {
			case x < 2:
				m.status = afftrack.AccountSuspended
			case x < 3:
				m.status = afftrack.AccountClosed
			}
		}
		m.currency = pickCurrency(r)
		m.rateBP = int64(300 + r.IntN(13)*50) // 3% to 9%
		m.overrideFee = r.IntN(10) < 3
		m.orderPrefix = strings.ToUpper(m.slug[:min(3, len(m.slug))]) + strconv.FormatInt(m.id, 10) + "-"
		m.products = makeProducts(r, m)
		m.coupons = []string{
			couponWords[r.IntN(len(couponWords))] + strconv.Itoa(5+5*r.IntN(6)),
			couponWords[r.IntN(len(couponWords))] + strconv.Itoa(10+r.IntN(90)),
		}
		if m.coupons[1] == m.coupons[0] { // a merchant's codes are distinct
			m.coupons[1] += "X"
		}

		members := int(math.Round(membershipsPerAffiliate * float64(a) * math.Pow(float64(rank), -membershipSkew) / memberWeight))
		m.members = min(max(members, 1), a)
		m.invited = min(m.members/8, a-m.members)
		m.memberOff = r.IntN(a)
		m.memberStep = coprimeStep(r, a)
	}
}

// chooseMidRank returns the rank, other than the first, whose expected
// mean daily volume is nearest MidDaily.
func (g *Generator) chooseMidRank() int {
	if len(g.cumShare) == 1 {
		return 1
	}
	daily := func(rank int) float64 {
		share := g.cumShare[rank-1]
		if rank > 1 {
			share -= g.cumShare[rank-2]
		}
		return share * float64(g.cfg.Transactions) / float64(g.cfg.Days)
	}
	best := 2
	for rank := 3; rank <= len(g.cumShare); rank++ {
		if math.Abs(daily(rank)-float64(g.cfg.MidDaily)) < math.Abs(daily(best)-float64(g.cfg.MidDaily)) {
			best = rank
		}
	}
	return best
}

// merchantOfRank returns the merchant of rank 1 (the largest) to
// Merchants (the smallest).
func (g *Generator) merchantOfRank(rank int) *merchant { return &g.merchants[g.byRank[rank-1]] }

func pickCurrency(r *rand.Rand) int {
	n := r.IntN(100)
	for i, c := range currencies {
		if n < c.weight {
			return i
		}
		n -= c.weight
	}
	return 0
}

// makeProducts returns a merchant's catalogue: a few brands, two or three
// categories, prices from a few dollars to a few hundred.
func makeProducts(r *rand.Rand, m *merchant) []product {
	brands := make([]string, 1+r.IntN(4))
	for i := range brands {
		brands[i] = brandWords[r.IntN(len(brandWords))]
	}
	cats := make([]int, 2+r.IntN(2))
	for i := range cats {
		cats[i] = r.IntN(len(categories))
	}
	ps := make([]product, productsPerMerchant)
	for i := range ps {
		c := categories[cats[r.IntN(len(cats))]]
		// Log-uniform between $4 and $400, ending in .95 or .00.
		dollars := int64(math.Exp(math.Log(4) + r.Float64()*math.Log(100)))
		cents := int64(0)
		if r.IntN(2) == 0 {
			cents = 95
		}
		ps[i] = product{
			sku:      m.orderPrefix + "P" + strconv.Itoa(1000+i),
			name:     productAdjectives[r.IntN(len(productAdjectives))] + " " + c.nouns[r.IntN(len(c.nouns))],
			brand:    brands[r.IntN(len(brands))],
			category: c.name,
			price:    afftrack.ItemMoney(dollars*100 + cents),
		}
	}
	return ps
}

// coprimeStep returns a step in [1, n) coprime with n (1 when n < 3), so
// that off + j*step mod n visits n distinct values.
func coprimeStep(r *rand.Rand, n int) int {
	if n < 3 {
		return 1
	}
	for {
		if s := 1 + r.IntN(n-1); gcd(s, n) == 1 {
			return s
		}
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// slug returns s in lower case with only its ASCII letters and digits.
func slug(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// setupAffiliates makes every affiliate: names, GST registration and the
// one traffic source it sends customers from.
func (g *Generator) setupAffiliates(r *rand.Rand) {
	g.affiliates = make([]affiliate, g.cfg.Affiliates)
	for i := range g.affiliates {
		a := &g.affiliates[i]
		id := strconv.Itoa(i + 1)
		first, last := firstNames[r.IntN(len(firstNames))], lastNames[r.IntN(len(lastNames))]
		a.contact = first + " " + last
		switch x := r.IntN(10); {
		case x < 5:
			a.business = last + " " + businessWords[r.IntN(len(businessWords))]
		case x < 7:
			a.business = merchantAdjectives[r.IntN(len(merchantAdjectives))] + " " + businessWords[r.IntN(len(businessWords))]
		case x < 8:
			a.business = first + " " + last + " Pty Ltd"
		}
		a.status = afftrack.AccountActive
		switch x := r.IntN(100); {
		case x < 2:
			a.status = afftrack.AccountSuspended
		case x < 3:
			a.status = afftrack.AccountClosed
		}
		a.gst = r.IntN(10) < 4
		a.trafficType = trafficTypes.pick(r)
		name := slug(a.business)
		if name == "" {
			name = slug(a.contact)
		}
		name += id
		switch a.trafficType {
		case afftrack.TrafficTypeWebsite:
			a.source = "https://www." + name + ".example.net/"
		case afftrack.TrafficTypeEmailList:
			a.source = "newsletter:" + name
		case afftrack.TrafficTypeSocialMediaPage:
			a.source = "https://social.example.com/" + name
		case afftrack.TrafficTypeSearch:
			a.source = "https://search.example.com/ads/" + name
		case afftrack.TrafficTypeMobileApp:
			a.source = "app:com.example." + name
		default:
			a.source = "offline:" + name
		}
	}
}

func (g *Generator) emitMerchants(limit int) (int, bool) {
	for g.cursor[0] < len(g.merchants) && len(g.c.d.Merchants) < limit {
		m := &g.merchants[g.cursor[0]]
		g.cursor[0]++
		g.c.d.Merchants = append(g.c.d.Merchants, afftrack.MerchantRecord{
			Merchant: afftrack.Merchant{
				ID: m.id, Name: m.name, Status: m.status, RateLimit: unlimited,
				AvatarURL: "https://cdn.example.com/avatars/" + strconv.FormatInt(m.id, 10) + ".png",
			},
			APIKeys: []string{MerchantKey(m.id)},
			// Every account and membership dates from the network's
			// start, not the import's now: the same flags give the same
			// data, and nobody joins after their first sale.
			DateCreated: g.since(), DateModified: g.since(),
		})
	}
	g.summary.Merchants += len(g.c.d.Merchants)
	return len(g.c.d.Merchants), g.cursor[0] == len(g.merchants)
}

func (g *Generator) emitAffiliates(limit int) (int, bool) {
	for g.cursor[0] < len(g.affiliates) && len(g.c.d.Affiliates) < limit {
		a := &g.affiliates[g.cursor[0]]
		g.cursor[0]++
		id := int64(g.cursor[0])
		g.c.d.Affiliates = append(g.c.d.Affiliates, afftrack.AffiliateRecord{
			Affiliate: afftrack.Affiliate{
				ID: id, ContactName: a.contact, BusinessName: a.business, Status: a.status,
				GSTRegistered: a.gst, RateLimit: unlimited,
			},
			APIKeys:     []string{AffiliateKey(id)},
			DateCreated: g.since(), DateModified: g.since(),
		})
	}
	g.summary.Affiliates += len(g.c.d.Affiliates)
	return len(g.c.d.Affiliates), g.cursor[0] == len(g.affiliates)
}

// memberStatuses are the statuses of the affiliates a merchant has invited
// or that have asked to join, who send it no transactions.
var memberStatuses = []afftrack.MembershipStatus{
	afftrack.MembershipInvited, afftrack.MembershipPending, afftrack.MembershipNotJoined,
}

// emitMemberships walks the merchants by id (cursor[0]) and each one's
// members (cursor[1]).
func (g *Generator) emitMemberships(limit int) (int, bool) {
	for g.cursor[0] < len(g.merchants) && len(g.c.d.Memberships) < limit {
		m := &g.merchants[g.cursor[0]]
		j := g.cursor[1]
		status := afftrack.MembershipJoined
		if j >= m.members {
			status = memberStatuses[j%len(memberStatuses)]
		}
		ms := afftrack.Membership{AffiliateID: g.member(m, j), MerchantID: m.id, Status: status, DateModified: g.since()}
		if status != afftrack.MembershipInvited {
			ms.DateApplied = g.since()
		}
		if status == afftrack.MembershipJoined {
			ms.DateApproved = g.since()
		}
		g.c.d.Memberships = append(g.c.d.Memberships, ms)
		if g.cursor[1]++; g.cursor[1] == m.members+m.invited {
			g.cursor = [2]int{g.cursor[0] + 1, 0}
		}
	}
	g.summary.Memberships += len(g.c.d.Memberships)
	return len(g.c.d.Memberships), g.cursor[0] == len(g.merchants)
}

// since is the network's start, a day before the first transaction's, as
// a record's date.
func (g *Generator) since() afftrack.Null[time.Time] {
	return afftrack.Some(g.cfg.Start.AddDate(0, 0, -1))
}

// member returns the id of the merchant's j-th member: Joined when j <
// m.members.
func (g *Generator) member(m *merchant, j int) int64 {
	return int64((m.memberOff+j*m.memberStep)%g.cfg.Affiliates) + 1
}

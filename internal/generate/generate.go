// Package generate makes realistic afftrack networks of any size, for load
// tests and benchmarks: merchants whose sizes follow a Zipf-like skew (a
// few very large, most small), affiliates who join them, a year of
// transactions with carts of 0 to 5 items, banners and invoices, coupons
// and promotions, and clicks, about ten for each transaction.
//
// It is deterministic: one Config, seed included, always gives the same
// records, so a benchmark can name its targets (the largest merchant, a
// day with about a hundred transactions of a mid-sized one) without
// reading the database back.
//
// Records come in chunks, afftrack.Dataset values of at most ChunkSize
// records each, so a million transactions never sit in memory at once and
// each chunk can be imported as one database transaction.
package generate

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/afftrack/afftrack"
)

// Config sizes a generated network.
type Config struct {
	Transactions int
	// Clicks is the number of clicks; negative is ten per transaction.
	Clicks     int
	Merchants  int
	Affiliates int
	Seed       uint64

	// Start is the first day of the transactions, at midnight; Days is how
	// many days they span. Start+Days is the generated network's "now":
	// statuses, modification dates and payments never pass it.
	Start time.Time
	Days  int

	// ChunkSize is the most records a Dataset from Next holds.
	ChunkSize int

	// MidDaily is the daily volume the Summary's mid-sized merchant is
	// chosen for: the benchmark's "one-day list" target.
	MidDaily int
}

// DefaultConfig returns the network of the load benchmark: a million
// transactions and ten million clicks of 1,000 merchants and 50,000
// affiliates over 2024.
func DefaultConfig() Config {
	return Config{
		Transactions: 1_000_000,
		Clicks:       -1,
		Merchants:    1_000,
		Affiliates:   50_000,
		Seed:         1,
		Start:        time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
		Days:         366,
		ChunkSize:    25_000,
		MidDaily:     100,
	}
}

func (c Config) validate() error {
	switch {
	case c.Transactions < 0:
		return fmt.Errorf("generate: transactions must not be negative, got %d", c.Transactions)
	case c.Merchants < 1:
		return fmt.Errorf("generate: there must be at least one merchant, got %d", c.Merchants)
	case c.Affiliates < 1:
		return fmt.Errorf("generate: there must be at least one affiliate, got %d", c.Affiliates)
	case c.Days < 1:
		return fmt.Errorf("generate: days must be at least 1, got %d", c.Days)
	case c.ChunkSize < 1:
		return fmt.Errorf("generate: the chunk size must be at least 1, got %d", c.ChunkSize)
	case c.MidDaily < 1:
		return fmt.Errorf("generate: the mid-sized merchant's daily volume must be at least 1, got %d", c.MidDaily)
	case c.Start.IsZero():
		return fmt.Errorf("generate: a start date is required")
	}
	return nil
}

// MerchantKey is the API key every generated merchant has.
func MerchantKey(id int64) string { return "gen-merchant-" + strconv.FormatInt(id, 10) + "-key" }

// AffiliateKey is the API key every generated affiliate has.
func AffiliateKey(id int64) string { return "gen-affiliate-" + strconv.FormatInt(id, 10) + "-key" }

// unlimited is every generated account's own rate limit: none, so load
// runs are never refused.
var unlimited = afftrack.RateLimit{
	PerMinute: afftrack.Some[int64](0), PerDay: afftrack.Some[int64](0), Concurrent: afftrack.Some[int64](0),
}

// phase is the collection a Generator is emitting. Each chunk holds one
// collection, in the order an import needs: accounts before what refers
// to them.
type phase int

const (
	phaseMerchants phase = iota
	phaseBanners
	phaseAffiliates
	phaseMemberships
	phaseCoupons
	phasePromotions
	phaseTransactions
	phaseInvoices
	phaseClicks
	phaseDone
)

// Random streams: each collection draws from its own, so a change to how
// one is generated does not reshuffle the others.
const (
	streamMerchants uint64 = iota + 1
	streamAffiliates
	streamBanners
	streamTransactions
	streamClicks
)

// Generator emits one network, chunk by chunk. It is not safe for
// concurrent use.
type Generator struct {
	cfg Config
	end time.Time // Start + Days

	merchants  []merchant  // by id - 1
	byRank     []int32     // merchant index of each rank - 1, largest first
	cumShare   []float64   // cumulative transaction share by rank
	affiliates []affiliate // by id - 1
	dayCounts  []int       // transactions created on each day
	midRank    int         // rank of the Summary's mid-sized merchant
	bannerRand *rand.Rand

	phase  phase
	cursor [2]int   // position within the phase's records
	chunks [2]chunk // used in turn, so one can be imported while the other is filled
	c      *chunk   // the chunk being filled

	tx      *transactionState
	clicks  *clickState
	summary Summary
}

// New returns a Generator for cfg. Setting up its merchants, products and
// affiliates takes a fraction of a second for the default sizes.
func New(cfg Config) (*Generator, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	y, m, d := cfg.Start.Date()
	cfg.Start = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if cfg.Clicks < 0 {
		cfg.Clicks = clicksPerTx * cfg.Transactions
	}
	g := &Generator{cfg: cfg, end: cfg.Start.AddDate(0, 0, cfg.Days)}
	g.setupMerchants(newRand(cfg.Seed, streamMerchants))
	g.setupAffiliates(newRand(cfg.Seed, streamAffiliates))
	g.setupBanners(newRand(cfg.Seed, streamBanners))
	g.dayCounts = spreadOverDays(cfg.Transactions, cfg.Start, cfg.Days)
	g.tx = newTransactionState(g, newRand(cfg.Seed, streamTransactions))
	g.clicks = newClickState(g, newRand(cfg.Seed, streamClicks))
	return g, nil
}

func newRand(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// Config returns the generator's configuration, Start cut to midnight.
func (g *Generator) Config() Config { return g.cfg }

// Next returns the next chunk: records of one collection, at most
// ChunkSize of them, in the order merchants, banners, affiliates,
// memberships, coupons, promotions, transactions, invoices, clicks. It returns nil when the network is
// complete.
//
// The memory of a Dataset (its slices, the transactions' Items) is reused
// by the call after the next one. So a caller may import one chunk while
// another goroutine generates the next, but must be done with a chunk, or
// copy it, before asking for the second after it.
func (g *Generator) Next() *afftrack.Dataset {
	if g.c == &g.chunks[0] {
		g.c = &g.chunks[1]
	} else {
		g.c = &g.chunks[0]
	}
	d := &g.c.d
	*d = afftrack.Dataset{
		Merchants: d.Merchants[:0], Affiliates: d.Affiliates[:0], Memberships: d.Memberships[:0],
		Transactions: d.Transactions[:0], Banners: d.Banners[:0], Invoices: d.Invoices[:0],
		Coupons: d.Coupons[:0], Promotions: d.Promotions[:0], Clicks: d.Clicks[:0],
	}
	for g.phase < phaseDone {
		var n int
		var done bool
		switch g.phase {
		case phaseMerchants:
			n, done = g.emitMerchants(g.cfg.ChunkSize)
		case phaseBanners:
			n, done = g.emitBanners(g.cfg.ChunkSize)
		case phaseAffiliates:
			n, done = g.emitAffiliates(g.cfg.ChunkSize)
		case phaseMemberships:
			n, done = g.emitMemberships(g.cfg.ChunkSize)
		case phaseTransactions:
			n, done = g.emitTransactions(g.cfg.ChunkSize)
		case phaseInvoices:
			n, done = g.emitInvoices(g.cfg.ChunkSize)
		case phaseCoupons:
			n, done = g.emitCoupons(g.cfg.ChunkSize)
		case phasePromotions:
			n, done = g.emitPromotions(g.cfg.ChunkSize)
		case phaseClicks:
			n, done = g.emitClicks(g.cfg.ChunkSize)
		}
		if done {
			g.phase++
			g.cursor = [2]int{}
		}
		if n > 0 {
			return d
		}
	}
	return nil
}

// chunk is the memory of one Dataset that Next hands out.
type chunk struct {
	d     afftrack.Dataset
	items []afftrack.TransactionItem // backing array of the transactions' carts
}

// Summary describes the network generated so far; once Next has returned
// nil it describes the whole network, and names the benchmark's targets.
type Summary struct {
	Merchants, Affiliates, Memberships, Transactions, Items, Banners, Invoices int
	Coupons, Promotions, Clicks                                                int

	// Largest is the merchant with the most transactions, and Month a
	// calendar month of its (the full month of median volume), for the
	// "one-month list" target.
	Largest           MerchantLoad
	Month             time.Time // first day of the month
	MonthEnd          time.Time // last day of the month
	MonthTransactions int

	// Mid is the merchant whose mean daily volume is nearest
	// Config.MidDaily, other than Largest, and Day its day nearest that
	// volume, for the "one-day list" target.
	Mid             MerchantLoad
	Day             time.Time
	DayTransactions int

	// LookupID is a transaction of Mid created on Day, with two or more
	// items where there is one, for the "lookup by id" target.
	LookupID int64
}

// MerchantLoad is a merchant, its key and its number of transactions.
type MerchantLoad struct {
	ID           int64
	Key          string
	Transactions int
}

// Summary returns what has been generated so far. See the type.
func (g *Generator) Summary() Summary {
	s := g.summary
	t := g.tx
	largest := g.merchantOfRank(1)
	s.Largest = MerchantLoad{ID: largest.id, Key: MerchantKey(largest.id), Transactions: t.perMerchant[largest.id-1]}
	for i, n := range t.perMerchant {
		if n > s.Largest.Transactions {
			s.Largest = MerchantLoad{ID: int64(i + 1), Key: MerchantKey(int64(i + 1)), Transactions: n}
		}
	}
	s.Month, s.MonthEnd, s.MonthTransactions = t.typicalMonth(g, s.Largest.ID)
	mid := g.merchantOfRank(g.midRank)
	s.Mid = MerchantLoad{ID: mid.id, Key: MerchantKey(mid.id), Transactions: t.perMerchant[mid.id-1]}
	day := 0
	for d, n := range t.midDay {
		if abs(n-g.cfg.MidDaily) < abs(t.midDay[day]-g.cfg.MidDaily) {
			day = d
		}
	}
	s.Day = g.cfg.Start.AddDate(0, 0, day)
	s.DayTransactions = t.midDay[day]
	s.LookupID = t.midLookup[day]
	return s
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

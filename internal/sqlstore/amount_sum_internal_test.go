package sqlstore

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/afftrack/afftrack"
)

// TestAmountSum checks the 128-bit sum, and the part-sums of sumAmount
// put back together, against math/big on random amounts of every size.
func TestAmountSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edges := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, 1 << 32, -(1 << 32), 1<<32 - 1}
	for round := range 2000 {
		n := 1 + rng.IntN(8)
		var direct, parts amountSum
		var partHi, partLo int64
		exact := new(big.Int)
		for range n {
			var v int64
			switch rng.IntN(3) {
			case 0:
				v = edges[rng.IntN(len(edges))]
			case 1:
				v = int64(rng.Uint64())
			default:
				v = rng.Int64N(2_000_000) - 1_000_000
			}
			direct.add(v)
			partHi += v >> 32
			partLo += v & 4294967295
			exact.Add(exact, big.NewInt(v))
		}
		parts.addParts(partHi, partLo)
		wantOK := exact.IsInt64()
		var want afftrack.Money
		if wantOK {
			want = afftrack.Money(exact.Int64())
		}
		for name, s := range map[string]amountSum{"added": direct, "from parts": parts} {
			got, ok := s.money()
			if ok != wantOK || got != want {
				t.Fatalf("round %d, %s: (%s, %v), want (%s, %v) for the sum %s", round, name, got, ok, want, wantOK, exact)
			}
		}
	}
}

package api

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/afftrack/afftrack"
)

// numberCases are the values where decimal formatting goes wrong if it
// does: both sides of every power of ten, the extremes, and random values
// of every magnitude.
func numberCases() []int64 {
	cases := []int64{0, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	for p := int64(1); p <= 1e18; p *= 10 {
		cases = append(cases, p-1, p, p+1, -p+1, -p, -p-1)
	}
	rng := rand.New(rand.NewPCG(13, 14))
	for range 5000 {
		v := rng.Int64() >> rng.IntN(63)
		if rng.IntN(2) == 0 {
			v = -v
		}
		cases = append(cases, v)
	}
	return cases
}

func TestAppendIntAgreesWithStrconv(t *testing.T) {
	for _, v := range numberCases() {
		if got, want := string(appendInt([]byte("x"), v)), "x"+strconv.FormatInt(v, 10); got != want {
			t.Fatalf("appendInt(%d) = %q, want %q", v, got, want)
		}
	}
	for _, u := range []uint64{math.MaxUint64, 1e19, 1e19 - 1, 1<<63 + 1} {
		if got, want := string(appendUint(nil, u)), strconv.FormatUint(u, 10); got != want {
			t.Errorf("appendUint(%d) = %q, want %q", u, got, want)
		}
	}
}

func TestAppendMoneyAgreesWithAppendFixed(t *testing.T) {
	for _, v := range numberCases() {
		got := string(appendMoney([]byte("x"), afftrack.Money(v)))
		if want := "x" + string(afftrack.AppendFixed(nil, v, afftrack.MoneyScale)); got != want {
			t.Fatalf("appendMoney(%d) = %q, want %q", v, got, want)
		}
		got = string(appendItemMoney([]byte("x"), afftrack.ItemMoney(v)))
		if want := "x" + string(afftrack.AppendFixed(nil, v, afftrack.ItemMoneyScale)); got != want {
			t.Fatalf("appendItemMoney(%d) = %q, want %q", v, got, want)
		}
	}
}

func TestFormattersGrowAFullBuffer(t *testing.T) {
	// A buffer with no spare capacity makes every formatter take its
	// growing path; what was in the buffer must survive it.
	full := func() []byte { return []byte("keep")[:4:4] }
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"an integer", appendInt(full(), -1234567), "keep-1234567"},
		{"an amount", appendMoney(full(), -12345678), "keep-1234.5678"},
		{"an item amount", appendItemMoney(full(), 5), "keep0.05"},
		{"a datetime", appendDateTime(full(), dt("2024-02-29T01:02:03.004")), "keep2024-02-29T01:02:03.004"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" keeps the bytes before it", func(t *testing.T) {
			if string(tt.got) != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

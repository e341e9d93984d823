package importfile

import (
	"runtime"
	"testing"
)

func TestSeenFindsEveryKeyAtItsPosition(t *testing.T) {
	// Past several growths of the slots and several blocks of keys.
	const n = 3*seenBlock + 17
	var s seen[[2]int64]
	for i := range int64(n) {
		if first, dup := s.add([2]int64{i * 7919, -i}); dup {
			t.Fatalf("key %d is also at %d", i, first)
		}
	}
	for _, i := range []int32{0, 1, seenBlock - 1, seenBlock, 2*seenBlock + 5, n - 1} {
		first, dup := s.add([2]int64{int64(i) * 7919, -int64(i)})
		if !dup || first != i {
			t.Errorf("key of %d given again: (%d, %t), want (%d, true)", i, first, dup, i)
		}
	}
	if s.n != n {
		t.Errorf("%d keys held, want %d: a duplicate is not added", s.n, n)
	}
}

// TestSeenCostsAbout15BytesAnId: what the docs promise for a file of
// many small records, measured as the live heap, not as time.
func TestSeenCostsAbout15BytesAnId(t *testing.T) {
	const n = 1_000_000
	live := LiveHeap
	before := live()
	var s seen[int64]
	for i := range int64(n) {
		s.add(i * 104729)
	}
	perID := float64(live()-before) / n
	runtime.KeepAlive(&s)
	if perID > 20 {
		t.Errorf("%.1f bytes an id, want about 15", perID)
	}
	t.Logf("%.1f bytes an id", perID)
}

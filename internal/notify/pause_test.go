package notify

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPauses(t *testing.T) {
	t0 := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	wait := func(strikes int) time.Duration { return backoff(time.Minute, strikes, 0.5) }
	sorted := func(ids []int64) []int64 { slices.Sort(ids); return ids }

	t.Run("a slow failure pauses its affiliate for the first retry's wait", func(t *testing.T) {
		p := newPauses()
		p.slow(7, t0, wait)
		if diff := cmp.Diff([]int64{7}, p.active(t0.Add(59*time.Second), time.Hour)); diff != "" {
			t.Errorf("paused (-want +got):\n%s", diff)
		}
		if got := p.active(t0.Add(61*time.Second), time.Hour); len(got) != 0 {
			t.Errorf("paused after the wait: %v, want none", got)
		}
	})
	t.Run("slow failures in a row double the pause", func(t *testing.T) {
		p := newPauses()
		p.slow(7, t0, wait)
		p.slow(7, t0, wait)
		if got := p.active(t0.Add(119*time.Second), time.Hour); len(got) != 1 {
			t.Errorf("paused after 119 s of a second pause: %v, want [7]", got)
		}
	})
	t.Run("a delivery ends the pause and the count", func(t *testing.T) {
		p := newPauses()
		p.slow(7, t0, wait)
		p.slow(7, t0, wait)
		p.delivered(7)
		if got := p.active(t0, time.Hour); len(got) != 0 {
			t.Errorf("paused after a delivery: %v", got)
		}
		p.slow(7, t0, wait)
		if got := p.active(t0.Add(61*time.Second), time.Hour); len(got) != 0 {
			t.Errorf("the count survived a delivery: paused %v after the first wait", got)
		}
	})
	t.Run("an affiliate long out of its pause is forgotten", func(t *testing.T) {
		p := newPauses()
		p.slow(7, t0, wait)
		p.slow(8, t0.Add(2*time.Hour), wait)
		if diff := cmp.Diff([]int64{8}, p.active(t0.Add(2*time.Hour), time.Hour)); diff != "" {
			t.Errorf("paused (-want +got):\n%s", diff)
		}
		if _, kept := p.by[7]; kept {
			t.Errorf("affiliate 7 kept an hour after its pause ended")
		}
	})
	t.Run("no more than maxPaused are left out, the latest-ending first", func(t *testing.T) {
		p := newPauses()
		for a := range int64(maxPaused + 2) {
			p.slow(a+1, t0.Add(time.Duration(a)*time.Millisecond), wait)
		}
		got := sorted(p.active(t0.Add(time.Second), time.Hour))
		if len(got) != maxPaused || got[0] != 3 {
			t.Errorf("%d paused from %d, want %d from 3", len(got), got[0], maxPaused)
		}
	})
}

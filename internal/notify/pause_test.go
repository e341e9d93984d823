package notify

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPauses(t *testing.T) {
	t0 := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	wait := func(strikes int) time.Duration { return backoff(time.Minute, strikes, 0.5) }
	// An event is a slow failure of an affiliate's call at t0 plus at,
	// or with delivered its delivery.
	type event struct {
		affiliate int64
		at        time.Duration
		delivered bool
	}
	for _, tt := range []struct {
		name   string
		events []event
		ask    time.Duration // active at t0 plus this
		want   []int64
	}{
		{"a slow failure pauses its affiliate for the first retry's wait",
			[]event{{affiliate: 7}}, 59 * time.Second, []int64{7}},
		{"the pause ends after the wait",
			[]event{{affiliate: 7}}, 61 * time.Second, nil},
		{"slow failures in a row double the pause",
			[]event{{affiliate: 7}, {affiliate: 7}}, 119 * time.Second, []int64{7}},
		{"a delivery ends the pause",
			[]event{{affiliate: 7}, {affiliate: 7}, {affiliate: 7, delivered: true}}, 0, nil},
		{"a delivery starts the doubling over",
			[]event{{affiliate: 7}, {affiliate: 7}, {affiliate: 7, delivered: true}, {affiliate: 7}}, 61 * time.Second, nil},
		{"affiliates are paused apart",
			[]event{{affiliate: 7}, {affiliate: 8, at: 30 * time.Second}}, 61 * time.Second, []int64{8}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newPauses()
			for _, e := range tt.events {
				if e.delivered {
					p.delivered(e.affiliate)
				} else {
					p.slow(e.affiliate, t0.Add(e.at), wait)
				}
			}
			got := p.active(t0.Add(tt.ask), time.Hour)
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("paused (-want +got):\n%s", diff)
			}
		})
	}
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
		got := p.active(t0.Add(time.Second), time.Hour)
		slices.Sort(got)
		if len(got) != maxPaused || got[0] != 3 {
			t.Errorf("%d paused from %d, want %d from 3", len(got), got[0], maxPaused)
		}
	})
}

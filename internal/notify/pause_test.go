package notify

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestPauses(t *testing.T) {
	t0 := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	wait := func(strikes int) time.Duration { return backoff(time.Minute, strikes, 0.5) }
	const a, b = "a.example:80", "b.example:443"
	// An event is a slow failure of a call to host at t0 plus at, or with
	// delivered a delivery to it.
	type event struct {
		host      string
		at        time.Duration
		delivered bool
	}
	for _, tt := range []struct {
		name      string
		events    []event
		host      string
		ask       time.Duration // pausedUntil at t0 plus this
		wantUntil time.Duration // from t0; 0 for not paused
	}{
		{"a slow failure pauses its receiver for the first retry's wait",
			[]event{{host: a}}, a, 59 * time.Second, time.Minute},
		{"the pause ends after the wait",
			[]event{{host: a}}, a, 61 * time.Second, 0},
		{"failures of one round, while paused, do not lengthen the pause",
			[]event{{host: a}, {host: a, at: time.Second}}, a, 0, time.Minute},
		{"a slow failure after the pause doubles it",
			[]event{{host: a}, {host: a, at: time.Minute}}, a, time.Minute, 3 * time.Minute},
		{"a delivery ends the pause",
			[]event{{host: a}, {host: a, delivered: true}}, a, 0, 0},
		{"a delivery starts the doubling over",
			[]event{{host: a}, {host: a, at: time.Minute}, {host: a, delivered: true}, {host: a, at: 3 * time.Minute}},
			a, 3 * time.Minute, 4 * time.Minute},
		{"receivers are paused apart",
			[]event{{host: a}}, b, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newPauses()
			for _, e := range tt.events {
				if e.delivered {
					p.delivered(e.host)
				} else {
					p.slow(e.host, t0.Add(e.at), wait)
				}
			}
			until, paused := p.pausedUntil(tt.host, t0.Add(tt.ask))
			if want := tt.wantUntil != 0; paused != want || (want && !until.Equal(t0.Add(tt.wantUntil))) {
				t.Errorf("pausedUntil = %v, %v; want paused %v until t0+%v", until.Sub(t0), paused, want, tt.wantUntil)
			}
		})
	}
	t.Run("no more than maxPaused are left out of a claim, the latest-ending first", func(t *testing.T) {
		p := newPauses()
		for i := range maxPaused + 2 {
			p.slow(fmt.Sprintf("h%04d.example", i), t0.Add(time.Duration(i)*time.Millisecond), wait)
		}
		got := p.active(t0.Add(time.Second))
		slices.Sort(got)
		if len(got) != maxPaused || got[0] != "h0002.example" {
			t.Errorf("%d paused from %s, want %d from h0002.example", len(got), got[0], maxPaused)
		}
	})
	t.Run("a receiver long out of its pause is forgotten", func(t *testing.T) {
		p := newPauses()
		p.slow(a, t0, wait)
		p.slow(b, t0.Add(2*time.Hour), wait)
		p.prune(t0.Add(2*time.Hour), time.Hour)
		if _, kept := p.by[a]; kept {
			t.Errorf("%s kept an hour after its pause ended", a)
		}
		if _, kept := p.by[b]; !kept {
			t.Errorf("%s, paused, was forgotten", b)
		}
	})
}

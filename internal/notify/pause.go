package notify

import (
	"slices"
	"sync"
	"time"
)

// maxPaused bounds how many paused affiliates a claim leaves out, and so
// the claim's parameters: past it the pauses that end soonest are not
// applied, and those affiliates' notifications are claimed as before.
const maxPaused = 1000

// pauses keeps the affiliates whose receivers held a call slot until the
// call failed slowly (a timeout, a receiver answering a byte at a time).
// Such an affiliate's notifications, old and new, wait out a pause that
// doubles with each slow failure in a row, as one notification's retries
// do: without it, every notification of a receiver that hangs (and a
// keyless pixel lets anyone make many) holds a slot for a whole timeout,
// and the notifications of affiliates whose receivers answer wait behind
// all of them. A delivery ends an affiliate's pause and its count; a
// fast failure (a refused connection, an error status) changes neither,
// as it holds no slot for long.
//
// Pauses are each deliverer's own, kept in memory: a replica, or a
// restart, learns of a slow receiver from its own first call.
type pauses struct {
	mu sync.Mutex
	by map[int64]pause
}

// pause is one affiliate's: until when, after how many slow failures in
// a row.
type pause struct {
	until   time.Time
	strikes int
}

func newPauses() *pauses { return &pauses{by: map[int64]pause{}} }

// slow records a slow failure of affiliate's receiver at now; the pause
// it starts is wait(strikes) long.
func (p *pauses) slow(affiliate int64, now time.Time, wait func(strikes int) time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.by[affiliate]
	e.strikes++
	e.until = now.Add(wait(e.strikes))
	p.by[affiliate] = e
}

// delivered ends affiliate's pause and forgets its slow failures.
func (p *pauses) delivered(affiliate int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.by, affiliate)
}

// active returns the affiliates paused at now, the latest-ending first,
// at most maxPaused of them. An affiliate whose pause ended more than
// forget ago is forgotten, so the map holds only receivers slow of late.
func (p *pauses) active(now time.Time, forget time.Duration) []int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	type paused struct {
		affiliate int64
		until     time.Time
	}
	var out []paused
	for a, e := range p.by {
		switch {
		case e.until.After(now):
			out = append(out, paused{a, e.until})
		case now.Sub(e.until) > forget:
			delete(p.by, a)
		}
	}
	if len(out) > maxPaused {
		slices.SortFunc(out, func(x, y paused) int { return y.until.Compare(x.until) })
		out = out[:maxPaused]
	}
	ids := make([]int64, len(out))
	for i, e := range out {
		ids[i] = e.affiliate
	}
	return ids
}

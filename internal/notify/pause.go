package notify

import (
	"slices"
	"sync"
	"time"
)

// maxPaused bounds how many paused receivers a claim leaves out, and so
// the claim's parameters: past it those whose pauses end soonest are not
// left out, and their notifications are claimed and put off.
const maxPaused = 1000

// pauses keeps the receivers (hosts, with their ports) that held a call
// slot until the call failed slowly: a timeout, or an answer a byte at a
// time. A paused receiver is not called until its pause ends, which
// doubles with each round of slow failures, as one notification's
// retries do. Claims leave its notifications out meanwhile (by their
// receiver column); those claimed anyway (written before that column)
// are put off to the pause's end without a call. Without pauses, every notification of a
// receiver that hangs holds a slot for a whole timeout (and a keyless
// pixel lets anyone make many), and the notifications of receivers that
// answer wait behind all of them.
//
// The pause is the receiver's, not the affiliate's: an affiliate that
// moves its NotificationUrl to a receiver that answers is not held back
// by the notifications still bound for the old one, and a host a clicker
// put into a URL through a [UniqueId] pauses only that host. A delivery
// to the receiver ends its pause and starts the doubling over; a failure
// that comes back quickly (a refused connection, an error status) holds
// no slot for long and changes neither.
//
// Pauses are each deliverer's own, kept in memory: another replica, or a
// restart, learns of a slow receiver from its own first calls.
type pauses struct {
	mu sync.Mutex
	by map[string]pause
}

// pause is one receiver's: until when, after how many rounds of slow
// failures in a row.
type pause struct {
	until   time.Time
	strikes int
}

func newPauses() *pauses { return &pauses{by: map[string]pause{}} }

// slow records a slow failure of a call to host at now. The calls of one
// round fail together (up to two of an affiliate's at once, and several
// affiliates may share a receiver), so a failure while the receiver is
// already paused does not lengthen the pause; the first of a round starts
// one wait(strikes) long.
func (p *pauses) slow(host string, now time.Time, wait func(strikes int) time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.by[host]
	if e.until.After(now) {
		return
	}
	e.strikes++
	e.until = now.Add(wait(e.strikes))
	p.by[host] = e
}

// delivered ends host's pause and forgets its slow failures.
func (p *pauses) delivered(host string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.by, host)
}

// pausedUntil returns when host's pause ends, and whether it is paused at
// now.
func (p *pauses) pausedUntil(host string, now time.Time) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.by[host]
	return e.until, e.until.After(now)
}

// active returns the receivers paused at now, the latest-ending first, at
// most maxPaused of them.
func (p *pauses) active(now time.Time) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	type paused struct {
		host  string
		until time.Time
	}
	var out []paused
	for h, e := range p.by {
		if e.until.After(now) {
			out = append(out, paused{h, e.until})
		}
	}
	if len(out) > maxPaused {
		slices.SortFunc(out, func(x, y paused) int { return y.until.Compare(x.until) })
		out = out[:maxPaused]
	}
	hosts := make([]string, len(out))
	for i, e := range out {
		hosts[i] = e.host
	}
	return hosts
}

// prune forgets the receivers whose pause ended more than forget ago, so
// the map holds only receivers slow of late.
func (p *pauses) prune(now time.Time, forget time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for h, e := range p.by {
		if now.Sub(e.until) > forget {
			delete(p.by, h)
		}
	}
}

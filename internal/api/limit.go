package api

import (
	"context"
	"hash/maphash"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/afftrack/afftrack"
)

// withoutBody refuses a GET or HEAD request that carries a body, before
// reading any of it: no reading function takes one, and a body that never
// arrives would otherwise hold the connection (and its file descriptor)
// until a read deadline. The connection is closed after the answer
// without draining the body. Other methods go on: the one route that
// takes a body (POST conversions) reads it under a deadline and a size
// bound, and every other route answers 405 the same way, unread.
//
// Whatever answers a request with a body, its connection is closed after
// the answer unless the body was read to its end: net/http would
// otherwise wait, with no deadline, for up to 256 KiB of a body that may
// never come (a POST to an unknown path, a 401) before writing the
// answer. A chunked body closes it in any case: the request may also have
// carried a Content-Length, which a proxy in front may have gone by, so
// what follows the chunks is not to be read as the next request (RFC 9112
// section 6.3).
func (s *Server) withoutBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength == 0 && len(r.TransferEncoding) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			refuseBody(w)
			err := afftrack.Errorf(afftrack.EINVALID, "the request has a body; the interface's reading functions take none")
			if s.isPixel(r) {
				// The pixel always answers its GIF (tracking.md section
				// 3): an image is shown whatever it says.
				s.pixelRefused(r, 0, err)
				writePixel(w)
				return
			}
			s.writeError(w, r, err)
			return
		}
		b := &trackedBody{ReadCloser: r.Body}
		r.Body = b
		chunked := len(r.TransferEncoding) > 0
		if rw := stateOf(r).rw; rw != nil {
			rw.beforeHeader = func() {
				if chunked || !b.done {
					refuseBody(w)
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// trackedBody is a request body that knows whether it was read to its end.
type trackedBody struct {
	io.ReadCloser
	done bool
}

// Read reads from the body, noting its end.
func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.done = true
	}
	return n, err
}

// refuseBody makes the connection close after the answer without reading
// the request's body. net/http would otherwise wait for up to 256 KiB of
// it before closing; a read deadline already past makes it give up at
// once. An error means there is no connection to bound (a test's
// recorder).
func refuseBody(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// errBusy is the error of a request refused because the server is at one
// of its bounds; the client may retry shortly.
func errBusy() error {
	return afftrack.Errorf(afftrack.EUNAVAILABLE, "The service is busy; retry in a few seconds.")
}

// listSlotWait is how long a list waits for a slot before its 503: about
// as long as a busy moment's lists take to finish, so that a burst is
// served in turn, while lists held by clients that stopped reading (each
// until --write-timeout) turn new ones away within a second.
const listSlotWait = time.Second

// acquireList takes a slot for one streamed list, waiting up to wait for
// one, or reports false when none came free in time or ctx ended.
// release gives it back.
func (s *Server) acquireList(ctx context.Context, wait time.Duration) (release func(), ok bool) {
	if s.lists == nil {
		return func() {}, true
	}
	select {
	case s.lists <- struct{}{}:
		return func() { <-s.lists }, true
	default:
	}
	if wait <= 0 {
		return nil, false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case s.lists <- struct{}{}:
		return func() { <-s.lists }, true
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, false
}

// maxTrackedAddresses bounds the client addresses whose authentication
// failures are counted: some 100 bytes each, and up to about 400 with
// their failed keys remembered (40 MB in all at most).
const maxTrackedAddresses = 100_000

// failureBudget counts failed authentications per client address over a
// fixed minute, so that guessing keys online costs a minute per few
// guesses per address. A guess is a key not tried before: a key that
// failed before in the address's minute does not count again, so a
// client polling with a revoked key (an aggregator serving many accounts
// from one host) does not lock out the address's other keys, and a client
// trying its few wrong keys in turn (a test suite's missing, revoked and
// suspended ones, against each function) spends one place for each.
// A lookup in flight counts as a failure to come until it ends, so guesses
// sent at once, each passing the check while the others are still looked
// up, cannot spend more than the budget.
// An address whose failures are spent is slowed down, not shut out: its
// lookups go one at a time, a minute's share of the budget apart (3 s at
// 20), for the rest of its minute, and each is answered as any other
// (401 or the call's answer), so the contract's order of checks holds for
// a client that calls one at a time; only a lookup that would wait longer
// than slowWait for its turn is refused (429).
// Its memory is bounded: when it tracks max
// addresses, those whose minute is over are forgotten, and if none is,
// one arbitrary address is (Go's map order is random), so a flood of new
// addresses cannot grow it.
type failureBudget struct {
	perMinute int
	max       int

	seed  maphash.Seed // of the failed keys' hashes, which only this process compares
	mu    sync.Mutex
	addrs map[string]failureWindow
	swept time.Time // when evict last forgot every address whose minute was over
}

// failureWindow is one address's count in the minute that began at start,
// the hashes of the keys that failed in it, and its lookups in flight.
type failureWindow struct {
	start   time.Time
	n       int
	pending int
	failed  []uint64      // at most rememberedFailedKeys, the latest last
	wake    chan struct{} // closed when a lookup ends, for those waiting; nil: none waits
	next    time.Time     // once the failures are spent, when the next lookup may begin
}

// rememberedFailedKeys is how many of an address's failed keys in its
// minute are remembered, so that they do not count again: beyond the
// default budget of 20, so that under it every key of the minute is, and
// some 256 bytes an address at most.
const rememberedFailedKeys = 32

func newFailureBudget(perMinute, max int) *failureBudget {
	return &failureBudget{perMinute: perMinute, max: max, addrs: map[string]failureWindow{},
		seed: maphash.MakeSeed()}
}

// busyWait bounds how long a lookup waits for the lookups in flight
// before it of its address to end.
const busyWait = time.Second

// slowWait bounds how long a lookup of an address whose failures are
// spent waits for its turn: more than one turn at a budget of 12 or more
// (the default's is 3 s), so that a client calling one at a time is
// always answered; and an address's requests held waiting are at most
// slowWait over the spacing, 2 at the default.
const slowWait = 5 * time.Second

// spacing is how far apart the lookups of an address whose failures are
// spent begin: a minute's share of the budget.
func (b *failureBudget) spacing() time.Duration {
	return time.Minute / time.Duration(b.perMinute)
}

// begin takes a place for one lookup of addr's key, or returns how long
// addr must wait before asking again. While the lookups in flight would
// spend what is left of the budget, it waits for one of them to end (they
// take milliseconds), so that an aggregator whose many keys are looked up
// at once is served in turn, and a burst of guesses finds the budget
// spent; after busyWait, or when ctx ends, it gives up and returns a
// second. Once the budget is spent, it waits for addr's next turn (see
// failureBudget), or returns how long until that turn when it is beyond
// slowWait. A place taken must be given back by end.
func (b *failureBudget) begin(ctx context.Context, addr string, now func() time.Time) time.Duration {
	if b.perMinute <= 0 {
		return 0
	}
	var timeout <-chan time.Time
	for {
		b.mu.Lock()
		t := now()
		w, ok := b.addrs[addr]
		if ok && t.Sub(w.start) >= time.Minute {
			w = failureWindow{start: t, pending: w.pending, wake: w.wake}
		}
		if w.n >= b.perMinute {
			turn := t
			if w.next.After(t) {
				turn = w.next
			}
			if d := turn.Sub(t); d > slowWait {
				// Asked again once the minute is over, the call finds
				// the budget whole: it need not wait for its turn.
				b.mu.Unlock()
				return min(d, w.start.Add(time.Minute).Sub(t))
			}
			next := turn.Add(b.spacing())
			w.next = next
			w.pending++
			b.addrs[addr] = w
			b.mu.Unlock()
			if !sleep(ctx, turn.Sub(t)) {
				b.giveTurnBack(addr, turn, next, now())
				return time.Second
			}
			return 0
		}
		if w.n+w.pending < b.perMinute {
			if !ok {
				if len(b.addrs) >= b.max {
					b.evict(t)
				}
				w.start = t
			}
			w.pending++
			b.addrs[addr] = w
			b.mu.Unlock()
			return 0
		}
		if w.wake == nil {
			w.wake = make(chan struct{})
		}
		b.addrs[addr] = w
		wake := w.wake
		b.mu.Unlock()
		if timeout == nil {
			tm := time.NewTimer(busyWait)
			defer tm.Stop()
			timeout = tm.C
		}
		select {
		case <-wake:
		case <-timeout:
			return time.Second
		case <-ctx.Done():
			return time.Second
		}
	}
}

// giveTurnBack gives back the place and the turn at turn of a lookup of
// addr that was given up while it waited (its client left, as net/http
// tells of a call without a body; of one with a body, only once the body
// is read, after the turn), so the next call need not wait longer for it;
// next was the turn after, as taken.
// Only the last turn taken can be given back: a later one is another's.
func (b *failureBudget) giveTurnBack(addr string, turn, next, now time.Time) {
	b.mu.Lock()
	if w, ok := b.addrs[addr]; ok && w.next.Equal(next) {
		w.next = turn
		b.addrs[addr] = w
	}
	b.mu.Unlock()
	b.settle(addr, "", 1, false, now)
}

// sleep waits for d, or reports false if ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// end gives back the place begin took for addr's lookup of key and, if it
// failed, counts the failure (settle).
func (b *failureBudget) end(addr, key string, failed bool, now time.Time) {
	if b.perMinute > 0 {
		b.settle(addr, key, 1, failed, now)
	}
}

// fail counts one failed authentication of addr with key that took no
// place, its answer having been cached (settle).
func (b *failureBudget) fail(addr, key string, now time.Time) {
	if b.perMinute > 0 {
		b.settle(addr, key, 0, true, now)
	}
}

// settle gives back addr's places lookups held and counts a failure,
// unless key failed before in addr's minute (among its last
// rememberedFailedKeys). An address left with nothing counted is
// forgotten, so clients that authenticate take no room.
func (b *failureBudget) settle(addr, key string, places int, failed bool, now time.Time) {
	h := maphash.String(b.seed, key) | 1 // never 0, an empty slot
	b.mu.Lock()
	defer b.mu.Unlock()
	w, ok := b.addrs[addr]
	if !ok {
		// New, or evicted meanwhile by a flood of addresses: its places
		// went with it.
		if !failed {
			return
		}
		if len(b.addrs) >= b.max {
			b.evict(now)
		}
		w = failureWindow{start: now}
		places = 0
	}
	w.pending = max(w.pending-places, 0)
	if (places > 0 || failed) && w.wake != nil {
		close(w.wake) // the lookups waiting look again: one ended, or the budget shrank
		w.wake = nil
	}
	if now.Sub(w.start) >= time.Minute {
		w = failureWindow{start: now, pending: w.pending, wake: w.wake}
	}
	if failed && !slices.Contains(w.failed, h) {
		if len(w.failed) == rememberedFailedKeys {
			w.failed = slices.Delete(w.failed, 0, 1)
		}
		w.failed = append(w.failed, h)
		w.n++
		if w.n == b.perMinute {
			w.next = now.Add(b.spacing())
		}
	}
	if w.n == 0 && w.pending == 0 && w.wake == nil {
		delete(b.addrs, addr)
		return
	}
	b.addrs[addr] = w
}

// evict makes room for one address; b.mu is held. The sweep of every
// address whose minute is over runs at most once a minute; in between, a
// flood of new addresses evicts one arbitrary address each, at constant
// cost, where each would otherwise scan the whole map under the lock.
func (b *failureBudget) evict(now time.Time) {
	if now.Sub(b.swept) >= time.Minute {
		b.swept = now
		for a, w := range b.addrs {
			if now.Sub(w.start) >= time.Minute {
				b.forget(a, w)
			}
		}
	}
	for a, w := range b.addrs {
		if len(b.addrs) < b.max {
			return
		}
		b.forget(a, w)
	}
}

// forget drops address a, waking the lookups that wait on it to look
// again; b.mu is held.
func (b *failureBudget) forget(a string, w failureWindow) {
	if w.wake != nil {
		close(w.wake)
	}
	delete(b.addrs, a)
}

// tracked returns how many addresses the budget holds, for tests.
func (b *failureBudget) tracked() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.addrs)
}

// clientAddress is the address failures are counted against: the
// customer's address as a click takes it, so with TrustProxy the first
// X-Forwarded-For entry, else the peer's. Without TrustProxy a proxy's
// clients share its address; run the limit behind one only with a budget
// to match (docs/deploy.md). An IPv6 address counts by its /64, the
// block one subscriber is given, so a client cannot take a fresh budget
// from each of its 2^64 addresses.
func (s *Server) clientAddress(r *http.Request) string {
	ip, ok := s.customerIP(r)
	switch {
	case !ok:
		return r.RemoteAddr
	case ip.Is6():
		if p, err := ip.Prefix(64); err == nil {
			return p.String()
		}
	}
	return ip.String()
}

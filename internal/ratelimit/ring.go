package ratelimit

// ring is the sliding log of one window: the stamps (Unix nanoseconds) of
// the accepted calls still inside it, oldest first, in a circular buffer.
// Stamps are pushed in non-decreasing order, so the expired ones are always
// at the front and pruning is amortised O(1).
//
// The buffer grows by doubling only as calls arrive, so an account that
// makes three calls under a limit of a thousand holds four slots, not a
// thousand; it never holds more than the largest limit in force while its
// stamps were pushed, and shrinks again as they expire.
type ring struct {
	buf  []int64 // len is 0 or a power of two
	head int     // index of the oldest stamp
	n    int     // stamps held
}

// minRing is the smallest buffer a ring allocates, and shrinkRing the size
// below which it stops shrinking: reallocating tiny buffers costs more than
// it saves.
const (
	minRing    = 4
	shrinkRing = 64
)

// len returns the number of stamps held.
func (r *ring) len() int { return r.n }

// at returns the i-th oldest stamp, 0 <= i < len.
func (r *ring) at(i int) int64 { return r.buf[(r.head+i)&(len(r.buf)-1)] }

// newest returns the newest stamp; the ring must not be empty.
func (r *ring) newest() int64 { return r.at(r.n - 1) }

// prune drops the stamps at or before cutoff: calls that have left the
// window.
func (r *ring) prune(cutoff int64) {
	for r.n > 0 && r.buf[r.head] <= cutoff {
		r.head = (r.head + 1) & (len(r.buf) - 1)
		r.n--
	}
	if r.n == 0 {
		r.buf, r.head = nil, 0
	} else if len(r.buf) >= shrinkRing && r.n <= len(r.buf)/4 {
		// Shrink to twice to four times what is held: a quarter full
		// before shrinking and half full after, so a ring that hovers
		// around one size does not reallocate on every call.
		size := len(r.buf)
		for size > minRing && r.n <= size/4 {
			size /= 2
		}
		r.resize(size)
	}
}

// push appends a stamp no older than the newest one held.
func (r *ring) push(t int64) {
	if r.n == len(r.buf) {
		r.resize(max(minRing, 2*len(r.buf)))
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = t
	r.n++
}

// resize moves the stamps, oldest first, into a buffer of size, a power of
// two no smaller than len.
func (r *ring) resize(size int) {
	buf := make([]int64, size)
	for i := range r.n {
		buf[i] = r.at(i)
	}
	r.buf, r.head = buf, 0
}

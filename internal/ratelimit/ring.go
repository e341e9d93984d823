package ratelimit

// ring is the sliding log of one window: the accepted calls still inside
// it, oldest first, in a circular buffer of entries. Stamps (Unix
// nanoseconds) are pushed in non-decreasing order, so the expired ones are
// always at the front and pruning is amortised O(1).
//
// Each call is an entry of its own while the ring holds fewer than
// exactEntries entries, which covers every limit up to that many calls a
// window exactly. Beyond it, a call within a bucket's width (the window
// over exactEntries) of the newest entry's first call joins that entry,
// which takes the newer stamp: its calls then leave the window together,
// when the newest of them does. That is never more permissive than the
// exact log (a call is counted at most one bucket longer than it should
// be), and it bounds a window's memory to some 2 × exactEntries entries
// whatever the limit, where an exact log of a limit of ten million a day
// would hold ten million stamps for each account.
type ring struct {
	buf   []ringEntry // len is 0 or a power of two
	head  int         // index of the oldest entry
	n     int         // entries held
	count int64       // calls held
}

// ringEntry is one or more calls: n calls made from first to stamp.
type ringEntry struct {
	first, stamp int64
	n            int64
}

// exactEntries is how many entries a ring holds before it starts to merge
// calls into buckets.
const exactEntries = 256

// minRing is the smallest buffer a ring allocates, and shrinkRing the size
// below which it stops shrinking: reallocating tiny buffers costs more than
// it saves.
const (
	minRing    = 4
	shrinkRing = 64
)

// len returns the number of calls held.
func (r *ring) len() int { return int(r.count) }

// entries returns the number of entries held, for tests of the bound.
func (r *ring) entries() int { return r.n }

func (r *ring) entry(i int) *ringEntry { return &r.buf[(r.head+i)&(len(r.buf)-1)] }

// at returns the stamp of the i-th oldest call, 0 <= i < len.
func (r *ring) at(i int) int64 {
	left := int64(i)
	for j := range r.n {
		e := r.entry(j)
		if left < e.n {
			return e.stamp
		}
		left -= e.n
	}
	panic("ratelimit: ring index out of range")
}

// newest returns the newest stamp; the ring must not be empty.
func (r *ring) newest() int64 { return r.entry(r.n - 1).stamp }

// prune drops the calls stamped at or before cutoff: calls that have left
// the window.
func (r *ring) prune(cutoff int64) {
	for r.n > 0 && r.buf[r.head].stamp <= cutoff {
		r.count -= r.buf[r.head].n
		r.head = (r.head + 1) & (len(r.buf) - 1)
		r.n--
	}
	if r.n == 0 {
		r.buf, r.head, r.count = nil, 0, 0
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

// push appends a call stamped t, no older than the newest one held, to the
// log of a window of the given length (nanoseconds).
func (r *ring) push(t, window int64) {
	r.count++
	if r.n >= exactEntries {
		if last := r.entry(r.n - 1); t-last.first < window/exactEntries {
			last.stamp, last.n = t, last.n+1
			return
		}
	}
	if r.n == len(r.buf) {
		r.resize(max(minRing, 2*len(r.buf)))
	}
	*r.entry(r.n) = ringEntry{first: t, stamp: t, n: 1}
	r.n++
}

// resize moves the entries, oldest first, into a buffer of size, a power
// of two no smaller than the entries held.
func (r *ring) resize(size int) {
	buf := make([]ringEntry, size)
	for i := range r.n {
		buf[i] = *r.entry(i)
	}
	r.buf, r.head = buf, 0
}

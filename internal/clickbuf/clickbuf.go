// Package clickbuf takes the database off the redirect's path. Buffer.Add
// holds a click in memory and returns at once; one goroutine writes what is
// held in batches every FlushInterval, so a crash loses at most that much.
//
// While the database is down the clicks stay held and are retried, with a
// backoff, until it answers again; the redirects keep working meanwhile.
// What is held is bounded by Capacity, so an outage costs memory only up to
// a limit: past it new clicks are dropped and counted rather than let the
// process grow until it is killed and loses them all.
//
// Close writes everything held before it returns, for a clean stop; Flush
// writes it without stopping, for a conversion that arrives a few
// milliseconds after its click and must find it in the database.
package clickbuf

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/afftrack/afftrack"
)

// Defaults of Options. A batch is one database transaction. Its cost is
// mostly the index pages it dirties, about one per clicking account and
// index, which its commit writes to the log (and on SQLite a checkpoint
// copies back) however many of its clicks share them; so a larger batch
// costs less a click, and a writer that fell behind catches up by taking
// more at once. A round that is not behind holds one FlushInterval's
// clicks, far fewer: the bound matters only to a writer behind, and keeps
// one transaction, which a conversion may wait for, under a second at the
// writer's measured pace (docs/performance.md, "An eighth sitting").
const (
	DefaultFlushInterval = 100 * time.Millisecond
	DefaultMaxBatch      = 25000
	DefaultCapacity      = 100000
)

// writeTimeout bounds one WriteClicks call, so a database that hangs rather
// than refuses is retried like one that refuses, instead of stopping every
// later write.
const writeTimeout = 10 * time.Second

// maxBackoff is the longest wait between two attempts while writes fail
// (unless FlushInterval is longer): short enough that clicks are written
// soon after the database is back, long enough that a down database is not
// hammered by every replica.
const maxBackoff = 5 * time.Second

// Options configures a Buffer. The callbacks are meant for metrics; nil
// ones are skipped. OnDrop is called from Add, so from many goroutines at
// once; the others only from the Buffer's goroutine.
type Options struct {
	// FlushInterval is the time between two writes; 0 means
	// DefaultFlushInterval. It is the most a crash can lose.
	FlushInterval time.Duration

	// MaxBatch is the most clicks handed to one WriteClicks call; 0 means
	// DefaultMaxBatch.
	MaxBatch int

	// Capacity is the most clicks held at once, waiting for the next write
	// and kept after a failed one together; 0 means DefaultCapacity.
	Capacity int

	// Logger receives a warning when writes start failing and a note when
	// they succeed again; nil discards them.
	Logger *slog.Logger

	// OnWrite is called after n clicks were written.
	OnWrite func(n int)

	// OnDrop is called when n clicks were dropped: Add on a full or closed
	// Buffer, or Close giving up on the clicks it could not write.
	OnDrop func(n int)

	// OnError is called for every failed WriteClicks call.
	OnError func(err error)
}

// Stats is a snapshot of a Buffer's counters.
type Stats struct {
	Held    int64 // clicks accepted and not yet written
	Written int64 // clicks written since New
	Dropped int64 // clicks refused or given up since New
}

// Buffer holds clicks and writes them in batches behind the redirects. Its
// methods are safe for concurrent use.
type Buffer struct {
	w        afftrack.ClickWriter
	interval time.Duration
	maxBatch int
	capacity int
	logger   *slog.Logger
	onWrite  func(int)
	onDrop   func(int)
	onError  func(error)

	flushes  chan chan error    // Flush's requests, each answered with its write round's outcome
	quit     chan struct{}      // closed by the first Close
	done     chan struct{}      // closed when run returns
	abort    context.CancelFunc // cancels run's context: a Close whose ctx ended gives up
	closeErr error              // run's outcome, set before done is closed

	// Owned by run: clicks taken from pending and not yet written, oldest
	// first, and the state of the current stretch of failures.
	unwritten    []afftrack.Click
	failures     int
	failingSince time.Time

	mu       sync.Mutex
	pending  []afftrack.Click // added since run last took them
	inflight int              // len(unwritten), which Add cannot read, counted against capacity
	closed   bool
	written  int64
	dropped  int64
	lost     int // dropped by abandon, for a Close that returns as it runs
}

// New returns a Buffer writing to w and starts its goroutine; Close stops
// it.
func New(w afftrack.ClickWriter, o Options) *Buffer {
	b := &Buffer{
		w:        w,
		interval: o.FlushInterval,
		maxBatch: o.MaxBatch,
		capacity: o.Capacity,
		logger:   o.Logger,
		onWrite:  o.OnWrite,
		onDrop:   o.OnDrop,
		onError:  o.OnError,
		flushes:  make(chan chan error),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	if b.interval <= 0 {
		b.interval = DefaultFlushInterval
	}
	if b.maxBatch <= 0 {
		b.maxBatch = DefaultMaxBatch
	}
	if b.capacity <= 0 {
		b.capacity = DefaultCapacity
	}
	if b.logger == nil {
		b.logger = slog.New(slog.DiscardHandler)
	}
	if b.onWrite == nil {
		b.onWrite = func(int) {}
	}
	if b.onDrop == nil {
		b.onDrop = func(int) {}
	}
	if b.onError == nil {
		b.onError = func(error) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.abort = cancel
	go b.run(ctx)
	return b
}

// Add holds c for the next write. It returns false, and counts a drop, when
// Capacity clicks are already held or the Buffer is closed; it never waits
// for the database.
func (b *Buffer) Add(c afftrack.Click) bool {
	b.mu.Lock()
	if b.closed || len(b.pending)+b.inflight >= b.capacity {
		b.dropped++
		b.mu.Unlock()
		b.onDrop(1)
		return false
	}
	b.pending = append(b.pending, c)
	b.mu.Unlock()
	return true
}

// Flush writes every click held now, and returns when they are written, the
// write fails, or ctx ends. It starts a write at once, even while failed
// writes are being backed off from: its caller needs the clicks now.
// Flushes that arrive while a write is under way share the next one.
func (b *Buffer) Flush(ctx context.Context) error {
	// A click counts as held until its write succeeded, so nothing held
	// means nothing is on its way either.
	if b.Stats().Held == 0 {
		return nil
	}
	reply := make(chan error, 1) // buffered: run must not wait for a Flush that gave up
	select {
	case b.flushes <- reply:
	case <-b.done:
		return b.closeErr
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// Close refuses further clicks, writes every click held, retrying while
// writes fail, and stops the goroutine. If ctx ends first it gives up: the
// clicks not written are dropped and the error says how many.
func (b *Buffer) Close(ctx context.Context) error {
	// Cancelling run's context also cuts short a write under way, so Close
	// returns near ctx's end even when the database hangs.
	stop := context.AfterFunc(ctx, b.abort)
	defer stop()

	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.quit)
	}
	b.mu.Unlock()

	select {
	case <-b.done:
		return b.closeErr
	case <-ctx.Done():
	}
	// ctx's end has cut the write under way (abort): a writer that heeds
	// its context returns at once, its clicks written or not, and run's
	// outcome is then the truer one.
	grace := time.NewTimer(closeGrace)
	defer grace.Stop()
	select {
	case <-b.done:
		return b.closeErr
	case <-grace.C:
	}
	// run is stuck in a writer that ignores its context, and drops the
	// clicks when the writer returns, or is dropping them right now.
	b.mu.Lock()
	n := len(b.pending) + b.inflight + b.lost
	b.mu.Unlock()
	if n == 0 {
		return nil // nothing was held, so nothing is lost
	}
	return fmt.Errorf("clickbuf: closing: %d clicks not written, unless a write still under way completes: %w",
		n, context.Cause(ctx))
}

// closeGrace is how long Close waits, once its context has ended and the
// write under way been cut, for that write to return and tell whether its
// clicks were written.
const closeGrace = time.Second

// Stats returns the Buffer's counters.
func (b *Buffer) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return Stats{Held: int64(len(b.pending) + b.inflight), Written: b.written, Dropped: b.dropped}
}

// run writes what is held on every tick and every Flush until Close, then
// writes the rest.
func (b *Buffer) run(ctx context.Context) {
	defer close(b.done)
	defer b.abort()

	timer := time.NewTimer(b.interval)
	defer timer.Stop()
	for {
		var start time.Time // of this round
		select {
		case <-timer.C:
			start = time.Now()
			_ = b.writeHeld(ctx) // failures are logged, counted and retried
		case reply := <-b.flushes:
			start = time.Now()
			// Every Flush queued by now was called before the clicks are
			// taken below, so one round answers them all.
			replies := []chan error{reply}
			for queued := true; queued; {
				select {
				case r := <-b.flushes:
					replies = append(replies, r)
				default:
					queued = false
				}
			}
			err := b.writeHeld(ctx)
			for _, r := range replies {
				r <- err
			}
		case <-b.quit:
			b.closeErr = b.drain(ctx)
			return
		}
		// Counted from the round's start, so a slow write does not stretch
		// the time a crash can lose.
		timer.Reset(max(0, b.delay()-time.Since(start)))
	}
}

// drain writes everything held for Close, retrying with backoff until it
// succeeds or ctx ends. Add refuses clicks by now, so one successful round
// leaves nothing held.
func (b *Buffer) drain(ctx context.Context) error {
	for {
		err := b.writeHeld(ctx)
		if err == nil {
			return nil
		}
		// Not b.delay(): a long FlushInterval must not make a stop wait
		// as long between attempts.
		t := time.NewTimer(backoff(min(b.interval, DefaultFlushInterval), b.failures))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return b.abandon(err)
		}
	}
}

// abandon drops every click held, for a Close that gave up.
func (b *Buffer) abandon(err error) error {
	b.mu.Lock()
	n := len(b.pending) + b.inflight
	b.pending, b.unwritten, b.inflight = nil, nil, 0
	b.dropped += int64(n)
	b.lost = n
	b.mu.Unlock()
	b.onDrop(n)
	b.logger.Error("clicks lost: closing before they could be written", "clicks", n, "err", err)
	return fmt.Errorf("clickbuf: closing: %d clicks not written: %w", n, err)
}

// writeHeld takes the pending clicks and writes them after any left by a
// failed round, in batches, oldest first. It stops at the first failure,
// keeping that batch and the rest for the next round; the batches before it
// stay written.
func (b *Buffer) writeHeld(ctx context.Context) error {
	// The mutex is held only to swap the slice, so Add never waits for
	// the database.
	b.mu.Lock()
	taken := b.pending
	b.pending = nil
	b.inflight += len(taken)
	b.mu.Unlock()
	if len(b.unwritten) == 0 {
		b.unwritten = taken
	} else {
		b.unwritten = append(b.unwritten, taken...)
	}

	for len(b.unwritten) > 0 {
		if err := ctx.Err(); err != nil {
			return err // Close gave up; run is about to drop what is held
		}
		n := min(len(b.unwritten), b.maxBatch)
		wctx, cancel := context.WithTimeout(ctx, writeTimeout)
		err := b.w.WriteClicks(wctx, b.unwritten[:n])
		cancel()
		if err != nil {
			err = fmt.Errorf("clickbuf: writing %d clicks: %w", n, err)
			b.failed(ctx, err)
			return err
		}
		b.unwritten = b.unwritten[n:]
		b.mu.Lock()
		b.inflight -= n
		b.written += int64(n)
		b.mu.Unlock()
		b.onWrite(n)
	}
	b.unwritten = nil // lets the written clicks' array go
	b.recovered()
	return nil
}

// failed records a failed write. Only the first of a stretch is logged: an
// outage fails every tick, and one line says as much as thousands would.
func (b *Buffer) failed(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return // cut short by Close giving up, not a failure of the database
	}
	b.onError(err)
	b.failures++
	if b.failures == 1 {
		b.failingSince = time.Now()
		b.logger.Warn("writing clicks failed; holding them and retrying until it succeeds",
			"err", err, "held", b.Stats().Held)
	}
}

// recovered ends a stretch of failures, if there was one.
func (b *Buffer) recovered() {
	if b.failures == 0 {
		return
	}
	b.logger.Info("writing clicks succeeds again; the held clicks are written",
		"failed_writes", b.failures, "failing_for", time.Since(b.failingSince).Round(time.Millisecond))
	b.failures = 0
}

// delay is the time until the next write round: FlushInterval, or a
// backoff while writes fail.
func (b *Buffer) delay() time.Duration {
	return backoff(b.interval, b.failures)
}

// backoff doubles interval for each of failures, up to maxBackoff or
// interval itself if that is longer: a failing database is never tried
// more often than a healthy one.
func backoff(interval time.Duration, failures int) time.Duration {
	limit := max(maxBackoff, interval)
	d := interval
	for range failures {
		d *= 2
		if d >= limit {
			return limit
		}
	}
	return d
}

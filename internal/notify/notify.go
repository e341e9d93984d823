// Package notify delivers the notifications of the outbox to affiliates'
// NotificationUrls: at least once, retried with backoff over a retry
// window, and never to a non-public address unless that is allowed.
//
// The outbox is the store's (afftrack.NotificationOutbox), written in the
// same database transaction as the change it tells of, so a notification
// is never lost to a crash between the change and its call: the
// Deliverer only claims what is due, calls it, and records the outcome.
package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/afftrack/afftrack"
)

// Outcomes of an attempt, as passed to Options.Observe.
const (
	OutcomeDelivered = "delivered" // a 2xx answer
	OutcomeFailed    = "failed"    // anything else; it will be retried
	OutcomeGivenUp   = "given_up"  // failed, and past the retry window
	OutcomeRefused   = "refused"   // the address is not public; it will be retried
)

const (
	// maxBody is as much of an answer as is read: enough to keep the
	// connection for the next call when the receiver says little, not
	// enough for a receiver to make us read without end.
	maxBody = 64 << 10

	// backoffBase and backoffCap bound the wait after a failed attempt.
	backoffBase = 30 * time.Second
	backoffCap  = time.Hour

	// maxWhy bounds the reason kept with a failed attempt.
	maxWhy = 256

	// recordTimeout bounds recording an outcome once ctx has ended.
	recordTimeout = 5 * time.Second
)

// Options configures a Deliverer. The zero value of each field takes the
// default given with it.
type Options struct {
	// AllowPrivate lets notifications reach loopback, private,
	// link-local and other non-public addresses (--notify-allow-private);
	// tests and single-machine setups need it.
	AllowPrivate bool

	// Timeout bounds one call, connection to the end of the headers.
	// Default 10 s.
	Timeout time.Duration

	// RetryWindow is how long after its creation a notification is
	// retried; a failure after it gives the notification up. Default 24 h.
	RetryWindow time.Duration

	// Interval is how often Run polls the outbox. Default 1 s.
	Interval time.Duration

	// Batch is the most notifications one claim takes. Default 100.
	Batch int

	// Concurrency is how many calls are made at once. Default 8.
	Concurrency int

	// Lease is how long a claim keeps other deliverers off a notification.
	// Default 1 min; never less than twice Timeout and a few seconds, so
	// a call started early in a poll ends within its claim.
	Lease time.Duration

	// Location is the network's time zone, the zone of the outbox's
	// datetimes. Default UTC.
	Location *time.Location

	// Now returns the current instant. Default time.Now.
	Now func() time.Time

	// Logger receives failures to reach the store and notifications given
	// up; each failed call is logged at debug level only, as a receiver
	// that is down fails every call. Default: discard.
	Logger *slog.Logger

	// FirstRetry is the wait after a first failed attempt; it doubles
	// with each failure up to an hour. Default 30 s; tests shorten it.
	FirstRetry time.Duration

	// Keep is how long a delivered or given-up notification stays in the
	// outbox before Run removes it. Default 30 days.
	Keep time.Duration

	// Observe is told the outcome of every attempt (the Outcome
	// constants), for metrics, from several goroutines at once.
	// Default: nothing.
	Observe func(outcome string)
}

// withDefaults returns o with its zero fields set to their defaults.
func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.RetryWindow <= 0 {
		o.RetryWindow = 24 * time.Hour
	}
	if o.Interval <= 0 {
		o.Interval = time.Second
	}
	if o.Batch <= 0 {
		o.Batch = 100
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	if o.Lease <= 0 {
		o.Lease = time.Minute
	}
	if o.Keep <= 0 {
		o.Keep = 30 * 24 * time.Hour
	}
	if o.FirstRetry <= 0 {
		o.FirstRetry = backoffBase
	}
	o.Lease = max(o.Lease, minLease(o.Timeout))
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Observe == nil {
		o.Observe = func(string) {}
	}
	return o
}

// minLease is the shortest lease that leaves a call of the given timeout
// time to be started, made and recorded within its claim.
func minLease(timeout time.Duration) time.Duration { return 2*timeout + recordTimeout }

// Deliverer sends the notifications of an outbox. Several may run on one
// outbox (one per replica): claims keep them apart.
type Deliverer struct {
	outbox afftrack.NotificationOutbox
	o      Options
	client *http.Client
	jitter func() float64 // in [0, 1)
	paused *pauses
}

// New returns a Deliverer of outbox's notifications.
func New(outbox afftrack.NotificationOutbox, o Options) *Deliverer {
	o = o.withDefaults()
	return &Deliverer{
		outbox: outbox,
		o:      o,
		client: newClient(o.AllowPrivate, o.Timeout, nil),
		jitter: rand.Float64,
		paused: newPauses(),
	}
}

// now returns the current time as the outbox keeps it: the network's wall
// clock.
func (d *Deliverer) now() time.Time { return afftrack.WallClock(d.o.Now(), d.o.Location) }

// Run delivers notifications until ctx ends, waits for the calls under
// way, which go on until drain ends, then returns nil: a clean stop lets
// the calls it finds finish (each is bounded by Timeout), where cutting
// them would have their receivers called again once the lease is over.
// It claims notifications as call slots come free rather than a batch at
// a time, and at most perAffiliate of one affiliate, none of an affiliate
// it is still calling, and calls none whose receiver it has paused
// (pauses): a receiver that hangs until every call's timeout holds a few
// slots now and then, and the other receivers' notifications go on
// through the rest. A poll that fails
// (the store is down) is logged and retried at the next interval.
func (d *Deliverer) Run(ctx, drain context.Context) error {
	calls := newCalls(d.o.Concurrency)
	defer calls.wait()
	timer := time.NewTimer(0)
	defer timer.Stop()
	failing := 0                          // polls failed in a row
	var reported, pruned, swept time.Time // when that was last logged; when the outbox was last pruned, swept
	pruning, sweeping := false, false     // a pruning, a sweep, found more than a batch and goes on
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case <-calls.ended:
		}
		want := min(calls.free(), d.o.Batch)
		if want == 0 {
			continue // every slot is busy: the next call to end wakes the loop
		}
		claimed, err := d.poll(ctx, drain, calls, want)
		err = errors.Join(err, calls.takeErrs())
		if now := d.o.Now(); err == nil && (sweeping || now.Sub(swept) >= d.o.sweepInterval()) {
			// One batch a poll, as pruning, so a large sweep (the
			// first after an upgrade) does not hold up the calls.
			sweeping = d.giveUpBatch(ctx)
			if !sweeping {
				swept = now
			}
		}
		if now := d.o.Now(); err == nil && (pruning || now.Sub(pruned) >= pruneInterval) {
			// One batch a poll, between deliveries, until a batch
			// comes back short: a backlog (the first run after an
			// upgrade) drains without holding up the calls.
			pruning = d.pruneBatch(ctx)
			if !pruning {
				pruned = now
				d.paused.prune(now, backoffCap)
			}
		}
		switch {
		case err != nil && ctx.Err() == nil:
			// A store that is down fails every poll: its first failure
			// is logged, then a line a minute while it lasts, not one
			// every Interval.
			failing++
			if now := d.o.Now(); failing == 1 || now.Sub(reported) >= time.Minute {
				d.o.Logger.Error("notification delivery", "err", err, "failed_polls", failing)
				reported = now
			}
		case err == nil && failing > 0:
			d.o.Logger.Info("notification delivery resumed", "failed_polls", failing)
			failing = 0
		}
		wait := d.o.Interval
		if (claimed == want || sweeping) && err == nil {
			wait = 0 // there may be more due
		}
		timer.Reset(wait)
	}
}

// giveUpBatch gives up a batch of the pending notifications past the
// retry window and not under a claim, whether or not a call of theirs
// failed: a paused receiver's are not called, and would otherwise wait
// for its pauses to be given up a couple a round. It reports whether
// there may be more; a failure is logged and left to the next sweep.
func (d *Deliverer) giveUpBatch(ctx context.Context) bool {
	now := d.now()
	given, err := d.outbox.GiveUpNotifications(ctx, now.Add(-d.o.RetryWindow), now,
		"given up: not delivered within the retry window", pruneBatch)
	if err != nil {
		if ctx.Err() == nil {
			d.o.Logger.Error("notification give-up", "err", err)
		}
		return false
	}
	for range given {
		d.o.Observe(OutcomeGivenUp)
	}
	if given > 0 {
		d.o.Logger.Warn("notifications given up", "count", given, "why", "not delivered within the retry window")
	}
	return given == pruneBatch
}

// sweepInterval is how often Run gives up the notifications past the
// retry window: a tenth of it, at most a minute.
func (o Options) sweepInterval() time.Duration { return min(time.Minute, o.RetryWindow/10) }

// pruneInterval is how often Run removes finished notifications past
// Options.Keep, and pruneBatch how many it removes a poll.
const (
	pruneInterval = time.Hour
	pruneBatch    = 1000
)

// pruneBatch removes up to pruneBatch finished notifications older than
// Options.Keep and reports whether there may be more. A failure is logged
// and left to the next hour.
func (d *Deliverer) pruneBatch(ctx context.Context) bool {
	n, err := d.outbox.PruneNotifications(ctx, d.now().Add(-d.o.Keep), pruneBatch)
	if err != nil {
		if ctx.Err() == nil {
			d.o.Logger.Error("notification pruning", "err", err)
		}
		return false
	}
	return n == pruneBatch
}

// RunOnce claims the notifications due, up to Options.Batch and at most
// perAffiliate of one affiliate, calls them, and records the outcomes. It
// returns how many calls it made; the error is from the store.
func (d *Deliverer) RunOnce(ctx context.Context) (int, error) {
	calls := newCalls(d.o.Concurrency)
	_, err := d.poll(ctx, ctx, calls, d.o.Batch)
	started := calls.wait()
	return started, errors.Join(err, calls.takeErrs())
}

// poll claims up to max notifications and starts their calls, each as a
// slot of calls comes free, until ctx ends, and returns how many it
// claimed. The calls run until callCtx ends.
func (d *Deliverer) poll(ctx, callCtx context.Context, calls *calls, max int) (claimed int, err error) {
	claimedAt := d.now()
	ns, err := d.outbox.ClaimNotifications(ctx, afftrack.NotificationClaim{Now: claimedAt, Lease: d.o.Lease, Max: max,
		PerAffiliate: d.o.perAffiliate(), Skip: calls.busy(), SkipReceivers: d.paused.active(d.o.Now())})
	if err != nil {
		return 0, fmt.Errorf("claim notifications: %w", err)
	}
	// A call started later than this could outlive the claim, and another
	// deliverer could then make the same call: left alone, the
	// notification is claimed again when the lease ends.
	latest := claimedAt.Add(d.o.Lease - d.o.Timeout - recordTimeout)
	for _, n := range ns {
		if until, paused := d.paused.pausedUntil(afftrack.NotificationReceiver(n.URL), d.o.Now()); paused {
			err = errors.Join(err, d.putOff(ctx, n, until))
			continue
		}
		if !calls.acquire(ctx) {
			break
		}
		if d.now().After(latest) {
			calls.release()
			break
		}
		calls.start(n.AffiliateID, func() error { return d.deliver(callCtx, n) })
	}
	return len(ns), err
}

// putOff moves n, claimed while its receiver is paused, to the pause's
// end (with jitter, so a backlog does not all come due at one instant)
// without calling it; or gives it up, with no call, once it is past the
// retry window, as a failed call would.
func (d *Deliverer) putOff(ctx context.Context, n afftrack.Notification, until time.Time) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	now := d.now()
	why := "not called: its receiver is paused after calls that failed slowly"
	if now.Sub(n.Created) > d.o.RetryWindow {
		return d.giveUp(rctx, n, why)
	}
	wait := until.Sub(d.o.Now())
	next := now.Add(wait + time.Duration(float64(wait)*0.2*d.jitter()))
	return d.outbox.NotificationDeferred(rctx, n.ID, next, why)
}

// perAffiliate is how many notifications of one affiliate are called at
// once: a quarter of Concurrency, at least one.
func (o Options) perAffiliate() int { return max(1, o.Concurrency/4) }

// calls are a deliverer's calls under way: at most its Concurrency at
// once, counted by affiliate.
type calls struct {
	slots   chan struct{}
	ended   chan struct{} // a call ended; never blocks the call (capacity 1)
	wg      sync.WaitGroup
	mu      sync.Mutex
	byAff   map[int64]int // calls under way of each affiliate
	started int
	errs    []error
}

func newCalls(concurrency int) *calls {
	return &calls{slots: make(chan struct{}, concurrency), ended: make(chan struct{}, 1), byAff: map[int64]int{}}
}

// free returns how many calls may start now.
func (c *calls) free() int { return cap(c.slots) - len(c.slots) }

// acquire takes a slot, waiting for one, or reports false when ctx ends.
func (c *calls) acquire(ctx context.Context) bool {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	if ctx.Err() != nil {
		c.release()
		return false
	}
	return true
}

// release gives back a slot no call was started in.
func (c *calls) release() { <-c.slots }

// start runs call in the slot acquire took, for affiliate's notification.
func (c *calls) start(affiliate int64, call func() error) {
	c.mu.Lock()
	c.byAff[affiliate]++
	c.started++
	c.mu.Unlock()
	c.wg.Go(func() {
		err := call()
		c.mu.Lock()
		if c.byAff[affiliate]--; c.byAff[affiliate] == 0 {
			delete(c.byAff, affiliate)
		}
		if err != nil {
			c.errs = append(c.errs, err)
		}
		c.mu.Unlock()
		<-c.slots
		select {
		case c.ended <- struct{}{}:
		default:
		}
	})
}

// busy returns the affiliates with calls under way, whose notifications
// the next claim leaves alone.
func (c *calls) busy() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]int64, 0, len(c.byAff))
	for a := range c.byAff {
		out = append(out, a)
	}
	return out
}

// takeErrs returns the errors of the calls ended since the last take.
func (c *calls) takeErrs() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := errors.Join(c.errs...)
	c.errs = nil
	return err
}

// wait waits for every call started, and returns how many were.
func (c *calls) wait() int {
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started
}

// deliver makes one call of n and records its outcome. A call cut short
// because ctx ended is not recorded: it was no fault of the receiver's,
// and the notification is claimed again when the lease ends.
func (d *Deliverer) deliver(ctx context.Context, n afftrack.Notification) error {
	if len(n.URL) > MaxURLLength {
		return d.giveUpTooLong(ctx, n)
	}
	began := d.o.Now()
	why, refused := d.call(ctx, n.URL)
	if why != "" && ctx.Err() != nil {
		return nil
	}
	switch host := afftrack.NotificationReceiver(n.URL); {
	case why == "":
		d.paused.delivered(host)
	case d.o.Now().Sub(began) >= d.o.Timeout/2:
		d.paused.slow(host, d.o.Now(), func(strikes int) time.Duration {
			return backoff(d.o.FirstRetry, strikes, d.jitter())
		})
	}
	// The outcome is recorded even as ctx ends: a delivered notification
	// forgotten would be sent again.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	now := d.now()
	log := d.o.Logger.With("notification", n.ID, "affiliate", n.AffiliateID, "transaction", n.TransactionID)
	if why == "" {
		d.o.Observe(OutcomeDelivered)
		log.Debug("notification delivered", "attempts", n.Attempts+1)
		if err := d.outbox.NotificationDelivered(rctx, n.ID, now); err != nil {
			return fmt.Errorf("notification %d delivered: %w", n.ID, err)
		}
		return nil
	}
	giveUp := now.Sub(n.Created) > d.o.RetryWindow
	next := now.Add(backoff(d.o.FirstRetry, n.Attempts+1, d.jitter()))
	switch {
	case giveUp:
		d.o.Observe(OutcomeGivenUp)
		log.Warn("notification given up", "attempts", n.Attempts+1, "why", why)
	case refused:
		d.o.Observe(OutcomeRefused)
		log.Debug("notification refused", "attempts", n.Attempts+1, "why", why, "next", next)
	default:
		d.o.Observe(OutcomeFailed)
		log.Debug("notification failed", "attempts", n.Attempts+1, "why", why, "next", next)
	}
	if err := d.outbox.NotificationFailed(rctx, n.ID, next, why, giveUp); err != nil {
		return fmt.Errorf("notification %d failed: %w", n.ID, err)
	}
	return nil
}

// MaxURLLength bounds the URL a notification is sent to, its shortcodes
// expanded: about what receivers' servers take (nginx 8 KiB for a request
// line). A template of 2,048 bytes could otherwise expand, with long
// UniqueIds from a click, to over half a megabyte sent at every retry.
const MaxURLLength = 8192

// giveUpTooLong gives n up at once: its URL is longer than MaxURLLength,
// and retrying would not shorten it.
func (d *Deliverer) giveUpTooLong(ctx context.Context, n afftrack.Notification) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	return d.giveUp(rctx, n, fmt.Sprintf("the URL is %d bytes long with its shortcodes expanded; at most %d are sent",
		len(n.URL), MaxURLLength))
}

// giveUp gives n up without a call, for why.
func (d *Deliverer) giveUp(ctx context.Context, n afftrack.Notification, why string) error {
	d.o.Observe(OutcomeGivenUp)
	d.o.Logger.Warn("notification given up", "notification", n.ID, "affiliate", n.AffiliateID,
		"transaction", n.TransactionID, "attempts", n.Attempts, "why", why)
	if err := d.outbox.NotificationFailed(ctx, n.ID, d.now(), why, true); err != nil {
		return fmt.Errorf("notification %d failed: %w", n.ID, err)
	}
	return nil
}

// call sends a GET to rawURL. It returns "" for a 2xx answer, else why
// not, and whether the address was refused.
func (d *Deliverer) call(ctx context.Context, rawURL string) (why string, refused bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "not a URL", false
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "not an http or https URL", false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return shorten(err.Error()), false
	}
	req.Header.Set("User-Agent", afftrack.NotificationUserAgent)
	resp, err := d.client.Do(req)
	if err != nil {
		// The url.Error repeats the URL, which the outbox already holds
		// and which may carry the affiliate's secrets into the logs.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return shorten(err.Error()), isRefused(err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		return "", false
	case resp.StatusCode >= 300 && resp.StatusCode <= 399:
		return fmt.Sprintf("HTTP %d: redirects are not followed", resp.StatusCode), false
	}
	return fmt.Sprintf("HTTP %d", resp.StatusCode), false
}

// backoff returns the wait after the attempt-th failed attempt: first
// (30 s by default) doubling up to 1 h, then ±20% by jitter in [0, 1), so
// notifications that failed together (a receiver that was down) do not
// all come back at the same instant.
func backoff(first time.Duration, attempt int, jitter float64) time.Duration {
	d := first
	for i := 1; i < attempt && d < backoffCap; i++ {
		d *= 2
	}
	d = min(d, backoffCap)
	return time.Duration(float64(d) * (0.8 + 0.4*jitter))
}

// shorten cuts why to maxWhy bytes, on a rune boundary.
func shorten(why string) string {
	if len(why) <= maxWhy {
		return why
	}
	return strings.TrimSpace(afftrack.CutUTF8(why, maxWhy)) + "…"
}

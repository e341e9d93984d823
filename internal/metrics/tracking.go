package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// conversionOutcomes are the outcomes the api package reports; each
// series exists from the start, so an alert on a rate of one is never
// silently empty.
var conversionOutcomes = []string{"created", "repeated", "not_credited", "conflict", "invalid", "unavailable", "error"}

// tracking holds the tracking engine's collectors.
type tracking struct {
	conversions   *prometheus.CounterVec
	clicksWritten prometheus.Counter
	clicksDropped prometheus.Counter
	linksStale    prometheus.Counter
	notifications *prometheus.CounterVec
}

func newTracking() tracking {
	t := tracking{
		conversions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "conversions_total",
			Help:      "Conversions (S2S and pixel) by outcome: created, repeated, not_credited, conflict, invalid, unavailable, error.",
		}, []string{"outcome"}),
		clicksWritten: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "clicks_written_total",
			Help:      "Clicks written to the database.",
		}),
		clicksDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "clicks_dropped_total",
			Help:      "Clicks lost because the buffer in front of an unavailable database was full, or a stop could not write them.",
		}),
		linksStale: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "tracking_links_stale_total",
			Help:      "Clicks answered from an expired cached link: the database failed or was slow, or another click of the link was asking it.",
		}),
		notifications: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "notification_attempts_total",
			Help:      "Attempts to deliver affiliates' notifications, by outcome: delivered, failed, given_up, refused.",
		}, []string{"outcome"}),
	}
	for _, o := range notificationOutcomes {
		t.notifications.WithLabelValues(o)
	}
	for _, o := range conversionOutcomes {
		t.conversions.WithLabelValues(o)
	}
	return t
}

func (t tracking) collectors() []prometheus.Collector {
	return []prometheus.Collector{t.conversions, t.clicksWritten, t.clicksDropped, t.linksStale, t.notifications}
}

// Conversion counts one conversion by its outcome; an outcome not listed
// counts as error, so a label never takes an unplanned value.
func (m *Metrics) Conversion(outcome string) {
	for _, o := range conversionOutcomes {
		if o == outcome {
			m.tracking.conversions.WithLabelValues(o).Inc()
			return
		}
	}
	m.tracking.conversions.WithLabelValues("error").Inc()
}

// ClicksWritten counts n clicks written; the OnWrite hook of the click
// buffer.
func (m *Metrics) ClicksWritten(n int) { m.tracking.clicksWritten.Add(float64(n)) }

// ClicksDropped counts n clicks lost; the OnDrop hook of the click buffer.
func (m *Metrics) ClicksDropped(n int) { m.tracking.clicksDropped.Add(float64(n)) }

// LinkStale counts one redirect served from an expired cached link; the
// OnStale hook of the link cache.
func (m *Metrics) LinkStale() { m.tracking.linksStale.Inc() }

// notificationOutcomes are the deliverer's outcomes of an attempt.
var notificationOutcomes = []string{"delivered", "failed", "given_up", "refused"}

// NotificationAttempt counts one attempt to deliver a notification by its
// outcome; the Observe hook of the deliverer.
func (m *Metrics) NotificationAttempt(outcome string) {
	for _, o := range notificationOutcomes {
		if o == outcome {
			m.tracking.notifications.WithLabelValues(o).Inc()
			return
		}
	}
}

// RegisterNotifications adds gauges of the outbox's notifications by
// state, read from the database at most once every outboxCountsAge.
func (m *Metrics) RegisterNotifications(counts func(ctx context.Context) (pending, delivered, givenUp int64, err error)) error {
	return m.registry.Register(&outboxCollector{counts: counts, now: time.Now, desc: prometheus.NewDesc(namespace+"_notifications",
		"Notifications in the outbox by state: pending (not yet delivered), delivered, given_up.", []string{"state"}, nil)})
}

// outboxCountsAge is how long the outbox's counts are reused. Counting
// reads the whole outbox (a month of notifications, millions of rows on a
// large network, a third of a second for two million), and /metrics takes
// no key: without it every scrape, or anyone asking in a loop, would pay
// that.
const outboxCountsAge = 15 * time.Second

// outboxCollector reads the outbox's counts when scraped, one scrape at
// a time, and reuses them for outboxCountsAge.
type outboxCollector struct {
	counts func(ctx context.Context) (pending, delivered, givenUp int64, err error)
	now    func() time.Time
	desc   *prometheus.Desc

	mu   sync.Mutex
	at   time.Time // when last counted; zero before
	last [3]int64
}

func (c *outboxCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *outboxCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := c.now(); c.at.IsZero() || now.Sub(c.at) >= outboxCountsAge || now.Before(c.at) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		pending, delivered, givenUp, err := c.counts(ctx)
		if err != nil {
			ch <- prometheus.NewInvalidMetric(c.desc, err)
			return
		}
		c.at, c.last = now, [3]int64{pending, delivered, givenUp}
	}
	for i, state := range []string{"pending", "delivered", "given_up"} {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(c.last[i]), state)
	}
}

// RegisterClicksHeld adds a gauge of the clicks waiting to be written.
func (m *Metrics) RegisterClicksHeld(held func() float64) error {
	return m.registry.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: namespace,
		Name:      "clicks_held",
		Help:      "Clicks waiting in the buffer to be written to the database.",
	}, held))
}

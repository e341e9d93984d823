package metrics

import "github.com/prometheus/client_golang/prometheus"

// conversionOutcomes are the outcomes the api package reports; each
// series exists from the start, so an alert on a rate of one is never
// silently empty.
var conversionOutcomes = []string{"created", "repeated", "not_credited", "conflict", "invalid", "error"}

// tracking holds the tracking engine's collectors.
type tracking struct {
	conversions   *prometheus.CounterVec
	clicksWritten prometheus.Counter
	clicksDropped prometheus.Counter
	linksStale    prometheus.Counter
}

func newTracking() tracking {
	t := tracking{
		conversions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "conversions_total",
			Help:      "Conversions (S2S and pixel) by outcome: created, repeated, not_credited, conflict, invalid, error.",
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
			Help:      "Redirects answered from an expired cached link because the database failed.",
		}),
	}
	for _, o := range conversionOutcomes {
		t.conversions.WithLabelValues(o)
	}
	return t
}

func (t tracking) collectors() []prometheus.Collector {
	return []prometheus.Collector{t.conversions, t.clicksWritten, t.clicksDropped, t.linksStale}
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

// RegisterClicksHeld adds a gauge of the clicks waiting to be written.
func (m *Metrics) RegisterClicksHeld(held func() float64) error {
	return m.registry.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: namespace,
		Name:      "clicks_held",
		Help:      "Clicks waiting in the buffer to be written to the database.",
	}, held))
}

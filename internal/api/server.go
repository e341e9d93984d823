// Package api is afftrack's REST interface over net/http: routing,
// content negotiation, authentication and rate limiting, and hand-written
// encoders that write the contract's exact bytes. It consumes only the
// root package's service interfaces.
//
// Where the contract is silent, this package chooses:
//   - /healthz and /readyz answer {"Status":"ok"} (503: "unavailable") as
//     plain JSON whatever was negotiated, and need no key.
//   - A 405 says `The requested resource does not support http method 'X'.`
//   - An integer parameter beyond int64 says `name: "..." is out of range`;
//     a boolean one that is neither true nor false says
//     `name: "..." is not a boolean; use true or false`.
//   - An invalid callback, like a bad contentType, is a 400 raised after
//     authentication and rate limiting; until then responses are plain
//     JSON (never a script echoing it).
//   - XML: an empty root array is written with start and end tags
//     (<TransactionArray ...></TransactionArray>), empty Items as
//     <Items />, an empty string as <Name></Name>. CR is written &#xD; so
//     it survives parsing, and characters XML 1.0 cannot carry become
//     U+FFFD.
//   - Paths: one trailing slash is tolerated; a path with empty or dot
//     segments names no route and is a 404, not a redirect.
//   - A request whose client went away before its response was complete
//     is aborted, logged at INFO and reported with status 499 (nginx's
//     "client closed request"), so disconnects are not counted as 500s.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// Config holds the settings of the HTTP interface.
type Config struct {
	// PublicURL is the service's public base URL, e.g.
	// "http://localhost:8080". The XML namespaces are PublicURL +
	// "/V1/Merchant" and PublicURL + "/V1/Affiliate".
	PublicURL string

	// TrackingBaseURL is the base of banner tracking links; "" means
	// PublicURL + "/t".
	TrackingBaseURL string

	// DefaultLimits are the server's rate limits, overridden per account
	// by Account.RateLimit.
	DefaultLimits afftrack.Limits

	// WriteTimeout bounds each write of a response: a client that reads
	// nothing for this long is cut. 0 is no bound.
	WriteTimeout time.Duration

	// MaxListStreams bounds the transaction lists streamed at once,
	// server-wide; one more is answered 503. 0 is no bound.
	MaxListStreams int

	// AuthFailuresPerMinute is how many failed authentications one client
	// address may make in a minute before its key lookups are slowed down
	// to one every minute's share of it, for the rest of its minute (429
	// when the wait would be longer than 5 s). 0 is no bound.
	AuthFailuresPerMinute int

	// Currency is the network's currency (ISO 4217), the default of a
	// conversion's CurrencyCode.
	Currency string

	// Location is the network's time zone: clicks are stamped and
	// conversions' dates read in it. Nil is UTC.
	Location *time.Location

	// TrustProxy takes a click's customer address from the first
	// X-Forwarded-For entry, which a proxy in front writes; without it
	// the header is a client's claim and is ignored.
	TrustProxy bool

	// ClickFlush is how often clicks are written. A conversion whose
	// click is not found waits up to twice this for another replica's
	// buffer to write it, and looks once more.
	ClickFlush time.Duration
}

// Services are the domain services the handlers consume.
type Services struct {
	Accounts     afftrack.AccountService
	Transactions afftrack.TransactionService
	Banners      afftrack.BannerService
	Invoices     afftrack.InvoiceService
	Reports      afftrack.ReportService
	RateLimiter  afftrack.RateLimiter
	// Offers serves the coupons and promotions; nil leaves them unrouted.
	Offers afftrack.OfferService
	// MerchantViews serves the merchant's Affiliates, Banners and
	// BannerGroups; nil leaves them unrouted.
	MerchantViews afftrack.MerchantViewService
	// Catalog serves the affiliate's Merchants, Merchants/{id} and
	// Banners/{id}; nil leaves them unrouted.
	Catalog afftrack.CatalogService

	// The tracking engine. Tracking answers what a click's link leads to
	// (a cache in front of the store); Clicks takes clicks to be written
	// behind the redirect; Countries, if not nil, places a customer's
	// address; IPHashKey is the network's key for hashing addresses.
	Tracking    afftrack.TrackingService
	Clicks      ClickSink
	Conversions afftrack.ConversionService
	Lifecycle   afftrack.LifecycleService // merchants' validations; nil leaves them unrouted
	Countries   CountryLookup
	IPHashKey   []byte

	// Ready reports whether the service can answer, for /readyz: 200 when
	// it returns nil, 503 otherwise. A nil Ready is always ready.
	Ready func(ctx context.Context) error

	// Observer, if not nil, is told about every request and every
	// rate-limit refusal, for metrics.
	Observer Observer

	// Metrics, if not nil, is served at /metrics with no key and no rate
	// limit; nil leaves /metrics unrouted (a 404), e.g. when the metrics
	// are served on a listener of their own.
	Metrics http.Handler
}

// Observer receives what the server knows about its requests, so metrics
// can be kept without this package depending on a metrics library.
// Methods are called concurrently.
type Observer interface {
	// ObserveRequest reports one answered request. route is the pattern of
	// the route table the path matched (e.g. /v1/merchant/transactions/{id}),
	// or "unmatched": never the raw path, which a client chooses freely and
	// may carry anything. status is 499 when the client went away first.
	ObserveRequest(route, method string, status int, d time.Duration)

	// RateLimited reports one call refused with a 429 by the rate limiter.
	RateLimited(kind afftrack.AccountKind)

	// Conversion reports what became of one conversion: created,
	// repeated, not_credited, conflict, invalid or error.
	Conversion(outcome string)
}

// ClickSink takes clicks to be written behind the redirect.
type ClickSink interface {
	// Add takes a click without waiting for the store, or reports false
	// when it cannot hold more.
	Add(c afftrack.Click) bool
	// Flush writes the clicks held now, for a conversion whose click may
	// be among them.
	Flush(ctx context.Context) error
}

// CountryLookup places an address in a country.
type CountryLookup interface {
	// Country returns ip's country, or false when it is in none known.
	Country(ip netip.Addr) (afftrack.Country, bool)
}

// routeUnmatched is the route reported for a path that names no route.
const routeUnmatched = "unmatched"

// nopObserver is the Observer of a server given none.
type nopObserver struct{}

func (nopObserver) ObserveRequest(string, string, int, time.Duration) {}
func (nopObserver) RateLimited(afftrack.AccountKind)                  {}
func (nopObserver) Conversion(string)                                 {}

// Server is the HTTP interface of afftrack.
type Server struct {
	cfg    Config
	svc    Services
	logger *slog.Logger
	clock  afftrack.Clock

	nsMerchant, nsAffiliate string
	trackingBase            string
	trackingPath            string // the path of trackingBase, where the tracking routes live
	secureCookies           bool   // trackingBase is https, so the click cookie is Secure
	handler                 http.Handler
	lists                   chan struct{} // a slot per list streamed at once; nil for no bound
	authFailures            *failureBudget
	crawlers                crawlers
}

// NewServer returns a server for the given services. clock stamps the
// rate limiter's calls; a nil logger discards and a nil clock is time.Now.
func NewServer(cfg Config, svc Services, logger *slog.Logger, clock afftrack.Clock) *Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if clock == nil {
		clock = time.Now
	}
	if svc.Observer == nil {
		svc.Observer = nopObserver{}
	}
	s := &Server{cfg: cfg, svc: svc, logger: logger, clock: clock}
	base := strings.TrimSuffix(cfg.PublicURL, "/")
	s.nsMerchant = base + "/V1/" + afftrack.KindMerchant.String()
	s.nsAffiliate = base + "/V1/" + afftrack.KindAffiliate.String()
	s.trackingBase = strings.TrimSuffix(cfg.TrackingBaseURL, "/")
	if s.trackingBase == "" {
		s.trackingBase = base + "/t"
	}
	if u, err := url.Parse(s.trackingBase); err == nil {
		s.trackingPath = strings.TrimSuffix(u.EscapedPath(), "/")
		// The cookie is set by the tracking host: a browser drops a
		// Secure cookie that comes over http, whatever the API's URL is.
		s.secureCookies = u.Scheme == "https"
	}

	if cfg.MaxListStreams > 0 {
		s.lists = make(chan struct{}, cfg.MaxListStreams)
	}
	s.authFailures = newFailureBudget(cfg.AuthFailuresPerMinute, maxTrackedAddresses)

	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		method := rt.method
		if method == "" {
			method = http.MethodGet
		}
		mux.Handle(method+" "+rt.path, withRoute(rt.path, rt.handler))
		mux.Handle(rt.path, withRoute(rt.path, s.methodNotAllowed(method)))
	}
	mux.Handle("/", http.HandlerFunc(s.notFound))

	// Outermost first: the state (request id, query, format, common
	// headers) exists before anything can fail; the log line and the
	// rate-limit release wrap everything, panics included; recovery
	// answers 500 in the negotiated format; a request with a body is
	// refused before any of it is read; paths are made canonical for the
	// mux last.
	s.handler = s.withState(
		s.withLogging(
			s.withRecover(
				withHTTP1(
					s.withoutBody(
						s.withCanonicalPath(mux))))))
	return s
}

// location is the network's zone.
func (s *Server) location() *time.Location {
	if s.cfg.Location == nil {
		return time.UTC
	}
	return s.cfg.Location
}

// Handler returns the whole interface: middleware and routes.
func (s *Server) Handler() http.Handler { return s.handler }

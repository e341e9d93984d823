package api

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/afftrack/afftrack"
)

// fakeReports serves fixed report lines by account id, and records the
// range it was asked for.
type fakeReports struct {
	mu          sync.Mutex
	trafficType map[int64][]afftrack.TrafficTypeReport
	merchant    map[int64][]afftrack.MerchantReport
	affiliate   map[int64][]afftrack.AffiliateReport
	from, to    time.Time
	err         error
}

func (f *fakeReports) record(from, to time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.from, f.to = from, to
	return f.err
}

func (f *fakeReports) TrafficTypeReport(_ context.Context, affiliateID int64, from, to time.Time) ([]afftrack.TrafficTypeReport, error) {
	if err := f.record(from, to); err != nil {
		return nil, err
	}
	return append([]afftrack.TrafficTypeReport{}, f.trafficType[affiliateID]...), nil
}

func (f *fakeReports) MerchantReport(_ context.Context, affiliateID int64, from, to time.Time) ([]afftrack.MerchantReport, error) {
	if err := f.record(from, to); err != nil {
		return nil, err
	}
	return append([]afftrack.MerchantReport{}, f.merchant[affiliateID]...), nil
}

func (f *fakeReports) AffiliateReport(_ context.Context, merchantID int64, from, to time.Time) ([]afftrack.AffiliateReport, error) {
	if err := f.record(from, to); err != nil {
		return nil, err
	}
	return append([]afftrack.AffiliateReport{}, f.affiliate[merchantID]...), nil
}

// reportRoutes are the report functions' routes, as routes.go is to list
// them.
func (s *Server) reportRoutes() []route {
	return []route{
		{"", "/v1/affiliate/reports/traffictype", s.authenticated(afftrack.KindAffiliate, s.handleTrafficTypeReport)},
		{"", "/v1/affiliate/reports/merchant", s.authenticated(afftrack.KindAffiliate, s.handleMerchantReport)},
		{"", "/v1/merchant/reports/affiliate", s.authenticated(afftrack.KindMerchant, s.handleAffiliateReport)},
	}
}

// withReportRoutes returns s's whole interface with the report routes
// added to its route table if the table lacks them: the handler NewServer
// builds, so the tests hold before and after routes.go lists them.
func withReportRoutes(s *Server) http.Handler {
	table := s.routes()
	have := map[string]bool{}
	for _, rt := range table {
		have[rt.path] = true
	}
	for _, rt := range s.reportRoutes() {
		if !have[rt.path] {
			table = append(table, rt)
		}
	}
	mux := http.NewServeMux()
	for _, rt := range table {
		method := rt.method
		if method == "" {
			method = http.MethodGet
		}
		mux.Handle(method+" "+rt.path, withRoute(rt.path, rt.handler))
		mux.Handle(rt.path, withRoute(rt.path, s.methodNotAllowed(method)))
	}
	mux.Handle("/", http.HandlerFunc(s.notFound))
	return s.withState(s.withLogging(s.withRecover(s.withoutBody(s.withCanonicalPath(mux)))))
}

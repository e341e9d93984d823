package api

import (
	"context"
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

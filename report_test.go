package afftrack

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRoundCents(t *testing.T) {
	for _, tt := range []struct {
		m    Money
		want int64
	}{
		{0, 0}, {49, 0}, {50, 1}, {150, 2}, {149, 1}, {-49, 0}, {-50, -1}, {-150, -2}, {-151, -2},
		{12345, 123}, {12350, 124}, {-12350, -124}, {1000000, 10000},
		{math.MaxInt64, 92233720368547758}, {math.MinInt64, -92233720368547758},
	} {
		if got := RoundCents(tt.m); got != tt.want {
			t.Errorf("RoundCents(%d) = %d, want %d", tt.m, got, tt.want)
		}
	}
}

func TestReportMetricsAddTransactions(t *testing.T) {
	var m ReportMetrics
	for _, add := range []struct {
		s                          TransactionStatus2
		n                          int64
		sale, commission, override Money
	}{
		{Status2Pending, 1, 10, 1, 2}, {Status2Locked, 2, 20, 2, 3}, {Status2Approved, 3, 30, 3, 4},
		{Status2Paid, 4, 40, 4, 5}, {Status2Void, 5, 50, 5, 6},
	} {
		if err := m.AddTransactions(add.s, add.n, add.sale, add.commission, add.override); err != nil {
			t.Fatal(err)
		}
	}
	want := ReportMetrics{TransactionsPending: 3, TransactionsApproved: 7, TransactionsVoid: 5,
		SaleValuePending: 30, SaleValueApproved: 70, SaleValueVoid: 50,
		CommissionPending: 3, CommissionApproved: 7, CommissionVoid: 5,
		OverridePending: 5, OverrideApproved: 9, OverrideVoid: 6}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReportMetricsRefuseASumBeyondTheRange(t *testing.T) {
	tests := []struct {
		name                       string
		sale, commission, override Money
	}{
		{"a sale value past the largest amount", 1, 0, 0},
		{"an override past the largest amount", 0, 0, 1},
		{"a commission past the smallest amount", 0, -2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused and changes nothing", func(t *testing.T) {
			m := ReportMetrics{TransactionsPending: 1, SaleValuePending: math.MaxInt64,
				CommissionPending: math.MinInt64 + 1, OverridePending: math.MaxInt64}
			before := m
			err := m.AddTransactions(Status2Locked, 1, tt.sale, tt.commission, tt.override)
			if ErrorCode(err) != EUNPROCESSABLE {
				t.Fatalf("error %v, want %s", err, EUNPROCESSABLE)
			}
			if diff := cmp.Diff(before, m); diff != "" {
				t.Errorf("metrics changed (-want +got):\n%s", diff)
			}
		})
	}
}

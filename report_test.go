package afftrack

import (
	"math"
	"testing"
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
	m.AddTransactions(Status2Pending, 1, 10, 1, 2)
	m.AddTransactions(Status2Locked, 2, 20, 2, 3)
	m.AddTransactions(Status2Approved, 3, 30, 3, 4)
	m.AddTransactions(Status2Paid, 4, 40, 4, 5)
	m.AddTransactions(Status2Void, 5, 50, 5, 6)
	want := ReportMetrics{TransactionsPending: 3, TransactionsApproved: 7, TransactionsVoid: 5,
		SaleValuePending: 30, SaleValueApproved: 70, SaleValueVoid: 50,
		CommissionPending: 3, CommissionApproved: 7, CommissionVoid: 5,
		OverridePending: 5, OverrideApproved: 9, OverrideVoid: 6}
	if m != want {
		t.Errorf("got %+v, want %+v", m, want)
	}
}

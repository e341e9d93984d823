package main

import "testing"

// TestASpreadsheetRowGivesItsActionsCellsOnly: a validation row of the
// spreadsheet with a cell its Action does not take is refused, as the
// API's row is, rather than applied without it.
func TestASpreadsheetRowGivesItsActionsCellsOnly(t *testing.T) {
	tests := []struct {
		name                      string
		action, reason, saleValue string
		problem                   string
	}{
		{"an Approve with a SaleValue is refused", "Approve", "", "5", "SaleValue: applies only to Amend"},
		{"an Approve with a Reason is refused", "Approve", "Cancelled Order", "", "Reason: applies only to Void and Amend"},
		{"a Void with a SaleValue is refused", "Void", "Cancelled Order", "5", "SaleValue: applies only to Amend"},
		{"an Approve alone is taken", "Approve", "", "", ""},
		{"a Void with its Reason is taken", "Void", "Cancelled Order", "", ""},
		{"an Amend with its Reason and SaleValue is taken", "Amend", "Incorrect Sale Value", "5", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := validationRow("ORDER-1", tt.action, tt.reason, tt.saleValue)
			if v.Problem != tt.problem {
				t.Errorf("problem %q, want %q", v.Problem, tt.problem)
			}
		})
	}
}

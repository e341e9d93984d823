package main

import (
	"strings"
	"testing"
)

func TestCountJSON(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    int
		wantErr string
	}{
		{"an empty array holds no transactions", `[]`, 0, ""},
		{"each object of the array is a transaction", `[{"Id":1,"Items":[{"Sku":"a"}]},{"Id":2,"Items":[]}]`, 2, ""},
		{"a transaction without an Id is refused", `[{"Id":1},{"OrderId":"x"}]`, 1, "no Id"},
		{"a transaction written twice in a row is refused", `[{"Id":1},{"Id":1}]`, 1, "repeats"},
		{"a body that is not an array is refused", `{"Id":1}`, 0, "not an array"},
		{"a truncated array is refused", `[{"Id":1},{"Id":2`, 1, "EOF"},
		{"an array without its closing bracket is refused", `[{"Id":1}`, 1, "EOF"},
		{"anything after the array is refused", `[{"Id":1}] []`, 1, "more follows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := countJSON(strings.NewReader(tt.body))
			checkCount(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestCountXML(t *testing.T) {
	const head = `<?xml version="1.0" encoding="utf-8"?>`
	tests := []struct {
		name    string
		body    string
		want    int
		wantErr string
	}{
		{"an empty array holds no transactions", head + `<TransactionArray xmlns="http://x/" />`, 0, ""},
		{"only the root's Transaction children count", head + `<TransactionArray xmlns="http://x/">` +
			`<Transaction><Id>1</Id><Items><TransactionItem><Transaction>no</Transaction></TransactionItem></Items></Transaction>` +
			`<Transaction><Id>2</Id><Items /></Transaction></TransactionArray>`, 2, ""},
		{"a truncated document is refused", head + `<TransactionArray><Transaction><Id>1</Id></Transaction><Transaction><Id>`, 2, "EOF"},
		{"mismatched tags are refused", `<TransactionArray><Transaction></Items></TransactionArray>`, 1, "Items"},
		{"a second root element is refused", `<TransactionArray /><TransactionArray />`, 0, "2 root elements"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := countXML(strings.NewReader(tt.body))
			checkCount(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func checkCount(t *testing.T, got int, err error, want int, wantErr string) {
	t.Helper()
	if wantErr == "" && err != nil {
		t.Fatalf("error = %v, want none", err)
	}
	if wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)) {
		t.Fatalf("error = %v, want one mentioning %q", err, wantErr)
	}
	if got != want {
		t.Errorf("counted %d transactions, want %d", got, want)
	}
}

func TestParseHWM(t *testing.T) {
	tests := []struct {
		name    string
		status  string
		want    int64
		wantErr string
	}{
		{"the peak is read in kB and given in bytes", "Name:\tafftrack\nVmPeak:\t 1300000 kB\nVmHWM:\t   40960 kB\nVmRSS:\t   30000 kB\n", 40960 << 10, ""},
		{"a status without VmHWM is refused", "Name:\tafftrack\nVmRSS:\t 30000 kB\n", 0, "no VmHWM"},
		{"a VmHWM in another unit is refused", "VmHWM:\t 40 MB\n", 0, "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseHWM(tt.status)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseHWM error = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("parseHWM = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestRSSVerdict(t *testing.T) {
	tests := []struct {
		name string
		row  rssRow
		want string
	}{
		{"a peak under 150 MiB passes", rssRow{Transactions: 10, Want: 10, PeakHWM: 149 << 20}, "pass"},
		{"a peak of 150 MiB misses", rssRow{Transactions: 10, Want: 10, PeakHWM: 150 << 20}, "MISS"},
		{"a body missing transactions fails however small the peak", rssRow{Transactions: 9, Want: 10, PeakHWM: 1 << 20}, "FAILED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.row.verdict(); got != tt.want {
				t.Errorf("verdict() = %q, want %q", got, tt.want)
			}
		})
	}
}

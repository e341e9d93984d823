package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseWrkReadsTheSummary(t *testing.T) {
	tests := []struct {
		file    string
		want    result
		wantErr bool
	}{
		{"wrk_ok.txt", result{Requests: 1341, RequestsPerS: 667.14, P50: 5300 * time.Microsecond, P99: 21990 * time.Microsecond}, false},
		{"wrk_errors.txt", result{Requests: 1709, RequestsPerS: 1707.72, P50: 612 * time.Microsecond, P99: 1200 * time.Millisecond,
			Non2xx: 1709, SocketErrors: 5}, false},
		{"wrk_truncated.txt", result{}, true},
	}
	for _, tt := range tests {
		t.Run("wrk output "+tt.file+" is read", func(t *testing.T) {
			out, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseWrk(string(out))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseWrk: err = %v, want an error: %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseWrk (-want +got):\n%s", diff)
			}
			if got.failed() != (got.Non2xx > 0) {
				t.Errorf("failed() = %v for %+v", got.failed(), got)
			}
		})
	}
}

func TestParseWrkDurationKnowsEveryUnit(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"612.00us", 612 * time.Microsecond, true},
		{"1.48ms", 1480 * time.Microsecond, true},
		{"1.20s", 1200 * time.Millisecond, true},
		{"2.00m", 2 * time.Minute, true},
		{"1.00h", time.Hour, true},
		{"12", 0, false},
		{"abcms", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in+" is read", func(t *testing.T) {
			got, err := parseWrkDuration(tt.in)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("parseWrkDuration(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}

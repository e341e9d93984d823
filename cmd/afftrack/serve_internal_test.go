package main

import "testing"

func TestListStreamsLeaveConnectionsForOtherRequests(t *testing.T) {
	for _, tt := range []struct {
		name                     string
		requested, dbConns, want int
	}{
		{"the default 64 on a pool of 8 is 6", 64, 8, 6},
		{"no bound of its own on a pool of 8 is 6", 0, 8, 6},
		{"a pool of 16 leaves a quarter", 64, 16, 12},
		{"a pool of 100 leaves a quarter", 64, 100, 64},
		{"fewer than the pool's share are as asked", 3, 16, 3},
		{"a pool of 2 streams one", 64, 2, 1},
		{"a pool of 3 streams one", 64, 3, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := listStreams(tt.requested, tt.dbConns); got != tt.want {
				t.Errorf("listStreams(%d, %d) = %d, want %d", tt.requested, tt.dbConns, got, tt.want)
			}
		})
	}
}

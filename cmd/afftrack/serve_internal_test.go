package main

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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

func TestTheListeningLineShowsTheAddressAsGiven(t *testing.T) {
	for _, tt := range []struct {
		name, given, got, want string
	}{
		{"every IPv4 interface stays 0.0.0.0", "0.0.0.0:8080", "[::]:8080", "0.0.0.0:8080"},
		{"a port the kernel picked is shown", "127.0.0.1:0", "127.0.0.1:41234", "127.0.0.1:41234"},
		{"a host name is kept", "localhost:8080", "127.0.0.1:8080", "localhost:8080"},
		{"no host shows what was got", ":8080", "[::]:8080", "[::]:8080"},
		{"an IPv6 host keeps its brackets", "[::1]:0", "[::1]:5000", "[::1]:5000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := net.ResolveTCPAddr("tcp", tt.got)
			if err != nil {
				t.Fatal(err)
			}
			if s := shownAddr(tt.given, got); s != tt.want {
				t.Errorf("shownAddr(%q, %s) = %q, want %q", tt.given, tt.got, s, tt.want)
			}
		})
	}
}

func TestThePublicURLFollowsTheAddressAServerListensOn(t *testing.T) {
	for _, tt := range []struct{ name, addr, want string }{
		{"127.0.0.1 is localhost", "127.0.0.1:8080", "http://localhost:8080"},
		{"::1 is localhost", "[::1]:8080", "http://localhost:8080"},
		{"every interface is localhost", "[::]:9090", "http://localhost:9090"},
		{"every IPv4 interface is localhost", "0.0.0.0:9090", "http://localhost:9090"},
		{"another loopback address is localhost too, as the contract pins it", "127.0.0.2:8080", "http://localhost:8080"},
		{"an interface's address is kept", "192.0.2.7:80", "http://192.0.2.7:80"},
		{"an IPv6 address keeps its brackets", "[2001:db8::7]:80", "http://[2001:db8::7]:80"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr, err := net.ResolveTCPAddr("tcp", tt.addr)
			if err != nil {
				t.Fatal(err)
			}
			if got := derivePublicURL(addr); got != tt.want {
				t.Errorf("derivePublicURL(%s) = %q, want %q", tt.addr, got, tt.want)
			}
		})
	}
}

func TestClientConnectionsStayWithinTheLimitOfOpenFiles(t *testing.T) {
	for _, tt := range []struct {
		name        string
		want        int
		limit       uint64
		wantAllowed int
	}{
		{"the default beside a large limit is kept", 4096, 1 << 20, 4096},
		{"the default beside 1024 files leaves room for the rest", 4096, 1024, 1024 - reservedFiles},
		{"no bound beside 1024 files is bounded", 0, 1024, 1024 - reservedFiles},
		{"a small limit keeps half for the rest", 4096, 256, 128},
		{"fewer than the room are as asked", 100, 1024, 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := connsWithin(tt.want, tt.limit); got != tt.wantAllowed {
				t.Errorf("connsWithin(%d, %d) = %d, want %d", tt.want, tt.limit, got, tt.wantAllowed)
			}
		})
	}
}

// TestTheDemoIsLoadedOnlyIntoADatabaseWithoutAccounts: started again on
// its file, the demo keeps what was done to it (a paid sale loaded again
// would be paid twice), and it never replaces an operator's accounts.
func TestTheDemoIsLoadedOnlyIntoADatabaseWithoutAccounts(t *testing.T) {
	ctx := context.Background()
	db, err := openStore(ctx, "sqlite:"+filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	env := &cliEnv{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: io.Discard}
	if err := loadDemo(ctx, db, time.UTC, env, true); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `UPDATE merchants SET name = 'Renamed' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	env.stdout = &out
	if err := loadDemo(ctx, db, time.UTC, env, true); err != nil {
		t.Fatal(err)
	}
	var name string
	if err := db.SQL().QueryRowContext(ctx, `SELECT name FROM merchants WHERE id = 1`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	if name != "Renamed" {
		t.Errorf("merchant 1 is %q again: the demo was loaded over the database's accounts", name)
	}
	if !strings.Contains(out.String(), "kept as they are") {
		t.Errorf("the start-up lines do not say the accounts were kept:\n%s", out.String())
	}
}

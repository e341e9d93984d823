package notify

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAllowedIP(t *testing.T) {
	tests := []struct {
		name string
		ip   string
		want bool
	}{
		{"a public IPv4 address is allowed", "8.8.8.8", true},
		{"a public IPv6 address is allowed", "2001:4860:4860::8888", true},
		{"a public address mapped into IPv6 is allowed", "::ffff:8.8.8.8", true},
		{"a NAT64 address of a public one is allowed", "64:ff9b::808:808", true},
		{"a 6to4 address of a public one is allowed", "2002:808:808::1", true},
		{"the edge of CGNAT is public", "100.128.0.1", true},
		{"the edge of 172.16/12 is public", "172.32.0.1", true},
		{"IPv4 loopback is refused", "127.0.0.1", false},
		{"all of 127/8 is refused", "127.255.0.9", false},
		{"IPv6 loopback is refused", "::1", false},
		{"10/8 is refused", "10.1.2.3", false},
		{"172.16/12 is refused", "172.31.255.255", false},
		{"192.168/16 is refused", "192.168.0.1", false},
		{"IPv6 unique-local is refused", "fd12:3456::1", false},
		{"fc00::/7 is refused from its start", "fc00::1", false},
		{"IPv4 link-local is refused", "169.254.1.1", false},
		{"the cloud metadata address is refused", "169.254.169.254", false},
		{"AWS's IPv6 metadata address is refused", "fd00:ec2::254", false},
		{"IPv6 link-local is refused", "fe80::1", false},
		{"IPv6 link-local with a zone is refused", "fe80::1%eth0", false},
		{"the IPv4 unspecified address is refused", "0.0.0.0", false},
		{"0/8 is refused", "0.1.2.3", false},
		{"the IPv6 unspecified address is refused", "::", false},
		{"IPv4 multicast is refused", "224.0.0.1", false},
		{"IPv6 multicast is refused", "ff02::1", false},
		{"the broadcast address is refused", "255.255.255.255", false},
		{"reserved 240/4 is refused", "240.0.0.1", false},
		{"CGNAT is refused", "100.64.0.1", false},
		{"Alibaba's metadata address in CGNAT is refused", "100.100.100.200", false},
		{"benchmarking 198.18/15 is refused", "198.19.0.1", false},
		{"documentation addresses are refused", "192.0.2.1", false},
		{"IPv6 documentation addresses are refused", "2001:db8::1", false},
		{"mapped loopback is refused", "::ffff:127.0.0.1", false},
		{"mapped private is refused", "::ffff:10.0.0.1", false},
		{"mapped metadata is refused", "::ffff:169.254.169.254", false},
		{"mapped unspecified is refused", "::ffff:0.0.0.0", false},
		{"IPv4-compatible loopback is refused", "::127.0.0.1", false},
		{"NAT64 of loopback is refused", "64:ff9b::7f00:1", false},
		{"NAT64 of the metadata address is refused", "64:ff9b::a9fe:a9fe", false},
		{"local-use NAT64 is refused", "64:ff9b:1::808:808", false},
		{"6to4 of a private address is refused", "2002:a00:1::1", false},
		{"site-local IPv6 is refused", "fec0::1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ip := netip.MustParseAddr(tt.ip)
			if diff := cmp.Diff(tt.want, allowedIP(ip)); diff != "" {
				t.Errorf("allowedIP(%s) (-want +got):\n%s", tt.ip, diff)
			}
		})
	}
	if allowedIP(netip.Addr{}) {
		t.Errorf("the invalid address is allowed")
	}
}

func TestRefusePrivate(t *testing.T) {
	tests := []struct {
		name        string
		address     string
		wantRefused bool
		wantErr     bool
	}{
		{"a public address and port pass", "8.8.8.8:443", false, false},
		{"a public IPv6 address and port pass", "[2001:4860:4860::8888]:80", false, false},
		{"a loopback address is refused", "127.0.0.1:80", true, true},
		{"a link-local address with a zone is refused", "[fe80::1%eth0]:80", true, true},
		{"a name, which should never reach the hook, is refused", "example.com:80", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := refusePrivate("tcp", tt.address, nil)
			if (err != nil) != tt.wantErr || isRefused(err) != tt.wantRefused {
				t.Errorf("refusePrivate(%q) = %v; want error %v, refused %v", tt.address, err, tt.wantErr, tt.wantRefused)
			}
		})
	}
}

func TestDelivererRefusesNonPublicAddresses(t *testing.T) {
	recv := newReceiver(t, nil)
	_, port, _ := net.SplitHostPort(recv.Listener.Addr().String())
	// lookup stands in for DNS: rebind.example resolves to loopback, as a
	// hostile affiliate's name server could make it.
	lookup := func(ctx context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "rebind.example":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		case "metadata.example":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
		case "mixed.example":
			return []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("::1")}, nil
		}
		if ip, err := netip.ParseAddr(host); err == nil {
			return []netip.Addr{ip}, nil
		}
		addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, errors.New("no address")
		}
		return addrs, nil
	}
	tests := []struct {
		name string
		host string
	}{
		{"IPv4 loopback is refused", "127.0.0.1"},
		{"localhost is refused", "localhost"},
		{"IPv6 loopback is refused", "[::1]"},
		{"mapped loopback is refused", "[::ffff:127.0.0.1]"},
		{"the cloud metadata address is refused", "169.254.169.254"},
		{"the unspecified address is refused", "0.0.0.0"},
		{"a name that resolves to loopback is refused", "rebind.example"},
		{"a name that resolves to the metadata address is refused", "metadata.example"},
		{"a name with only private addresses is refused", "mixed.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			outbox := &fakeOutbox{}
			id := outbox.add("http://"+tt.host+":"+port+"/cb?tx=1", clock.Now())
			obs := &observed{}
			d := New(outbox, Options{Now: clock.Now, Observe: obs.Observe})
			d.client = newClient(false, d.o.Timeout, lookup)

			if _, err := d.RunOnce(t.Context()); err != nil {
				t.Fatal(err)
			}
			got := outbox.row(id)
			if got.delivered || got.givenUp || got.n.Attempts != 1 || !strings.Contains(got.why, "refused to call") {
				t.Errorf("row = %+v; want refused and to be retried", got)
			}
			if diff := cmp.Diff([]string{OutcomeRefused}, obs.get()); diff != "" {
				t.Errorf("outcomes (-want +got):\n%s", diff)
			}
			if n := recv.requests.Load(); n != 0 {
				t.Errorf("%d requests reached the receiver; want none", n)
			}
		})
	}

	t.Run("the default client refuses literal and resolved loopback alike", func(t *testing.T) {
		for _, host := range []string{"127.0.0.1", "localhost", "[::1]"} {
			clock := newFakeClock()
			outbox := &fakeOutbox{}
			id := outbox.add("http://"+host+":"+port+"/", clock.Now())
			obs := &observed{}
			d := New(outbox, Options{Now: clock.Now, Observe: obs.Observe})
			if _, err := d.RunOnce(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got := outbox.row(id); !strings.Contains(got.why, "refused to call") {
				t.Errorf("%s: why = %q; want refused", host, got.why)
			}
		}
		if n := recv.requests.Load(); n != 0 {
			t.Errorf("%d requests reached the receiver; want none", n)
		}
	})

	t.Run("with AllowPrivate the same receiver is reached", func(t *testing.T) {
		clock := newFakeClock()
		outbox := &fakeOutbox{}
		id := outbox.add("http://localhost:"+port+"/", clock.Now())
		d := New(outbox, Options{AllowPrivate: true, Now: clock.Now})
		if _, err := d.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := outbox.row(id); !got.delivered {
			t.Errorf("row = %+v; want delivered", got)
		}
		if n := recv.requests.Load(); n != 1 {
			t.Errorf("%d requests reached the receiver; want 1", n)
		}
	})
}

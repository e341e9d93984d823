package notify

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// refusedError is a dial refused because the address is not public.
type refusedError struct {
	addr netip.Addr
}

func (e *refusedError) Error() string {
	return fmt.Sprintf("refused to call %s: not a public address (--notify-allow-private allows it)", e.addr)
}

// nonPublic are the ranges no notification may reach unless private
// addresses are allowed: an affiliate chooses the URL, so without this
// afftrack would be an open door into its own network (SSRF). They are
// the IANA special-purpose ranges that are not globally reachable, beyond
// what netip.Addr's predicates already cover.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT, and Alibaba's metadata 100.100.100.200
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF assignments, and Oracle's metadata 192.0.0.192
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the broadcast address
	netip.MustParsePrefix("::/96"),           // IPv4-compatible, deprecated: nothing public lives there
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fec0::/10"),       // site-local, deprecated
}

// embedsIPv4 are IPv6 ranges that carry an IPv4 address a gateway may
// forward to, at the offset given: NAT64 (RFC 6052) at the end, 6to4
// (RFC 3056) after the prefix. The embedded address must be public too,
// or 64:ff9b::7f00:1 would be a way to 127.0.0.1.
var embedsIPv4 = []struct {
	prefix netip.Prefix
	offset int
}{
	{netip.MustParsePrefix("64:ff9b::/96"), 12},
	{netip.MustParsePrefix("2002::/16"), 2},
}

// allowedIP reports whether ip is a public unicast address a notification
// may be sent to. The cloud metadata addresses (169.254.169.254,
// fd00:ec2::254) fall in link-local and unique-local ranges.
func allowedIP(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() ||
		ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	for _, e := range embedsIPv4 {
		if e.prefix.Contains(ip) {
			b := ip.As16()
			return allowedIP(netip.AddrFrom4([4]byte(b[e.offset : e.offset+4])))
		}
	}
	return true
}

// refusePrivate is a net.Dialer Control function. It runs on the address
// actually dialled, after name resolution and for every address tried, so
// neither a name that resolves to a private address (DNS rebinding
// included) nor a literal in any spelling gets past it.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refused to call %q: not an IP address and port", address)
	}
	if !allowedIP(ap.Addr()) {
		return &refusedError{addr: ap.Addr()}
	}
	return nil
}

// isRefused reports whether err is, or wraps, a refused dial.
func isRefused(err error) bool {
	var r *refusedError
	return errors.As(err, &r)
}

// lookupFunc resolves a host name to the addresses to dial. Tests use it
// to stand in for DNS; nil leaves resolution to the net.Dialer.
type lookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

// newClient returns the HTTP client notifications are sent with: redirects
// not followed (a receiver could otherwise bounce the call to any address
// the dialer would not see as the target of a new request, and the
// contract wants the receiver itself to answer 2xx), no proxy from the
// environment (a proxy would dial on our behalf, out of the Control
// function's sight), and a dialer that refuses non-public addresses
// unless allowPrivate.
func newClient(allowPrivate bool, timeout time.Duration, lookup lookupFunc) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = refusePrivate
	}
	dial := dialer.DialContext
	if lookup != nil {
		dial = func(ctx context.Context, network, address string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(address)
			if err != nil {
				return nil, err
			}
			addrs, err := lookup(ctx, host)
			if err != nil {
				return nil, err
			}
			if len(addrs) == 0 {
				return nil, fmt.Errorf("%s has no address", host)
			}
			var errs []error
			for _, a := range addrs {
				c, err := dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
				if err == nil {
					return c, nil
				}
				errs = append(errs, err)
			}
			return nil, errors.Join(errs...)
		}
	}
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dial,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: maxBody,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

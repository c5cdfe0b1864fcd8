package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/weburl"
)

// Bounds of a Resolver's cache.
const (
	ResolverTTL     = 5 * time.Minute  // a host's addresses are looked up again after this
	ResolverFailTTL = 30 * time.Second // a host that did not resolve is asked again after this
	resolverTimeout = 10 * time.Second // the longest look-up when no ConnectTimeout is given
	minPrune        = 1 << 16          // cached hosts below which nothing is pruned
)

// ErrNoAddress reports a host name that resolved to no address.
var ErrNoAddress = errors.New("fetch: host has no address")

// Resolver is the crawl's name resolution: where a request to a host and port is dialled
// (the first ConnectTo mapping that matches, curl's --connect-to) and the addresses of a
// name (the system's resolver; an address is its own), each answer or failure kept for a
// while (ResolverTTL, ResolverFailTTL) so that a crawl asks once per host rather than per
// request. A Client dials through one (Config.Resolver); the crawl's policies that decide on
// addresses (ip scope rules, politeness per address) ask the same one, so both see the same
// address. It is safe for concurrent use.
type Resolver struct {
	connectTo []ConnectTo
	timeout   time.Duration
	// lookup resolves a host name; tests replace it so that no test asks a DNS server.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	now    func() time.Time

	mu      sync.Mutex // guards entries and pruneAt
	entries map[string]resolved
	pruneAt int // entries are pruned when there are this many
}

// resolved is a cached answer.
type resolved struct {
	addrs []netip.Addr
	err   error
	until time.Time
}

// NewResolver returns a Resolver with the mappings connectTo (ConnectTo values as
// ParseConnectTo makes them, host names lowercase) and a look-up bounded by timeout (10s
// when it is not positive).
func NewResolver(connectTo []ConnectTo, timeout time.Duration) *Resolver {
	if timeout <= 0 {
		timeout = resolverTimeout
	}
	return &Resolver{
		connectTo: connectTo,
		timeout:   timeout,
		lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
		now:     time.Now,
		entries: map[string]resolved{},
		pruneAt: minPrune,
	}
}

// Map returns the host and port a request to host:port (host lowercase, unbracketed) is
// dialled at: those of the first ConnectTo mapping that matches, each field it leaves empty
// the request's own; host and port themselves without one.
func (r *Resolver) Map(host, port string) (string, string) {
	for _, m := range r.connectTo {
		if m.matches(host, port) {
			if m.ToHost != "" {
				host = m.ToHost
			}
			if m.ToPort != "" {
				port = m.ToPort
			}
			break
		}
	}
	return host, port
}

// Lookup returns the addresses of host (a name or an address, unbracketed), in the order
// they are dialled: an address is its own; a name's are looked up, or taken from the cache.
// A name with no address fails with ErrNoAddress.
func (r *Resolver) Lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	now := r.now()
	r.mu.Lock()
	e, ok := r.entries[host]
	r.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.addrs, e.err
	}
	lctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	addrs, err := r.lookup(lctx, host)
	if ctx.Err() != nil {
		return nil, err // not an answer: the caller gave up
	}
	e = resolved{addrs: addrs, err: err, until: now.Add(ResolverTTL)}
	switch {
	case err != nil:
		e.until = now.Add(ResolverFailTTL)
	case len(addrs) == 0:
		e.err, e.until = fmt.Errorf("%w: %s", ErrNoAddress, host), now.Add(ResolverFailTTL)
	}
	r.store(host, e, now)
	return e.addrs, e.err
}

// store caches e for host, pruning the expired entries when there are many.
func (r *Resolver) store(host string, e resolved, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries[host] = e
	if len(r.entries) < r.pruneAt {
		return
	}
	for h, x := range r.entries {
		if !now.Before(x.until) {
			delete(r.entries, h)
		}
	}
	r.pruneAt = max(minPrune, 2*len(r.entries))
}

// URLAddr returns the address a request for the absolute http or https URL raw is sent to
// first: its host and port mapped (Map), then resolved (Lookup), the first address. It is
// the address a Client without a proxy dials first.
func (r *Resolver) URLAddr(raw string) (netip.Addr, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return netip.Addr{}, fmt.Errorf("fetch: no host in %q", raw)
	}
	port := u.Port()
	if port == "" {
		port = weburl.DefaultPort(u.Scheme)
	}
	host, _ := r.Map(strings.ToLower(u.Hostname()), port)
	addrs, err := r.Lookup(context.Background(), host)
	if err != nil {
		return netip.Addr{}, err
	}
	return addrs[0].Unmap().WithZone(""), nil
}

package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/scope"
)

var errTestNXDomain = errors.New("test: no such host")

// TestAddrBook: connect_to first (an address as it is, a name resolved), literal addresses,
// answers and failures cached for their time, a host without addresses an error.
func TestAddrBook(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lookups := map[string]int{}
	b := newAddrBook(fetch.Config{ConnectTo: []fetch.ConnectTo{
		{Host: "mapped.example", ToHost: "127.0.0.2"},
		{Host: "named.example", ToHost: "target.example"},
		{Host: "port.example", Port: "8080", ToHost: "127.0.0.3"},
	}})
	b.now = func() time.Time { return now }
	b.lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		lookups[host]++
		switch host {
		case "www.example", "target.example":
			return []netip.Addr{netip.MustParseAddr("::ffff:192.0.2.7"), netip.MustParseAddr("192.0.2.8")}, nil
		case "empty.example":
			return nil, nil
		}
		return nil, errTestNXDomain
	}
	tests := []struct {
		url     string
		want    string
		err     error
		lookups map[string]int // after this row
	}{
		{"http://mapped.example/", "127.0.0.2", nil, map[string]int{}},
		{"http://[2001:db8::1]/", "2001:db8::1", nil, map[string]int{}},
		{"http://192.0.2.1:8080/", "192.0.2.1", nil, map[string]int{}},
		{"http://www.example/a", "192.0.2.7", nil, map[string]int{"www.example": 1}},  // the first, unmapped
		{"https://www.example/b", "192.0.2.7", nil, map[string]int{"www.example": 1}}, // cached
		{"http://named.example/", "192.0.2.7", nil, map[string]int{"www.example": 1, "target.example": 1}},
		{"http://port.example:8080/", "127.0.0.3", nil, map[string]int{"www.example": 1, "target.example": 1}},
		{"http://port.example/", "", errTestNXDomain, map[string]int{"www.example": 1, "target.example": 1, "port.example": 1}},
		{"http://port.example/x", "", errTestNXDomain, map[string]int{"www.example": 1, "target.example": 1, "port.example": 1}},
		{"http://empty.example/", "", errNoAddress, map[string]int{"www.example": 1, "target.example": 1, "port.example": 1, "empty.example": 1}},
	}
	for _, tt := range tests {
		a, err := b.addrOfURL(tt.url)
		if !errors.Is(err, tt.err) || (tt.err == nil && a.String() != tt.want) {
			t.Errorf("%s: %v, %v; want %s, %v", tt.url, a, err, tt.want, tt.err)
		}
		if len(lookups) != len(tt.lookups) {
			t.Errorf("%s: look-ups %v, want %v", tt.url, lookups, tt.lookups)
		}
		for h, n := range tt.lookups {
			if lookups[h] != n {
				t.Errorf("%s: look-ups %v, want %v", tt.url, lookups, tt.lookups)
			}
		}
	}
	// A failure is asked again after addrFailTTL, an answer after addrTTL.
	now = now.Add(addrFailTTL + time.Second)
	b.addrOfURL("http://port.example/")
	b.addrOfURL("http://www.example/")
	if lookups["port.example"] != 2 || lookups["www.example"] != 1 {
		t.Errorf("after %v: look-ups %v", addrFailTTL, lookups)
	}
	now = now.Add(addrTTL)
	b.addrOfURL("http://www.example/")
	if lookups["www.example"] != 2 {
		t.Errorf("after %v: look-ups %v", addrTTL, lookups)
	}
}

// TestAddrCheck: the connection check refuses a claimed URL that only an ip rule let in when
// its connection goes elsewhere, and any request an ip block rule keeps out; it lets the rest
// through, and everything when the scope has no ip rule.
func TestAddrCheck(t *testing.T) {
	seed := "http://www.example.com/"
	mk := func(cfg scope.Config) *addrGate {
		cfg.Seeds = []scope.Seed{{URL: seed}}
		sc, err := scope.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c := &crawler{}
		c.scope.Store(sc)
		return &addrGate{c: c, sites: map[netip.Addr]*ipSite{}}
	}
	accept := mk(scope.Config{Accept: []scope.Rule{{IP: "10.0.0.0/8"}}})
	block := mk(scope.Config{Block: []scope.Rule{{IP: "192.0.2.0/24"}}})
	none := mk(scope.Config{})
	claimed := frontier.URL{URL: "http://other.example/a", Hops: "L", Via: seed, Seed: seed}
	for _, g := range []*addrGate{accept, block, none} {
		g.inflight.Store(claimed.URL, claimed)
	}
	tests := []struct {
		name   string
		g      *addrGate
		url    string
		addr   string
		reason string // "" lets it through
	}{
		{"claimed, in the accepted mask", accept, claimed.URL, "10.1.1.1", ""},
		{"claimed, moved out of the accepted mask", accept, claimed.URL, "11.1.1.1", scope.ReasonAddress},
		{"claimed, in by its seed's prefix", accept, seed + "page", "11.1.1.1", ""},
		{"a subresource: accept rules do not bind embeds", accept, "http://cdn.example/x.png", "11.1.1.1", ""},
		{"claimed, blocked address", block, claimed.URL, "192.0.2.9", "block:ip:192.0.2.0/24"},
		{"a subresource, blocked address", block, "HTTP://CDN.example/x.png", "192.0.2.9", "block:ip:192.0.2.0/24"},
		{"claimed, another address", block, claimed.URL, "198.51.100.1", ""},
		{"no ip rules", none, claimed.URL, "192.0.2.9", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.g.check(tt.url, netip.MustParseAddr(tt.addr))
			var ar *chain.Refusal
			switch {
			case tt.reason == "" && err != nil:
				t.Errorf("check = %v, want nil", err)
			case tt.reason != "" && (!errors.As(err, &ar) || ar.Reason != tt.reason || !slices.Contains(ar.Outcome.Annotations, "addr:"+tt.addr)):
				t.Errorf("check = %v, want a refusal %s at %s", err, tt.reason, tt.addr)
			}
		})
	}
}

// TestAddrPrune: the caches drop what has expired once they hold minPrune entries.
func TestAddrPrune(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := newAddrBook(fetch.Config{})
	b.now = func() time.Time { return now }
	b.lookup = func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("192.0.2.1")}, nil
	}
	for i := range minPrune - 2 {
		b.entries[fmt.Sprintf("old%d.example", i)] = addrEntry{until: now.Add(-time.Second)}
	}
	b.entries["fresh.example"] = addrEntry{until: now.Add(time.Minute)}
	if _, err := b.addrOfURL("http://new.example/"); err != nil {
		t.Fatal(err)
	}
	if len(b.entries) != 2 {
		t.Errorf("%d hosts cached after pruning, want 2 (fresh and new)", len(b.entries))
	}
	g := &addrGate{sites: map[netip.Addr]*ipSite{}, pruneAt: minPrune}
	for i := range minPrune {
		a := netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})
		g.sites[a] = &ipSite{next: now.Add(-time.Second)}
	}
	busy := netip.MustParseAddr("10.0.0.1")
	later := netip.MustParseAddr("10.0.0.2")
	g.sites[busy].busy = 1
	g.sites[later].next = now.Add(time.Second)
	g.prune(now)
	if len(g.sites) != 2 || g.sites[busy] == nil || g.sites[later] == nil {
		t.Errorf("%d addresses kept after pruning, want the busy one and the one still waiting", len(g.sites))
	}
}

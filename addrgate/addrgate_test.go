package addrgate

import (
	"errors"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/scope"
)

// TestAddrCheck: the connection check refuses a claimed URL that only an ip rule let in when
// its connection goes elsewhere, and any request an ip block rule keeps out; it lets the rest
// through, and everything when the scope has no ip rule.
func TestAddrCheck(t *testing.T) {
	seed := "http://www.example.com/"
	mk := func(cfg scope.Config) *Gate {
		cfg.Seeds = []scope.Seed{{URL: seed}}
		sc, err := scope.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return New(Config{}, Deps{Scope: func() *scope.Scope { return sc },
			Canonical: func(raw string) (string, error) { return scope.Canonicalize(raw, scope.Standard) }})
	}
	accept := mk(scope.Config{Accept: []scope.Rule{{IP: "10.0.0.0/8"}}})
	block := mk(scope.Config{Block: []scope.Rule{{IP: "192.0.2.0/24"}}})
	none := mk(scope.Config{})
	claimed := frontier.URL{URL: "http://other.example/a", Hops: "L", Via: seed, Seed: seed}
	for _, g := range []*Gate{accept, block, none} {
		g.inflight.Store(claimed.URL, claimed)
	}
	tests := []struct {
		name   string
		g      *Gate
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
			err := tt.g.Check(tt.url, netip.MustParseAddr(tt.addr))
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

// TestGatePrune: the addresses at rest are dropped once there are minPrune of them.
func TestGatePrune(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := New(Config{}, Deps{})
	for i := range minPrune {
		a := netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})
		g.sites[a] = &site{next: now.Add(-time.Second)}
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

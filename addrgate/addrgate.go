// Package addrgate is the address side of a crawl: the scope's ip rules (scope.KindIP)
// decided on the address a request is actually sent to, and politeness by address (FAST's
// enforce_delay_per_ip). Its Gate is a processor of the crawl's chain (package chain) that
// wraps the fetch: the fetcher asks it about the address of each request it is about to send
// (Check, fetch.Config.CheckAddr), so a URL whose connection goes to an address its ip rules
// keep out is refused before it is sent (-5000, its scope reason and addr:ADDRESS, as a URL
// scope kept out), whatever DNS said when the URL was found; and with per-address politeness
// the hosts whose names resolve to one address share that address's turns, spaced by the
// delay in force for each host. Addresses come from the crawl's one fetch.Resolver, the one
// its fetcher dials through.
package addrgate

import (
	"context"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

// Config configures a Gate.
type Config struct {
	// PerIP spaces requests by address as well as by host: the hosts whose names resolve to
	// one address share the delay in force for each (Deps.Delay) and Concurrency as one host
	// would, in this process. A page's subresources loaded by the browser, robots.txt and
	// login requests are not held back. Off through a proxy (the addresses are the proxy's
	// to know).
	PerIP bool
	// Concurrency is the most requests under way to one address with PerIP (the crawl's
	// requests per host); at least 1.
	Concurrency int
}

// Deps is what a Gate needs of the crawl.
type Deps struct {
	// Resolver resolves hosts as the crawl's fetcher does.
	Resolver *fetch.Resolver
	// Scope returns the crawl's scope now (control may swap it while the crawl runs).
	Scope func() *scope.Scope
	// Canonical returns the canonical form of a URL the crawl requests that is not one of its
	// own (a subresource, a robots.txt), as the scope decides it.
	Canonical func(raw string) (string, error)
	// Delay returns the delay between two requests to host in force now: the time an
	// address waits after a request of host before its next one (with PerIP).
	Delay func(host string) time.Duration
	// Log receives what the gate notes (a host without an address for the scope's rules).
	Log *slog.Logger
}

// Gate is the crawl's address gate. It is safe for concurrent use.
type Gate struct {
	cfg  Config
	deps Deps

	inflight sync.Map // URL being fetched for a claim -> frontier.URL

	mu      sync.Mutex // guards sites and pruneAt
	sites   map[netip.Addr]*site
	pruneAt int // sites are pruned when there are this many
}

// site is the politeness state of one address.
type site struct {
	busy int           // requests under way
	next time.Time     // no request starts before
	wake chan struct{} // closed when a request ends
}

// minPrune is the number of addresses with a politeness state below which none is pruned;
// above it, those at rest are dropped whenever the number doubles.
const minPrune = 1 << 16

// New returns the gate of cfg.
func New(cfg Config, deps Deps) *Gate {
	cfg.Concurrency = max(cfg.Concurrency, 1)
	return &Gate{cfg: cfg, deps: deps, sites: map[netip.Addr]*site{}, pruneAt: minPrune}
}

func (*Gate) Name() string { return "addresses" }

// Addr returns the address of the host of a canonical URL the scope decides when its rules
// need one (scope.Candidate.Addr), else the zero Addr (nothing is looked up). A host that
// does not resolve has the zero Addr: scope then says scope.ReasonNoAddress where an ip rule
// could let it in. A nil *Gate looks nothing up.
func (g *Gate) Addr(u string) netip.Addr {
	if g == nil || !g.deps.Scope().NeedsAddr() {
		return netip.Addr{}
	}
	return g.HostAddr(u)
}

// HostAddr returns the address of a canonical URL's host for ip rules (the scope's, a
// subcollection's): the first the resolver gives, as the fetcher dials them in order; the
// zero Addr when it does not resolve.
func (g *Gate) HostAddr(u string) netip.Addr {
	a, err := g.deps.Resolver.URLAddr(u)
	if err != nil {
		g.deps.Log.Debug("no address for scope rules", "url", u, "err", err)
		return netip.Addr{}
	}
	return a
}

// Check is fetch.Config.CheckAddr: it decides the request's URL again with the address it is
// about to be sent to, and refuses it when an ip rule keeps it out (scope.Decision.ByAddr)
// with a *chain.Refusal. A URL being fetched for a claim is decided as it was found (its
// via's offHops taken as its own less one); any other request (a browser's subresources and
// redirects, robots.txt, logins) as an embed, which only block rules keep out.
func (g *Gate) Check(raw string, a netip.Addr) error {
	sc := g.deps.Scope()
	if !sc.NeedsAddr() {
		return nil
	}
	cand := scope.Candidate{URL: raw, Hops: string(hop.Embed), Addr: a}
	if v, ok := g.inflight.Load(raw); ok {
		u := v.(frontier.URL)
		cand = scope.Candidate{URL: u.URL, Hops: u.Hops, Via: u.Via, ViaHopsOff: max(u.HopsOff-1, 0), Seed: u.Seed, Addr: a}
	} else if cu, err := g.deps.Canonical(raw); err == nil {
		cand.URL = cu
	}
	if d := sc.Decide(cand); !d.In && d.ByAddr {
		return &chain.Refusal{Reason: d.Reason, Outcome: chain.Outcome{Status: status.OutOfScope,
			Annotations: []string{"scope:" + d.Reason, "addr:" + a.String()},
			Denied:      report.DenyOutOfScope, ScopeReason: d.Reason}}
	}
	return nil
}

// Wrap registers the URL as being fetched (for Check) and, with PerIP, makes its fetch wait
// for its address's turn; a URL that waited gets the note ip-wait:ADDRESS: the delay or the
// concurrency of another host on that address held it back.
func (g *Gate) Wrap(next chain.Fetch) chain.Fetch {
	return func(ctx context.Context, r *chain.Record) (*fetch.Result, error) {
		p := g.enter(ctx, r.URL())
		res, err := next(ctx, r)
		g.leave(p)
		if p.waited && p.site.IsValid() {
			r.Notes = append(r.Notes, "ip-wait:"+p.site.String())
		}
		return res, err
	}
}

// pass is a claimed URL's passage through the gate.
type pass struct {
	key    string
	site   netip.Addr // valid when the request took a place of the address (PerIP)
	host   string
	waited bool // the request waited for its address (another host's request on it)
}

// enter registers the claimed URL u as being fetched (for Check) and, with PerIP, waits until
// its host's address may be sent another request: fewer than Concurrency under way and the
// delay of the host in force past the end of the last one. A host that does not resolve
// waits for nothing (the fetch says why it fails); so does a URL when ctx ends.
func (g *Gate) enter(ctx context.Context, u frontier.URL) *pass {
	p := &pass{key: u.URL, host: u.Host}
	g.inflight.Store(u.URL, u)
	if !g.cfg.PerIP {
		return p
	}
	a, err := g.deps.Resolver.URLAddr(u.URL)
	if err != nil {
		return p
	}
	for {
		ok, wait, wake := g.take(a)
		if ok {
			p.site = a
			return p
		}
		p.waited = true
		var t *time.Timer
		var timer <-chan time.Time
		if wait >= 0 {
			t = time.NewTimer(wait)
			timer = t.C
		}
		select {
		case <-ctx.Done():
		case <-wake:
		case <-timer:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return p
		}
	}
}

// take takes a place of address a when one is free and its delay has passed; otherwise it
// returns how long until the delay has passed (-1: waiting for a place) and the channel closed
// when a request of the address ends.
func (g *Gate) take(a netip.Addr) (bool, time.Duration, <-chan struct{}) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	s := g.sites[a]
	if s == nil {
		g.prune(now)
		s = &site{wake: make(chan struct{})}
		g.sites[a] = s
	}
	if s.busy < g.cfg.Concurrency && !now.Before(s.next) {
		s.busy++
		return true, 0, nil
	}
	wait := time.Duration(-1)
	if s.busy < g.cfg.Concurrency {
		wait = s.next.Sub(now)
	}
	return false, wait, s.wake
}

// prune drops the addresses with nothing under way whose delay has passed (they are as new)
// when there are pruneAt of them. g.mu is held.
func (g *Gate) prune(now time.Time) {
	if len(g.sites) < g.pruneAt {
		return
	}
	for a, s := range g.sites {
		if s.busy == 0 && !now.Before(s.next) {
			delete(g.sites, a)
		}
	}
	g.pruneAt = max(minPrune, 2*len(g.sites))
}

// leave ends the pass at the end of the fetch: the address's next request waits the delay in
// force for the host from now.
func (g *Gate) leave(p *pass) {
	g.inflight.Delete(p.key)
	if !p.site.IsValid() {
		return
	}
	delay := g.deps.Delay(p.host)
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.sites[p.site]
	s.busy--
	if next := time.Now().Add(delay); next.After(s.next) {
		s.next = next
	}
	close(s.wake)
	s.wake = make(chan struct{})
}

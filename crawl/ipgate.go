package crawl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
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

// Addresses: what the crawl knows of the addresses its hosts resolve to, for the scope's ip
// rules (scope.KindIP) and for politeness by address (Config.PerIP).
//
// Scope decides a URL found with the address its host resolves to (addrBook, cached per host
// and port, network.connect_to honoured), and the fetcher asks addrGate.check about the
// address each request is actually about to be sent to (fetch.Config.CheckAddr): a URL whose
// connection goes to an address its ip rules keep out is not requested; it is logged -5000
// with its scope reason and annotation addr:ADDRESS, as a URL scope kept out is.

// Bounds of the address cache.
const (
	addrTTL     = 5 * time.Minute // a host's address is looked up again after this
	addrFailTTL = 30 * time.Second
	addrLookup  = 10 * time.Second // the longest look-up when fetch.Config.ConnectTimeout is 0
)

// addrBook resolves the hosts of URLs to the address the crawl connects to: the first the
// resolver gives, as the fetcher dials them in order (a --connect-to mapping first).
type addrBook struct {
	connectTo []fetch.ConnectTo
	timeout   time.Duration
	// lookup resolves a host name; tests replace it so that no test asks a DNS server.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	now    func() time.Time

	mu      sync.Mutex // guards entries and pruneAt
	entries map[string]addrEntry
	pruneAt int // entries are pruned when there are this many
}

// minPrune is the number of cached hosts (and of addresses with a politeness state) below
// which nothing is pruned; above it, expired ones are dropped whenever the number doubles.
const minPrune = 1 << 16

type addrEntry struct {
	addr  netip.Addr
	err   error
	until time.Time
}

func newAddrBook(fc fetch.Config) *addrBook {
	b := &addrBook{connectTo: fc.ConnectTo, timeout: fc.ConnectTimeout, now: time.Now, entries: map[string]addrEntry{}, pruneAt: minPrune}
	if b.timeout <= 0 {
		b.timeout = addrLookup
	}
	b.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	return b
}

// errNoAddress says a host resolved to no address.
var errNoAddress = errors.New("crawl: host has no address")

// addrOfURL returns the address a canonical http(s) URL's host resolves to.
func (b *addrBook) addrOfURL(raw string) (netip.Addr, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return netip.Addr{}, fmt.Errorf("crawl: no host in %q", raw)
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return b.addr(u.Hostname(), port)
}

// addr returns the address host (lowercase, unbracketed) resolves to for port.
func (b *addrBook) addr(host, port string) (netip.Addr, error) {
	for _, m := range b.connectTo {
		if (m.Host == "" || m.Host == host) && (m.Port == "" || m.Port == port) {
			if m.ToHost != "" {
				host = m.ToHost
			}
			break
		}
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().WithZone(""), nil
	}
	now := b.now()
	b.mu.Lock()
	e, ok := b.entries[host]
	b.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.addr, e.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	addrs, err := b.lookup(ctx, host)
	e = addrEntry{err: err, until: now.Add(addrTTL)}
	switch {
	case err != nil:
		e.until = now.Add(addrFailTTL)
	case len(addrs) == 0:
		e.err, e.until = fmt.Errorf("%w: %s", errNoAddress, host), now.Add(addrFailTTL)
	default:
		e.addr = addrs[0].Unmap().WithZone("")
	}
	b.mu.Lock()
	b.entries[host] = e
	if len(b.entries) >= b.pruneAt {
		for h, x := range b.entries {
			if !now.Before(x.until) {
				delete(b.entries, h)
			}
		}
		b.pruneAt = max(minPrune, 2*len(b.entries))
	}
	b.mu.Unlock()
	return e.addr, e.err
}

// addrGate holds the addresses side of the crawl: the address book, the URLs being fetched
// (for the address check) and, with Config.PerIP, the politeness of each address.
type addrGate struct {
	c     *crawler
	book  *addrBook
	perIP bool // Config.PerIP, and no proxy

	inflight sync.Map // URL being fetched -> frontier.URL

	mu      sync.Mutex // guards sites and pruneAt
	sites   map[netip.Addr]*ipSite
	pruneAt int // sites are pruned when there are this many
}

// ipSite is the politeness state of one address.
type ipSite struct {
	busy int           // requests under way
	next time.Time     // no request starts before
	wake chan struct{} // closed when a request ends
}

// newAddrGate builds the crawl's address gate. With a proxy the crawl does not know the
// address a request goes to: ip rules are refused then (ErrConfig), and Config.PerIP spaces
// requests by host name only (logged).
func newAddrGate(c *crawler, sc *scope.Scope) (*addrGate, error) {
	cfg := c.cfg
	if sc.NeedsAddr() && cfg.Fetch.Proxy != nil {
		return nil, &FieldError{Field: "Scope", Err: errors.New("ip rules cannot be combined with a proxy (Fetch.Proxy): through a proxy, the proxy resolves and connects, and amber does not know the address")}
	}
	g := &addrGate{c: c, book: newAddrBook(cfg.Fetch), perIP: cfg.PerIP, sites: map[netip.Addr]*ipSite{}, pruneAt: minPrune}
	if cfg.PerIP && cfg.Fetch.Proxy != nil {
		g.perIP = false
		c.log.Warn("politeness per address is off: through a proxy amber does not know the addresses; hosts are spaced by name")
	}
	return g, nil
}

// addrOf returns the address of a canonical URL's host for scope.Candidate.Addr when the
// scope has ip rules, else the zero Addr (nothing is looked up). A host that does not resolve
// has the zero Addr: scope then says scope.ReasonNoAddress where an ip rule could let it in.
func (c *crawler) addrOf(u string) netip.Addr {
	if c.addrs == nil || !c.scope.Load().NeedsAddr() {
		return netip.Addr{}
	}
	return c.hostAddr(u)
}

// hostAddr returns the address of a canonical URL's host for ip rules (the scope's, a
// subcollection's), looked up in the address book (connect_to first, answers cached); the
// zero Addr when it does not resolve.
func (c *crawler) hostAddr(u string) netip.Addr {
	a, err := c.addrs.book.addrOfURL(u)
	if err != nil {
		c.log.Debug("no address for scope rules", "url", u, "err", err)
		return netip.Addr{}
	}
	return a
}

// check is fetch.Config.CheckAddr: it decides the request's URL again with the address it is
// about to be sent to, and refuses it when an ip rule keeps it out (scope.Decision.ByAddr). A
// URL being fetched for a claim is decided as it was found (its via's offHops taken as its own
// less one); any other request (a browser's subresources and redirects, robots.txt, logins)
// as an embed, which only block rules keep out.
func (g *addrGate) check(raw string, a netip.Addr) error {
	sc := g.c.scope.Load()
	if !sc.NeedsAddr() {
		return nil
	}
	cand := scope.Candidate{URL: raw, Hops: string(hop.Embed), Addr: a}
	if v, ok := g.inflight.Load(raw); ok {
		u := v.(frontier.URL)
		cand = scope.Candidate{URL: u.URL, Hops: u.Hops, Via: u.Via, ViaHopsOff: max(u.HopsOff-1, 0), Seed: u.Seed, Addr: a}
	} else if cu, err := scope.Canonicalize(raw, g.c.cfg.Scope.Flavour); err == nil {
		cand.URL = cu
	}
	if d := sc.Decide(cand); !d.In && d.ByAddr {
		return &chain.Refusal{Reason: d.Reason, Outcome: chain.Outcome{Status: status.OutOfScope,
			Annotations: []string{"scope:" + d.Reason, "addr:" + a.String()},
			Denied:      report.DenyOutOfScope, ScopeReason: d.Reason}}
	}
	return nil
}

func (*addrGate) Name() string { return "addresses" }

// Wrap registers the URL as being fetched (for check) and, with Config.PerIP, makes its fetch
// wait for its address's turn (enter); a URL that waited gets the note ip-wait:ADDRESS: the
// delay or the concurrency of another host on that address held it back.
func (g *addrGate) Wrap(next chain.Fetch) chain.Fetch {
	return func(ctx context.Context, r *chain.Record) (*fetch.Result, error) {
		pass := g.enter(ctx, r.URL())
		res, err := next(ctx, r)
		pass.leave()
		if pass.waited && pass.site.IsValid() {
			r.Notes = append(r.Notes, "ip-wait:"+pass.site.String())
		}
		return res, err
	}
}

// addrPass is a claimed URL's passage through the gate; leave ends it.
type addrPass struct {
	g      *addrGate
	key    string
	site   netip.Addr // valid when the request took a place of the address (Config.PerIP)
	host   string
	waited bool // the request waited for its address (another host's request on it)
}

// enter registers the claimed URL u as being fetched (for check) and, with Config.PerIP,
// waits until its host's address may be sent another request: fewer than HostConcurrency
// under way and HostDelay (the host's own delay, Config.HostDelays) past the end of the last
// one. A host that does not resolve waits for nothing (the fetch says why it fails); so does
// a URL when ctx ends.
func (g *addrGate) enter(ctx context.Context, u frontier.URL) *addrPass {
	p := &addrPass{g: g, key: u.URL, host: u.Host}
	g.inflight.Store(u.URL, u)
	if !g.perIP {
		return p
	}
	a, err := g.book.addrOfURL(u.URL)
	if err != nil {
		return p
	}
	limit := max(g.c.cfg.HostConcurrency, 1)
	for {
		g.mu.Lock()
		now := time.Now()
		s := g.sites[a]
		if s == nil {
			g.prune(now)
			s = &ipSite{wake: make(chan struct{})}
			g.sites[a] = s
		}
		if s.busy < limit && !now.Before(s.next) {
			s.busy++
			g.mu.Unlock()
			p.site = a
			return p
		}
		p.waited = true
		var t *time.Timer
		var timer <-chan time.Time
		if s.busy < limit {
			t = time.NewTimer(s.next.Sub(now))
			timer = t.C
		}
		wake := s.wake
		g.mu.Unlock()
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

// prune drops the addresses with nothing under way whose delay has passed (they are as new)
// when there are pruneAt of them. g.mu is held.
func (g *addrGate) prune(now time.Time) {
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

// leave ends the pass at the end of the fetch: the address's next request waits the host's
// delay from now.
func (p *addrPass) leave() {
	g := p.g
	g.inflight.Delete(p.key)
	if !p.site.IsValid() {
		return
	}
	delay := g.c.cfg.HostDelay
	if d, ok := g.c.cfg.HostDelays[p.host]; ok {
		delay = d
	}
	g.mu.Lock()
	s := g.sites[p.site]
	s.busy--
	if next := time.Now().Add(delay); next.After(s.next) {
		s.next = next
	}
	close(s.wake)
	s.wake = make(chan struct{})
	g.mu.Unlock()
}

// subRefused reports whether err, the failure of a sub-request of a page (a browser's), is a
// policy's refusal of its address (chain.Refusal), and records it as a refused link is.
func (c *crawler) subRefused(worker int, page frontier.URL, url string, err error) (bool, error) {
	var ref *chain.Refusal
	if !errors.As(err, &ref) {
		return false, nil
	}
	hops := page.Hops + string(hop.Embed)
	rej := decision{url: frontier.URL{URL: url, Host: hostKey(url), Hops: hops, Via: page.URL, Seed: page.Seed}}
	rej.decision.Reason = ref.Reason
	return true, c.reject(worker, page, rej)
}

// HostAddrs returns what the crawl uses to find a canonical URL's host address for ip scope
// rules, with fc's connect_to mappings first and answers cached: for tools that decide scope
// as a crawl would (amber scope check).
func HostAddrs(fc fetch.Config) func(u string) (netip.Addr, error) {
	return newAddrBook(fc).addrOfURL
}

package crawl

import (
	"errors"
	"time"

	"github.com/amber-crawler/amber/addrgate"
	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/scope"
)

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

// newAddrGate builds the crawl's address gate (package addrgate) on its resolver. With a proxy
// the crawl does not know the address a request goes to: ip rules are refused then
// (ErrConfig), and Config.PerIP spaces requests by host name only (logged).
func (c *crawler) newAddrGate(sc *scope.Scope) (*addrgate.Gate, error) {
	cfg := c.cfg
	if sc.NeedsAddr() && cfg.Fetch.Proxy != nil {
		return nil, &FieldError{Field: "Scope", Err: errors.New("ip rules cannot be combined with a proxy (Fetch.Proxy): through a proxy, the proxy resolves and connects, and amber does not know the address")}
	}
	perIP := cfg.PerIP
	if perIP && cfg.Fetch.Proxy != nil {
		perIP = false
		c.log.Warn("politeness per address is off: through a proxy amber does not know the addresses; hosts are spaced by name")
	}
	return addrgate.New(addrgate.Config{PerIP: perIP, Concurrency: cfg.HostConcurrency}, addrgate.Deps{
		Resolver:  c.resolver,
		Scope:     c.scope.Load,
		Canonical: func(raw string) (string, error) { return scope.Canonicalize(raw, cfg.Scope.Flavour) },
		Delay:     c.addrDelay,
		Log:       c.log,
	}), nil
}

// addrDelay is the delay an address waits after a request of host (Config.PerIP): the delay
// in force for the host, as the frontier spaces the host's own requests by (an operator's,
// a subcollection's, robots.txt Crawl-delay, a delay-schedule slot, the crawl's).
func (c *crawler) addrDelay(host string) time.Duration { return c.front.HostDelay(host) }

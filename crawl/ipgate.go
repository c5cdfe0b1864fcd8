package crawl

import (
	"errors"
	"time"

	"github.com/amber-crawler/amber/addrgate"
	"github.com/amber-crawler/amber/scope"
)

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
		Scope:     c.scope.load,
		Canonical: func(raw string) (string, error) { return scope.Canonicalize(raw, cfg.Scope.Flavour) },
		Delay:     c.addrDelay,
		Log:       c.log,
	}), nil
}

// addrDelay is the delay an address waits after a request of host (Config.PerIP): the delay
// in force for the host, as the frontier spaces the host's own requests by (an operator's,
// a subcollection's, robots.txt Crawl-delay, a delay-schedule slot, the crawl's).
func (c *crawler) addrDelay(host string) time.Duration { return c.front.HostDelay(host) }

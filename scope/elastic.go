package scope

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/amber-crawler/amber/crawlrule"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/weburl"
)

// Domain is one domain of the Elastic flavour (spec/elastic.md §1): an origin and its ordered
// crawl rules.
type Domain struct {
	// URL is the origin, "https://www.example.com" or "http://example.com:8080": scheme, host
	// and port, no path other than "/". New lowercases it and drops a default port.
	URL string
	// Rules are the domain's crawl rules, first match deciding; a URL no rule matches is
	// allowed.
	Rules crawlrule.List
}

// domainState is a domain as Decide uses it (immutable after New).
type domainState struct {
	origin  string
	rules   crawlrule.List
	reasons []string // the ReasonCrawlRulePrefix reason of each rule
}

// elasticScope is the Elastic flavour's part of a Scope (zero in other flavours).
type elasticScope struct {
	domains  map[string]*domainState // by origin
	order    []string                // origins in the order given
	maxDepth int
}

// init validates and builds the domains and depth limit of cfg.
func (e *elasticScope) init(cfg Config, fl Flavour) error {
	if fl != Elastic {
		if len(cfg.Domains) > 0 {
			return fmt.Errorf("%w: domains are for the elastic flavour, not %s", ErrConfig, fl)
		}
		if cfg.MaxCrawlDepth != nil {
			return fmt.Errorf("%w: max_crawl_depth is for the elastic flavour, not %s", ErrConfig, fl)
		}
		return nil
	}
	e.maxDepth = DefaultMaxCrawlDepth
	if cfg.MaxCrawlDepth != nil {
		if *cfg.MaxCrawlDepth < 1 {
			return fmt.Errorf("%w: max_crawl_depth %d: must be at least 1 (seeds have depth 1)", ErrConfig, *cfg.MaxCrawlDepth)
		}
		e.maxDepth = *cfg.MaxCrawlDepth
	}
	if len(cfg.Domains) == 0 {
		return fmt.Errorf("%w: the elastic flavour needs at least one domain", ErrConfig)
	}
	e.domains = make(map[string]*domainState, len(cfg.Domains))
	for _, d := range cfg.Domains {
		origin, err := domainOrigin(d.URL)
		if err != nil {
			return err
		}
		if e.domains[origin] != nil {
			return fmt.Errorf("%w: domain %q listed twice (as %s)", ErrConfig, d.URL, origin)
		}
		st := &domainState{origin: origin, rules: d.Rules, reasons: make([]string, len(d.Rules))}
		for i, r := range d.Rules {
			if r == nil {
				return fmt.Errorf("%w: domain %s: crawl rule %d is missing", ErrConfig, origin, i+1)
			}
			st.reasons[i] = ReasonCrawlRulePrefix + strconv.Itoa(i+1) + ":" + string(r.Policy) + ":" +
				string(r.Type) + ":" + r.Pattern
		}
		e.domains[origin] = st
		e.order = append(e.order, origin)
	}
	return nil
}

// domainOrigin checks that raw is an http(s) origin and returns its canonical form
// (weburl.Origin: lowercase scheme and host, IDN in punycode, no default port, no trailing
// "/"), the prefix of the canonical URLs of its pages.
func domainOrigin(raw string) (string, error) {
	o, err := weburl.Origin(raw)
	if err != nil {
		return "", fmt.Errorf("%w: domain %q: %v; use crawl rules to restrict paths", ErrURL, raw, err)
	}
	return o, nil
}

// domain returns the domain of a canonical URL, or nil.
func (e *elasticScope) domain(canonical string) *domainState {
	p, ok := split(canonical)
	if !ok {
		return nil
	}
	return e.domainOf(canonical, &p)
}

// domainOf returns the domain of the canonical URL u (split into p), or nil. Without userinfo
// the origin is a prefix of u, and the look-up allocates nothing.
func (e *elasticScope) domainOf(u string, p *parts) *domainState {
	var origin string
	if p.user == "" {
		n := len(p.scheme) + len("://") + len(p.host)
		if p.port != "" {
			n += 1 + len(p.port)
		}
		origin = u[:n]
	} else {
		origin = originOf(p)
	}
	return e.domains[origin]
}

func originOf(p *parts) string {
	o := p.scheme + "://" + p.host
	if p.port != "" {
		o += ":" + p.port
	}
	return o
}

// list names the domains for error messages.
func (e *elasticScope) list() string { return strings.Join(e.order, ", ") }

// Origin returns the origin ("https://www.example.com", "http://example.com:8080") of a
// canonical http(s) URL: what the Elastic flavour's domains are made of. It returns "" for
// anything else.
func Origin(canonical string) string {
	p, ok := split(canonical)
	if !ok || (p.scheme != "http" && p.scheme != "https") || p.host == "" {
		return ""
	}
	return originOf(&p)
}

// CrawlDepth is the Elastic flavour's depth of a URL with the hop path hops, as the open
// crawler counts it: 1 for a seed or a sitemap entry, plus one for each navigational hop (L,
// X) after the last sitemap hop (M); redirects, embeds, inferred URLs and prerequisites add
// nothing. Config.MaxCrawlDepth bounds it.
func CrawlDepth(hops string) int {
	d := 1
	for i := len(hops) - 1; i >= 0; i-- {
		switch hops[i] {
		case hop.Sitemap:
			return d
		case hop.Link, hop.Speculative:
			d++
		}
	}
	return d
}

// decideElastic follows spec/elastic.md §1 from step 3 on (the Archive-It block rules first).
// A seed (hop path "") goes through the same steps and is in with ReasonSeed.
func (s *Scope) decideElastic(t *target, c *Candidate, st *seedState) Decision {
	var l levels
	l.init(t, s.coll, st.rules)
	if reason, ok := l.block(t); ok {
		return Decision{Reason: reason}
	}
	d := s.elastic.domainOf(t.url, &t.p)
	if d == nil {
		if hop.Last(c.Hops) == hop.Embed {
			return Decision{In: true, Reason: ReasonEmbed, HopsOff: c.ViaHopsOff}
		}
		return Decision{Reason: ReasonOutOfDomain}
	}
	pathq, _, _ := strings.Cut(t.p.pathq, "#")
	if pathq == "" {
		pathq = "/"
	}
	if i, r := d.rules.Decide(pathq); r != nil && r.Policy == crawlrule.Deny {
		// An Archive-It accept rule overrides a deny within a domain; it cannot bring in
		// another origin (there is no domain to decide it above).
		reason, ok := l.accept(t)
		if !ok {
			return Decision{Reason: d.reasons[i]}
		}
		if CrawlDepth(c.Hops) > s.elastic.maxDepth {
			return Decision{Reason: ReasonMaxDepth}
		}
		return Decision{In: true, Reason: reason}
	}
	if CrawlDepth(c.Hops) > s.elastic.maxDepth {
		return Decision{Reason: ReasonMaxDepth}
	}
	if c.Hops == "" {
		return Decision{In: true, Reason: ReasonSeed}
	}
	return Decision{In: true, Reason: ReasonDomain}
}

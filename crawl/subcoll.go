package crawl

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/scope"
)

// Subcollection is a named part of the crawl with settings of its own (FAST's crawl
// subcollection): they apply, in place of the collection's, to the URLs its rules take. A
// URL belongs to the first subcollection of Config.Subcollections whose rules take it; a URL
// none takes has the collection's settings. A zero or nil setting is the collection's.
//
// Settings of a URL, decided by the URL itself: Fetcher, Schemes, MaxHops, Header, Proxy,
// MaxResponseSize, DropOversize. Settings of a host: HostDelay, MaxURLs, SitemapsRobots, and
// the client (Header, Proxy, MaxResponseSize) its robots.txt is requested with. A host
// belongs to the subcollection of the first of its URLs the crawl claims, for the whole crawl
// (kept in the frontier: a resumed crawl, and the other processes of a shared one, keep it).
//
// Each capture of a URL of a subcollection has the crawl.log annotation sub:NAME, and the
// reports count them per subcollection.
type Subcollection struct {
	// Name is the subcollection's name: letters, digits, '.', '_' and '-'; unique.
	Name string
	// Match and Except say which URLs it holds: a URL a Match rule takes (no Match rules:
	// every URL) and no Except rule takes, the rules matched as scope's block rules are.
	Match, Except []scope.Rule
	// Fetcher fetches its URLs: FetcherHTTP or FetcherBrowser; "" is Config.Fetcher. With
	// FetcherBrowser in a crawl whose fetcher is FetcherHTTP the crawl starts the browser
	// for its pages; FetcherHTTP in a browser crawl fetches its URLs with the plain client.
	Fetcher string
	// Schemes are the schemes its URLs may have (http, https); another is left out as a
	// block rule leaves it out (its pages' embeds too). nil: both.
	Schemes []string
	// MaxHops bounds the hops of its URLs from their seed, as Scope.MaxHops does (an embed
	// of a page within the bound is in); it may not be more than Scope.MaxHops. Not with the
	// elastic flavour.
	MaxHops *int
	// Header fields replace the fields of the same name of Fetch.Header on the requests for
	// its URLs (Fetch.OriginHeader still wins). Not with the browser fetcher: a page's
	// requests all go through the crawl's one client.
	Header http.Header
	// Proxy is the proxy of the requests for its URLs, in place of Fetch.Proxy. Not when
	// the browser fetcher is used anywhere in the crawl: the browser's requests for it would
	// bypass it.
	Proxy *url.URL
	// MaxResponseSize bounds one response of its URLs, in place of Fetch.MaxResponseSize.
	// Not with the browser fetcher.
	MaxResponseSize int64
	// DropOversize replaces Config.DropOversize for its URLs.
	DropOversize *bool
	// HostDelay replaces HostDelay and robots.txt Crawl-delay for its hosts, as HostDelays
	// does (an operator's HostDelays entry wins over it).
	HostDelay *time.Duration
	// MaxURLs replaces Sites.MaxURLs for its hosts; 0: no limit.
	MaxURLs *int64
	// SitemapsRobots replaces Sitemaps.Robots for its hosts' robots.txt.
	SitemapsRobots *bool
}

// renders reports whether the pages of s are loaded by the browser in a crawl of cfg.
func (s *Subcollection) renders(cfg *Config) bool {
	if s.Fetcher != "" {
		return s.Fetcher == FetcherBrowser
	}
	return cfg.Fetcher == FetcherBrowser
}

// ownClient reports whether s needs an HTTP client of its own.
func (s *Subcollection) ownClient() bool {
	return len(s.Header) > 0 || s.Proxy != nil || s.MaxResponseSize != 0
}

// usesBrowser reports whether the crawl loads pages in the browser: its fetcher, or a
// subcollection's.
func (c *Config) usesBrowser() bool {
	return c.Fetcher == FetcherBrowser || slices.ContainsFunc(c.Subcollections, func(s Subcollection) bool { return s.renders(c) })
}

// validateSubcollections returns a *FieldError for an invalid subcollection.
func (c *Config) validateSubcollections() error {
	seen := map[string]int{}
	for i, s := range c.Subcollections {
		field := fmt.Sprintf("Subcollections[%d]", i)
		bad := func(format string, args ...any) error {
			return &FieldError{Field: field, Err: fmt.Errorf("%s: "+format, append([]any{s.Name}, args...)...)}
		}
		if !validSubName(s.Name) {
			return &FieldError{Field: field, Err: fmt.Errorf("name %q: want letters, digits, '.', '_' and '-'", s.Name)}
		}
		if j, dup := seen[s.Name]; dup {
			return bad("the name of Subcollections[%d] too", j)
		}
		seen[s.Name] = i
		if s.Fetcher != "" && s.Fetcher != FetcherHTTP && s.Fetcher != FetcherBrowser {
			return bad("fetcher %q: want %s or %s", s.Fetcher, FetcherHTTP, FetcherBrowser)
		}
		if s.Schemes != nil && len(s.Schemes) == 0 {
			return bad("no schemes")
		}
		for _, sc := range s.Schemes {
			if sc != "http" && sc != "https" {
				return bad("scheme %q: want http or https", sc)
			}
		}
		if s.MaxHops != nil {
			switch {
			case *s.MaxHops < 0:
				return bad("max hops %d: must not be negative", *s.MaxHops)
			case c.Scope.Flavour == scope.Elastic:
				return bad("max hops: the elastic flavour bounds its depth with Scope.MaxCrawlDepth")
			case c.Scope.MaxHops != nil && *s.MaxHops > *c.Scope.MaxHops:
				return bad("max hops %d: more than the collection's %d (scope decides the collection's bound first)", *s.MaxHops, *c.Scope.MaxHops)
			}
		}
		if (s.HostDelay != nil && *s.HostDelay < 0) || (s.MaxURLs != nil && *s.MaxURLs < 0) || s.MaxResponseSize < 0 {
			return bad("a negative host delay, URL count or response size")
		}
		if s.renders(c) {
			for _, x := range []struct {
				what string
				set  bool
			}{{"headers", len(s.Header) > 0}, {"a proxy", s.Proxy != nil}, {"a response size", s.MaxResponseSize != 0}} {
				if what := x.what; x.set {
					return bad("%s with the browser fetcher: the browser sends every request of a page (its embeds on any host too) through the crawl's one HTTP client, so they cannot be honoured; fetch this subcollection with %s", what, FetcherHTTP)
				}
			}
		}
		if s.Proxy != nil && c.usesBrowser() {
			return bad("a proxy in a crawl that uses the browser fetcher: the browser would load this subcollection's URLs as other pages' embeds without it")
		}
	}
	return nil
}

// validSubName reports whether name is a subcollection name: not empty, of letters, digits,
// '.', '_' and '-' (it is one token of a crawl.log annotation).
func validSubName(name string) bool {
	return name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == ""
}

// Subcollection annotations and state.
const (
	notePrefixSub = "sub:"            // + name: crawl.log annotation of a capture of a subcollection's URL
	metaSubHost   = "crawl/sub/host/" // + host: the name of the host's subcollection ("" for the collection)
)

// subcoll is a Subcollection ready to match URLs.
type subcoll struct {
	Subcollection
	match  *scope.Scope  // Match as block rules; nil: every URL
	except *scope.Scope  // Except as block rules; nil: none
	block  *scope.Scope  // the schemes left out, as block rules; nil: none
	client *fetch.Client // nil: the crawl's
}

// subcolls are the crawl's subcollections and the hosts bound to them.
type subcolls struct {
	c      *crawler
	cfg    *Config
	list   []*subcoll
	byName map[string]*subcoll

	mu    sync.Mutex          // guards hosts
	hosts map[string]*subcoll // host -> its subcollection (nil: the collection), once bound

	// addr gives a canonical URL's host address to rules with ip matchers (the crawl's
	// address book); nil when no subcollection's rules have one.
	addr func(u string) netip.Addr
}

// newSubcolls prepares cfg's subcollections: their rules, and the HTTP clients of those that
// need their own (made from fc, the crawl's client configuration). nil without any.
func newSubcolls(cfg *Config, fc fetch.Config) (*subcolls, error) {
	if len(cfg.Subcollections) == 0 {
		return nil, nil
	}
	ss := &subcolls{cfg: cfg, byName: map[string]*subcoll{}, hosts: map[string]*subcoll{}}
	fl := cfg.Scope.Flavour
	if fl == scope.Elastic {
		fl = scope.Standard // the rules are matched, not the elastic domains
	}
	ruleScope := func(rules []scope.Rule) (*scope.Scope, error) {
		if len(rules) == 0 {
			return nil, nil
		}
		return scope.New(scope.Config{Flavour: fl, Block: rules, MaxURLLength: cfg.Scope.MaxURLLength})
	}
	for _, s := range cfg.Subcollections {
		sc := &subcoll{Subcollection: s}
		var err error
		if sc.match, err = ruleScope(s.Match); err != nil {
			ss.close()
			return nil, fmt.Errorf("subcollection %s: match rules: %w", s.Name, err)
		}
		if sc.except, err = ruleScope(s.Except); err != nil {
			ss.close()
			return nil, fmt.Errorf("subcollection %s: except rules: %w", s.Name, err)
		}
		if sc.block, err = ruleScope(schemeBlocks(s.Schemes)); err != nil {
			ss.close()
			return nil, fmt.Errorf("subcollection %s: schemes: %w", s.Name, err)
		}
		if s.ownClient() {
			sfc := fc
			sfc.Header = maps.Clone(fc.Header)
			if sfc.Header == nil && len(s.Header) > 0 {
				sfc.Header = http.Header{}
			}
			for k, v := range s.Header {
				sfc.Header[http.CanonicalHeaderKey(k)] = v
			}
			if s.Proxy != nil {
				sfc.Proxy = s.Proxy
			}
			if s.MaxResponseSize > 0 {
				sfc.MaxResponseSize = s.MaxResponseSize
			}
			if sc.client, err = fetch.NewClient(sfc); err != nil {
				ss.close()
				return nil, fmt.Errorf("subcollection %s: build http client: %w", s.Name, err)
			}
		}
		ss.list = append(ss.list, sc)
		ss.byName[s.Name] = sc
	}
	return ss, nil
}

// schemeBlocks are the block rules that leave out the schemes of http and https that
// schemes does not list.
func schemeBlocks(schemes []string) []scope.Rule {
	var out []scope.Rule
	for _, sc := range []string{"http", "https"} {
		if schemes != nil && !slices.Contains(schemes, sc) {
			if r, err := scope.ParseRule("regex:" + sc + "://.*"); err == nil {
				out = append(out, r)
			}
		}
	}
	return out
}

// close closes the subcollections' own clients.
func (ss *subcolls) close() {
	if ss == nil {
		return
	}
	for _, s := range ss.list {
		if s.client != nil {
			s.client.Close()
			s.client = nil
		}
	}
}

// needsAddr reports whether a subcollection's match or except rules have ip matchers.
func (ss *subcolls) needsAddr() bool {
	if ss == nil {
		return false
	}
	for _, s := range ss.list {
		if (s.match != nil && s.match.NeedsAddr()) || (s.except != nil && s.except.NeedsAddr()) {
			return true
		}
	}
	return false
}

// takes reports whether rules, a scope of block rules, match the canonical URL u. Rules with
// ip matchers are given u's host address (ss.addr); a host without one is not taken by them.
func (ss *subcolls) takes(rules *scope.Scope, u string) bool {
	// As an embed: block rules are the first thing decided for one, in every flavour.
	cand := scope.Candidate{URL: u, Hops: string(hop.Embed)}
	if ss.addr != nil && rules.NeedsAddr() {
		cand.Addr = ss.addr(u)
	}
	d := rules.Decide(cand)
	return !d.In && strings.HasPrefix(d.Reason, scope.ReasonBlockPrefix)
}

// of returns the subcollection of the canonical URL u: the first whose rules take it; nil
// for the collection.
func (ss *subcolls) of(u string) *subcoll {
	if ss == nil {
		return nil
	}
	for _, s := range ss.list {
		if (s.match == nil || ss.takes(s.match, u)) && (s.except == nil || !ss.takes(s.except, u)) {
			return s
		}
	}
	return nil
}

// host returns the subcollection host is bound to, and whether it is bound yet.
func (ss *subcolls) host(host string) (*subcoll, bool) {
	if ss == nil {
		return nil, true
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.hosts[host]
	return s, ok
}

// subOf is the subcollection of the canonical URL u (nil: the collection's settings).
func (c *crawler) subOf(u string) *subcoll { return c.subs.of(u) }

func (*subcolls) Name() string { return "subcollections" }

// Before binds the host of the claimed URL to a subcollection when it is not bound yet (bind),
// and gives the URL the settings in force for it: those of its own subcollection (its
// fetcher, client, oversize) and of its host's (the robots.txt client, URLs per host,
// sitemaps from robots.txt), over the collection's.
func (ss *subcolls) Before(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	u := r.URL()
	if err := ss.bind(u); err != nil {
		return chain.Verdict{}, err
	}
	own, host := ss.of(u.URL), ss.bound(u.Host)
	if own == nil && host == nil {
		return chain.Proceed, nil
	}
	set := *r.Settings
	if own != nil {
		set.Subcollection, set.Render = own.Name, own.renders(ss.cfg)
		if own.client != nil {
			set.Client = own.client
		}
		if own.DropOversize != nil {
			set.DropOversize = *own.DropOversize
		}
	}
	if host != nil {
		if host.client != nil {
			set.HostClient = host.client
		}
		if host.MaxURLs != nil {
			set.MaxURLs = *host.MaxURLs
		}
		if host.SitemapsRobots != nil {
			set.SitemapsRobots = *host.SitemapsRobots
		}
	}
	r.Settings = &set
	return chain.Proceed, nil
}

// After adds sub:NAME to the captures of the exchanges whose URLs belong to a subcollection.
func (ss *subcolls) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	for i, ex := range r.Result.Exchanges {
		if s := ss.of(ex.URL); s != nil {
			r.Captures[i].Annotate(notePrefixSub + s.Name)
		}
	}
	return chain.Proceed, nil
}

// bound returns the subcollection host is bound to (nil: the collection).
func (ss *subcolls) bound(host string) *subcoll {
	if ss == nil {
		return nil
	}
	s, _ := ss.host(host)
	return s
}

// bind binds the host of the claimed URL u to a subcollection when it is not bound yet: to
// the one it was bound to earlier in the crawl (the frontier keeps it), or else to u's. A
// subcollection's HostDelay then becomes the host's delay, unless an operator set one.
func (ss *subcolls) bind(u frontier.URL) error {
	if _, ok := ss.host(u.Host); ok {
		return nil
	}
	c := ss.c
	v, stored, err := c.front.Meta(metaSubHost + u.Host)
	if err != nil {
		return c.frontierErr(err)
	}
	s, known := ss.byName[string(v)]
	if !stored || (!known && len(v) > 0) { // first met, or bound to a subcollection the config no longer has
		s = ss.of(u.URL)
		name := ""
		if s != nil {
			name = s.Name
		}
		if err := c.front.PutMeta(metaSubHost+u.Host, []byte(name)); err != nil {
			return c.frontierErr(err)
		}
	}
	ss.mu.Lock()
	if _, ok := ss.hosts[u.Host]; ok { // another worker bound it meanwhile
		ss.mu.Unlock()
		return nil
	}
	ss.hosts[u.Host] = s
	ss.mu.Unlock()
	if s != nil && s.HostDelay != nil {
		c.setSubDelay(u.Host, *s.HostDelay)
	}
	return nil
}

// setSubDelay makes d host's delay unless an operator gave the host one (HostDelays, amber
// ctl host-delay).
func (c *crawler) setSubDelay(host string, d time.Duration) {
	if c.ctl == nil {
		c.front.SetHostDelayOverride(host, d)
		return
	}
	c.ctl.mu.Lock()
	defer c.ctl.mu.Unlock()
	if _, set := c.ctl.hostDelays[host]; !set {
		c.front.SetHostDelayOverride(host, d)
	}
}

// subBlocked returns the reason a subcollection's schemes leave the canonical URL u out, ""
// when they do not.
func (c *crawler) subBlocked(u string) string {
	s := c.subOf(u)
	if s == nil || s.block == nil {
		return ""
	}
	d := s.block.Decide(scope.Candidate{URL: u, Hops: string(hop.Embed)})
	if !d.In && strings.HasPrefix(d.Reason, scope.ReasonBlockPrefix) {
		return d.Reason
	}
	return ""
}

// subDecide applies the subcollection of the outlink cu (hop path hops) to what scope
// decided about it, d: its schemes, then its MaxHops, may leave it out.
func (c *crawler) subDecide(cu, hops string, d scope.Decision) scope.Decision {
	if c.subs == nil || !d.In {
		return d
	}
	s := c.subOf(cu)
	if s == nil {
		return d
	}
	if r := c.subBlocked(cu); r != "" {
		return scope.Decision{Reason: r}
	}
	if s.MaxHops == nil {
		return d
	}
	switch d.Reason {
	case scope.ReasonSeed, scope.ReasonEmbed, scope.ReasonPrerequisite:
		return d // in whatever the hops (an embed of a page within the bound)
	}
	if tooDeep(hops, *s.MaxHops, c.cfg.Scope.Flavour) {
		return scope.Decision{Reason: scope.ReasonMaxHops}
	}
	return d
}

// tooDeep reports whether an outlink with hop path hops is beyond max hops, counted as the
// flavour's scope counts them (spec/scope.md §4.1, §4.2).
func tooDeep(hops string, max int, fl scope.Flavour) bool {
	if hops == "" {
		return false
	}
	if fl == scope.Brozzler {
		return strings.Count(hops[:len(hops)-1], string(hop.Link)) >= max
	}
	return len(hops) > max
}

// hostClient is the client of host's requests that are not a URL's own (its robots.txt): the
// client of the subcollection host is bound to, or the crawl's.
func (c *crawler) hostClient(host string) *fetch.Client {
	if s := c.subs.bound(host); s != nil && s.client != nil {
		return s.client
	}
	return c.client
}

// sitemapsFromRobots reports whether the Sitemap: lines of host's robots.txt are read.
func (c *crawler) sitemapsFromRobots(host string) bool {
	if s := c.subs.bound(host); s != nil && s.SitemapsRobots != nil {
		return *s.SitemapsRobots
	}
	return c.cfg.Sitemaps.Robots
}

// Package subcoll is a crawl's subcollections (FAST's crawl subcollections): named parts of
// the crawl whose own settings apply, in place of the collection's, to the URLs their rules
// take. Its Set is a processor of the crawl's chain (package chain): before a URL is fetched
// it binds the URL's host to a subcollection (for the whole crawl, kept in the frontier) and
// resolves the settings in force for the URL (chain.Settings: its fetcher, client, oversize,
// and its host's robots.txt client, URLs per host and sitemaps); after, it marks the captures
// of its URLs (sub:NAME). The crawl asks it about each outlink too (Decide: its schemes and
// hops) and about each request of a browser (Blocked: its schemes).
package subcoll

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
// URL belongs to the first subcollection of the crawl's whose rules take it; a URL none
// takes has the collection's settings. A zero or nil setting is the collection's.
//
// Settings of a URL, decided by the URL itself: Fetcher, Schemes, MaxHops, Header, Proxy,
// MaxResponseSize, DropOversize. Settings of a host: HostDelay, URLsPerHost, SitemapsRobots, and
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
	// Fetcher fetches its URLs: chain.FetcherHTTP or chain.FetcherBrowser; "" is the crawl's.
	// With the browser in a crawl whose fetcher is the plain one the crawl starts the browser
	// for its pages; the plain fetcher in a browser crawl fetches its URLs with the plain client.
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
	// URLsPerHost replaces Sites.URLsPerHost for its hosts; 0: no limit.
	URLsPerHost *int64
	// SitemapsRobots replaces Sitemaps.Robots for its hosts' robots.txt.
	SitemapsRobots *bool
}

// Collection is the crawl's own settings, which a subcollection is checked against and
// replaces for its URLs.
type Collection struct {
	Fetcher string        // the crawl's fetcher (chain.FetcherHTTP, chain.FetcherBrowser)
	Flavour scope.Flavour // the scope's flavour
	MaxHops *int          // the scope's hop bound; nil: none
	// MaxURLLength bounds the URLs the rules are matched against (scope.Config.MaxURLLength).
	MaxURLLength int
}

// renders reports whether the pages of s are loaded by the browser in a crawl of coll.
func (s *Subcollection) renders(coll Collection) bool {
	if s.Fetcher != "" {
		return s.Fetcher == chain.FetcherBrowser
	}
	return coll.Fetcher == chain.FetcherBrowser
}

// ownClient reports whether s needs an HTTP client of its own.
func (s *Subcollection) ownClient() bool {
	return len(s.Header) > 0 || s.Proxy != nil || s.MaxResponseSize != 0
}

// UsesBrowser reports whether a crawl of coll with subs loads pages in the browser: its own
// fetcher, or a subcollection's.
func UsesBrowser(subs []Subcollection, coll Collection) bool {
	return coll.Fetcher == chain.FetcherBrowser || slices.ContainsFunc(subs, func(s Subcollection) bool { return s.renders(coll) })
}

// Validate returns a *chain.FieldError (its field the index, "[2]") for the first invalid
// subcollection of subs in a crawl of coll.
func Validate(subs []Subcollection, coll Collection) error {
	seen := map[string]int{}
	for i, s := range subs {
		field := fmt.Sprintf("[%d]", i)
		bad := func(format string, args ...any) error {
			return &chain.FieldError{Field: field, Err: fmt.Errorf("%s: "+format, append([]any{s.Name}, args...)...)}
		}
		if !validSubName(s.Name) {
			return &chain.FieldError{Field: field, Err: fmt.Errorf("name %q: want letters, digits, '.', '_' and '-'", s.Name)}
		}
		if j, dup := seen[s.Name]; dup {
			return bad("the name of Subcollections[%d] too", j)
		}
		seen[s.Name] = i
		if s.Fetcher != "" && s.Fetcher != chain.FetcherHTTP && s.Fetcher != chain.FetcherBrowser {
			return bad("fetcher %q: want %s or %s", s.Fetcher, chain.FetcherHTTP, chain.FetcherBrowser)
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
			case coll.Flavour == scope.Elastic:
				return bad("max hops: the elastic flavour bounds its depth with Scope.MaxCrawlDepth")
			case coll.MaxHops != nil && *s.MaxHops > *coll.MaxHops:
				return bad("max hops %d: more than the collection's %d (scope decides the collection's bound first)", *s.MaxHops, *coll.MaxHops)
			}
		}
		if (s.HostDelay != nil && *s.HostDelay < 0) || (s.URLsPerHost != nil && *s.URLsPerHost < 0) || s.MaxResponseSize < 0 {
			return bad("a negative host delay, URL count or response size")
		}
		if s.renders(coll) {
			for _, x := range []struct {
				what string
				set  bool
			}{{"headers", len(s.Header) > 0}, {"a proxy", s.Proxy != nil}, {"a response size", s.MaxResponseSize != 0}} {
				if what := x.what; x.set {
					return bad("%s with the browser fetcher: the browser sends every request of a page (its embeds on any host too) through the crawl's one HTTP client, so they cannot be honoured; fetch this subcollection with %s", what, chain.FetcherHTTP)
				}
			}
		}
		if s.Proxy != nil && UsesBrowser(subs, coll) {
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
	NotePrefix  = "sub:"            // + name: the crawl.log annotation of a capture of a subcollection's URL
	metaSubHost = "crawl/sub/host/" // + host: the name of the host's subcollection ("" for the collection)
)

// sub is a Subcollection ready to match URLs.
type sub struct {
	Subcollection
	match  *scope.Scope  // Match as block rules; nil: every URL
	except *scope.Scope  // Except as block rules; nil: none
	block  *scope.Scope  // the schemes left out, as block rules; nil: none
	client *fetch.Client // nil: the crawl's
}

// Set is a crawl's subcollections and the hosts bound to them. It is safe for concurrent use;
// its methods take a nil *Set for a crawl without subcollections.
type Set struct {
	coll   Collection
	env    chain.Env
	deps   Deps
	list   []*sub
	byName map[string]*sub

	mu    sync.Mutex      // guards hosts
	hosts map[string]*sub // host -> its subcollection (nil: the collection), once bound

}

// Deps is what a Set needs of the crawl besides its chain.Env.
type Deps struct {
	// Addr gives a canonical URL's host address to rules with ip matchers (the zero Addr when
	// it has none); needed only when NeedsAddr.
	Addr func(u string) netip.Addr
	// SetHostDelay makes d the delay of host, the host of a subcollection with a HostDelay,
	// unless an operator gave the host one.
	SetHostDelay func(host string, d time.Duration)
}

// New prepares subs, subcollections of a crawl of coll (Validate checked them): their rules,
// and the HTTP clients of those that need their own (made from fc, the crawl's client
// configuration). nil without any.
func New(subs []Subcollection, coll Collection, fc fetch.Config, env chain.Env, deps Deps) (*Set, error) {
	if len(subs) == 0 {
		return nil, nil
	}
	ss := &Set{coll: coll, env: env, deps: deps, byName: map[string]*sub{}, hosts: map[string]*sub{}}
	fl := coll.Flavour
	if fl == scope.Elastic {
		fl = scope.Standard // the rules are matched, not the elastic domains
	}
	ruleScope := func(rules []scope.Rule) (*scope.Scope, error) {
		if len(rules) == 0 {
			return nil, nil
		}
		return scope.New(scope.Config{Flavour: fl, Block: rules, MaxURLLength: coll.MaxURLLength})
	}
	for _, s := range subs {
		sc := &sub{Subcollection: s}
		var err error
		if sc.match, err = ruleScope(s.Match); err != nil {
			ss.Close()
			return nil, fmt.Errorf("subcollection %s: match rules: %w", s.Name, err)
		}
		if sc.except, err = ruleScope(s.Except); err != nil {
			ss.Close()
			return nil, fmt.Errorf("subcollection %s: except rules: %w", s.Name, err)
		}
		if sc.block, err = ruleScope(schemeBlocks(s.Schemes)); err != nil {
			ss.Close()
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
				ss.Close()
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

// Close closes the subcollections' own clients.
func (ss *Set) Close() {
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

// NeedsAddr reports whether a subcollection's match or except rules have ip matchers (the
// crawl must know the addresses of its hosts: no proxy).
func (ss *Set) NeedsAddr() bool {
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
// ip matchers are given u's host address (Deps.Addr); a host without one is not taken by them.
func (ss *Set) takes(rules *scope.Scope, u string) bool {
	// As an embed: block rules are the first thing decided for one, in every flavour.
	cand := scope.Candidate{URL: u, Hops: string(hop.Embed)}
	if ss.deps.Addr != nil && rules.NeedsAddr() {
		cand.Addr = ss.deps.Addr(u)
	}
	d := rules.Decide(cand)
	return !d.In && strings.HasPrefix(d.Reason, scope.ReasonBlockPrefix)
}

// of returns the subcollection of the canonical URL u: the first whose rules take it; nil
// for the collection.
func (ss *Set) of(u string) *sub {
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
func (ss *Set) host(host string) (*sub, bool) {
	if ss == nil {
		return nil, true
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.hosts[host]
	return s, ok
}

func (*Set) Name() string { return "subcollections" }

// Before binds the host of the claimed URL to a subcollection when it is not bound yet (bind),
// and gives the URL the settings in force for it: those of its own subcollection (its
// fetcher, client, oversize) and of its host's (the robots.txt client, URLs per host,
// sitemaps from robots.txt), over the collection's.
func (ss *Set) Before(_ context.Context, r *chain.Record) (chain.Verdict, error) {
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
		set.Subcollection, set.Render = own.Name, own.renders(ss.coll)
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
		if host.URLsPerHost != nil {
			set.URLsPerHost = *host.URLsPerHost
		}
		if host.SitemapsRobots != nil {
			set.SitemapsRobots = *host.SitemapsRobots
		}
	}
	r.Settings = &set
	return chain.Proceed, nil
}

// After adds sub:NAME to the captures of the exchanges whose URLs belong to a subcollection.
func (ss *Set) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	for i, ex := range r.Result.Exchanges {
		if s := ss.of(ex.URL); s != nil {
			r.Captures[i].Annotate(NotePrefix + s.Name)
		}
	}
	return chain.Proceed, nil
}

// bound returns the subcollection host is bound to (nil: the collection).
func (ss *Set) bound(host string) *sub {
	if ss == nil {
		return nil
	}
	s, _ := ss.host(host)
	return s
}

// bind binds the host of the claimed URL u to a subcollection when it is not bound yet: to
// the one it was bound to earlier in the crawl (the frontier keeps it), or else to u's. A
// subcollection's HostDelay then becomes the host's delay, unless an operator set one.
func (ss *Set) bind(u frontier.URL) error {
	if _, ok := ss.host(u.Host); ok {
		return nil
	}
	v, stored, err := ss.env.Front.Meta(metaSubHost + u.Host)
	if err != nil {
		return fmt.Errorf("subcoll: read crawl state: %w", err)
	}
	s, known := ss.byName[string(v)]
	if !stored || (!known && len(v) > 0) { // first met, or bound to a subcollection the config no longer has
		s = ss.of(u.URL)
		name := ""
		if s != nil {
			name = s.Name
		}
		if err := ss.env.Front.PutMeta(metaSubHost+u.Host, []byte(name)); err != nil {
			return fmt.Errorf("subcoll: record the subcollection of %s: %w", u.Host, err)
		}
	}
	ss.mu.Lock()
	if _, ok := ss.hosts[u.Host]; ok { // another worker bound it meanwhile
		ss.mu.Unlock()
		return nil
	}
	ss.hosts[u.Host] = s
	ss.mu.Unlock()
	if s != nil && s.HostDelay != nil && ss.deps.SetHostDelay != nil {
		ss.deps.SetHostDelay(u.Host, *s.HostDelay)
	}
	return nil
}

// Blocked returns the reason the schemes of the subcollection of the canonical URL u leave
// it out (a block rule's), "" when they do not.
func (ss *Set) Blocked(u string) string {
	s := ss.of(u)
	if s == nil || s.block == nil {
		return ""
	}
	d := s.block.Decide(scope.Candidate{URL: u, Hops: string(hop.Embed)})
	if !d.In && strings.HasPrefix(d.Reason, scope.ReasonBlockPrefix) {
		return d.Reason
	}
	return ""
}

// Decide applies the subcollection of the outlink cu (hop path hops) to what scope decided
// about it, d: its schemes, then its MaxHops, may leave it out.
func (ss *Set) Decide(cu, hops string, d scope.Decision) scope.Decision {
	if ss == nil || !d.In {
		return d
	}
	s := ss.of(cu)
	if s == nil {
		return d
	}
	if r := ss.Blocked(cu); r != "" {
		return scope.Decision{Reason: r}
	}
	if s.MaxHops == nil {
		return d
	}
	switch d.Reason {
	case scope.ReasonSeed, scope.ReasonEmbed, scope.ReasonPrerequisite:
		return d // in whatever the hops (an embed of a page within the bound)
	}
	if tooDeep(hops, *s.MaxHops, ss.coll.Flavour) {
		return scope.Decision{Reason: scope.ReasonMaxHops}
	}
	return d
}

// HostClient is the client of host's requests that are not a URL's own (its robots.txt): the
// client of the subcollection host is bound to, or def.
func (ss *Set) HostClient(host string, def *fetch.Client) *fetch.Client {
	if s := ss.bound(host); s != nil && s.client != nil {
		return s.client
	}
	return def
}

// URLsPerHost is the most URLs of u's host fetched: the setting of the subcollection the host is
// bound to (binding it first, as Before does, when u is the first URL of its host the crawl
// meets), or def. A binding that cannot be recorded is logged and def returned.
func (ss *Set) URLsPerHost(u frontier.URL, def int64) int64 {
	if ss == nil {
		return def
	}
	if err := ss.bind(u); err != nil {
		ss.env.Log.Warn("bind a host to its subcollection", "host", u.Host, "err", err)
		return def
	}
	if s := ss.bound(u.Host); s != nil && s.URLsPerHost != nil {
		return *s.URLsPerHost
	}
	return def
}

// SitemapsRobots reports whether the Sitemap: lines of host's robots.txt are read: the
// setting of the subcollection host is bound to, or def.
func (ss *Set) SitemapsRobots(host string, def bool) bool {
	if s := ss.bound(host); s != nil && s.SitemapsRobots != nil {
		return *s.SitemapsRobots
	}
	return def
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

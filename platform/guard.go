package platform

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

// Config is a crawl's platform rules.
type Config struct {
	// Off turns platform rules off: no host is recognised, no URL left out.
	Off bool
	// RulesOff are rules that are off: a rule's id ("mediawiki/history") or a platform's
	// name ("wordpress": all of its rules). Unknown ones are an error (ErrConfig).
	RulesOff []string
	// Flavour is the crawl's scope flavour: the form of its canonical URLs, and which hop
	// paths are embeds (scope.Embed).
	Flavour scope.Flavour
	// Platforms are the platforms recognised; nil: Builtin().
	Platforms []Platform
}

// metaHost + host holds the platforms recognised on a host and the traits seen there, one a
// line: "mediawiki", "wordpress pretty-permalinks". Kept in the frontier's metadata, so a
// resumed crawl knows its hosts.
const metaHost = "platform/host/"

// maxLooks is how many responses of a host are looked at for a platform (and the traits of
// the platforms recognised) before the host is left alone: a platform shows on every page
// (its generator, its scripts), so a host whose first pages show none costs nothing more.
const maxLooks = 20

// Guard is the crawl's platform rules: it recognises hosts from their responses (After) and
// leaves out the links a recognised host's rules match (Decide for the links a page points
// at; Before for the URLs queued before their host was recognised). Its methods are safe for
// concurrent use.
type Guard struct {
	flavour scope.Flavour
	plats   []*compiled
	env     chain.Env
	rules   []RuleState // every rule, on or off

	mu    sync.RWMutex     // guards hosts
	hosts map[string]*host // by host[:port] as in URLs (the frontier's politeness key)
}

// compiled is a platform with its rules compiled and switched on or off.
type compiled struct {
	Platform
	keep  *scope.Rules   // every keep matcher
	rules []*scope.Rules // the matchers of each rule
	on    []bool         // per rule
}

// host is what is known of one host.
type host struct {
	platforms []int    // indexes of Guard.plats recognised, in order
	traits    []string // "platform/trait" seen
	looks     int      // responses looked at while no platform was recognised
}

// New returns the Guard of cfg; env gives the frontier's metadata (where recognised hosts are
// kept, and read back from on a resumed crawl), the log and events. A Config naming a rule
// or platform that is not one is an error wrapping ErrConfig; rules that do not compile wrap
// ErrRules.
func New(cfg Config, env chain.Env) (*Guard, error) {
	ps := cfg.Platforms
	if ps == nil {
		var err error
		if ps, err = Builtin(); err != nil {
			return nil, err
		}
	}
	g := &Guard{flavour: cfg.Flavour, env: env, hosts: map[string]*host{}}
	off := map[string]bool{}
	known := map[string]bool{}
	for _, p := range ps {
		known[p.Name] = true
		for _, r := range p.Rules {
			known[r.ID] = true
		}
	}
	for _, id := range cfg.RulesOff {
		if !known[id] {
			return nil, fmt.Errorf("%w: %q is neither a platform nor a platform rule (%s)", ErrConfig, id, strings.Join(Names(ps), ", "))
		}
		off[id] = true
	}
	for _, p := range ps {
		for _, r := range p.Rules {
			g.rules = append(g.rules, RuleState{ID: r.ID, On: !cfg.Off && !off[p.Name] && !off[r.ID]})
		}
	}
	if cfg.Off {
		return g, nil
	}
	for _, p := range ps {
		c := &compiled{Platform: p}
		var keep []scope.Rule
		for _, k := range p.Keep {
			keep = append(keep, k.Match...)
		}
		var err error
		if c.keep, err = scope.CompileRules(keep, cfg.Flavour); err != nil {
			return nil, fmt.Errorf("%w: %s: keep: %w", ErrRules, p.Name, err)
		}
		for _, r := range p.Rules {
			rs, err := scope.CompileRules(r.Match, cfg.Flavour)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrRules, r.ID, err)
			}
			c.rules = append(c.rules, rs)
			c.on = append(c.on, !off[p.Name] && !off[r.ID])
		}
		g.plats = append(g.plats, c)
	}
	if err := g.restore(); err != nil {
		return nil, err
	}
	return g, nil
}

// RuleState is a rule of the Guard and whether it is on.
type RuleState struct {
	ID string
	On bool
}

// Rules returns every rule of the Guard's platforms, on or off, in the platforms' order.
func (g *Guard) Rules() []RuleState { return slices.Clone(g.rules) }

// restore reads the hosts recognised by earlier runs.
func (g *Guard) restore() error {
	if g.env.Front == nil {
		return nil
	}
	err := g.env.Front.ScanMeta(metaHost, func(key string, v []byte) error {
		h := &host{}
		for _, line := range strings.Split(string(v), "\n") {
			name, traits, _ := strings.Cut(line, " ")
			i := g.index(name)
			if i < 0 {
				continue // a platform this amber does not know (any more)
			}
			h.platforms = append(h.platforms, i)
			for _, t := range strings.Fields(traits) {
				h.traits = append(h.traits, name+"/"+t)
			}
		}
		if len(h.platforms) > 0 {
			g.hosts[strings.TrimPrefix(key, metaHost)] = h
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("platform: restore recognised hosts: %w", err)
	}
	return nil
}

func (g *Guard) index(name string) int {
	for i, c := range g.plats {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Name is the processor's name.
func (*Guard) Name() string { return "platform rules" }

// Decide says whether a platform rule of its host leaves out u, a canonical URL found with
// the hop path hops: the rule's reason ("platform:ID") and true, or "" and false. Seeds,
// robots.txt and embeds (scope.Embed) are never left out, nor URLs of a host not recognised,
// nor those a keep rule of the platform matches.
func (g *Guard) Decide(u, hops string) (string, bool) {
	if g == nil || len(g.plats) == 0 || hops == "" || hop.Last(hops) == hop.Prerequisite || scope.Embed(g.flavour, hops) {
		return "", false
	}
	hk := hostKey(u)
	g.mu.RLock()
	h := g.hosts[hk]
	var plats []int
	var traits []string
	if h != nil {
		plats, traits = h.platforms, h.traits
	}
	g.mu.RUnlock()
	for _, i := range plats {
		c := g.plats[i]
		if c.keep.First(u) >= 0 {
			return "", false
		}
		for i, rule := range c.Rules {
			if !c.on[i] || rule.When != "" && !slices.Contains(traits, c.Name+"/"+rule.When) {
				continue
			}
			if c.rules[i].First(u) >= 0 {
				return ReasonPrefix + rule.ID, true
			}
		}
	}
	return "", false
}

// Before leaves out a claimed URL that a platform rule of its host matches: one queued
// before its host was recognised, or decided by an earlier run. It is logged as a link left
// out is (-5000 scope:platform:ID) and not fetched.
func (g *Guard) Before(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	u := r.URL()
	reason, out := g.Decide(u.URL, u.Hops)
	if !out {
		return chain.Proceed, nil
	}
	return chain.Finish(chain.Outcome{Status: status.OutOfScope, Annotations: []string{"scope:" + reason},
		Denied: report.DenyOutOfScope, ScopeReason: reason}), nil
}

// Recognizer returns the chain's step that recognises the platforms of hosts from their
// responses (After), for a place in the chain after the content is read; the Guard itself is
// the step that leaves out claimed URLs (Before), for a place before anything is reserved
// or fetched for them.
func (g *Guard) Recognizer() chain.After { return recognizer{g} }

type recognizer struct{ g *Guard }

func (recognizer) Name() string { return "platform recognition" }

// After looks at a response for the platforms of its host (and the traits of those
// recognised): the page's generator, the response's header, the paths of the URLs of its own
// host that it links and embeds. A host is recognised once, kept in the frontier's metadata
// and logged with an event (platform-recognised); a host whose first responses show no
// platform is no longer looked at.
func (rc recognizer) After(_ context.Context, r *chain.Record) (chain.Verdict, error) {
	g := rc.g
	if len(g.plats) == 0 || r.Result == nil || g.env.Front == nil {
		return chain.Proceed, nil
	}
	ex := r.Exchange()
	page := r.DocURL()
	hk := hostKey(page)
	g.mu.RLock()
	h := g.hosts[hk]
	done := h != nil && (h.looks >= maxLooks || len(h.platforms) > 0 && g.allTraits(h))
	g.mu.RUnlock()
	if done {
		return chain.Proceed, nil
	}
	resp := Response{Generator: r.Content.Generator, Header: ex.Header, Paths: ownPaths(page, r.Content.Links)}
	changed, line := g.look(hk, resp)
	if !changed {
		return chain.Proceed, nil
	}
	if err := g.env.Front.PutMeta(metaHost+hk, []byte(line)); err != nil {
		return chain.Verdict{}, fmt.Errorf("platform: record recognised host: %w", err)
	}
	if g.env.Log != nil {
		g.env.Log.Info("platform recognised", "host", hk, "platforms", strings.ReplaceAll(line, "\n", "; "), "url", page)
	}
	if g.env.Events != nil {
		info := r.Info()
		if err := g.env.Events.Event(report.Event{Action: "platform-recognised", Type: "info", URL: &info,
			Message: fmt.Sprintf("%s: %s", hk, strings.ReplaceAll(line, "\n", "; "))}); err != nil {
			return chain.Verdict{}, fmt.Errorf("platform: write event: %w", err)
		}
	}
	return chain.Proceed, nil
}

// allTraits reports whether every trait of the host's platforms was seen. g.mu is held.
func (g *Guard) allTraits(h *host) bool {
	for _, i := range h.platforms {
		c := g.plats[i]
		for t := range c.Traits {
			if !slices.Contains(h.traits, c.Name+"/"+t) {
				return false
			}
		}
	}
	return true
}

// look records what resp shows of host hk, and returns whether that changed what is known
// of it, with the metadata line of the host (metaHost) when it did.
func (g *Guard) look(hk string, resp Response) (bool, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	h := g.hosts[hk]
	if h == nil {
		h = &host{}
		g.hosts[hk] = h
	}
	changed := false
	for i, c := range g.plats {
		if !slices.Contains(h.platforms, i) && c.Detect.Seen(resp) {
			h.platforms = append(h.platforms, i)
			changed = true
		}
	}
	for _, i := range h.platforms {
		c := g.plats[i]
		for name, t := range c.Traits {
			id := c.Name + "/" + name
			if !slices.Contains(h.traits, id) && t.Seen(resp) {
				h.traits = append(h.traits, id)
				changed = true
			}
		}
	}
	h.looks++
	if !changed {
		return false, ""
	}
	var lines []string
	for _, i := range h.platforms {
		c := g.plats[i]
		line := c.Name
		for _, t := range h.traits {
			if name, ok := strings.CutPrefix(t, c.Name+"/"); ok {
				line += " " + name
			}
		}
		lines = append(lines, line)
	}
	return true, strings.Join(lines, "\n")
}

// ownPaths returns the path and query of each link of page that is on page's own host.
func ownPaths(page string, links []extract.Outlink) []string {
	pu, err := url.Parse(page)
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range links {
		lu, err := url.Parse(l.URL)
		if err != nil || !strings.EqualFold(lu.Host, pu.Host) {
			continue
		}
		p := lu.EscapedPath()
		if lu.RawQuery != "" {
			p += "?" + lu.RawQuery
		}
		out = append(out, p)
	}
	return out
}

// hostKey is host[:port] of a URL, as the frontier keys hosts (lower case).
func hostKey(u string) string {
	rest, ok := strings.CutPrefix(u, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(u, "https://"); !ok {
			return ""
		}
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	return strings.ToLower(rest)
}

// HostPlatforms returns the platforms recognised on each host ("host[:port]" → names, in
// the order recognised), for the reports.
func (g *Guard) HostPlatforms() map[string][]string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	out := map[string][]string{}
	for hk, h := range g.hosts {
		for _, i := range h.platforms {
			out[hk] = append(out[hk], g.plats[i].Name)
		}
	}
	return out
}

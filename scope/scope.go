// Package scope decides which URLs a crawl captures: canonical URLs, scope SURTs and SSURTs,
// accept and block rules, seed prefixes, and the in/out decision with a reason, in the three
// flavours: Standard (after Archive-It's Heritrix crawler) and Brozzler, of spec/scope.md, and
// Elastic (domains and crawl rules, after the Elastic web crawler), of spec/elastic.md §1.
//
// Deciding is pure: no I/O, deterministic, and safe for concurrent use with PromoteRedirect.
package scope

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/amber-crawler/amber/hop"
)

// Errors returned (wrapped, with the offending text) by this package.
var (
	// ErrURL: a URL is relative, unparsable, has no host or an invalid host or port, or a seed
	// is not http(s).
	ErrURL = errors.New("scope: invalid URL")
	// ErrRule: a rule has an unknown kind, no matcher, an empty value, an invalid regex, a surt
	// without "(", or an invalid host.
	ErrRule = errors.New("scope: invalid rule")
	// ErrSeedType: a seed type is not one of the four names.
	ErrSeedType = errors.New("scope: invalid seed type")
	// ErrConfig: a Config has an unknown flavour, a negative hop limit or a negative
	// MaxURLLength, or domains that are listed twice, missing in the elastic flavour, given in
	// another, or that a seed is outside of.
	ErrConfig = errors.New("scope: invalid config")
)

// Flavour selects the scope behaviour: Standard (Heritrix) or Brozzler (spec/scope.md), or
// Elastic (spec/elastic.md §1).
type Flavour string

// The three flavours.
const (
	Standard Flavour = "standard"
	Brozzler Flavour = "brozzler"
	// Elastic is the Elastic web crawler's model: the crawl stays within its domains (origins),
	// each with ordered crawl rules, up to a link depth. URLs are canonicalised as in Standard.
	Elastic Flavour = "elastic"
)

// ParseFlavour accepts "" (meaning Standard), "standard", "brozzler" and "elastic",
// case-insensitively. Errors wrap ErrConfig.
func ParseFlavour(s string) (Flavour, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", string(Standard):
		return Standard, nil
	case string(Brozzler):
		return Brozzler, nil
	case string(Elastic):
		return Elastic, nil
	}
	return "", fmt.Errorf("%w: unknown flavour %q (want standard, brozzler or elastic)", ErrConfig, s)
}

// SeedType is a seed's Archive-It seed type.
type SeedType string

// The four seed types.
const (
	OnePage      SeedType = "one-page"
	OnePagePlus  SeedType = "one-page+"
	StandardSeed SeedType = "standard"
	StandardPlus SeedType = "standard+"
)

// ParseSeedType accepts "" (meaning StandardSeed), the four names and Archive-It's spellings
// (One-Page, One-Page+, Standard, Standard+), case-insensitively, with surrounding space
// ignored. Errors wrap ErrSeedType and quote s.
func ParseSeedType(s string) (SeedType, error) {
	switch t := SeedType(strings.ToLower(strings.TrimSpace(s))); t {
	case "":
		return StandardSeed, nil
	case OnePage, OnePagePlus, StandardSeed, StandardPlus:
		return t, nil
	}
	return "", fmt.Errorf("%w: %q (want one-page, one-page+, standard or standard+)", ErrSeedType, s)
}

// Reasons a Decision carries (spec/scope.md §4, spec/elastic.md §1). Rule decisions carry
// ReasonAcceptPrefix or ReasonBlockPrefix followed by the rule's String(); crawl rule decisions
// ReasonCrawlRulePrefix followed by "<n>:<policy>:<type>:<pattern>" (n counts from 1).
const (
	ReasonSeed         = "seed"         // the URL is a seed (hop path ""): not scope-checked but in Elastic
	ReasonScheme       = "scheme"       // not http or https
	ReasonPrerequisite = "prerequisite" // robots.txt (last hop P)
	ReasonTrap         = "trap"         // pathological or too deep path (Standard)
	ReasonEmbed        = "embed"        // transclusion (Standard) or a page's embed (Brozzler)
	ReasonMaxHops      = "max-hops"     // too many hops from the seed
	ReasonSeedPrefix   = "seed-prefix"  // in a seed's prefix (Standard) or automatic rule (Brozzler)
	ReasonOneHopOff    = "one-hop-off"  // one hop off an in-scope page (standard+, one-page+)
	ReasonOutOfScope   = "out-of-scope" // nothing let it in
	ReasonTooLong      = "url-too-long" // the canonical URL is longer than Config.MaxURLLength
	// ReasonTooManySegments and ReasonTooManyParams: the path has more segments than
	// Config.MaxURLSegments, the query more parameters than Config.MaxURLParams.
	ReasonTooManySegments = "url-too-many-segments"
	ReasonTooManyParams   = "url-too-many-params"
	ReasonAcceptPrefix    = "accept:" // + rule text
	ReasonBlockPrefix     = "block:"  // + rule text

	ReasonOutOfDomain     = "out-of-domain" // Elastic: the URL's origin is none of the domains
	ReasonCrawlRulePrefix = "crawl-rule:"   // Elastic: + "<n>:<policy>:<type>:<pattern>" of a deny rule
	ReasonMaxDepth        = "max-depth"     // Elastic: deeper than Config.MaxCrawlDepth
	ReasonDomain          = "domain"        // Elastic: in one of the domains, no rule denies it
)

// DefaultMaxCrawlDepth is the default of Config.MaxCrawlDepth: the Elastic Open Crawler's own
// (max_crawl_depth: 10 in the DEFAULTS of lib/crawler/api/config.rb in elastic/crawler, where
// "seed urls have depth 1").
const DefaultMaxCrawlDepth = 10

// DefaultMaxURLLength is the default of Config.MaxURLLength: Heritrix's limit (its
// UURIFactory refuses longer URIs), itself Internet Explorer's old limit.
const DefaultMaxURLLength = 2083

const (
	defaultMaxHops     = 100 // Standard flavour, and Brozzler standard(+) seeds
	maxRedirectPromote = 5   // Standard: a seed redirect chain shorter than this promotes
	maxPathSegments    = 20  // Standard trap: more path segments than this
	maxSegmentRepeats  = 3   // Standard trap: one segment this often in a row
)

// Seed is one seed of the crawl with its own rules and limits.
type Seed struct {
	URL        string   // as given; New canonicalises it
	Type       SeedType // "" means StandardSeed; Archive-It spellings are accepted
	Accept     []Rule   // added to the collection's accept rules for URLs from this seed
	Block      []Rule   // added to the collection's block rules for URLs from this seed
	MaxHops    *int     // nil: inherit Config.MaxHops
	MaxHopsOff *int     // nil: inherit Config.MaxHopsOff (Brozzler flavour only)
	// RedirectedFrom, when set, says this seed is the redirect target of that seed URL, as
	// PromoteRedirect recorded it (so a resumed crawl can restore promotions). Standard: it is a
	// seed like the others (with the original's type if Type is ""). Brozzler: it adds to the
	// accept rules of the original seed (§3.2) instead of being a seed of its own.
	RedirectedFrom string
}

// Config is the scope of one crawl.
type Config struct {
	Flavour    Flavour // "" means Standard
	Accept     []Rule  // collection-level accept rules
	Block      []Rule  // collection-level block rules
	MaxHops    *int    // nil: 100 (Standard) or the seed type's number (Brozzler, §4.2)
	MaxHopsOff *int    // nil: the seed type's number (Brozzler only; ignored by Standard)
	// MaxURLLength is the longest canonical URL, in bytes (a canonical http(s) URL is ASCII),
	// that the crawl takes: Decide refuses a longer candidate with ReasonTooLong before any
	// other check, and New refuses a longer seed. 0 means DefaultMaxURLLength (2,083, as
	// Heritrix); negative is an error.
	MaxURLLength int
	// MaxURLSegments, when positive, is the most path segments (the number of "/" in the
	// path, as the Elastic Open Crawler counts them: /a/b/c has 3) a URL may have, and
	// MaxURLParams the most query parameters (the "&"-separated pairs of its query):
	// Decide refuses a candidate with more with ReasonTooManySegments or
	// ReasonTooManyParams, right after the length check, seeds included. 0: no limit;
	// negative is an error.
	MaxURLSegments int
	MaxURLParams   int
	Seeds          []Seed
	// Domains are the origins of the Elastic flavour, each with its crawl rules; it needs at
	// least one, and every seed must be in one of them. Other flavours take none. In the
	// Elastic flavour the Archive-It rules still apply: a block rule keeps a URL out before
	// the domains are looked at, and an accept rule lets in a URL of a domain that its crawl
	// rules deny (not deeper than MaxCrawlDepth); no rule brings in another origin.
	Domains []Domain
	// MaxPathRepeats, when set, replaces the Standard flavour's repeated-segment trap rule
	// (a path segment 3 or more times in a row) with FAST's max_uri_recursion: a path in which
	// a sequence of one or more segments is repeated consecutively more than MaxPathRepeats
	// times ("/a/b/a/b/a/b" repeats "a/b" 3 times) is a trap (ReasonTrap). The 20-segment
	// rule stays. nil keeps the fixed rule; below 1 is an error. Other flavours have no
	// trap rule and ignore it.
	MaxPathRepeats *int
	// MaxCrawlDepth is the Elastic flavour's deepest page (seeds and sitemap entries have depth
	// 1, each link adds 1); nil means DefaultMaxCrawlDepth (10); below 1 is an error. Other
	// flavours take none.
	MaxCrawlDepth *int
}

// Candidate is a URL to decide. URL, Via, ViaRedirect and Seed are canonical URLs (Decide does
// not canonicalise them; anything else gives a well-defined but unhelpful answer, never a panic).
type Candidate struct {
	URL         string
	Hops        string // the candidate's full hop path, e.g. "LLE"; "" for a seed
	Via         string // the URL it was found on
	ViaHopsOff  int    // the via's offHops (Standard) or hops_off (Brozzler)
	ViaRedirect string // the via's final redirect URL, if it redirected (parent_regex)
	Seed        string // source seed; "" or unknown means the first seed
	// Addr is the address the URL's host resolves to (the one the crawl connects to), for
	// rules with an ip matcher; the zero Addr when it is not known (see NeedsAddr).
	Addr netip.Addr
}

// Decision is the outcome for a Candidate.
type Decision struct {
	In      bool
	Reason  string // one of the Reason constants, or ReasonAcceptPrefix/ReasonBlockPrefix + rule
	HopsOff int    // the offHops/hops_off the URL gets when In (0 otherwise)
	// ByAddr says the decision rests on the candidate's address: the rule that decided it
	// has an ip matcher, or it is ReasonNoAddress or ReasonAddress (with another address, an
	// ip rule could have let it in).
	ByAddr bool
}

// seedState is a seed as Decide uses it. Fields are immutable after creation except auto.
type seedState struct {
	url        string
	typ        SeedType
	rules      *ruleSet // seed-level rules; nil when none
	maxHops    int
	maxHopsOff int
	auto       atomic.Pointer[[]string] // Brozzler: the seed's automatic SSURT accept prefixes
}

// Scope decides scope for one crawl. It is safe for concurrent use.
type Scope struct {
	flavour  Flavour
	coll     *ruleSet              // collection rules; nil when none
	seeds    map[string]*seedState // seeds given to New (read-only after New)
	first    *seedState            // default source seed
	extra    sync.Map              // string -> *seedState: promoted seeds and redirect aliases
	prefixes atomic.Pointer[rnode] // Standard: the shared seed prefix tree (persistent)
	mu       sync.Mutex            // serialises writers of prefixes, extra and seedState.auto
	cfgHops  *int
	cfgOff   *int
	maxLen   int  // Config.MaxURLLength with the default applied
	maxSegs  int  // Config.MaxURLSegments, 0: none
	maxPars  int  // Config.MaxURLParams, 0: none
	repeats  int  // Config.MaxPathRepeats, 0 when nil
	needAddr bool // a rule of the collection or of a seed has an ip matcher
	elastic  elasticScope
}

// New validates cfg and builds its scope: seeds are canonicalised (errors wrap ErrURL; seeds
// must be http or https and no longer than the URL length limit, and the error quotes the
// start of a seed that is too long), seed types parsed (ErrSeedType), rules compiled
// (ErrRule), flavour, hop limits and URL length limit checked (ErrConfig). A seed listed
// twice keeps its first entry. A recorded redirect seed (Seed.RedirectedFrom) longer than
// the limit is left out: PromoteRedirect would not have made it, and a resumed crawl must
// not fail on it. Domains (Elastic) must be http(s) origins, without a path other than "/",
// a query, a fragment or userinfo (ErrURL), listed once each and, in the Elastic flavour, at
// least one, with every seed's origin among them (ErrConfig); other flavours take no domains
// and no MaxCrawlDepth (ErrConfig).
func New(cfg Config) (*Scope, error) {
	fl, err := ParseFlavour(string(cfg.Flavour))
	if err != nil {
		return nil, err
	}
	if err := checkHops(cfg.MaxHops, cfg.MaxHopsOff); err != nil {
		return nil, err
	}
	if cfg.MaxURLLength < 0 || cfg.MaxURLSegments < 0 || cfg.MaxURLParams < 0 {
		return nil, fmt.Errorf("%w: negative max_url_length, max_url_segments or max_url_params", ErrConfig)
	}
	s := &Scope{flavour: fl, seeds: map[string]*seedState{}, cfgHops: cfg.MaxHops, cfgOff: cfg.MaxHopsOff,
		maxLen: cfg.MaxURLLength, maxSegs: cfg.MaxURLSegments, maxPars: cfg.MaxURLParams}
	if s.maxLen == 0 {
		s.maxLen = DefaultMaxURLLength
	}
	if cfg.MaxPathRepeats != nil {
		if *cfg.MaxPathRepeats < 1 {
			return nil, fmt.Errorf("%w: max_path_repeats %d: must be at least 1", ErrConfig, *cfg.MaxPathRepeats)
		}
		s.repeats = *cfg.MaxPathRepeats
	}
	if err := s.elastic.init(cfg, fl); err != nil {
		return nil, err
	}
	if s.coll, err = compileRules(cfg.Block, cfg.Accept, fl); err != nil {
		return nil, fmt.Errorf("compile collection rules: %w", err)
	}
	s.needAddr = s.coll != nil && s.coll.needAddr
	var redirected []Seed
	for _, sd := range cfg.Seeds {
		if sd.RedirectedFrom != "" {
			redirected = append(redirected, sd)
			continue
		}
		if err := s.addSeed(sd, nil); err != nil {
			return nil, err
		}
	}
	for _, sd := range redirected {
		if c, err := Canonicalize(sd.URL, fl); err == nil && (len(c) > s.maxLen || (fl == Elastic && s.elastic.domain(c) == nil)) {
			continue
		}
		origin := s.lookup(sd.RedirectedFrom)
		if origin == nil {
			if c, err := Canonicalize(sd.RedirectedFrom, fl); err == nil {
				origin = s.lookup(c)
			}
		}
		if fl == Brozzler && origin != nil {
			target, err := s.canonicalSeed(sd.URL)
			if err != nil {
				return nil, err
			}
			s.brozzlerRedirect(origin, target)
			if s.seeds[target] == nil {
				s.extra.Store(target, origin)
			}
			continue
		}
		if err := s.addSeed(sd, origin); err != nil {
			return nil, err
		}
	}
	if s.first == nil {
		st := &seedState{typ: StandardSeed}
		st.maxHops, st.maxHopsOff = s.limits(StandardSeed, nil, nil)
		st.auto.Store(&[]string{})
		s.first = st
	}
	return s, nil
}

func checkHops(hops, off *int) error {
	if hops != nil && *hops < 0 {
		return fmt.Errorf("%w: negative max_hops %d", ErrConfig, *hops)
	}
	if off != nil && *off < 0 {
		return fmt.Errorf("%w: negative max_hops_off %d", ErrConfig, *off)
	}
	return nil
}

// canonicalSeed canonicalises a seed (or a redirect target that may become one) and checks
// that it is http(s) and within the URL length limit.
func (s *Scope) canonicalSeed(raw string) (string, error) {
	c, err := Canonicalize(raw, s.flavour)
	if err != nil {
		return "", fmt.Errorf("canonicalize seed: %w", err)
	}
	if !strings.HasPrefix(c, "http://") && !strings.HasPrefix(c, "https://") {
		return "", fmt.Errorf("%w: seed %q: scheme is not http or https", ErrURL, raw)
	}
	if len(c) > s.maxLen {
		name := c
		if len(name) > 100 {
			name = name[:100] + "..." // the error names the seed, not all of it
		}
		return "", fmt.Errorf("%w: seed %q is %d characters long, over the limit of %d (max_url_length)",
			ErrURL, name, len(c), s.maxLen)
	}
	return c, nil
}

// addSeed adds a seed given to New; origin is the seed it was redirected from, if known.
func (s *Scope) addSeed(sd Seed, origin *seedState) error {
	c, err := s.canonicalSeed(sd.URL)
	if err != nil {
		return err
	}
	typ, err := ParseSeedType(string(sd.Type))
	if err != nil {
		return fmt.Errorf("add seed %q: %w", sd.URL, err)
	}
	if sd.Type == "" && origin != nil {
		typ = origin.typ
	}
	if err := checkHops(sd.MaxHops, sd.MaxHopsOff); err != nil {
		return fmt.Errorf("add seed %q: %w", sd.URL, err)
	}
	if _, dup := s.seeds[c]; dup {
		return nil
	}
	if s.flavour == Elastic && s.elastic.domain(c) == nil {
		return fmt.Errorf("%w: seed %q: its origin %s is none of the domains (%s): add it to the domains",
			ErrConfig, sd.URL, Origin(c), s.elastic.list())
	}
	st := &seedState{url: c, typ: typ}
	if st.rules, err = compileRules(sd.Block, sd.Accept, s.flavour); err != nil {
		return fmt.Errorf("add seed %q: %w", sd.URL, err)
	}
	s.needAddr = s.needAddr || st.rules != nil && st.rules.needAddr
	st.maxHops, st.maxHopsOff = s.limits(typ, sd.MaxHops, sd.MaxHopsOff)
	if s.flavour == Brozzler {
		st.auto.Store(&[]string{seedSSURT(c)})
	} else if s.flavour == Standard && (typ == StandardSeed || typ == StandardPlus) {
		s.prefixes.Store(insert(s.prefixes.Load(), seedPrefix(c, rawHasSlashPath(sd.URL)), -1))
	}
	s.seeds[c] = st
	if s.first == nil {
		s.first = st
	}
	return nil
}

// limits resolves max_hops and max_hops_off for a seed: the seed's value, else the
// collection's, else the default (Standard: 100 hops; Brozzler: §4.2's table).
func (s *Scope) limits(typ SeedType, hops, off *int) (int, int) {
	h, o := defaultMaxHops, 0
	if s.flavour == Brozzler {
		switch typ {
		case StandardPlus:
			o = 1
		case OnePage:
			h = 0
		case OnePagePlus:
			h, o = 1, 1
		}
	}
	switch {
	case hops != nil:
		h = *hops
	case s.cfgHops != nil:
		h = *s.cfgHops
	}
	switch {
	case off != nil:
		o = *off
	case s.cfgOff != nil:
		o = *s.cfgOff
	}
	return h, o
}

// seedPrefix derives the Standard flavour's SURT prefix of a canonical seed URL (§3.1): the
// seed's scope SURT, query included, cut after its last "/" when there is one after the "//",
// else without its closing ")"; in http:// form. hadSlash says whether the seed as written
// had a path: without one the "/" canonicalisation added is not part of the seed, and the
// prefix opens every subdomain ("http://ca.gov" gives "http://(gov,ca,"). A "/" in the query
// counts like any other: "http://example.com/search?q=a/b" gives
// "http://(com,example,)/search?q=a/", which "http://example.com/other" does not match.
func seedPrefix(canonical string, hadSlash bool) string {
	p, _ := split(canonical)
	p.pathq, _, _ = strings.Cut(p.pathq, "#")
	if !hadSlash && p.pathq == "/" {
		p.pathq = ""
	}
	v := string(appendSURT(nil, &p, surtForm{forceHTTP: true}))
	if i := strings.LastIndexByte(v, '/'); i > strings.Index(v, "//")+1 {
		v = v[:i+1]
	}
	if !strings.HasSuffix(v, "/") {
		v = strings.TrimSuffix(v, ")")
	}
	return v
}

// seedSSURT is the Brozzler automatic accept prefix of a canonical URL: its SSURT without query.
func seedSSURT(canonical string) string {
	p, _ := split(canonical)
	p.pathq, _, _ = strings.Cut(p.pathq, "?")
	p.pathq, _, _ = strings.Cut(p.pathq, "#")
	return string(appendSSURT(nil, &p))
}

// lookup finds a seed (or promoted seed, or Brozzler redirect alias) by canonical URL.
func (s *Scope) lookup(u string) *seedState {
	if st, ok := s.seeds[u]; ok {
		return st
	}
	if v, ok := s.extra.Load(u); ok {
		return v.(*seedState)
	}
	return nil
}

// NeedsAddr reports whether a rule of the scope (of the collection or of a seed) has an ip
// matcher: then Decide wants Candidate.Addr.
func (s *Scope) NeedsAddr() bool { return s.needAddr }

// Flavour returns the scope's flavour.
func (s *Scope) Flavour() Flavour { return s.flavour }

// SeedType returns the type of a seed (canonical URL, or a URL that canonicalises to one),
// including seeds promoted by PromoteRedirect. In the Brozzler flavour a recorded seed redirect
// target reports the type of its seed.
func (s *Scope) SeedType(seed string) (SeedType, bool) {
	st := s.lookup(seed)
	if st == nil {
		if c, err := Canonicalize(seed, s.flavour); err == nil {
			st = s.lookup(c)
		}
	}
	if st == nil {
		return "", false
	}
	return st.typ, true
}

// PromoteRedirect records that target was reached from seed by a chain of redirects only (hops
// is the target's hop path, e.g. "R" or "RR"); seed and target are URLs (canonicalised here).
// A target longer than the URL length limit is never promoted.
// Standard flavour (§3.1): for a standard or standard+ seed and a chain shorter than 5, target
// becomes a seed of the same type (with the seed's rules and limits) and its prefix joins the
// shared set. Brozzler flavour (§3.2): the target's SSURT (query removed) joins the seed's
// automatic accept rules, and when only the scheme changed the seed's SSURT with the new scheme
// too. Elastic flavour: the domains are the scope, nothing is promoted. It returns true when
// the scope changed. It is safe for concurrent use with Decide.
func (s *Scope) PromoteRedirect(seed, target, hops string) bool {
	if hops == "" || !hop.IsRedirectChain(hops) || s.flavour == Elastic {
		return false
	}
	sc, err := Canonicalize(seed, s.flavour)
	if err != nil {
		return false
	}
	tc, err := s.canonicalSeed(target)
	if err != nil || tc == sc {
		return false
	}
	origin := s.lookup(sc)
	if origin == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.flavour == Brozzler {
		changed := s.brozzlerRedirect(origin, tc)
		if _, loaded := s.extra.LoadOrStore(tc, origin); !loaded && s.seeds[tc] == nil {
			changed = true
		}
		return changed
	}
	if len(hops) >= maxRedirectPromote || (origin.typ != StandardSeed && origin.typ != StandardPlus) {
		return false
	}
	changed := false
	prefix := seedPrefix(tc, true)
	if root := s.prefixes.Load(); !root.anyPrefix([]byte(prefix)) {
		s.prefixes.Store(insert(root, prefix, -1))
		changed = true
	}
	if s.lookup(tc) == nil {
		st := &seedState{url: tc, typ: origin.typ, rules: origin.rules, maxHops: origin.maxHops, maxHopsOff: origin.maxHopsOff}
		st.auto.Store(&[]string{})
		s.extra.Store(tc, st)
		changed = true
	}
	return changed
}

// brozzlerRedirect adds a seed redirect target's accept prefixes to origin (§3.2), as brozzler's
// note_seed_redirect does; a prefix already covered by one of the seed's prefixes is skipped.
// Callers hold s.mu (or are New).
func (s *Scope) brozzlerRedirect(origin *seedState, target string) bool {
	tp, _ := split(target)
	sp, _ := split(origin.url)
	var add []string
	if tp.user == sp.user && tp.host == sp.host && tp.port == sp.port && tp.scheme != sp.scheme {
		sp.scheme = tp.scheme
		sp.pathq, _, _ = strings.Cut(sp.pathq, "?")
		add = append(add, string(appendSSURT(nil, &sp)))
	}
	add = append(add, seedSSURT(target))
	cur := *origin.auto.Load()
	changed := false
	for _, a := range add {
		redundant := false
		for _, p := range cur {
			if strings.HasPrefix(a, p) {
				redundant = true
				break
			}
		}
		if !redundant {
			cur = append(cur[:len(cur):len(cur)], a)
			changed = true
		}
	}
	if changed {
		origin.auto.Store(&cur)
	}
	return changed
}

// Decide decides whether the candidate is in scope (spec/scope.md §4.1 for Standard, §4.2 for
// Brozzler, spec/elastic.md §1 for Elastic) and says why. A URL longer than
// Config.MaxURLLength is out with ReasonTooLong before anything else is looked at, seeds
// included. Seeds (hop path "") are in with ReasonSeed, except in the Elastic flavour, where
// block rules, the domains and their crawl rules decide them as any other URL. Decide is pure, deterministic,
// allocation-light and safe for concurrent use; it never panics, and its cost is linear in
// the length of the URL.
func (s *Scope) Decide(c Candidate) Decision {
	if len(c.URL) > s.maxLen {
		return Decision{Reason: ReasonTooLong}
	}
	if r := s.urlLimits(c.URL); r != "" {
		return Decision{Reason: r}
	}
	var t target
	t.url, t.via, t.viaRedirect, t.addr = c.URL, c.Via, c.ViaRedirect, c.Addr
	t.surtLen, t.ssurtLen = -1, -1
	p, ok := split(c.URL)
	if !ok || (p.scheme != "http" && p.scheme != "https") {
		return Decision{Reason: ReasonScheme}
	}
	if p.host == "" {
		return Decision{Reason: ReasonOutOfScope}
	}
	t.p = p
	if c.Hops == "" && s.flavour != Elastic {
		return Decision{In: true, Reason: ReasonSeed}
	}
	if hop.Last(c.Hops) == hop.Prerequisite {
		return Decision{In: true, Reason: ReasonPrerequisite, HopsOff: c.ViaHopsOff}
	}
	st := s.first
	if c.Seed != "" {
		if x := s.lookup(c.Seed); x != nil {
			st = x
		}
	}
	var d Decision
	switch s.flavour {
	case Elastic:
		d = s.decideElastic(&t, &c, st)
	case Brozzler:
		t.brozzler = true
		d = s.decideBrozzler(&t, &c, st)
	default:
		d = s.decideStandard(&t, &c, st)
	}
	if t.byAddr || t.addrMissing || t.addrFailed {
		d = addrDecision(&t, d)
	}
	return d
}

// urlLimits returns ReasonTooManySegments or ReasonTooManyParams when the URL goes beyond
// Config.MaxURLSegments or MaxURLParams, else "".
func (s *Scope) urlLimits(u string) string {
	if s.maxSegs == 0 && s.maxPars == 0 {
		return ""
	}
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	rest, _, _ = strings.Cut(rest, "#")
	rest, query, _ := strings.Cut(rest, "?")
	path := ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		path = rest[i:]
	}
	if s.maxSegs > 0 && strings.Count(path, "/") > s.maxSegs {
		return ReasonTooManySegments
	}
	if s.maxPars > 0 && query != "" {
		n := 0
		for _, p := range strings.Split(query, "&") {
			if p != "" {
				n++
			}
		}
		if n > s.maxPars {
			return ReasonTooManyParams
		}
	}
	return ""
}

// addrDecision marks a decision made by a rule with an ip matcher (Decision.ByAddr), and turns
// "nothing let it in" into ReasonNoAddress when an accept rule's ip matcher could not be tried
// for want of an address, or into ReasonAddress when it failed on the address.
func addrDecision(t *target, d Decision) Decision {
	switch {
	case t.byAddr && (strings.HasPrefix(d.Reason, ReasonAcceptPrefix) || strings.HasPrefix(d.Reason, ReasonBlockPrefix)):
		d.ByAddr = true
	case !d.In && (d.Reason == ReasonOutOfScope || d.Reason == ReasonOutOfDomain) && t.addrMissing:
		d.Reason, d.ByAddr = ReasonNoAddress, true
	case !d.In && (d.Reason == ReasonOutOfScope || d.Reason == ReasonOutOfDomain) && t.addrFailed:
		d.Reason, d.ByAddr = ReasonAddress, true
	}
	return d
}

// levels holds the candidate rules of the collection and the seed for one decision.
type levels struct {
	coll, seed       *ruleSet
	collSet, seedSet idSet
}

func (l *levels) init(t *target, coll, seed *ruleSet) {
	l.coll, l.seed = coll, seed
	if coll != nil {
		coll.candidates(t, &l.collSet)
	}
	if seed != nil {
		seed.candidates(t, &l.seedSet)
	}
}

// block returns the first matching block rule: collection rules first, then the seed's. A
// block rule's ip matcher, untried or failed, does not make a URL ReasonNoAddress or
// ReasonAddress (only an accept rule's does: it could have let the URL in).
func (l *levels) block(t *target) (string, bool) {
	missing, failed := t.addrMissing, t.addrFailed
	reason, ok := "", false
	if l.coll != nil {
		if r, found := l.coll.first(t, &l.collSet, 0, l.coll.nBlock); found {
			reason, ok = r.reason, true
		}
	}
	if !ok && l.seed != nil {
		if r, found := l.seed.first(t, &l.seedSet, 0, l.seed.nBlock); found {
			reason, ok = r.reason, true
		}
	}
	t.addrMissing, t.addrFailed = missing, failed
	return reason, ok
}

// accept returns the first matching accept rule: collection rules first, then the seed's.
func (l *levels) accept(t *target) (string, bool) {
	if l.coll != nil {
		if r, ok := l.coll.first(t, &l.collSet, l.coll.nBlock, len(l.coll.rules)); ok {
			return r.reason, true
		}
	}
	if l.seed != nil {
		if r, ok := l.seed.first(t, &l.seedSet, l.seed.nBlock, len(l.seed.rules)); ok {
			return r.reason, true
		}
	}
	return "", false
}

// decideStandard follows spec/scope.md §4.1 from step 3 on.
func (s *Scope) decideStandard(t *target, c *Candidate, st *seedState) Decision {
	var l levels
	l.init(t, s.coll, st.rules)
	if reason, ok := l.block(t); ok {
		return Decision{Reason: reason}
	}
	if s.isTrap(t.p.pathq) {
		return Decision{Reason: ReasonTrap}
	}
	h := c.Hops
	if transcluded(h) {
		return Decision{In: true, Reason: ReasonEmbed, HopsOff: c.ViaHopsOff}
	}
	if len(h) > st.maxHops {
		return Decision{Reason: ReasonMaxHops}
	}
	if reason, ok := l.accept(t); ok {
		return Decision{In: true, Reason: reason}
	}
	if s.prefixes.Load().anyPrefix(t.surt()) {
		return Decision{In: true, Reason: ReasonSeedPrefix}
	}
	switch st.typ {
	case StandardPlus:
		if c.ViaHopsOff < 1 {
			return Decision{In: true, Reason: ReasonOneHopOff, HopsOff: c.ViaHopsOff + 1}
		}
	case OnePagePlus:
		if strings.IndexByte(h[:len(h)-1], hop.Link) < 0 {
			return Decision{In: true, Reason: ReasonOneHopOff, HopsOff: c.ViaHopsOff + 1}
		}
	}
	return Decision{Reason: ReasonOutOfScope}
}

// transcluded is §4.1 step 5: after the last L (or M) of the hop path there is at least one
// letter, at most one X, and at most two letters other than R.
func transcluded(h string) bool {
	n, x, other := 0, 0, 0
	for i := len(h) - 1; i >= 0; i-- {
		c := h[i]
		if c == hop.Link || c == hop.Sitemap {
			break
		}
		n++
		if c == hop.Speculative {
			x++
		}
		if c != hop.Redirect {
			other++
		}
	}
	return n >= 1 && x <= 1 && other <= 2
}

// isTrap is §4.1 step 4: a path segment repeated 3 or more times in a row, or more than 20
// segments. Segments are the parts between slashes of the path (query excluded); empty ones
// (from "//") count, the empty part after a final slash does not.
func isTrap(pathq string) bool {
	if len(pathq) == 0 || pathq[0] != '/' {
		return false
	}
	segs, run := 0, 0
	prevStart, prevEnd := 0, -1
	start := 1
	for i := 1; i <= len(pathq); i++ {
		if i < len(pathq) && pathq[i] != '/' && pathq[i] != '?' && pathq[i] != '#' {
			continue
		}
		if i == len(pathq) || pathq[i] != '/' {
			if i == start {
				break // the empty part after a final slash is not a segment
			}
		}
		segs++
		if segs > maxPathSegments {
			return true
		}
		if prevEnd >= 0 && i-start == prevEnd-prevStart && pathq[start:i] == pathq[prevStart:prevEnd] {
			run++
			if run >= maxSegmentRepeats {
				return true
			}
		} else {
			run = 1
		}
		prevStart, prevEnd = start, i
		if i == len(pathq) || pathq[i] != '/' {
			break
		}
		start = i + 1
	}
	return false
}

// decideBrozzler follows spec/scope.md §4.2.
func (s *Scope) decideBrozzler(t *target, c *Candidate, st *seedState) Decision {
	h := c.Hops
	last := h[len(h)-1]
	outlink := last != hop.Embed && last != hop.Redirect && last != hop.Inferred
	var l levels
	if !outlink {
		l.init(t, s.coll, st.rules)
		if reason, ok := l.block(t); ok {
			return Decision{Reason: reason}
		}
		return Decision{In: true, Reason: ReasonEmbed, HopsOff: c.ViaHopsOff}
	}
	if strings.Count(h[:len(h)-1], string(hop.Link)) >= st.maxHops {
		return Decision{Reason: ReasonMaxHops}
	}
	l.init(t, s.coll, st.rules)
	if reason, ok := l.block(t); ok {
		return Decision{Reason: reason}
	}
	ss := t.ssurt()
	for _, p := range *st.auto.Load() {
		if len(ss) >= len(p) && string(ss[:len(p)]) == p {
			return Decision{In: true, Reason: ReasonSeedPrefix}
		}
	}
	if reason, ok := l.accept(t); ok {
		return Decision{In: true, Reason: reason}
	}
	if c.ViaHopsOff < st.maxHopsOff {
		return Decision{In: true, Reason: ReasonOneHopOff, HopsOff: c.ViaHopsOff + 1}
	}
	return Decision{Reason: ReasonOutOfScope}
}

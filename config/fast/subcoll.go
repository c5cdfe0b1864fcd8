package fast

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/config"
)

// Subcollections (§2.2.4.33, §2.2.5) become amber's subcollections: each SubDomain element
// and each section of subdomains, in that order as the file gives them (the subdomains
// section's first), is one entry whose match and except rules are its include and exclude
// rules, and whose settings are its attribs. A URL belongs to the first subcollection that
// takes it (docs/fast.md, "Subcollections, logins, nodes").

// subcollections converts the subcollections; their start URIs are seeds (see seeds).
func (c *conv) subcollections() {
	if s := c.secs["subdomains"]; s != nil {
		c.mapped(s, "subcollections")
	}
	names := map[string]bool{}
	browser := c.c.Fetcher == "browser" // the crawl loads some pages in the browser
	for _, sc := range c.subs() {
		for _, a := range sc.s.Attribs {
			browser = browser || (a.Name == "use_javascript" && a.Bool)
		}
	}
	for _, sc := range c.subs() {
		c.subcollection(sc, names, browser)
	}
}

// subName is a subcollection's name as amber takes it: the characters amber does not allow
// in one (it is a crawl.log annotation) become '_', and a name taken already gets -2, -3, ...
func subName(name string, taken map[string]bool) string {
	b := []byte(name)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '_' || ch == '-') {
			b[i] = '_'
		}
	}
	out := string(b)
	if out == "" {
		out = "sub"
	}
	for n := 2; taken[out]; n++ {
		out = string(b) + "-" + strconv.Itoa(n)
	}
	taken[out] = true
	return out
}

// subcollection converts one subcollection into an entry of subcollections; browser says
// whether the crawl loads pages in the browser (the collection's or a subcollection's
// use_javascript).
func (c *conv) subcollection(sc sub, names map[string]bool, browser bool) {
	key := fmt.Sprintf("subcollections[%d]", len(c.c.Subcollections))
	s := config.Subcollection{Name: subName(sc.s.Name, names)}
	c.src(key, sc.short)
	c.mapped(sc.s, key)
	if s.Name != sc.s.Name {
		c.items = append(c.items, item{status: noteDiffers, what: sc.short, line: sc.s.Line, path: sc.s.Path,
			why: fmt.Sprintf("amber names it %s (crawl.log sub:NAME: letters, digits, '.', '_' and '-'; names unique)", s.Name)})
	}
	c.subRules(sc, &s, key)
	byName := map[string]*Attrib{}
	for _, a := range sc.s.Attribs {
		byName[a.Name] = a
	}
	renders := c.subFetcher(byName["use_javascript"], &s, key)
	// What the browser cannot honour for its pages (subcoll.Subcollection): refused, not
	// written, so that the converted file crawls.
	browserRefuses := func(a *Attrib) bool {
		if !renders {
			return false
		}
		c.items = append(c.items, item{status: string(Refused), what: c.what(a), line: a.Line, path: a.Path, strict: true,
			why: "with use_javascript the browser sends every request of a page (its embeds on any host too) through the crawl's one HTTP client: a subcollection's own headers, proxy or cut_off cannot be honoured for its pages"})
		return true
	}
	for _, a := range sc.s.Attribs {
		if c.accounted(a) {
			continue
		}
		switch a.Name {
		case "delay":
			if a.Real < 0 || a.Real > 1e6 {
				c.invalid(a, "delay %v: want seconds, 0 or more", a.Real)
				continue
			}
			d := time.Duration(a.Real * float64(time.Second)).Round(time.Millisecond)
			s.HostDelay = &d
			c.src(key+".host_delay", c.short[a])
			c.mapped(a, key+".host_delay")
			c.subDiffers(a)
		case "max_doc":
			if a.Int < 0 {
				c.invalid(a, "max_doc %d: want 0 (no limit) or more", a.Int)
				continue
			}
			n := int64(a.Int)
			s.URLsPerHost = &n
			c.src(key+".urls_per_host", c.short[a])
			c.mapped(a, key+".urls_per_host")
			c.subDiffers(a)
		case "cut_off":
			switch {
			case a.Int <= 0:
				c.note(string(Unsupported), "amber keeps at most limits.response_size of a response (100 MiB unless set); it has no unlimited size", a)
			case !browserRefuses(a):
				s.ResponseSize = config.ByteSize(a.Int)
				c.src(key+".response_size", c.short[a])
				c.mapped(a, key+".response_size")
				c.subDiffers(a)
			}
			c.rec(a)
		case "headers":
			if !browserRefuses(a) {
				c.subHeaders(a, &s, key)
			}
			c.rec(a)
		case "proxy":
			switch {
			case browserRefuses(a):
			case browser:
				c.items = append(c.items, item{status: string(Refused), what: c.what(a), line: a.Line, path: a.Path, strict: true,
					why: "the crawl loads pages in the browser (use_javascript), which would load this subcollection's URLs as their embeds without its proxy"})
			default:
				c.subProxy(a, &s, key)
			}
			c.rec(a)
		case "use_sitemaps":
			v := a.Bool
			s.Sitemaps = &v
			c.src(key+".sitemaps", c.short[a])
			c.mapped(a, key+".sitemaps")
			c.subDiffers(a)
		case "allowed_schemes":
			c.subSchemes(a, &s, key)
		}
	}
	for _, x := range sc.s.Sections {
		if x.Name == "crawlmode" {
			c.subMode(x, &s, key)
		}
	}
	c.c.Subcollections = append(c.c.Subcollections, s)
}

// subFetcher maps a subcollection's use_javascript a (nil when not set) and reports whether its
// pages are rendered in the browser: as a says, else as the crawl's fetcher.
func (c *conv) subFetcher(a *Attrib, s *config.Subcollection, key string) bool {
	if a == nil {
		return c.c.Fetcher == "browser"
	}
	s.Fetcher = "http"
	if a.Bool {
		s.Fetcher = "browser"
	}
	c.src(key+".fetcher", c.short[a])
	c.mapped(a, key+".fetcher")
	return a.Bool
}

// subDiffers notes how amber differs for a subcollection's mapped attrib (its row's note).
func (c *conv) subDiffers(a *Attrib) {
	if r := elements["SubDomain"].node.attrib(a.Name); r != nil && r.Note != "" {
		c.note(noteDiffers, r.Note, a)
	}
	c.rec(a)
}

// subRules makes the subcollection's match and except rules of its include and exclude
// sections: it holds a URL when include_domains (no rules: every host) and include_uris (no
// rules: every URI) both take it and neither exclude section does.
func (c *conv) subRules(sc sub, s *config.Subcollection, key string) {
	secs := map[string]*Section{}
	for _, x := range sc.s.Sections {
		secs[x.Name] = x
	}
	except := subRuleList{c: c, list: &s.Except, key: key + ".except"}
	for _, name := range []string{"exclude_domains", "exclude_uris"} {
		c.subExcept(name, c.subSectionRules(name, secs[name], except.key), except)
	}
	hosts := c.subSectionRules("include_domains", secs["include_domains"], key+".match")
	uris := c.subSectionRules("include_uris", secs["include_uris"], key+".match")
	c.subMatch(sc, hosts, uris, subRuleList{c: c, list: &s.Match, key: key + ".match"})
}

// subSectionRules reads the rules of x, a subcollection's include or exclude section named
// name (nil: none), in file order: the members of its rule attribs and the rules of its file
// attrib's files (fileRules), without the address masks checkIPRules refuses; x and its rule
// attribs are recorded as become the amber key (subcollections[i].match or except). An
// attrib that is not a rule is left to the account.
func (c *conv) subSectionRules(name string, x *Section, key string) []domainRule {
	if x == nil {
		return nil
	}
	c.mapped(x, key)
	var out []domainRule
	n := schema.section(name).node
	for _, a := range x.Attribs {
		r := n.attrib(a.Name)
		if r == nil || a.Type != ListString {
			continue // the account reports it
		}
		if r.Name == "file" {
			out = append(out, c.fileRules(name, a)...)
			c.mapped(a, key)
			continue
		}
		for _, m := range a.Members {
			out = append(out, domainRule{kind: r.Name, value: m, label: m, from: c.short[a] + " " + m, a: a})
		}
		c.mapped(a, key)
	}
	return c.checkIPRules(out)
}

// subRuleList is a subcollection's match or except list, which add appends to.
type subRuleList struct {
	c    *conv
	list *[]config.RuleSpec
	key  string // the list's amber key: subcollections[i].match
}

// add appends r, from the FAST attrib and rule from says, and records it in Sources; a rule
// amber refuses is noted instead, under attrib a and label.
func (l subRuleList) add(r config.RuleSpec, from string, a *Attrib, label string) {
	if _, err := r.Rule(); err != nil {
		l.c.ruleNote(a, label, err)
		return
	}
	l.c.src(fmt.Sprintf("%s[%d]", l.key, len(*l.list)), from)
	*l.list = append(*l.list, r)
}

// subExcept adds to except the rules rs of the exclude section name: an address mask as an
// ip rule, decided on the host's address (docs/addresses.md), and any other rule as a regex
// on the host (exclude_domains) or the URL (exclude_uris); a rule amber cannot express is
// noted.
func (c *conv) subExcept(name string, rs []domainRule, except subRuleList) {
	for _, r := range rs {
		if isIPRule(r) {
			except.add(ipRuleSpec(r), r.from, r.a, r.label)
			continue
		}
		var re string
		var err error
		if name == "exclude_uris" {
			re, err = uriRule(r).regex()
		} else {
			re, err = r.regex()
		}
		if err != nil {
			c.ruleNote(r.a, r.label, err)
			continue
		}
		except.add(regexRule(re), r.from, r.a, r.label)
	}
}

// subMatch adds to match the rules of the include sections' rules hosts (include_domains)
// and uris (include_uris): when only one section has rules, each of its rules amber can
// express; when both do, a rule for each pair (pairRules; one no URL matches when no pair
// can be one rule, so that the subcollection takes no URL rather than every URL). Without
// include rules it adds none, and a note says the subcollection takes every URL its exclude
// rules leave.
func (c *conv) subMatch(sc sub, hosts, uris []domainRule, match subRuleList) {
	conds := c.hostConds(hosts)
	uriRes := c.expressibleURIs(uriRulesOf(uris))
	switch {
	case len(hosts) == 0 && len(uris) == 0:
		// §2.2.4.33 asks for include rules.
		c.items = append(c.items, item{status: noteCaution, what: sc.short, line: sc.s.Line, path: sc.s.Path,
			why: "no include_domains or include_uris: the subcollection takes every URL its exclude rules leave, before any later one"})
	case len(uris) == 0:
		for _, h := range conds {
			if h.ip != nil {
				match.add(ipRuleSpec(*h.ip), h.from, h.ip.a, h.ip.label)
				continue
			}
			re, _ := h.rule.regex()
			match.add(regexRule(re), h.from, h.rule.a, h.rule.label)
		}
	case len(hosts) == 0:
		for _, u := range uriRes {
			re, _ := u.regex()
			match.add(regexRule(re), u.from, u.a, u.label)
		}
	case len(conds)*len(uriRes) > maxPairs:
		for _, u := range uriRes {
			c.ruleNote(u.a, u.label, fmt.Errorf("%w: with %d host rules and %d URI rules, more than %d rules would be needed", errNotExpressible, len(conds), len(uriRes), maxPairs))
		}
	default:
		// Both: as the collection's accept rules.
		c.pairRules(conds, uriRes, match.add, ": the subcollection takes fewer URLs")
		if len(*match.list) == 0 {
			match.add(regexRule("[^\\s\\S]"), "include_domains and include_uris: no URL both take", nil, "")
		}
	}
}

// subHeaders maps a subcollection's headers: each "Name: value" member (User-Agent
// included: the subcollection's requests carry it).
func (c *conv) subHeaders(a *Attrib, s *config.Subcollection, key string) {
	c.headerMembers(a, c.short[a], &s.Headers, nil)
	if len(s.Headers) > 0 {
		c.src(key+".headers", c.short[a])
		c.mapped(a, key+".headers")
	} else if len(a.Members) == 0 {
		c.same(a, "no field: the subcollection's requests carry the collection's")
	}
}

// subProxy maps a subcollection's proxy, the first of the list.
func (c *conv) subProxy(a *Attrib, s *config.Subcollection, key string) {
	c.rec(a)
	if len(a.Members) == 0 {
		c.same(a, "no proxy: the subcollection's requests go as the collection's")
		return
	}
	raw := a.Members[0]
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	p, err := config.ParseProxy(raw)
	if err != nil {
		c.invalid(a, "proxy: %v", err)
		return
	}
	if _, err := p.URLWithCredentials(func(string) (string, bool) { return "x", true }); err != nil {
		c.invalid(a, "proxy: %v", err)
		return
	}
	s.Proxy = p
	c.src(key+".proxy", c.short[a])
	c.mapped(a, key+".proxy")
	if len(a.Members) > 1 {
		c.items = append(c.items, item{status: string(Unsupported), what: c.short[a], line: a.Line, path: a.Path, strict: true,
			why: fmt.Sprintf("FAST spreads requests over %d proxies; amber uses one, the first", len(a.Members))})
	}
	c.subDiffers(a)
}

// subSchemes maps a subcollection's allowed_schemes: http and https; others are refused.
func (c *conv) subSchemes(a *Attrib, s *config.Subcollection, key string) {
	c.rec(a)
	var other []string
	for _, m := range a.Members {
		switch l := strings.ToLower(strings.TrimSpace(m)); l {
		case "http", "https":
			if !slices.Contains(s.Schemes, l) {
				s.Schemes = append(s.Schemes, l)
			}
		default:
			other = append(other, m)
		}
	}
	if len(other) > 0 {
		c.items = append(c.items, item{status: string(Refused), what: c.short[a] + " " + strings.Join(other, ", "),
			why: whyFTP, line: a.Line, path: a.Path, strict: true})
	}
	if len(s.Schemes) == 0 {
		s.Schemes = nil
		c.items = append(c.items, item{status: string(Unsupported), what: c.short[a], line: a.Line, path: a.Path, strict: true,
			why: "neither http nor https: amber keeps the collection's schemes for the subcollection"})
		return
	}
	c.src(key+".schemes", c.short[a])
	c.mapped(a, key+".schemes")
}

// subMode maps a subcollection's crawlmode: mode DEPTH:n is max_hops n (not more than the
// collection's); fwdlinks the same as the collection's changes nothing, another is not
// supported yet; fwdredirects and reset_level are accounted for as the collection's.
func (c *conv) subMode(x *Section, s *config.Subcollection, key string) {
	c.rec(x)
	for _, a := range x.Attribs {
		switch a.Name {
		case "mode":
			m := strings.ToUpper(strings.TrimSpace(a.Text))
			colHops := c.c.Scope.MaxHops
			if m == "FULL" {
				if colHops != nil {
					c.note(string(Unsupported), "FULL in a subcollection of a DEPTH:n collection: amber's scope bounds every URL by the collection's hops first", a)
				} else {
					c.same(a, "FULL, as the collection: the crawl's scope.max_hops bounds its URLs")
				}
				continue
			}
			n, err := strconv.Atoi(strings.TrimPrefix(m, "DEPTH:"))
			if !strings.HasPrefix(m, "DEPTH:") || err != nil || n < 0 {
				c.invalid(a, "mode %q: want FULL or DEPTH:n", a.Text)
				continue
			}
			if colHops != nil && n > *colHops {
				c.note(string(Unsupported), fmt.Sprintf("deeper than the collection's DEPTH:%d: amber's scope bounds every URL by the collection's hops first", *colHops), a)
				continue
			}
			s.MaxHops = &n
			c.src(key+".max_hops", c.short[a])
			c.mapped(a, key+".max_hops")
			c.mapped(x, key+".max_hops")
			c.note(noteDiffers, "DEPTH:n is max_hops n for the subcollection's URLs, counted as scope.max_hops counts (every hop from the seed, a redirect too)", a)
		case "fwdlinks":
			if c.sameAsCollection("crawlmode", a) {
				c.same(a, "the collection's value: amber's scope rules are the collection's (its fwdlinks applies)")
			} else {
				c.note(string(Unsupported), "a subcollection's own fwdlinks: amber's scope rules are the collection's (its fwdlinks apply)", a)
			}
		}
	}
	if len(c.rec(x).keys) == 0 {
		c.same(x, "no depth of its own: the collection's scope bounds the subcollection's URLs")
	}
}

// subSecrets returns the subcollections with each proxy password and Cookie header value
// that is not an env: reference already made one (AMBER_SUB_i_PROXY_PASSWORD,
// AMBER_SUB_i_COOKIE), and secrets with a line for each, so that Render writes no secret
// (and not "***", which amber crawl could not use).
func subSecrets(subs []config.Subcollection, sources map[string]string, secrets []string) ([]config.Subcollection, []string) {
	subs = slices.Clone(subs)
	for i, s := range subs {
		from := sources[fmt.Sprintf("subcollections[%d]", i)]
		if from == "" {
			from = fmt.Sprintf("subcollections[%d]", i)
		}
		if p := s.Proxy; p != nil && p.Password != "" {
			if _, env := p.Password.Env(); !env {
				q := *p
				ev := fmt.Sprintf("AMBER_SUB_%d_PROXY_PASSWORD", i)
				q.Password = config.Secret("env:" + ev)
				subs[i].Proxy = &q
				secrets = append(secrets, fmt.Sprintf("%s: the password of %s/proxy", ev, from))
			}
		}
		for k, v := range s.Headers {
			if http.CanonicalHeaderKey(k) != "Cookie" || strings.HasPrefix(v, "env:") {
				continue
			}
			h := maps.Clone(s.Headers)
			ev := fmt.Sprintf("AMBER_SUB_%d_COOKIE", i)
			h[k] = "env:" + ev
			subs[i].Headers = h
			secrets = append(secrets, fmt.Sprintf("%s: the Cookie of %s/headers", ev, from))
		}
	}
	return subs, secrets
}

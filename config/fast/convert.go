package fast

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/seeds"
)

// ConvertOptions configure Convert.
type ConvertOptions struct {
	// Strict makes every attrib, section and element of the file that amber does not do as
	// it says (refused, not supported yet, a value or member amber cannot follow, or unknown to
	// the specification: config.Refused in the account) an error naming it. Those ignored
	// because they are about FAST's own processing and feeding mean nothing for a crawl, and
	// are not errors.
	Strict bool
	// BaseDir is the directory the files start_uri_files and the rules' file attribs name
	// are read relative to (the XML file's); "" is the working directory.
	BaseDir string
}

// Note statuses besides the table's.
const (
	noteDiffers = "differs"  // mapped, and amber differs as the note says
	noteUnknown = "unknown"  // not in the specification
	noteCaution = "note"     // the same in FAST and amber, worth knowing
	noteDefault = "defaults" // FAST's defaults amber does not follow
)

// item is one thing a note says.
type item struct {
	status string
	what   string // the FAST attrib, short: crawlmode/mode=FULL
	why    string
	line   int
	path   string
	strict bool // an error in a strict conversion
}

// entry is one attrib or section of the file, as the final accounting sees it.
type entry struct {
	a       *Attrib
	s       *Section
	short   string
	row     *Row // its own row; nil when the specification has none
	inherit *Row // the nearest enclosing section or element that is not mapped
	unknown bool // inside a section the specification does not define
}

// conv is one conversion.
type conv struct {
	d       *Domain
	opts    ConvertOptions
	c       *config.File
	cv      *config.Converted
	top     map[string]*Attrib  // the collection's attribs, by the table's name
	secs    map[string]*Section // the collection's sections
	entries []*entry
	short   map[*Attrib]string
	acct    map[any]*acct // what was recorded of each *Attrib and *Section (account.go)
	// authFrom is the passwd attrib of each entry of c.c.Auth.
	authFrom []*Attrib
	items    []item
	errs     []error
	hosts    []string        // the start URIs' hosts, in order
	rules    map[string]bool // "accept RULE" and "block RULE" already in the config
}

// Convert maps the collection onto amber's configuration (docs/fast.md has the whole table):
// start URIs become seeds of type one-page, and the include and exclude rules, allowed_schemes,
// exclude_exts and crawlmode become scope.accept and scope.block rules of the standard
// flavour, so that what is crawled beyond the seeds is what FAST's rules let in; delay,
// max_pending, use_cookies, robots, headers, proxy, passwd, cut_off, fetch_timeout,
// use_javascript, use_sitemaps, diffcheck, info, the limits section, the URL attribs
// (sort_query_params, rewrite_rules, html_redir_is_redir, html_redir_threshold,
// max_redirects, max_uri_recursion), the robots attribs (robots_ttl, robots_timeout,
// robots_auth_ignore, robots_tout_ignore, check_meta_robots, obey_robots_delay), the
// per-site attribs (max_doc, max_backoff_counter, max_backoff_delay, truncate), the rss
// section, allowed_types, uri_search_mime and exclude_headers (content), cookie_timeout,
// the post_payload section, the http_errors section (politeness.retries) and cert_file
// and key_file (network.client_cert, client_key), the variable_delay section, max_sites and
// max_inter_docs (politeness) map to their amber keys. FAST's defaults apply to delay (60 s), max_pending (2),
// use_cookies (no), fetch_timeout (300 s), allowed_schemes (http), exclude_exts,
// html_redir_threshold (3), max_redirects (10), max_uri_recursion (5), robots_ttl
// (86400 s), robots_timeout (300 s), obey_robots_delay (no), max_doc (100000),
// max_backoff_counter (50), max_backoff_delay (600 s), allowed_types, uri_search_mime and,
// with cookies, cookie_timeout (900 s) when the file does not give them.
//
// The Converted's Sources say which FAST attrib each amber key came from; its Account puts
// every attrib, section and element of the file under one disposition (config.Mapped with the
// amber keys it became, config.Same, config.Differs, config.Ignored or config.Refused, with
// the reason), decided as the conversion reads it (account.go), and its Notes say, grouped
// by reason, what is not mapped plainly, and which of FAST's defaults amber does not follow.
// With opts.Strict each entry the account refuses is an *Error wrapping ErrNotMapped instead
// (all of them, joined, in file order). A value that is not valid (a
// mode that is not FULL or DEPTH:n, a header without a colon, a start URI that is not a URL,
// an unreadable start_uri_files file) is an *Error wrapping ErrInvalid.
func (d *Domain) Convert(opts ConvertOptions) (*config.Converted, error) {
	return newConv(d, opts).run()
}

func newConv(d *Domain, opts ConvertOptions) *conv {
	c := &conv{d: d, opts: opts, c: &config.File{}, top: map[string]*Attrib{}, secs: map[string]*Section{},
		short: map[*Attrib]string{}, acct: map[any]*acct{}, rules: map[string]bool{}}
	c.cv = &config.Converted{File: c.c, Sources: map[string]string{}}
	return c
}

// run converts; every attrib, section and element ends in the account (settle).
func (c *conv) run() (*config.Converted, error) {
	c.index()
	steps := []func(){c.seeds, c.scalars, c.scope, c.access, c.logins, c.limits, c.httpErrors, c.clientCert, c.urls, c.robotsAndSites, c.politeSites, c.priority, c.content, c.linkExtraction, c.dependent, c.subcollections, c.account, c.defaults}
	for _, step := range steps {
		step()
	}
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	if err := c.settle(); err != nil {
		return nil, err
	}
	c.cv.Notes = renderNotes(c.sortedItems())
	return c.cv, nil
}

// index walks the collection, records every attrib and section with its row, and keeps the
// collection's own attribs and sections by name.
func (c *conv) index() {
	for _, a := range c.d.Attribs {
		if r := schema.attrib(a.Name); r != nil {
			c.top[r.Name] = a
		} else {
			c.top[a.Name] = a
		}
	}
	for _, s := range c.d.Sections {
		c.secs[s.Name] = s
	}
	c.walk("", schema, nil, false, c.d.Attribs, c.d.Sections)
	for _, g := range []struct {
		name string
		list []*Section
	}{{"SubDomain", c.d.SubDomains}, {"Login", c.d.Logins}, {"Node", c.d.Nodes}} {
		el := elements[g.name]
		var inherit *Row
		if el.row.Status != Mapped {
			inherit = el.row
		}
		for _, s := range g.list {
			prefix := g.name + "[" + s.Name + "]"
			c.entries = append(c.entries, &entry{s: s, short: prefix, row: el.row})
			c.walk(prefix, el.node, inherit, false, s.Attribs, s.Sections)
		}
	}
}

func (c *conv) walk(prefix string, n *schemaNode, inherit *Row, unknown bool, attribs []*Attrib, sections []*Section) {
	join := func(name string) string {
		if prefix == "" {
			return quoteName(name)
		}
		return prefix + "/" + quoteName(name)
	}
	for _, a := range attribs {
		e := &entry{a: a, short: join(a.Name), row: n.attrib(a.Name), inherit: inherit, unknown: unknown}
		c.short[a] = e.short
		c.entries = append(c.entries, e)
	}
	for _, s := range sections {
		ch := n.section(s.Name)
		e := &entry{s: s, short: join(s.Name), row: ch.row, inherit: inherit, unknown: unknown}
		c.entries = append(c.entries, e)
		in := inherit
		if ch.row != nil && ch.row.Status != Mapped {
			in = ch.row
		}
		c.walk(e.short, ch.node, in, unknown || ch.row == nil, s.Attribs, s.Sections)
	}
}

// isSecret reports whether an attrib's value may be a secret (credentials, form fields, POST
// data), which notes do not show.
func isSecret(a *Attrib) bool {
	for _, s := range []string{"passwd", "ftp_acct", "parameters", "post_payload"} {
		if strings.Contains(a.Path, "/section[name="+s+"]/") {
			return true
		}
	}
	return false
}

// quoteName quotes a name that holds a slash, a quote or space (a URI, a time slot).
func quoteName(s string) string {
	if s == "" || strings.ContainsAny(s, "/\" \t\n") {
		return strconv.Quote(s)
	}
	return s
}

// what names an attrib for a note: its short path, and its value when short.
func (c *conv) what(a *Attrib) string {
	w := c.short[a]
	if a.Type != ListString && len(a.Text) <= 40 && !isSecret(a) {
		w += "=" + a.Text
	}
	return w
}

// note notes a: status (a table status, or noteDiffers, noteCaution, noteUnknown) and why.
func (c *conv) note(status, why string, a *Attrib) {
	c.items = append(c.items, item{status: status, what: c.what(a), why: why, line: a.Line, path: a.Path,
		strict: status != noteDiffers && status != noteCaution && status != string(Ignored)})
	c.rec(a)
}

func (c *conv) invalid(a *Attrib, format string, args ...any) {
	c.errs = append(c.errs, &Error{File: c.d.File, Line: a.Line, Path: a.Path, Msg: fmt.Sprintf(format, args...), Err: ErrInvalid})
	c.rec(a)
}

// stopped reports whether an invalid value was met (c.invalid): a section's conversion may
// stop there, leaving what follows in it unconverted.
func (c *conv) stopped() bool {
	for _, err := range c.errs {
		if errors.Is(err, ErrInvalid) {
			return true
		}
	}
	return false
}

func (c *conv) src(amber, fast string) { c.cv.Sources[amber] = fast }

// sec returns the collection's attrib name of section s, or nil.
func (c *conv) sec(s, name string) *Attrib {
	sec := c.secs[s]
	if sec == nil {
		return nil
	}
	n := schema.section(s).node
	for _, a := range sec.Attribs {
		if a.Name == name {
			return a
		}
		if r := n.attrib(a.Name); r != nil && r.Name == name {
			return a
		}
	}
	return nil
}

// boolOr returns the attrib's boolean, or def when it is absent.
func boolOr(a *Attrib, def bool) bool {
	if a == nil {
		return def
	}
	return a.Bool
}

// fastDefault names a FAST default the conversion applied, for Sources.
func fastDefault(name, value string) string {
	return fmt.Sprintf("%s (not in the file: FAST's default %s)", name, value)
}

// seeds maps start_uris and start_uri_files, the collection's and its subcollections'.
func (c *conv) seeds() {
	seen, hosts := map[string]bool{}, map[string]bool{}
	add := func(a *Attrib, from string, urls []string) {
		for _, u := range urls {
			if u == "" {
				continue
			}
			if pu, err := url.Parse(u); err == nil && pu.Scheme != "" && !strings.EqualFold(pu.Scheme, "http") && !strings.EqualFold(pu.Scheme, "https") {
				c.items = append(c.items, item{status: string(Refused), what: c.short[a] + " " + u, why: whyFTP,
					line: a.Line, path: a.Path, strict: true})
				continue
			}
			if err := seeds.CheckURL(u); err != nil {
				c.invalid(a, "start URI %q: %v", u, err)
				return
			}
			key := canonicalOr(u)
			c.mapped(a, "seeds")
			if seen[key] {
				continue
			}
			seen[key] = true
			c.src(fmt.Sprintf("seeds[%d]", len(c.c.Seeds)), from)
			c.c.Seeds = append(c.c.Seeds, config.SeedSpec{URL: u, Type: string(scope.OnePage)})
			if pu, err := url.Parse(key); err == nil && !hosts[pu.Hostname()] {
				hosts[pu.Hostname()] = true
				c.hosts = append(c.hosts, pu.Hostname())
			}
		}
		if !c.accounted(a) {
			c.same(a, "no URI: the crawl has the seeds given to amber crawl (URLs, a seeds file, --seeds)")
		}
	}
	one := func(a *Attrib, short string) {
		if a == nil {
			return
		}
		switch a.Name {
		case "start_uris":
			add(a, short, a.Members)
		case "start_uri_files":
			for _, f := range a.Members {
				urls, err := c.readURIFile(f)
				if err != nil {
					c.invalid(a, "%v", err)
					return
				}
				add(a, short+" ("+f+")", urls)
			}
		}
	}
	for _, name := range []string{"start_uris", "start_uri_files"} {
		one(c.top[name], name)
		for _, sub := range c.subs() {
			for _, a := range sub.s.Attribs {
				if a.Name == name {
					one(a, c.short[a])
				}
			}
		}
	}
}

// readURIFile reads a start_uri_files file: one URI per line (blank lines and lines starting
// with # are skipped).
func (c *conv) readURIFile(name string) ([]string, error) {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.opts.BaseDir, p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("start_uri_files: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("start_uri_files: %s: not a regular file", p)
	}
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("start_uri_files: %s: %w", p, err)
	}
	return out, nil
}

// sub is one subcollection: a SubDomain element or a section of subdomains.
type sub struct {
	s     *Section
	short string
}

func (c *conv) subs() []sub {
	var out []sub
	if s := c.secs["subdomains"]; s != nil {
		for _, x := range s.Sections {
			out = append(out, sub{x, "subdomains/" + quoteName(x.Name)})
		}
	}
	for _, x := range c.d.SubDomains {
		out = append(out, sub{x, "SubDomain[" + x.Name + "]"})
	}
	return out
}

// timeScalars maps fetch_timeout, delay and max_pending, or FAST's defaults for them.
func (c *conv) timeScalars() {
	seconds := func(f float64) time.Duration { return time.Duration(math.Round(f * float64(time.Second))) }
	if a := c.top["fetch_timeout"]; a != nil {
		if a.Int <= 0 {
			c.note(string(Unsupported), "amber has no fetch without a timeout", a)
		} else {
			c.c.Network.ResponseTimeout = time.Duration(a.Int) * time.Second
			c.src("network.response_timeout", "fetch_timeout")
			c.mapped(a, "network.response_timeout")
			c.differs(a)
		}
	} else {
		c.c.Network.ResponseTimeout = 300 * time.Second
		c.src("network.response_timeout", fastDefault("fetch_timeout", "300"))
	}
	if a := c.top["delay"]; a != nil {
		if a.Real < 0 || a.Real > 1e6 {
			c.invalid(a, "delay %v: want seconds, 0 or more", a.Real)
		} else {
			d := seconds(a.Real)
			c.c.Politeness.HostDelay = &d
			c.src("politeness.host_delay", "delay")
			c.mapped(a, "politeness.host_delay")
			c.differs(a)
		}
	} else {
		d := 60 * time.Second
		c.c.Politeness.HostDelay = &d
		c.src("politeness.host_delay", fastDefault("delay", "60.0"))
	}
	if a := c.top["max_pending"]; a != nil {
		if a.Int < 1 {
			c.invalid(a, "max_pending %d: want 1 or more", a.Int)
		} else {
			c.c.Politeness.HostConcurrency = int(a.Int)
			c.src("politeness.host_concurrency", "max_pending")
			c.mapped(a, "politeness.host_concurrency")
			c.differs(a)
		}
	} else {
		c.c.Politeness.HostConcurrency = 2
		c.src("politeness.host_concurrency", fastDefault("max_pending", "2"))
	}
}

// scalars maps the collection's attribs that are one amber key each.
func (c *conv) scalars() {
	if a := c.top["info"]; a != nil {
		c.c.Description = a.Text
		c.src("description", "info")
		c.mapped(a, "description")
	}
	c.timeScalars()
	on := false
	from := fastDefault("use_cookies", "no")
	if a := c.top["use_cookies"]; a != nil {
		on, from = a.Bool, "use_cookies"
		c.mapped(a, "cookies")
	}
	c.c.Cookies = &on
	c.src("cookies", from)
	if a := c.top["robots"]; a != nil {
		c.c.Politeness.IgnoreRobots = !a.Bool
		if !a.Bool {
			c.src("politeness.ignore_robots", "robots")
			c.mapped(a, "politeness.ignore_robots")
		} else {
			c.same(a, "amber obeys robots.txt (politeness.ignore_robots off, its default)")
		}
	}
	if a := c.top["use_javascript"]; a != nil {
		c.c.Fetcher = "http"
		if a.Bool {
			c.c.Fetcher = "browser"
			c.differs(a)
		}
		c.src("fetcher", "use_javascript")
		c.mapped(a, "fetcher")
	}
	if a := c.top["use_sitemaps"]; a != nil {
		v := a.Bool
		c.c.Sitemaps.Robots = &v
		c.src("sitemaps.robots", "use_sitemaps")
		c.mapped(a, "sitemaps.robots")
		if v {
			c.differs(a)
		}
	}
	if a := c.top["diffcheck"]; a != nil {
		v := a.Bool
		c.c.Documents.Deduplication = &v
		c.src("documents.deduplication", "diffcheck")
		c.mapped(a, "documents.deduplication")
		c.differs(a)
	}
	if a := c.top["cut_off"]; a != nil {
		if a.Int <= 0 {
			c.note(string(Unsupported), "amber keeps at most limits.response_size of a response (100 MiB unless set); it has no unlimited size", a)
		} else {
			c.c.Limits.ResponseSize = config.ByteSize(a.Int)
			c.src("limits.response_size", "cut_off")
			c.mapped(a, "limits.response_size")
			c.differs(a)
		}
	}
}

// differs notes how amber differs for a mapped attrib (its row's note); the caller records
// the keys it became.
func (c *conv) differs(a *Attrib) {
	r := schema.attrib(a.Name)
	if r != nil && r.Note != "" {
		c.note(noteDiffers, r.Note, a)
	}
	c.rec(a)
}

// scope builds scope.block and scope.accept from exclude_domains, exclude_uris,
// allowed_schemes, exclude_exts, include_domains, include_uris and crawlmode, and
// scope.max_hops from crawlmode's mode.
func (c *conv) scope() {
	c.c.Scope.Flavour = string(scope.Standard)
	c.src("scope.flavour", "include_domains, include_uris, crawlmode (as the standard flavour with one-page seeds)")
	for _, sec := range []string{"include_domains", "exclude_domains", "include_uris", "exclude_uris", "crawlmode"} {
		if s := c.secs[sec]; s != nil {
			c.mapped(s, schema.section(sec).row.Amber)
		}
	}
	c.block()
	c.accept()
	c.mode()
}

func (c *conv) addRule(list *[]config.RuleSpec, key string, r config.RuleSpec, from string) bool {
	k := key + " " + r.String()
	if c.rules[k] {
		return true
	}
	if _, err := r.Rule(); err != nil {
		return false
	}
	c.rules[k] = true
	c.src(fmt.Sprintf("scope.%s[%d]", key, len(*list)), from)
	*list = append(*list, r)
	return true
}

func regexRule(re string) config.RuleSpec { return config.RuleSpec{Text: scope.KindRegex + ":" + re} }

// domainRules and uriRules read a section's exact, prefix, suffix and regexp attribs, and
// the rules of its file attrib's files (fileRules), in file order.
func (c *conv) domainRules(sec string) (rules []domainRule, given bool) {
	s := c.secs[sec]
	if s == nil {
		return nil, false
	}
	key := schema.section(sec).row.Amber // scope.accept, scope.block
	for _, a := range s.Attribs {
		r := schema.section(sec).node.attrib(a.Name)
		if r == nil || a.Type != ListString {
			continue
		}
		given = given || len(a.Members) > 0
		if r.Name == "file" {
			rules = append(rules, c.fileRules(sec, a)...)
			c.mapped(a, key)
			continue
		}
		if r.Status != Mapped {
			continue
		}
		for _, m := range a.Members {
			rules = append(rules, domainRule{kind: a.Name, value: m, label: m, from: c.short[a] + " " + m, a: a})
		}
		c.mapped(a, key)
	}
	return rules, given
}

func (c *conv) uriRules(sec string) (rules []uriRule, given bool) {
	drs, given := c.domainRules(sec) // the same attribs (exact, prefix, suffix, regexp), read alike
	return uriRulesOf(drs), given
}

// uriRulesOf returns drs, rules read from a URI section, as URI rules.
func uriRulesOf(drs []domainRule) []uriRule {
	var out []uriRule
	for _, r := range drs {
		out = append(out, uriRule(r))
	}
	return out
}

func (c *conv) block() {
	blocks := &c.c.Scope.Block
	drs, _ := c.domainRules("exclude_domains")
	for _, r := range c.checkIPRules(drs) {
		if isIPRule(r) { // an address mask: scope rule kind ip (addrs.go)
			c.addRule(blocks, "block", ipRuleSpec(r), r.from)
			continue
		}
		re, err := r.regex()
		if err == nil && c.addRule(blocks, "block", regexRule(re), r.from) {
			continue
		}
		c.ruleNote(r.a, r.label, err)
	}
	urs, _ := c.uriRules("exclude_uris")
	for _, r := range urs {
		re, err := r.regex()
		if err == nil && c.addRule(blocks, "block", regexRule(re), r.from) {
			continue
		}
		c.ruleNote(r.a, r.label, err)
	}
	schemes, from := []string{"http"}, fastDefault("allowed_schemes", "http")
	schemesA := c.top["allowed_schemes"]
	if a := schemesA; a != nil {
		schemes, from = a.Members, "allowed_schemes"
		var other []string
		for _, s := range a.Members {
			if !strings.EqualFold(s, "http") && !strings.EqualFold(s, "https") {
				other = append(other, s)
			}
		}
		if len(other) > 0 {
			c.items = append(c.items, item{status: string(Refused), what: "allowed_schemes " + strings.Join(other, ", "),
				why: whyFTP, line: a.Line, path: a.Path, strict: true})
		}
	}
	for _, s := range []string{"http", "https"} {
		if !slices.ContainsFunc(schemes, func(x string) bool { return strings.EqualFold(x, s) }) {
			c.addRule(blocks, "block", regexRule(s+"://.*"), from)
			if schemesA != nil {
				c.mapped(schemesA, "scope.block")
			}
		}
	}
	if schemesA != nil && !c.accounted(schemesA) {
		c.same(schemesA, "amber crawls http and https")
	}
	exts := strings.Split(rowDefault("", "exclude_exts"), ", ")
	from = fastDefault("exclude_exts", "list")
	extsA := c.top["exclude_exts"]
	if extsA != nil {
		exts, from = extsA.Members, "exclude_exts"
	}
	var alts []string
	for _, e := range exts {
		if e == "" {
			continue
		}
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		alts = append(alts, regexp.QuoteMeta(e))
	}
	if len(alts) > 0 {
		c.addRule(blocks, "block", regexRule(`[^?]*(?:`+strings.Join(alts, "|")+`)(?:\?.*)?`), from)
		if extsA != nil {
			c.mapped(extsA, "scope.block")
		}
	} else if extsA != nil {
		c.same(extsA, "no extension: amber excludes none (its default)")
	}
}

// ruleNote notes a rule amber cannot express; label names it after its attrib (its value, or
// for a rule of a file the file, line and rule).
func (c *conv) ruleNote(a *Attrib, label string, err error) {
	if a == nil {
		c.errs = append(c.errs, fmt.Errorf("fast: internal error: rule %q has no attrib", label))
		return
	}
	why := "amber cannot express it as a scope rule"
	if err != nil {
		why = strings.TrimPrefix(err.Error(), errNotExpressible.Error()+": ")
	}
	c.items = append(c.items, item{status: string(Unsupported), what: c.short[a] + " " + label, why: why,
		line: a.Line, path: a.Path, strict: true})
}

// maxPairs bounds the accept rules made of a host condition and a URI rule.
const maxPairs = 10_000

// accept builds scope.accept: the URLs FAST's include rules and crawlmode let in.
func (c *conv) accept() {
	drs, dGiven := c.domainRules("include_domains")
	drs = c.checkIPRules(drs)
	urs, uGiven := c.uriRules("include_uris")
	fwdA, fwd, fwdFrom := c.fwdlinks()

	// The hosts: every host (hosts nil, allHosts), include_domains' rules, or with fwdlinks
	// no the start URIs' hosts that include_domains lets in.
	var hosts []hostCond
	allHosts := false
	switch {
	case !fwd:
		hosts = c.startHostConds(drs, dGiven, fwdFrom+" (no)")
	case dGiven:
		hosts = c.hostConds(drs)
	default:
		allHosts = true
	}
	uris := c.expressibleURIs(urs)

	add := func(r config.RuleSpec, from string, a *Attrib, value string) {
		if !c.addRule(&c.c.Scope.Accept, "accept", r, from) {
			c.ruleNote(a, value, nil)
		}
	}
	switch {
	case allHosts && !uGiven:
		add(regexRule(".*"), fwdFrom+" and no include rules", fwdA, "")
		if len(c.hosts) > 0 {
			it := item{status: noteCaution, what: "crawlmode/fwdlinks=yes", line: math.MaxInt - 1,
				why: "no include_domains or include_uris: FAST follows links to every site, and so does this config (scope.accept regex:.*); bound it with include rules or fwdlinks: no"}
			if fwdA != nil { // about the attrib the file gives; else about what it leaves out
				it.line, it.path = fwdA.Line, fwdA.Path
			}
			c.items = append(c.items, it)
		}
	case allHosts:
		for _, u := range uris {
			re, _ := u.regex()
			add(regexRule(re), u.from, u.a, u.label)
		}
	case !uGiven:
		for _, h := range hosts {
			if h.ip != nil {
				for _, r := range ipHostRules(h.ip, h.exact, "") {
					add(r, h.from, h.ip.a, h.ip.label)
				}
				continue
			}
			if h.rule != nil {
				re, _ := h.rule.regex()
				add(regexRule(re), h.from, h.rule.a, h.rule.label)
			} else {
				add(regexRule(exactHostRegex(h.exact)), h.from, fwdA, h.exact)
			}
		}
	case len(hosts)*len(uris) > maxPairs:
		for _, u := range uris {
			c.ruleNote(u.a, u.label, fmt.Errorf("%w: with %d host conditions and %d URI rules, more than %d rules would be needed", errNotExpressible, len(hosts), len(uris), maxPairs))
		}
	default:
		c.pairRules(hosts, uris, add, "")
	}
}

// fwdlinks returns crawlmode's fwdlinks attrib (nil when the file does not give it), its
// value (FAST's default yes when not given), and what Sources say it is.
func (c *conv) fwdlinks() (a *Attrib, fwd bool, from string) {
	a = c.sec("crawlmode", "fwdlinks")
	fwd = boolOr(a, true)
	if a == nil {
		return nil, fwd, "crawlmode/fwdlinks (not in the file: FAST's default yes)"
	}
	c.mapped(a, "scope.accept")
	from = "crawlmode/fwdlinks"
	if fwd {
		from += " (yes)"
	}
	return a, fwd, from
}

// startHostConds are the host conditions of fwdlinks no (from says so in Sources): each
// start URI's host that include_domains' rules drs take (any, when not given), and a host
// they take only by an address mask with that mask. A rule that cannot decide a host is
// noted.
func (c *conv) startHostConds(drs []domainRule, given bool, from string) []hostCond {
	var out []hostCond
	for _, h := range c.hosts {
		in := !given
		var masks []*domainRule
		for i, r := range drs {
			if isIPRule(r) { // decided on the host's address: the host with each mask
				masks = append(masks, &drs[i])
				continue
			}
			ok, err := r.matches(h)
			if err != nil {
				c.ruleNote(r.a, r.label, err)
				continue
			}
			in = in || ok
		}
		if in {
			out = append(out, hostCond{exact: h, from: from + ": the start URIs' host " + h})
			continue
		}
		for _, m := range masks {
			out = append(out, hostCond{exact: h, ip: m, from: from + ": the start URIs' host " + h + " and " + m.from})
		}
	}
	return out
}

// hostConds are the host conditions of include_domains' rules drs: each address mask, and
// each rule amber can express as a regex; the others are noted. The conditions point into
// drs.
func (c *conv) hostConds(drs []domainRule) []hostCond {
	var out []hostCond
	for i := range drs {
		r := &drs[i]
		if isIPRule(*r) {
			out = append(out, hostCond{ip: r, from: r.from})
			continue
		}
		if _, err := r.regex(); err != nil {
			c.ruleNote(r.a, r.label, err)
			continue
		}
		out = append(out, hostCond{rule: r, from: r.from})
	}
	return out
}

// expressibleURIs returns the URI rules of urs amber can express as a regex; the others are
// noted.
func (c *conv) expressibleURIs(urs []uriRule) []uriRule {
	var out []uriRule
	for _, r := range urs {
		if _, err := r.regex(); err != nil {
			c.ruleNote(r.a, r.label, err)
			continue
		}
		out = append(out, r)
	}
	return out
}

// hostCond is a host condition of include rules: a domain rule, an exact host, or an address
// mask (with exact: and that host).
type hostCond struct {
	rule  *domainRule
	exact string
	ip    *domainRule
	from  string
}

// pairRules gives, through add, the rules that take the URLs both a host condition and a URI
// rule take (include_domains and include_uris both given): a URI rule that fixes its host is
// kept when the host condition holds for that host; otherwise an exact host is put with the
// URI rule in one rule (all its matchers hold); a host rule that is not exact and a URI rule
// that does not fix its host cannot be combined, which a note says, ending with fewer.
func (c *conv) pairRules(hosts []hostCond, uris []uriRule, add func(r config.RuleSpec, from string, a *Attrib, value string), fewer string) {
	for _, h := range hosts {
		for _, u := range uris {
			re, _ := u.regex()
			from := h.from + " and " + u.from
			if h.ip != nil { // a rule holds the mask and the URI rule (and the host)
				for _, r := range ipHostRules(h.ip, h.exact, re) {
					add(r, from, u.a, u.label)
				}
				continue
			}
			if uh, ok := u.host(); ok {
				in := uh == h.exact
				if h.rule != nil {
					var err error
					if in, err = h.rule.matches(uh); err != nil {
						continue
					}
				}
				if in {
					add(regexRule(re), from, u.a, u.label)
				}
				continue
			}
			exact := h.exact
			if h.rule != nil && h.rule.kind == "exact" {
				exact = normHost(h.rule.value)
			}
			if exact == "" {
				c.ruleNote(u.a, u.label, fmt.Errorf("%w: amber cannot require both it and %s of a URL (a rule holds one regex)%s", errNotExpressible, h.from, fewer))
				continue
			}
			for _, surt := range hostSURTs(exact) {
				add(config.RuleSpec{Map: map[string]string{scope.KindSURT: surt, scope.KindRegex: re}}, from, u.a, u.label)
			}
		}
	}
}

// mode maps crawlmode's mode to scope.max_hops.
func (c *conv) mode() {
	a := c.sec("crawlmode", "mode")
	if a == nil {
		c.items = append(c.items, item{status: noteDiffers, what: "crawlmode/mode (not in the file: FAST's default FULL)", line: math.MaxInt - 1,
			why: "FULL has no depth bound in FAST; amber stops at scope.max_hops (100 by default)"})
		return
	}
	m := strings.ToUpper(strings.TrimSpace(a.Text))
	switch {
	case m == "FULL":
		c.note(noteDiffers, "FULL has no depth bound in FAST; amber stops at scope.max_hops (100 by default)", a)
	case strings.HasPrefix(m, "DEPTH:"):
		n, err := strconv.Atoi(strings.TrimSpace(m[len("DEPTH:"):]))
		if err != nil || n < 0 {
			c.invalid(a, "mode %q: want FULL or DEPTH:n (n a number of hops, 0 or more)", a.Text)
			return
		}
		c.c.Scope.MaxHops = &n
		c.src("scope.max_hops", "crawlmode/mode")
		c.mapped(a, "scope.max_hops")
		c.note(noteDiffers, "amber counts every hop from a seed (a redirect too) where FAST counts pages, and takes the embeds of the last pages", a)
	default:
		c.invalid(a, "mode %q: want FULL or DEPTH:n", a.Text)
	}
}

// refusedHeaders are the fields amber's fetcher writes itself or refuses in headers.
var refusedHeaders = []string{"Host", "Content-Length", "Transfer-Encoding", "Te", "Trailer", "Connection",
	"Keep-Alive", "Upgrade", "Proxy-Connection", "Accept-Encoding"}

// access maps headers, proxy and passwd.
func (c *conv) access() {
	c.headers()
	c.proxy()
	if s := c.secs["passwd"]; s != nil {
		c.mapped(s, "auth")
		for _, a := range s.Attribs {
			c.passwd(a)
		}
	}
}

// headers maps headers to headers and user_agent.
func (c *conv) headers() {
	a := c.top["headers"]
	if a == nil {
		return
	}
	c.rec(a)
	c.headerMembers(a, "headers", &c.c.Headers, func(ck, value string) bool {
		if ck != "User-Agent" {
			return false
		}
		c.c.UserAgent = value
		c.src("user_agent", "headers (User-Agent)")
		c.mapped(a, "user_agent")
		return true
	})
	if len(c.c.Headers) > 0 {
		c.src("headers", "headers")
		c.mapped(a, "headers")
	}
	if len(a.Members) == 0 {
		c.same(a, "no field: amber sends its own (User-Agent, Accept, Accept-Encoding)")
	}
}

// headerMembers reads the "Name: value" members of a headers attrib into h, the last of a
// name winning (noted): those take takes (it may be nil) go to it instead, and those amber
// does not send with every request (credentials, fields amber writes) are noted as
// unsupported-yet under what. A member without a name and a colon makes a invalid.
func (c *conv) headerMembers(a *Attrib, what string, h *config.HeaderMap, take func(ck, value string) bool) {
	for _, m := range a.Members {
		name, value, ok := strings.Cut(m, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" {
			c.invalid(a, "a member without a header name and a colon (want Name: value)")
			return
		}
		ck := http.CanonicalHeaderKey(name)
		switch {
		case take != nil && take(ck, value):
		case ck == "Authorization" || ck == "Proxy-Authorization":
			c.items = append(c.items, item{status: string(Unsupported), what: what + " " + ck, line: a.Line, path: a.Path, strict: true,
				why: "amber sends credentials to their origin only (auth) or to the proxy (proxy), not with every request"})
		case slices.Contains(refusedHeaders, ck):
			c.items = append(c.items, item{status: string(Unsupported), what: what + " " + ck, line: a.Line, path: a.Path, strict: true,
				why: "amber writes this field itself"})
		default:
			if *h == nil {
				*h = config.HeaderMap{}
			}
			for k := range *h {
				if http.CanonicalHeaderKey(k) == ck {
					delete(*h, k)
					c.items = append(c.items, item{status: noteDiffers, what: what + " " + ck, line: a.Line, path: a.Path,
						why: "given twice: amber sends the last"})
				}
			}
			(*h)[name] = value
		}
	}
}

// proxy maps the first proxy.
func (c *conv) proxy() {
	a := c.top["proxy"]
	if a != nil && len(a.Members) == 0 {
		c.same(a, "no proxy: amber connects to the sites itself")
	}
	if a != nil && len(a.Members) > 0 {
		c.rec(a)
		raw := a.Members[0]
		if !strings.Contains(raw, "://") {
			raw = "http://" + raw
		}
		p, err := config.ParseProxy(raw)
		if err != nil {
			c.invalid(a, "proxy: %v", err)
			return
		}
		if strings.HasPrefix(string(p.Password), encPrefix) {
			p.Password = config.Secret("env:AMBER_PROXY_PASSWORD")
			c.items = append(c.items, item{status: noteDiffers, what: "proxy", line: a.Line, path: a.Path,
				why: "the password is encrypted (!ENC!) with the FAST installation's key, which amber cannot read: set AMBER_PROXY_PASSWORD to it"})
		}
		if _, err := p.URLWithCredentials(func(string) (string, bool) { return "x", true }); err != nil {
			c.invalid(a, "proxy: %v", err)
			return
		}
		c.c.Proxy = p
		c.src("proxy", "proxy")
		c.mapped(a, "proxy")
		if len(a.Members) > 1 {
			c.items = append(c.items, item{status: string(Unsupported), what: "proxy", line: a.Line, path: a.Path, strict: true,
				why: fmt.Sprintf("FAST spreads requests over %d proxies; amber uses one, the first", len(a.Members))})
		}
		c.items = append(c.items, item{status: noteDiffers, what: "proxy", line: a.Line, path: a.Path,
			why: "amber sends every request through a CONNECT tunnel, http ones too: the proxy must allow CONNECT to port 80 as well as 443"})
	}
}

// encPrefix starts a password FAST encrypted with its installation's key (§2.2.4.20).
const encPrefix = "!ENC!"

var authSchemes = []string{"basic", "digest", "ntlmv1", "ntlmv2", "auto"}

// passwd maps one passwd attrib (§2.2.4.20). Its name is a URI, a prefix of the URLs the
// credentials are for (an origin when it has no path below /), or else a realm; its value is
// username:password or username:password:realm:scheme (a password may hold colons: the
// value is read as the four-part form only when its last part is a scheme). Basic and auto
// become an auth entry of type basic, with the value's realm when it gives one; digest and
// NTLM are refused.
func (c *conv) passwd(a *Attrib) {
	parts := strings.Split(a.Text, ":")
	if len(parts) < 2 || parts[0] == "" {
		c.invalid(a, "credentials: want username:password or username:password:realm:scheme")
		return
	}
	user, scheme, realm := parts[0], "basic", ""
	password := strings.Join(parts[1:], ":")
	if n := len(parts); n >= 4 && slices.Contains(authSchemes, strings.ToLower(parts[n-1])) {
		scheme, realm = strings.ToLower(parts[n-1]), parts[n-2]
		password = strings.Join(parts[1:n-2], ":")
	}
	if scheme != "basic" && scheme != "auto" {
		c.note(string(Refused), "amber answers Basic challenges only (basic or auto); digest, ntlmv1 and ntlmv2 it does not do", a)
		return
	}
	spec := config.AuthSpec{Type: config.AuthBasic, Username: user, Password: config.Secret(password), Realm: realm}
	var why []string
	httpAllowed := false
	u, err := url.Parse(a.Name)
	switch {
	case err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "":
		if u.User != nil || u.Fragment != "" {
			c.invalid(a, "a passwd URI without user info or fragment")
			return
		}
		if (u.Path == "" || u.Path == "/") && u.RawQuery == "" {
			origin, err := config.Origin(u.Scheme + "://" + u.Host)
			if err != nil {
				c.invalid(a, "%v", err)
				return
			}
			spec.Origin = origin
		} else {
			spec.Prefix = a.Name
		}
		if realm == "" {
			why = append(why, "amber sends the credentials with every request to "+cmp.Or(spec.Origin, "the URLs under "+spec.Prefix)+", before any 401")
		} else {
			why = append(why, fmt.Sprintf("amber answers a 401 Basic challenge for realm %q from %s with them, then sends them ahead in that directory", realm, cmp.Or(spec.Origin, "the URLs under "+spec.Prefix)))
		}
		if u.Scheme == "http" {
			c.c.HTTPAuthAllowed, httpAllowed = true, true
			c.src("http_auth_allowed", c.short[a]+" (an http URI)")
			why = append(why, "over plain http too (http_auth_allowed), as FAST sends them")
		}
	case err == nil && u.Scheme != "" && u.Opaque == "" && u.Host != "":
		c.note(string(Refused), whyFTP, a)
		return
	default:
		if realm != "" && realm != a.Name {
			c.invalid(a, "the entry is for realm %q, its credentials name realm %q", a.Name, realm)
			return
		}
		spec.Realm = a.Name
		c.c.HTTPAuthAllowed, httpAllowed = true, true
		c.src("http_auth_allowed", c.short[a]+" (a realm, answered over http too)")
		why = append(why, fmt.Sprintf("amber answers a 401 Basic challenge for realm %q from any site with them, then sends them ahead in that directory; over plain http too (http_auth_allowed), as FAST sends them", a.Name))
	}
	for i, o := range c.c.Auth {
		if o.Origin == spec.Origin && o.Prefix == spec.Prefix && o.Realm == spec.Realm {
			c.dropAuth(i, a)
			c.items = append(c.items, item{status: noteDiffers, what: c.short[a], line: a.Line, path: a.Path,
				why: "an earlier passwd entry is for the same URI and realm: amber keeps one credential for them, the last"})
			break
		}
	}
	i := len(c.c.Auth)
	if strings.HasPrefix(password, encPrefix) {
		spec.Password = config.Secret(fmt.Sprintf("env:AMBER_AUTH_%d_PASSWORD", i))
		c.items = append(c.items, item{status: noteDiffers, what: c.short[a], line: a.Line, path: a.Path,
			why: fmt.Sprintf("the password is encrypted (!ENC!) with the FAST installation's key, which amber cannot read: set AMBER_AUTH_%d_PASSWORD to it", i)})
	}
	c.c.Auth = append(c.c.Auth, spec)
	c.authFrom = append(c.authFrom, a)
	c.src(fmt.Sprintf("auth[%d]", i), c.short[a])
	c.mapped(a, fmt.Sprintf("auth[%d]", i))
	if httpAllowed {
		c.mapped(a, "http_auth_allowed")
	}
	if scheme == "auto" {
		why = append(why, "auto: amber answers Basic only (not Digest or NTLM)")
	}
	c.note(noteDiffers, strings.Join(why, "; "), a)
}

// dropAuth takes auth entry i out, for the later passwd attrib later that is for the same URI
// and realm: the attrib it came from keeps no key (a note says why), and the entries after it
// move up, with their Sources and keys.
func (c *conv) dropAuth(i int, later *Attrib) {
	old := c.authFrom[i]
	r := c.rec(old)
	r.keys = slices.DeleteFunc(r.keys, func(k string) bool { return strings.HasPrefix(k, "auth[") })
	c.items = append(c.items, item{status: noteDiffers, what: c.short[old], line: old.Line, path: old.Path,
		why: fmt.Sprintf("a later passwd entry (%s) is for the same URI and realm: amber keeps one credential for them, the last", c.short[later])})
	c.c.Auth = slices.Delete(c.c.Auth, i, i+1)
	c.authFrom = slices.Delete(c.authFrom, i, i+1)
	for j := i; j < len(c.authFrom); j++ {
		from, to := fmt.Sprintf("auth[%d]", j+1), fmt.Sprintf("auth[%d]", j)
		c.src(to, c.cv.Sources[from])
		keys := c.rec(c.authFrom[j]).keys
		if k := slices.Index(keys, from); k >= 0 {
			keys[k] = to
		}
	}
	delete(c.cv.Sources, fmt.Sprintf("auth[%d]", len(c.authFrom)))
}

// limits maps the limits section.
func (c *conv) limits() {
	if a := c.sec("limits", "max_doc"); a != nil {
		if a.Int > 0 {
			c.c.Limits.URLs = a.Int
			c.src("limits.urls", "limits/max_doc")
			c.mapped(a, "limits.urls")
			c.differs2(a, "limits")
		} else {
			c.same(a, "no limit on the URLs of the crawl (limits.urls, amber's default)")
		}
	}
	if a := c.sec("limits", "disk_free"); a != nil {
		switch {
		case a.Int == 0:
			c.c.Limits.MinFreeSpace = "off"
			c.src("limits.min_free_space", "limits/disk_free")
			c.mapped(a, "limits.min_free_space")
		default:
			c.note(string(Unsupported), "a percentage of free space: amber's limits.min_free_space is a size or auto", a)
		}
	}
	if s := c.secs["limits"]; s != nil {
		c.mapped(s, "limits")
	}
}

// differs2 notes how amber differs for a mapped attrib of a section; the caller records the
// keys it became.
func (c *conv) differs2(a *Attrib, sec string) {
	if r := schema.section(sec).node.attrib(a.Name); r != nil && r.Note != "" {
		c.note(noteDiffers, r.Note, a)
	}
	c.rec(a)
}

// Reasons of attribs that change nothing without another.
const (
	whyNoJS      = "without use_javascript: yes it changes nothing (amber fetches pages with its HTTP client)"
	whyNoLogins  = "without logins it changes nothing"
	whyNoCookies = "without cookies (use_cookies: no and no logins) it changes nothing: amber keeps no cookie"
)

// dependent accounts for attribs whose meaning depends on another: they change nothing, or
// amber follows them, or not, depending on that other. What it leaves is decided by the
// table (account).
func (c *conv) dependent() {
	js := boolOr(c.top["use_javascript"], false)
	if a := c.top["javascript_keep_html"]; a != nil && !js {
		c.same(a, whyNoJS)
	}
	if a := c.top["javascript_delay"]; a != nil && !js {
		c.same(a, whyNoJS)
	}
	if a := c.top["if_modified_since"]; a != nil {
		if a.Bool {
			c.note(noteDiffers, whyIfModifiedSince, a)
		} else {
			c.same(a, "amber sends no If-Modified-Since unless it recrawls an earlier crawl (recrawl_of)")
		}
	}
	mode := c.sec("crawlmode", "mode")
	if a := c.sec("crawlmode", "reset_level"); a != nil && a.Bool && (mode == nil || strings.EqualFold(strings.TrimSpace(mode.Text), "FULL")) {
		c.same(a, "with mode FULL (no depth bound) it changes nothing")
	}
	if a := c.sec("limits", "disk_free_slack"); a != nil {
		if df := c.sec("limits", "disk_free"); df == nil || df.Int == 0 {
			c.same(a, "with disk_free 0 (no free-space limit) it changes nothing")
		}
	}
	if a := c.sec("limits", "max_doc_slack"); a != nil {
		if md := c.sec("limits", "max_doc"); md == nil || md.Int == 0 {
			c.same(a, "with max_doc 0 (no limit) it changes nothing")
		}
	}
	// The login attribs change nothing without logins. A login's requests have the
	// timeouts of every request, and a failed login does not stop the crawl of its sites.
	if a := c.top["login_timeout"]; a != nil {
		timeout := int64(300)
		if ft := c.top["fetch_timeout"]; ft != nil && ft.Int > 0 {
			timeout = ft.Int
		}
		switch {
		case len(c.c.Logins) == 0:
			c.same(a, whyNoLogins)
		case a.Int == timeout:
			c.same(a, "a login's requests have the timeouts of every request (network.response_timeout, from fetch_timeout)")
		}
	}
	if a := c.top["login_failed_ignore"]; a != nil && len(c.c.Logins) == 0 {
		c.same(a, whyNoLogins)
	}
	if a := c.top["cookie_timeout"]; a != nil && (c.c.Cookies == nil || !*c.c.Cookies) {
		c.same(a, whyNoCookies)
	}
	// An rss section without channels (start URIs, files, discovery) changes nothing.
	if s := c.secs["rss"]; s != nil {
		ad := c.sec("rss", "auto_discover")
		if c.sec("rss", "start_uris") == nil && c.sec("rss", "start_uri_files") == nil && !boolOr(ad, false) {
			c.sameAll(s, "no feeds (start_uris, start_uri_files, auto_discover): it changes nothing")
		}
	}
}

// whyIfModifiedSince says what amber does of if_modified_since=yes.
const whyIfModifiedSince = "amber asks conditionally (If-None-Match, If-Modified-Since) only in a recrawl: given the earlier crawl (amber crawl --recrawl-of DIR, recrawl_of), it asks so for what that crawl captured with validators; a FAST file names no earlier crawl"

// sameAll records, for s and what it holds that nothing accounts for yet, that it changes
// nothing (why); the attribs and sections the table does not map (ignored ones, say) are left
// to the table (account).
func (c *conv) sameAll(s *Section, why string) {
	if !c.accounted(s) {
		c.same(s, why)
	}
	for _, e := range c.entries {
		x, path := any(e.a), ""
		if e.a != nil {
			path = e.a.Path
		} else {
			x, path = e.s, e.s.Path
		}
		if !strings.HasPrefix(path, s.Path+"/") || c.accounted(x) || e.unknown || e.row == nil || e.row.Status != Mapped {
			continue
		}
		c.same(x, why)
	}
}

// sameAsCollection reports whether a subcollection's attrib has the value the collection's
// attrib of that name has (given or FAST's default).
func (c *conv) sameAsCollection(sec string, a *Attrib) bool {
	var col *Attrib
	if sec == "" {
		col = c.top[a.Name]
	} else {
		col = c.sec(sec, a.Name)
	}
	if col != nil {
		return a.Type == col.Type && sameValue(a, col.Text, col.Members)
	}
	def := rowDefault(sec, a.Name)
	if def == "" {
		return false
	}
	return sameValue(a, def, strings.Split(def, ", "))
}

// sameValue reports whether a holds the value text (or members, for a list-string), compared
// as a's type.
func sameValue(a *Attrib, text string, members []string) bool {
	switch a.Type {
	case ListString:
		return slices.Equal(a.Members, members)
	case String:
		return a.Text == text
	}
	b, i, r, err := parseValue(a.Type, text)
	return err == nil && a.Bool == b && a.Int == i && a.Real == r
}

// rowDefault returns the default the table gives the attrib name of section sec.
func rowDefault(sec, name string) string {
	n := schema
	if sec != "" {
		n = schema.section(sec).node
	}
	if r := n.attrib(name); r != nil {
		return r.Default
	}
	return ""
}

// mismatchStatus is the status of a value other than Row.Same, where it is not
// unsupported-yet.
var mismatchStatus = map[string]Status{"near_duplicate_detection": Refused, "use_http_1_1": Refused}

// account notes every attrib, section and element not accounted for yet, with its row: an
// attrib that asks for what amber always does (Row.Same) is the same as amber's behaviour,
// one that asks for another value is not supported yet (or refused: mismatchStatus); a
// section or element the table maps holds what its attribs say.
func (c *conv) account() {
	for _, e := range c.entries {
		if e.s != nil {
			c.accountSection(e)
			continue
		}
		a := e.a
		if c.accounted(a) {
			continue
		}
		row := e.row
		switch {
		case e.unknown:
			c.note(noteUnknown, "inside a section the specification does not have here; amber ignores it", a)
		case row == nil && e.inherit == nil:
			c.note(noteUnknown, "the specification has no such attrib here; amber ignores it", a)
		case row == nil && (e.inherit == elements["SubDomain"].row || e.inherit == schema.section("subdomains").node.freeSection.row):
			c.note(noteUnknown, "a subcollection may not hold it (§2.2.4.33); amber ignores it", a)
		case e.inherit != nil && (row == nil || row.Status == Mapped):
			c.note(string(e.inherit.Status), e.inherit.Note, a)
		case row.Status != Mapped:
			c.note(string(row.Status), row.Note, a)
		case row.Same != "":
			if a.Text == row.Same || (a.Type == Boolean && strings.EqualFold(a.Text, row.Same)) {
				c.same(a, row.Note)
				continue
			}
			st := Unsupported
			if s, ok := mismatchStatus[row.Name]; ok {
				st = s
			}
			c.note(string(st), row.Note, a)
		case c.stopped():
			// Its section's conversion stopped at an invalid value before reaching it; the
			// conversion fails with that error.
			c.note(string(Ignored), "not converted: an invalid value stopped the conversion of its section", a)
		default:
			c.errs = append(c.errs, fmt.Errorf("fast: internal error: %s (%s) is mapped but was not converted", e.short, a.Path))
		}
	}
}

// accountSection accounts for a section or element nothing accounted for: one the
// specification does not have is unknown (and so is what it holds), one the table does not
// map (or inside one) is noted with its row, and one it maps holds what its attribs say: its
// amber key, or (no key) the same as amber's behaviour, as its row says.
func (c *conv) accountSection(e *entry) {
	s := e.s
	if c.accounted(s) {
		return
	}
	note := func(status, why string) {
		c.items = append(c.items, item{status: status, what: e.short, why: why, line: s.Line, path: s.Path,
			strict: status != string(Ignored)})
		c.rec(s)
	}
	switch {
	case e.unknown:
		note(noteUnknown, "inside a section the specification does not have here; amber ignores it and what it holds")
		return
	case e.row == nil:
		note(noteUnknown, "the specification has no such section here; amber ignores it and what it holds")
		return
	}
	row := e.row
	if e.inherit != nil && row.Status == Mapped && row.Kind != KindElement {
		row = e.inherit
	}
	switch {
	case row.Status != Mapped:
		note(string(row.Status), row.Note)
	case row.Amber != "":
		c.mapped(s, row.Amber)
	default:
		c.same(s, row.Note)
	}
}

// defaultsDiffer lists the attribs whose FAST default asks for what amber does not do, with
// when that matters.
var defaultsDiffer = []struct {
	sec, name string
	when      func(c *conv) bool
}{
	{"", "extract_links_from_dupes", nil},
	{"", "refresh", nil},
	{"", "check_meta_robots", func(c *conv) bool { return !boolOr(c.top["robots"], true) }},
	{"", "javascript_keep_html", func(c *conv) bool { return boolOr(c.top["use_javascript"], false) }},
	{"crawlmode", "fwdredirects", nil},
	{"crawlmode", "reset_level", func(c *conv) bool {
		m := c.sec("crawlmode", "mode")
		return m != nil && !strings.EqualFold(strings.TrimSpace(m.Text), "FULL")
	}},
	{"link_extraction", "card", nil},
	{"link_extraction", "comment", nil},
	{"link_extraction", "go", nil},
	{"link_extraction", "img", nil},
	{"link_extraction", "layer", nil},
	{"link_extraction", "meta", nil},
	{"link_extraction", "script_java", func(c *conv) bool { return !boolOr(c.top["use_javascript"], false) }},
	{"link_extraction", "action", func(c *conv) bool { return boolOr(c.top["use_javascript"], false) }},
}

// defaults notes FAST's defaults amber does not follow, for the attribs the file leaves out,
// and a file without start URIs.
func (c *conv) defaults() {
	var list []string
	for _, d := range defaultsDiffer {
		var a *Attrib
		if d.sec == "" {
			a = c.top[d.name]
		} else {
			a = c.sec(d.sec, d.name)
		}
		if a != nil || (d.when != nil && !d.when(c)) {
			continue
		}
		name := d.name
		if d.sec != "" {
			name = d.sec + "/" + d.name
		}
		list = append(list, name+"="+rowDefault(d.sec, d.name))
	}
	if len(list) > 0 {
		c.items = append(c.items, item{status: noteDefault, what: strings.Join(list, "; "), line: math.MaxInt,
			why: "FAST's defaults for these attribs, which the file leaves out, ask for what amber does not do (docs/fast.md says what amber does)"})
	}
	if len(c.c.Seeds) == 0 {
		c.items = append(c.items, item{status: noteCaution, what: "start_uris", line: math.MaxInt,
			why: "none in the file: give amber crawl its seeds (URLs, a seeds file, --seeds)"})
	}
}

// sortedItems returns the items in file order (notes about the whole file last).
func (c *conv) sortedItems() []item {
	out := slices.Clone(c.items)
	slices.SortStableFunc(out, func(a, b item) int {
		switch {
		case a.line < b.line:
			return -1
		case a.line > b.line:
			return 1
		}
		return 0
	})
	return out
}

// renderNotes renders items, those with one status and reason together: "STATUS: WHAT, WHAT:
// WHY".
func renderNotes(items []item) []string {
	type group struct {
		status, why string
		what        []string
		seen        map[string]bool
	}
	var groups []*group
	byKey := map[[2]string]*group{}
	for _, it := range items {
		k := [2]string{it.status, it.why}
		g := byKey[k]
		if g == nil {
			g = &group{status: it.status, why: it.why, seen: map[string]bool{}}
			byKey[k] = g
			groups = append(groups, g)
		}
		if !g.seen[it.what] {
			g.seen[it.what] = true
			g.what = append(g.what, it.what)
		}
	}
	var out []string
	for _, g := range groups {
		var b bytes.Buffer
		b.WriteString(g.status)
		b.WriteString(": ")
		b.WriteString(strings.Join(g.what, ", "))
		b.WriteString(": ")
		b.WriteString(g.why)
		out = append(out, b.String())
	}
	return out
}

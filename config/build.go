package config

import (
	"crypto/x509"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/contentfilter"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/feed"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier/redisfront"
	"github.com/amber-crawler/amber/listing"
	"github.com/amber-crawler/amber/rewrite"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/subcoll"
)

// Options are what Build takes besides the file.
type Options struct {
	// Override changes the file once its defaults are filled in and before it is read: the
	// command line's flags. A key it sets stays as it sets it, zero included (--workers 0 is
	// refused by crawl.Config.Validate, not replaced by the default).
	Override func(*File) error
	// Dir is the crawl directory. Default: crawls/COLLECTION-TIMESTAMP.
	Dir string
	// Software names the crawler in warcinfo (amber/VERSION). Default: crawl.DefaultConfig's.
	Software string
	// LookupEnv reads the env:NAME references of secrets. Default: os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// DefaultMemoryLimit is the default of limits.memory (the command sets the process's soft
// memory limit from it). Without a limit Go lets the heap grow to twice the live heap between
// collections, and the frontier store's table builds (large short-lived buffers) make that a
// peak RSS of 394 MB at 320,000 pages of the generated site. With a limit the heap grows to
// it between collections, so the limit sets most of the peak RSS, and the nearer the live heap
// is to it the more often the collector runs. Badger keeps the allocators of the tables it
// built in a pool, live heap bounded by the memtable size (frontier/builders.go: 41 MB at the
// peak of a 1,000,000-page crawl with 4 MiB memtables). make bench-scale on small pages
// (PAGE_SIZE=0, 1,000,052 pages, 2 cores):
//
//	memtables  limit     wall   CPU-s  peak RSS crawling
//	8 MiB      112 MiB   406    575    148 MB
//	4 MiB      112 MiB   354    476    151 MB
//	4 MiB       96 MiB   376    517    131 MB
//
// and, earlier, 8 MiB memtables at 96 MiB: 769 CPU-s; at 80 MiB: 1,033 (the pool's 60-70 MB of
// live heap near the limit).
const DefaultMemoryLimit = 96 << 20

// Build turns the file model into the engine's configuration, the one translation between
// them. It works on f in place, so that f saved afterwards (Marshal; crawl.yaml) says what
// ran and a resumed crawl that reads it back runs the same: the keys left out are filled with
// the defaults of crawl.DefaultConfig, o.Override is applied, a browser crawl's Chromium is
// named, and paths are made absolute. Then each key is read into its one place in
// crawl.Config, whose EffectiveConfig is f saved. Values are checked as far as reading them
// needs (a rule that does not parse, a secret that cannot be read, a scope that cannot be
// built); the rest is crawl.Config.Validate's.
func Build(f *File, o Options) (crawl.Config, error) {
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	f.setDefaults()
	if o.Override != nil {
		if err := o.Override(f); err != nil {
			return crawl.Config{}, err
		}
	}
	if err := f.settle(); err != nil {
		return crawl.Config{}, err
	}
	c := crawl.DefaultConfig()
	if o.Software != "" {
		c.Software = o.Software
	}
	if err := f.engine(&c, o.LookupEnv); err != nil {
		return c, err
	}
	c.Dir = o.Dir
	if c.Dir == "" {
		c.Dir = filepath.Join("crawls", c.Collection+"-"+time.Now().UTC().Format("20060102T150405Z"))
	}
	var err error
	if c.EffectiveConfig, err = f.Marshal(); err != nil {
		return c, err
	}
	return c, nil
}

// setDefaults fills the keys crawl.yaml records that f leaves out with crawl.DefaultConfig's
// values, which stay the crawl's defaults in one place.
func (f *File) setDefaults() {
	d := crawl.DefaultConfig()
	setString(&f.Collection, d.Collection)
	setString(&f.UserAgent, d.Fetch.UserAgent)
	setString(&f.Fetcher, d.Fetcher)
	setZero(&f.Workers, d.Workers)
	p := &f.Politeness
	if p.HostDelay == nil {
		hd := d.HostDelay
		p.HostDelay = &hd
	}
	setZero(&p.HostConcurrency, d.HostConcurrency)
	setZero(&p.MaxAttempts, d.MaxAttempts)
	setZero(&p.RetryDelay, d.RetryDelay)
	setZero(&f.Robots.TTL, d.Robots.TTL)
	setZero(&f.Limits.MaxOutlinks, d.MaxOutlinks)
	setString(&f.Limits.MinFreeSpace, FormatMinFreeSpace(d.MinFreeSpace))
	setString(&f.Limits.Memory, FormatMemoryLimit(DefaultMemoryLimit))
	setZero(&f.WARC.MaxSize, ByteSize(d.WARCMaxSize))
	on := !d.NoDocuments
	setNil(&f.Documents.Enabled, on)
	dedup := !d.NoDocumentDedup
	setNil(&f.Documents.Deduplication, dedup)
	setNil(&f.Cookies, true)
}

// settle completes what depends on the keys as Override left them: every platform rule listed
// in scope.platform_rules with its value (an unknown one is an error); a browser crawl names the
// Chromium it runs (the one chosen, or the default New picks) and whether it takes
// screenshots; the earlier crawls and the client certificate are named by absolute paths, so
// that crawl.yaml names the same files wherever a resumed crawl is started from.
func (f *File) settle() error {
	if err := f.settlePlatformRules(); err != nil {
		return err
	}
	if f.Fetcher == crawl.FetcherBrowser {
		setString(&f.Browser.Path, browser.DefaultPath())
		setNil(&f.Browser.Screenshot, crawl.DefaultConfig().Browser.Screenshot)
	}
	for i, p := range f.DedupFrom {
		ap, err := absPath(p, "dedup_from")
		if err != nil {
			return err
		}
		f.DedupFrom[i] = ap
	}
	for _, p := range []struct {
		key string
		v   *string
	}{{"recrawl_of", &f.RecrawlOf}, {"network.client_cert", &f.Network.ClientCert}, {"network.client_key", &f.Network.ClientKey}, {"index.ca_file", &f.Index.CAFile}} {
		if *p.v == "" {
			continue
		}
		ap, err := absPath(*p.v, p.key)
		if err != nil {
			return err
		}
		*p.v = ap
	}
	for i, p := range f.Network.CACertificates {
		if isPEM(p) {
			continue
		}
		ap, err := absPath(p, "network.ca_certificates")
		if err != nil {
			return err
		}
		f.Network.CACertificates[i] = ap
	}
	return nil
}

// absPath is p made absolute; key names it in the error.
func absPath(p, key string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("%w: %s: empty path", ErrConfig, key)
	}
	ap, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%w: %s %s: %w", ErrConfig, key, p, err)
	}
	return ap, nil
}

// engine reads every key of f into its place in c (crawl.DefaultConfig, whose value a key
// left out keeps).
func (f *File) engine(c *crawl.Config, lookupEnv func(string) (string, bool)) error {
	c.Collection, c.Operator, c.Description = f.Collection, f.Operator, f.Description
	c.Fetch.UserAgent, c.Workers, c.Fetcher = f.UserAgent, f.Workers, f.Fetcher
	c.SessionCookieTTL = f.SessionCookieTTL
	c.DedupFrom, c.RecrawlOf = append([]string{}, f.DedupFrom...), f.RecrawlOf
	c.ClientCert, c.ClientKey = f.Network.ClientCert, f.Network.ClientKey
	f.Politeness.engine(c)
	f.Robots.engine(c)
	f.Browser.engine(c)
	f.WARC.engine(c)
	steps := []func() error{
		func() error { return f.Politeness.schedule(c) },
		func() error { return f.Limits.engine(c) },
		func() error { return f.Network.engine(c) },
		func() error { return f.Documents.engine(c) },
		func() error { return f.Content.engine(c) },
		func() error { return f.urls(c) },
		func() error { return f.access(c, lookupEnv) },
		func() error { return f.postPayloads(c, lookupEnv) },
		func() error { return f.subcollections(c, lookupEnv) },
		func() error { return f.shared(c, lookupEnv) },
		func() error { return f.scope(c) },
		func() error { return f.platformRules(c) },
		func() error { return f.index(c, lookupEnv) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// engine sets the politeness keys: host delays and concurrency, address spacing, attempts and
// retries, host failures and backoff, robots.txt on or off.
func (p Politeness) engine(c *crawl.Config) {
	if p.HostDelay != nil {
		c.HostDelay = *p.HostDelay
	}
	c.HostConcurrency, c.PerIP, c.HostDelays = p.HostConcurrency, p.PerIP, p.HostDelays
	c.MaxAttempts, c.RetryDelay, c.Retries = p.MaxAttempts, p.RetryDelay, maps.Clone(p.Retries)
	c.IgnoreRobots = p.IgnoreRobots
	c.Sites.MaxHostFailures, c.Sites.MaxBackoff = p.MaxHostFailures, p.MaxBackoff
	c.MaxSites, c.MaxInterDocs = p.MaxSites, p.MaxInterDocs
}

// schedule sets the delay schedule and the priority levels.
func (p Politeness) schedule(c *crawl.Config) error {
	s, err := p.Schedule()
	if err != nil {
		return fmt.Errorf("politeness: %w", err)
	}
	if len(s.Slots) > 0 {
		c.DelaySchedule = s
	}
	if p.Priority == nil {
		return nil
	}
	rules, err := p.Priority.Parsed()
	if err != nil {
		return fmt.Errorf("politeness: %w", err)
	}
	pr := crawl.Priority{Levels: p.Priority.Levels, Default: p.Priority.Default, Seeds: p.Priority.Seeds,
		Pick: p.Priority.Pick, Shares: p.Priority.Shares}
	for i, r := range p.Priority.Rules {
		pr.Rules = append(pr.Rules, crawl.PriorityRule{Level: r.Level, Match: rules[i]})
	}
	c.Priority = pr
	return nil
}

// engine sets how robots.txt and robots meta are read.
func (r Robots) engine(c *crawl.Config) {
	c.Robots.TTL, c.Robots.Timeout = r.TTL, r.Timeout
	c.Robots.AllowOnTimeout, c.Robots.DisallowOnAuth = r.AllowOnTimeout, r.DisallowOnAuth
	c.Robots.IgnoreMeta, c.Robots.IgnoreCrawlDelay = r.IgnoreMeta, r.IgnoreCrawlDelay
}

// engine sets the browser fetcher's settings.
func (b Browser) engine(c *crawl.Config) {
	c.Browser.Path, c.Browser.Tabs = b.Path, b.Tabs
	c.Browser.PageTimeout, c.Browser.BehaviorTimeout = b.PageTimeout, b.BehaviorTimeout
	c.Browser.NetworkIdle = b.NetworkIdle
	if b.Screenshot != nil {
		c.Browser.Screenshot = *b.Screenshot
	}
}

// engine sets the WARC file names and size.
func (w WARC) engine(c *crawl.Config) {
	c.WARCPrefix, c.WARCMaxSize = w.Prefix, int64(w.MaxSize)
}

// engine sets the limits of the crawl and of one response.
func (l Limits) engine(c *crawl.Config) error {
	c.LimitURLs, c.LimitBytes, c.TimeLimit = l.URLs, int64(l.Bytes), l.Time
	c.Fetch.MaxResponseSize, c.MaxOutlinks = int64(l.ResponseSize), l.MaxOutlinks
	c.Sites.URLsPerHost = l.URLsPerHost
	switch l.Oversize {
	case "", "truncate":
		c.DropOversize = false
	case "drop":
		c.DropOversize = true
	default:
		return fmt.Errorf("%w: limits.oversize %q: want truncate or drop", ErrConfig, l.Oversize)
	}
	n, err := ParseMinFreeSpace(l.MinFreeSpace)
	if err != nil {
		return fmt.Errorf("limits.min_free_space %w", err)
	}
	c.MinFreeSpace = n
	return nil
}

// engine sets the connection settings.
func (n Network) engine(c *crawl.Config) error {
	c.Fetch.AllowPrivate, c.Fetch.VerifyTLS = n.AllowPrivate, n.VerifyTLS
	c.Fetch.ConnectTimeout, c.Fetch.FirstByteTimeout, c.Fetch.ResponseTimeout = n.ConnectTimeout, n.FirstByteTimeout, n.ResponseTimeout
	var err error
	if c.Fetch.ConnectTo, err = n.Mappings(); err != nil {
		return err
	}
	c.Fetch.RootCAs, err = n.rootCAs()
	return err
}

// isPEM reports whether an entry of network.ca_certificates is PEM text rather than a file.
func isPEM(s string) bool { return strings.Contains(s, "-----BEGIN ") }

// rootCAs returns the system's certificate authorities with those of ca_certificates, or
// nil (the system's) when there are none. An entry that holds no certificate is an error.
func (n Network) rootCAs() (*x509.CertPool, error) {
	if len(n.CACertificates) == 0 {
		return nil, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	for i, e := range n.CACertificates {
		data, where := []byte(e), fmt.Sprintf("network.ca_certificates[%d]", i)
		if !isPEM(e) {
			if data, err = os.ReadFile(e); err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrConfig, where, err)
			}
			where += " " + e
		}
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("%w: %s: no PEM certificate", ErrConfig, where)
		}
	}
	return pool, nil
}

// Mappings are the connect_to mappings parsed.
func (n Network) Mappings() ([]fetch.ConnectTo, error) {
	var out []fetch.ConnectTo
	for _, s := range n.ConnectTo {
		ct, err := fetch.ParseConnectTo(s)
		if err != nil {
			return nil, fmt.Errorf("%w: network.connect_to %q: %w", ErrConfig, s, err)
		}
		out = append(out, ct)
	}
	return out, nil
}

// engine sets the search documents' settings.
func (d Documents) engine(c *crawl.Config) error {
	c.NoDocuments = d.Enabled != nil && !*d.Enabled
	c.NoDocumentDedup = d.Deduplication != nil && !*d.Deduplication
	c.Documents.MaxTitleSize = d.MaxTitleSize
	c.Documents.MaxBodySize = d.MaxBodySize
	c.Documents.MaxKeywordsSize = d.MaxKeywordsSize
	c.Documents.MaxDescriptionSize = d.MaxDescriptionSize
	c.Documents.MaxHeadingsCount = d.MaxHeadingsCount
	c.Documents.MaxIndexedLinksCount = d.MaxIndexedLinksCount
	c.Documents.ContentHashFields = d.DeduplicationFields
	c.Documents.BinaryContentTypes = d.BinaryMIMETypes
	c.Documents.MaxElasticTagSize = d.MaxElasticTagSize
	c.Documents.MaxDataAttributeSize = d.MaxDataAttributeSize
	c.Documents.FullHTML = d.FullHTML
	tags, err := d.excludeTags()
	if err != nil {
		return err
	}
	c.Documents.ExcludeTags = tags
	rs, err := d.Rulesets()
	if err != nil {
		return err
	}
	c.Documents.Rulesets = rs
	return nil
}

// excludeTags returns documents.exclude_tags with each origin as Origin writes it and each
// tag name in lower case; an origin that is not one, or a tag name that is not letters,
// digits and hyphens, is an error.
func (d Documents) excludeTags() (map[string][]string, error) {
	if len(d.ExcludeTags) == 0 {
		return nil, nil
	}
	out := map[string][]string{}
	for _, o := range slices.Sorted(maps.Keys(d.ExcludeTags)) {
		origin, err := Origin(o)
		if err != nil {
			return nil, fmt.Errorf("%w: documents.exclude_tags: %w", ErrConfig, err)
		}
		for _, t := range d.ExcludeTags[o] {
			t = strings.ToLower(strings.TrimSpace(t))
			if t == "" || strings.Trim(t, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
				return nil, fmt.Errorf("%w: documents.exclude_tags: %s: %q is not a tag name", ErrConfig, o, t)
			}
			out[origin] = append(out[origin], t)
		}
	}
	return out, nil
}

// engine sets which responses the crawl reads: the types as written (the content filter
// checks them), the header patterns compiled, fields in name order.
func (ct Content) engine(c *crawl.Config) error {
	c.Content = contentfilter.Config{Types: ct.Types, LinkTypes: ct.LinkTypes}
	for _, name := range slices.Sorted(maps.Keys(ct.ExcludeHeaders)) {
		for _, p := range ct.ExcludeHeaders[name] {
			r, err := contentfilter.NewHeaderRule(name, p)
			if err != nil {
				return fmt.Errorf("%w: content.exclude_headers: %w", ErrConfig, err)
			}
			c.Content.ExcludeHeaders = append(c.Content.ExcludeHeaders, r)
		}
	}
	return nil
}

// urls sets what the crawl does to the URLs it finds (urls: mirrors before the rewrite rules)
// and its feeds (feeds).
func (f *File) urls(c *crawl.Config) error {
	var err error
	if c.URLs, err = f.URLConfig(); err != nil {
		return err
	}
	fd := f.Feeds
	c.Feeds = listing.Feeds{URLs: fd.URLs, Limits: feed.Limits{MaxLinks: fd.MaxLinks, MaxBytes: c.Feeds.Limits.MaxBytes},
		SkipItemLinks: fd.FollowLinks != nil && !*fd.FollowLinks, IgnoreRules: fd.IgnoreRules, AutoDiscover: fd.AutoDiscover}
	if fd.MaxLinks == 0 {
		c.Feeds.Limits.MaxLinks = feed.MaxLinks
	}
	return nil
}

// URLConfig returns what the crawl of f does to each URL it finds before scope decides it
// (the urls section: the mirrors' rules, then rewrite_rules; sort_query_params; meta refresh
// and redirects), as Build gives it to the crawl. Its URLConfig.Fetched is the URL the crawl
// takes for a URL found (amber scope check decides on it).
func (f *File) URLConfig() (crawl.URLConfig, error) {
	rules, err := rewrite.ParseAll(f.URLs.RewriteRules)
	if err != nil {
		return crawl.URLConfig{}, fmt.Errorf("%w: urls.rewrite_rules: %w", ErrConfig, err)
	}
	mirrors, err := mirrorRules(f.URLs)
	if err != nil {
		return crawl.URLConfig{}, err
	}
	return crawl.URLConfig{Rewrite: append(mirrors, rules...), SortQuery: f.URLs.SortQueryParams,
		RefreshRedirectMax: f.URLs.MetaRefreshRedirectMax, MaxRedirects: f.URLs.MaxRedirects}, nil
}

// maxMirrorFile bounds a mirror file (urls.mirror_files).
const maxMirrorFile = 1 << 20

// mirrorRules reads urls.mirror_files and returns the rewrite rules of urls.mirrors and the
// files' groups (rewrite.Mirrors): a mirror site's URLs are taken as the preferred site's.
func mirrorRules(u URLs) (rewrite.Rules, error) {
	groups := append([][]string(nil), u.Mirrors...)
	for _, p := range u.MirrorFiles {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%w: urls.mirror_files: %w", ErrConfig, err)
		}
		if !st.Mode().IsRegular() || st.Size() > maxMirrorFile {
			return nil, fmt.Errorf("%w: urls.mirror_files: %s: not a regular file of at most 1 MiB", ErrConfig, p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%w: urls.mirror_files: %w", ErrConfig, err)
		}
		gs, err := rewrite.ParseMirrors(data)
		if err != nil {
			return nil, fmt.Errorf("%w: urls.mirror_files: %s: %w", ErrConfig, p, err)
		}
		groups = append(groups, gs...)
	}
	rs, err := rewrite.Mirrors(groups)
	if err != nil {
		return nil, fmt.Errorf("%w: urls.mirrors: %w", ErrConfig, err)
	}
	return rs, nil
}

// access sets the fetchers' credentials, headers, proxy and cookie jar (a fresh one per run
// unless cookies are off) and the form logins, reading env: references with lookupEnv.
func (f *File) access(c *crawl.Config, lookupEnv func(string) (string, bool)) error {
	acc, err := f.Access(lookupEnv)
	if err != nil {
		return err
	}
	c.Fetch.Auth = nil
	for _, cr := range acc.Auth {
		oa := fetch.OriginAuth{Origin: cr.Origin, Prefix: cr.Prefix, Realm: cr.Realm}
		if cr.Type == AuthBasic {
			oa.Basic = &fetch.BasicAuth{Username: cr.Username, Password: cr.Password}
		} else {
			oa.Raw = cr.Value
		}
		c.Fetch.Auth = append(c.Fetch.Auth, oa)
	}
	c.Fetch.HTTPAuthAllowed = acc.HTTPAuthAllowed
	c.Fetch.Header, c.Fetch.OriginHeader = acc.Header, acc.OriginHeader
	c.Fetch.Proxy = acc.Proxy
	c.Fetch.Jar = nil
	if acc.Cookies {
		c.Fetch.Jar = fetch.NewJar()
	}
	c.Logins, err = f.LoginSpecs(lookupEnv)
	return err
}

// postPayloads sets the POST bodies of URLs (post_payloads), each body env:NAME read with
// lookupEnv.
func (f *File) postPayloads(c *crawl.Config, lookupEnv func(string) (string, bool)) error {
	c.PostPayloads = nil
	for i, p := range f.PostPayloads {
		if (p.URL == "") == (p.Prefix == "") {
			return fmt.Errorf("%w: post_payloads[%d]: want one of url and prefix", ErrConfig, i)
		}
		body, err := Secret(p.Body).Resolve(lookupEnv)
		if err != nil {
			return fmt.Errorf("post_payloads[%d].body: %w", i, err)
		}
		pp := crawl.PostPayload{URL: p.URL, Body: body}
		if p.Prefix != "" {
			pp.URL, pp.Prefix = p.Prefix, true
		}
		c.PostPayloads = append(c.PostPayloads, pp)
	}
	return nil
}

// subcollections sets the crawl's subcollections, their header and proxy secrets read with
// lookupEnv.
func (f *File) subcollections(c *crawl.Config, lookupEnv func(string) (string, bool)) error {
	subs, err := f.CheckSubcollections(lookupEnv)
	if err != nil {
		return err
	}
	c.Subcollections = nil
	for _, s := range subs {
		cs := subcoll.Subcollection{
			Name: s.Name, Match: s.MatchRules, Except: s.ExceptRules, Fetcher: s.Fetcher, Schemes: s.Schemes,
			MaxHops: s.MaxHops, Header: s.Header, Proxy: s.ProxyURL, MaxResponseSize: int64(s.ResponseSize),
			HostDelay: s.HostDelay, URLsPerHost: s.URLsPerHost, SitemapsRobots: s.Sitemaps,
		}
		if s.Oversize != "" {
			drop := s.Oversize == "drop"
			cs.DropOversize = &drop
		}
		c.Subcollections = append(c.Subcollections, cs)
	}
	return nil
}

// shared sets the crawl's shared frontier (frontier), its server read with lookupEnv.
func (f *File) shared(c *crawl.Config, lookupEnv func(string) (string, bool)) error {
	server, err := f.Frontier.Server(lookupEnv)
	if err != nil || server == "" {
		return err
	}
	c.Shared = redisfront.Shared{URL: server, CrawlID: f.Frontier.CrawlID, Process: f.Frontier.Process, Lease: f.Frontier.Lease}
	return nil
}

// scope builds the scope from the seeds and rules, its flavour following the fetcher unless
// set (spec/scope.md), and checks it as the crawl will, so that a bad rule or hop limit is
// reported before the crawl directory is created; then the sitemaps, which depend on the
// flavour.
func (f *File) scope(c *crawl.Config) error {
	sc, err := f.ScopeConfig(DefaultFlavour(c.Fetcher))
	if err != nil {
		return err
	}
	if _, err := scope.New(sc); err != nil {
		return fmt.Errorf("scope: %w", err)
	}
	c.Scope = sc
	f.sitemaps(c)
	return nil
}

// DefaultFlavour is the scope flavour that follows the fetcher when scope.flavour is not set
// (spec/scope.md): brozzler with the browser fetcher, else standard.
func DefaultFlavour(fetcher string) scope.Flavour {
	if fetcher == crawl.FetcherBrowser {
		return scope.Brozzler
	}
	return scope.Standard
}

// sitemaps sets the sitemaps once the scope's flavour is known: robots.txt Sitemap: lines are
// read when sitemaps.robots says so, else with the elastic flavour only (spec/elastic.md §3);
// the files fetched at the start are sitemaps.urls, then each domain's and each seed's
// sitemap_urls, each once.
func (f *File) sitemaps(c *crawl.Config) {
	if f.Sitemaps.Robots != nil {
		c.Sitemaps.Robots = *f.Sitemaps.Robots
	} else {
		c.Sitemaps.Robots = c.Scope.Flavour == scope.Elastic
	}
	seen := map[string]bool{}
	add := func(us []string) {
		for _, u := range us {
			if !seen[u] {
				seen[u] = true
				c.Sitemaps.URLs = append(c.Sitemaps.URLs, u)
			}
		}
	}
	c.Sitemaps.URLs = nil
	add(f.Sitemaps.URLs)
	for _, d := range f.Scope.Domains {
		add(d.SitemapURLs)
	}
	for _, s := range f.Seeds {
		add(s.SitemapURLs)
	}
}

// ParseMinFreeSpace reads limits.min_free_space as crawl.Config.MinFreeSpace takes it: "auto"
// (or empty) is 0 (the default rule), "off" is -1, anything else a positive size.
func ParseMinFreeSpace(v string) (int64, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "auto", "":
		return 0, nil
	case "off":
		return -1, nil
	}
	n, err := ParseByteSize(v)
	if err != nil {
		return 0, fmt.Errorf("%q: want a size, auto or off: %w", v, err)
	}
	if n <= 0 {
		return 0, fmt.Errorf("%w: %q: want a positive size, auto or off", ErrConfig, v)
	}
	return int64(n), nil
}

// FormatMinFreeSpace writes crawl.Config.MinFreeSpace as ParseMinFreeSpace reads it.
func FormatMinFreeSpace(n int64) string {
	switch {
	case n == 0:
		return "auto"
	case n < 0:
		return "off"
	}
	return FormatByteSize(n)
}

// ParseMemoryLimit reads limits.memory: a positive size, or "off" (math.MaxInt64, Go's own
// default: no limit).
func ParseMemoryLimit(v string) (int64, error) {
	if strings.EqualFold(strings.TrimSpace(v), "off") {
		return math.MaxInt64, nil
	}
	n, err := ParseByteSize(v)
	if err != nil {
		return 0, fmt.Errorf("%q: want a size or off: %w", v, err)
	}
	if n <= 0 {
		return 0, fmt.Errorf("%w: %q: want a positive size or off", ErrConfig, v)
	}
	return int64(n), nil
}

// FormatMemoryLimit writes a memory limit as ParseMemoryLimit reads it.
func FormatMemoryLimit(n int64) string {
	if n == math.MaxInt64 {
		return "off"
	}
	return FormatByteSize(n)
}

// FormatByteSize writes n bytes in the largest unit that divides it (1GB, 80MiB), as
// ParseByteSize reads it; a number of bytes when none does.
func FormatByteSize(n int64) string {
	units := []struct {
		suffix string
		size   int64
	}{{"TiB", 1 << 40}, {"TB", 1e12}, {"GiB", 1 << 30}, {"GB", 1e9}, {"MiB", 1 << 20}, {"MB", 1e6}, {"KiB", 1 << 10}, {"KB", 1e3}}
	for _, u := range units {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.suffix)
		}
	}
	return fmt.Sprint(n)
}

// setString sets *dst to v when *dst is empty (not set).
func setString(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// setZero sets *dst to v when *dst is zero (not set).
func setZero[T comparable](dst *T, v T) {
	var zero T
	if *dst == zero {
		*dst = v
	}
}

// setNil points *dst at v when it is nil (not set).
func setNil[T any](dst **T, v T) {
	if *dst == nil {
		*dst = &v
	}
}

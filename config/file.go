// Package config is amber's configuration model: the crawl configuration file as an archivist
// writes it in YAML (File: the keys, their meaning, their checks, Load and Parse, Marshal), which
// crawl.yaml saves; what other crawlers' files become in it (Converted, with its subpackages
// elastic for Elastic's Open Crawler, entsearch for Enterprise Search's settings and fast for
// FAST's); how the files of one crawl combine (Merge); and the one translation of the model into
// the engine's configuration (Build). Flags of the command line are applied to the model, not to the
// engine's configuration, so that a setting has one name from the YAML key to the docs.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/seeds"
)

// ErrConfig is wrapped by every error about a crawl configuration.
var ErrConfig = errors.New("config: invalid config")

// File is a crawl configuration as written in YAML. A key left out (a zero value) means "not
// set here". The crawl's defaults live in one place, crawl.DefaultConfig: Build fills the keys
// crawl.yaml records with its values before the command line's flags are applied to the File,
// so that the File saved says what ran. Durations are Go durations ("1s", "500ms", "2h"); sizes
// are bytes, optionally with a unit ("1GB", "100MiB").
type File struct {
	// Collection names the crawl (warcinfo, WARC prefix, default crawl directory name).
	Collection string `yaml:"collection,omitempty"`
	// Operator says who runs the crawl (warcinfo `operator`), e.g. "Jane Doe <jane@example.org>".
	Operator string `yaml:"operator,omitempty"`
	// Description is free text for warcinfo.
	Description string `yaml:"description,omitempty"`
	// Seeds are the crawl's seeds; each is a URL string or a map with url, type, accept, block,
	// max_hops, max_hops_off, redirected_from.
	Seeds []SeedSpec `yaml:"seeds,omitempty"`
	// SeedsFile names a plain-text seeds file, relative to the config file.
	SeedsFile string `yaml:"seeds_file,omitempty"`
	// Scope holds the collection-level scope rules.
	Scope ScopeSpec `yaml:"scope,omitempty"`
	// Fetcher is "http" or "browser" (headless Chromium, Brozzler-style).
	Fetcher string `yaml:"fetcher,omitempty"`
	// Browser configures the browser fetcher.
	Browser Browser `yaml:"browser,omitempty"`
	// Workers is the number of URLs fetched at once across all hosts.
	Workers int `yaml:"workers,omitempty"`
	// UserAgent is sent with every request; it should name a contact.
	UserAgent string `yaml:"user_agent,omitempty"`
	// Limits bound the crawl.
	Limits Limits `yaml:"limits,omitempty"`
	// Politeness spaces requests to one host.
	Politeness Politeness `yaml:"politeness,omitempty"`
	// Robots says how robots.txt and robots meta tags are read when they are obeyed (see
	// Robots; politeness.ignore_robots turns all of it off).
	Robots Robots `yaml:"robots,omitempty"`
	// Network holds connection settings.
	Network Network `yaml:"network,omitempty"`
	// WARC holds WARC output settings.
	WARC WARC `yaml:"warc,omitempty"`
	// Documents configures the search-document stream (documents.jsonl).
	Documents Documents `yaml:"documents,omitempty"`
	// Index sends the documents to a search index too (Elasticsearch 8's _bulk API; see Index).
	Index Index `yaml:"index,omitempty"`
	// Sitemaps configures sitemap discovery (spec/elastic.md §3).
	Sitemaps Sitemaps `yaml:"sitemaps,omitempty"`
	// URLs says what is done to each URL found before scope decides it: sorted query
	// parameters, rewrite rules, meta refreshes as links, a redirect chain limit (see URLs).
	URLs URLs `yaml:"urls,omitempty"`
	// Feeds are RSS and Atom feeds to read for the pages their items name (see Feeds).
	Feeds Feeds `yaml:"feeds,omitempty"`
	// Content says which responses the crawl reads, by MIME type and header fields (FAST's
	// allowed_types, uri_search_mime, exclude_headers; see Content). Every response is archived.
	Content Content `yaml:"content,omitempty"`
	// DedupFrom lists earlier crawls (crawl directories, CDXJ files or WACZ files; relative to
	// the config file) whose captures are not stored again: a response with the payload of one
	// of them is written as a revisit referring to it.
	DedupFrom []string `yaml:"dedup_from,omitempty"`
	// RecrawlOf is an earlier crawl of the same sites (a crawl directory or a WACZ file;
	// relative to the config file): the URLs it captured are requested with If-None-Match and
	// If-Modified-Since, and a 304 is written as a revisit referring to its capture.
	RecrawlOf string `yaml:"recrawl_of,omitempty"`

	// Auth gives the Authorization credential of origins (spec/elastic.md §5), for both
	// fetchers. Each entry is sent only on requests to exactly its origin (scheme, host and
	// port: not to a subdomain, another port, or after a redirect elsewhere), and over https
	// only unless http_auth_allowed. Entries are {origin, type: basic, username, password} or
	// {origin, type: raw, value} (value: the whole Authorization value, "Bearer abc"); one
	// entry per origin. In place of origin, prefix (a URL prefix; the longest covering a URL
	// wins) and/or realm (basic only: sent when a 401 Basic challenge names it) give FAST's
	// passwd (see AuthSpec). A password or value may be written as env:NAME, read from the
	// environment variable NAME when the crawl starts (common practice for secrets: the file
	// then holds none). crawl.yaml and warcinfo write secrets as *** (env:NAME as it is), so a
	// crawl resumed without its --config needs them again (--auth, --auth-raw) unless they
	// are env: references.
	Auth []AuthSpec `yaml:"auth,omitempty"`
	// HTTPAuthAllowed lets auth credentials go over plain http; default false (as the Elastic
	// Open Crawler's http_auth_allowed): they are sent over https only.
	HTTPAuthAllowed bool `yaml:"http_auth_allowed,omitempty"`
	// Headers are sent on every request of both fetchers, {Name: value}; OriginHeaders on the
	// requests to one origin, {origin: {Name: value}}, and win over Headers. A page's own
	// header (the browser's Accept, say) wins over both. Not allowed: Authorization (use
	// auth), Proxy-Authorization (use proxy), and the fields that frame the message (Host,
	// Content-Length, Connection, ...). A value may be env:NAME. crawl.yaml writes a Cookie
	// value as ***, other values as they are.
	Headers       HeaderMap            `yaml:"headers,omitempty"`
	OriginHeaders map[string]HeaderMap `yaml:"origin_headers,omitempty"`
	// Proxy sends every request of both fetchers through an HTTP proxy: a URL,
	// "http://user:password@proxy.example.org:3128", or {url, username, password} (password
	// may be env:NAME). Every request, http ones too, goes through a CONNECT tunnel, so the
	// proxy must allow CONNECT to ports 80 and 443; WARC-IP-Address is the proxy's, and the
	// private-address guard applies to the proxy's address (a proxy on loopback needs
	// network.allow_private). It cannot be combined with network.connect_to.
	Proxy *ProxySpec `yaml:"proxy,omitempty"`
	// Cookies keeps the cookies sites set, for every later request of the crawl run, by both
	// fetchers (one jar with public-suffix rules, as a browser); default true. false: no
	// cookies are kept between requests (the browser fetcher keeps Chromium's own, within one
	// browser).
	Cookies *bool `yaml:"cookies,omitempty"`
	// SessionCookieTTL is how long a session cookie (one without Expires or Max-Age) is kept
	// from when a site first set it (FAST's cookie_timeout); default: the whole run. It
	// applies to the jar both fetchers share, not to Chromium's own cookies.
	SessionCookieTTL time.Duration `yaml:"session_cookie_ttl,omitempty"`
	// PostPayloads make the requests for some URLs POST requests with a body (FAST's
	// post_payload): {url, body} for exactly that URL, {prefix, body} for the URLs starting
	// with it (the exact one first, then the longest prefix). The body is sent as
	// application/x-www-form-urlencoded; it may be env:NAME, read from the environment when
	// the crawl starts; crawl.yaml and warcinfo write it as given. With the browser fetcher
	// these URLs are fetched by the plain HTTP client (a page load is a GET).
	PostPayloads []PostPayloadSpec `yaml:"post_payloads,omitempty"`
	// Logins are HTML form logins (FAST's Login), made before the first page of their
	// sites and archived like any capture: {name, preload, scheme, site, form, method,
	// html_form, autofill, parameters, sites, ttl, relogin_if_failed} (see LoginSpec).
	Logins []LoginSpec `yaml:"logins,omitempty"`
	// Frontier puts the crawl's frontier on a Redis server shared by several amber processes:
	// {redis, crawl_id, process, lease} (see FrontierSpec). Default: in the crawl directory.
	Frontier FrontierSpec `yaml:"frontier,omitempty"`
	// Subcollections are named parts of the crawl with their own settings (FAST's
	// subcollections; see Subcollection).
	Subcollections []Subcollection `yaml:"subcollections,omitempty"`
}

// PostPayloadSpec is one entry of post_payloads: URL or Prefix (one of them), and Body.
type PostPayloadSpec struct {
	URL    string `yaml:"url,omitempty"`
	Prefix string `yaml:"prefix,omitempty"`
	Body   string `yaml:"body"`
}

// Content says which responses the crawl reads; every response fetched is archived (a body
// of a type left out is not fetched), and a response left out is logged with its reason
// (contentfilter.Config has the details). MIME types are "type/subtype", "*" standing for a
// whole field ("text/*", "*/*").
type Content struct {
	// Types are the types of the responses used: a response of another type (a redirect
	// excepted) is not used, its links not followed and no search document written (FAST's
	// allowed_types). When its Content-Type says so, the HTTP client does not fetch its body
	// and only its request is archived (crawl.log type-not-fetched:TYPE,
	// bytes-not-fetched:N|unknown); otherwise (the type sniffed from the body, a page the
	// browser loaded) it is archived (type-excluded:TYPE). Default: every type.
	Types []string `yaml:"types,omitempty"`
	// LinkTypes are the types whose links are followed (FAST's uri_search_mime); a page or
	// style sheet of another type gives none (links-not-searched:TYPE). Default: every type
	// amber reads links from (HTML, XHTML, CSS).
	LinkTypes []string `yaml:"link_types,omitempty"`
	// ExcludeHeaders, {Field-Name: [pattern, ...]}, exclude a response with a value of the
	// field that a pattern (a Go regular expression, unanchored) matches, as a type left out
	// is (header-excluded:NAME; FAST's exclude_headers).
	ExcludeHeaders map[string][]string `yaml:"exclude_headers,omitempty"`
}

// Sitemaps configures sitemap discovery: sitemap files are archived (hop M) and every URL in
// them is decided by scope like a link.
type Sitemaps struct {
	// Robots reads the Sitemap: lines of each robots.txt amber fetches. Default: on with the
	// elastic flavour, off with the others.
	Robots *bool `yaml:"robots,omitempty"`
	// URLs are sitemap files fetched at the start of the crawl (besides scope.domains'
	// sitemap_urls and the seeds' sitemap_urls).
	URLs []string `yaml:"urls,omitempty"`
}

// URLs says what is done to each URL a page, a sitemap or a feed points at (FAST's URL
// attribs); crawl.URLConfig has the details.
type URLs struct {
	// SortQueryParams sorts query parameters by name (stable, each pair's bytes kept).
	SortQueryParams bool `yaml:"sort_query_params,omitempty"`
	// RewriteRules are FAST rewrite rules, "*match*replacement*" (the first character is
	// the delimiter), applied in order; the original URL is recorded (rewrittenFrom).
	RewriteRules []string `yaml:"rewrite_rules,omitempty"`
	// MetaRefreshRedirectMax: a <meta http-equiv=refresh> waiting at most this many seconds
	// is a redirect (hop R), a longer one a link (hop L); -1: every one is a link. Unset:
	// every one is a redirect.
	MetaRefreshRedirectMax *int `yaml:"meta_refresh_redirect_max,omitempty"`
	// MaxRedirects is the longest redirect chain followed; 0: no limit.
	MaxRedirects int `yaml:"max_redirects,omitempty"`
	// Mirrors are groups of sites, the preferred one first (host or host:port): a URL found on
	// a mirror is taken as the preferred site's (rewrite.Mirrors), before rewrite_rules, and
	// the URL as found is recorded as a rewritten one's is (FAST's mirror_site_files).
	Mirrors [][]string `yaml:"mirrors,omitempty"`
	// MirrorFiles are files of mirror groups (rewrite.ParseMirrors: one group a line, its
	// sites separated by spaces, the preferred first), relative to the config file, added to
	// Mirrors.
	MirrorFiles []string `yaml:"mirror_files,omitempty"`
}

// Feeds configures RSS and Atom feeds (FAST's rss section); listing.Feeds has the
// details.
type Feeds struct {
	// URLs are feeds fetched at the start of the crawl.
	URLs []string `yaml:"urls,omitempty"`
	// MaxLinks is the most item links read from one feed, its first (newest); 0: 128.
	MaxLinks int `yaml:"max_links,omitempty"`
	// FollowLinks follows the links of the pages the items name; default true.
	FollowLinks *bool `yaml:"follow_links,omitempty"`
	// IgnoreRules queues items that the scope's rules leave out (not robots.txt).
	IgnoreRules bool `yaml:"ignore_rules,omitempty"`
	// AutoDiscover reads as feeds the <link rel=alternate> RSS and Atom links of pages.
	AutoDiscover bool `yaml:"auto_discover,omitempty"`
}

// Browser configures the browser fetcher.
type Browser struct {
	// Path is the Chromium executable.
	Path string `yaml:"path,omitempty"`
	// Tabs is how many pages load at once.
	Tabs int `yaml:"tabs,omitempty"`
	// PageTimeout bounds one page (load, behaviours); what was captured is kept.
	PageTimeout time.Duration `yaml:"page_timeout,omitempty"`
	// BehaviorTimeout bounds the scrolling behaviour.
	BehaviorTimeout time.Duration `yaml:"behavior_timeout,omitempty"`
	// Screenshot stores a PNG of each page as a WARC resource record.
	Screenshot *bool `yaml:"screenshot,omitempty"`
	// NetworkIdle is a quiet period after the network went idle, for pages that start
	// requests from timers; default 0 (idle is no request in flight and two frames drawn).
	NetworkIdle time.Duration `yaml:"network_idle,omitempty"`
}

// Documents configures documents.jsonl; the keys follow Elastic's web crawler reference
// (crawler.extraction.*). Zero values are the reference's defaults.
type Documents struct {
	// Enabled writes documents.jsonl. Default true.
	Enabled *bool `yaml:"enabled,omitempty"`
	// Deduplication makes one document per distinct content (duplicates add to
	// additional_urls). Default true.
	Deduplication *bool `yaml:"deduplication,omitempty"`
	// DeduplicationFields are the fields content_hash covers. Default: title, body_content,
	// meta_keywords, meta_description, links, headings.
	DeduplicationFields []string `yaml:"deduplication_fields,omitempty"`
	// BinaryMIMETypes lists media types whose text is extracted (application/pdf). Default none.
	BinaryMIMETypes []string `yaml:"binary_content_extraction_mime_types,omitempty"`
	// Size limits in bytes (title 1024, body 5 MiB, keywords 512, description 1024) and counts
	// (25 headings, 25 indexed links).
	MaxTitleSize         int `yaml:"max_title_size,omitempty"`
	MaxBodySize          int `yaml:"max_body_size,omitempty"`
	MaxKeywordsSize      int `yaml:"max_keywords_size,omitempty"`
	MaxDescriptionSize   int `yaml:"max_description_size,omitempty"`
	MaxHeadingsCount     int `yaml:"max_headings_count,omitempty"`
	MaxIndexedLinksCount int `yaml:"max_indexed_links_count,omitempty"`
	// MaxElasticTagSize bounds each value of a custom field from a <meta class="elastic">
	// tag, MaxDataAttributeSize each value from a data-elastic-name element, in bytes
	// (Elastic's max_elastic_tag_size and max_data_attribute_size). Default: max_body_size.
	MaxElasticTagSize    int `yaml:"max_elastic_tag_size,omitempty"`
	MaxDataAttributeSize int `yaml:"max_data_attribute_size,omitempty"`
	// ExcludeTags, {origin: [tag, ...]}, leave the elements of those HTML tags, with all
	// they hold, out of the documents of the origin's pages: body_content, headings and
	// data-elastic-name fields (Elastic's exclude_tags of a domain: exclude_tags: {
	// "https://example.com": [header, footer, nav]}). Their links are still followed.
	ExcludeTags map[string][]string `yaml:"exclude_tags,omitempty"`
	// FullHTML adds the whole page, decoded to UTF-8, to each HTML document as full_html
	// (Elastic's full_html_extraction_enabled); default false.
	FullHTML bool `yaml:"full_html,omitempty"`
	// ExtractionRulesets add custom fields to the documents of one domain's pages (Elastic's
	// extraction_rulesets; spec/elastic.md §4).
	ExtractionRulesets []ExtractionRulesetSpec `yaml:"extraction_rulesets,omitempty"`
}

// SeedSpec is one seed in a config.
type SeedSpec struct {
	URL            string     `yaml:"url"`
	Type           string     `yaml:"type,omitempty"`
	Accept         []RuleSpec `yaml:"accept,omitempty"`
	Block          []RuleSpec `yaml:"block,omitempty"`
	MaxHops        *int       `yaml:"max_hops,omitempty"`
	MaxHopsOff     *int       `yaml:"max_hops_off,omitempty"`
	RedirectedFrom string     `yaml:"redirected_from,omitempty"`
	// SitemapURLs are sitemap files of this seed (any flavour).
	SitemapURLs []string `yaml:"sitemap_urls,omitempty"`
}

// UnmarshalYAML accepts a bare URL string as well as the map form.
func (s *SeedSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		s.URL = n.Value
		return nil
	}
	type plain SeedSpec
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*s = SeedSpec(p)
	return nil
}

// ScopeSpec is the collection-level scope configuration.
type ScopeSpec struct {
	// Flavour is "standard" or "brozzler"; empty follows the fetcher (http: standard).
	Flavour    string     `yaml:"flavour,omitempty"`
	Accept     []RuleSpec `yaml:"accept,omitempty"`
	Block      []RuleSpec `yaml:"block,omitempty"`
	MaxHops    *int       `yaml:"max_hops,omitempty"`
	MaxHopsOff *int       `yaml:"max_hops_off,omitempty"`
	// MaxURLLength refuses longer URLs (reason url-too-long); 0: 2,083, as Heritrix.
	MaxURLLength int `yaml:"max_url_length,omitempty"`
	// MaxURLSegments refuses URLs whose path has more segments (the number of "/" in it;
	// reason url-too-many-segments), MaxURLParams URLs whose query has more parameters
	// (reason url-too-many-params), seeds included, as the Elastic Open Crawler's
	// max_url_segments and max_url_params. 0: no limit.
	MaxURLSegments int `yaml:"max_url_segments,omitempty"`
	MaxURLParams   int `yaml:"max_url_params,omitempty"`
	// MaxPathRepeats: a path repeating a sequence of segments more than this many times in a
	// row is a trap (reason trap; standard flavour); unset: a segment 3 times in a row is.
	MaxPathRepeats *int `yaml:"max_path_repeats,omitempty"`
	// Domains are the origins of the elastic flavour, each with its ordered crawl rules and
	// sitemaps (spec/elastic.md §1-3).
	Domains []DomainSpec `yaml:"domains,omitempty"`
	// MaxCrawlDepth bounds the elastic flavour's depth (seeds and sitemap entries are depth 1).
	MaxCrawlDepth *int `yaml:"max_crawl_depth,omitempty"`
	// PlatformRules switches the built-in platform rules (package platform): on unless
	// given; false turns them all off; a map turns rules or platforms on or off by id or name.
	PlatformRules PlatformRules `yaml:"platform_rules,omitempty"`
}

// RuleSpec is a scope rule as written: a "kind:value" string or a map of matchers.
type RuleSpec struct {
	Text string            // the string form, when written as a string
	Map  map[string]string // the map form, when written as a map
}

// UnmarshalYAML accepts both forms.
func (r *RuleSpec) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		r.Text = n.Value
		return nil
	case yaml.MappingNode:
		return n.Decode(&r.Map)
	}
	return fmt.Errorf("line %d: a rule is a `kind:value` string or a map of matchers", n.Line)
}

// MarshalYAML writes the rule back in the form it was written in.
func (r RuleSpec) MarshalYAML() (any, error) {
	if r.Map != nil {
		return r.Map, nil
	}
	return r.Text, nil
}

// Rule parses the rule.
func (r RuleSpec) Rule() (scope.Rule, error) {
	if r.Map != nil {
		return scope.RuleFromMap(r.Map)
	}
	return scope.ParseRule(r.Text)
}

// String renders the rule as written.
func (r RuleSpec) String() string {
	if r.Map == nil {
		return r.Text
	}
	keys := make([]string, 0, len(r.Map))
	for k := range r.Map {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + r.Map[k]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Limits bound a crawl. Zero means no limit.
type Limits struct {
	// URLs is the most URLs fetched (responses received), over the whole crawl including resumes.
	URLs int64 `yaml:"urls,omitempty"`
	// Time bounds one run of `amber crawl`.
	Time time.Duration `yaml:"time,omitempty"`
	// Bytes is the most response bytes downloaded, over the whole crawl.
	Bytes ByteSize `yaml:"bytes,omitempty"`
	// ResponseSize bounds one response's raw bytes; a longer one is kept truncated.
	ResponseSize ByteSize `yaml:"response_size,omitempty"`
	// MaxOutlinks is the most distinct URLs one page may add to the crawl; 0: 6,000, as
	// Heritrix.
	MaxOutlinks int `yaml:"max_outlinks,omitempty"`
	// URLsPerHost is the most URLs of one host fetched, over the whole crawl (FAST's max_doc);
	// the host's further URLs are left out with reason max-doc. 0: no limit.
	URLsPerHost int64 `yaml:"urls_per_host,omitempty"`
	// Oversize says what becomes of a page cut at response_size: "truncate" (the default:
	// archived as cut, WARC-Truncated: length, and read as far as it goes) or "drop"
	// (archived as cut, but neither its links nor its search document are used; FAST's
	// truncate=no).
	Oversize string `yaml:"oversize,omitempty"`
	// MinFreeSpace stops the crawl cleanly when the crawl directory's filesystem has less free:
	// a size (e.g. 5GB), "auto" (1 GiB, or 1% of the filesystem if smaller) or "off".
	MinFreeSpace string `yaml:"min_free_space,omitempty"`
	// Memory is the crawl process's soft memory limit (Go's runtime/debug.SetMemoryLimit: the
	// garbage collector works harder as the process nears it; it is not a cap): a size or
	// "off"; default 96MiB. GOMEMLIMIT in the environment wins over it.
	Memory string `yaml:"memory,omitempty"`
}

// Politeness spaces requests to one host.
type Politeness struct {
	// HostDelay is the pause between the end of one fetch and the start of the next on the same
	// host; 0s is no pause. robots.txt Crawl-delay raises it for that host.
	HostDelay *time.Duration `yaml:"host_delay,omitempty"`
	// HostConcurrency is how many requests may be open to one host at once.
	HostConcurrency int `yaml:"host_concurrency,omitempty"`
	// PerIP spaces requests by address as well as by host: host names that resolve to one
	// address share host_delay and host_concurrency as one host (FAST's enforce_delay_per_ip).
	PerIP bool `yaml:"per_ip,omitempty"`
	// IgnoreRobots skips robots.txt (and, later, robots meta tags).
	IgnoreRobots bool `yaml:"ignore_robots,omitempty"`
	// MaxAttempts is how often a URL is tried on network errors and 5xx.
	MaxAttempts int `yaml:"max_attempts,omitempty"`
	// Retries are how many times a URL is tried again after a condition, {condition: n}
	// (FAST's http_errors RETRY:n): a status code, X standing for any digit ("503", "5XX",
	// "4XX"), net (no response: DNS, connect, broken connection), ttl (a timeout) or int
	// (amber's own failure: the browser could not load the page). The most specific condition
	// wins (fewest X; "503" over "50X" over "5XX"); a response or failure no condition names
	// keeps max_attempts (network errors, 5xx and 429 retried, other statuses not). 0: not
	// retried. See ParseRetryCondition.
	Retries map[string]int `yaml:"retries,omitempty"`
	// RetryDelay is the wait before the first retry; it doubles with each attempt.
	RetryDelay time.Duration `yaml:"retry_delay,omitempty"`
	// MaxHostFailures gives a host up once more than this many of its requests in a row got
	// no response (network errors, timeouts): its other URLs fail without a request, with
	// annotation host-given-up (FAST's max_backoff_counter). 0: never.
	MaxHostFailures int `yaml:"max_host_failures,omitempty"`
	// MaxBackoff is the longest retry delay of a URL, and turns host backoff on: a host whose
	// request got no response is paused for retry_delay doubled per failure in a row, at
	// most this (FAST's max_backoff_delay). 0: retry delays uncapped, no host backoff.
	MaxBackoff time.Duration `yaml:"max_backoff,omitempty"`
	// HostDelays are per-host delays between requests (host[:port] as in the URL, lowercase):
	// each replaces host_delay and robots.txt Crawl-delay for its host, lower or higher. amber
	// ctl host-delay records them here so a resumed crawl keeps them.
	HostDelays map[string]time.Duration `yaml:"host_delays,omitempty"`
	// DelaySchedule is a weekly schedule of the crawl's delay (FAST's variable_delay): slots
	// that set the delay in place of host_delay, or suspend the crawl (DelaySlot). Where slots
	// overlap, suspend wins, then the longest delay.
	DelaySchedule []DelaySlot `yaml:"delay_schedule,omitempty"`
	// DelayScheduleZone is the time zone of delay_schedule's times: an IANA name such as
	// Europe/Oslo, or UTC. Default: the machine's local zone.
	DelayScheduleZone string `yaml:"delay_schedule_zone,omitempty"`
	// MaxSites is the most hosts crawled at once (FAST's max_sites): a host is crawled from its
	// first URL until its queue is empty; others wait in line. 0: no bound.
	MaxSites int `yaml:"max_sites,omitempty"`
	// MaxInterDocs sends a host back behind the waiting ones after this many of its URLs while
	// others wait (FAST's max_inter_docs: interleaving). Needs max_sites. 0: no bound.
	MaxInterDocs int `yaml:"max_inter_docs,omitempty"`
	// Priority sets priority levels of the queue (FAST's workqueue_priority; see Priority).
	// Default: one level.
	Priority *Priority `yaml:"priority,omitempty"`
}

// Robots says how robots.txt and robots meta tags are read (robots.Config has the
// details). Zero values are amber's defaults.
type Robots struct {
	// TTL is how long a host's robots.txt is trusted before it is fetched (and archived)
	// again (FAST's robots_ttl). 0: 24h.
	TTL time.Duration `yaml:"ttl,omitempty"`
	// Timeout bounds a robots.txt request, within the network timeouts (FAST's
	// robots_timeout). 0: the network timeouts only.
	Timeout time.Duration `yaml:"timeout,omitempty"`
	// AllowOnTimeout: a robots.txt request that times out allows the whole host (FAST's
	// robots_tout_ignore). Default: disallowed for now, asked again later.
	AllowOnTimeout bool `yaml:"allow_on_timeout,omitempty"`
	// DisallowOnAuth: a robots.txt answered 401 or 403 disallows the whole host (FAST's
	// robots_auth_ignore=no). Default: any 4xx allows all (RFC 9309).
	DisallowOnAuth bool `yaml:"disallow_on_auth,omitempty"`
	// IgnoreMeta does not obey <meta name=robots> noindex and nofollow (FAST's
	// check_meta_robots=no).
	IgnoreMeta bool `yaml:"ignore_meta,omitempty"`
	// IgnoreCrawlDelay does not obey robots.txt Crawl-delay (FAST's obey_robots_delay=no).
	IgnoreCrawlDelay bool `yaml:"ignore_crawl_delay,omitempty"`
}

// Network holds connection settings.
type Network struct {
	// AllowPrivate lets the crawl connect to loopback and private addresses (refused by default).
	AllowPrivate bool `yaml:"allow_private,omitempty"`
	// ConnectTo maps host:port pairs to other addresses, curl's --connect-to syntax.
	ConnectTo []string `yaml:"connect_to,omitempty"`
	// VerifyTLS refuses sites with invalid certificates (default: capture them, record the problem).
	VerifyTLS bool `yaml:"verify_tls,omitempty"`
	// ClientCert and ClientKey are PEM files (relative to the config file) of a TLS client
	// certificate and its unencrypted private key, offered to https servers that ask for one,
	// by both fetchers (FAST's cert_file, key_file). Both or neither.
	ClientCert string `yaml:"client_cert,omitempty"`
	ClientKey  string `yaml:"client_key,omitempty"`
	// CACertificates are certificate authorities trusted besides the system's when
	// certificates are verified (verify_tls), by both fetchers: each a PEM file (relative
	// to the config file) or PEM text (Elastic's ssl_ca_certificates).
	CACertificates []string `yaml:"ca_certificates,omitempty"`
	// Timeouts: connect, first byte, whole response.
	ConnectTimeout   time.Duration `yaml:"connect_timeout,omitempty"`
	FirstByteTimeout time.Duration `yaml:"first_byte_timeout,omitempty"`
	ResponseTimeout  time.Duration `yaml:"response_timeout,omitempty"`
}

// WARC holds WARC output settings.
type WARC struct {
	// Prefix starts every WARC file name; unset, the collection name.
	Prefix string `yaml:"prefix,omitempty"`
	// MaxSize rotates files at this size.
	MaxSize ByteSize `yaml:"max_size,omitempty"`
}

// ByteSize is a number of bytes, written as a number or with a unit (KB, MB, GB, KiB, MiB, GiB).
type ByteSize int64

// UnmarshalYAML accepts a number or a string with a unit.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseByteSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*b = v
	return nil
}

// ParseByteSize parses "1234", "10KB", "1.5GB", "100MiB" (case-insensitive; B optional).
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	units := []struct {
		suffix string
		mult   float64
	}{
		{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"B", 1},
	}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			mult = u.mult
			t = strings.TrimSpace(strings.TrimSuffix(t, u.suffix))
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || f*mult > 1<<62 {
		return 0, fmt.Errorf("%w: %q is not a size (like 1000, 10MB or 1GiB)", ErrConfig, s)
	}
	return ByteSize(f * mult), nil
}

// Load reads a YAML crawl configuration. Unknown keys are errors (a misspelt key must not
// silently do nothing). A seeds_file is read relative to the config's directory and its seeds are
// appended to Seeds; relative dedup_from and recrawl_of paths are resolved against that
// directory.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return LoadData(data, path)
}

// LoadData is Load for the contents data of the file at path.
func LoadData(data []byte, path string) (*File, error) {
	c, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	if c.SeedsFile != "" {
		p := c.SeedsFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(path), p)
		}
		ss, err := seeds.ParseFile(p)
		if err != nil {
			return nil, fmt.Errorf("%s: seeds_file: %w", path, err)
		}
		for _, s := range ss {
			c.Seeds = append(c.Seeds, SeedSpec{URL: s.URL, Type: string(s.Type)})
		}
		c.SeedsFile = ""
	}
	for i, p := range c.DedupFrom {
		c.DedupFrom[i] = relativeTo(path, p)
	}
	c.RecrawlOf = relativeTo(path, c.RecrawlOf)
	for i, p := range c.URLs.MirrorFiles {
		c.URLs.MirrorFiles[i] = relativeTo(path, p)
	}
	c.Network.ClientCert = relativeTo(path, c.Network.ClientCert)
	c.Network.ClientKey = relativeTo(path, c.Network.ClientKey)
	for i, p := range c.Network.CACertificates {
		if !isPEM(p) {
			c.Network.CACertificates[i] = relativeTo(path, p)
		}
	}
	return c, nil
}

// relativeTo resolves p, a path written in the config file at path, against the file's
// directory; an absolute or empty p is returned as it is.
func relativeTo(path, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(path), p)
}

// Parse parses a YAML crawl configuration; name is used in error messages.
func Parse(data []byte, name string) (*File, error) {
	var c File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	// An empty document decodes to io.EOF: an empty config is valid.
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %s: %v", ErrConfig, name, err)
	}
	r, err := CheckRetries(c.Politeness.Retries)
	if err != nil {
		return nil, fmt.Errorf("%s: politeness: %w", name, err)
	}
	c.Politeness.Retries = r
	if _, err := c.Politeness.Schedule(); err != nil {
		return nil, fmt.Errorf("%s: politeness: %w", name, err)
	}
	return &c, nil
}

// Marshal renders the configuration as YAML (the effective configuration, crawl.yaml).
func (c *File) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("config: marshal: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("config: marshal: %w", err)
	}
	return buf.Bytes(), nil
}

// ScopeConfig builds the scope configuration from the seeds and rules, with errors that name the
// rule and where it came from. defaultFlavour applies when the config does not set one.
func (c *File) ScopeConfig(defaultFlavour scope.Flavour) (scope.Config, error) {
	sc := scope.Config{Flavour: defaultFlavour, MaxHops: c.Scope.MaxHops, MaxHopsOff: c.Scope.MaxHopsOff,
		MaxURLLength: c.Scope.MaxURLLength, MaxPathRepeats: c.Scope.MaxPathRepeats,
		MaxURLSegments: c.Scope.MaxURLSegments, MaxURLParams: c.Scope.MaxURLParams}
	if c.Scope.MaxURLLength < 0 || c.Scope.MaxURLSegments < 0 || c.Scope.MaxURLParams < 0 {
		return sc, fmt.Errorf("%w: scope.max_url_length, max_url_segments and max_url_params must not be negative", ErrConfig)
	}
	switch c.Scope.Flavour {
	case "":
		if len(c.Scope.Domains) > 0 {
			sc.Flavour = scope.Elastic // domains are the elastic flavour's
		}
	case string(scope.Standard), string(scope.Brozzler), string(scope.Elastic):
		sc.Flavour = scope.Flavour(c.Scope.Flavour)
	default:
		return sc, fmt.Errorf("%w: scope.flavour %q: want standard, brozzler or elastic", ErrConfig, c.Scope.Flavour)
	}
	var err error
	if sc.Domains, err = DomainsScope(c.Scope.Domains); err != nil {
		return sc, fmt.Errorf("scope.domains: %w", err)
	}
	sc.MaxCrawlDepth = c.Scope.MaxCrawlDepth
	if sc.Accept, err = parseRules(c.Scope.Accept, "scope.accept"); err != nil {
		return sc, err
	}
	if sc.Block, err = parseRules(c.Scope.Block, "scope.block"); err != nil {
		return sc, err
	}
	if len(c.AllSeeds()) == 0 {
		return sc, fmt.Errorf("%w: no seeds", ErrConfig)
	}
	for i, s := range c.AllSeeds() {
		where := fmt.Sprintf("seeds[%d] (%s)", i, s.URL)
		if err := seeds.CheckURL(s.URL); err != nil {
			return sc, fmt.Errorf("%s: %w", where, err)
		}
		t, err := scope.ParseSeedType(s.Type)
		if err != nil {
			return sc, fmt.Errorf("%w: %s: %w", ErrConfig, where, err)
		}
		seed := scope.Seed{URL: s.URL, Type: t, MaxHops: s.MaxHops, MaxHopsOff: s.MaxHopsOff, RedirectedFrom: s.RedirectedFrom}
		if s.RedirectedFrom != "" {
			if err := seeds.CheckURL(s.RedirectedFrom); err != nil {
				return sc, fmt.Errorf("%s: redirected_from: %w", where, err)
			}
		}
		if seed.Accept, err = parseRules(s.Accept, where+".accept"); err != nil {
			return sc, err
		}
		if seed.Block, err = parseRules(s.Block, where+".block"); err != nil {
			return sc, err
		}
		sc.Seeds = append(sc.Seeds, seed)
	}
	if sc.Flavour == scope.Elastic && len(sc.Domains) == 0 {
		// No domains given: each seed's origin is one, with no crawl rules (as an Elastic
		// domain whose entry point is the seed).
		origins, err := c.SeedOrigins()
		if err != nil {
			return sc, err
		}
		for _, o := range origins {
			sc.Domains = append(sc.Domains, scope.Domain{URL: o})
		}
	}
	return sc, nil
}

func parseRules(specs []RuleSpec, where string) ([]scope.Rule, error) {
	var out []scope.Rule
	for i, s := range specs {
		r, err := s.Rule()
		if err != nil {
			return nil, fmt.Errorf("%w: %s[%d] %s: %w", ErrConfig, where, i, s, err)
		}
		out = append(out, r)
	}
	return out, nil
}

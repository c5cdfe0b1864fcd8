// Package crawl runs a crawl: the run loop and its workers, each claimed URL taken through one
// chain of processors (package chain; the order is chain.go's, the README's "What amber
// does"), the records written of what came of it (records.go: WARC records, CDXJ, crawl.log,
// events, its search document) and the decision on what it points at (decide.go: rewritten,
// canonicalised, scoped, queued). The policies are processors of their own packages (robots,
// sitelimit, addrgate, listing, contentfilter, subcoll, post, prior, retry, login, content);
// crawl builds them from its Config and runs them in order, and knows none of their rules.
// Its configuration is Config, built from the file model by package config; it never reads
// YAML. The frontier is its own (badger, in D/state) or a shared one (Config.Shared).
//
// What runs beside a crawl and steers or shows it (live control, package ctl; the status
// server, package live) is a Service of the run (Config.Services), which acts on it through
// the run's Handle: the pause gate, the URL limit, seeds and block rules, operators' host
// delays, stopping the run, its figures (Snapshot) and what goes through it (Observer). The
// crawl itself listens on no socket and serves no HTTP; it writes crawl.yaml once at the start
// of a run (Config.EffectiveConfig) and never reads or rewrites it.
package crawl

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/contentfilter"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/feed"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/listing"
	"github.com/amber-crawler/amber/login"
	"github.com/amber-crawler/amber/patch"
	"github.com/amber-crawler/amber/platform"
	"github.com/amber-crawler/amber/post"
	"github.com/amber-crawler/amber/retry"
	"github.com/amber-crawler/amber/robots"
	"github.com/amber-crawler/amber/schedule"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/sitelimit"
	"github.com/amber-crawler/amber/sitemap"
	"github.com/amber-crawler/amber/subcoll"
)

// ErrConfig is wrapped by every configuration error Validate (and Run) reports; the error is a
// *FieldError that names the field.
var ErrConfig = errors.New("crawl: invalid config")

// FieldError reports an invalid Config field. It matches ErrConfig with errors.Is, and Err (what
// is wrong with the value) too.
type FieldError struct {
	Field string // the Config field, as written in Go: "Workers", "Scope.Seeds", "Fetch.UserAgent"
	Err   error
}

// Error reads "crawl: invalid config: Workers: must be positive".
func (e *FieldError) Error() string { return fmt.Sprintf("%v: %s: %v", ErrConfig, e.Field, e.Err) }

// Unwrap returns ErrConfig and the field's error.
func (e *FieldError) Unwrap() []error { return []error{ErrConfig, e.Err} }

// DefaultUserAgent names amber and says where a site owner finds out about the crawl. Real
// crawls should name their own contact (amber crawl --user-agent, or user_agent in the config).
const DefaultUserAgent = "Mozilla/5.0 (compatible; amber/0.1; +https://github.com/amber-crawler/amber; contact: set --user-agent)"

// DefaultConfig returns the defaults of every Config field that has one; it is the only place
// they are set. A caller (the command line) starts from it, overlays what the archivist chose,
// and calls Validate. The politeness defaults are those of Heritrix and Browsertrix: one request
// at a time per host, a second between requests.
func DefaultConfig() Config {
	return Config{
		Collection:      "amber",
		Software:        "amber",
		Workers:         8,
		HostDelay:       time.Second,
		HostConcurrency: 1,
		MaxAttempts:     3,
		RetryDelay:      10 * time.Second,
		Robots:          robots.Config{TTL: 24 * time.Hour},
		Fetcher:         FetcherHTTP,
		Browser:         browser.Config{Screenshot: true},
		Fetch:           fetch.Config{UserAgent: DefaultUserAgent},
		WARCMaxSize:     1e9,
		MinFreeSpace:    0, // 1 GiB, or 1% of the filesystem if smaller
		MaxOutlinks:     DefaultMaxOutlinks,
		ProgressEvery:   5 * time.Second,
		Sitemaps:        listing.Sitemaps{Limits: sitemap.DefaultLimits()},
		Feeds:           listing.Feeds{Limits: feed.DefaultLimits()},
	}
}

// PostPayload makes the requests for some URLs POST requests with a body (FAST's
// post_payload; package post).
type PostPayload = post.Payload

// DelaySchedule is Config.DelaySchedule: slots of the week and their time zone (package
// schedule).
type DelaySchedule = schedule.Schedule

// Clock is the time of the delay schedule (Config.Clock): now, and a channel that receives
// once d has passed.
type Clock = schedule.Clock

// DefaultMaxOutlinks is the default of Config.MaxOutlinks, Heritrix's maxOutlinks.
const DefaultMaxOutlinks = 6000

// Config is everything one crawl needs. Start from DefaultConfig, which holds the default of
// every field that has one (given below as "Default"); Validate says what is wrong with a Config.
type Config struct {
	// Dir is the crawl directory (design §3). Required.
	Dir string
	// Collection names the crawl in warcinfo, events and reports. Default "amber".
	Collection string
	// Operator and Description go into warcinfo. Optional.
	Operator, Description string
	// Software names the crawler in warcinfo and events. Default "amber".
	Software string
	// EffectiveConfig is the YAML written to crawl.yaml and into warcinfo. Optional.
	EffectiveConfig []byte

	// Scope is the scope configuration, seeds included. Scope.Seeds are the crawl's seeds; at
	// least one is required.
	Scope scope.Config
	// Platforms are the platform rules (package platform): hosts recognised as MediaWiki,
	// WordPress, ... from their responses, and their no-content URLs left out (reason
	// platform:ID). Default: every built-in rule on. Platforms.Flavour is Scope.Flavour's.
	Platforms platform.Config

	// Workers is the number of URLs fetched at once. Default 8; must be positive.
	Workers int
	// HostDelay is the pause between two fetches on one host. Default 1s; zero: no pause.
	HostDelay time.Duration
	// HostDelays are operators' delays for single hosts (host[:port], as in URLs, lowercase),
	// set with amber ctl host-delay and kept in crawl.yaml (politeness.host_delays): each
	// replaces HostDelay and robots.txt Crawl-delay for its host. Default none; not negative.
	HostDelays map[string]time.Duration
	// DelaySchedule is a weekly schedule of the crawl's delay (FAST's variable_delay): while a
	// slot is in force its delay replaces HostDelay (robots.txt Crawl-delay still raises it for
	// its host, HostDelays still replace it), or it suspends the crawl: no URL is claimed (see
	// package schedule for the order of these rules). Slots are made with timeslot.Parse; times
	// are in DelaySchedule.Zone, the machine's local zone when nil. Default none.
	DelaySchedule DelaySchedule
	// MaxSites is the most hosts crawled at once (FAST's max_sites): a host is being crawled
	// from its first claim until its queue is empty and its claims are finished; other hosts
	// wait in line for a place. Default 0: no bound.
	MaxSites int
	// MaxInterDocs interleaves the sites (FAST's max_inter_docs): a host that had this many
	// URLs claimed while others wait for a place goes back behind them. It needs MaxSites.
	// Default 0: a host keeps its place until its queue is empty.
	MaxInterDocs int
	// Clock is the time the delay schedule follows. Default nil: the machine's clock (tests
	// set their own).
	Clock Clock

	// Priority sets priority levels of the queue (FAST's workqueue_priority; priority.go).
	// Default: one level.
	Priority Priority
	// HostConcurrency is the most requests open to one host at once. Default 1; must be positive.
	HostConcurrency int
	// PerIP spaces requests by address as well as by host (FAST's enforce_delay_per_ip): the
	// hosts whose names resolve to one address share HostDelay (each host's own, HostDelays)
	// and HostConcurrency as one host would, in this process (ipgate.go). A page's
	// subresources loaded by the browser, robots.txt and login requests are not held back.
	// Ignored with a proxy (the addresses are the proxy's to know). Default false.
	PerIP bool
	// MaxAttempts is how often a URL is tried on network errors and 5xx. Default 3; must be
	// positive.
	MaxAttempts int
	// Retries, {condition: n}, say how many times a URL is tried again after a condition
	// (FAST's http_errors RETRY:n): a status code with X for any digit ("503", "5XX"), net
	// (no response: DNS, connect, broken connection), ttl (a timeout) or int (the browser
	// could not load the page); the most specific status condition wins. What no condition
	// names keeps MaxAttempts (network errors, 5xx and 429 retried, other statuses not). 0:
	// not retried. Conditions as retry.Check accepts them. Default none.
	Retries map[string]int
	// RetryDelay is the wait before the first retry, doubled for each later one. Default 10s;
	// must be positive.
	RetryDelay time.Duration
	// IgnoreRobots skips robots.txt. Default false.
	IgnoreRobots bool
	// Robots configures robots.txt and robots meta tags when they are obeyed (robots.Config):
	// how long a robots.txt is trusted, its timeout, what a timeout or a 401/403 means, and
	// whether robots meta and Crawl-delay are obeyed. Default: TTL 24h, the rest off.
	Robots robots.Config
	// Sites bounds each host (sitelimit.Config): URLs fetched, failures in a row before it is
	// given up, the longest backoff. Default: no bounds.
	Sites sitelimit.Config

	// LimitURLs stops the crawl after this many URLs were fetched (all runs together). Default
	// 0: no limit.
	LimitURLs int64
	// LimitBytes stops the crawl after this many response bytes (all runs together). Default
	// 0: no limit.
	LimitBytes int64
	// TimeLimit stops this run after the duration. Default 0: no limit.
	TimeLimit time.Duration
	// DropOversize drops a page cut at Fetch.MaxResponseSize (FAST's truncate=no): its
	// capture is archived as it was cut (WARC-Truncated: length; the bytes were downloaded,
	// and an archive keeps what it saw), its crawl.log line says dropped:oversize and its
	// metadata record "dropped: oversize", but nothing is read from it: no links are followed
	// and no search document is written. It applies to the URL's own response (with the
	// browser fetcher, the page's document), not to the embeds a browser loads with a page.
	// Default false: a cut page is used as far as it goes.
	DropOversize bool
	// SessionCookieTTL is how long a session cookie (one without Expires or Max-Age) stays
	// in the cookie jar (Fetch.Jar) from when a site first set it with its value (FAST's
	// cookie_timeout); a cookie with its own expiry keeps it. It applies to the jar both
	// fetchers share, not to the cookies Chromium keeps itself. Default 0: for the whole run.
	SessionCookieTTL time.Duration
	// PostPayloads make the requests for some URLs POST requests with a body (PostPayload:
	// FAST's post_payload): exact URLs, or prefixes, the exact URL winning, then the longest
	// prefix. With the browser fetcher such a URL is fetched by the plain HTTP client (a page
	// load is a GET) and read as the plain fetcher reads it. Default none.
	PostPayloads []PostPayload
	// Content says which responses the crawl reads, by MIME type and header fields
	// (contentfilter.Config: FAST's allowed_types, uri_search_mime, exclude_headers); every response
	// is archived. Default: all of them.
	Content contentfilter.Config

	// Fetcher is FetcherHTTP (default) or FetcherBrowser: pages loaded in headless Chromium,
	// every request recorded through the same HTTP client.
	Fetcher string
	// Browser configures the browser fetcher (Client, Block and Logger are set by the crawl).
	// Default: screenshots on; the other zero fields take the browser package's defaults.
	Browser browser.Config

	// Fetch configures the HTTP client (user agent, address guard, timeouts, size limit).
	// Default: UserAgent DefaultUserAgent (required); the other zero fields take the fetch
	// package's defaults.
	Fetch fetch.Config

	// WARCPrefix starts WARC file names; it must not contain a path separator. Default empty:
	// the Collection.
	WARCPrefix string
	// WARCMaxSize rotates WARC files at this size in bytes. Default 1e9; must be positive.
	WARCMaxSize int64
	// MinFreeSpace is the free space, in bytes, the crawl keeps on the filesystem of the crawl
	// directory (and of its WARC directory, when that is another one). It is checked every
	// second and before every WARC write; below it the crawl stops claiming URLs, lets the
	// captures in flight finish, closes its files and ends with EndDiskFull and an error
	// wrapping ErrDiskFull. Run the crawl again once there is room to resume it. A write that
	// fails for want of room (ENOSPC) ends the crawl the same way. Default 0: 1 GiB, or 1% of
	// the filesystem when that is smaller (EffectiveMinFreeSpace); negative: no check.
	MinFreeSpace int64

	// Documents configures the search documents written to documents.jsonl (limits, content
	// hash fields, binary types); zero values are the Elastic reference's defaults.
	Documents extract.DocConfig
	// NoDocuments turns the search-document stream off. Default false.
	NoDocuments bool
	// NoDocumentDedup writes a document for every page, duplicates included. Default false.
	NoDocumentDedup bool

	// MaxOutlinks is the most distinct URLs (after canonicalisation) one page may point at:
	// those beyond are neither queued, nor scoped, nor listed in the page's metadata record,
	// which counts them (outlinksDropped) as the page's crawl.log line does
	// (outlinks-capped:N). Embeds, redirects and the inferred favicon are kept before links,
	// which are kept in document order: the cap never costs a page the resources it needs to
	// replay. It bounds the memory a page of links takes. Default 6,000 (DefaultMaxOutlinks,
	// as Heritrix); must be positive.
	MaxOutlinks int

	// Sitemaps configures sitemaps: robots.txt Sitemap: lines, sitemap files to fetch, and
	// their limits (listing.Sitemaps). Default: off, the sitemaps.org limits.
	Sitemaps listing.Sitemaps
	// URLs configures what is done to the URLs pages point at (URLConfig): sorted query
	// parameters, rewrite rules, meta refreshes as links, a redirect chain limit. Default:
	// none of them.
	URLs URLConfig
	// Feeds configures RSS and Atom feeds (listing.Feeds). Default: none, 128 links each.
	Feeds listing.Feeds

	// DedupFrom lists earlier crawls whose captures this crawl does not store again: crawl
	// directories, CDXJ index files or WACZ files. A response (2xx, payload not empty, not
	// truncated) whose payload digest an earlier capture of theirs has is written as a revisit
	// (identical-payload-digest) referring to that capture's URI and date, as a payload captured
	// earlier in this crawl is, and counted as a duplicate. Their indexes are read once into the
	// crawl's state, by the first run that names them. Default none.
	DedupFrom []string
	// RecrawlOf is an earlier crawl of the same sites, a crawl directory or a WACZ file: a URL
	// it captured (2xx) whose response had an ETag or a Last-Modified is requested with
	// If-None-Match and If-Modified-Since, and a 304 is written as a revisit
	// (server-not-modified) referring to that capture. Pages and style sheets (HTML, XHTML,
	// CSS, or no Content-Type), which the crawl reads links from, are not asked for
	// conditionally (a 304 has no body), nor are robots.txt and sitemap files. Its captures
	// deduplicate as DedupFrom's do. Its seeds and scope are not used. Default none.
	RecrawlOf string

	// ProgressEvery is how often a progress line is logged. Default 5s; negative: never; zero
	// is invalid.
	ProgressEvery time.Duration
	// LiveStatus, when set (a terminal), gets a status line rewritten every second instead of
	// logged progress lines. Default nil.
	LiveStatus io.Writer

	// Logins are HTML form logins (login.Spec, FAST's Login), made before the first page of
	// their sites is fetched, with either fetcher, and again when their TTL has passed or a
	// page answers logged out (ReloginIfFailed). Default: none.
	Logins []login.Spec
	// ClientCert and ClientKey are the PEM files of a TLS client certificate and its
	// unencrypted private key, read when the crawl starts (an error then if they cannot be
	// read or do not match) and offered to https servers that ask for a client certificate,
	// by both fetchers (FAST's cert_file, key_file). Both or neither. Default none.
	ClientCert, ClientKey string

	// Subcollections are named parts of the crawl whose own settings apply to the URLs their
	// rules take (subcoll.Subcollection: FAST's crawl subcollections), the first that takes a URL
	// winning. Default none.
	Subcollections []subcoll.Subcollection

	// Shared is a frontier shared with the crawl's other processes (frontier.Shared; in
	// Redis, redisfront.Shared), opened in place of the crawl's own. Default nil: the crawl's
	// own frontier in D/state.
	Shared frontier.Shared

	// Patch, when not empty, makes the run a patch crawl of the crawl in Dir (docs/qa.md): each
	// URL is decided by the scope as an embed of its page (hop E after the page's hops, the
	// page as via, its seed) and queued if the crawl does not know it; the run captures them
	// politely into new WARC files, with their redirects and embeds but nothing they link to
	// (patch.Links), unbound by LimitURLs and LimitBytes. The crawl must have nothing queued
	// (ErrPatchQueued) nor be Shared; a finished crawl is reopened and finished again, an
	// interrupted patch resumes as one. Result.Patch says what was queued. Default none.
	Patch []patch.URL

	// Services run beside each run and act on it through its Handle (Service): live control,
	// the status server. They start in order once the run is open, before its first claim.
	// Default none.
	Services []Service

	// Logger receives operational messages. Default nil: discarded.
	Logger *slog.Logger
}

// Validate reports the first invalid field as a *FieldError (which wraps ErrConfig). It does
// not change c and fills in nothing: a zero Workers is an error here, not a default.
func (c Config) Validate() error {
	for i, l := range c.Logins {
		if err := l.Validate(); err != nil {
			return &FieldError{Field: fmt.Sprintf("Logins[%d]", i), Err: err}
		}
	}
	positive := errors.New("must be positive")
	negative := errors.New("must not be negative")
	checks := []struct {
		field string
		bad   bool
		err   error
	}{
		{"Dir", c.Dir == "", errors.New("required")},
		{"Scope.Seeds", len(c.Scope.Seeds) == 0, errors.New("no seeds")},
		{"Collection", c.Collection == "", errors.New("required")},
		{"Collection", strings.ContainsAny(c.Collection, `/\`), fmt.Errorf("%q: must not contain a path separator", c.Collection)},
		{"Software", c.Software == "", errors.New("required")},
		{"Workers", c.Workers <= 0, positive},
		{"HostDelay", c.HostDelay < 0, negative},
		{"HostDelays", slices.ContainsFunc(slices.Collect(maps.Values(c.HostDelays)), func(d time.Duration) bool { return d < 0 }), negative},
		{"HostConcurrency", c.HostConcurrency <= 0, positive},
		{"MaxAttempts", c.MaxAttempts <= 0, positive},
		{"RetryDelay", c.RetryDelay <= 0, positive},
		{"LimitURLs", c.LimitURLs < 0, negative},
		{"LimitBytes", c.LimitBytes < 0, negative},
		{"TimeLimit", c.TimeLimit < 0, negative},
		{"SessionCookieTTL", c.SessionCookieTTL < 0, negative},
		{"Fetcher", c.Fetcher != FetcherHTTP && c.Fetcher != FetcherBrowser,
			fmt.Errorf("%q: want %s or %s", c.Fetcher, FetcherHTTP, FetcherBrowser)},
		{"Fetch.UserAgent", strings.TrimSpace(c.Fetch.UserAgent) == "", errors.New("required")},
		{"WARCPrefix", strings.ContainsAny(c.WARCPrefix, `/\`), fmt.Errorf("%q: must not contain a path separator", c.WARCPrefix)},
		{"WARCMaxSize", c.WARCMaxSize <= 0, positive},
		{"MaxOutlinks", c.MaxOutlinks <= 0, positive},
		{"ProgressEvery", c.ProgressEvery == 0, errors.New("must not be zero (negative: never)")},
		{"MaxSites", c.MaxSites < 0, negative},
		{"MaxInterDocs", c.MaxInterDocs < 0, negative},
	}
	for _, ck := range checks {
		if ck.bad {
			return &FieldError{Field: ck.field, Err: ck.err}
		}
	}
	if err := c.validateShared(); err != nil {
		return err
	}
	if slices.Contains(c.DedupFrom, "") {
		return &FieldError{Field: "DedupFrom", Err: errors.New("empty path")}
	}
	if err := c.URLs.validate(); err != nil {
		return err
	}
	if err := c.Robots.Validate(); err != nil {
		return policyField("Robots", err)
	}
	if err := c.Sites.Validate(); err != nil {
		return policyField("Sites", err)
	}
	if err := c.Feeds.Validate(); err != nil {
		return policyField("Feeds", err)
	}
	if err := subcoll.Validate(c.Subcollections, c.collection()); err != nil {
		return policyField("Subcollections", err)
	}
	if err := c.Content.Validate(); err != nil {
		return policyField("Content", err)
	}
	if err := post.Validate(c.PostPayloads, c.Scope.Flavour); err != nil {
		return policyField("PostPayloads", err)
	}
	if err := validateRetries(c.Retries); err != nil {
		return err
	}
	if err := schedule.Validate(c.DelaySchedule); err != nil {
		return policyField("DelaySchedule", err)
	}
	if err := c.validatePriority(); err != nil {
		return err
	}
	if err := c.Sitemaps.Validate(); err != nil {
		return policyField("Sitemaps", err)
	}
	return nil
}

// policyField is the *FieldError of a policy's configuration section (a *chain.FieldError
// of its own field), as a field of Config.
func policyField(section string, err error) error {
	var fe *chain.FieldError
	if errors.As(err, &fe) {
		if strings.HasPrefix(fe.Field, "[") {
			return &FieldError{Field: section + fe.Field, Err: fe.Err}
		}
		return &FieldError{Field: section + "." + fe.Field, Err: fe.Err}
	}
	return &FieldError{Field: section, Err: err}
}

// collection is the crawl's own settings as its subcollections see them.
func (c *Config) collection() subcoll.Collection {
	return subcoll.Collection{Fetcher: c.Fetcher, Flavour: c.Scope.Flavour, MaxHops: c.Scope.MaxHops, MaxURLLength: c.Scope.MaxURLLength}
}

// derive fills in what follows from other fields once the Config is valid: an empty
// WARCPrefix is the Collection, a nil Logger discards, PostPayloads' URLs are canonical,
// SessionCookieTTL wraps the jar. It sets no defaults: those are
// DefaultConfig's alone.
func (c *Config) derive() {
	if c.WARCPrefix == "" {
		c.WARCPrefix = c.Collection
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.PostPayloads = post.Canonical(c.PostPayloads, c.Scope.Flavour, c.URLs.SortQuery)
	c.Retries, _ = retry.Check(c.Retries) // canonical: Validate checked them
	if c.Shared != nil {
		c.Shared = c.Shared.WithDefaults(c.Collection, c.Dir)
	}
	if c.SessionCookieTTL > 0 && c.Fetch.Jar != nil {
		c.Fetch.Jar = fetch.NewSessionJar(c.Fetch.Jar, c.SessionCookieTTL, time.Now)
	}
}

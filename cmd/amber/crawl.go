package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/contentfilter"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/ctl"
	"github.com/amber-crawler/amber/feed"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/listing"
	"github.com/amber-crawler/amber/live"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/rewrite"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/seeds"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// crawlFlags are the flags of `amber crawl`. Only the flags that were set (crawlArgs.set) are
// applied; the values flags start with are crawl.DefaultConfig's, for the help text only.
type crawlFlags struct {
	dir, config, collection, userAgent, operator string
	seedFiles                                    stringList
	workers, hostConcurrency                     int
	maxSites, maxInterDocs                       int
	hostDelay, timeLimit                         time.Duration
	limit                                        int64
	sizeLimit, warcMaxSize, maxResponseSize      string
	minFreeSpace, memoryLimit                    string
	warcPrefix                                   string
	allowPrivate, ignoreRobots, verifyTLS, quiet bool
	noDocuments, screenshot                      bool
	perIP                                        bool
	fetcher, browserPath                         string
	browserTabs                                  int
	pageTimeout, behaviorTimeout                 time.Duration
	connectTo                                    stringList
	include, exclude                             stringList
	flavour                                      string
	maxHops, maxURLLength, maxOutlinks           int
	maxAttempts                                  int
	retryDelay                                   time.Duration
	logLevel, statusAddr                         string
	cpuProfile, memProfile                       string
	auth, authRaw, headers                       stringList
	proxy                                        string
	noCookies, httpAuthAllowed                   bool
	domains, crawlRules, sitemaps                stringList
	maxCrawlDepth                                int
	sitemapsRobots                               bool
	sortQuery                                    bool
	rewrites, feeds                              stringList
	dedupFrom                                    stringList
	recrawlOf                                    string
	fastDomain                                   string
	strict, wacz                                 bool
	frontier, crawlID, process                   string
	retries                                      stringList
	clientCert, clientKey                        string
}

func newCrawlFlagSet(f *crawlFlags) *flag.FlagSet {
	d := crawl.DefaultConfig()
	fs := flag.NewFlagSet("amber crawl", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, help is printed by printCrawlHelp
	fs.StringVar(&f.dir, "dir", "", "crawl directory; the same --dir resumes an unfinished crawl (default ./crawls/COLLECTION-TIMESTAMP)")
	fs.StringVar(&f.config, "config", "", "crawl config: amber's YAML, an Elastic Open Crawler file or a FAST crawler configuration (XML); flags override it")
	fs.StringVar(&f.fastDomain, "fast-domain", "", "FAST --config: the DomainSpecification `NAME` to crawl (needed when the file has several)")
	fs.BoolVar(&f.strict, "strict", false, "FAST --config: an attrib amber does not do as the file says is an error (attribs about FAST's own processing are not)")
	fs.Var(&f.seedFiles, "seeds", "a seeds `FILE` (one URL [TYPE] per line), in addition to the seeds given as arguments; repeatable")
	fs.StringVar(&f.collection, "collection", d.Collection, "collection name (warcinfo, WARC prefix, default directory name)")
	fs.StringVar(&f.operator, "operator", "", "who runs the crawl, for warcinfo (e.g. \"Jane Doe <jane@example.org>\")")
	fs.IntVar(&f.workers, "workers", d.Workers, "URLs fetched at once across all hosts")
	fs.StringVar(&f.userAgent, "user-agent", d.Fetch.UserAgent, "User-Agent header; put your contact in it")
	fs.DurationVar(&f.hostDelay, "host-delay", d.HostDelay, "pause between requests to one host (0s: none)")
	fs.IntVar(&f.hostConcurrency, "host-concurrency", d.HostConcurrency, "requests open to one host at once")
	fs.IntVar(&f.maxSites, "max-sites", d.MaxSites, "most hosts crawled at once: a host is crawled from its first URL until its queue is empty, others wait in line, like politeness.max_sites (0: no bound)")
	fs.IntVar(&f.maxInterDocs, "max-inter-docs", d.MaxInterDocs, "with --max-sites: a host goes back behind the waiting ones after this many of its URLs, like politeness.max_inter_docs (0: no bound)")
	fs.Int64Var(&f.limit, "limit", d.LimitURLs, "stop after this many URLs fetched (whole crawl; 0: no limit)")
	fs.DurationVar(&f.timeLimit, "time-limit", d.TimeLimit, "stop this run after this long (0: no limit)")
	fs.StringVar(&f.sizeLimit, "size-limit", "", "stop after this many bytes downloaded (whole crawl; e.g. 10GB; default no limit)")
	fs.StringVar(&f.maxResponseSize, "max-response-size", formatByteSize(fetch.DefaultMaxResponseSize), "truncate one response at this size")
	fs.StringVar(&f.minFreeSpace, "min-free-space", "auto", "stop cleanly (and resume later) below this much free disk space: a size, auto (1GiB, or 1% of the filesystem if smaller) or off")
	fs.StringVar(&f.memoryLimit, "memory-limit", formatMemoryLimit(defaultMemoryLimit), "soft memory limit of the crawl process (the Go garbage collector works harder near it; a size or off; GOMEMLIMIT wins)")
	fs.StringVar(&f.warcMaxSize, "warc-max-size", formatByteSize(d.WARCMaxSize), "rotate WARC files at this size")
	fs.StringVar(&f.warcPrefix, "warc-prefix", "", "start WARC file names with this (default: the collection name)")
	fs.BoolVar(&f.allowPrivate, "allow-private", false, "allow loopback and private addresses (refused by default)")
	fs.Var(&f.connectTo, "connect-to", "map `HOST:PORT:ADDR:PORT`: connect to ADDR:PORT for HOST:PORT (curl syntax; empty HOST or PORT matches any; repeatable)")
	fs.Var(&f.auth, "auth", "send Basic credentials to one origin: `ORIGIN=USER:PASSWORD` (PASSWORD may be env:NAME, read from the environment; repeatable; replaces the config's entry of that origin)")
	fs.Var(&f.authRaw, "auth-raw", "send a whole Authorization value to one origin: `ORIGIN=VALUE` (e.g. 'https://api.example.org=Bearer abc'; VALUE may be env:NAME; repeatable)")
	fs.BoolVar(&f.httpAuthAllowed, "http-auth-allowed", false, "send the credentials of --auth, --auth-raw and auth over plain http too (default: https only)")
	fs.Var(&f.headers, "header", "send this header on every request: `'NAME: VALUE'` (repeatable; replaces the config's field of that name)")
	fs.StringVar(&f.proxy, "proxy", "", "send every request through this HTTP proxy, `http://[USER:PASSWORD@]HOST:PORT` (CONNECT tunnels, also for http: the proxy must allow CONNECT to port 80)")
	fs.BoolVar(&f.noCookies, "no-cookies", false, "keep no cookies between requests (default: the crawl keeps the cookies sites set, for both fetchers)")
	fs.BoolVar(&f.ignoreRobots, "ignore-robots", d.IgnoreRobots, "do not fetch or obey robots.txt")
	fs.BoolVar(&f.perIP, "per-ip", d.PerIP, "space requests by address too: hosts on one address share the host delay and concurrency")
	fs.BoolVar(&f.verifyTLS, "verify-tls", d.Fetch.VerifyTLS, "refuse sites whose TLS certificate does not verify (default: capture and record the problem)")
	fs.Var(&f.include, "include", "collection accept `RULE`, kind:value (e.g. surt:http://(org,example,); repeatable")
	fs.Var(&f.exclude, "exclude", "collection block `RULE`, kind:value (e.g. contains:/calendar/); repeatable")
	fs.StringVar(&f.flavour, "flavour", "", "scope flavour: standard, brozzler or elastic (default: elastic with domains, else follows the fetcher)")
	fs.Var(&f.domains, "domain", "elastic flavour: crawl this `ORIGIN` (scheme://host[:port]), like scope.domains; repeatable")
	fs.Var(&f.crawlRules, "crawl-rule", "elastic flavour: add `'POLICY TYPE PATTERN'` (e.g. 'deny begins /blog') after every domain's crawl rules; without domains the seeds' origins become domains; repeatable")
	fs.IntVar(&f.maxCrawlDepth, "max-crawl-depth", scope.DefaultMaxCrawlDepth, "elastic flavour: deepest page, seeds and sitemap entries being depth 1, like scope.max_crawl_depth")
	fs.Var(&f.sitemaps, "sitemap", "fetch this sitemap `URL` at the start and decide every URL in it like a link (any flavour); repeatable")
	fs.BoolVar(&f.sitemapsRobots, "sitemaps-robots", false, "read the Sitemap: lines of robots.txt files, like sitemaps.robots (default: on with the elastic flavour only)")
	fs.BoolVar(&f.sortQuery, "sort-query-params", false, "sort the query parameters of the URLs found by name, like urls.sort_query_params")
	fs.Var(&f.rewrites, "rewrite", "rewrite the URLs found with this FAST `RULE` (*match*replacement*), after the config's urls.rewrite_rules; repeatable")
	fs.Var(&f.feeds, "feed", "read this RSS or Atom feed `URL` at the start and decide its items' links like links, like feeds.urls; repeatable")
	fs.IntVar(&f.maxHops, "max-hops", 0, "most hops (links, embeds, redirects) from a seed, like scope.max_hops (default 100, or the seed type's with the brozzler flavour)")
	fs.IntVar(&f.maxURLLength, "max-url-length", scope.DefaultMaxURLLength, "refuse URLs longer than this, like scope.max_url_length (reason url-too-long)")
	fs.IntVar(&f.maxOutlinks, "max-outlinks", d.MaxOutlinks, "most distinct URLs one page adds to the crawl (the rest are counted, not queued)")
	fs.IntVar(&f.maxAttempts, "max-attempts", d.MaxAttempts, "tries per URL on network errors and 5xx")
	fs.DurationVar(&f.retryDelay, "retry-delay", d.RetryDelay, "wait before the first retry, doubling after")
	fs.Var(&f.retries, "retry", "try a URL again at most N times after this condition, `COND=N`: a status code with X wildcards (503, 5xx), net, ttl (timeout) or int (the browser failed), like politeness.retries; repeatable")
	fs.StringVar(&f.clientCert, "client-cert", "", "offer this TLS client certificate (PEM `FILE`) to https servers that ask for one, with --client-key, like network.client_cert")
	fs.StringVar(&f.clientKey, "client-key", "", "the unencrypted private key (PEM `FILE`) of --client-cert, like network.client_key")
	fs.StringVar(&f.fetcher, "fetcher", d.Fetcher, "http, or browser: load pages in headless Chromium, Brozzler-style")
	fs.StringVar(&f.browserPath, "browser-path", "", "Chromium executable for --fetcher browser (default "+browser.HeadlessShellPath+" when installed, else "+browser.ChromiumPath+")")
	fs.IntVar(&f.browserTabs, "browser-tabs", browser.DefaultTabs, "pages loaded at once by the browser")
	fs.DurationVar(&f.pageTimeout, "page-timeout", browser.DefaultPageTimeout, "bound on one page in the browser; what was captured is kept")
	fs.DurationVar(&f.behaviorTimeout, "behavior-timeout", browser.DefaultBehaviorTimeout, "bound on scrolling a page in the browser")
	fs.BoolVar(&f.screenshot, "screenshot", d.Browser.Screenshot, "store a screenshot of each browser page as a WARC resource record")
	fs.BoolVar(&f.noDocuments, "no-documents", d.NoDocuments, "do not write documents.jsonl (search documents)")
	fs.BoolVar(&f.wacz, "wacz", false, "at the end of a run that finishes or stops at a limit, package the crawl as DIR/COLLECTION.wacz (see 'amber help wacz')")
	fs.Var(&f.dedupFrom, "dedup-from", "do not store again what this earlier crawl captured (a crawl directory, CDXJ file or WACZ `PATH`): write revisits; repeatable")
	fs.StringVar(&f.recrawlOf, "recrawl-of", "", "request what this earlier crawl (a crawl directory or WACZ `PATH`) captured with If-None-Match/If-Modified-Since, write a 304 as a revisit, and deduplicate against it")
	fs.BoolVar(&f.quiet, "quiet", false, "print only warnings and errors (no progress)")
	fs.StringVar(&f.frontier, "frontier", "", "share the crawl's frontier with other amber processes on this Redis `URL` (redis://HOST:PORT/DB, or env:NAME), like frontier.redis; each process has its own --dir")
	fs.StringVar(&f.crawlID, "crawl-id", "", "with --frontier: the crawl's name on the server, the same in every process (default: the collection), like frontier.crawl_id")
	fs.StringVar(&f.process, "process", "", "with --frontier: this process's name among the crawl's processes (default: HOSTNAME-DIRNAME), like frontier.process")
	fs.StringVar(&f.statusAddr, "status-addr", "", "serve Prometheus /metrics, a JSON /status and a live page with control buttons of the running crawl at this address (e.g. 127.0.0.1:9090); off loopback, control needs the token in D/logs/status-token")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to `FILE` (go tool pprof)")
	fs.StringVar(&f.memProfile, "memprofile", "", "write a heap profile to `FILE` when the run ends (go tool pprof)")
	return fs
}

// printCrawlHelp prints the help of `amber crawl`: usage, flags and exit statuses.
func printCrawlHelp(w io.Writer) {
	fmt.Fprint(w, `Usage: amber crawl [flags] [URL | SEEDS_FILE ...]

Runs a crawl into --dir, or resumes the unfinished crawl there. Seeds are the URLs and seeds
files given as arguments or with --seeds, and those of --config; with none of them, --dir's own
crawl.yaml is read. Flags override the config. Flags may come before or after the seeds.

Flags:
`)
	fs := newCrawlFlagSet(&crawlFlags{})
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, "\n"+exitHelp)
}

// isHelpArg reports whether arg asks for help.
func isHelpArg(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// crawlArgs is the parsed command line of `amber crawl`.
type crawlArgs struct {
	flags      crawlFlags
	set        map[string]bool // names of the flags given
	positional []string        // URLs and seeds files
}

// parseCrawlArgs parses the command line. It returns flag.ErrHelp for -h and --help.
func parseCrawlArgs(args []string) (crawlArgs, error) {
	var a crawlArgs
	fs := newCrawlFlagSet(&a.flags)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return a, err
	}
	a.positional = pos
	a.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { a.set[fl.Name] = true })
	return a, nil
}

// parseInterspersed parses flags that may come before, between or after positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// runCrawl is `amber crawl`. Every mistake in the command line or in a file it names is a
// usageError, found before anything is written; the crawl's end other than "finished" is a
// statusError.
func runCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a, err := parseCrawlArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		printCrawlHelp(stdout)
		return nil
	}
	if err != nil {
		return usagef("%w (see 'amber help crawl')", err)
	}
	cfg, cv, err := buildConfig(a)
	if err != nil {
		return finishedOr(a, stdout, usageError{err})
	}
	printConversion(stderr, a.flags.config, cv)
	mem, err := memoryLimit(cfg, a)
	if err != nil {
		return usageError{err}
	}
	ccfg, err := crawlConfig(cfg, a)
	if err != nil {
		return finishedOr(a, stdout, usageError{err})
	}
	if err := setOutput(&ccfg, a, stderr); err != nil {
		return usageError{err}
	}
	if ccfg.Services, err = services(a.flags.statusAddr); err != nil {
		return usageError{err}
	}
	if err := ccfg.Validate(); err != nil {
		return usageError{err}
	}
	if err := checkFetch(ccfg); err != nil {
		return usageError{err}
	}

	if os.Getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(mem)
		defer debug.SetMemoryLimit(prev)
	}
	res, err := runProfiled(ctx, ccfg, a.flags)
	if errors.Is(err, crawl.ErrDiskFull) {
		// Stopped cleanly: say where things are, then why (exit 1).
		printSummary(stdout, ccfg, res)
	}
	if err != nil {
		return err
	}
	printSummary(stdout, ccfg, res)
	if a.flags.wacz && (res.End == crawl.EndFinished || res.End == crawl.EndLimit || res.End == crawl.EndAlreadyFinished) {
		if err := writeWACZ(ctx, ccfg.Dir, "", stdout, stderr); err != nil {
			return err
		}
	}
	return endStatus(res)
}

// buildConfig assembles the crawl configuration in the YAML model, which is what crawl.yaml
// records: the config file (--config, or when resuming with no seeds given, the crawl
// directory's crawl.yaml), the seeds given on the command line, then the scope flags.
func buildConfig(a crawlArgs) (*config.File, *config.Converted, error) {
	cfg, cv, err := loadConfig(a)
	if err != nil {
		return nil, nil, err
	}
	if err := addSeeds(cfg, a.positional, a.flags.seedFiles); err != nil {
		return nil, nil, err
	}
	if len(cfg.AllSeeds()) == 0 {
		return nil, nil, errors.New("no seeds: give URLs, a seeds file, --seeds, or --config with seeds")
	}
	if err := applyScopeFlags(cfg, a); err != nil {
		return nil, nil, err
	}
	if err := applyDomainFlags(cfg, a); err != nil {
		return nil, nil, err
	}
	applySharedFlags(cfg, a)
	if err := applyAccessFlags(cfg, a); err != nil {
		return nil, nil, err
	}
	return cfg, cv, nil
}

// finishedOr returns err, unless the command only names a crawl directory to resume (no
// --config, no seeds) and the crawl there has finished: then there is nothing to do, whatever
// its crawl.yaml lacks (the secrets it holds as ***), and it says so as a finished crawl does.
func finishedOr(a crawlArgs, stdout io.Writer, err error) error {
	f := a.flags
	if f.config != "" || len(a.positional) > 0 || len(f.seedFiles) > 0 || f.dir == "" {
		return err
	}
	if fin, ferr := crawl.Finished(f.dir); ferr != nil || !fin {
		return err
	}
	fmt.Fprintf(stdout, "The crawl in %s already finished; nothing to do.\n", f.dir)
	return nil
}

// loadConfig reads --config, amber's YAML or an Elastic Open Crawler file (then also
// returned as converted, with its notes); without it, a crawl resumed with no seeds given
// reads its own crawl.yaml. Otherwise the configuration starts empty.
func loadConfig(a crawlArgs) (*config.File, *config.Converted, error) {
	f := a.flags
	switch {
	case f.config != "":
		return loadAnyConfig(f.config, f.fastDomain, f.strict)
	case len(a.positional) == 0 && len(f.seedFiles) == 0 && f.dir != "":
		p := filepath.Join(f.dir, crawl.ConfigFile)
		if _, err := os.Stat(p); err == nil {
			c, err := config.Load(p)
			return c, nil, err
		}
	}
	return &config.File{}, nil, nil
}

// addSeeds appends the seeds of the command line: each argument is a URL (a standard seed) or
// a seeds file; --seeds names more seeds files.
func addSeeds(cfg *config.File, positional, seedFiles []string) error {
	var files []string
	for _, a := range positional {
		if !seeds.LooksLikeURL(a) {
			files = append(files, a)
			continue
		}
		if err := seeds.CheckURL(a); err != nil {
			return err
		}
		cfg.Seeds = append(cfg.Seeds, config.SeedSpec{URL: a, Type: string(scope.StandardSeed)})
	}
	for _, name := range append(files, seedFiles...) {
		ss, err := seeds.ParseFile(name)
		if err != nil {
			return err
		}
		for _, s := range ss {
			cfg.Seeds = append(cfg.Seeds, config.SeedSpec{URL: s.URL, Type: string(s.Type)})
		}
	}
	return nil
}

// applyScopeFlags puts the scope flags (--include, --exclude, --flavour, --max-hops) into cfg.
func applyScopeFlags(cfg *config.File, a crawlArgs) error {
	f := a.flags
	for _, r := range f.include {
		cfg.Scope.Accept = append(cfg.Scope.Accept, config.RuleSpec{Text: r})
	}
	for _, r := range f.exclude {
		cfg.Scope.Block = append(cfg.Scope.Block, config.RuleSpec{Text: r})
	}
	if a.set["flavour"] {
		cfg.Scope.Flavour = f.flavour
	}
	if a.set["max-hops"] {
		if f.maxHops < 0 {
			return fmt.Errorf("--max-hops %d: must not be negative", f.maxHops)
		}
		n := f.maxHops
		cfg.Scope.MaxHops = &n
	}
	if a.set["max-url-length"] {
		if f.maxURLLength <= 0 {
			return fmt.Errorf("--max-url-length %d: must be positive", f.maxURLLength)
		}
		cfg.Scope.MaxURLLength = f.maxURLLength
	}
	cfg.URLs.SortQueryParams = cfg.URLs.SortQueryParams || f.sortQuery
	cfg.URLs.RewriteRules = append(cfg.URLs.RewriteRules, f.rewrites...)
	cfg.Feeds.URLs = append(cfg.Feeds.URLs, f.feeds...)
	return nil
}

// crawlConfig makes the crawl package's Config: crawl.DefaultConfig, overlaid with what the
// YAML model sets and then with the flags that were given. Nothing is defaulted here; values
// are checked by crawl.Config.Validate. The effective configuration is recorded in cfg and in
// the result's EffectiveConfig.
func crawlConfig(cfg *config.File, a crawlArgs) (crawl.Config, error) {
	c := crawl.DefaultConfig()
	c.Software = "amber/" + version
	if err := overlayYAML(&c, cfg); err != nil {
		return c, err
	}
	if err := overlayFlags(&c, a); err != nil {
		return c, err
	}
	if err := overlayShared(&c, cfg, os.LookupEnv); err != nil {
		return c, err
	}
	if err := overlayAccess(&c, cfg, os.LookupEnv); err != nil {
		return c, err
	}
	if err := overlayPostPayloads(&c, cfg.PostPayloads, os.LookupEnv); err != nil {
		return c, err
	}
	if err := overlayRetriesAndCert(&c, cfg, a); err != nil {
		return c, err
	}
	if err := overlaySubcollections(&c, cfg, os.LookupEnv); err != nil {
		return c, err
	}
	if err := overlayPriors(&c, cfg, a); err != nil {
		return c, err
	}
	sc, err := scopeConfig(cfg, c.Fetcher)
	if err != nil {
		return c, err
	}
	c.Scope = sc
	overlaySitemaps(&c, cfg, sc.Flavour)
	c.Dir = a.flags.dir
	if c.Dir == "" {
		c.Dir = filepath.Join("crawls", c.Collection+"-"+time.Now().UTC().Format("20060102T150405Z"))
	}
	recordEffective(cfg, c)
	if c.EffectiveConfig, err = cfg.Marshal(); err != nil {
		return c, err
	}
	return c, nil
}

// defaultFlavour is the scope flavour that follows the fetcher (spec/scope.md).
func defaultFlavour(fetcher string) scope.Flavour {
	if fetcher == crawl.FetcherBrowser {
		return scope.Brozzler
	}
	return scope.Standard
}

// scopeConfig builds the scope from the seeds and rules and checks it as the crawl will, so
// that a bad rule or hop limit is reported before the crawl directory is created.
func scopeConfig(cfg *config.File, fetcher string) (scope.Config, error) {
	sc, err := cfg.ScopeConfig(defaultFlavour(fetcher))
	if err != nil {
		return sc, err
	}
	if _, err := scope.New(sc); err != nil {
		return sc, fmt.Errorf("scope: %w", err)
	}
	return sc, nil
}

// overlayYAML sets in c every setting the YAML model sets (a key left out leaves c's value).
func overlayYAML(c *crawl.Config, cfg *config.File) error {
	overlayIdentity(c, cfg)
	overlayPoliteness(c, cfg.Politeness)
	if err := overlaySchedule(c, cfg.Politeness); err != nil {
		return err
	}
	overlayRobots(c, cfg.Robots)
	if err := overlayLimits(c, cfg.Limits); err != nil {
		return err
	}
	overlayBrowser(c, cfg.Fetcher, cfg.Browser)
	if err := overlayDocuments(c, cfg.Documents); err != nil {
		return err
	}
	overlayWARC(c, cfg.WARC)
	if err := overlayURLs(c, cfg); err != nil {
		return err
	}
	c.SessionCookieTTL = cfg.SessionCookieTTL
	if err := overlayContent(c, cfg.Content); err != nil {
		return err
	}
	return overlayNetwork(c, cfg.Network)
}

// overlayPostPayloads sets the POST bodies of URLs (post_payloads), each body env:NAME read
// with lookupEnv.
func overlayPostPayloads(c *crawl.Config, ps []config.PostPayloadSpec, lookupEnv func(string) (string, bool)) error {
	c.PostPayloads = nil
	for i, p := range ps {
		if (p.URL == "") == (p.Prefix == "") {
			return fmt.Errorf("post_payloads[%d]: want one of url and prefix", i)
		}
		body, err := config.Secret(p.Body).Resolve(lookupEnv)
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

// overlayContent sets which responses the crawl reads (content): the types as written (the
// crawl checks them), the header patterns compiled, fields in name order.
func overlayContent(c *crawl.Config, ct config.Content) error {
	c.Content = contentfilter.Config{Types: ct.Types, LinkTypes: ct.LinkTypes}
	for _, name := range slices.Sorted(maps.Keys(ct.ExcludeHeaders)) {
		for _, p := range ct.ExcludeHeaders[name] {
			r, err := contentfilter.NewHeaderRule(name, p)
			if err != nil {
				return fmt.Errorf("content.exclude_headers: %w", err)
			}
			c.Content.ExcludeHeaders = append(c.Content.ExcludeHeaders, r)
		}
	}
	return nil
}

// overlayURLs sets what the crawl does to the URLs it finds (urls) and its feeds (feeds).
func overlayURLs(c *crawl.Config, cfg *config.File) error {
	rules, err := rewrite.ParseAll(cfg.URLs.RewriteRules)
	if err != nil {
		return fmt.Errorf("urls.rewrite_rules: %w", err)
	}
	mirrors, err := mirrorRules(cfg.URLs) // before the rewrite rules (mirrors.go)
	if err != nil {
		return err
	}
	rules = append(mirrors, rules...)
	c.URLs = crawl.URLConfig{Rewrite: rules, SortQuery: cfg.URLs.SortQueryParams,
		RefreshRedirectMax: cfg.URLs.MetaRefreshRedirectMax, MaxRedirects: cfg.URLs.MaxRedirects}
	f := cfg.Feeds
	c.Feeds = listing.Feeds{URLs: f.URLs, Limits: feed.Limits{MaxLinks: f.MaxLinks, MaxBytes: c.Feeds.Limits.MaxBytes},
		SkipItemLinks: f.FollowLinks != nil && !*f.FollowLinks, IgnoreRules: f.IgnoreRules, AutoDiscover: f.AutoDiscover}
	if f.MaxLinks == 0 {
		c.Feeds.Limits.MaxLinks = feed.MaxLinks
	}
	return nil
}

func overlayIdentity(c *crawl.Config, cfg *config.File) {
	setString(&c.Collection, cfg.Collection)
	setString(&c.Operator, cfg.Operator)
	setString(&c.Description, cfg.Description)
	setString(&c.Fetch.UserAgent, cfg.UserAgent)
	if cfg.Workers != 0 {
		c.Workers = cfg.Workers
	}
}

func overlayPoliteness(c *crawl.Config, p config.Politeness) {
	if p.HostDelay != nil {
		c.HostDelay = *p.HostDelay
	}
	if p.HostConcurrency != 0 {
		c.HostConcurrency = p.HostConcurrency
	}
	c.PerIP = c.PerIP || p.PerIP
	if len(p.HostDelays) > 0 {
		c.HostDelays = p.HostDelays // set by amber ctl host-delay: a resumed crawl keeps them
	}
	if p.MaxAttempts != 0 {
		c.MaxAttempts = p.MaxAttempts
	}
	if p.RetryDelay != 0 {
		c.RetryDelay = p.RetryDelay
	}
	if p.IgnoreRobots {
		c.IgnoreRobots = true
	}
	if p.MaxHostFailures != 0 {
		c.Sites.MaxFailures = p.MaxHostFailures
	}
	if p.MaxBackoff != 0 {
		c.Sites.MaxBackoff = p.MaxBackoff
	}
}

// overlayRobots sets how robots.txt and robots meta are read (robots).
func overlayRobots(c *crawl.Config, r config.Robots) {
	if r.TTL != 0 {
		c.Robots.TTL = r.TTL
	}
	if r.Timeout != 0 {
		c.Robots.Timeout = r.Timeout
	}
	c.Robots.AllowOnTimeout = c.Robots.AllowOnTimeout || r.AllowOnTimeout
	c.Robots.DisallowOnAuth = c.Robots.DisallowOnAuth || r.DisallowOnAuth
	c.Robots.IgnoreMeta = c.Robots.IgnoreMeta || r.IgnoreMeta
	c.Robots.IgnoreCrawlDelay = c.Robots.IgnoreCrawlDelay || r.IgnoreCrawlDelay
}

// parseMinFreeSpace reads a free-space threshold as crawl.Config.MinFreeSpace takes it: "auto"
// is 0 (the default rule), "off" is -1, anything else a size.
func parseMinFreeSpace(v string) (int64, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "auto", "":
		return 0, nil
	case "off":
		return -1, nil
	}
	n, err := config.ParseByteSize(v)
	if err != nil {
		return 0, fmt.Errorf("%q: want a size, auto or off: %w", v, err)
	}
	if n <= 0 {
		return 0, fmt.Errorf("%q: want a positive size, auto or off", v)
	}
	return int64(n), nil
}

// defaultMemoryLimit is the default of --memory-limit and limits.memory. Without a limit Go
// lets the heap grow to twice the live heap between collections, and the frontier store's
// table builds (large short-lived buffers) make that a peak RSS of 394 MB at 320,000 pages of
// the generated site. With the table builders' pool bounded (frontier/builders.go) the live
// heap at the peak of a 1,000,000-page crawl is 49-59 MB, so 80 MiB keeps the collector from
// running all the time: make bench-scale (1,000,052 pages) peaked at 144 MB crawling and 131
// writing the reports in 313 CPU-s, against 160 and 152 MB in 302 CPU-s at 96 MiB and 194
// and 149 MB at 128 MiB (issue 11).
const defaultMemoryLimit = 80 << 20

// memoryLimit resolves the crawl process's soft memory limit: --memory-limit, else the
// config's limits.memory, else defaultMemoryLimit; "off" is no limit (math.MaxInt64, Go's
// own default). It records the value in cfg (crawl.yaml).
func memoryLimit(cfg *config.File, a crawlArgs) (int64, error) {
	v, src := cfg.Limits.Memory, "limits.memory"
	if a.set["memory-limit"] {
		v, src = a.flags.memoryLimit, "--memory-limit"
	}
	n := int64(defaultMemoryLimit)
	if v != "" {
		var err error
		if n, err = parseMemoryLimit(v); err != nil {
			return 0, fmt.Errorf("%s %w", src, err)
		}
	}
	cfg.Limits.Memory = formatMemoryLimit(n)
	return n, nil
}

// parseMemoryLimit reads a size or "off".
func parseMemoryLimit(v string) (int64, error) {
	if strings.EqualFold(strings.TrimSpace(v), "off") {
		return math.MaxInt64, nil
	}
	n, err := config.ParseByteSize(v)
	if err != nil {
		return 0, fmt.Errorf("%q: want a size or off: %w", v, err)
	}
	if n <= 0 {
		return 0, fmt.Errorf("%q: want a positive size or off", v)
	}
	return int64(n), nil
}

// formatMemoryLimit writes a memory limit as parseMemoryLimit reads it.
func formatMemoryLimit(n int64) string {
	if n == math.MaxInt64 {
		return "off"
	}
	return formatByteSize(n)
}

// formatMinFreeSpace writes crawl.Config.MinFreeSpace as parseMinFreeSpace reads it.
func formatMinFreeSpace(n int64) string {
	switch {
	case n == 0:
		return "auto"
	case n < 0:
		return "off"
	}
	return formatByteSize(n)
}

func overlayLimits(c *crawl.Config, l config.Limits) error {
	if l.URLs != 0 {
		c.LimitURLs = l.URLs
	}
	if l.Bytes != 0 {
		c.LimitBytes = int64(l.Bytes)
	}
	if l.Time != 0 {
		c.TimeLimit = l.Time
	}
	if l.ResponseSize != 0 {
		c.Fetch.MaxResponseSize = int64(l.ResponseSize)
	}
	if l.MaxOutlinks != 0 {
		c.MaxOutlinks = l.MaxOutlinks
	}
	if l.URLsPerHost != 0 {
		c.Sites.MaxURLs = l.URLsPerHost
	}
	switch l.Oversize {
	case "":
	case "truncate":
		c.DropOversize = false
	case "drop":
		c.DropOversize = true
	default:
		return fmt.Errorf("limits.oversize %q: want truncate or drop", l.Oversize)
	}
	if l.MinFreeSpace != "" {
		n, err := parseMinFreeSpace(l.MinFreeSpace)
		if err != nil {
			return fmt.Errorf("limits.min_free_space %w", err)
		}
		c.MinFreeSpace = n
	}
	return nil
}

func overlayNetwork(c *crawl.Config, n config.Network) error {
	if n.AllowPrivate {
		c.Fetch.AllowPrivate = true
	}
	if n.VerifyTLS {
		c.Fetch.VerifyTLS = true
	}
	if n.ConnectTimeout != 0 {
		c.Fetch.ConnectTimeout = n.ConnectTimeout
	}
	if n.FirstByteTimeout != 0 {
		c.Fetch.FirstByteTimeout = n.FirstByteTimeout
	}
	if n.ResponseTimeout != 0 {
		c.Fetch.ResponseTimeout = n.ResponseTimeout
	}
	return addConnectTo(c, n.ConnectTo, "network.connect_to")
}

// addConnectTo parses curl-style --connect-to mappings and appends them to c.
func addConnectTo(c *crawl.Config, specs []string, where string) error {
	for _, s := range specs {
		ct, err := fetch.ParseConnectTo(s)
		if err != nil {
			return fmt.Errorf("%s %q: %w", where, s, err)
		}
		c.Fetch.ConnectTo = append(c.Fetch.ConnectTo, ct)
	}
	return nil
}

func overlayBrowser(c *crawl.Config, fetcher string, b config.Browser) {
	setString(&c.Fetcher, fetcher)
	setString(&c.Browser.Path, b.Path)
	if b.Tabs != 0 {
		c.Browser.Tabs = b.Tabs
	}
	if b.PageTimeout != 0 {
		c.Browser.PageTimeout = b.PageTimeout
	}
	if b.BehaviorTimeout != 0 {
		c.Browser.BehaviorTimeout = b.BehaviorTimeout
	}
	if b.Screenshot != nil {
		c.Browser.Screenshot = *b.Screenshot
	}
	if b.NetworkIdle != 0 {
		c.Browser.NetworkIdle = b.NetworkIdle
	}
}

func overlayDocuments(c *crawl.Config, d config.Documents) error {
	if d.Enabled != nil {
		c.NoDocuments = !*d.Enabled
	}
	if d.Deduplication != nil {
		c.NoDocumentDedup = !*d.Deduplication
	}
	c.Documents.MaxTitleSize = d.MaxTitleSize
	c.Documents.MaxBodySize = d.MaxBodySize
	c.Documents.MaxKeywordsSize = d.MaxKeywordsSize
	c.Documents.MaxDescriptionSize = d.MaxDescriptionSize
	c.Documents.MaxHeadingsCount = d.MaxHeadingsCount
	c.Documents.MaxIndexedLinksCount = d.MaxIndexedLinksCount
	c.Documents.ContentHashFields = d.DeduplicationFields
	c.Documents.BinaryContentTypes = d.BinaryMIMETypes
	rs, err := d.Rulesets()
	if err != nil {
		return err
	}
	c.Documents.Rulesets = rs
	return nil
}

func overlayWARC(c *crawl.Config, w config.WARC) {
	setString(&c.WARCPrefix, w.Prefix)
	if w.MaxSize != 0 {
		c.WARCMaxSize = int64(w.MaxSize)
	}
}

// setString sets *dst to v unless v is empty (not set).
func setString(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// overlayFlags sets in c the value of every flag that was given, even a zero one (which
// Validate may then refuse: --workers 0 is an error, not the default).
func overlayFlags(c *crawl.Config, a crawlArgs) error {
	f, set := a.flags, a.set
	setFlag(set, "collection", &c.Collection, f.collection)
	setFlag(set, "operator", &c.Operator, f.operator)
	setFlag(set, "user-agent", &c.Fetch.UserAgent, f.userAgent)
	setFlag(set, "warc-prefix", &c.WARCPrefix, f.warcPrefix)
	setFlag(set, "fetcher", &c.Fetcher, f.fetcher)
	setFlag(set, "browser-path", &c.Browser.Path, f.browserPath)

	setFlag(set, "workers", &c.Workers, f.workers)
	setFlag(set, "host-concurrency", &c.HostConcurrency, f.hostConcurrency)
	setFlag(set, "max-sites", &c.MaxSites, f.maxSites)
	setFlag(set, "max-inter-docs", &c.MaxInterDocs, f.maxInterDocs)
	setFlag(set, "max-attempts", &c.MaxAttempts, f.maxAttempts)
	setFlag(set, "browser-tabs", &c.Browser.Tabs, f.browserTabs)
	setFlag(set, "max-outlinks", &c.MaxOutlinks, f.maxOutlinks)
	setFlag(set, "limit", &c.LimitURLs, f.limit)

	setFlag(set, "host-delay", &c.HostDelay, f.hostDelay)
	setFlag(set, "retry-delay", &c.RetryDelay, f.retryDelay)
	setFlag(set, "time-limit", &c.TimeLimit, f.timeLimit)
	setFlag(set, "page-timeout", &c.Browser.PageTimeout, f.pageTimeout)
	setFlag(set, "behavior-timeout", &c.Browser.BehaviorTimeout, f.behaviorTimeout)

	setFlag(set, "allow-private", &c.Fetch.AllowPrivate, f.allowPrivate)
	setFlag(set, "verify-tls", &c.Fetch.VerifyTLS, f.verifyTLS)
	setFlag(set, "ignore-robots", &c.IgnoreRobots, f.ignoreRobots)
	setFlag(set, "per-ip", &c.PerIP, f.perIP)
	setFlag(set, "screenshot", &c.Browser.Screenshot, f.screenshot)
	setFlag(set, "no-documents", &c.NoDocuments, f.noDocuments)

	if set["min-free-space"] {
		n, err := parseMinFreeSpace(f.minFreeSpace)
		if err != nil {
			return fmt.Errorf("--min-free-space %w", err)
		}
		c.MinFreeSpace = n
	}
	for _, sz := range []struct {
		name, v string
		dst     *int64
	}{
		{"size-limit", f.sizeLimit, &c.LimitBytes},
		{"max-response-size", f.maxResponseSize, &c.Fetch.MaxResponseSize},
		{"warc-max-size", f.warcMaxSize, &c.WARCMaxSize},
	} {
		if !set[sz.name] {
			continue
		}
		n, err := config.ParseByteSize(sz.v)
		if err != nil {
			return fmt.Errorf("--%s: %w", sz.name, err)
		}
		*sz.dst = int64(n)
	}
	return addConnectTo(c, f.connectTo, "--connect-to")
}

// setFlag sets *dst to v when the flag name is among those given (set), even to a zero v.
func setFlag[T any](set map[string]bool, name string, dst *T, v T) {
	if set[name] {
		*dst = v
	}
}

// recordEffective writes into the YAML model the settings the crawl runs with that the model
// left out, so that crawl.yaml and warcinfo say what ran, and a resumed crawl keeps them.
func recordEffective(cfg *config.File, c crawl.Config) {
	prev := cfg.Politeness
	cfg.Collection = c.Collection
	cfg.Operator = c.Operator
	cfg.UserAgent = c.Fetch.UserAgent
	cfg.Workers = c.Workers
	cfg.Fetcher = c.Fetcher
	d := c.HostDelay
	cfg.Politeness = config.Politeness{HostDelay: &d, HostConcurrency: c.HostConcurrency,
		IgnoreRobots: c.IgnoreRobots, MaxAttempts: c.MaxAttempts, RetryDelay: c.RetryDelay,
		MaxHostFailures: c.Sites.MaxFailures, MaxBackoff: c.Sites.MaxBackoff, PerIP: c.PerIP}
	recordRetriesAndCert(cfg, c)
	recordSchedule(cfg, c, prev)
	cfg.Robots = config.Robots{TTL: c.Robots.TTL, Timeout: c.Robots.Timeout, AllowOnTimeout: c.Robots.AllowOnTimeout,
		DisallowOnAuth: c.Robots.DisallowOnAuth, IgnoreMeta: c.Robots.IgnoreMeta, IgnoreCrawlDelay: c.Robots.IgnoreCrawlDelay}
	cfg.Limits.URLsPerHost = c.Sites.MaxURLs
	cfg.Limits.Oversize = ""
	if c.DropOversize {
		cfg.Limits.Oversize = "drop"
	}
	cfg.Limits.URLs = c.LimitURLs
	cfg.Limits.Bytes = config.ByteSize(c.LimitBytes)
	cfg.Limits.Time = c.TimeLimit
	cfg.Limits.ResponseSize = config.ByteSize(c.Fetch.MaxResponseSize)
	cfg.Limits.MaxOutlinks = c.MaxOutlinks
	cfg.Limits.MinFreeSpace = formatMinFreeSpace(c.MinFreeSpace)
	cfg.Network.AllowPrivate = c.Fetch.AllowPrivate
	cfg.Network.VerifyTLS = c.Fetch.VerifyTLS
	cfg.Network.ConnectTo = nil
	for _, ct := range c.Fetch.ConnectTo {
		cfg.Network.ConnectTo = append(cfg.Network.ConnectTo, ct.String())
	}
	cfg.WARC = config.WARC{Prefix: c.WARCPrefix, MaxSize: config.ByteSize(c.WARCMaxSize)}
	if c.Fetcher == crawl.FetcherBrowser {
		shot := c.Browser.Screenshot
		path := c.Browser.Path
		if path == "" {
			path = browser.DefaultPath() // the Chromium the crawl will run, named in crawl.yaml
		}
		cfg.Browser = config.Browser{Path: path, Tabs: c.Browser.Tabs,
			PageTimeout: c.Browser.PageTimeout, BehaviorTimeout: c.Browser.BehaviorTimeout, Screenshot: &shot,
			NetworkIdle: c.Browser.NetworkIdle}
	}
	on, dedup := !c.NoDocuments, !c.NoDocumentDedup
	cfg.Documents.Enabled, cfg.Documents.Deduplication = &on, &dedup
	cookies := c.Fetch.Jar != nil
	cfg.Cookies = &cookies
	cfg.DedupFrom, cfg.RecrawlOf = c.DedupFrom, c.RecrawlOf
}

// setOutput sets what the crawl prints on the terminal: the log level, progress lines or a
// live status line.
func setOutput(c *crawl.Config, a crawlArgs, stderr io.Writer) error {
	f := a.flags
	level := slog.LevelInfo
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	if f.quiet {
		level = slog.LevelWarn
	}
	logs := stderr
	switch {
	case f.quiet:
		c.ProgressEvery = -1
	case isTerminal(stderr):
		// Log lines and the live status line share the terminal: log lines go above it.
		con := newConsole(stderr)
		logs, c.LiveStatus = con, con.status
	}
	c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: level}))
	return nil
}

// services are the services of a run of amber crawl: the status server when an address is
// given (--status-addr), then live control (amber ctl, always), which carries out the status
// server's POST /control. Control is drained first, so /control answers that the run is ending
// while the server still serves the last figures.
func services(statusAddr string) ([]crawl.Service, error) {
	control := ctl.New()
	if statusAddr == "" {
		return []crawl.Service{control}, nil
	}
	srv, err := live.New(live.Config{Addr: statusAddr, Control: control})
	if err != nil {
		return nil, fmt.Errorf("--status-addr: %w", err)
	}
	return []crawl.Service{srv, control}, nil
}

// printSummary says how the crawl ended and where its outputs are.
func printSummary(w io.Writer, c crawl.Config, res crawl.Result) {
	switch res.End {
	case crawl.EndAlreadyFinished:
		fmt.Fprintf(w, "The crawl in %s already finished; nothing to do.\n", c.Dir)
	case crawl.EndFinished:
		fmt.Fprintf(w, "Crawl finished: %d URLs fetched, %d bytes.\n", res.Fetched, res.Bytes)
	case crawl.EndLimit:
		fmt.Fprintf(w, "Crawl stopped at a limit: %d URLs fetched, %d bytes, %d still queued.\n", res.Fetched, res.Bytes, res.Stats.Queued)
		fmt.Fprintf(w, "Run the same command with a higher limit to go on.\n")
	case crawl.EndDiskFull:
		fmt.Fprintf(w, "Crawl stopped for want of disk space: %d URLs fetched, %d queued. Make room and run the same command to resume.\n", res.Fetched, res.Stats.Queued+res.Stats.InFlight)
	case crawl.EndCancelled:
		fmt.Fprintf(w, "Crawl interrupted: %d URLs fetched, %d queued. Run the same command to resume.\n", res.Fetched, res.Stats.Queued+res.Stats.InFlight)
	}
	outputs := []struct{ name, path string }{
		{"Report", filepath.Join(c.Dir, crawl.ReportsDir, report.HTMLReportFile)},
		{"WARC files", filepath.Join(c.Dir, crawl.WARCDir)},
		{"CDXJ index", filepath.Join(c.Dir, crawl.CDXJFile)},
		{"Documents", filepath.Join(c.Dir, crawl.DocumentsFile)},
		{"crawl.log", filepath.Join(c.Dir, crawl.CrawlLogFile)},
	}
	for _, o := range outputs {
		if o.name == "Documents" && c.NoDocuments {
			continue
		}
		fmt.Fprintf(w, "  %-11s %s\n", o.name+":", o.path)
	}
}

// endStatus is the error that gives a crawl's end its exit status: nil when it finished.
func endStatus(res crawl.Result) error {
	switch res.End {
	case crawl.EndLimit:
		return statusError{code: exitLimit, end: res.End}
	case crawl.EndCancelled:
		return statusError{code: exitInterrupted, end: res.End}
	}
	return nil
}

// formatByteSize writes n with the largest unit that divides it (1GB, 100MiB), as
// config.ParseByteSize reads it.
func formatByteSize(n int64) string {
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

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/ctl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/live"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/searchindex"
	"github.com/amber-crawler/amber/seeds"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// crawlFlags are the flags of `amber crawl`. Only the flags that were set (crawlArgs.set) are
// applied; the values flags start with are crawl.DefaultConfig's, for the help text only.
type crawlFlags struct {
	dir, collection, userAgent, operator         string
	configs, seedFiles                           stringList
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
	strict, wacz, patch                          bool
	noPlatformRules                              bool
	frontier, crawlID, process                   string
	retries                                      stringList
	clientCert, clientKey                        string
}

func newCrawlFlagSet(f *crawlFlags) *flag.FlagSet {
	d := crawl.DefaultConfig()
	fs := flag.NewFlagSet("amber crawl", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, help is printed by printCrawlHelp
	fs.StringVar(&f.dir, "dir", "", "crawl directory; the same --dir resumes an unfinished crawl (default ./crawls/COLLECTION-TIMESTAMP)")
	fs.Var(&f.configs, "config", "crawl config `FILE`: amber's YAML, an Elastic Open Crawler file, Enterprise Search settings (enterprise-search.yml) or a FAST crawler configuration (XML); repeatable: the files are combined (a key two files set differently is an error); flags override them")
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
	fs.StringVar(&f.maxResponseSize, "max-response-size", config.FormatByteSize(fetch.DefaultMaxResponseSize), "truncate one response at this size")
	fs.StringVar(&f.minFreeSpace, "min-free-space", "auto", "stop cleanly (and resume later) below this much free disk space: a size, auto (1GiB, or 1% of the filesystem if smaller) or off")
	fs.StringVar(&f.memoryLimit, "memory-limit", config.FormatMemoryLimit(config.DefaultMemoryLimit), "soft memory limit of the crawl process (the Go garbage collector works harder near it; a size or off; GOMEMLIMIT wins)")
	fs.StringVar(&f.warcMaxSize, "warc-max-size", config.FormatByteSize(d.WARCMaxSize), "rotate WARC files at this size")
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
	fs.BoolVar(&f.noPlatformRules, "no-platform-rules", false, "turn every platform rule off (MediaWiki's edit forms, WordPress's login page, ... are then crawled), like scope.platform_rules: false")
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
	fs.BoolVar(&f.patch, "patch", false, "a patch crawl of --dir: capture the URLs amber qa found missing (DIR/reports/qa.jsonl) as embeds of their pages, with the crawl's crawl.yaml (see 'amber help patch')")
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
	return crawlParsed(ctx, a, stdout, stderr)
}

// crawlParsed is `amber crawl` once its command line is parsed.
func crawlParsed(ctx context.Context, a crawlArgs, stdout, stderr io.Writer) error {
	patchURLs, err := patchOf(a)
	if err != nil || (a.flags.patch && len(patchURLs) == 0) {
		if err == nil {
			fmt.Fprintf(stdout, "amber qa found nothing missing in %s: nothing to patch.\n", a.flags.dir)
		}
		return err
	}
	cfg, files, err := buildConfig(a)
	if err != nil {
		return finishedOr(a, stdout, usageError{err})
	}
	printConversions(stderr, files)
	ccfg, err := crawlConfig(cfg, a)
	if err != nil {
		return finishedOr(a, stdout, usageError{err})
	}
	ccfg.Patch = patchURLs
	mem, err := config.ParseMemoryLimit(cfg.Limits.Memory) // as memoryLimit recorded it
	if err != nil {
		return usageError{err}
	}
	if err := setOutput(&ccfg, a, stderr); err != nil {
		return usageError{err}
	}
	svcs, err := services(a.flags.statusAddr)
	if err != nil {
		return usageError{err}
	}
	// Build's services (the search-index sink) come after live control and the status
	// server: they are drained first, and the reports that follow see what they recorded.
	ccfg.Services = append(svcs, ccfg.Services...)
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
	printPatch(stdout, ccfg, res)
	if err := indexSummary(stdout, ccfg, res); err != nil {
		return err
	}
	if a.flags.wacz && (res.End == crawl.EndFinished || res.End == crawl.EndLimit || res.End == crawl.EndAlreadyFinished) {
		if err := writeWACZ(ctx, ccfg.Dir, "", stdout, stderr); err != nil {
			return err
		}
	}
	return endStatus(res)
}

// buildConfig reads the crawl configuration's file model: the config files (--config, or
// when resuming with no seeds given, the crawl directory's crawl.yaml) and the seeds given on
// the command line. The other flags are applied by crawlConfig, once the file's defaults are
// in. It also returns the --config files read, whose conversions have notes.
func buildConfig(a crawlArgs) (*config.File, []configFile, error) {
	cfg, files, err := loadConfig(a)
	if err != nil {
		return nil, nil, err
	}
	if err := addSeeds(cfg, a.positional, a.flags.seedFiles); err != nil {
		return nil, nil, err
	}
	if len(cfg.AllSeeds()) == 0 {
		return nil, nil, errors.New("no seeds: give URLs, a seeds file, --seeds, or --config with seeds")
	}
	return cfg, files, nil
}

// finishedOr returns err, unless the command only names a crawl directory to resume (no
// --config, no seeds) and the crawl there has finished: then there is nothing to do, whatever
// its crawl.yaml lacks (the secrets it holds as ***), and it says so as a finished crawl does.
func finishedOr(a crawlArgs, stdout io.Writer, err error) error {
	f := a.flags
	if len(f.configs) > 0 || len(a.positional) > 0 || len(f.seedFiles) > 0 || f.dir == "" || f.patch {
		return err
	}
	if fin, ferr := crawl.Finished(f.dir); ferr != nil || !fin {
		return err
	}
	fmt.Fprintf(stdout, "The crawl in %s already finished; nothing to do.\n", f.dir)
	return nil
}

// loadConfig reads the --config files (loadConfigs); without any, a crawl resumed with no
// seeds given reads its own crawl.yaml. Otherwise the configuration starts empty.
func loadConfig(a crawlArgs) (*config.File, []configFile, error) {
	f := a.flags
	switch {
	case len(f.configs) > 0:
		return loadConfigs(f.configs, f.fastDomain, f.strict)
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
	if a.set["no-platform-rules"] {
		cfg.Scope.PlatformRules = config.PlatformRules{config.PlatformRulesAll: !f.noPlatformRules}
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

// crawlConfig makes the crawl package's Config from the file model with config.Build, the
// flags that were given applied to the model (applyFlags), so that cfg saved is crawl.yaml.
func crawlConfig(cfg *config.File, a crawlArgs) (crawl.Config, error) {
	return config.Build(cfg, config.Options{
		Override: func(f *config.File) error { return applyFlags(f, a) },
		Dir:      a.flags.dir,
		Software: "amber/" + version,
	})
}

// applyFlags applies the flags that were given to the file model, each to its key, a zero
// value too (--workers 0 is then refused by crawl.Config.Validate, not replaced by the
// default).
func applyFlags(cfg *config.File, a crawlArgs) error {
	applySharedFlags(cfg, a)
	for _, apply := range []func(*config.File, crawlArgs) error{
		applyScopeFlags, applyDomainFlags, applyAccessFlags, applySettingFlags, applyRetryFlags,
	} {
		if err := apply(cfg, a); err != nil {
			return err
		}
	}
	_, err := memoryLimit(cfg, a)
	return err
}

// applySettingFlags applies the flags of the crawl's settings (identity, politeness, limits,
// network, browser, documents, WARC files) to their keys.
func applySettingFlags(cfg *config.File, a crawlArgs) error {
	f, set := a.flags, a.set
	setFlag(set, "collection", &cfg.Collection, f.collection)
	setFlag(set, "operator", &cfg.Operator, f.operator)
	setFlag(set, "user-agent", &cfg.UserAgent, f.userAgent)
	setFlag(set, "workers", &cfg.Workers, f.workers)
	setFlag(set, "fetcher", &cfg.Fetcher, f.fetcher)

	p := &cfg.Politeness
	if set["host-delay"] {
		d := f.hostDelay
		p.HostDelay = &d
	}
	setFlag(set, "host-concurrency", &p.HostConcurrency, f.hostConcurrency)
	setFlag(set, "max-sites", &p.MaxSites, f.maxSites)
	setFlag(set, "max-inter-docs", &p.MaxInterDocs, f.maxInterDocs)
	setFlag(set, "max-attempts", &p.MaxAttempts, f.maxAttempts)
	setFlag(set, "retry-delay", &p.RetryDelay, f.retryDelay)
	setFlag(set, "ignore-robots", &p.IgnoreRobots, f.ignoreRobots)
	setFlag(set, "per-ip", &p.PerIP, f.perIP)

	setFlag(set, "limit", &cfg.Limits.URLs, f.limit)
	setFlag(set, "time-limit", &cfg.Limits.Time, f.timeLimit)
	setFlag(set, "max-outlinks", &cfg.Limits.MaxOutlinks, f.maxOutlinks)
	if set["min-free-space"] {
		if _, err := config.ParseMinFreeSpace(f.minFreeSpace); err != nil {
			return fmt.Errorf("--min-free-space %w", err)
		}
		cfg.Limits.MinFreeSpace = f.minFreeSpace
	}
	for _, sz := range []struct {
		name, v string
		dst     *config.ByteSize
	}{
		{"size-limit", f.sizeLimit, &cfg.Limits.Bytes},
		{"max-response-size", f.maxResponseSize, &cfg.Limits.ResponseSize},
		{"warc-max-size", f.warcMaxSize, &cfg.WARC.MaxSize},
	} {
		if !set[sz.name] {
			continue
		}
		n, err := config.ParseByteSize(sz.v)
		if err != nil {
			return fmt.Errorf("--%s: %w", sz.name, err)
		}
		*sz.dst = n
	}
	setFlag(set, "warc-prefix", &cfg.WARC.Prefix, f.warcPrefix)

	setFlag(set, "allow-private", &cfg.Network.AllowPrivate, f.allowPrivate)
	setFlag(set, "verify-tls", &cfg.Network.VerifyTLS, f.verifyTLS)
	for _, s := range f.connectTo {
		if _, err := fetch.ParseConnectTo(s); err != nil {
			return fmt.Errorf("--connect-to %q: %w", s, err)
		}
		cfg.Network.ConnectTo = append(cfg.Network.ConnectTo, s)
	}

	setFlag(set, "browser-path", &cfg.Browser.Path, f.browserPath)
	setFlag(set, "browser-tabs", &cfg.Browser.Tabs, f.browserTabs)
	setFlag(set, "page-timeout", &cfg.Browser.PageTimeout, f.pageTimeout)
	setFlag(set, "behavior-timeout", &cfg.Browser.BehaviorTimeout, f.behaviorTimeout)
	if set["screenshot"] {
		shot := f.screenshot
		cfg.Browser.Screenshot = &shot
	}
	if set["no-documents"] {
		on := !f.noDocuments
		cfg.Documents.Enabled = &on
	}
	if set["dedup-from"] {
		cfg.DedupFrom = slices.Clone(f.dedupFrom)
	}
	setFlag(set, "recrawl-of", &cfg.RecrawlOf, f.recrawlOf)
	return nil
}

// setFlag sets *dst to v when the flag name is among those given (set), even to a zero v.
func setFlag[T any](set map[string]bool, name string, dst *T, v T) {
	if set[name] {
		*dst = v
	}
}

// memoryLimit resolves the crawl process's soft memory limit: --memory-limit, else the
// config's limits.memory, else config.DefaultMemoryLimit; "off" is no limit (math.MaxInt64,
// Go's own default). It records the value in cfg (crawl.yaml).
func memoryLimit(cfg *config.File, a crawlArgs) (int64, error) {
	v, src := cfg.Limits.Memory, "limits.memory"
	if a.set["memory-limit"] {
		v, src = a.flags.memoryLimit, "--memory-limit"
	}
	n := int64(config.DefaultMemoryLimit)
	if v != "" {
		var err error
		if n, err = config.ParseMemoryLimit(v); err != nil {
			return 0, fmt.Errorf("%s %w", src, err)
		}
	}
	cfg.Limits.Memory = config.FormatMemoryLimit(n)
	return n, nil
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

// indexSummary prints what the search index took of the crawl's documents (when documents
// go to one: index.sink) and returns an error when a finished crawl leaves documents the index
// refused, or did not take: documents.jsonl holds them, and `amber index DIR` sends them.
func indexSummary(w io.Writer, c crawl.Config, res crawl.Result) error {
	i := slices.IndexFunc(c.Services, func(s crawl.Service) bool { _, ok := s.(*searchindex.Service); return ok })
	if i < 0 || res.End == crawl.EndAlreadyFinished {
		return nil
	}
	rec := c.Services[i].(*searchindex.Service).Record()
	return printIndexRecord(w, c.Dir, rec, res.End == crawl.EndFinished || res.End == crawl.EndLimit)
}

// printIndexRecord prints the figures of a search-index record; when final, a record with
// documents refused or left to send is an error.
func printIndexRecord(w io.Writer, dir string, rec report.IndexRecord, final bool) error {
	fmt.Fprintf(w, "  %-11s %s %s: %d sent, %d acknowledged, %d failed, %d backlog\n", "Index:", rec.URL, rec.Index,
		rec.Sent, rec.Acknowledged, rec.Failed, rec.Backlog)
	for i, f := range rec.Failures {
		if i == 10 {
			fmt.Fprintf(w, "    ... %d more in %s\n", rec.Failed-10, filepath.Join(dir, crawl.EventsFile))
			break
		}
		fmt.Fprintf(w, "    refused: %s: %s\n", f.URL, f.Reason)
	}
	if rec.Error != "" {
		fmt.Fprintf(w, "    error: %s\n", rec.Error)
	}
	if !final || (rec.Error == "" && rec.Failed == 0 && rec.Backlog == 0) {
		return nil
	}
	switch {
	case rec.Error != "":
		return fmt.Errorf("search index: %s (documents.jsonl keeps the %d documents not sent: amber index %s sends them)", rec.Error, rec.Backlog, dir)
	case rec.Backlog > 0:
		return fmt.Errorf("search index: %d documents not sent, the index did not answer (amber index %s sends them)", rec.Backlog, dir)
	}
	return fmt.Errorf("search index: %d documents refused (see %s)", rec.Failed, filepath.Join(dir, crawl.EventsFile))
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

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

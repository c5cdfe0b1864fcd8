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
	"strings"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/seeds"
)

// Politeness defaults: one request at a time per host and a second between requests, the
// pace Heritrix and Browsertrix use by default; a crawl that hammers a small site gets blocked.
const (
	defaultHostDelay       = time.Second
	defaultHostConcurrency = 1
	defaultWorkers         = 8
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// crawlFlags are the flags of `amber crawl`.
type crawlFlags struct {
	dir, config, collection, userAgent, operator string
	workers, hostConcurrency                     int
	hostDelay, timeLimit                         time.Duration
	limit                                        int64
	sizeLimit, warcMaxSize, maxResponseSize      string
	allowPrivate, ignoreRobots, verifyTLS, quiet bool
	noDocuments, screenshot                      bool
	fetcher, browserPath                         string
	browserTabs                                  int
	pageTimeout, behaviorTimeout                 time.Duration
	connectTo                                    stringList
	include, exclude                             stringList
	flavour                                      string
	maxAttempts                                  int
	retryDelay                                   time.Duration
	logLevel, statusAddr                         string
}

func newCrawlFlagSet(f *crawlFlags, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("amber crawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.dir, "dir", "", "crawl directory; the same --dir resumes an unfinished crawl (default ./crawls/COLLECTION-TIMESTAMP)")
	fs.StringVar(&f.config, "config", "", "YAML crawl config (seeds, scope, limits, politeness, WARC); flags override it")
	fs.StringVar(&f.collection, "collection", "", "collection name (warcinfo, WARC prefix, default directory name)")
	fs.StringVar(&f.operator, "operator", "", "who runs the crawl, for warcinfo (e.g. \"Jane Doe <jane@example.org>\")")
	fs.IntVar(&f.workers, "workers", 0, fmt.Sprintf("URLs fetched at once across all hosts (default %d)", defaultWorkers))
	fs.StringVar(&f.userAgent, "user-agent", "", "User-Agent header (default names amber; put your contact in it)")
	fs.DurationVar(&f.hostDelay, "host-delay", 0, fmt.Sprintf("pause between requests to one host (default %s)", defaultHostDelay))
	fs.IntVar(&f.hostConcurrency, "host-concurrency", 0, fmt.Sprintf("requests open to one host at once (default %d)", defaultHostConcurrency))
	fs.Int64Var(&f.limit, "limit", 0, "stop after this many URLs fetched (whole crawl; 0: no limit)")
	fs.DurationVar(&f.timeLimit, "time-limit", 0, "stop this run after this long (0: no limit)")
	fs.StringVar(&f.sizeLimit, "size-limit", "", "stop after this many bytes downloaded (whole crawl; e.g. 10GB)")
	fs.StringVar(&f.maxResponseSize, "max-response-size", "", "truncate one response at this size (default 100MiB)")
	fs.StringVar(&f.warcMaxSize, "warc-max-size", "", "rotate WARC files at this size (default 1GB)")
	fs.BoolVar(&f.allowPrivate, "allow-private", false, "allow loopback and private addresses (refused by default)")
	fs.Var(&f.connectTo, "connect-to", "HOST:PORT:ADDR:PORT: connect to ADDR:PORT for HOST:PORT (curl syntax; empty HOST or PORT matches any; repeatable)")
	fs.BoolVar(&f.ignoreRobots, "ignore-robots", false, "do not fetch or obey robots.txt")
	fs.BoolVar(&f.verifyTLS, "verify-tls", false, "refuse sites whose TLS certificate does not verify (default: capture and record the problem)")
	fs.Var(&f.include, "include", "collection accept rule, kind:value (e.g. surt:http://(org,example,); repeatable")
	fs.Var(&f.exclude, "exclude", "collection block rule, kind:value (e.g. contains:/calendar/); repeatable")
	fs.StringVar(&f.flavour, "flavour", "", "scope flavour: standard or brozzler (default: follows the fetcher)")
	fs.IntVar(&f.maxAttempts, "max-attempts", 0, "tries per URL on network errors and 5xx (default 3)")
	fs.DurationVar(&f.retryDelay, "retry-delay", 0, "wait before the first retry, doubling after (default 10s)")
	fs.StringVar(&f.fetcher, "fetcher", "", "http (default) or browser: load pages in headless Chromium, Brozzler-style")
	fs.StringVar(&f.browserPath, "browser-path", "", "Chromium executable for --fetcher browser (default /usr/bin/chromium)")
	fs.IntVar(&f.browserTabs, "browser-tabs", 0, "pages loaded at once by the browser (default 1)")
	fs.DurationVar(&f.pageTimeout, "page-timeout", 0, "bound on one page in the browser; what was captured is kept (default 90s)")
	fs.DurationVar(&f.behaviorTimeout, "behavior-timeout", 0, "bound on scrolling a page in the browser (default 30s)")
	fs.BoolVar(&f.screenshot, "screenshot", true, "store a screenshot of each browser page as a WARC resource record")
	fs.BoolVar(&f.noDocuments, "no-documents", false, "do not write documents.jsonl (search documents)")
	fs.BoolVar(&f.quiet, "quiet", false, "print only warnings and errors (no progress)")
	fs.StringVar(&f.statusAddr, "status-addr", "", "serve Prometheus /metrics and a JSON /status of the running crawl at this address (e.g. 127.0.0.1:9090)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	return fs
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

func runCrawl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f crawlFlags
	fs := newCrawlFlagSet(&f, stderr)
	positional, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return usageError{err.Error()}
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })

	cfg, err := buildConfig(&f, set, positional)
	if err != nil {
		return err
	}
	ccfg, err := crawlConfig(cfg, &f, set)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return usageError{fmt.Sprintf("--log-level: %v", err)}
	}
	if f.quiet {
		level = slog.LevelWarn
	}
	ccfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ccfg.StatusAddr = f.statusAddr
	switch {
	case f.quiet:
		ccfg.ProgressEvery = -1
	case isTerminal(stderr):
		ccfg.LiveStatus = stderr
	}

	res, err := crawl.Run(ctx, ccfg)
	if err != nil {
		return err
	}
	dir := ccfg.Dir
	switch res.End {
	case crawl.EndAlreadyFinished:
		fmt.Fprintf(stdout, "The crawl in %s already finished; nothing to do.\n", dir)
	case crawl.EndFinished:
		fmt.Fprintf(stdout, "Crawl finished: %d URLs fetched, %d bytes.\n", res.Fetched, res.Bytes)
	case crawl.EndLimit:
		fmt.Fprintf(stdout, "Crawl stopped at a limit: %d URLs fetched, %d bytes, %d still queued.\n", res.Fetched, res.Bytes, res.Stats.Queued)
		fmt.Fprintf(stdout, "Run the same command with a higher limit to go on.\n")
	case crawl.EndCancelled:
		fmt.Fprintf(stdout, "Crawl interrupted: %d URLs fetched, %d queued. Run the same command to resume.\n", res.Fetched, res.Stats.Queued+res.Stats.InFlight)
	}
	fmt.Fprintf(stdout, "  WARC files: %s\n  CDXJ index: %s\n  crawl.log:  %s\n",
		filepath.Join(dir, crawl.WARCDir), filepath.Join(dir, crawl.CDXJFile), filepath.Join(dir, crawl.CrawlLogFile))
	return nil
}

// buildConfig assembles the crawl configuration: the --config file (or, when resuming with no
// seeds given, the crawl directory's crawl.yaml), then the seeds on the command line, then flags.
func buildConfig(f *crawlFlags, set map[string]bool, positional []string) (*seeds.Config, error) {
	cfg := &seeds.Config{}
	switch {
	case f.config != "":
		c, err := seeds.LoadConfig(f.config)
		if err != nil {
			return nil, err
		}
		cfg = c
	case len(positional) == 0 && f.dir != "":
		p := filepath.Join(f.dir, crawl.ConfigFile)
		if _, err := os.Stat(p); err == nil {
			c, err := seeds.LoadConfig(p)
			if err != nil {
				return nil, err
			}
			cfg = c
		}
	}
	for _, a := range positional {
		if seeds.LooksLikeURL(a) {
			if err := seeds.CheckURL(a); err != nil {
				return nil, err
			}
			cfg.Seeds = append(cfg.Seeds, seeds.SeedSpec{URL: a, Type: string(scope.StandardSeed)})
			continue
		}
		ss, err := seeds.ParseFile(a)
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			cfg.Seeds = append(cfg.Seeds, seeds.SeedSpec{URL: s.URL, Type: string(s.Type)})
		}
	}
	if len(cfg.Seeds) == 0 {
		return nil, usageError{"no seeds: give URLs, a seeds file, or --config with seeds"}
	}
	if set["collection"] {
		cfg.Collection = f.collection
	}
	if cfg.Collection == "" {
		cfg.Collection = "amber"
	}
	if set["operator"] {
		cfg.Operator = f.operator
	}
	if set["user-agent"] {
		cfg.UserAgent = f.userAgent
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = seeds.DefaultUserAgent
	}
	if set["workers"] {
		cfg.Workers = f.workers
	}
	if cfg.Workers <= 0 {
		cfg.Workers = defaultWorkers
	}
	if set["host-delay"] {
		d := f.hostDelay
		cfg.Politeness.HostDelay = &d
	}
	if cfg.Politeness.HostDelay == nil {
		d := defaultHostDelay
		cfg.Politeness.HostDelay = &d
	}
	if set["host-concurrency"] {
		cfg.Politeness.HostConcurrency = f.hostConcurrency
	}
	if cfg.Politeness.HostConcurrency <= 0 {
		cfg.Politeness.HostConcurrency = defaultHostConcurrency
	}
	if set["ignore-robots"] {
		cfg.Politeness.IgnoreRobots = f.ignoreRobots
	}
	if set["max-attempts"] {
		cfg.Politeness.MaxAttempts = f.maxAttempts
	}
	if set["retry-delay"] {
		cfg.Politeness.RetryDelay = f.retryDelay
	}
	if set["limit"] {
		cfg.Limits.URLs = f.limit
	}
	if set["time-limit"] {
		cfg.Limits.Time = f.timeLimit
	}
	for _, sz := range []struct {
		name, value string
		dst         *seeds.ByteSize
	}{
		{"size-limit", f.sizeLimit, &cfg.Limits.Bytes},
		{"max-response-size", f.maxResponseSize, &cfg.Limits.ResponseSize},
		{"warc-max-size", f.warcMaxSize, &cfg.WARC.MaxSize},
	} {
		if !set[sz.name] {
			continue
		}
		n, err := seeds.ParseByteSize(sz.value)
		if err != nil {
			return nil, usageError{fmt.Sprintf("--%s: %v", sz.name, err)}
		}
		*sz.dst = n
	}
	if set["allow-private"] {
		cfg.Network.AllowPrivate = f.allowPrivate
	}
	if set["verify-tls"] {
		cfg.Network.VerifyTLS = f.verifyTLS
	}
	cfg.Network.ConnectTo = append(cfg.Network.ConnectTo, f.connectTo...)
	for _, r := range f.include {
		cfg.Scope.Accept = append(cfg.Scope.Accept, seeds.RuleSpec{Text: r})
	}
	for _, r := range f.exclude {
		cfg.Scope.Block = append(cfg.Scope.Block, seeds.RuleSpec{Text: r})
	}
	if set["flavour"] {
		cfg.Scope.Flavour = f.flavour
	}
	if set["no-documents"] {
		on := !f.noDocuments
		cfg.Documents.Enabled = &on
	}
	if set["fetcher"] {
		cfg.Fetcher = f.fetcher
	}
	if cfg.Fetcher == "" {
		cfg.Fetcher = crawl.FetcherHTTP
	}
	if cfg.Fetcher != crawl.FetcherHTTP && cfg.Fetcher != crawl.FetcherBrowser {
		return nil, usageError{fmt.Sprintf("fetcher %q: want http or browser", cfg.Fetcher)}
	}
	if set["browser-path"] {
		cfg.Browser.Path = f.browserPath
	}
	if set["browser-tabs"] {
		cfg.Browser.Tabs = f.browserTabs
	}
	if set["page-timeout"] {
		cfg.Browser.PageTimeout = f.pageTimeout
	}
	if set["behavior-timeout"] {
		cfg.Browser.BehaviorTimeout = f.behaviorTimeout
	}
	if set["screenshot"] || cfg.Browser.Screenshot == nil {
		on := f.screenshot
		cfg.Browser.Screenshot = &on
	}
	return cfg, nil
}

// crawlConfig turns the effective configuration into the crawl package's Config.
func crawlConfig(cfg *seeds.Config, f *crawlFlags, set map[string]bool) (crawl.Config, error) {
	// The default scope flavour follows the fetcher (spec/scope.md).
	flavour := scope.Standard
	if cfg.Fetcher == crawl.FetcherBrowser {
		flavour = scope.Brozzler
	}
	sc, err := cfg.ScopeConfig(flavour)
	if err != nil {
		return crawl.Config{}, err
	}
	var conns []fetch.ConnectTo
	for _, s := range cfg.Network.ConnectTo {
		ct, err := fetch.ParseConnectTo(s)
		if err != nil {
			return crawl.Config{}, usageError{fmt.Sprintf("connect-to %q: %v", s, err)}
		}
		conns = append(conns, ct)
	}
	dir := f.dir
	if dir == "" {
		dir = filepath.Join("crawls", cfg.Collection+"-"+time.Now().UTC().Format("20060102T150405Z"))
	}
	effective, err := cfg.Marshal()
	if err != nil {
		return crawl.Config{}, err
	}
	return crawl.Config{
		Dir:             dir,
		Collection:      cfg.Collection,
		Operator:        cfg.Operator,
		Description:     cfg.Description,
		Software:        "amber/" + version,
		EffectiveConfig: effective,
		Scope:           sc,
		Workers:         cfg.Workers,
		HostDelay:       *cfg.Politeness.HostDelay,
		HostConcurrency: cfg.Politeness.HostConcurrency,
		MaxAttempts:     cfg.Politeness.MaxAttempts,
		RetryDelay:      cfg.Politeness.RetryDelay,
		IgnoreRobots:    cfg.Politeness.IgnoreRobots,
		LimitURLs:       cfg.Limits.URLs,
		LimitBytes:      int64(cfg.Limits.Bytes),
		TimeLimit:       cfg.Limits.Time,
		Fetcher:         cfg.Fetcher,
		Browser: browser.Config{
			Path:            cfg.Browser.Path,
			Tabs:            cfg.Browser.Tabs,
			PageTimeout:     cfg.Browser.PageTimeout,
			BehaviorTimeout: cfg.Browser.BehaviorTimeout,
			Screenshot:      *cfg.Browser.Screenshot,
		},
		NoDocuments:     cfg.Documents.Enabled != nil && !*cfg.Documents.Enabled,
		NoDocumentDedup: cfg.Documents.Deduplication != nil && !*cfg.Documents.Deduplication,
		Documents: extract.DocConfig{
			MaxTitleSize:         cfg.Documents.MaxTitleSize,
			MaxBodySize:          cfg.Documents.MaxBodySize,
			MaxKeywordsSize:      cfg.Documents.MaxKeywordsSize,
			MaxDescriptionSize:   cfg.Documents.MaxDescriptionSize,
			MaxHeadingsCount:     cfg.Documents.MaxHeadingsCount,
			MaxIndexedLinksCount: cfg.Documents.MaxIndexedLinksCount,
			ContentHashFields:    cfg.Documents.DeduplicationFields,
			BinaryContentTypes:   cfg.Documents.BinaryMIMETypes,
		},
		WARCPrefix:  cfg.WARC.Prefix,
		WARCMaxSize: int64(cfg.WARC.MaxSize),
		Fetch: fetch.Config{
			UserAgent:        cfg.UserAgent,
			AllowPrivate:     cfg.Network.AllowPrivate,
			ConnectTo:        conns,
			VerifyTLS:        cfg.Network.VerifyTLS,
			ConnectTimeout:   cfg.Network.ConnectTimeout,
			FirstByteTimeout: cfg.Network.FirstByteTimeout,
			ResponseTimeout:  cfg.Network.ResponseTimeout,
			MaxResponseSize:  int64(cfg.Limits.ResponseSize),
		},
	}, nil
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

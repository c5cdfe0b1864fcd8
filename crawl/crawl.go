package crawl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/amber-crawler/amber/addrgate"
	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/content"
	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/diskspace"
	"github.com/amber-crawler/amber/documents"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/listing"
	"github.com/amber-crawler/amber/login"
	"github.com/amber-crawler/amber/patch"
	"github.com/amber-crawler/amber/platform"
	"github.com/amber-crawler/amber/prior"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/robots"
	"github.com/amber-crawler/amber/schedule"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/sitelimit"
	"github.com/amber-crawler/amber/subcoll"
	"github.com/amber-crawler/amber/warc"
)

// Why a run of the crawl ended (Result.End).
const (
	EndFinished        = "finished"         // nothing left to fetch
	EndLimit           = "limit"            // a URL, byte or time limit was reached
	EndCancelled       = "cancelled"        // the context was cancelled (Ctrl-C)
	EndAlreadyFinished = "already-finished" // the crawl directory holds a finished crawl; nothing was done
	EndDiskFull        = "disk-full"        // free space fell below MinFreeSpace or a write failed with ENOSPC; Run's error wraps ErrDiskFull
)

// ErrDiskFull is wrapped by the error Run returns when the crawl stopped because a disk ran out
// of room: free space fell below MinFreeSpace, or a write failed with ENOSPC. The error is a
// *DiskFullError naming the directory. The run ended cleanly (EndDiskFull); running the crawl
// again once there is room resumes it.
var ErrDiskFull = diskspace.ErrFull

// DiskFullError says which directory ran out of room (diskspace.FullError).
type DiskFullError = diskspace.FullError

// EffectiveMinFreeSpace is the free space, in bytes, a crawl with the MinFreeSpace setting
// keeps on a filesystem of fsSize bytes (diskspace.EffectiveMin).
func EffectiveMinFreeSpace(setting, fsSize int64) int64 {
	return diskspace.EffectiveMin(setting, fsSize)
}

// Paths inside the crawl directory (design §3; package crawldir).
const (
	ConfigFile   = crawldir.ConfigFile
	StateDir     = crawldir.StateDir
	WARCDir      = crawldir.WARCDir
	CDXJFile     = crawldir.CDXJFile     // sorted in byte order at the end of every run
	LiveCDXJFile = crawldir.LiveCDXJFile // append order, written while the crawl runs
	CrawlLogFile = crawldir.CrawlLogFile
	// DocumentsFile is the search-document stream (package documents).
	DocumentsFile = crawldir.DocumentsFile
)

// metaFinished is the key of the crawl's end in the frontier's meta store.
const metaFinished = "crawl/finished"

// Result says how a run ended and what the crawl holds so far.
type Result struct {
	End     string         // one of the End* constants
	Fetched int64          // URLs with a response, over all runs of this crawl
	Bytes   int64          // raw response bytes, over all runs
	Stats   frontier.Stats // the frontier's counts at the end of the run
	Patch   *patch.Result  // what a patch crawl (Config.Patch) made of its URLs; nil for another run
}

// crawler is one run of a crawl: the components and the counters the workers share.
type crawler struct {
	cfg       Config
	log       *slog.Logger
	scope     *liveScope // the scope now: swapped by the Handle (add-seed, block, unblock), widened by seed redirects
	links     *outlinks  // what a fetched URL points at, decided and queued (decide.go)
	rec       *records   // what the crawl keeps: captures, documents, crawl.log, URLs kept out (records.go)
	h         *Handle    // live changes: pause gate, URL limit, scope, host delays (handle.go)
	front     frontier.Store
	client    *fetch.Client
	warc      *warc.Writer
	clog      *report.CrawlLog
	events    *report.Events
	docs      *documents.Stream // nil when documents are off
	browser   *browser.Fetcher  // nil with the plain HTTP fetcher
	robots    *robots.Gate
	listings  *listing.Listings  // sitemaps and feeds
	sites     *sitelimit.Limiter // per-host limits; robots.txt requests count too
	platforms *platform.Guard    // platform rules: hosts recognised, their no-content URLs left out
	logins    *login.Gate        // nil without Config.Logins
	addrs     *addrgate.Gate     // addresses: ip scope rules, Config.PerIP
	resolver  *fetch.Resolver    // the one name resolution of the crawl
	subs      *subcoll.Set       // nil without Config.Subcollections
	disk      *diskspace.Monitor // nil when MinFreeSpace is negative

	chain    hooks           // the chain every claimed URL goes through (chain.go)
	settings *chain.Settings // the collection's settings: a URL's unless its subcollection's

	budget  *budget     // what was fetched against the URL and byte limits (budget.go)
	done    atomic.Bool // the frontier said nothing is left
	tally   tally       // crawl.log lines of this run by status and outcome
	obs     observers   // the run's observers (Handle.Watch): of tally and front
	started time.Time   // when this run started
	startN  int64       // fetched when this run started

	sched  *schedule.Follower // Config.DelaySchedule
	reader *content.Reader    // the content of pages: links and documents
	// recrawl makes the requests of a recrawl conditional and reads back the earlier
	// captures of pages that answer 304; nil without Config.RecrawlOf.
	recrawl *prior.Recrawl

	patch    bool          // the run crawls a patch (isPatching): patch.Links in the chain
	patchRes *patch.Result // what the run's Config.Patch became
}

// Run runs the crawl described by cfg (start from DefaultConfig; cfg must pass Validate) until it finishes, reaches a limit, or ctx is cancelled,
// and leaves the crawl directory consistent in every case: WARC files closed and renamed, the
// frontier flushed (URLs in flight go back to the queue on the next run). Running it again on
// the same directory resumes the crawl; on a finished crawl it returns EndAlreadyFinished.
// Errors are fatal conditions (the directory cannot be written, the state cannot be opened); a
// URL that fails is an outcome recorded in crawl.log, not an error. A disk that runs out of room
// (MinFreeSpace, or ENOSPC at any write) ends the run cleanly with EndDiskFull and an error
// wrapping ErrDiskFull; the crawl resumes when run again.
func Run(ctx context.Context, cfg Config) (res Result, err error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	cfg.derive()
	if err := cfg.loadClientCert(); err != nil {
		return Result{}, err
	}
	// ctl stop cancels the run as Ctrl-C does.
	ctx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	defer func() {
		// Room ran out before the run could start, or while it ended.
		if err = diskspace.AsFull(err, cfg.MinFreeSpace, cfg.dirs()...); errors.Is(err, ErrDiskFull) {
			res.End = EndDiskFull
		}
	}()
	if err := makeDirs(cfg.Dir); err != nil {
		return Result{}, err
	}
	front, err := openFrontier(ctx, cfg)
	if err != nil {
		return Result{}, fmt.Errorf("open frontier: %w", err)
	}
	defer func() {
		if cerr := front.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close frontier: %w", cerr)
		}
	}()

	if len(cfg.Patch) > 0 {
		if err := preparePatch(cfg, front); err != nil {
			return Result{}, err
		}
		// The crawl may have stopped at its limits: the patch is what the archivist asks for now.
		cfg.LimitURLs, cfg.LimitBytes = 0, 0
	}
	if v, ok, err := front.Meta(metaFinished); err != nil {
		return Result{}, fmt.Errorf("read crawl state: %w", err)
	} else if ok && len(v) > 0 && cfg.Shared == nil {
		// A shared crawl that finished still runs in a process that did not see it finish
		// (killed, restarted since): it finds nothing to claim, and recovers, indexes and
		// reports what its own directory holds.
		cfg.Logger.Info("crawl already finished; nothing to do", "dir", cfg.Dir, "finished", string(v))
		b, err := newBudget(front, cfg, nil)
		if err != nil {
			return Result{}, err
		}
		c := &crawler{front: front, budget: b}
		return c.result(EndAlreadyFinished), nil
	}
	c, err := open(ctx, cfg, front)
	if err != nil {
		return Result{}, err
	}
	c.h = newHandle(c, stopRun)
	defer c.h.gate.close()
	c.chain = newHooks(c.processors(), c.fetchURL)
	if err := c.h.restore(); err != nil {
		return c.endRun("", err)
	}
	svcs := &services{list: cfg.Services}
	defer svcs.stop() // after the final counters and reports: a last scrape sees them
	if err := svcs.start(c.h); err != nil {
		svcs.drain()
		return c.endRun("", err)
	}
	end, runErr := c.begin(ctx)
	if runErr == nil {
		end, runErr = c.run(ctx)
	}
	svcs.drain() // no changes while the run ends
	return c.endRun(end, runErr)
}

// dirs are the directories the crawl writes to whose filesystems may fill: the crawl
// directory, the WARC directory and the state directory.
func (c *Config) dirs() []string {
	return []string{c.Dir, filepath.Join(c.Dir, WARCDir), filepath.Join(c.Dir, StateDir)}
}

// makeDirs creates the directories of the crawl directory.
func makeDirs(dir string) error {
	for _, d := range []string{StateDir, WARCDir, filepath.Dir(CDXJFile), filepath.Dir(CrawlLogFile)} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return fmt.Errorf("create crawl directory: %w", err)
		}
	}
	return nil
}

// open prepares a run on an open frontier: scope, HTTP client, WARC files (recovering those an
// earlier run left open), crawl.log, events, documents and the browser. On an error everything
// it opened is closed again.
func open(ctx context.Context, cfg Config, front frontier.Store) (c *crawler, err error) {
	c = &crawler{cfg: cfg, log: cfg.Logger, started: time.Now()}
	c.front, c.tally.obs = &watchedStore{Store: front, obs: &c.obs}, &c.obs
	if c.patch, err = isPatching(cfg, front); err != nil {
		return c, fmt.Errorf("read crawl state: %w", err)
	}
	c.reader = content.New(content.Config{Documents: cfg.Documents, NoDocuments: cfg.NoDocuments, MaxOutlinks: cfg.MaxOutlinks,
		RefreshRedirectMax: cfg.URLs.RefreshRedirectMax, IgnoreMeta: cfg.Robots.IgnoreMeta}, c.log)
	if cfg.RecrawlOf != "" {
		c.recrawl = prior.NewRecrawl(ctx, c.priorConfig(), c.reader.Reads)
	}
	// The budget uses a shared frontier's Counters, beyond its Store.
	if c.budget, err = newBudget(front, cfg, func() int64 { return c.h.Limit() }); err != nil {
		return c, err
	}
	defer func() {
		if err != nil {
			c.close()
			if c.events != nil {
				c.events.Close()
			}
		}
	}()
	if len(cfg.EffectiveConfig) > 0 {
		if err := os.WriteFile(filepath.Join(cfg.Dir, ConfigFile), cfg.EffectiveConfig, 0o644); err != nil {
			return c, fmt.Errorf("write %s: %w", ConfigFile, err)
		}
	}
	sc, err := scope.New(cfg.Scope)
	if err != nil {
		return c, fmt.Errorf("build scope: %w", err)
	}
	form := canonicalForm{flavour: cfg.Scope.Flavour, sortQuery: cfg.URLs.SortQuery}
	c.scope = &liveScope{front: front, form: form, log: c.log}
	c.scope.cur.Store(sc)
	c.resolver = fetch.NewResolver(cfg.Fetch.ConnectTo, cfg.Fetch.ConnectTimeout)
	if c.addrs, err = c.newAddrGate(sc); err != nil {
		return c, err
	}
	fc := cfg.Fetch
	fc.CheckAddr = c.addrs.Check
	if fc.MaxIdlePerHost == 0 && cfg.HostConcurrency > fetch.DefaultMaxIdlePerHost {
		// Keep a connection for every request open to a host at once, or each request past
		// the default would dial anew.
		fc.MaxIdlePerHost = cfg.HostConcurrency
	}
	if c.client, err = fetch.NewClient(fc); err != nil {
		return c, fmt.Errorf("build http client: %w", err)
	}
	// The subcollections' rules are decided on the hosts' addresses as the scope's are.
	deps := subcoll.Deps{Addr: c.addrs.HostAddr, SetHostDelay: c.setSubDelay}
	if c.subs, err = subcoll.New(cfg.Subcollections, cfg.collection(), fc, chain.Env{Log: c.log, Front: front}, deps); err != nil {
		return c, err
	}
	if c.subs.NeedsAddr() && cfg.Fetch.Proxy != nil {
		return c, &FieldError{Field: "Subcollections", Err: errors.New("ip rules cannot be combined with a proxy (Fetch.Proxy): through a proxy, amber does not know the address")}
	}
	storeNeeds := func() (int64, error) {
		sp, err := front.Space()
		return sp.Write, err
	}
	dirs := cfg.dirs()
	if c.disk, err = diskspace.NewMonitor(cfg.MinFreeSpace, dirs[0], dirs[1], dirs[2], filepath.Join(cfg.Dir, LiveCDXJFile), filepath.Join(cfg.Dir, CrawlLogFile), storeNeeds, c.log); err != nil {
		return c, err
	}
	if c.warc, err = c.openWARC(); err != nil {
		return c, err
	}
	if c.clog, err = report.OpenCrawlLog(filepath.Join(cfg.Dir, CrawlLogFile)); err != nil {
		return c, fmt.Errorf("open crawl.log: %w", err)
	}
	if c.events, err = report.OpenEvents(filepath.Join(cfg.Dir, EventsFile), report.EventsConfig{CrawlID: cfg.Collection, Version: cfg.Software}); err != nil {
		return c, fmt.Errorf("open events: %w", err)
	}
	if !cfg.NoDocuments {
		if c.docs, err = documents.Open(filepath.Join(cfg.Dir, DocumentsFile), front, cfg.Documents, !cfg.NoDocumentDedup); err != nil {
			return c, err
		}
	}
	c.rec = &records{warc: c.warc, clog: c.clog, events: c.events, docs: c.docs, tally: &c.tally, budget: c.budget,
		front: func() frontier.Store { return c.front }, frontierErr: c.frontierErr}
	if subcoll.UsesBrowser(cfg.Subcollections, cfg.collection()) {
		if c.browser, err = c.newBrowser(ctx); err != nil {
			return c, err
		}
	}
	if err := c.policies(); err != nil {
		return c, err
	}
	c.startN = c.budget.fetched.Load()
	return c, nil
}

// policies builds the processors of the chain that need the crawl's own parts (its
// environment, records, outlink decisions, clients): per-site limits, platform rules,
// listings, robots.txt, the delay schedule, logins, and the collection's settings.
func (c *crawler) policies() error {
	cfg, front := c.cfg, c.front
	pc := cfg.Platforms
	pc.Flavour = cfg.Scope.Flavour
	platforms, err := platform.New(pc, c.env())
	if err != nil {
		return &FieldError{Field: "Platforms", Err: err}
	}
	c.platforms = platforms
	c.sites = sitelimit.New(cfg.Sites, c.env(), c.budget.ctr, cfg.RetryDelay, sitelimit.Deps{HostKey: c.politeKey,
		URLsPerHost: func(sub frontier.URL) int64 { return c.subs.URLsPerHost(sub, cfg.Sites.URLsPerHost) }})
	c.links = &outlinks{urls: cfg.URLs, flavour: cfg.Scope.Flavour, max: cfg.MaxOutlinks, scope: c.scope, addrs: c.addrs, subs: c.subs,
		platforms: platforms, events: c.events, log: c.log, front: func() frontier.Store { return c.front }, logLine: c.rec.WriteLine, refuse: c.rec.refuse, frontierErr: c.frontierErr,
		patch: c.patch}
	c.listings = listing.New(cfg.Sitemaps, cfg.Feeds, c.env(), listing.Deps{Queue: c.links.queueListed, RobotsSitemaps: c.sitemapsFromRobots})
	c.links.listings = c.listings
	c.robots = robots.New(cfg.Robots, c.env(), robots.Deps{UserAgent: cfg.Fetch.UserAgent, Attempts: cfg.MaxAttempts,
		RetryDelay: cfg.RetryDelay, HostKey: c.politeKey, Client: c.hostClient, Hosts: c.sites, Sitemaps: c.listings.RobotsSitemaps})
	c.sched = schedule.New(cfg.DelaySchedule, schedule.Deps{SetDelay: front.SetDelay, Suspend: func(s bool) { c.h.gate.setSuspended(s) },
		Base: cfg.HostDelay, Events: c.events, Log: c.log, Clock: cfg.Clock})
	c.logins = login.NewGate(cfg.Logins, c.env(), login.Deps{Client: c.client, HostKey: c.politeKey, ArchiveAside: c.rec.aside})
	c.settings = &chain.Settings{Render: cfg.Fetcher == FetcherBrowser, Client: c.client, DropOversize: cfg.DropOversize,
		HostClient: c.client, URLsPerHost: cfg.Sites.URLsPerHost, SitemapsRobots: cfg.Sitemaps.Robots}
	return nil
}

// openWARC recovers the WARC files an earlier run left open and opens the writer.
func (c *crawler) openWARC() (*warc.Writer, error) {
	cfg := c.cfg
	if err := adoptLiveIndex(cfg.Dir); err != nil {
		return nil, err
	}
	recovered, err := warc.Recover(filepath.Join(cfg.Dir, WARCDir), filepath.Join(cfg.Dir, LiveCDXJFile))
	if err != nil {
		return nil, fmt.Errorf("recover warcs: %w", err)
	}
	for _, r := range recovered {
		c.log.Warn("recovered WARC file left open by an earlier run", "file", fmt.Sprintf("%+v", r))
	}
	var beforeWrite func(int64)
	if c.disk != nil {
		beforeWrite = c.disk.BeforeWrite
	}
	// The browser archives each resource its pages load once per crawl (Capture.Once): the
	// frontier remembers what the crawl holds, across runs and processes. A plain crawl marks
	// nothing Once and keeps no such index.
	var held warc.HeldIndex
	if subcoll.UsesBrowser(cfg.Subcollections, cfg.collection()) {
		held = c.front
	}
	w, err := warc.NewWriter(warc.Config{
		BeforeWrite: beforeWrite,
		Dir:         filepath.Join(cfg.Dir, WARCDir),
		Prefix:      cfg.WARCPrefix,
		Hostname:    cfg.warcHostname(),
		MaxSize:     cfg.WARCMaxSize,
		CDXJPath:    filepath.Join(cfg.Dir, LiveCDXJFile),
		Dedup:       prior.Index{Front: c.front, Priors: len(cfg.DedupFrom) > 0 || cfg.RecrawlOf != ""},
		Held:        held,
		Info: warc.Info{
			Software:    cfg.Software,
			Operator:    cfg.Operator,
			Collection:  cfg.Collection,
			Description: cfg.Description,
			UserAgent:   cfg.Fetch.UserAgent,
			Robots:      robotsPolicy(cfg.IgnoreRobots),
			Config:      cfg.EffectiveConfig,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("open warc writer: %w", err)
	}
	return w, nil
}

// priorConfig is what the crawl reads of the earlier crawls it builds on.
func (c *crawler) priorConfig() prior.Config {
	fl := c.cfg.Scope.Flavour
	return prior.Config{DedupFrom: c.cfg.DedupFrom, RecrawlOf: c.cfg.RecrawlOf, Dir: c.cfg.Dir, Front: c.front, Log: c.log,
		Canonical: func(raw string) (string, error) { return scope.Canonicalize(raw, fl) }}
}

// robotsPolicy is the warcinfo "robots" field, in Heritrix 3's words.
func robotsPolicy(ignore bool) string {
	if ignore {
		return "ignore"
	}
	return "obey"
}

// adoptLiveIndex makes the index of a crawl directory written before the live index existed
// (index.cdxj in append order) the live index, so recovery and sorting start from it.
func adoptLiveIndex(dir string) error {
	live, sorted := filepath.Join(dir, LiveCDXJFile), filepath.Join(dir, CDXJFile)
	if _, err := os.Stat(live); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := os.Stat(sorted); err != nil {
		return nil
	}
	if err := os.Rename(sorted, live); err != nil {
		return fmt.Errorf("adopt %s as the live index: %w", CDXJFile, err)
	}
	return nil
}

// sortIndex writes the sorted index (CDXJFile) from the live one: pywb and other replay tools
// binary-search it.
func (c *crawler) sortIndex() error {
	live := filepath.Join(c.cfg.Dir, LiveCDXJFile)
	if _, err := os.Stat(live); errors.Is(err, fs.ErrNotExist) {
		return nil // nothing was written yet
	}
	if err := warc.SortCDXJ(live, filepath.Join(c.cfg.Dir, CDXJFile)); err != nil {
		return fmt.Errorf("sort index: %w", err)
	}
	return nil
}

// begin records the start of the run: what the reports need to know, and the crawl-start event.
func (c *crawler) begin(context.Context) (string, error) {
	_, resumed, err := c.front.Meta(metaStarted)
	if err != nil {
		return "", fmt.Errorf("read crawl state: %w", err)
	}
	if err := c.describe(); err != nil {
		return "", err
	}
	if err := c.events.CrawlStart(resumed, len(c.cfg.Scope.Seeds)); err != nil {
		return "", fmt.Errorf("write crawl-start event: %w", err)
	}
	return "", nil
}

// close closes what open opened: the browser and the HTTP client, then at once (each is an
// fsync of its own file) the WARC files (they lose their .open), documents and crawl.log. The
// events log stays open for the end of the run. It returns the first error, in that order.
func (c *crawler) close() error {
	if c.browser != nil {
		if err := c.browser.Close(); err != nil {
			c.log.Warn("close browser", "err", err)
		}
		c.browser = nil
	}
	if c.client != nil {
		c.client.Close()
		c.client = nil
	}
	c.subs.Close()
	if c.recrawl != nil {
		if err := c.recrawl.Close(); err != nil {
			c.log.Warn("close earlier crawl", "err", err)
		}
		c.recrawl = nil
	}
	var errs [3]error
	var wg sync.WaitGroup
	if w := c.warc; w != nil {
		wg.Go(func() { errs[0] = w.Close() })
		c.warc = nil
	}
	if d := c.docs; d != nil {
		wg.Go(func() { errs[1] = d.Close() })
		c.docs = nil
	}
	if l := c.clog; l != nil {
		wg.Go(func() { errs[2] = l.Close() })
		c.clog = nil
	}
	wg.Wait()
	for i, what := range []string{"warc", "documents", "crawl.log"} {
		if errs[i] != nil {
			return fmt.Errorf("close %s: %w", what, errs[i])
		}
	}
	return nil
}

// endRun shuts the run down after the workers stopped: everything closed, the sorted index,
// counters and the end recorded in the frontier, the crawl-end event and the reports. Reports are
// written whatever the end; a failure to write them is reported but does not hide the crawl's
// own outcome.
// A write that failed for want of room, in the run or here, makes the end EndDiskFull and the
// error a *DiskFullError.
func (c *crawler) endRun(end string, runErr error) (Result, error) {
	runErr = c.diskFull(runErr)
	// keep makes err the run's error when it has none yet. A later one is logged only: on a full
	// disk the writes of the end fail too, and the first error is what stopped the run.
	keep := func(err error) {
		switch {
		case err == nil:
		case runErr == nil:
			runErr = c.diskFull(err)
		default:
			c.log.Warn("end the run", "err", err)
		}
	}
	keep(c.close())
	// The frontier's writes before the sort: on a full disk the sort may fail, the counters must not.
	keep(c.budget.save())
	keep(c.sortIndex())
	now := time.Now().UTC()
	if runErr == nil && end == EndFinished {
		if err := c.front.PutMeta(metaFinished, []byte(now.Format(time.RFC3339))); err != nil {
			keep(fmt.Errorf("record crawl end: %w", err))
		}
		if c.patch {
			if err := c.front.PutMeta(metaPatch, nil); err != nil {
				keep(fmt.Errorf("record crawl end: %w", err))
			}
		}
	}
	endReason := end
	switch {
	case errors.Is(runErr, ErrDiskFull):
		end, endReason = EndDiskFull, EndDiskFull
	case runErr != nil:
		endReason = report.EndFailed
	}
	if err := c.front.PutMeta(metaEnd, []byte(endReason+" "+now.Format(time.RFC3339Nano))); err != nil {
		keep(fmt.Errorf("record crawl end: %w", err))
	}
	if err := c.front.Sync(); err != nil {
		keep(fmt.Errorf("sync frontier: %w", err))
	}
	if c.events != nil {
		msg := fmt.Sprintf("%d URLs fetched, %d bytes", c.budget.fetched.Load(), c.budget.bytes.Load())
		if runErr != nil {
			msg = runErr.Error()
		}
		if err := c.events.CrawlEnd(endReason, msg); err != nil {
			keep(fmt.Errorf("write crawl-end event: %w", err))
		}
		if err := c.events.Close(); err != nil {
			keep(fmt.Errorf("close events: %w", err))
		}
	}
	if err := writeReports(c.cfg.Dir, c.front, now, endReason, c.cfg.Shared != nil); err != nil {
		c.log.Error("write reports", "err", err)
		if runErr == nil {
			runErr = c.diskFull(err)
		}
	}
	if errors.Is(runErr, ErrDiskFull) {
		end = EndDiskFull
	}
	return c.result(end), runErr
}

// diskFull turns a write error that ran out of room into a *DiskFullError.
func (c *crawler) diskFull(err error) error {
	return diskspace.AsFull(err, c.cfg.MinFreeSpace, c.cfg.dirs()...)
}

func (c *crawler) result(end string) Result {
	return Result{End: end, Fetched: c.budget.fetched.Load(), Bytes: c.budget.bytes.Load(), Stats: c.front.Stats(), Patch: c.patchRes}
}

// run seeds the frontier and runs the workers until the crawl ends.
func (c *crawler) run(ctx context.Context) (string, error) {
	if full := c.disk.Check(0); full != nil {
		return EndDiskFull, full
	}
	if err := prior.Load(ctx, c.priorConfig()); err != nil {
		if ctx.Err() != nil {
			return EndCancelled, nil // read again from the start by the next run
		}
		return "", err
	}
	if err := c.scope.restore(); err != nil {
		return "", err
	}
	if err := c.addSeeds(); err != nil {
		return "", err
	}
	if err := c.queuePatch(); err != nil {
		return "", err
	}
	if err := c.listings.Start(c.cfg.canonicalSeeds()); err != nil {
		return "", err
	}
	c.log.Info("crawl started", "dir", c.cfg.Dir, "seeds", len(c.cfg.Scope.Seeds), "workers", c.cfg.Workers)

	runCtx := ctx
	if c.cfg.TimeLimit > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeoutCause(ctx, c.cfg.TimeLimit, errTimeLimit)
		defer cancel()
	}
	defer c.startProgress(runCtx, c.started, c.startN)()

	// Low disk space stops the workers as a cancellation does: no more claims, fetches under
	// way are dropped (their URLs go back to the queue), captures being written finish.
	workCtx, stop := context.WithCancelCause(runCtx)
	defer stop(nil)
	waitSchedule, serr := c.sched.Start(workCtx) // before the first claim: it may suspend
	if serr != nil {
		return "", serr
	}
	defer waitSchedule()
	var watching sync.WaitGroup
	if c.disk != nil {
		watching.Go(func() { c.disk.Watch(workCtx, stop) })
	}
	g, gctx := errgroup.WithContext(workCtx)
	for i := range c.cfg.Workers {
		g.Go(func() error { return c.worker(gctx, i+1) })
	}
	err := g.Wait()
	stop(nil)
	watching.Wait()
	switch {
	case err != nil:
		return "", err
	case c.done.Load():
		return EndFinished, nil
	case c.disk.Err() != nil:
		return EndDiskFull, c.disk.Err()
	case c.budget.hit.Load() || errors.Is(context.Cause(runCtx), errTimeLimit):
		return EndLimit, nil
	default:
		return EndCancelled, nil
	}
}

var errTimeLimit = errors.New("crawl: time limit reached")

// addSeeds queues every seed (already-seen seeds of a resumed crawl are no-ops).
func (c *crawler) addSeeds() error { return c.queueSeeds(c.cfg.Scope.Seeds) }

// queueSeeds decides and queues seeds: those of the config, or one added through the Handle.
func (c *crawler) queueSeeds(seeds []scope.Seed) error {
	var batch []frontier.URL
	var types []scope.SeedType
	for _, s := range seeds {
		u, err := scope.Canonicalize(s.URL, c.cfg.Scope.Flavour)
		if err != nil {
			return fmt.Errorf("canonicalize seed %q: %w", s.URL, err)
		}
		fu := frontier.URL{URL: u, Host: hostKey(u), Seed: u, Priority: -1}
		// A seed is decided too: the elastic flavour's crawl rules apply to entry points
		// (spec/elastic.md §2). The other flavours take every seed.
		if d := c.scope.load().Decide(scope.Candidate{URL: u, Seed: u}); !d.In {
			if err := c.links.reject(0, frontier.URL{Seed: u}, decision{url: fu, decision: d}); err != nil {
				return err
			}
			continue
		}
		batch = append(batch, fu)
		types = append(types, s.Type)
	}
	added, err := c.front.AddBatch(batch)
	if err != nil {
		return fmt.Errorf("add seeds: %w", err)
	}
	for i, r := range added {
		if r.Err != nil {
			return fmt.Errorf("add seed %s: %w", batch[i].URL, r.Err)
		}
		if r.New {
			t := string(types[i])
			if t == "" {
				t = string(scope.StandardSeed)
			}
			if err := c.events.URLSeed(report.URLInfo{URL: batch[i].URL, Seed: batch[i].URL}, t); err != nil {
				return fmt.Errorf("write seed event: %w", err)
			}
		}
	}
	return nil
}

// worker claims URLs and processes them until the crawl ends. It returns an error only for a
// fatal condition; ctx cancellation is a normal end.
func (c *crawler) worker(ctx context.Context, id int) error {
	for {
		if ctx.Err() != nil || c.budget.hit.Load() {
			return nil
		}
		// Paused (ctl pause): wait here; a pause while waiting for a URL claims none.
		claimCtx := c.h.gate.claimContext(ctx)
		if claimCtx == nil {
			return nil
		}
		if !c.budget.reserve() {
			return nil
		}
		cl, err := c.front.Claim(claimCtx)
		if err != nil {
			c.budget.unreserve()
			switch {
			case errors.Is(err, frontier.ErrDone):
				c.done.Store(true)
				return nil
			case ctx.Err() != nil:
				return nil
			case claimCtx.Err() != nil:
				continue // paused, or a new URL limit: reserve again
			default:
				return fmt.Errorf("claim url: %w", err)
			}
		}
		if err := c.process(ctx, id, cl); err != nil {
			return err
		}
	}
}

// Package redisfront is a crawl frontier in Redis (or Valkey) that several crawler processes,
// on several machines, share: a frontier.Store whose queue, seen set, claims, politeness,
// retries, digest index, held captures, earlier captures, metadata and counters live in the
// server, so that the processes working on one crawl hand out every URL once and keep every
// host's politeness between them. It keeps the promises of frontier's package doc, except where
// this doc says otherwise.
//
// # Keys
//
// Every key of a crawl starts with amber:{CRAWLID}: (P below). The braces are a Redis Cluster
// hash tag: all of a crawl's keys are in one slot, as its Lua scripts need.
//
//	P u          hash   URL -> state letter (q queued, i in flight, d done, f failed,
//	                    r rejected), queue score, newline, record (Host, Hops, Via, Seed,
//	                    HopsOff, Attempts, Priority, Status, Reason, Sitemap): the seen set
//	P q:HOST     zset   the host's queued URLs by score priority*2^40 + sequence number
//	                    (priority clamped to ±2047; with Config.Levels level*16 + priority
//	                    + 8, priority clamped to -8..7): priority order, then order of adding
//	P nb:HOST    zset   the host's URLs to retry, by the time (µs) they may be claimed; moved
//	                    to q:HOST, at their score, once due
//	P hosts      zset   hosts with URLs that may be claimed, by the time (µs) they may be:
//	                    ready hosts are claimed in the order they became ready (round robin)
//	P h:HOST     hash   the host's politeness: i claims in flight, b requests in progress,
//	                    w Pace calls waiting for a request slot, e end of its latest request
//	                    (µs), k backoff until (µs), d robots Crawl-delay (µs), o operator's
//	                    delay (µs), s claims since it took its site place (MaxSites)
//	P hosts:L    zset   with Config.Levels: the hosts of level L (their first URL's) as P hosts
//	P lv         hash   Config.Levels as Open wrote it, and the pick's state (rr: next; wrr:
//	                    cL, level L's current weight)
//	P sa         hash   MaxSites: the hosts holding a site place -> a (active) or r (sent back
//	                    by MaxInterDocs, draining its claims)
//	P sw         zset   MaxSites: the hosts waiting for a site place, in line (by P swseq)
//	P c          hash   URL -> its claim (MessagePack: token, instance, host, host of the
//	                    request in progress, host of a Pace's wait)
//	P pc:INST    set    the URLs an instance has claimed
//	P procs      zset   instances by the expiry of their lease (µs)
//	P n          hash   counters: q queued, i in flight, d done, f failed, r rejected
//	P seq, P tok, P inst   counters of queue sequence numbers, claim tokens, instances
//	P d          hash   payload digest -> first capture (date, URI)
//	P held       set    the captures the crawl holds (StoreHeld's keys: URL, status, payload digest)
//	P pd, P pu   hash   earlier crawls' captures by digest, by URL
//	P m, P mk    hash, zset   metadata key -> value; the keys, for ScanMeta's ordered scans
//	P cnt        hash         the crawl's own counters (AddCounter: URLs reserved, bytes)
//	P fin:TOKEN  string       a finished claim's token, for 5 minutes: a finish sent again is not refused
//
// Times are the server's (TIME): one clock for every process. A time a caller passes (the end
// of a response, a retry's not-before, a backoff) is sent as an offset from the caller's own
// now, so the clocks of the crawler machines may differ.
//
// # Claims and leases
//
// Each Open is an instance of its process (Config.Process plus a number) with a lease in P
// procs, which a goroutine renews every Lease/3. A claim is recorded with its instance; when an
// instance's lease expires (its process was killed, or lost the server for longer than Lease),
// the next Claim of any process queues that instance's URLs again at their places and frees
// their host slots. Open queues again at once the URLs of earlier instances of its Process (a
// restarted process), so Process must name one live process at a time. Close queues its
// instance's unfinished URLs again. A claim whose lease expired is no longer its holder's:
// finishing it returns frontier.ErrClaimFinished. The renewal also queues again the URLs
// the server has as claimed by this instance that the instance does not hold (a claim whose
// reply was lost with its connection).
//
// # Durability
//
// A method that changes state returns once the server has executed the change (one script,
// atomic): every other process sees it from then on. That it survives a crash of the server
// is then the server's persistence: with appendonly yes and appendfsync everysec (the
// configuration this package is tested with) a change is on disk within about a second, so a
// Redis crash or power loss loses at most the last second; a clean shutdown (SIGTERM) loses
// nothing. Sync does nothing. A crawler process killed with kill -9 loses nothing: its claims
// come back when its lease expires.
//
// # Differences from *frontier.Frontier
//
// Each reports URLs in no particular order (a hash scan), and a URL changed while Each runs may
// be reported twice. Space reports the free space of Config.Dir (the process's crawl directory),
// not of the server, and ErrNoSpace means the server refuses writes (maxmemory reached: OOM, or
// its disk failed it: MISCONF). SetHostDelay, SetHostDelayOverride and HostBackoff are shared
// by all processes and stored; they return no error, and a failure to store them is dropped.
// Claim polls the server while it waits (from 2 ms up to 100 ms apart, sooner when a host
// becomes ready or this process finishes a claim), so a URL another process makes claimable
// is claimed up to 100 ms later.
package redisfront

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/amber-crawler/amber/diskspace"
	"github.com/amber-crawler/amber/frontier"
)

// Config configures a Frontier. Every process of a crawl must give the same CrawlID,
// HostDelay, HostConcurrency, MaxAttempts, MaxSites and MaxInterDocs (and SetDelay the same
// delays).
type Config struct {
	// URL is the server: redis://[[USER]:PASSWORD@]HOST:PORT/DB (rediss:// for TLS). Required.
	URL string
	// CrawlID names the crawl's keys (amber:{CrawlID}:...): several crawls share a server.
	// Required; no braces.
	CrawlID string
	// Process names this process among the crawl's processes, for its leases. Two live
	// processes must not share one: Open takes the claims of an earlier process of the same
	// name back. Default: HOSTNAME-PID.
	Process string
	// Dir is the directory whose filesystem Space reports (the process's crawl directory).
	// Default "": Space reports no limit.
	Dir string
	// HostDelay, HostConcurrency and MaxAttempts are as in frontier.Config: default 0, 1, 3.
	HostDelay       time.Duration
	HostConcurrency int
	MaxAttempts     int
	// MaxSites and MaxInterDocs are as in frontier.Config (sites crawled at once, across all
	// processes): default 0, no bound.
	MaxSites, MaxInterDocs int
	// Levels are the queue's priority levels, as in frontier.Config (at most MaxLevels; see
	// levels.go). Default: one level.
	Levels frontier.Levels
	// Lease is how long a claim outlives its process: the URLs of a process that stopped
	// renewing (killed, or cut off from the server) are queued again this long after its last
	// renewal. Default 30s.
	Lease time.Duration
}

// Polling bounds of a waiting Claim or Pace.
const (
	minPoll = 2 * time.Millisecond
	maxPoll = 100 * time.Millisecond
)

// Frontier is a crawl frontier in Redis, shared by the processes of a crawl. All methods are
// safe for concurrent use.
type Frontier struct {
	rdb    *redis.Client
	cfg    Config
	prefix string
	inst   string
	base   []any        // ARGV[1..7] of every script (ARGV[3], the delay, is delay's)
	delay  atomic.Int64 // the host delay in µs: Config.HostDelay, or SetDelay's
	keys   []string     // KEYS of every script

	// claiming is held (read) by a Claim from its script until its claim is in live, and
	// (write) by the renewal while it compares the server's claims with live.
	claiming sync.RWMutex
	ops      sync.WaitGroup // calls to the server; Close waits for them
	stop     chan struct{}  // closed by Close: the renewal ends
	renewed  chan struct{}  // closed when the renewal has ended

	mu     sync.Mutex // guards the fields below and every lease's state
	closed bool
	live   map[string]*lease // the claims this instance holds, by URL
	wake   chan struct{}     // closed and cleared by broadcast
	stats  frontier.Stats    // the last counters read
}

var _ frontier.Store = (*Frontier)(nil)

// lease is a claim's state here (frontier.Claim.Ext).
type lease struct {
	f     *Frontier
	token int64
	rec   record
	state int // active, finishing or finished; guarded by f.mu
}

const (
	active = iota
	finishing
	finished
)

// Validate reports, wrapping frontier.ErrConfig, what Open would refuse in c: an empty or
// unparsable URL, an empty crawl id or one with braces, a negative HostDelay, Lease, MaxSites
// or MaxInterDocs, a Process with a slash.
func (c Config) Validate() error {
	if c.URL == "" {
		return fmt.Errorf("%w: empty URL", frontier.ErrConfig)
	}
	if _, err := redis.ParseURL(c.URL); err != nil {
		return fmt.Errorf("%w: %w", frontier.ErrConfig, err)
	}
	if c.CrawlID == "" || strings.ContainsAny(c.CrawlID, "{}") {
		return fmt.Errorf("%w: crawl id %q (want a non-empty id without braces)", frontier.ErrConfig, c.CrawlID)
	}
	if c.HostDelay < 0 || c.Lease < 0 {
		return fmt.Errorf("%w: negative HostDelay or Lease", frontier.ErrConfig)
	}
	if c.MaxSites < 0 || c.MaxInterDocs < 0 {
		return fmt.Errorf("%w: negative MaxSites or MaxInterDocs", frontier.ErrConfig)
	}
	if strings.Contains(c.Process, "/") {
		return fmt.Errorf("%w: process %q contains /", frontier.ErrConfig, c.Process)
	}
	return checkLevels(c.Levels)
}

// Open connects to the server and registers this process's instance, queueing again the
// URLs an earlier instance of Config.Process held. It fails with an error wrapping
// frontier.ErrConfig for an invalid Config, and with the server's error when it cannot be
// reached.
func Open(ctx context.Context, cfg Config) (*Frontier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Process == "" {
		h, _ := os.Hostname()
		cfg.Process = fmt.Sprintf("%s-%d", h, os.Getpid())
	}
	if cfg.HostConcurrency <= 0 {
		cfg.HostConcurrency = 1
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	if cfg.Lease == 0 {
		cfg.Lease = 30 * time.Second
	}
	opt, _ := redis.ParseURL(cfg.URL) // checked by Validate
	// A restarted server takes a moment to come back: retry a failed call for a few seconds.
	opt.MaxRetries = 10
	opt.MaxRetryBackoff = time.Second
	rdb := redis.NewClient(opt)
	f := &Frontier{
		rdb:     rdb,
		cfg:     cfg,
		prefix:  "amber:{" + cfg.CrawlID + "}:",
		stop:    make(chan struct{}),
		renewed: make(chan struct{}),
		live:    make(map[string]*lease),
	}
	f.keys = []string{f.prefix + "n"}
	n, err := rdb.Incr(ctx, f.prefix+"inst").Result()
	if err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("redisfront: open %s: %w", cfg.URL, err)
	}
	f.inst = cfg.Process + "/" + strconv.FormatInt(n, 10)
	f.base = []any{f.prefix, cfg.HostConcurrency, cfg.HostDelay.Microseconds(), f.inst, cfg.Lease.Microseconds(),
		cfg.MaxSites, cfg.MaxInterDocs}
	f.delay.Store(cfg.HostDelay.Microseconds())
	if err := f.setLevels(ctx); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("redisfront: open %s: levels: %w", cfg.URL, err)
	}
	if err := f.run(ctx, scriptRegister, cfg.Process).Err(); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("redisfront: open %s: %w", cfg.URL, err)
	}
	go f.renewLoop()
	return f, nil
}

// run runs a script with the common arguments followed by args.
func (f *Frontier) run(ctx context.Context, s *redis.Script, args ...any) *redis.Cmd {
	a := make([]any, 0, len(f.base)+len(args))
	a = append(a, f.base...)
	a[2] = f.delay.Load()
	a = append(a, args...)
	return s.Run(ctx, f.rdb, f.keys, a...)
}

// enter registers a call to the server; it fails once Close has begun.
func (f *Frontier) enter() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return frontier.ErrClosed
	}
	f.ops.Add(1)
	return nil
}

// wrap makes a server error this package's: ErrNoSpace when the server refuses writes for
// lack of memory or disk.
func wrap(op string, err error) error {
	var re redis.Error
	if errors.As(err, &re) {
		if m := re.Error(); strings.Contains(m, "OOM ") || strings.Contains(m, "MISCONF ") {
			return fmt.Errorf("redisfront: %s: %w: %w", op, frontier.ErrNoSpace, err)
		}
	}
	return fmt.Errorf("redisfront: %s: %w", op, err)
}

// renewLoop renews this instance's lease every Lease/3 until Close.
func (f *Frontier) renewLoop() {
	defer close(f.renewed)
	t := time.NewTicker(f.cfg.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
		}
		// A failure (the server restarting) is retried on the next tick; a lease that
		// expires meanwhile has its URLs queued again, as it should.
		_ = f.renew()
	}
}

// renew extends the lease and queues again the URLs the server has as claimed by this
// instance that it does not hold.
func (f *Frontier) renew() error {
	f.claiming.Lock()
	defer f.claiming.Unlock()
	f.mu.Lock()
	args := make([]any, 0, len(f.live))
	for u := range f.live {
		args = append(args, u)
	}
	f.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), f.cfg.Lease)
	defer cancel()
	return f.run(ctx, scriptRenew, args...).Err()
}

// broadcast wakes the local Claim and Pace calls that wait. It needs f.mu held.
func (f *Frontier) broadcast() {
	if f.wake != nil {
		close(f.wake)
		f.wake = nil
	}
}

// wakeChan returns the channel the next broadcast closes, or ErrClosed.
func (f *Frontier) wakeChan() (<-chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, frontier.ErrClosed
	}
	if f.wake == nil {
		f.wake = make(chan struct{})
	}
	return f.wake, nil
}

// sleep waits for d, wake or the end of ctx (its error).
func sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-wake:
	case <-t.C:
	}
	return nil
}

// micros is d in microseconds, rounded up, plus one: the server's clock counts whole
// microseconds, and a wait is never cut short by the rounding.
func micros(d time.Duration) int64 { return (d.Nanoseconds()+999)/1000 + 1 }

// microsSince is how long ago t was in microseconds, rounded down, minus one: an end of a
// request is never taken as earlier than it was.
func microsSince(t time.Time) int64 { return time.Since(t).Nanoseconds()/1000 - 1 }

// background is the context of calls that take none: bounded, so that a lost server cannot
// hold them forever.
func background() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

// checkRecord returns an error wrapping frontier.ErrURL for a URL that cannot be stored.
func checkRecord(r *record, enc []byte) error {
	if r.URL.URL == "" {
		return fmt.Errorf("%w: empty URL", frontier.ErrURL)
	}
	if n := len(r.URL.URL) + len(enc); n > frontier.MaxRecordSize {
		return fmt.Errorf("%w: record of %d bytes exceeds %d", frontier.ErrURL, n, frontier.MaxRecordSize)
	}
	return nil
}

// Add enqueues u unless its URL was seen (queued, in flight, done or failed, by any process);
// it returns false for a seen URL. See AddBatch.
func (f *Frontier) Add(u frontier.URL) (bool, error) {
	r, err := f.AddBatch([]frontier.URL{u})
	if err != nil {
		return false, err
	}
	return r[0].New, r[0].Err
}

// addChunk is the number of URLs AddBatch sends in one script.
const addChunk = 256

// AddBatch is Add for many URLs, a few hundred per script. Result i is the outcome of us[i],
// as for frontier.Frontier.AddBatch: a URL repeated within us is New only the first time; one
// that cannot be stored has an Err wrapping frontier.ErrURL. The error is the server's: the
// URLs of the scripts before it stay added, the others have it as their Err.
func (f *Frontier) AddBatch(us []frontier.URL) ([]frontier.AddResult, error) {
	res := make([]frontier.AddResult, len(us))
	if len(us) == 0 {
		return res, nil
	}
	if err := f.enter(); err != nil {
		return nil, err
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	idx := make([]int, 0, min(len(us), addChunk))
	args := make([]any, 0, 4*min(len(us), addChunk))
	flush := func() error {
		if len(idx) == 0 {
			return nil
		}
		got, err := f.run(ctx, scriptAdd, args...).Int64Slice()
		if err == nil && len(got) != len(idx) {
			err = fmt.Errorf("%w: %d results for %d URLs", errCorrupt, len(got), len(idx))
		}
		if err != nil {
			return wrap("add", err)
		}
		for j, i := range idx {
			res[i].New = got[j] == 1
		}
		idx, args = idx[:0], args[:0]
		return nil
	}
	var err error
	for i := range us {
		u := us[i]
		u.Attempts = 0
		prio := f.queuePriority(&u)
		r := record{URL: u}
		enc := r.encode()
		if res[i].Err = checkRecord(&r, enc); res[i].Err != nil {
			continue
		}
		idx = append(idx, i)
		args = append(args, u.URL, u.Host, prio, enc)
		if len(idx) == addChunk {
			if err = flush(); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = flush()
	}
	if err != nil {
		for _, i := range idx {
			res[i].Err = err
		}
		// The URLs not reached yet fail too.
		if len(idx) > 0 {
			for i := idx[len(idx)-1] + 1; i < len(us); i++ {
				if res[i].Err == nil {
					res[i].Err = err
				}
			}
		}
		return res, err
	}
	f.mu.Lock()
	f.broadcast()
	f.mu.Unlock()
	return res, nil
}

// Reject remembers a URL that is not queued with its reason; it returns true the first time,
// false when the URL is known (by any process). A rejected URL can be Added later. An error
// wrapping frontier.ErrURL concerns u alone.
func (f *Frontier) Reject(u frontier.URL, reason string) (bool, error) {
	u.Attempts = 0
	r := record{URL: u, Reason: reason}
	enc := r.encode()
	if err := checkRecord(&r, enc); err != nil {
		return false, err
	}
	if err := f.enter(); err != nil {
		return false, err
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	n, err := f.run(ctx, scriptReject, u.URL, enc).Int64()
	if err != nil {
		return false, wrap("reject", err)
	}
	return n == 1, nil
}

// Claim blocks until a URL can be fetched politely by this process (host delay since the
// host's last response ended in any process, host concurrency across all processes, backoff,
// retry time), marks it in flight with this instance's lease and returns it. Within a host,
// URLs come in Priority order, then in the order they were added; across hosts, in the order
// the hosts became ready. Claim returns frontier.ErrDone when nothing is queued and nothing is
// in flight in any process, ctx.Err() when ctx ends, and frontier.ErrClosed after Close.
func (f *Frontier) Claim(ctx context.Context) (*frontier.Claim, error) {
	poll := minPoll
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		wake, err := f.wakeChan()
		if err != nil {
			return nil, err
		}
		c, wait, err := f.tryClaim(ctx)
		if c != nil || err != nil {
			return c, err
		}
		d := poll
		if wait >= 0 && wait < d {
			d = wait
		}
		poll = min(2*poll, maxPoll)
		if err := sleep(ctx, d, wake); err != nil {
			return nil, err
		}
	}
}

// tryClaim runs the claim script once: a claim, or how long until one may be ready (-1: no
// time known).
func (f *Frontier) tryClaim(ctx context.Context) (*frontier.Claim, time.Duration, error) {
	if err := f.enter(); err != nil {
		return nil, 0, err
	}
	defer f.ops.Done()
	f.claiming.RLock()
	defer f.claiming.RUnlock()
	// Not cancelled with ctx: a claim made must be read, or it stays this instance's until
	// the next renewal.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	v, err := f.run(sctx, scriptClaim).Slice()
	if err != nil {
		return nil, 0, wrap("claim", err)
	}
	code, _ := v[0].(int64)
	switch {
	case code == 2:
		return nil, 0, frontier.ErrDone
	case code == 0 && len(v) == 2:
		w, _ := v[1].(int64)
		if w < 0 {
			return nil, -1, nil
		}
		return nil, time.Duration(w) * time.Microsecond, nil
	case code != 1 || len(v) != 4:
		return nil, 0, fmt.Errorf("redisfront: claim: %w: reply %v", errCorrupt, v)
	}
	url, _ := v[1].(string)
	val, _ := v[2].(string)
	tok, _ := v[3].(int64)
	_, rec, err := decodeValue(url, val)
	if err != nil {
		return nil, 0, fmt.Errorf("redisfront: claim: %w", err)
	}
	rec.URL.Level = f.level(rec.URL.Level)
	l := &lease{f: f, token: tok, rec: rec}
	f.mu.Lock()
	f.live[url] = l
	f.mu.Unlock()
	return frontier.NewClaim(rec.URL, l), 0, nil
}

// leaseOf returns c's lease if it is this frontier's.
func (f *Frontier) leaseOf(c *frontier.Claim) (*lease, bool) {
	if c == nil {
		return nil, false
	}
	l, ok := c.Ext().(*lease)
	return l, ok && l.f == f
}

// begin moves a claim to finishing, so that it is finished once.
func (f *Frontier) begin(c *frontier.Claim) (*lease, error) {
	l, ok := f.leaseOf(c)
	if !ok {
		return nil, frontier.ErrClaimFinished
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, frontier.ErrClosed
	}
	if l.state != active {
		return nil, frontier.ErrClaimFinished
	}
	l.state = finishing
	f.ops.Add(1)
	return l, nil
}

// finish runs the finish script for a begun claim.
func (f *Frontier) finish(c *frontier.Claim, l *lease, st string, rec record, retryAfter time.Duration) error {
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	var after int64
	if retryAfter > 0 {
		after = micros(retryAfter)
	}
	prio := f.queuePriority(&rec.URL)
	n, err := f.run(ctx, scriptFinish, c.URL.URL, l.token, st, rec.encode(), prio, after).Int64()
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		l.state = active
		return err
	}
	l.state = finished
	if f.live[c.URL.URL] == l {
		delete(f.live, c.URL.URL)
	}
	f.broadcast()
	if n != 1 {
		// The lease expired and another process has the URL.
		return frontier.ErrClaimFinished
	}
	return nil
}

// Done marks a claimed URL finished and releases its host slot; a request of the claim still
// in progress is taken to end now. Errors: frontier.ErrClaimFinished (finished before, or its
// lease expired), ErrClosed, or the server's (the claim stays active: finish it again, or
// stop: its URL comes back when its lease expires).
func (f *Frontier) Done(c *frontier.Claim) error {
	l, err := f.begin(c)
	if err != nil {
		return err
	}
	rec := l.rec
	rec.Status = 0
	if err := f.finish(c, l, "d", rec, 0); err != nil && !errors.Is(err, frontier.ErrClaimFinished) {
		return wrap("done", err)
	} else if err != nil {
		return err
	}
	return nil
}

// Failed marks a claimed URL permanently failed with status and releases its host slot as
// Done does.
func (f *Frontier) Failed(c *frontier.Claim, status int) error {
	l, err := f.begin(c)
	if err != nil {
		return err
	}
	return f.fail(c, l, l.rec.URL.Attempts, status)
}

func (f *Frontier) fail(c *frontier.Claim, l *lease, attempts, status int) error {
	rec := l.rec
	rec.URL.Attempts, rec.Status = attempts, status
	if err := f.finish(c, l, "f", rec, 0); err != nil && !errors.Is(err, frontier.ErrClaimFinished) {
		return wrap("failed", err)
	} else if err != nil {
		return err
	}
	return nil
}

// Retry counts a failed attempt and queues the URL again at the end of its host's queue (of
// its priority), not to be claimed before notBefore; after MaxAttempts attempts it is marked
// failed (status 0) and Retry returns false. The host slot is released as Done does.
func (f *Frontier) Retry(c *frontier.Claim, notBefore time.Time) (bool, error) {
	return f.RetryStatus(c, notBefore, 0)
}

// RetryStatus is Retry, recording status as the failure status if the URL is marked failed.
func (f *Frontier) RetryStatus(c *frontier.Claim, notBefore time.Time, status int) (bool, error) {
	l, err := f.begin(c)
	if err != nil {
		return false, err
	}
	attempts := l.rec.URL.Attempts + 1
	if attempts >= f.cfg.MaxAttempts {
		return false, f.fail(c, l, attempts, status)
	}
	rec := l.rec
	rec.URL.Attempts, rec.Status = attempts, 0
	var after time.Duration
	if !notBefore.IsZero() {
		after = time.Until(notBefore)
	}
	if err := f.finish(c, l, "q", rec, after); err != nil && !errors.Is(err, frontier.ErrClaimFinished) {
		return false, wrap("retry", err)
	} else if err != nil {
		return false, err
	}
	return true, nil
}

// Pace blocks until hostName may be sent a request on behalf of cl, counting host delay,
// backoff and concurrency across all processes, as frontier.Frontier.Pace does, and then
// counts the request as in progress on that host until Ended (or until cl is finished).
func (f *Frontier) Pace(ctx context.Context, cl *frontier.Claim, hostName string) error {
	l, ok := f.leaseOf(cl)
	if !ok {
		return frontier.ErrClaimFinished
	}
	queued := false // the server counts this call as waiting for a slot
	defer func() {
		if queued {
			ctx, cancel := background()
			defer cancel()
			if f.enter() == nil {
				_ = f.run(ctx, scriptUnqueue, cl.URL.URL, l.token).Err()
				f.ops.Done()
			}
		}
	}()
	poll := minPoll
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		wake, err := f.wakeChan()
		if err != nil {
			return err
		}
		ok, wait, err := f.tryPace(ctx, cl, l, hostName)
		if ok || err != nil {
			if ok {
				queued = false // the script ended the wait
			}
			return err
		}
		queued = true // the script may count it waiting for a slot; unqueue undoes only that
		d := poll
		if wait >= 0 && wait < d {
			d = wait
		}
		poll = min(2*poll, maxPoll)
		if err := sleep(ctx, d, wake); err != nil {
			return err
		}
	}
}

func (f *Frontier) tryPace(ctx context.Context, cl *frontier.Claim, l *lease, host string) (bool, time.Duration, error) {
	if err := f.active(l); err != nil {
		return false, 0, err
	}
	defer f.ops.Done()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	v, err := f.run(sctx, scriptPace, cl.URL.URL, l.token, host).Int64Slice()
	if err != nil {
		return false, 0, wrap("pace", err)
	}
	switch {
	case len(v) == 1 && v[0] == 1:
		return true, 0, nil
	case len(v) == 1 && v[0] == -1:
		return false, 0, frontier.ErrClaimFinished
	case len(v) == 2 && v[1] < 0:
		return false, -1, nil
	case len(v) == 2:
		return false, time.Duration(v[1]) * time.Microsecond, nil
	}
	return false, 0, fmt.Errorf("redisfront: pace: %w: reply %v", errCorrupt, v)
}

// active registers a call on behalf of an active lease.
func (f *Frontier) active(l *lease) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return frontier.ErrClosed
	}
	if l.state != active {
		return frontier.ErrClaimFinished
	}
	f.ops.Add(1)
	return nil
}

// Ended records that the request cl has in progress ended at t (by this process's clock); the
// host's next request, from any process, waits for t plus the host's delay.
func (f *Frontier) Ended(cl *frontier.Claim, t time.Time) error {
	l, ok := f.leaseOf(cl)
	if !ok {
		return frontier.ErrClaimFinished
	}
	if err := f.active(l); err != nil {
		return err
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	n, err := f.run(ctx, scriptEnded, cl.URL.URL, l.token, microsSince(t)).Int64()
	if err != nil {
		return wrap("ended", err)
	}
	if n != 1 {
		return frontier.ErrClaimFinished
	}
	f.mu.Lock()
	f.broadcast()
	f.mu.Unlock()
	return nil
}

// host runs the host script; its failure is dropped (see the package doc).
func (f *Frontier) host(host, what string, v int64) {
	if f.enter() != nil {
		return
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	_ = f.run(ctx, scriptHost, host, what, v).Err()
	f.mu.Lock()
	f.broadcast()
	f.mu.Unlock()
}

// HostBackoff stops new claims on host, and requests paced by Pace, in every process before t
// (Retry-After). A later t extends the backoff; an earlier one does not shorten it.
func (f *Frontier) HostBackoff(host string, t time.Time) {
	f.host(host, "k", micros(time.Until(t)))
}

// SetHostDelay sets a host's delay between requests (robots Crawl-delay) for every process;
// the effective delay is never below Config.HostDelay.
func (f *Frontier) SetHostDelay(host string, d time.Duration) {
	f.host(host, "d", max(d, 0).Microseconds())
}

// SetHostDelayOverride sets the operator's delay for a host, for every process, in place of
// Config.HostDelay and any Crawl-delay; a negative d removes it.
func (f *Frontier) SetHostDelayOverride(host string, d time.Duration) {
	if d < 0 {
		f.host(host, "o", -1)
		return
	}
	f.host(host, "o", d.Microseconds())
}

// HostDelay returns the delay between two requests to host in force now, as the scripts of
// this process space them (politeAt): the operator's delay stored for the host when set, else
// the larger of the host's stored Crawl-delay and this process's crawl delay (Config.HostDelay,
// or SetDelay's). The host's delays are read from the server, where every process's
// SetHostDelay and SetHostDelayOverride go; when it cannot be read (after Close, or the
// server failed: the failure is dropped, as the package doc says of these settings), the
// crawl's delay is returned.
func (f *Frontier) HostDelay(host string) time.Duration {
	crawl := time.Duration(f.delay.Load()) * time.Microsecond
	if f.enter() != nil {
		return crawl
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	v, err := f.rdb.HMGet(ctx, f.prefix+"h:"+host, "d", "o").Result()
	if err != nil {
		return crawl
	}
	if o, ok := parseMicros(v[1]); ok {
		return time.Duration(o) * time.Microsecond
	}
	d, _ := parseMicros(v[0])
	return max(time.Duration(d)*time.Microsecond, crawl)
}

// parseMicros parses a host field in µs as HMGET returns it; false when it is not set (or not a
// number, which the scripts take as not set too).
func parseMicros(v any) (int64, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// SetDelay sets the delay of every host from now on, in place of Config.HostDelay, as
// frontier.Frontier.SetDelay does; hosts waiting for their delay are scheduled again at once.
// Every process of the crawl must set the same delay (each passes its own to the server); a
// failure to reschedule is dropped (the hosts then wait for the delay they had).
func (f *Frontier) SetDelay(d time.Duration) {
	f.delay.Store(max(d, 0).Microseconds())
	if f.enter() != nil {
		return
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	_ = f.run(ctx, scriptResched).Err()
	f.mu.Lock()
	f.broadcast()
	f.mu.Unlock()
}

// StoreDigest records the first capture of a payload digest for every process; a digest
// already stored keeps its first capture. An error wrapping frontier.ErrURL concerns this
// capture alone (larger than frontier.MaxRecordSize).
func (f *Frontier) StoreDigest(digest, uri string, date time.Time) error {
	if n := len(digest) + len(uri); n > frontier.MaxRecordSize {
		return fmt.Errorf("%w: digest entry of %d bytes exceeds %d", frontier.ErrURL, n, frontier.MaxRecordSize)
	}
	if err := f.enter(); err != nil {
		return err
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	if err := f.rdb.HSetNX(ctx, f.prefix+"d", digest, encodeDigest(uri, date)).Err(); err != nil {
		return wrap("store digest", err)
	}
	return nil
}

// LookupDigest returns the first capture stored with digest; ok is false when there is none.
func (f *Frontier) LookupDigest(digest string) (uri string, date time.Time, ok bool, err error) {
	return f.digest("d", digest)
}

// StoreHeld records, for every process, that the crawl holds the capture key names (a URL,
// its HTTP status and payload digest: warc.HeldIndex); storing a key twice is a no-op. An
// error wrapping frontier.ErrURL concerns this key alone (larger than frontier.MaxRecordSize).
func (f *Frontier) StoreHeld(key string) error {
	if len(key) > frontier.MaxRecordSize {
		return fmt.Errorf("%w: held capture of %d bytes exceeds %d", frontier.ErrURL, len(key), frontier.MaxRecordSize)
	}
	if err := f.enter(); err != nil {
		return err
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	if err := f.rdb.SAdd(ctx, f.prefix+"held", key).Err(); err != nil {
		return wrap("store held capture", err)
	}
	return nil
}

// LookupHeld reports whether a process of the crawl stored key with StoreHeld.
func (f *Frontier) LookupHeld(key string) (bool, error) {
	if err := f.enter(); err != nil {
		return false, err
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	ok, err := f.rdb.SIsMember(ctx, f.prefix+"held", key).Result()
	if err != nil {
		return false, wrap("lookup held capture", err)
	}
	return ok, nil
}

// PriorDigest returns the earlier capture stored with digest by StorePriorDigests.
func (f *Frontier) PriorDigest(digest string) (uri string, date time.Time, ok bool, err error) {
	return f.digest("pd", digest)
}

func (f *Frontier) digest(key, digest string) (string, time.Time, bool, error) {
	v, ok, err := f.get(key, digest)
	if err != nil || !ok {
		return "", time.Time{}, false, err
	}
	uri, date, err := decodeDigest(v)
	if err != nil {
		return "", time.Time{}, false, fmt.Errorf("redisfront: digest %.100q: %w", digest, err)
	}
	return uri, date, true, nil
}

// get reads a field of one of the crawl's hashes.
func (f *Frontier) get(key, field string) (string, bool, error) {
	if err := f.enter(); err != nil {
		return "", false, err
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	v, err := f.rdb.HGet(ctx, f.prefix+key, field).Result()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, wrap("get", err)
	}
	return v, true, nil
}

// priorChunk is the number of earlier captures written by one command.
const priorChunk = 512

// StorePriorDigests stores earlier captures by payload digest; of two captures of one payload
// the one given last is kept. An error wrapping frontier.ErrURL concerns one entry too large
// (nothing from it on is stored); other errors are the server's.
func (f *Frontier) StorePriorDigests(ps []frontier.Prior) error {
	return f.storePriors(ps, "store earlier captures", func(ctx context.Context, args []any) error {
		return f.rdb.HSet(ctx, f.prefix+"pd", args...).Err()
	}, func(p *frontier.Prior) string { return encodeDigest(p.URI, p.Date) })
}

// StorePriorURLs stores earlier captures by URL; of two captures of a URL the one Captured
// later is kept (the first given, when at the same time). Errors as for StorePriorDigests.
func (f *Frontier) StorePriorURLs(ps []frontier.Prior) error {
	return f.storePriors(ps, "store earlier captures", func(ctx context.Context, args []any) error {
		return f.run(ctx, scriptPriorURLs, args...).Err()
	}, encodePrior)
}

func (f *Frontier) storePriors(ps []frontier.Prior, op string, write func(context.Context, []any) error, encode func(*frontier.Prior) string) error {
	if err := f.enter(); err != nil {
		return err
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	args := make([]any, 0, 2*min(len(ps), priorChunk))
	for i := range ps {
		v := encode(&ps[i])
		if len(ps[i].Key)+len(v) > frontier.MaxRecordSize {
			if len(args) > 0 {
				if err := write(ctx, args); err != nil {
					return wrap(op, err)
				}
			}
			return fmt.Errorf("%w: earlier capture %.100q of %d bytes", frontier.ErrURL, ps[i].Key, len(ps[i].Key)+len(v))
		}
		args = append(args, ps[i].Key, v)
		if len(args) == 2*priorChunk || i == len(ps)-1 {
			if err := write(ctx, args); err != nil {
				return wrap(op, err)
			}
			args = args[:0]
		}
	}
	return nil
}

// PriorURL returns the earlier capture of url stored by StorePriorURLs.
func (f *Frontier) PriorURL(url string) (frontier.Prior, bool, error) {
	v, ok, err := f.get("pu", url)
	if err != nil || !ok {
		return frontier.Prior{}, false, err
	}
	p, err := decodePrior(v)
	if err != nil {
		return frontier.Prior{}, false, fmt.Errorf("redisfront: earlier capture of %.100q: %w", url, err)
	}
	p.Key = url
	return p, true, nil
}

// PutMeta stores value under key in the crawl's metadata, shared by all processes. An error
// wrapping frontier.ErrMeta concerns this entry alone (larger than frontier.MaxRecordSize).
func (f *Frontier) PutMeta(key string, value []byte) error {
	if n := len(key) + len(value); n > frontier.MaxRecordSize {
		return fmt.Errorf("%w: entry of %d bytes exceeds %d", frontier.ErrMeta, n, frontier.MaxRecordSize)
	}
	if err := f.enter(); err != nil {
		return err
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	// A script, as every change of several keys here: one atomic step, retried as a call
	// (a MULTI/EXEC pipeline cut by a server restart came back as EOF).
	if err := f.run(ctx, scriptPutMeta, key, value).Err(); err != nil {
		return wrap("put meta", err)
	}
	return nil
}

// Meta returns the metadata value stored under key; ok is false when there is none.
func (f *Frontier) Meta(key string) ([]byte, bool, error) {
	v, ok, err := f.get("m", key)
	if err != nil || !ok {
		return nil, false, err
	}
	return []byte(v), true, nil
}

// metaPage is the number of metadata keys ScanMeta reads at once.
const metaPage = 256

// ScanMeta calls fn for every metadata key starting with prefix, in key order, and stops at
// fn's first error, which it returns.
func (f *Frontier) ScanMeta(prefix string, fn func(key string, value []byte) error) error {
	if err := f.enter(); err != nil {
		return err
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	start := "[" + prefix
	for {
		keys, err := f.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: f.prefix + "mk", Start: start, Stop: "+", ByLex: true, Count: metaPage}).Result()
		if err != nil {
			return wrap("scan meta", err)
		}
		n := len(keys)
		for len(keys) > 0 && !strings.HasPrefix(keys[len(keys)-1], prefix) {
			keys = keys[:len(keys)-1]
		}
		if len(keys) > 0 {
			vals, err := f.rdb.HMGet(ctx, f.prefix+"m", keys...).Result()
			if err != nil {
				return wrap("scan meta", err)
			}
			for i, k := range keys {
				v, ok := vals[i].(string)
				if !ok {
					continue
				}
				if err := fn(k, []byte(v)); err != nil {
					return err
				}
			}
		}
		if n < metaPage || len(keys) < n {
			return nil
		}
		start = "(" + keys[len(keys)-1]
	}
}

// eachPage is the COUNT hint of Each's hash scan.
const eachPage = 1000

// Each calls fn for every URL the crawl knows, in no particular order (see the package doc),
// with its state, and stops at fn's first error, which it returns.
func (f *Frontier) Each(fn func(frontier.Entry) error) error {
	if err := f.enter(); err != nil {
		return err
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	var cursor uint64
	for {
		kv, next, err := f.rdb.HScan(ctx, f.prefix+"u", cursor, "", eachPage).Result()
		if err != nil {
			return wrap("each", err)
		}
		for i := 0; i+1 < len(kv); i += 2 {
			st, rec, err := decodeValue(kv[i], kv[i+1])
			if err != nil {
				return fmt.Errorf("redisfront: each: %w", err)
			}
			if err := fn(frontier.Entry{URL: rec.URL, State: st, Status: rec.Status, Reason: rec.Reason}); err != nil {
				return err
			}
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}

// Stats returns the crawl's counters, all processes together. When the server cannot be read
// it returns the last counters read.
func (f *Frontier) Stats() frontier.Stats {
	if f.enter() != nil {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.stats
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	v, err := f.rdb.HMGet(ctx, f.prefix+"n", "q", "i", "d", "f", "r").Result()
	var sites, waiting int64
	if err == nil && f.cfg.MaxSites > 0 {
		sites, _ = f.rdb.HLen(ctx, f.prefix+"sa").Result()
		waiting, _ = f.rdb.ZCard(ctx, f.prefix+"sw").Result()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		return f.stats
	}
	n := make([]int64, len(v))
	for i := range v {
		if s, ok := v[i].(string); ok {
			n[i], _ = strconv.ParseInt(s, 10, 64)
		}
	}
	f.stats = frontier.Stats{Queued: n[0], InFlight: n[1], Done: n[2], Failed: n[3], Rejected: n[4],
		Sites: sites, SitesWaiting: waiting}
	return f.stats
}

// Space returns the free space of Config.Dir's filesystem (Close and Write 0: nothing of the
// frontier is written there), or a Free of math.MaxInt64 without a Dir.
func (f *Frontier) Space() (frontier.Space, error) {
	if err := f.enter(); err != nil {
		return frontier.Space{}, err
	}
	defer f.ops.Done()
	if f.cfg.Dir == "" {
		return frontier.Space{Free: math.MaxInt64}, nil
	}
	u, err := diskspace.Of(f.cfg.Dir)
	if err != nil {
		return frontier.Space{}, fmt.Errorf("redisfront: space: %w", err)
	}
	return frontier.Space{Free: u.Free}, nil
}

// Sync does nothing: the server's persistence settings decide when changes reach its disk
// (see the package doc). It returns ErrClosed after Close.
func (f *Frontier) Sync() error {
	if err := f.enter(); err != nil {
		return err
	}
	f.ops.Done()
	return nil
}

// Close stops the lease renewal, queues again the URLs this process holds (their claims end:
// finishing one returns ErrClosed), and closes the connections. Claim and Pace calls blocked
// at the time return ErrClosed; calls after the first return ErrClosed.
func (f *Frontier) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return frontier.ErrClosed
	}
	f.closed = true
	f.broadcast()
	f.mu.Unlock()
	close(f.stop)
	<-f.renewed
	f.ops.Wait()
	ctx, cancel := background()
	defer cancel()
	err := f.run(ctx, scriptRelease).Err()
	if cerr := f.rdb.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return wrap("close", err)
	}
	return nil
}

// AddCounter adds delta to the crawl-wide counter key (P cnt, a hash; 0 when new) and returns
// its new value: one atomic step on the server, so the processes of a crawl count together
// (the crawl's URL and byte limits). It implements frontier.Counters.
func (f *Frontier) AddCounter(key string, delta int64) (int64, error) {
	if err := f.enter(); err != nil {
		return 0, err
	}
	defer f.ops.Done()
	ctx, cancel := background()
	defer cancel()
	n, err := f.rdb.HIncrBy(ctx, f.prefix+"cnt", key, delta).Result()
	if err != nil {
		return 0, wrap("add to counter", err)
	}
	return n, nil
}

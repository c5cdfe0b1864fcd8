// Package frontier is amber's durable crawl frontier: the queue of URLs to fetch, the seen set,
// the rejected set with reasons, the dedup digest index and a small metadata store, all kept in
// one badger database (the crawl directory's state/). It hands out URLs politely: per-host delay
// measured from the end of the host's previous response, per-host concurrency, robots
// Crawl-delay, Retry-After backoff and per-URL retry times, with many hosts in parallel. The same
// rules pace every other request a claim makes (robots.txt, see Pace).
//
// Durability: every state change is one badger transaction. A claim is held only in memory, so
// after a crash (or a Close with claims outstanding) every claimed, unfinished URL is queued
// again when the frontier is reopened. Writes are not fsynced one by one (they survive the
// process being killed, as the OS page cache holds them); call Sync for an fsync.
//
// Memory holds only small per-host state (counters, schedule, a read-ahead of a few entries),
// never the whole queue.
package frontier

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/amber-crawler/amber/status"
	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
)

var (
	// ErrDone is returned by Claim when nothing is queued and nothing is in flight.
	ErrDone = errors.New("frontier: done")
	// ErrClosed is returned by every method called after Close (and by a Claim blocked at the
	// time of Close).
	ErrClosed = errors.New("frontier: closed")
	// ErrLocked is returned by Open when another process has the store open.
	ErrLocked = errors.New("frontier: store in use by another process")
	// ErrClaimFinished is returned when a claim is finished twice (or belongs to another
	// frontier).
	ErrClaimFinished = errors.New("frontier: claim already finished")
	// ErrURL is returned by Add, AddBatch and Reject for a URL with an empty URL field.
	ErrURL = errors.New("frontier: empty URL")
	// ErrConfig is returned by Open for an invalid Config.
	ErrConfig = errors.New("frontier: invalid config")
)

// Config configures a Frontier.
type Config struct {
	// Dir is the badger directory (D/state); created if missing. Required.
	Dir string
	// HostDelay is the minimum time between the end of a response from a host (the body read,
	// or the request failed) and the start of the next request to it, robots.txt included.
	// With HostConcurrency 1 it holds between every two requests; above 1 it runs from the end
	// of every response that ended before the next request was let through, and requests let
	// through together may overlap. Default 0.
	HostDelay time.Duration
	// HostConcurrency is the maximum number of URLs of one host in flight at once, and of
	// requests in progress on it (Pace). Default 1.
	HostConcurrency int
	// MaxAttempts is the number of fetch attempts a URL gets before Retry marks it failed.
	// Default 3.
	MaxAttempts int
}

// URL is one URL of the crawl and what the crawl knows about how it was reached.
type URL struct {
	URL      string // canonical; the seen-set key
	Host     string // politeness key: host[:port], as the caller passes it (never parsed)
	Hops     string // hop path from the seed, e.g. "LLE" ("" = a seed)
	Via      string // the URL it was discovered on
	Seed     string // source seed
	HopsOff  int    // hops off the seed's scope (brozzler)
	Attempts int    // failed fetch attempts so far; managed by the frontier (Add resets it)
	Priority int    // lower is claimed earlier within a host; 0 normal, < 0 for seeds/prerequisites
}

// Entry is one URL reported by Each: its state, the failure status of a failed URL and the
// reason of a rejected one.
type Entry struct {
	URL    URL
	State  status.State
	Status int
	Reason string
}

// Stats counts the URLs by state. Queued excludes in-flight URLs.
type Stats struct {
	Queued, InFlight, Done, Failed, Rejected int64
}

// Claim is a URL handed out by Claim. Finish it with exactly one of Done, Failed or Retry.
//
// A claim holds one of its host's HostConcurrency slots until it is finished, and may send its
// host one request at once (the fetch of its URL). Every further request made on its behalf,
// to its host (after a robots.txt) or to another one (a robots.txt redirected elsewhere), goes
// through Pace and Ended.
type Claim struct {
	URL URL

	f     *Frontier
	host  *host
	key   string
	rec   record
	state int   // claimActive, claimFinishing, claimFinished; guarded by f.mu
	req   *host // host of the claim's request in progress, nil between requests; guarded by f.mu
}

const (
	claimActive = iota
	claimFinishing
	claimFinished
)

// Frontier is the durable crawl frontier. All methods are safe for concurrent use.
type Frontier struct {
	db        *badger.DB
	cfg       Config
	readAhead int                // per-host buffer size
	now       func() time.Time   // the clock (tests inject one)
	hook      func(point string) // tests: called without locks at "added" and "loaded"

	mu       sync.Mutex // guards everything below (and all *host state)
	idle     *sync.Cond // signalled (with mu) when ops drops to zero after Close began
	closed   bool
	ops      int // badger operations running; Close waits for them
	seq      uint64
	hosts    map[string]*host
	ready    readyQueue
	timed    hostHeap
	wake     chan struct{} // closed and cleared by broadcast; Claim waiters select on it
	adding   int           // Add/AddBatch/Retry calls between start and registration
	inflight map[string]struct{}
	stats    Stats
}

// Open opens (or creates) the frontier in cfg.Dir. On reopen every URL that was claimed but not
// finished is queued again, at its original place.
func Open(cfg Config) (*Frontier, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: empty Dir", ErrConfig)
	}
	if cfg.HostDelay < 0 {
		return nil, fmt.Errorf("%w: negative HostDelay", ErrConfig)
	}
	if cfg.HostConcurrency <= 0 {
		cfg.HostConcurrency = 1
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	// Sized for a crawler on a small machine. Values stay in the LSM tree (records are small),
	// so the value log needs no garbage collection.
	opts := badger.DefaultOptions(cfg.Dir).
		WithLogger(nil).
		WithSyncWrites(false).
		WithMetricsEnabled(false).
		WithMemTableSize(16 << 20).
		WithNumMemtables(2).
		WithNumLevelZeroTables(4).
		WithNumLevelZeroTablesStall(10).
		WithBlockCacheSize(16 << 20).
		WithIndexCacheSize(8 << 20).
		WithNumCompactors(2).
		WithValueLogFileSize(64 << 20).
		WithValueThreshold(1 << 20).
		WithNumGoroutines(2).
		WithCompression(options.None)
	db, err := badger.Open(opts)
	if err != nil {
		if lockedByOther(cfg.Dir) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, cfg.Dir)
		}
		return nil, fmt.Errorf("frontier: open %s: %w", cfg.Dir, err)
	}
	f := &Frontier{
		db:        db,
		cfg:       cfg,
		readAhead: min(max(2*cfg.HostConcurrency+4, 8), 64),
		now:       time.Now,
		hosts:     make(map[string]*host),
		inflight:  make(map[string]struct{}),
	}
	f.idle = sync.NewCond(&f.mu)
	if err := f.rebuild(); err != nil {
		_ = db.Close()
		return nil, err
	}
	return f, nil
}

// rebuild derives the counters and the per-host queue sizes from the stored keys (keys only,
// no values), which makes them consistent after any crash.
func (f *Frontier) rebuild() error {
	err := f.db.View(func(txn *badger.Txn) error {
		opt := badger.DefaultIteratorOptions
		opt.PrefetchValues = false
		opt.Prefix = []byte(prefixQueue)
		it := txn.NewIterator(opt)
		for it.Rewind(); it.Valid(); it.Next() {
			name, seq, err := parseQueueKey(it.Item().Key())
			if err != nil {
				it.Close()
				return fmt.Errorf("queue key %q: %w", it.Item().Key(), err)
			}
			f.hostLocked(name).queued++
			f.stats.Queued++
			f.seq = max(f.seq, seq)
		}
		it.Close()

		opt.Prefix = []byte(prefixURL)
		it = txn.NewIterator(opt)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			switch it.Item().UserMeta() {
			case stDone:
				f.stats.Done++
			case stFailed:
				f.stats.Failed++
			case stRejected:
				f.stats.Rejected++
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("frontier: rebuild: %w", err)
	}
	now := f.now()
	for _, h := range f.hosts {
		f.schedule(h, now)
	}
	return nil
}

// Close closes the database. Claim calls blocked at the time return ErrClosed; claims not
// finished are queued again on the next Open. Calls after the first return ErrClosed.
func (f *Frontier) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return ErrClosed
	}
	f.closed = true
	f.broadcast()
	for f.ops > 0 {
		f.idle.Wait()
	}
	f.mu.Unlock()
	if err := f.db.Close(); err != nil {
		return fmt.Errorf("frontier: close: %w", err)
	}
	return nil
}

// Sync flushes written state to disk (fsync). Call it periodically; writes between syncs
// survive a killed process but not a power loss.
func (f *Frontier) Sync() error {
	if err := f.enter(); err != nil {
		return err
	}
	defer f.exit()
	if err := f.db.Sync(); err != nil {
		return fmt.Errorf("frontier: sync: %w", err)
	}
	return nil
}

// enter registers a badger operation; it fails once Close has begun.
func (f *Frontier) enter() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	f.ops++
	return nil
}

func (f *Frontier) exit() {
	f.mu.Lock()
	f.ops--
	if f.ops == 0 && f.closed {
		f.idle.Broadcast()
	}
	f.mu.Unlock()
}

// update runs fn in a read-write transaction, again on a conflict with a concurrent one.
func (f *Frontier) update(fn func(txn *badger.Txn) error) error {
	for i := 0; ; i++ {
		err := f.db.Update(fn)
		if errors.Is(err, badger.ErrConflict) && i < 1000 {
			continue
		}
		return err
	}
}

// Add enqueues u unless its URL was already added (seen set); it returns false for a seen URL.
// A URL that was only rejected before is added. Attempts is reset to 0.
func (f *Frontier) Add(u URL) (bool, error) {
	r, err := f.AddBatch([]URL{u})
	if err != nil {
		return false, err
	}
	return r[0], nil
}

// maxChunk bounds the bytes written by one AddBatch transaction (badger limits a transaction
// to a fraction of the memtable size).
const maxChunk = 1 << 20

// AddBatch is Add for many URLs in as few transactions as possible. Result i reports whether
// us[i] was new (a URL repeated within us is new only the first time). On error, the URLs of
// transactions already committed stay added.
func (f *Frontier) AddBatch(us []URL) ([]bool, error) {
	res := make([]bool, len(us))
	if len(us) == 0 {
		return res, nil
	}
	for i := range us {
		if us[i].URL == "" {
			return nil, ErrURL
		}
	}
	if err := f.enter(); err != nil {
		return nil, err
	}
	defer f.exit()

	type add struct {
		h    *host
		it   item
		val  []byte
		skip bool // repeated within the batch
		prev bool // was rejected
	}
	adds := make([]add, len(us))
	var firsts map[string]struct{}
	if len(us) > 1 {
		firsts = make(map[string]struct{}, len(us))
	}
	f.mu.Lock()
	f.adding++
	for i, u := range us {
		a := &adds[i]
		if firsts != nil {
			if _, ok := firsts[u.URL]; ok {
				a.skip = true
				continue
			}
			firsts[u.URL] = struct{}{}
		}
		u.Attempts = 0
		f.seq++
		a.h = f.hostLocked(u.Host)
		a.it = item{key: queueKey(u.Host, u.Priority, f.seq), rec: record{URL: u, Seq: f.seq}}
		if a.h.pending == nil {
			a.h.pending = make(map[string]struct{})
		}
		a.h.pending[a.it.key] = struct{}{}
	}
	f.mu.Unlock()

	var err error
	start := 0
	for start < len(adds) {
		end, size := start, 0
		for end < len(adds) && (end == start || size < maxChunk) {
			if !adds[end].skip {
				adds[end].val = adds[end].it.rec.encode()
				size += 2*len(adds[end].val) + len(adds[end].it.key) + len(us[end].URL) + 64
			}
			end++
		}
		err = f.update(func(txn *badger.Txn) error {
			for i := start; i < end; i++ {
				a := &adds[i]
				res[i], a.prev = false, false
				if a.skip {
					continue
				}
				uk := urlKey(a.it.rec.URL.URL)
				got, err := txn.Get(uk)
				switch {
				case err == nil:
					if got.UserMeta() != stRejected {
						continue
					}
					a.prev = true
				case !errors.Is(err, badger.ErrKeyNotFound):
					return err
				}
				if err := txn.SetEntry(badger.NewEntry(uk, a.val).WithMeta(stQueued)); err != nil {
					return err
				}
				if err := txn.Set([]byte(a.it.key), a.val); err != nil {
					return err
				}
				res[i] = true
			}
			return nil
		})
		if err != nil {
			err = fmt.Errorf("frontier: add: %w", err)
			for i := start; i < len(adds); i++ {
				res[i] = false
			}
			break
		}
		start = end
	}
	if f.hook != nil {
		f.hook("added")
	}

	f.mu.Lock()
	now := f.now()
	for i := range adds {
		a := &adds[i]
		if a.skip {
			continue
		}
		delete(a.h.pending, a.it.key)
		if len(a.h.pending) == 0 {
			a.h.pending = nil
		}
		if !res[i] {
			continue
		}
		if a.prev {
			f.stats.Rejected--
		}
		f.register(a.h, a.it, now)
	}
	f.adding--
	f.broadcast()
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Reject remembers a URL that is not queued (out of scope, or otherwise) with its reason. It
// returns true the first time the URL is rejected, false when the URL is already known (queued,
// done, failed or rejected before). A rejected URL can still be Added later.
func (f *Frontier) Reject(u URL, reason string) (bool, error) {
	if u.URL == "" {
		return false, ErrURL
	}
	if err := f.enter(); err != nil {
		return false, err
	}
	defer f.exit()
	u.Attempts = 0
	val := (&record{URL: u, Reason: reason}).encode()
	first := false
	err := f.update(func(txn *badger.Txn) error {
		first = false
		uk := urlKey(u.URL)
		_, err := txn.Get(uk)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		first = true
		return txn.SetEntry(badger.NewEntry(uk, val).WithMeta(stRejected))
	})
	if err != nil {
		return false, fmt.Errorf("frontier: reject: %w", err)
	}
	if first {
		f.mu.Lock()
		f.stats.Rejected++
		f.mu.Unlock()
	}
	return first, nil
}

// Claim blocks until a URL can be fetched politely (host delay since the host's last response
// ended, host concurrency, host backoff, the URL's retry time), marks it in flight and returns
// it; the claim may send its one request at once (see Claim and Pace). Within a host, URLs come in Priority order, then in the order they were added
// (breadth-first); across hosts, claims go round robin. Claim returns ErrDone when nothing is
// queued and nothing is in flight (so no more work can appear), ctx.Err() when ctx ends, and
// ErrClosed after Close.
func (f *Frontier) Claim(ctx context.Context) (*Claim, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, wake, wait, err := f.poll()
		if c != nil || err != nil {
			return c, err
		}
		var tick <-chan time.Time
		if wait >= 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			tick = timer.C
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-wake:
		case <-tick:
		}
	}
}

// poll makes one non-blocking attempt to claim. Without a claim or an error it returns the
// channel that is closed on the next change and the time until the next host becomes ready
// (-1: none is waiting on time).
func (f *Frontier) poll() (*Claim, <-chan struct{}, time.Duration, error) {
	for {
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			return nil, nil, 0, ErrClosed
		}
		now := f.now()
		c, load := f.claimLocked(now)
		if c != nil {
			f.mu.Unlock()
			return c, nil, 0, nil
		}
		if load != nil {
			after, n := load.cursor, f.readAhead-len(load.buf)
			f.ops++
			f.mu.Unlock()
			loaded, err := f.load(load.name, after, n)
			if f.hook != nil {
				f.hook("loaded")
			}
			f.fill(load, loaded, err == nil)
			f.exit()
			if err != nil {
				return nil, nil, 0, err
			}
			continue
		}
		if f.stats.Queued <= 0 && f.stats.InFlight == 0 && f.adding == 0 {
			f.mu.Unlock()
			return nil, nil, 0, ErrDone
		}
		wake := f.wakeChan()
		wait := time.Duration(-1)
		if len(f.timed) > 0 {
			wait = max(f.timed[0].heapAt.Sub(now), 0)
		}
		f.mu.Unlock()
		return nil, wake, wait, nil
	}
}

// load reads up to n queue entries of a host with keys strictly after after ("" = from the
// start).
func (f *Frontier) load(name, after string, n int) ([]item, error) {
	var items []item
	err := f.db.View(func(txn *badger.Txn) error {
		opt := badger.DefaultIteratorOptions
		opt.PrefetchSize = n
		opt.Prefix = hostPrefix(name)
		it := txn.NewIterator(opt)
		defer it.Close()
		if after == "" {
			it.Rewind()
		} else {
			it.Seek([]byte(after))
		}
		for ; it.Valid() && len(items) < n; it.Next() {
			k := it.Item().Key()
			if after != "" && bytes.Compare(k, []byte(after)) <= 0 {
				continue
			}
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			rec, err := decodeRecord(v)
			if err != nil {
				return fmt.Errorf("queue entry %q: %w", k, err)
			}
			items = append(items, item{key: string(k), rec: rec})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("frontier: load %s: %w", name, err)
	}
	return items, nil
}

// fill merges a load into the host and wakes claimers.
func (f *Frontier) fill(h *host, loaded []item, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h.loading = false
	late, finished := h.late, h.finished
	h.late, h.finished = nil, nil
	f.merge(h, loaded, late, finished, ok)
	f.schedule(h, f.now())
	f.broadcast()
}

// begin moves a claim to finishing, so that it is finished once.
func (f *Frontier) begin(c *Claim) error {
	if c == nil || c.f != f {
		return ErrClaimFinished
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if c.state != claimActive {
		return ErrClaimFinished
	}
	c.state = claimFinishing
	f.ops++
	return nil
}

// end completes (err == nil) or undoes (err != nil) a begin; fn runs with f.mu held on success.
func (f *Frontier) end(c *Claim, err error, fn func(now time.Time)) {
	f.mu.Lock()
	if err != nil {
		c.state = claimActive
	} else {
		c.state = claimFinished
		now := f.now()
		fn(now)
		f.release(c, now)
	}
	f.ops--
	if f.ops == 0 && f.closed {
		f.idle.Broadcast()
	}
	f.mu.Unlock()
}

// finishTxn writes the final state of a claimed URL and removes its queue entry.
func (f *Frontier) finishTxn(c *Claim, state byte, rec record) error {
	val := rec.encode()
	return f.update(func(txn *badger.Txn) error {
		if err := txn.Delete([]byte(c.key)); err != nil {
			return err
		}
		return txn.SetEntry(badger.NewEntry(urlKey(rec.URL.URL), val).WithMeta(state))
	})
}

// Done marks a claimed URL finished (whatever its HTTP status) and releases its host slot. A
// request of the claim still in progress (not Ended) is taken to end now, which starts its
// host's delay clock.
func (f *Frontier) Done(c *Claim) error {
	if err := f.begin(c); err != nil {
		return err
	}
	rec := c.rec
	rec.Status, rec.NotBefore = 0, 0
	err := f.finishTxn(c, stDone, rec)
	f.end(c, err, func(time.Time) { f.stats.Done++ })
	if err != nil {
		return fmt.Errorf("frontier: done: %w", err)
	}
	return nil
}

// Failed marks a claimed URL permanently failed with status (a crawl.log status such as -2) and
// releases its host slot as Done does.
func (f *Frontier) Failed(c *Claim, status int) error {
	if err := f.begin(c); err != nil {
		return err
	}
	err := f.fail(c, c.rec.URL.Attempts, status)
	if err != nil {
		return fmt.Errorf("frontier: failed: %w", err)
	}
	return nil
}

func (f *Frontier) fail(c *Claim, attempts, status int) error {
	rec := c.rec
	rec.URL.Attempts, rec.Status, rec.NotBefore = attempts, status, 0
	err := f.finishTxn(c, stFailed, rec)
	f.end(c, err, func(time.Time) { f.stats.Failed++ })
	return err
}

// Retry counts a failed attempt and queues the claimed URL again, at the end of its host's
// queue, not to be claimed before notBefore (zero: no constraint). When the URL has had
// MaxAttempts attempts it is marked failed instead (status 0) and Retry returns false. Either
// way the host slot is released as Done does.
func (f *Frontier) Retry(c *Claim, notBefore time.Time) (bool, error) {
	return f.RetryStatus(c, notBefore, 0)
}

// RetryStatus is Retry, recording status as the failure status if the URL is marked failed.
func (f *Frontier) RetryStatus(c *Claim, notBefore time.Time, status int) (bool, error) {
	if err := f.begin(c); err != nil {
		return false, err
	}
	attempts := c.rec.URL.Attempts + 1
	if attempts >= f.cfg.MaxAttempts {
		if err := f.fail(c, attempts, status); err != nil {
			return false, fmt.Errorf("frontier: retry: %w", err)
		}
		return false, nil
	}

	f.mu.Lock()
	f.seq++
	h := c.host
	rec := c.rec
	rec.URL.Attempts, rec.Status, rec.Seq, rec.NotBefore = attempts, 0, f.seq, 0
	if !notBefore.IsZero() {
		rec.NotBefore = notBefore.UnixNano()
	}
	it := item{key: queueKey(h.name, rec.URL.Priority, rec.Seq), rec: rec}
	if h.pending == nil {
		h.pending = make(map[string]struct{})
	}
	h.pending[it.key] = struct{}{}
	f.adding++
	f.mu.Unlock()

	val := rec.encode()
	err := f.update(func(txn *badger.Txn) error {
		if err := txn.Delete([]byte(c.key)); err != nil {
			return err
		}
		if err := txn.Set([]byte(it.key), val); err != nil {
			return err
		}
		return txn.SetEntry(badger.NewEntry(urlKey(rec.URL.URL), val).WithMeta(stQueued))
	})
	f.end(c, err, func(now time.Time) {
		f.register(h, it, now)
	})
	f.mu.Lock()
	delete(h.pending, it.key)
	if len(h.pending) == 0 {
		h.pending = nil
	}
	f.adding--
	f.broadcast()
	f.mu.Unlock()
	if err != nil {
		return false, fmt.Errorf("frontier: retry: %w", err)
	}
	return true, nil
}

// SetHostDelay sets a host's delay between requests (robots Crawl-delay). The effective delay
// is never below Config.HostDelay; it applies from the end of the host's latest response, so a
// Crawl-delay read from a robots.txt already spaces that robots.txt from the next request. It
// is not persisted (robots.txt is fetched again after a restart).
func (f *Frontier) SetHostDelay(host string, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.hostLocked(host)
	h.delay = max(d, 0)
	f.schedule(h, f.now())
	f.broadcast()
}

// HostBackoff stops new claims on host, and requests paced by Pace, before t (Retry-After). A
// later t extends the backoff; an earlier one does not shorten it. It is not persisted.
func (f *Frontier) HostBackoff(host string, t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.hostLocked(host)
	if t.After(h.backoff) {
		h.backoff = t
	}
	f.schedule(h, f.now())
}

// Stats returns the current counters. They are rebuilt from the stored state on Open.
func (f *Frontier) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

// Each calls fn for every URL the frontier knows, in URL order, with its state (rejected ones
// with their reason, failed ones with their status), and stops at fn's first error, which it
// returns. fn must not call Close.
func (f *Frontier) Each(fn func(Entry) error) error {
	if err := f.enter(); err != nil {
		return err
	}
	defer f.exit()
	var fnErr error
	err := f.db.View(func(txn *badger.Txn) error {
		opt := badger.DefaultIteratorOptions
		opt.Prefix = []byte(prefixURL)
		it := txn.NewIterator(opt)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			v, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			rec, err := decodeRecord(v)
			if err != nil {
				return fmt.Errorf("record %q: %w", item.Key(), err)
			}
			e := Entry{URL: rec.URL, Status: rec.Status, Reason: rec.Reason}
			switch item.UserMeta() {
			case stQueued:
				e.State = status.Queued
				f.mu.Lock()
				if _, ok := f.inflight[rec.URL.URL]; ok {
					e.State = status.Inflight
				}
				f.mu.Unlock()
			case stDone:
				e.State = status.Done
			case stFailed:
				e.State = status.Failed
			case stRejected:
				e.State = status.Rejected
			default:
				return fmt.Errorf("record %q: %w: state %d", item.Key(), errCorrupt, item.UserMeta())
			}
			if err := fn(e); err != nil {
				fnErr = err
				return err
			}
		}
		return nil
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("frontier: each: %w", err)
	}
	return nil
}

// LookupDigest returns the URI and date of the first capture stored with payload digest
// (warc.DedupIndex). ok is false when the digest is unknown.
func (f *Frontier) LookupDigest(digest string) (uri string, date time.Time, ok bool, err error) {
	if err := f.enter(); err != nil {
		return "", time.Time{}, false, err
	}
	defer f.exit()
	err = f.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(prefixDigest + digest))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			uri, date, err = decodeDigest(v)
			ok = err == nil
			return err
		})
	})
	if err != nil {
		return "", time.Time{}, false, fmt.Errorf("frontier: lookup digest: %w", err)
	}
	return uri, date, ok, nil
}

// StoreDigest records the first capture of a payload digest (warc.DedupIndex). A digest already
// stored keeps its first capture.
func (f *Frontier) StoreDigest(digest, uri string, date time.Time) error {
	if err := f.enter(); err != nil {
		return err
	}
	defer f.exit()
	key := []byte(prefixDigest + digest)
	val := encodeDigest(uri, date)
	err := f.update(func(txn *badger.Txn) error {
		_, err := txn.Get(key)
		if err == nil {
			return nil
		}
		if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		return txn.Set(key, val)
	})
	if err != nil {
		return fmt.Errorf("frontier: store digest: %w", err)
	}
	return nil
}

// PutMeta stores value under key in the crawl metadata (counters, flags, config hash, ...),
// replacing any previous value.
func (f *Frontier) PutMeta(key string, value []byte) error {
	if err := f.enter(); err != nil {
		return err
	}
	defer f.exit()
	val := bytes.Clone(value)
	if val == nil {
		val = []byte{}
	}
	if err := f.update(func(txn *badger.Txn) error {
		return txn.Set([]byte(prefixMeta+key), val)
	}); err != nil {
		return fmt.Errorf("frontier: put meta: %w", err)
	}
	return nil
}

// Meta returns the metadata value stored under key; ok is false when there is none.
func (f *Frontier) Meta(key string) (value []byte, ok bool, err error) {
	if err := f.enter(); err != nil {
		return nil, false, err
	}
	defer f.exit()
	err = f.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(prefixMeta + key))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		value, err = item.ValueCopy(nil)
		ok = err == nil
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("frontier: meta: %w", err)
	}
	return value, ok, nil
}

// ScanMeta calls fn for every metadata key starting with prefix, in key order, and stops at
// fn's first error, which it returns. fn must not call Close.
func (f *Frontier) ScanMeta(prefix string, fn func(key string, value []byte) error) error {
	if err := f.enter(); err != nil {
		return err
	}
	defer f.exit()
	var fnErr error
	err := f.db.View(func(txn *badger.Txn) error {
		opt := badger.DefaultIteratorOptions
		opt.Prefix = []byte(prefixMeta + prefix)
		it := txn.NewIterator(opt)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			if err := fn(string(it.Item().Key()[len(prefixMeta):]), v); err != nil {
				fnErr = err
				return err
			}
		}
		return nil
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("frontier: scan meta: %w", err)
	}
	return nil
}

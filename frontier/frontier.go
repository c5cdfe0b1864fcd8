// Package frontier is amber's durable crawl frontier: the queue of URLs to fetch, the seen set,
// the rejected set with reasons, the dedup digest index, the captures the crawl holds (by URL,
// status and payload digest) and a small metadata store, all kept in one badger database (the
// crawl directory's state/). It hands out URLs politely: per-host delay measured from the end
// of the host's previous response, per-host concurrency, robots Crawl-delay, Retry-After
// backoff and per-URL retry times, with many hosts in parallel. The same rules pace every
// other request a claim makes (robots.txt, see Pace).
//
// Durability: a method that changes state (AddBatch, Add, Reject, Done, Failed, Retry,
// RetryStatus, StoreDigest, StoreHeld, PutMeta) returns only once its change is committed to
// badger, all of it in one transaction (concurrent changes share a transaction: group commit).
// A commit writes the change into badger's write-ahead log, a memory-mapped file, before it
// returns, so from then on the change survives the process being killed (kill -9, a crash,
// an OOM kill): the kernel holds the written pages and writes them back. Commits are not
// fsynced (badger's SyncWrites is off): a power loss or a kernel crash may lose what was
// committed since the last Sync. A claim is held only in memory, so after a crash (or a Close
// with claims outstanding) every claimed, unfinished URL is queued again when the frontier is
// reopened.
//
// Errors: a method's doc says which of its errors concern one input (they wrap ErrURL or
// ErrMeta: record that input's failure and go on). ErrNoSpace means the filesystem is too full
// for the store to write safely: nothing was written, and a caller that stops then can Close
// (or just exit: nothing committed is lost) and resume once space is freed. Any other error
// (except ErrClosed, ErrDone, ErrClaimFinished and ctx errors) means the store cannot be read
// or written.
//
// Keys never depend on the length of a URL, host, digest or metadata key (see keyPart), and a
// full disk is an error, never a crash (see ErrNoSpace and Space).
//
// Memory holds only small per-host state (counters, schedule, a read-ahead of a few entries,
// readAheadBudget entries in all before loads shrink), a fixed cache of URLs the store holds
// (knownCache, 4 MiB), and badger's own: memtables of 2 or 4 MiB as the process's memory
// limit allows (memTableFor; three at most: one written, one waiting for its flush, one being
// flushed), the builders of the tables that flushes and compactions write and the buffers
// badger keeps of them between tables (at most 8, each as large as the largest table it
// built: compressed tables of 256 KiB below level 0; see baseTableSize), a 4 MiB block cache.
// Never the whole queue.
// Badger memory-maps its tables and memtable logs; on Linux their pages are kept out of the
// process's resident set (see trimmer).
package frontier

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"golang.org/x/sync/errgroup"

	"github.com/amber-crawler/amber/status"
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
	// ErrURL is wrapped by the errors about one URL that cannot be stored: an empty URL
	// field, a record (all of URL's strings) larger than MaxRecordSize, or (never seen, as it
	// needs two URLs with one SHA-256) a key taken by another URL. Add, AddBatch (per URL),
	// Reject and StoreDigest return it; the store is fine and other URLs can be added.
	ErrURL = errors.New("frontier: URL cannot be stored")
	// ErrMeta is wrapped by PutMeta's error for a metadata entry larger than MaxRecordSize
	// (or a key taken by another key); the store is fine.
	ErrMeta = errors.New("frontier: metadata entry cannot be stored")
	// ErrConfig is returned by Open for an invalid Config.
	ErrConfig = errors.New("frontier: invalid config")
)

// MaxRecordSize is the largest stored record: a URL with its Host, Hops, Via, Seed and
// rejection reason as AddBatch and Reject store it, a digest with its URI, or a metadata key
// with its value, each encoded with a few bytes of lengths. It keeps every transaction within
// badger's batch limit (AddBatch writes a URL's record twice in one, and a transaction is at
// most 15% of memTableSize) and every value in the LSM tree, below the value log threshold.
// URLs are far shorter: scope refuses those over max_url_length, 2,083 bytes by default. It
// was 512 KiB with memtables of 8 MiB and 256 KiB with 4 MiB (see memTableSize).
const MaxRecordSize = 128 << 10

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
	// MaxSites is the most hosts being crawled at once (FAST's max_sites): a host is being
	// crawled from its first claim until its queue is empty and its claims are finished; a
	// host that could be claimed meanwhile waits for a place, and places go to the waiting
	// hosts in the order they came to wait. Default 0: no bound.
	MaxSites int
	// MaxInterDocs interleaves sites (FAST's max_inter_docs): a host that had this many URLs
	// claimed while other hosts wait for a place goes back behind them; its claims in flight
	// finish first (nothing more of it is claimed), then the first waiting host takes its
	// place. It needs MaxSites. Default 0: a host keeps its place until its queue is empty.
	MaxInterDocs int
	// Levels are the queue's priority levels (FAST's workqueue_priority; see Levels). Default:
	// one level.
	Levels Levels

	// noCompaction opens the store without badger's compactors, for the tests that count the
	// pages of its tables resident: a compaction in between writes and maps tables of its own.
	noCompaction bool
	// memTable, when not 0, is the memtable size to open with instead of memTableFor's, for
	// the test of a store left with larger memtable logs (TestReopenLargerLogs).
	memTable int64
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
	// Level is the URL's priority level, 1 (the highest) to Config.Levels.N; 0 is
	// Levels.Default, a higher one is taken as N. Add stores it (as the level it is taken as,
	// with levels); within a host, URLs come by Level before Priority.
	Level int
	// Sitemap marks a sitemap file: the crawl reads it for the URLs it lists. The frontier
	// only stores the mark.
	Sitemap bool
}

// Entry is one URL reported by Each: its state, the failure status of a failed URL and the
// reason of a rejected one.
type Entry struct {
	URL    URL
	State  status.State
	Status int
	Reason string
}

// Stats counts the URLs by state. Queued excludes in-flight URLs. Sites counts the hosts being
// crawled and SitesWaiting those waiting for a place among them (Config.MaxSites; both 0
// without it).
type Stats struct {
	Queued, InFlight, Done, Failed, Rejected int64
	Sites                                    int64 `json:",omitempty"`
	SitesWaiting                             int64 `json:",omitempty"`
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
	ext   any   // another Store's state for a claim it made (NewClaim); nil here
}

const (
	claimActive = iota
	claimFinishing
	claimFinished
)

// Frontier is the durable crawl frontier. All methods are safe for concurrent use.
type Frontier struct {
	db        *badger.DB
	w         *writer
	trimmer   *trimmer // nil where there is none
	space     *gate
	cfg       Config
	readAhead int                // per-host buffer size
	budget    int                // entries all buffers hold before loads shrink (see loadSize)
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
	known    *knownCache
	buffered int // entries in all hosts' read-ahead buffers

	// Config.MaxSites (sites.go): the hosts holding a place, and the line of hosts waiting
	// for one (siteWait[siteHead:], sitesWaiting of them).
	sites        int
	siteWait     []*host
	siteHead     int
	sitesWaiting int

	keys *keyFilter // every u/, d/ and m/ key stored; safe for concurrent use

	lv *levelState // Config.Levels (levels.go); nil with one level
}

// readAheadBudget is the number of entries the hosts' read-ahead buffers hold in all (about
// 400 bytes each) before loads bring in only what a claim or two needs: with many hosts
// ready at once, memory stays bounded by the number of hosts rather than growing with
// readAhead times it.
const readAheadBudget = 1 << 14

// loadSize is the number of entries a load of h brings in.
func (f *Frontier) loadSize(h *host) int {
	n := f.readAhead - len(h.buf)
	if f.buffered+n > f.budget {
		n = min(n, 2)
	}
	return n
}

// Open opens (or creates) the frontier in cfg.Dir. On reopen every URL that was claimed but not
// finished is queued again, at its original place. A store written before keys were bounded
// (format 1) has its long keys rewritten once.
//
// Open fails with ErrLocked when another process has the store open, and with ErrNoSpace when
// the filesystem lacks what opening needs, as Close does (badger flushes the memtables a crash
// left, and may compact): free the space the error names and open again.
func Open(cfg Config) (*Frontier, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("frontier: open %s: %w", cfg.Dir, noSpace(err))
	}
	g, err := openStoreGate(cfg.Dir)
	if err != nil {
		return nil, err
	}
	memTable := cfg.memTable
	if memTable == 0 {
		memTable = memTableFor(debug.SetMemoryLimit(-1))
	}
	replay, err := checkLogs(cfg.Dir, memTable)
	if err == nil && replay > 0 {
		err = flushLogs(cfg.Dir, replay)
	}
	if err != nil {
		_ = g.close()
		if lockedByOther(cfg.Dir) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, cfg.Dir)
		}
		return nil, fmt.Errorf("frontier: open %s: %w", cfg.Dir, noSpace(err))
	}
	opts := badgerOptions(cfg.Dir).WithMemTableSize(memTable)
	if cfg.noCompaction {
		opts = opts.WithNumCompactors(0)
	}
	db, err := badger.Open(opts)
	if err != nil {
		_ = g.close()
		if lockedByOther(cfg.Dir) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, cfg.Dir)
		}
		return nil, fmt.Errorf("frontier: open %s: %w", cfg.Dir, noSpace(err))
	}
	f := newFrontier(db, g, cfg)
	err = f.migrate()
	if err == nil {
		err = f.rebuild()
	}
	if err != nil {
		f.trimmer.close()
		f.w.close()
		_ = db.Close()
		_ = g.close()
		return nil, err
	}
	return f, nil
}

// withDefaults returns cfg with its defaults filled in (HostConcurrency 1, MaxAttempts 3), or
// an error wrapping ErrConfig when cfg is invalid: no Dir, a negative HostDelay, MaxSites or
// MaxInterDocs, or invalid Levels.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Dir == "" {
		return cfg, fmt.Errorf("%w: empty Dir", ErrConfig)
	}
	if cfg.HostDelay < 0 {
		return cfg, fmt.Errorf("%w: negative HostDelay", ErrConfig)
	}
	if cfg.MaxSites < 0 || cfg.MaxInterDocs < 0 {
		return cfg, fmt.Errorf("%w: negative MaxSites or MaxInterDocs", ErrConfig)
	}
	if err := cfg.Levels.check(); err != nil {
		return cfg, err
	}
	if cfg.HostConcurrency <= 0 {
		cfg.HostConcurrency = 1
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 3
	}
	return cfg, nil
}

// openStoreGate opens the space gate of the store in dir, counting the tables its MANIFEST
// lists as the store's until badger is open, and checks that the filesystem has the free
// space closing the store needs (opening may flush and compact as much): an error wrapping
// ErrNoSpace when it has not.
func openStoreGate(dir string) (*gate, error) {
	g, err := openGate(dir)
	if err != nil {
		return nil, err
	}
	g.live = func() int64 { return manifestTables(dir) }
	sp, err := g.space()
	if err == nil {
		err = short(sp.Free, sp.Close, dir)
	}
	if err != nil {
		_ = g.close()
		return nil, fmt.Errorf("frontier: open: %w", err)
	}
	return g, nil
}

// badgerOptions returns the options the frontier's badger database in dir is opened with.
//
// Sized for a crawler on a small machine. Values stay in the LSM tree (records are at most
// MaxRecordSize), so the value log needs no garbage collection. Table blocks are compressed
// with Snappy (URLs compress about 4 to 1): the store, what compactions read and write, and
// the table pages the process maps shrink alike. Badger keeps decompressed blocks in a block
// cache, small as the frontier rarely reads a block twice in a row, and reads table indexes
// in place (no index cache). Small tables keep small the builders a compaction holds, which
// hold a table's blocks uncompressed and compressed (see baseTableSize).
func badgerOptions(dir string) badger.Options {
	opts := badger.DefaultOptions(dir).
		WithLogger(nil).
		WithSyncWrites(false).
		WithMetricsEnabled(false).
		WithMemTableSize(memTableSize).
		WithNumMemtables(numMemtables).
		WithBaseTableSize(baseTableSize).
		WithNumLevelZeroTables(4).
		WithNumLevelZeroTablesStall(10).
		WithBlockCacheSize(blockCacheSize).
		WithIndexCacheSize(0).
		WithNumCompactors(2).
		WithValueLogFileSize(64 << 20).
		WithValueThreshold(maxBatchSize). // badger's largest; records are smaller (MaxRecordSize)
		WithNumGoroutines(2).
		WithCompression(options.Snappy).
		WithDetectConflicts(false) // one writer: see writer
	opts.TableSizeMultiplier = 1 // every table below level 0 of baseTableSize
	return opts
}

// newFrontier returns the Frontier of the open db and its gate g, with its writer, trimmer
// and builder pool started, its gate counting the tables of db's LSM tree and its key filter
// sized for the keys db holds; its state is yet to be read (migrate, rebuild).
func newFrontier(db *badger.DB, g *gate, cfg Config) *Frontier {
	f := &Frontier{
		db:        db,
		w:         startWriter(db, g),
		trimmer:   startTrimmer(db, cfg.Dir),
		space:     g,
		cfg:       cfg,
		readAhead: min(max(2*cfg.HostConcurrency+4, 8), 64),
		budget:    readAheadBudget,
		now:       time.Now,
		hosts:     make(map[string]*host),
		inflight:  make(map[string]struct{}),
		known:     newKnownCache(knownSize),
	}
	f.idle = sync.NewCond(&f.mu)
	if cfg.Levels.N > 1 {
		f.lv = newLevelState(cfg.Levels)
	}
	g.live = func() int64 { return liveTables(db) }
	var keys int
	for _, t := range db.Tables() {
		keys += int(t.KeyCount)
	}
	f.keys = newKeyFilter(keys)
	return f
}

// liveTables is the size of the tables in db's LSM tree, from badger's level totals.
//
// Not from db.Tables(): that reads every table's index where the table is mapped
// (TableInfo.StaleDataSize), which maps a page of every table, and the kernel the 64 KiB
// around it, into the resident set again. The space gate measures the store whenever Space is
// called, ten times a second in a crawl: that kept about 40 KB of every table resident (35 MB
// at 840 tables) whatever the trimmer dropped.
func liveTables(db *badger.DB) int64 {
	var n int64
	for _, l := range db.Levels() {
		n += l.Size
	}
	return n
}

// checkLogs readies the memtable logs (*.mem) in dir for badger.Open and returns the memtable
// size that replaying them needs, or 0 when memTable, the one the store opens with, does.
//
// It deletes the empty logs. Badger deletes the log of a flushed memtable by truncating it to
// nothing and then removing it; a process killed in between leaves an empty log, which badger
// (v4.9.6, openMemTables) takes for a new file and refuses to open the store with ("while
// opening fid: N err: Create a new file"). An empty log holds no write: deleting it loses
// nothing.
//
// Badger replays each log left by a crash into a memtable of the size the store is opened
// with, and ends the process when its writes do not fit (skl: "Arena too small"): a log
// written with larger memtables (by an older amber: 8 MiB, then 4 MiB) or cut to its writes by
// an earlier replay (badger truncates a log it replays, and a crash before the flush leaves it
// so) may hold more than the memtable holds. A log as badger creates it is twice the memtable
// size; any other log asks for a memtable of twice its own size. That holds its writes
// whatever their mix: badger's memtable of M bytes takes 1.3 M (its arena adds a
// transaction's bytes and nodes), and an entry takes at most about 2.3 times its log bytes in
// it (the deletion of a short key: a skiplist node of 27 bytes and more, on average 29,
// against a log header and checksum of 9 bytes and more, both beside the key and its
// version).
//
// The logs of a store that another process has open are left alone (badger.Open then fails).
func checkLogs(dir string, memTable int64) (int64, error) {
	unlock, ok := lockDir(dir)
	if !ok {
		return 0, nil
	}
	defer unlock()
	es, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var replay int64
	for _, e := range es {
		if !strings.HasSuffix(e.Name(), ".mem") || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		switch size := fi.Size(); {
		case size == 0:
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return 0, err
			}
		case size != 2*memTable:
			replay = max(replay, 2*size)
		}
	}
	if replay <= memTable {
		return 0, nil
	}
	return replay, nil
}

// flushLogs opens the store in dir with memtables of memTable bytes, large enough to replay
// its memtable logs (see checkLogs), and closes it again: Close flushes the memtables to
// level-0 tables and deletes their logs, so that the store then opens with memtables of any
// size. Nothing is compacted.
func flushLogs(dir string, memTable int64) error {
	opts := badgerOptions(dir).WithMemTableSize(memTable).WithNumCompactors(0)
	db, err := badger.Open(opts)
	if err != nil {
		return err
	}
	return db.Close()
}

// rebuild derives the counters and the per-host queue sizes from the stored keys (keys only,
// no values), which makes them consistent after any crash, and fills the key filter. The
// queue and the other keys are read at once, each by its own goroutine.
func (f *Frontier) rebuild() error {
	var g errgroup.Group
	var done, failed, rejected int64
	g.Go(func() error {
		return f.db.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(keysOnly(prefixURL))
			for it.Rewind(); it.Valid(); it.Next() {
				f.keys.add(it.Item().Key())
				switch it.Item().UserMeta() {
				case stDone:
					done++
				case stFailed:
					failed++
				case stRejected:
					rejected++
				}
			}
			it.Close()
			for _, prefix := range []string{prefixDigest, prefixMeta, prefixHeld} {
				it := txn.NewIterator(keysOnly(prefix))
				for it.Rewind(); it.Valid(); it.Next() {
					f.keys.add(it.Item().Key())
				}
				it.Close()
			}
			return nil
		})
	})
	err := f.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(keysOnly(prefixQueue))
		defer it.Close()
		var last []byte // key part of h: a host's keys come one after the other
		var h *host
		for it.Rewind(); it.Valid(); it.Next() {
			part, seq, err := parseQueueKey(it.Item().Key())
			if err != nil {
				return fmt.Errorf("queue key %q: %w", it.Item().Key(), err)
			}
			if h == nil || hashed(part) || !bytes.Equal(part, last) {
				name := string(part)
				if hashed(part) {
					rec, err := itemRecord(it.Item())
					if err != nil {
						return err
					}
					name = rec.URL.Host
				}
				h = f.hostLocked(name)
				last = append(last[:0], part...)
			}
			h.queued++
			f.stats.Queued++
			f.seq = max(f.seq, seq)
			if f.lv != nil {
				f.lv.count(h, f.lv.level(keyLevel(it.Item().Key())), 1)
			}
		}
		return nil
	})
	if gerr := g.Wait(); err == nil {
		err = gerr
	}
	if err != nil {
		return fmt.Errorf("frontier: rebuild: %w", err)
	}
	f.stats.Done, f.stats.Failed, f.stats.Rejected = done, failed, rejected
	now := f.now()
	for _, h := range f.hosts {
		f.schedule(h, now)
	}
	return nil
}

// keysOnly are the options of an iterator over the keys under prefix.
func keysOnly(prefix string) badger.IteratorOptions {
	opt := badger.DefaultIteratorOptions
	opt.PrefetchValues = false
	opt.Prefix = []byte(prefix)
	return opt
}

// itemRecord decodes the record of an item.
func itemRecord(item *badger.Item) (record, error) {
	var rec record
	err := item.Value(func(v []byte) error {
		var err error
		rec, err = decodeRecord(v)
		return err
	})
	if err != nil {
		return record{}, fmt.Errorf("record %q: %w", item.Key(), err)
	}
	return rec, nil
}

// Close closes the database. Claim calls blocked at the time return ErrClosed; claims not
// finished are queued again on the next Open. Calls after the first return ErrClosed.
//
// Closing flushes badger's memtables to tables and lets a running compaction finish, which
// needs free space (Space().Close: about the store's size plus 1 MiB while the store is below
// 256 MiB, at most about 290 MiB). With less free, Close returns an error wrapping ErrNoSpace
// and leaves the frontier open and working: free space and call Close again, or exit the
// process without closing, which loses nothing committed (the next Open replays the logs,
// given that space).
func (f *Frontier) Close() error {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	if closed {
		return ErrClosed
	}
	sp, err := f.space.space()
	if err == nil {
		err = short(sp.Free, sp.Close, f.cfg.Dir)
	}
	if err != nil {
		return fmt.Errorf("frontier: close: %w", err)
	}
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
	f.trimmer.close()
	f.w.close()
	err = f.db.Close()
	if cerr := f.space.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("frontier: close: %w", noSpace(err))
	}
	return nil
}

// Space returns the free space of the store's filesystem and how much of it the frontier
// needs (see Space). It reads the store directory, so call it now and then (a disk monitor,
// every few seconds), not per URL. A disk monitor that stops the crawl while Free is above
// Write plus what the crawl still writes lets the crawl finish its writes and close cleanly.
func (f *Frontier) Space() (Space, error) {
	if err := f.enter(); err != nil {
		return Space{}, err
	}
	defer f.exit()
	return f.space.space()
}

// Sync flushes written state to disk (fsync). Call it periodically; writes between syncs
// survive a killed process but not a power loss. It allocates nothing, so it works on a full
// disk (and is what to call before exiting when Close cannot run for lack of space).
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

// write runs fn, which writes at most n entries of about size log bytes, in a read-write
// transaction, once the filesystem has room for them and all badger may write on its own
// afterwards (ErrNoSpace otherwise), and returns once it is committed. fn may share its
// transaction with other writes (see writer) and may run more than once.
func (f *Frontier) write(size int64, n int, fn func(txn *badger.Txn) error) error {
	return f.w.write(size, n, fn)
}

// entrySize estimates the log bytes of one entry.
func entrySize(key, val int) int64 { return int64(key + val + entryOverhead) }

// Add enqueues u unless its URL was already added (seen set); it returns false for a seen URL.
// A URL that was only rejected before is added. Attempts is reset to 0. An error wrapping
// ErrURL concerns u alone (see AddBatch).
func (f *Frontier) Add(u URL) (bool, error) {
	r, err := f.AddBatch([]URL{u})
	if err != nil {
		return false, err
	}
	return r[0].New, r[0].Err
}

// AddResult is the outcome of one URL given to AddBatch.
type AddResult struct {
	// New reports that the URL was queued by this call: it was not known, or only rejected,
	// and not given earlier in the same batch.
	New bool
	// Err, when not nil, says why this URL was not added: an error wrapping ErrURL (the URL
	// cannot be stored; record it as the URL's failure), or, for the URLs after a failed
	// transaction, AddBatch's own error.
	Err error
}

// maxChunk bounds the bytes, and maxChunkURLs the URLs, written by one AddBatch transaction
// (badger limits a transaction to 15% of the memtable size and to as many entries as
// skiplist nodes of the largest size fit in that; one URL alone, at most about twice
// MaxRecordSize, fits too).
const (
	maxChunk     = maxGroupSize
	maxChunkURLs = maxGroupEntries / 2
)

// AddBatch is Add for many URLs in as few transactions as possible. Result i is the outcome of
// us[i]: a URL repeated within us is New only the first time, and a URL that cannot be stored
// has an Err wrapping ErrURL while the others are added.
//
// The error is about the store, not about a URL: ErrClosed, ErrNoSpace (wrapped) or a failure
// of the store. The URLs of transactions committed before it stay added, and the results
// still say which (New); the other URLs have the error as their Err.
func (f *Frontier) AddBatch(us []URL) ([]AddResult, error) {
	res := make([]AddResult, len(us))
	if len(us) == 0 {
		return res, nil
	}
	if err := f.enter(); err != nil {
		return nil, err
	}
	defer f.exit()
	sc := addScratches.Get().(*addScratch)
	defer sc.release()
	adds := f.prepareAdds(us, res, sc)
	f.reserveAdds(us, adds, sc.firsts)
	err := f.writeAdds(adds, res)
	if f.hook != nil {
		f.hook("added")
	}
	f.registerAdds(adds, res)
	return res, err
}

// addOp is one URL of an AddBatch call on its way into the store.
type addOp struct {
	h    *host
	it   item     // the queue entry: its q/ key and record
	uk   []byte   // u/ key
	kk   knownKey // in f.known
	val  []byte   // the encoded record, the value of both keys
	skip bool     // repeated within the batch, known, or refused
	prev bool     // was rejected
}

// addScratch is what an AddBatch call needs only while it runs, kept from one call to the
// next: its addOps (which the queues copy: registerAdds) and the set of its URLs.
type addScratch struct {
	adds   []addOp
	firsts map[string]struct{}
}

var addScratches = sync.Pool{New: func() any { return &addScratch{firsts: map[string]struct{}{}} }}

// maxScratchAdds bounds the URLs of a batch whose scratch is kept for reuse.
const maxScratchAdds = 4096

// release empties sc (it holds nothing of the batch after) and gives it back for reuse.
func (sc *addScratch) release() {
	if cap(sc.adds) > maxScratchAdds {
		return
	}
	clear(sc.adds[:cap(sc.adds)])
	clear(sc.firsts)
	addScratches.Put(sc)
}

// prepareAdds returns the addOp of each of us, in sc: its record (with Attempts reset to 0)
// and its key in the known cache. A URL that cannot be stored is skipped, with its error
// wrapping ErrURL in res. It takes no lock.
func (f *Frontier) prepareAdds(us []URL, res []AddResult, sc *addScratch) []addOp {
	sc.adds = slices.Grow(sc.adds[:0], len(us))[:len(us)]
	adds := sc.adds
	for i := range us {
		if err := checkURL(&us[i]); err != nil {
			adds[i].skip, res[i].Err = true, err
			continue
		}
		u := us[i]
		u.Attempts = 0
		adds[i].it.rec = record{URL: u}
		if err := adds[i].it.rec.check(); err != nil {
			adds[i].skip, res[i].Err = true, err
			continue
		}
		adds[i].kk = f.known.key(u.URL)
	}
	return adds
}

// reserveAdds counts the AddBatch call in f.adding (registerAdds ends it) and decides, with
// f.mu held, which of adds are to be written: it skips a URL given earlier in the batch or
// known to the store (unless only rejected), and gives every other its host, a sequence
// number and its queue key, pending in its host until registerAdds. It then encodes their u/
// keys and values, without the lock. seen is an empty set it may use.
func (f *Frontier) reserveAdds(us []URL, adds []addOp, seen map[string]struct{}) {
	var firsts map[string]struct{}
	if len(us) > 1 {
		firsts = seen
	}
	f.mu.Lock()
	f.adding++
	for i, u := range us {
		a := &adds[i]
		if a.skip {
			continue
		}
		if firsts != nil {
			if _, ok := firsts[u.URL]; ok {
				a.skip = true
				continue
			}
			firsts[u.URL] = struct{}{}
		}
		if known, rejected := f.known.lookup(a.kk); known && !rejected {
			a.skip = true
			continue
		}
		f.seq++
		a.h = f.hostLocked(u.Host)
		a.it.key = queueKey(u.Host, f.keyPriority(&a.it.rec.URL), f.seq)
		a.it.rec.Seq = f.seq
		if a.h.pending == nil {
			a.h.pending = make(map[string]struct{})
		}
		a.h.pending[a.it.key] = struct{}{}
	}
	f.mu.Unlock()
	for i := range adds {
		if a := &adds[i]; !a.skip {
			a.uk = urlKey(a.it.rec.URL.URL)
			a.val = a.it.rec.encode()
		}
	}
}

// writeAdds writes the URLs of adds that are not skipped in as few transactions as
// maxChunk and maxChunkURLs allow, and sets their results: New for a URL written, an Err
// wrapping ErrURL for one whose key another URL holds. When a transaction fails it stops and
// returns the error (wrapped), which the results of that transaction's URLs and of all after
// it carry as their Err, none of them New; the transactions before it stay committed.
func (f *Frontier) writeAdds(adds []addOp, res []AddResult) error {
	for start := 0; start < len(adds); {
		end, size, writes := nextAddChunk(adds, start)
		if writes == 0 {
			start = end
			continue
		}
		err := f.write(size, 2*writes, func(txn *badger.Txn) error {
			return f.putAdds(txn, adds[start:end], res[start:end])
		})
		if err != nil {
			err = fmt.Errorf("frontier: add: %w", err)
			for i := start; i < len(adds); i++ {
				if res[i].New = false; res[i].Err == nil {
					res[i].Err = err
				}
			}
			return err
		}
		start = end
	}
	return nil
}

// nextAddChunk returns the end of the chunk of adds that starts at start and one transaction
// writes (at least one entry, at most maxChunk bytes and maxChunkURLs URLs), the estimated
// bytes of its transaction and the number of URLs it writes (skipped ones are not).
func nextAddChunk(adds []addOp, start int) (end int, size int64, writes int) {
	end, size = start, int64(txnOverhead)
	for end < len(adds) {
		a := &adds[end]
		n := int64(0)
		if !a.skip {
			n = entrySize(len(a.uk), len(a.val)) + entrySize(len(a.it.key), len(a.val))
		}
		if end > start && (size+n > maxChunk || writes >= maxChunkURLs) {
			break
		}
		size += n
		if !a.skip {
			writes++
		}
		end++
	}
	return end, size, writes
}

// putAdds is the transaction of one chunk of AddBatch: it queues each URL of adds not skipped
// that the store does not hold, or holds only as rejected (res New, a.prev for the latter),
// with its u/ and q/ keys. A URL the store holds otherwise is left as it is; one whose hashed
// key another URL holds gets an Err wrapping ErrURL. It may run more than once (see write):
// each run sets the results afresh.
func (f *Frontier) putAdds(txn *badger.Txn, adds []addOp, res []AddResult) error {
	for i := range adds {
		a := &adds[i]
		res[i] = AddResult{Err: res[i].Err}
		a.prev = false
		if a.skip {
			continue
		}
		got, err := f.get(txn, a.uk)
		switch {
		case err == nil:
			if ok, err := sameURL(got, a.it.rec.URL.URL); err != nil {
				return err
			} else if !ok {
				res[i].Err = fmt.Errorf("%w: key of %.100q taken by another URL", ErrURL, a.it.rec.URL.URL)
				continue
			}
			if got.UserMeta() != stRejected {
				continue
			}
			a.prev = true
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		f.keys.add(a.uk)
		if err := txn.SetEntry(badger.NewEntry(a.uk, a.val).WithMeta(stQueued)); err != nil {
			return err
		}
		if err := txn.Set([]byte(a.it.key), a.val); err != nil {
			return err
		}
		res[i].New = true
	}
	return nil
}

// registerAdds ends what reserveAdds began, with f.mu held: each URL reserved leaves its
// host's pending entries, is noted in the known cache unless it failed, and, when New, is
// registered in its host's queue (a URL that was rejected leaves the rejected count). It
// ends the call's count in f.adding and wakes the waiting claims.
func (f *Frontier) registerAdds(adds []addOp, res []AddResult) {
	f.mu.Lock()
	defer f.mu.Unlock()
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
		if res[i].Err == nil {
			// Queued now, or found queued, done or failed (a rejected one would be New).
			f.known.add(a.kk, false)
		}
		if !res[i].New {
			continue
		}
		if a.prev {
			f.stats.Rejected--
		}
		f.register(a.h, a.it, now)
	}
	f.adding--
	f.broadcast()
}

// checkURL returns an error wrapping ErrURL for a URL that cannot be stored whatever its size.
func checkURL(u *URL) error {
	if u.URL == "" {
		return fmt.Errorf("%w: empty URL", ErrURL)
	}
	return nil
}

// sameURL reports whether the u/ item holds url's record: false only when url's key is
// hashed and another URL has it.
func sameURL(item *badger.Item, url string) (bool, error) {
	if !hashed(item.Key()[len(prefixURL):]) {
		return true, nil
	}
	rec, err := itemRecord(item)
	if err != nil {
		return false, err
	}
	return rec.URL.URL == url, nil
}

// Reject remembers a URL that is not queued (out of scope, or otherwise) with its reason. It
// returns true the first time the URL is rejected, false when the URL is already known (queued,
// done, failed or rejected before). A rejected URL can still be Added later. An error wrapping
// ErrURL concerns u alone (empty, or its record with the reason larger than MaxRecordSize);
// other errors are the store's (ErrClosed, ErrNoSpace, ...).
func (f *Frontier) Reject(u URL, reason string) (bool, error) {
	if err := checkURL(&u); err != nil {
		return false, err
	}
	u.Attempts = 0
	rec := record{URL: u, Reason: reason}
	if err := rec.check(); err != nil {
		return false, err
	}
	if err := f.enter(); err != nil {
		return false, err
	}
	defer f.exit()
	kk := f.known.key(u.URL)
	f.mu.Lock()
	known, _ := f.known.lookup(kk)
	f.mu.Unlock()
	if known {
		return false, nil
	}
	val := rec.encode()
	uk := urlKey(u.URL)
	first, rejected := false, false
	var taken error
	err := f.write(entrySize(len(uk), len(val))+txnOverhead, 1, func(txn *badger.Txn) error {
		first, rejected, taken = false, false, nil
		got, err := f.get(txn, uk)
		switch {
		case err == nil:
			if ok, err := sameURL(got, u.URL); err != nil {
				return err
			} else if !ok {
				taken = fmt.Errorf("%w: key of %.100q taken by another URL", ErrURL, u.URL)
			}
			rejected = got.UserMeta() == stRejected
			return nil
		case !errors.Is(err, badger.ErrKeyNotFound):
			return err
		}
		first = true
		f.keys.add(uk)
		return txn.SetEntry(badger.NewEntry(uk, val).WithMeta(stRejected))
	})
	if err != nil {
		return false, fmt.Errorf("frontier: reject: %w", err)
	}
	if taken != nil {
		return false, taken
	}
	f.mu.Lock()
	if first {
		f.stats.Rejected++
	}
	f.known.add(kk, first || rejected)
	f.mu.Unlock()
	return first, nil
}

// Claim blocks until a URL can be fetched politely (host delay since the host's last response
// ended, host concurrency, host backoff, the URL's retry time), marks it in flight and returns
// it; the claim may send its one request at once (see Claim and Pace). Within a host, URLs come in Level order (with Config.Levels), then Priority order, then in the order they were added
// (breadth-first); across hosts, claims go round robin (with Config.Levels, within the level
// Levels.Pick chooses: see Levels). Claim returns ErrDone when nothing is
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
		if err := sleep(ctx, &timer, wake, wait); err != nil {
			return nil, err
		}
	}
}

// sleep waits until wake is closed, wait has passed (wait < 0: no time bound) or ctx ends
// (its error), reusing *timer across calls; the caller stops the timer when done.
func sleep(ctx context.Context, timer **time.Timer, wake <-chan struct{}, wait time.Duration) error {
	var tick <-chan time.Time
	if wait >= 0 {
		if *timer == nil {
			*timer = time.NewTimer(wait)
		} else {
			(*timer).Reset(wait)
		}
		tick = (*timer).C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-wake:
	case <-tick:
	}
	return nil
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
			after, n := load.cursor, f.loadSize(load)
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
	long := len(name) > maxKeyPart
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
			rec, err := itemRecord(it.Item())
			if err != nil {
				return err
			}
			if long && rec.URL.Host != name {
				continue // another host with the same hashed key part
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
	if h.inReady {
		// The load was for a claim that found h first in line: h keeps its place, and the
		// claim takes from it rather than loading every host behind it first.
		f.pushReadyFront(h)
	}
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
	uk := urlKey(rec.URL.URL)
	size := entrySize(len(c.key), 0) + entrySize(len(uk), len(val)) + txnOverhead
	return f.write(size, 2, func(txn *badger.Txn) error {
		if err := txn.Delete([]byte(c.key)); err != nil {
			return err
		}
		return txn.SetEntry(badger.NewEntry(uk, val).WithMeta(state))
	})
}

// Done marks a claimed URL finished (whatever its HTTP status) and releases its host slot. A
// request of the claim still in progress (not Ended) is taken to end now, which starts its
// host's delay clock.
//
// Done, Failed, Retry and RetryStatus have no per-URL errors (the claim's record was stored
// once already): their errors are ErrClaimFinished, ErrClosed, ErrNoSpace (wrapped) or the
// store's. On ErrNoSpace or a store error the claim stays active: finish it again later, or
// stop (the URL is queued again on the next Open).
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
	it := item{key: queueKey(h.name, f.keyPriority(&rec.URL), rec.Seq), rec: rec}
	if h.pending == nil {
		h.pending = make(map[string]struct{})
	}
	h.pending[it.key] = struct{}{}
	f.adding++
	f.mu.Unlock()

	val := rec.encode()
	uk := urlKey(rec.URL.URL)
	size := entrySize(len(c.key), 0) + entrySize(len(it.key), len(val)) + entrySize(len(uk), len(val)) + txnOverhead
	err := f.write(size, 3, func(txn *badger.Txn) error {
		if err := txn.Delete([]byte(c.key)); err != nil {
			return err
		}
		if err := txn.Set([]byte(it.key), val); err != nil {
			return err
		}
		return txn.SetEntry(badger.NewEntry(uk, val).WithMeta(stQueued))
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

// SetHostDelayOverride sets the operator's delay between requests to one host (amber ctl
// host-delay): from now on it is the host's delay, in place of Config.HostDelay and any
// Crawl-delay, lower or higher. A negative d removes the override. It is not persisted (the
// crawl keeps it in its config and sets it again on resume).
func (f *Frontier) SetHostDelayOverride(host string, d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.hostLocked(host)
	h.override = max(d, -1)
	f.schedule(h, f.now())
	f.broadcast()
}

// HostDelay returns the delay between two requests to host in force now, the one its requests
// are spaced by: the operator's (SetHostDelayOverride) when set, else the larger of the host's
// Crawl-delay (SetHostDelay) and the crawl's delay (SetDelay, or Config.HostDelay). A host the
// frontier knows nothing of has the crawl's delay.
func (f *Frontier) HostDelay(host string) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if h := f.hosts[host]; h != nil {
		return f.hostDelay(h)
	}
	return f.cfg.HostDelay
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
	st := f.stats
	st.Sites, st.SitesWaiting = int64(f.sites), int64(f.sitesWaiting)
	return st
}

// Each calls fn for every URL the frontier knows, in URL order (URLs longer than 256 bytes: in
// the order of their first 256 bytes), with its state (rejected ones with their reason, failed
// ones with their status), and stops at fn's first error, which it returns. fn must not call
// Close. Its own errors are the store's.
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

// getLong reads the d/, m/ or c/ entry k of key, unwrapping a hashed key's value; found is false
// when there is none (or, for a hashed key, when another key has it).
func getLong(txn *badger.Txn, k []byte, key string) (val []byte, found bool, err error) {
	item, err := txn.Get(k)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return nil, false, err
	}
	if item.UserMeta() != longKey {
		return v, true, nil
	}
	full, v, err := decodeLong(v)
	if err != nil {
		return nil, false, fmt.Errorf("entry %q: %w", item.Key(), err)
	}
	return v, full == key, nil
}

// errTaken says that a hashed key part is another string's.
var errTaken = errors.New("key taken by another")

// putLong stores val under key (prefix d/, m/ or c/) in txn: verbatim, or wrapped with the full key
// when the key part is hashed. It returns errTaken when the hashed key is another key's, and
// stores nothing when keep is set and the key has a value.
func (f *Frontier) putLong(txn *badger.Txn, prefix, key string, val []byte, keep bool) error {
	k := prefixed(prefix, key)
	long := hashed(k[len(prefix):])
	if long || keep {
		item, err := f.get(txn, k)
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
		case err != nil:
			return err
		case long:
			var full string
			if err := item.Value(func(v []byte) error {
				full, _, err = decodeLong(v)
				return err
			}); err != nil {
				return fmt.Errorf("entry %q: %w", k, err)
			}
			if full != key {
				return errTaken
			}
			if keep {
				return nil
			}
		default:
			return nil // keep
		}
	}
	f.keys.add(k)
	if !long {
		return txn.Set(k, val)
	}
	return txn.SetEntry(badger.NewEntry(k, encodeLong(key, val)).WithMeta(longKey))
}

// get reads a u/, d/, m/ or c/ key in txn: badger.ErrKeyNotFound without a read when the key
// filter does not hold it.
func (f *Frontier) get(txn *badger.Txn, k []byte) (*badger.Item, error) {
	if !f.keys.mayHold(k) {
		return nil, badger.ErrKeyNotFound
	}
	return txn.Get(k)
}

// LookupDigest returns the URI and date of the first capture stored with payload digest
// (warc.DedupIndex). ok is false when the digest is unknown. Its errors are the store's.
func (f *Frontier) LookupDigest(digest string) (uri string, date time.Time, ok bool, err error) {
	if err := f.enter(); err != nil {
		return "", time.Time{}, false, err
	}
	defer f.exit()
	k := prefixed(prefixDigest, digest)
	if !f.keys.mayHold(k) {
		return "", time.Time{}, false, nil
	}
	err = f.db.View(func(txn *badger.Txn) error {
		v, found, err := getLong(txn, k, digest)
		if err != nil || !found {
			return err
		}
		uri, date, err = decodeDigest(v)
		ok = err == nil
		return err
	})
	if err != nil {
		return "", time.Time{}, false, fmt.Errorf("frontier: lookup digest: %w", err)
	}
	return uri, date, ok, nil
}

// StoreDigest records the first capture of a payload digest (warc.DedupIndex). A digest already
// stored keeps its first capture. An error wrapping ErrURL concerns this capture alone (digest
// and URI larger than MaxRecordSize); other errors are the store's (ErrNoSpace, ...).
func (f *Frontier) StoreDigest(digest, uri string, date time.Time) error {
	if n := len(digest) + len(uri) + 2*binary.MaxVarintLen64; n > MaxRecordSize {
		return fmt.Errorf("%w: digest entry of %d bytes exceeds %d", ErrURL, n, MaxRecordSize)
	}
	if err := f.enter(); err != nil {
		return err
	}
	defer f.exit()
	val := encodeDigest(uri, date)
	err := f.write(entrySize(min(len(digest), hashedPart)+2, len(digest)+len(val))+txnOverhead, 1, func(txn *badger.Txn) error {
		return f.putLong(txn, prefixDigest, digest, val, true)
	})
	if errors.Is(err, errTaken) {
		return fmt.Errorf("%w: digest %.100q: %w", ErrURL, digest, err)
	}
	if err != nil {
		return fmt.Errorf("frontier: store digest: %w", err)
	}
	return nil
}

// LookupHeld reports whether StoreHeld stored key: whether the crawl holds the capture key
// names (warc.HeldIndex). Its errors are the store's.
func (f *Frontier) LookupHeld(key string) (bool, error) {
	if err := f.enter(); err != nil {
		return false, err
	}
	defer f.exit()
	k := prefixed(prefixHeld, key)
	if !f.keys.mayHold(k) {
		return false, nil
	}
	var ok bool
	err := f.db.View(func(txn *badger.Txn) error {
		var err error
		_, ok, err = getLong(txn, k, key)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("frontier: lookup held capture: %w", err)
	}
	return ok, nil
}

// StoreHeld records that the crawl holds the capture key names (warc.HeldIndex: a URL, its
// HTTP status and payload digest); storing a key twice is a no-op. An error wrapping ErrURL
// concerns this key alone (larger than MaxRecordSize); other errors are the store's
// (ErrNoSpace, ...).
func (f *Frontier) StoreHeld(key string) error {
	if n := len(key) + binary.MaxVarintLen64; n > MaxRecordSize {
		return fmt.Errorf("%w: held capture of %d bytes exceeds %d", ErrURL, n, MaxRecordSize)
	}
	if err := f.enter(); err != nil {
		return err
	}
	defer f.exit()
	err := f.write(entrySize(min(len(key), hashedPart)+2, len(key)+binary.MaxVarintLen64)+txnOverhead, 1, func(txn *badger.Txn) error {
		return f.putLong(txn, prefixHeld, key, []byte{}, true)
	})
	if errors.Is(err, errTaken) {
		return fmt.Errorf("%w: held capture %.100q: %w", ErrURL, key, err)
	}
	if err != nil {
		return fmt.Errorf("frontier: store held capture: %w", err)
	}
	return nil
}

// PutMeta stores value under key in the crawl metadata (counters, flags, config hash, ...),
// replacing any previous value. Keys of any length work. An error wrapping ErrMeta concerns
// this entry alone (key and value larger than MaxRecordSize); other errors are the store's
// (ErrClosed, ErrNoSpace, ...).
func (f *Frontier) PutMeta(key string, value []byte) error {
	if n := len(key) + len(value) + binary.MaxVarintLen64; n > MaxRecordSize {
		return fmt.Errorf("%w: entry of %d bytes exceeds %d", ErrMeta, n, MaxRecordSize)
	}
	if err := f.enter(); err != nil {
		return err
	}
	defer f.exit()
	val := bytes.Clone(value)
	if val == nil {
		val = []byte{}
	}
	err := f.write(entrySize(min(len(key), hashedPart)+2, len(key)+len(val))+txnOverhead, 1, func(txn *badger.Txn) error {
		return f.putLong(txn, prefixMeta, key, val, false)
	})
	if errors.Is(err, errTaken) {
		return fmt.Errorf("%w: key %.100q: %w", ErrMeta, key, err)
	}
	if err != nil {
		return fmt.Errorf("frontier: put meta: %w", err)
	}
	return nil
}

// Meta returns the metadata value stored under key; ok is false when there is none. Its errors
// are the store's.
func (f *Frontier) Meta(key string) (value []byte, ok bool, err error) {
	if err := f.enter(); err != nil {
		return nil, false, err
	}
	defer f.exit()
	k := prefixed(prefixMeta, key)
	if !f.keys.mayHold(k) {
		return nil, false, nil
	}
	err = f.db.View(func(txn *badger.Txn) error {
		value, ok, err = getLong(txn, k, key)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("frontier: meta: %w", err)
	}
	if !ok {
		value = nil
	}
	return value, ok, nil
}

// ScanMeta calls fn for every metadata key starting with prefix, in key order (keys longer
// than 256 bytes: in the order of their first 256 bytes), and stops at fn's first error, which
// it returns. fn must not call Close.
func (f *Frontier) ScanMeta(prefix string, fn func(key string, value []byte) error) error {
	if err := f.enter(); err != nil {
		return err
	}
	defer f.exit()
	var fnErr error
	err := f.db.View(func(txn *badger.Txn) error {
		opt := badger.DefaultIteratorOptions
		opt.Prefix = []byte(prefixMeta + prefix[:min(len(prefix), maxKeyPart)])
		it := txn.NewIterator(opt)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			v, err := item.ValueCopy(nil)
			if err != nil {
				return err
			}
			key := string(item.Key()[len(prefixMeta):])
			if item.UserMeta() == longKey {
				if key, v, err = decodeLong(v); err != nil {
					return fmt.Errorf("entry %q: %w", item.Key(), err)
				}
			}
			if !strings.HasPrefix(key, prefix) {
				continue
			}
			if err := fn(key, v); err != nil {
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

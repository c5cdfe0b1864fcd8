package frontier

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/skl"
	"github.com/dgraph-io/badger/v4/table"
)

// Badger writes its write-ahead logs (*.mem) and its tables (*.sst) through memory maps of
// files it extends with ftruncate, which allocates no space: a page is allocated when it is
// first written, and when the filesystem is full that write is a SIGBUS, a crash of the whole
// process and not an error (badger v4.9.6: table.CreateTable copying a table built by a
// memtable flush or a compaction into its new file, table/table.go:256; logFile.writeEntry
// appending to the memtable's log). The flush and the compactions run in badger's own
// goroutines, and Close flushes the memtable too. So the frontier never lets badger start
// what could fault: every write first checks that the filesystem keeps, after it, room for
// everything badger may still write on its own (gate), and fails with ErrNoSpace otherwise.
//
// What badger may write on its own, at most:
//   - a table for every memtable not flushed yet, about the size of its log (logs, with
//     tableOverhead for the table's index and bloom filter);
//   - compaction output, of at most the size of its input: all the tables of the LSM tree
//     when they are small, and no more than compactionReserve (all level-0 tables and the base
//     level they are merged into, with the other compactor's one table and its overlap one
//     level down) when they are large. Input tables are deleted only after the output is
//     written.
//
// Table files on disk that are not in the LSM tree are a flush's or a compaction's output
// being written, which has already taken its part of the space kept for it, or inputs about
// to be deleted, whose space comes back: their size is taken off what is kept, so that a
// flush or compaction in progress is not counted twice.
//   - a few pages: a new memtable log's header, MANIFEST rewrites (closeSlack).
//
// Writes keep writeSlack more than that free, for the error of their own estimates (a log
// grows by whole pages), so that a store that accepted its last write can always be closed.
const (
	// compactionReserve bounds the space kept for compactions of a large store:
	// NumLevelZeroTablesStall level-0 tables of about a memtable each, the base level (10 MiB
	// target) and a deeper compaction (a table and the ten it overlaps), rounded up.
	compactionReserve = 256 << 20
	// closeSlack covers the pages no estimate counts: memtable log headers, MANIFEST
	// rewrites, DISCARD and vlog headers.
	closeSlack = 1 << 20
	// writeSlack is kept free beyond what Close needs by every write, for the error of the
	// writes' estimates of their own size.
	writeSlack = 3 << 20
	// scanEvery is how long a scan of the store's files is trusted when space is short.
	scanEvery = 100 * time.Millisecond
	// A reading of the free space that left more than plenty beyond what the store needs is
	// trusted by acquire for freeFresh, less the writes it let through meanwhile: others
	// (the WARC files, the logs) cannot write a gigabyte in 20 ms, and a crawl commits to
	// the store two or three times a page, which took as many fstatfs calls. Below plenty,
	// every acquire reads it afresh, as the refusals need.
	freeFresh = 20 * time.Millisecond
	plenty    = 1 << 30
	// entryOverhead is the log bytes of one entry beyond its key and value (header, version,
	// checksum); txnOverhead those of a transaction (its commit entry).
	entryOverhead = 40
	txnOverhead   = 64
)

// Badger's memtable options (see badgerOptions for the rest, and baseTableSize), and maxLogs,
// which bounds the bytes of unflushed memtable logs: the memtable being written, numMemtables
// waiting for a flush and the one being flushed, each of at most its size plus one
// transaction.
const (
	// memTableSize is the memtable size of a process whose memory limit is below
	// largeMemTableLimit (a crawl's, 96 MiB by default), and largeMemTableSize the size
	// above it (and without a limit): see memTableFor. The memtable size bounds the level-0
	// table a memtable flush builds, and with it the largest table-builder allocator badger
	// keeps in its pool (see builders.go). A store left with other logs opens too
	// (checkLogs).
	memTableSize       = 2 << 20
	largeMemTableSize  = 4 << 20
	largeMemTableLimit = 192 << 20
	numMemtables       = 1
	blockCacheSize     = 4 << 20
	maxBatchSize       = 15 * memTableSize / 100 // badger's limit on the bytes of one transaction (the smaller's)
	// maxBatchCount is badger's limit on the entries of one transaction.
	maxBatchCount = maxBatchSize / skl.MaxNodeSize
	maxLogs       = (numMemtables + 2) * (largeMemTableSize + 15*largeMemTableSize/100)
)

// memTableFor returns the memtable size of a process whose soft memory limit is limit
// (runtime/debug.SetMemoryLimit; math.MaxInt64 for none). Smaller memtables cost a store
// more flushes and compactions; larger ones make the builders badger keeps in the Go heap
// larger. Under a crawl's limit of 96 MiB the builders of 4 MiB memtables were 53 MB of
// a live heap of 80 MB at a million pages, and the collector ran a hundred times a second:
// make bench-scale (1,000,000 pages of 5 KB) took 584 s and 878 CPU-s with 4 MiB memtables,
// 475 s and 717 CPU-s with 2 MiB. Without a limit the larger memtables write faster:
// make bench-frontier (2,000,000 URLs) added 74,000 URLs/s with 4 MiB and 50,000 with 2 MiB.
func memTableFor(limit int64) int64 {
	if limit < largeMemTableLimit {
		return memTableSize
	}
	return largeMemTableSize
}

// ErrNoSpace is returned (wrapped) by every write, by Open and by Close when the store's
// filesystem lacks the free space the operation and badger's own work (memtable flush,
// compaction) need; see Space. It wraps syscall.ENOSPC, so errors.Is(err, syscall.ENOSPC)
// holds too. Nothing was written: the store stays consistent, and the operation can be
// tried again once space is freed.
var ErrNoSpace = fmt.Errorf("frontier: not enough free space: %w", syscall.ENOSPC)

// Space is the free space of the store's filesystem and the part of it the frontier needs.
type Space struct {
	// Free is the bytes an unprivileged process may still write on the filesystem.
	Free int64
	// Close is the free space the store needs to close cleanly: to flush its memtables to
	// tables and finish a compaction (about the store's size plus 1 MiB while it is below
	// 256 MiB, and at most about 290 MiB). Close fails with ErrNoSpace with less free.
	Close int64
	// Write is the free space below which writes fail with ErrNoSpace: Close plus 3 MiB
	// (plus the size of writes in progress), so that the store can always be closed after
	// its last successful write unless something else fills the disk meanwhile.
	Write int64
}

// manifestTables is the space the tables listed in the store's MANIFEST take: the tables
// badger keeps when it opens the store. A crash leaves the output of the compactions it
// interrupted, tables no MANIFEST lists, which badger deletes as it opens. -1 when there is no
// MANIFEST to read (a new store).
func manifestTables(dir string) int64 {
	fp, err := os.Open(filepath.Join(dir, badger.ManifestFilename))
	if err != nil {
		return -1
	}
	defer fp.Close()
	m, _, err := badger.ReplayManifestFile(fp, 0, badger.DefaultOptions(dir))
	if err != nil {
		return -1
	}
	var n int64
	for id := range m.Tables {
		if fi, err := os.Stat(filepath.Join(dir, table.IDToFilename(id))); err == nil {
			n += allocated(fi)
		}
	}
	return n
}

// gate checks free space before writes (see the comment above ErrNoSpace).
type gate struct {
	path string
	dir  *os.File // the store directory, for fstatfs

	// live returns the bytes of the tables in the LSM tree; nil before badger is open, when
	// every table file is taken to be in it.
	live func() int64

	// statfs reads the filesystem's free space and now the time (freeBytes and time.Now;
	// tests count the readings and set the clock).
	statfs func(*os.File) (int64, error)
	now    func() time.Time

	mu      sync.Mutex // guards the fields below
	freeAt  time.Time  // time of the last reading of statfs that acquire may trust; zero: none
	free    int64      // that reading
	freeLet int64      // bytes acquire let through since it
	scanned time.Time  // time of the last scan; zero: never
	tables  int64      // bytes of the tables in the LSM tree at the last scan
	extra   int64      // bytes of other table files at the last scan
	logs    int64      // bytes allocated to *.mem files at the last scan
	since   int64      // bytes written since the last scan
	pending int64      // bytes of writes let through and not finished
}

func openGate(path string) (*gate, error) {
	d, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("frontier: open %s: %w", path, err)
	}
	return &gate{path: path, dir: d, statfs: freeBytes, now: time.Now}, nil
}

func (g *gate) close() error { return g.dir.Close() }

// needLocked is the free space badger may need on its own (Space.Close), from the last scan.
func (g *gate) needLocked() int64 {
	logs := g.logs + g.since
	return max(min(g.tables, compactionReserve)-g.extra, 0) + logs + logs/tableOverheadDiv + closeSlack
}

// tableOverheadDiv: a table is at most 1/8 larger than the log it is flushed from.
const tableOverheadDiv = 8

// maxNeed bounds needLocked whatever the store holds, plus writeSlack.
const maxNeed = compactionReserve + maxLogs + maxLogs/tableOverheadDiv + closeSlack + writeSlack

// scan measures the store's files (no lock held: it is I/O).
func (g *gate) scan() error {
	live := int64(-1)
	if g.live != nil {
		live = g.live() // before listing the files: a table may leave the tree meanwhile
	}
	es, err := os.ReadDir(g.path)
	if err != nil {
		return fmt.Errorf("frontier: scan %s: %w", g.path, err)
	}
	var tables, logs int64
	for _, e := range es {
		name := e.Name()
		if !strings.HasSuffix(name, ".sst") && !strings.HasSuffix(name, ".mem") {
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted by a flush or compaction meanwhile
		}
		if err != nil {
			return fmt.Errorf("frontier: scan %s: %w", g.path, err)
		}
		if strings.HasSuffix(name, ".sst") {
			tables += allocated(fi)
		} else {
			logs += allocated(fi)
		}
	}
	extra := int64(0)
	if live >= 0 {
		tables, extra = live, max(tables-live, 0)
	}
	g.mu.Lock()
	g.tables, g.extra, g.logs, g.since, g.scanned = tables, extra, logs, 0, time.Now()
	g.mu.Unlock()
	return nil
}

// space measures the free space and what the store needs now, scanning its files afresh.
func (g *gate) space() (Space, error) {
	free, err := g.statfs(g.dir)
	if err != nil {
		return Space{}, fmt.Errorf("frontier: free space of %s: %w", g.path, err)
	}
	if err := g.scan(); err != nil {
		return Space{}, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	need := g.needLocked()
	return Space{Free: free, Close: need, Write: need + writeSlack + g.pending}, nil
}

// short returns an error wrapping ErrNoSpace unless free >= need.
func short(free, need int64, dir string) error {
	if free < need {
		return fmt.Errorf("%w: %d bytes free on the filesystem of %s, %d needed", ErrNoSpace, free, dir, need)
	}
	return nil
}

// acquire lets a write of about n bytes through when the filesystem keeps, after it, the
// space badger may need; release must follow. It refuses only on a fresh scan: the last one
// may be from before a memtable flush, whose compressed table needs far less than its log.
func (g *gate) acquire(n int64) error {
	g.mu.Lock()
	if !g.freeAt.IsZero() && g.now().Sub(g.freeAt) < freeFresh && g.free-g.freeLet >= maxNeed+plenty+g.pending+n {
		g.pending += n
		g.freeLet += n
		g.mu.Unlock()
		return nil
	}
	g.mu.Unlock()
	free, err := g.statfs(g.dir)
	if err != nil {
		return fmt.Errorf("frontier: free space of %s: %w", g.path, err)
	}
	g.mu.Lock()
	g.freeAt, g.free, g.freeLet = g.now(), free, 0
	if free >= maxNeed+g.pending+n {
		g.pending += n
		g.freeLet += n
		g.mu.Unlock()
		return nil
	}
	scanned := false
	if time.Since(g.scanned) > scanEvery {
		g.mu.Unlock()
		if err := g.scan(); err != nil {
			return err
		}
		g.mu.Lock()
		scanned = true
	}
	err = short(free, g.needLocked()+writeSlack+g.pending+n, g.path)
	if err != nil && !scanned {
		g.mu.Unlock()
		if err := g.scan(); err != nil {
			return err
		}
		g.mu.Lock()
		err = short(free, g.needLocked()+writeSlack+g.pending+n, g.path)
	}
	if err == nil {
		g.pending += n
		g.freeLet += n
	}
	g.mu.Unlock()
	return err
}

// release ends a write let through by acquire; written says whether it was committed.
func (g *gate) release(n int64, written bool) {
	g.mu.Lock()
	g.pending -= n
	if written {
		g.since += n
	}
	g.mu.Unlock()
}

// noSpace makes a write error caused by a full filesystem (ENOSPC, EDQUOT) an ErrNoSpace.
func noSpace(err error) error {
	if err == nil || errors.Is(err, ErrNoSpace) || !full(err) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrNoSpace, err)
}

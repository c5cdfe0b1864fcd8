package frontier

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/table"
	"golang.org/x/sys/unix"
)

// Badger maps its tables and its memtable logs into memory (mmap, MAP_SHARED). Every page of
// a table that badger writes (a memtable flush, a compaction) or reads, and every page of a
// memtable log it writes (each commit appends to the current memtable's log), stays in the
// process's resident set until the file is deleted, so the resident set of a process with a
// large store grows to about the store's size plus two memtable logs: RssFile in
// /proc/self/status, counted by VmHWM, time -v's maximum resident set size and the OOM killer
// alike, although those pages are the kernel's page cache of the files. A trimmer therefore
// drops the pages of those mappings from the resident set whenever the process's file-backed
// resident set has grown by trimStep. For the tables in the tree, madvise(MADV_DONTNEED): on
// a shared file mapping it unmaps the pages and leaves them in the page cache, so nothing is
// lost and a later read maps them again from the cache (a minor fault), without I/O unless the
// kernel has reclaimed them meanwhile. For the rest, MADV_PAGEOUT (see drop).
//
// MADV_DONTNEED must only ever reach a table's mapping: on memory that the process mapped
// since at the same address (the Go heap), it would zero it. So the trimmer uses it only on
// the tables it holds a reference to for the duration (an iterator, which holds every table
// of the tree; a table is unmapped only when its last reference goes): those in the tree both
// before and after it opened the iterator, as a table leaves the tree only to be deleted and
// its ID never comes back.
//
// db.Tables(), which the trimmer needs to know the tables it holds, reads a few bytes of every
// table's index through its mapping (TableInfo.StaleDataSize). Were that page dropped with the
// rest, the read would map it again, with the 64 KiB around it that the kernel maps on a read
// fault (fault-around), for every table at once, and the MADV_DONTNEED that follows records
// them in the process's peak RSS (VmHWM): in make bench-scale, 10 MB at 280 tables (38 KB a
// table), which was the peak then, growing with the store. So a trim keeps the page or two of
// each held table that the read touches (see indexHead): 4 to 8 KiB a table, and db.Tables()
// maps nothing.

const (
	// trimEvery is how often the trimmer looks at the file-backed resident set.
	trimEvery = 250 * time.Millisecond
	// trimStep is how much that set may grow before the mappings are trimmed.
	trimStep = 4 << 20
)

// trimmer drops the pages of badger's table and memtable log mappings from the resident set.
type trimmer struct {
	db     *badger.DB
	dir    string        // the store directory as /proc/self/maps names it
	stop   chan struct{} // closed by close
	exited chan struct{} // closed when run returns

	mu    sync.Mutex       // guards sizes (trim runs on run's goroutine, and in tests)
	sizes map[uint64]int64 // the file sizes of the tables held at the last trim, by ID
}

// startTrimmer starts a trimmer for the store in dir; nil where the process's mappings cannot
// be read.
func startTrimmer(db *badger.DB, dir string) *trimmer {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil || fileRSS() < 0 {
		return nil
	}
	t := &trimmer{db: db, dir: abs, stop: make(chan struct{}), exited: make(chan struct{})}
	go t.run()
	return t
}

// close stops the trimmer; it may be nil.
func (t *trimmer) close() {
	if t == nil {
		return
	}
	close(t.stop)
	<-t.exited
}

func (t *trimmer) run() {
	defer close(t.exited)
	tick := time.NewTicker(trimEvery)
	defer tick.Stop()
	base := fileRSS()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
		}
		rss := fileRSS()
		if rss < 0 {
			return
		}
		base = min(base, rss)
		if rss-base < trimStep {
			continue
		}
		if !t.trim() {
			return
		}
		base = fileRSS()
	}
}

// trim drops the resident pages of the tables and memtable logs of the store (see drop);
// false when the mappings cannot be read or trimmed (the trimmer then stops).
func (t *trimmer) trim() bool {
	before := t.db.Tables()
	txn := t.db.NewTransaction(false)
	defer txn.Discard()
	it := txn.NewIterator(badger.IteratorOptions{}) // holds every table until closed
	defer it.Close()
	in := make(map[uint64]bool, len(before))
	for _, ti := range t.db.Tables() {
		in[ti.ID] = true
	}
	held := make(map[uint64]head, len(before))
	for _, ti := range before {
		if in[ti.ID] {
			held[ti.ID] = head{}
		}
	}
	t.heads(before, held)
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return false
	}
	return t.drop(maps, held)
}

// head is the range of a table's file, [lo, hi), that a trim keeps resident: the head of its
// index (see indexHead); empty when unknown.
type head struct{ lo, hi int64 }

// The layout of the end of a table file (badger v4.9.6, table/builder.go: Done; table.go:
// initIndex): the index, a flatbuffer of TableInfo.IndexSz bytes; its length (4 bytes); the
// index's checksum, a pb.Checksum of a CRC32C (0 to 6 bytes: the algorithm is the default and
// not written); the checksum's length (4 bytes). db.Tables() reads the index's head: its root
// offset, the root table's vtable and its scalar fields (StaleDataSize), which the builder
// writes last and so come first, within indexHead bytes. If a badger upgrade moves them, a
// trim keeps a page db.Tables() no longer reads, and the one it reads comes back with the
// pages around it: TestTrimKeepsIndexHead says so.
const (
	footerMin = 4 + 0 + 4
	footerMax = 4 + 6 + 4
	indexHead = 256
)

// heads sets the head of each table of held from its index size (in tables) and its file
// size, read once per table.
func (t *trimmer) heads(tables []badger.TableInfo, held map[uint64]head) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sizes := make(map[uint64]int64, len(held))
	for _, ti := range tables {
		if _, ok := held[ti.ID]; !ok {
			continue
		}
		size, ok := t.sizes[ti.ID]
		if !ok {
			fi, err := os.Stat(filepath.Join(t.dir, table.IDToFilename(ti.ID)))
			if err != nil {
				continue // held, so there; if not, the whole mapping is dropped
			}
			size = fi.Size()
		}
		sizes[ti.ID] = size
		idx := int64(ti.IndexSz)
		held[ti.ID] = head{lo: max(size-footerMax-idx, 0), hi: min(size-footerMin-idx+indexHead, size)}
	}
	t.sizes = sizes
}

// drop drops from the resident set the pages of the store's mappings that maps lists: with
// MADV_DONTNEED those of the tables in held, but for the pages of their heads, and with
// MADV_PAGEOUT those of the other tables and of the memtable logs; false when an
// MADV_DONTNEED fails.
//
// The other tables are new ones a compaction wrote and has not put in the tree yet (those
// of a long compaction can take much memory), or ones leaving it. Nothing here holds their
// mappings, nor the logs' (a memtable flushed meanwhile may be on its way out, its log still
// mapped, with no reference left), so one may be gone, and its address reused, by the time
// the advice lands; but MADV_PAGEOUT, unlike MADV_DONTNEED, loses nothing wherever it lands:
// it reclaims only what it can write back or swap out (a log's pages once the kernel has
// written them back: a dirty page stays), and the next access reads it in again. It drops
// the pages from the page cache too, which a table just written and synced, and a log that
// is read only when a crashed store is opened, can spare. Its errors are ignored: a kernel
// before Linux 5.4 lacks it, and the range may be gone.
func (t *trimmer) drop(maps []byte, held map[uint64]head) bool {
	for line := range bytes.Lines(maps) {
		start, end, kind, id, ok := t.mapping(line)
		if !ok {
			continue
		}
		h, isHeld := held[id]
		if kind != mapTable || !isHeld {
			_, _, _ = unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_PAGEOUT)
			continue
		}
		lo, hi := end, end // the pages kept: [lo, hi)
		if h.hi > h.lo {
			page := uintptr(os.Getpagesize())
			lo = min(start+uintptr(h.lo)/page*page, end)
			hi = min(start+(uintptr(h.hi)+page-1)/page*page, end)
		}
		if !dontNeed(start, lo) || !dontNeed(hi, end) {
			return false
		}
	}
	return true
}

// dontNeed drops the pages of [start, end) with MADV_DONTNEED; false when it fails.
func dontNeed(start, end uintptr) bool {
	if end <= start {
		return true
	}
	_, _, errno := unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_DONTNEED)
	return errno == 0
}

// The kinds of file mappings a trimmer trims.
const (
	mapTable = iota // a table, NNNNNN.sst
	mapLog          // a memtable's log, NNNNN.mem
)

// mapping parses a line of /proc/self/maps ("start-end perms offset dev inode path") and
// reports whether it is a shared mapping of a table file or memtable log of the store, which
// kind and which file (the number in its name).
func (t *trimmer) mapping(line []byte) (start, end uintptr, kind int, id uint64, ok bool) {
	f := strings.SplitN(strings.TrimSuffix(string(line), "\n"), " ", 6)
	if len(f) < 6 || len(f[1]) != 4 || f[1][3] != 's' {
		return 0, 0, 0, 0, false
	}
	path := strings.TrimLeft(f[5], " ")
	if filepath.Dir(path) != t.dir {
		return 0, 0, 0, 0, false
	}
	name, isTable := strings.CutSuffix(filepath.Base(path), ".sst")
	if !isTable {
		var isLog bool
		if name, isLog = strings.CutSuffix(name, ".mem"); !isLog {
			return 0, 0, 0, 0, false
		}
		kind = mapLog
	}
	id, err := strconv.ParseUint(name, 10, 64)
	if err != nil {
		return 0, 0, 0, 0, false
	}
	lo, hi, _ := strings.Cut(f[0], "-")
	s, err1 := strconv.ParseUint(lo, 16, 64)
	e, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return 0, 0, 0, 0, false
	}
	return uintptr(s), uintptr(e), kind, id, true
}

// fileRSS is the file-backed (and shared memory) resident set of the process in bytes, -1
// when /proc/self/statm cannot be read.
func fileRSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return -1
	}
	pages, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}

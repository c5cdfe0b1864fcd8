package frontier

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"golang.org/x/sys/unix"
)

// Badger maps its tables into memory (mmap, MAP_SHARED). Every page of a table that badger
// writes (a memtable flush, a compaction) or reads stays in the process's resident set until
// the table is deleted, so the resident set of a process with a large store grows to about
// the store's size: RssFile in /proc/self/status, counted by VmHWM, time -v's maximum
// resident set size and the OOM killer alike, although those pages are the kernel's page
// cache of the table files. A trimmer therefore drops the pages of the table mappings from
// the resident set whenever the process's file-backed resident set has grown by trimStep:
// madvise(MADV_DONTNEED) on a shared file mapping unmaps the pages and leaves them in the page
// cache, so nothing is lost and a later read maps them again from the cache (a minor fault),
// without I/O unless the kernel has reclaimed them meanwhile.
//
// MADV_DONTNEED must only ever reach a table's mapping: on memory that the process mapped
// since at the same address (the Go heap), it would zero it. So the trimmer trims only the
// tables it holds a reference to for the duration (an iterator, which holds every table of
// the tree; a table is unmapped only when its last reference goes): those in the tree both
// before and after it opened the iterator, as a table leaves the tree only to be deleted and
// its ID never comes back.

const (
	// trimEvery is how often the trimmer looks at the file-backed resident set.
	trimEvery = 250 * time.Millisecond
	// trimStep is how much that set may grow before the table mappings are trimmed.
	trimStep = 8 << 20
)

// trimmer drops the pages of badger's table mappings from the resident set.
type trimmer struct {
	db     *badger.DB
	dir    string        // the store directory as /proc/self/maps names it
	stop   chan struct{} // closed by close
	exited chan struct{} // closed when run returns
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

// trim drops the resident pages of the tables the store holds; false when the mappings cannot
// be read or trimmed (the trimmer then stops).
func (t *trimmer) trim() bool {
	before := t.db.Tables()
	txn := t.db.NewTransaction(false)
	defer txn.Discard()
	it := txn.NewIterator(badger.IteratorOptions{}) // holds every table until closed
	defer it.Close()
	held := make(map[uint64]bool, len(before))
	for _, ti := range before {
		held[ti.ID] = false
	}
	for _, ti := range t.db.Tables() {
		if _, ok := held[ti.ID]; ok {
			held[ti.ID] = true
		}
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return false
	}
	for len(maps) > 0 {
		var line []byte
		line, maps, _ = bytes.Cut(maps, []byte{'\n'})
		start, end, id, ok := t.tableMapping(line)
		if !ok || !held[id] {
			continue
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_DONTNEED); errno != 0 {
			return false
		}
	}
	return true
}

// tableMapping parses a line of /proc/self/maps ("start-end perms offset dev inode path") and
// reports whether it is a shared mapping of a table file of the store, and which.
func (t *trimmer) tableMapping(line []byte) (start, end uintptr, id uint64, ok bool) {
	f := strings.SplitN(string(line), " ", 6)
	if len(f) < 6 || len(f[1]) != 4 || f[1][3] != 's' {
		return 0, 0, 0, false
	}
	path := strings.TrimLeft(f[5], " ")
	if filepath.Dir(path) != t.dir || !strings.HasSuffix(path, ".sst") {
		return 0, 0, 0, false
	}
	id, err := strconv.ParseUint(strings.TrimSuffix(filepath.Base(path), ".sst"), 10, 64)
	if err != nil {
		return 0, 0, 0, false
	}
	lo, hi, _ := strings.Cut(f[0], "-")
	s, err1 := strconv.ParseUint(lo, 16, 64)
	e, err2 := strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || e <= s {
		return 0, 0, 0, false
	}
	return uintptr(s), uintptr(e), id, true
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

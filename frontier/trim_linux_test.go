package frontier

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

func TestMapping(t *testing.T) {
	tr := &trimmer{dir: "/crawl dir/state"}
	tests := []struct {
		line       string
		start, end uintptr
		kind       int
		id         uint64
		ok         bool
	}{
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567                    /crawl dir/state/000197.sst", 0x7f1c2a000000, 0x7f1c2a200000, mapTable, 197, true},
		{"7f1c2a000000-7f1c2a200000 r--s 00000000 fd:01 1234567 /crawl dir/state/1234567.sst\n", 0x7f1c2a000000, 0x7f1c2a200000, mapTable, 1234567, true},
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/state/00031.mem", 0x7f1c2a000000, 0x7f1c2a200000, mapLog, 31, true},
		{"7f1c2a000000-7f1c2a200000 rw-p 00000000 fd:01 1234567    /crawl dir/state/000197.sst", 0, 0, 0, 0, false},           // private
		{"7f1c2a000000-7f1c2a200000 rw-p 00000000 fd:01 1234567    /crawl dir/state/00031.mem", 0, 0, 0, 0, false},            // private
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/state/000197.sst (deleted)", 0, 0, 0, 0, false}, // deleted
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/state/00031.mem (deleted)", 0, 0, 0, 0, false},  // deleted
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/state/000001.vlog", 0, 0, 0, 0, false},          // value log
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/state/DISCARD", 0, 0, 0, 0, false},
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/other/000197.sst", 0, 0, 0, 0, false}, // another store
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/other/00031.mem", 0, 0, 0, 0, false},
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/state/x.sst", 0, 0, 0, 0, false},
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/state/x.mem", 0, 0, 0, 0, false},
		{"7f1c2a200000-7f1c2a000000 rw-s 00000000 fd:01 1234567    /crawl dir/state/000197.sst", 0, 0, 0, 0, false}, // empty range
		{"7f1c2a000000-7f1c2a200000 rw-p 00000000 00:00 0 ", 0, 0, 0, 0, false},
		{"", 0, 0, 0, 0, false},
	}
	for _, tt := range tests {
		start, end, kind, id, ok := tr.mapping([]byte(tt.line))
		if start != tt.start || end != tt.end || kind != tt.kind || id != tt.id || ok != tt.ok {
			t.Errorf("mapping(%q) = %#x, %#x, %d, %d, %v; want %#x, %#x, %d, %d, %v",
				tt.line, start, end, kind, id, ok, tt.start, tt.end, tt.kind, tt.id, tt.ok)
		}
	}
}

// storeRSS sums the resident bytes of the mappings of one kind, mapTable or mapLog, of the
// store tr trims (/proc/self/smaps).
func storeRSS(t testing.TB, tr *trimmer, kind int) int64 {
	t.Helper()
	file, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer file.Close()
	var n int64
	in := false
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		line := sc.Text()
		if name, val, ok := strings.Cut(line, ":"); ok && !strings.Contains(name, " ") && !strings.Contains(name, "-") {
			if in && name == "Rss" {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
				if err != nil {
					t.Fatalf("smaps line %q: %v", line, err)
				}
				n += kb << 10
			}
			continue
		}
		_, _, k, _, ok := tr.mapping([]byte(line))
		in = ok && k == kind
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// tabled returns a store of n URLs in tables (written, closed, opened again), open until t
// ends. With n = 12000, about 13 MB: two level-0 tables, too few for badger to start a
// compaction, which would read them while a test looks.
func tabled(t *testing.T, n int) *Frontier {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	f, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("v", 500)
	var batch []URL
	for i := range n {
		h := fmt.Sprintf("h%d.test", i%10)
		batch = append(batch, URL{URL: fmt.Sprintf("http://%s/%d", h, i), Host: h, Via: long})
		if len(batch) == 1000 {
			if _, err := f.AddBatch(batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := f.Close(); err != nil { // flushes the memtables into tables
		t.Fatal(err)
	}
	// No compaction: the reopened store would compact its level 0 in its own time, writing
	// and mapping tables while a test counts their resident pages.
	f = openT(t, Config{Dir: dir, noCompaction: true})
	if f.trimmer == nil {
		t.Fatal("no trimmer on Linux")
	}
	return f
}

// TestTrim checks that a trim drops the pages of the table mappings from the resident set and
// that the store reads the same afterwards.
func TestTrim(t *testing.T) {
	const n = 12000
	f := tabled(t, n)
	each := func() []Entry {
		var es []Entry
		if err := f.Each(func(e Entry) error { es = append(es, e); return nil }); err != nil {
			t.Fatal(err)
		}
		return es
	}
	before := each()
	if len(before) != n {
		t.Fatalf("Each: %d entries, want %d", len(before), n)
	}
	tests := []struct {
		name string
		trim func() bool
	}{
		// The tables held: MADV_DONTNEED.
		{"held", f.trimmer.trim},
		// As if none were held (a compaction's new tables): MADV_PAGEOUT (Linux 5.4).
		{"not held", func() bool {
			maps, err := os.ReadFile("/proc/self/maps")
			if err != nil {
				t.Fatal(err)
			}
			return f.trimmer.drop(maps, nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(before, each()); diff != "" { // reads every table
				t.Fatalf("Each before trim (-want +got):\n%s", diff)
			}
			read := storeRSS(t, f.trimmer, mapTable)
			// Less the second time: the block cache holds some of the blocks.
			if read < 512<<10 {
				t.Fatalf("tables resident after reading them all: %d bytes, want more than 512 KiB", read)
			}
			if !tt.trim() {
				t.Fatal("trim failed")
			}
			// Badger may have touched a page since (a compaction); far less than before, all
			// the same.
			if trimmed := storeRSS(t, f.trimmer, mapTable); trimmed > read/4 {
				var u unix.Utsname
				if tt.name == "not held" && unix.Uname(&u) == nil && kernelBefore(unix.ByteSliceToString(u.Release[:]), 5, 4) {
					t.Skipf("kernel %s has no MADV_PAGEOUT", unix.ByteSliceToString(u.Release[:]))
				}
				t.Errorf("tables resident after trim: %d bytes, before: %d", trimmed, read)
			}
			if diff := cmp.Diff(before, each()); diff != "" {
				t.Errorf("Each after trim (-before +after):\n%s", diff)
			}
		})
	}
}

// TestTrimKeepsIndexHead checks that after a trim db.Tables() maps no page of a table into
// the resident set again: the trim keeps the head of each table's index, which it reads (see
// indexHead). Without the heads kept, every table comes back with at least that page (and,
// with the kernel's fault-around, up to 64 KiB around it).
func TestTrimKeepsIndexHead(t *testing.T) {
	f := tabled(t, 12000)
	tr := f.trimmer
	tr.close() // the test trims when it wants
	f.trimmer = nil
	tables := len(f.db.Tables())
	page := int64(os.Getpagesize())
	tests := []struct {
		name  string
		heads bool
	}{
		{"heads kept", true},
		{"heads dropped", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := f.Each(func(Entry) error { return nil }); err != nil { // reads every table
				t.Fatal(err)
			}
			if !tr.trim() {
				t.Fatal("trim failed")
			}
			if !tt.heads {
				held := make(map[uint64]head)
				for _, ti := range f.db.Tables() {
					held[ti.ID] = head{}
				}
				maps, err := os.ReadFile("/proc/self/maps")
				if err != nil {
					t.Fatal(err)
				}
				if !tr.drop(maps, held) {
					t.Fatal("drop failed")
				}
			}
			kept := storeRSS(t, tr, mapTable)
			f.db.Tables()
			grew := storeRSS(t, tr, mapTable) - kept
			t.Logf("%d tables: %d bytes resident after the trim, db.Tables() added %d", tables, kept, grew)
			if tt.heads && (grew != 0 || kept > 2*page*int64(tables)) {
				t.Errorf("heads kept: %d bytes resident after the trim, db.Tables() added %d; want at most 2 pages a table (%d tables) and nothing added", kept, grew, tables)
			}
			if !tt.heads && grew < page*int64(tables) {
				t.Errorf("heads dropped: db.Tables() added %d bytes, want a page of each of %d tables at least: the test no longer sees what it checks", grew, tables)
			}
		})
	}
}

// kernelBefore reports whether a kernel release ("6.1.0-18-amd64") is older than major.minor.
func kernelBefore(release string, major, minor int) bool {
	var ma, mi int
	if _, err := fmt.Sscanf(release, "%d.%d", &ma, &mi); err != nil {
		return false
	}
	return ma < major || ma == major && mi < minor
}

const trimCrashEnv = "AMBER_FRONTIER_TRIM_CRASH_DIR"

// TestTrimLogCrash checks that trimming the memtable logs loses no commit: a child process
// adds URLs, trims the logs' pages out of its resident set (checking that they left it), adds
// more onto the same pages and exits without closing the store, as kill -9 would leave it;
// the store opened again holds every URL, replayed from the logs.
func TestTrimLogCrash(t *testing.T) {
	const rounds, batch = 4, 2000
	if dir := os.Getenv(trimCrashEnv); dir != "" {
		f, err := Open(Config{Dir: dir})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		if f.trimmer == nil {
			fmt.Fprintln(os.Stderr, "no trimmer on Linux")
			os.Exit(3)
		}
		f.trimmer.close() // the test trims when it wants
		long := strings.Repeat("v", 200)
		for r := range rounds {
			us := make([]URL, batch)
			for i := range us {
				h := fmt.Sprintf("h%d.test", i%10)
				us[i] = URL{URL: fmt.Sprintf("http://%s/%d/%d", h, r, i), Host: h, Via: long}
			}
			if _, err := f.AddBatch(us); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(3)
			}
			written := storeRSS(t, f.trimmer, mapLog)
			if !f.trimmer.trim() {
				fmt.Fprintln(os.Stderr, "trim failed")
				os.Exit(3)
			}
			// The writer may have appended a page since (nothing else runs here).
			if left := storeRSS(t, f.trimmer, mapLog); written < 256<<10 || left > written/4 {
				fmt.Fprintf(os.Stderr, "memtable logs resident: %d bytes after round %d, %d after its trim\n", written, r, left)
				os.Exit(4)
			}
		}
		os.Exit(1) // no Close, no Sync
	}
	dir := t.TempDir()
	crashChild(t, "TestTrimLogCrash", trimCrashEnv, dir)
	f := openT(t, Config{Dir: dir})
	if got, want := f.Stats(), (Stats{Queued: rounds * batch}); got != want {
		t.Errorf("Stats after the crash = %+v, want %+v", got, want)
	}
	seen := make(map[string]bool)
	if err := f.Each(func(e Entry) error { seen[e.URL.URL] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	for r := range rounds {
		for i := range batch {
			if u := fmt.Sprintf("http://h%d.test/%d/%d", i%10, r, i); !seen[u] {
				t.Fatalf("%s lost", u)
			}
		}
	}
}

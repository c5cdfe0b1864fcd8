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
)

func TestTableMapping(t *testing.T) {
	tr := &trimmer{dir: "/crawl dir/state"}
	tests := []struct {
		line       string
		start, end uintptr
		id         uint64
		ok         bool
	}{
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567                    /crawl dir/state/000197.sst", 0x7f1c2a000000, 0x7f1c2a200000, 197, true},
		{"7f1c2a000000-7f1c2a200000 r--s 00000000 fd:01 1234567 /crawl dir/state/1234567.sst", 0x7f1c2a000000, 0x7f1c2a200000, 1234567, true},
		{"7f1c2a000000-7f1c2a200000 rw-p 00000000 fd:01 1234567    /crawl dir/state/000197.sst", 0, 0, 0, false},           // private
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/state/000197.sst (deleted)", 0, 0, 0, false}, // deleted
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/state/00001.mem", 0, 0, 0, false},            // memtable log
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/other/000197.sst", 0, 0, 0, false},           // another store
		{"7f1c2a000000-7f1c2a200000 rw-s 00000000 fd:01 1234567    /crawl dir/state/x.sst", 0, 0, 0, false},
		{"7f1c2a200000-7f1c2a000000 rw-s 00000000 fd:01 1234567    /crawl dir/state/000197.sst", 0, 0, 0, false}, // empty range
		{"7f1c2a000000-7f1c2a200000 rw-p 00000000 00:00 0 ", 0, 0, 0, false},
		{"", 0, 0, 0, false},
	}
	for _, tt := range tests {
		start, end, id, ok := tr.tableMapping([]byte(tt.line))
		if start != tt.start || end != tt.end || id != tt.id || ok != tt.ok {
			t.Errorf("tableMapping(%q) = %#x, %#x, %d, %v; want %#x, %#x, %d, %v",
				tt.line, start, end, id, ok, tt.start, tt.end, tt.id, tt.ok)
		}
	}
}

// tablesRSS sums the resident bytes of the store's table mappings (/proc/self/smaps).
func tablesRSS(t *testing.T, f *Frontier) int64 {
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
		_, _, _, in = f.trimmer.tableMapping([]byte(line))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTrim checks that a trim drops the pages of the table mappings from the resident set and
// that the store reads the same afterwards.
func TestTrim(t *testing.T) {
	const n = 12000
	dir := filepath.Join(t.TempDir(), "state")
	f, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("v", 500)
	var batch []URL
	// About 13 MB: two level-0 tables once the memtables are flushed, too few for badger to
	// start a compaction, which would read them while the test looks.
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
	f = openT(t, Config{Dir: dir})
	if f.trimmer == nil {
		t.Fatal("no trimmer on Linux")
	}
	each := func() []Entry {
		var es []Entry
		if err := f.Each(func(e Entry) error { es = append(es, e); return nil }); err != nil {
			t.Fatal(err)
		}
		return es
	}
	before := each() // reads every table
	if len(before) != n {
		t.Fatalf("Each: %d entries, want %d", len(before), n)
	}
	read := tablesRSS(t, f)
	if read < 1<<20 {
		t.Fatalf("tables resident after reading them all: %d bytes, want more than 1 MiB", read)
	}
	if !f.trimmer.trim() {
		t.Fatal("trim failed")
	}
	// Badger may have touched a page since (a compaction); far less than before, all the same.
	if trimmed := tablesRSS(t, f); trimmed > read/4 {
		t.Errorf("tables resident after trim: %d bytes, before: %d", trimmed, read)
	}
	if diff := cmp.Diff(before, each()); diff != "" {
		t.Errorf("Each after trim (-before +after):\n%s", diff)
	}
}

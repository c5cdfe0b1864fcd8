package frontier

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/amber-crawler/amber/status"
)

// mountTmpfs mounts a tmpfs of size (mount -o size=) on a new directory until the test ends.
// It skips the test where mounting is not permitted (not root), except in CI, which runs as
// root.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount tmpfs (CI runs as root): %v", err)
		}
		t.Skipf("mount tmpfs on %s: %v; this test needs root (it runs in CI)", dir, err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

func remount(t *testing.T, dir, size string) {
	t.Helper()
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_REMOUNT, "size="+size); err != nil {
		t.Fatalf("remount %s with size %s: %v", dir, size, err)
	}
}

// fill adds URLs in batches until a write fails with ErrNoSpace, and returns the URLs added.
func fill(t *testing.T, f *Frontier, prefix string) map[string]bool {
	added, _ := fillErr(t, f, prefix)
	return added
}

// fillErr is fill, and returns the ErrNoSpace the filling ended with too.
func fillErr(t *testing.T, f *Frontier, prefix string) (map[string]bool, error) {
	t.Helper()
	added := map[string]bool{}
	for b := 0; b < 10_000; b++ {
		batch := make([]URL, 500)
		for i := range batch {
			h := fmt.Sprintf("host%02d.test", i%50)
			batch[i] = URL{URL: fmt.Sprintf("http://%s/%s/%d/%d", h, prefix, b, i), Host: h, Via: "http://" + h + "/", Hops: "L"}
		}
		res, err := f.AddBatch(batch)
		for i, r := range res {
			if r.New {
				added[batch[i].URL] = true
			}
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, ErrNoSpace) || !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("AddBatch error = %v, want ErrNoSpace and ENOSPC", err)
		}
		return added, err
	}
	t.Fatal("the filesystem never filled")
	return nil, nil
}

// refusalRE reads the free space and the space needed from the gate's refusal (short).
var refusalRE = regexp.MustCompile(`: (\d+) bytes free on the filesystem of .*, (\d+) needed`)

// refusal returns the free space and the space needed that err, a refusal of the gate, says;
// false for another error (a write the filesystem itself refused).
func refusal(err error) (free, need int64, ok bool) {
	m := refusalRE.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, 0, false
	}
	free, _ = strconv.ParseInt(m[1], 10, 64)
	need, _ = strconv.ParseInt(m[2], 10, 64)
	return free, need, true
}

// TestFullDisk fills a frontier on a 30 MB filesystem until ErrNoSpace, finishes and claims
// what it can, closes it (badger flushes its memtable: no SIGBUS), enlarges the filesystem and
// checks that every URL added and every URL finished before is there.
func TestFullDisk(t *testing.T) {
	mnt := mountTmpfs(t, "30m")
	dir := filepath.Join(mnt, "state")
	f, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	added, ferr := fillErr(t, f, "a")
	if len(added) < 1000 {
		t.Fatalf("only %d URLs added on 30 MB", len(added))
	}
	sp, err := f.Space()
	if err != nil {
		t.Fatal(err)
	}
	// Close <= Free once badger's own work has settled. Not at once: a memtable flush under
	// way has both its log and the table it writes on disk, each counted, until it ends and
	// deletes the log (TestFullDisk failed so once under load, Close above Free).
	if st := settled(t, f); st.Free < st.Close {
		t.Errorf("Space after ErrNoSpace, settled = %+v, want Close <= Free", st)
	}
	// The refusal came with less than Write and a batch free, and not below Close. Its own
	// figures, not Space's after it: badger deletes the tables a compaction replaced in its own
	// time, so more can be free a moment later (TestFullDisk failed so: Free 18,235,392 bytes
	// against Write 17,052,526). For the same reason what it needed can exceed Write after it
	// by more than the batch: the store's files change between the refusal and Space's scan (a
	// flush, a compaction's deletions). The check allows the gate's own margin on a memtable's
	// log on top, an eighth of it (needLocked); TestFullDisk failed without it once memtables
	// were 4 MiB (maxChunk 307 KiB): 14,269,944 needed, Write 13,864,002 after.
	free, need, ok := refusal(ferr)
	switch {
	case !ok:
		t.Errorf("the filesystem refused a write before the gate did: %v", ferr)
	case free < sp.Close || free >= need || need > sp.Write+maxChunk+(memTableSize+maxBatchSize)/tableOverheadDiv:
		t.Errorf("refused with %d bytes free and %d needed; Space after it %+v: want Close <= free < needed <= Write + a batch", free, need, sp)
	}
	sp = settled(t, f)
	// With less than Write free (another writer took the rest), every write fails alike, and
	// a claim whose Done failed stays active.
	ballast := filepath.Join(mnt, "warc")
	if err := writeBallast(ballast, sp.Free-sp.Close-writeSlack/2); err != nil {
		t.Fatal(err)
	}
	c := tryClaim(t, f)
	writes := []struct {
		name  string
		write func() error
	}{
		{"Done", func() error { return f.Done(c) }},
		{"Failed", func() error { return f.Failed(c, -2) }},
		{"Retry", func() error { _, err := f.Retry(c, time.Time{}); return err }},
		{"Add", func() error { _, err := f.Add(u("x.test", "/")); return err }},
		{"Reject", func() error { _, err := f.Reject(u("x.test", "/"), "r"); return err }},
		{"PutMeta", func() error { return f.PutMeta("k", nil) }},
		{"StoreDigest", func() error { return f.StoreDigest("sha1:X", "http://x.test/", time.Now()) }},
	}
	for _, w := range writes {
		if err := w.write(); !errors.Is(err, ErrNoSpace) || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s on a full disk = %v, want ErrNoSpace", w.name, err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Errorf("Sync on a full disk: %v", err)
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("Close on a full disk: %v", err)
	}

	remount(t, mnt, "40m")
	f = openT(t, Config{Dir: dir})
	got := map[string]bool{}
	for _, e := range collect(t, f) {
		if e.State != status.Queued {
			t.Errorf("%s is %v, want queued", e.URL.URL, e.State)
		}
		got[e.URL.URL] = true
	}
	for u := range added {
		if !got[u] {
			t.Errorf("%s added before the disk filled is gone", u)
		}
	}
	if len(got) != len(added) {
		t.Errorf("%d URLs after reopen, want %d", len(got), len(added))
	}
	// The crawl goes on: finish some (the claim whose Done failed among them: it was queued
	// again), add more, until the larger filesystem fills too.
	for range 100 {
		mustDone(t, f, tryClaim(t, f))
	}
	more := fill(t, f, "b")
	if len(more) == 0 {
		t.Error("nothing added after the filesystem grew")
	}
	if err := f.Close(); err != nil {
		t.Fatalf("Close on a full disk: %v", err)
	}
	remount(t, mnt, "128m")
	f = openT(t, Config{Dir: dir})
	if s := f.Stats(); s.Done != 100 || s.Queued != int64(len(added)+len(more)-100) {
		t.Errorf("Stats after the second reopen = %+v, want 100 done and %d queued", s, len(added)+len(more)-100)
	}
}

// TestCloseNeedsSpace fills the filesystem from outside the frontier (as WARC files do): Close
// refuses with ErrNoSpace and leaves the frontier open and readable, and succeeds once space
// is freed. Open refuses alike.
func TestCloseNeedsSpace(t *testing.T) {
	mnt := mountTmpfs(t, "30m")
	dir := filepath.Join(mnt, "state")
	f, err := Open(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var us []URL
	for i := range 20_000 {
		us = append(us, URL{URL: fmt.Sprintf("http://a.test/%d", i), Host: "a.test"})
	}
	if _, err := f.AddBatch(us); err != nil {
		t.Fatal(err)
	}
	sp := settled(t, f)
	ballast := filepath.Join(mnt, "warc")
	if err := writeBallast(ballast, sp.Free-sp.Close+4096); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("Close with %d bytes short = %v, want ErrNoSpace", 4096, err)
	}
	if _, err := f.Add(u("a.test", "/new")); !errors.Is(err, ErrNoSpace) {
		t.Errorf("Add on a full disk = %v, want ErrNoSpace", err)
	}
	if s := f.Stats(); s.Queued != int64(len(us)) {
		t.Errorf("Stats after a refused Close = %+v, want %d queued", s, len(us))
	}
	if n := len(collect(t, f)); n != len(us) {
		t.Errorf("Each after a refused Close: %d URLs, want %d", n, len(us))
	}
	if err := f.Sync(); err != nil {
		t.Errorf("Sync on a full disk: %v", err)
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("Close after freeing space: %v", err)
	}

	// Open needs what Close needs (the tables to compact).
	g, err := openGate(dir)
	if err != nil {
		t.Fatal(err)
	}
	sp, err = g.space()
	g.close()
	if err != nil {
		t.Fatal(err)
	}
	if err := writeBallast(ballast, sp.Free-sp.Close+4096); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Config{Dir: dir}); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("Open with %d bytes short = %v, want ErrNoSpace", 4096, err)
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	f = openT(t, Config{Dir: dir})
	if s := f.Stats(); s.Queued != int64(len(us)) {
		t.Errorf("Stats after reopen = %+v, want %d queued", s, len(us))
	}
}

// settled returns the frontier's Space once badger's own work has stopped changing it: a
// memtable flush that ends deletes its log, and the store then needs megabytes less, which
// would let through a write (or a Close) that the test means to see refused.
func settled(t *testing.T, f *Frontier) Space {
	t.Helper()
	prev, err := f.Space()
	if err != nil {
		t.Fatal(err)
	}
	for range 150 {
		time.Sleep(200 * time.Millisecond)
		sp, err := f.Space()
		if err != nil {
			t.Fatal(err)
		}
		if sp == prev {
			return sp
		}
		prev = sp
	}
	t.Fatalf("the store's space never settled: %+v", prev)
	return Space{}
}

// writeBallast writes a file of n bytes (at least 0), as another writer filling the disk.
func writeBallast(path string, n int64) error {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	if n > 0 {
		if err := fd.Truncate(n); err != nil {
			fd.Close()
			return err
		}
		if err := unix.Fallocate(int(fd.Fd()), 0, 0, n); err != nil {
			fd.Close()
			return err
		}
	}
	return fd.Close()
}

const fullCrashEnv = "AMBER_FRONTIER_FULL_CRASH_DIR"

// TestFullDiskCrash kills a process whose frontier filled its filesystem (no Close, no Sync):
// the store reopens on the same, still full, filesystem with every URL added and every URL
// marked done.
func TestFullDiskCrash(t *testing.T) {
	if dir := os.Getenv(fullCrashEnv); dir != "" {
		f, err := Open(Config{Dir: dir})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		for i := range 100 {
			mustAdd(t, f, u("done.test", fmt.Sprintf("/%d", i)))
		}
		for range 50 {
			mustDone(t, f, tryClaim(t, f))
		}
		added := 100 + len(fill(t, f, "a"))
		fmt.Printf("added %d\n", added)
		os.Exit(1)
	}
	mnt := mountTmpfs(t, "30m")
	dir := filepath.Join(mnt, "state")
	out := crashChild(t, "TestFullDiskCrash", fullCrashEnv, dir)
	var added int64
	if _, err := fmt.Sscanf(string(out), "added %d", &added); err != nil {
		t.Fatalf("child output %q: %v", out, err)
	}
	f := openT(t, Config{Dir: dir})
	if s := f.Stats(); s.Done != 50 || s.Queued != added-50 {
		t.Errorf("Stats after the crash = %+v, want 50 done and %d queued", s, added-50)
	}
}

// TestLiveTables checks what the space gate counts as the tables in the store's LSM tree: the
// size of their files, measured without reading the tables, so that after a trim Space maps
// none of their pages into the resident set again (db.Tables() would: see liveTables).
func TestLiveTables(t *testing.T) {
	f := tabled(t, 12000)
	es, err := os.ReadDir(f.space.path)
	if err != nil {
		t.Fatal(err)
	}
	var files int64
	for _, e := range es {
		if filepath.Ext(e.Name()) != ".sst" {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		files += fi.Size()
	}
	if got := liveTables(f.db); got != files || got == 0 {
		t.Errorf("liveTables = %d, want the size of the table files, %d", got, files)
	}
	if !f.trimmer.trim() {
		t.Fatal("trim failed")
	}
	before := storeRSS(t, f.trimmer, mapTable)
	if _, err := f.Space(); err != nil {
		t.Fatal(err)
	}
	if grew := storeRSS(t, f.trimmer, mapTable) - before; grew != 0 {
		t.Errorf("Space after a trim made %d bytes of the tables resident, want none", grew)
	}
}

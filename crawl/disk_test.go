package crawl_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/diskspace"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
)

func TestEffectiveMinFreeSpace(t *testing.T) {
	const gib = 1 << 30
	tests := []struct {
		name          string
		setting, size int64
		want          int64
	}{
		{"default on a large disk is 1 GiB", 0, 500 * gib, gib},
		{"default on a disk of exactly 100 GiB", 0, 100 * gib, gib},
		{"default on a small disk is 1%", 0, 30 << 20, (30 << 20) / 100},
		{"default on a 50 GiB disk is 1%", 0, 50 * gib, 50 * gib / 100},
		{"a setting wins over 1%", 5 << 20, 30 << 20, 5 << 20},
		{"a setting wins over 1 GiB", 2 * gib, 500 * gib, 2 * gib},
		{"a setting larger than the disk", 1 << 40, 30 << 20, 1 << 40},
		{"negative turns the check off", -1, 500 * gib, 0},
		{"default on an empty size", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := crawl.EffectiveMinFreeSpace(tt.setting, tt.size); got != tt.want {
				t.Errorf("EffectiveMinFreeSpace(%d, %d) = %d, want %d", tt.setting, tt.size, got, tt.want)
			}
		})
	}
}

func TestDiskFullError(t *testing.T) {
	nospace := &os.PathError{Op: "write", Path: "/crawl/warcs/x.warc.gz.open", Err: syscall.ENOSPC}
	tests := []struct {
		name      string
		err       *crawl.DiskFullError
		isENOSPC  bool
		mentioned []string // what the message must name
	}{
		{"below the minimum", &crawl.DiskFullError{Dir: "/crawl/warcs", Free: 812 << 10, Min: 1 << 20}, false,
			[]string{"/crawl/warcs", "812.0 KiB", "1.0 MiB"}},
		{"a write failed", &crawl.DiskFullError{Dir: "/crawl", Free: 0, Min: 300 << 10, Err: nospace}, true,
			[]string{"/crawl", "0 B", "x.warc.gz.open"}},
		{"free space unknown", &crawl.DiskFullError{Dir: "/crawl", Free: -1, Err: nospace}, true,
			[]string{"/crawl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fmt.Errorf("run: %w", tt.err)
			if !errors.Is(err, crawl.ErrDiskFull) {
				t.Errorf("%v does not match ErrDiskFull", err)
			}
			if got := errors.Is(err, syscall.ENOSPC); got != tt.isENOSPC {
				t.Errorf("errors.Is(%v, ENOSPC) = %v, want %v", err, got, tt.isENOSPC)
			}
			for _, m := range tt.mentioned {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("message %q does not name %q", err, m)
				}
			}
		})
	}
}

// mountTmpfs mounts a tmpfs of the given size ("30m") on dir and unmounts it at the end of the
// test. Without permission to mount it skips, unless CI is set.
func mountTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput()
	if err != nil {
		msg := fmt.Sprintf("mount a %s tmpfs on %s (needs root or CAP_SYS_ADMIN): %v: %s", size, dir, err, out)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
}

func resizeTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	if out, err := exec.Command("mount", "-o", "remount,size="+size, dir).CombinedOutput(); err != nil {
		t.Fatalf("remount %s with size %s: %v: %s", dir, size, err, out)
	}
}

// checkStoppedClean checks a crawl directory after a run stopped on a full disk: the error
// names dir, every WARC file is closed and valid, and every line of the live index points at
// its record.
func checkStoppedClean(t *testing.T, crawlDir, wantDir string, res crawl.Result, err error) {
	t.Helper()
	if !errors.Is(err, crawl.ErrDiskFull) {
		t.Fatalf("Run on a full disk: end %q, error %v; want one matching ErrDiskFull", res.End, err)
	}
	if res.End != crawl.EndDiskFull {
		t.Errorf("end %q, want %q", res.End, crawl.EndDiskFull)
	}
	var full *crawl.DiskFullError
	if !errors.As(err, &full) || full.Dir != wantDir {
		t.Errorf("error %v: want a *DiskFullError naming %s", err, wantDir)
	}
	warcDir := filepath.Join(crawlDir, crawl.WARCDir)
	if _, err := warccheck.ValidateDir(warcDir); err != nil {
		t.Errorf("WARC files after the stop: %v", err)
	}
	live := filepath.Join(crawlDir, crawl.LiveCDXJFile)
	if _, err := os.Stat(live); err == nil {
		if err := warccheck.CheckCDXJ(live, warcDir); err != nil {
			t.Errorf("live index after the stop: %v", err)
		}
	}
	t.Logf("stopped: %v (%d fetched)", err, res.Fetched)
}

// checkCapturedOnce checks that every page of the generated site has exactly one response
// record in the crawl's WARC files (a page refetched after the stop is a revisit).
func checkCapturedOnce(t *testing.T, crawlDir string, pages int) {
	t.Helper()
	reps, err := warccheck.ValidateDir(filepath.Join(crawlDir, crawl.WARCDir))
	if err != nil {
		t.Fatal(err)
	}
	responses, revisits := map[string]int{}, 0
	for _, r := range reps {
		for _, rec := range r.Records {
			switch rec.Type {
			case "response":
				responses[rec.TargetURI]++
			case "revisit":
				revisits++
			}
		}
	}
	for i := range pages {
		u := "http://gen.example.com" + testsite.PageURL(i)
		if n := responses[u]; n != 1 {
			t.Errorf("%s has %d response records, want 1", u, n)
		}
	}
	if err := warccheck.CheckCDXJ(filepath.Join(crawlDir, crawl.CDXJFile), filepath.Join(crawlDir, crawl.WARCDir)); err != nil {
		t.Error(err)
	}
	t.Logf("%d WARC files, %d responses, %d revisits", len(reps), len(responses), revisits)
}

// TestCrawlDiskFull crawls into a 30 MB filesystem: the crawl stops on its own before the disk
// is full (1% of 30 MB kept free beyond what the end of the run needs), leaves valid WARC files
// and no .open file, a run on the still full disk stops again, and once the filesystem is
// enlarged a third run resumes to the end with every page captured once (a page refetched after
// a stop is a revisit). The runs on the full disk are made in a child process
// (TestDiskFullChild), so that dying of a signal (SIGBUS in a memory-mapped store) fails the
// test instead of killing the test binary.
func TestCrawlDiskFull(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fs")
	mountTmpfs(t, dir, "30m")
	fillTo(t, dir, 12<<20)

	first := runDiskFullChild(t, dir)
	if first.Fetched == 0 || first.Queued == 0 {
		t.Errorf("first run fetched %d and left %d queued: the disk should fill in the middle of the crawl", first.Fetched, first.Queued)
	}
	// A run on the still full disk stops again, clean (the store may have shrunk when it
	// closed, and the run may use that room first). The counters of the first run were saved.
	again := runDiskFullChild(t, dir)
	if again.Fetched < first.Fetched {
		t.Errorf("after a second run on a full disk the crawl counts %d URLs fetched, after the first %d", again.Fetched, first.Fetched)
	}

	resizeTmpfs(t, dir, "200m")
	_, cfg := generatedConfig(t, diskFullPages)
	cfg.Dir = dir
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndFinished {
		t.Fatalf("resume after the disk was enlarged: end %q, error %v", res.End, err)
	}
	checkCapturedOnce(t, cfg.Dir, diskFullPages)
}

const (
	diskFullPages  = 1500
	diskFullDirEnv = "AMBER_TEST_DISKFULL_DIR" // the crawl directory of TestDiskFullChild
	diskFullOutEnv = "AMBER_TEST_DISKFULL_OUT" // where it writes its diskFullRun
)

// diskFullRun is what TestDiskFullChild reports of its run.
type diskFullRun struct {
	Fetched, Queued int64
}

// runDiskFullChild runs TestDiskFullChild on dir in a child process and returns its report.
func runDiskFullChild(t *testing.T, dir string) diskFullRun {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run.json")
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestDiskFullChild$", "-test.v")
	cmd.Env = append(os.Environ(), diskFullDirEnv+"="+dir, diskFullOutEnv+"="+out)
	log, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("crawl on a full disk, in a child process: %v\n%s", err, head(log, 3000))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("child process wrote no report: %v\n%s", err, head(log, 3000))
	}
	var r diskFullRun
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	t.Logf("child: %s", bytes.TrimSpace(grepLines(log, "stopped:")))
	return r
}

// TestDiskFullChild is one run of TestCrawlDiskFull's crawl on a full disk, in a child process.
// Run on its own it skips.
func TestDiskFullChild(t *testing.T) {
	dir := os.Getenv(diskFullDirEnv)
	if dir == "" {
		t.Skip("run by TestCrawlDiskFull in a child process")
	}
	_, cfg := generatedConfig(t, diskFullPages)
	cfg.Dir = dir
	res, err := crawl.Run(t.Context(), cfg)
	checkStoppedClean(t, cfg.Dir, cfg.Dir, res, err)
	data, err := json.Marshal(diskFullRun{Fetched: res.Fetched, Queued: res.Stats.Queued})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv(diskFullOutEnv), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// head is the start of a child's output: a crash's cause and the stack that crashed.
func head(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

func grepLines(b []byte, s string) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if bytes.Contains(l, []byte(s)) {
			out = append(out, l...)
		}
	}
	return out
}

// TestCrawlWARCDirFull puts the WARC directory on its own small filesystem: the crawl watches
// it as well as the crawl directory and stops on it, whether by the free-space check or (with
// the check off) by a write that fails with ENOSPC.
func TestCrawlWARCDirFull(t *testing.T) {
	tests := []struct {
		name         string
		minFreeSpace int64
		wantENOSPC   bool
	}{
		{"free space below the minimum", 128 << 10, false},
		{"no check: a WARC write fails", -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const pages = 1000
			_, cfg := generatedConfig(t, pages)
			cfg.MinFreeSpace = tt.minFreeSpace
			warcDir := filepath.Join(cfg.Dir, crawl.WARCDir)
			mountTmpfs(t, warcDir, "512k")

			res, err := crawl.Run(t.Context(), cfg)
			checkStoppedClean(t, cfg.Dir, warcDir, res, err)
			if got := errors.Is(err, syscall.ENOSPC); got != tt.wantENOSPC {
				t.Errorf("error %v matches ENOSPC: %v, want %v", err, got, tt.wantENOSPC)
			}

			resizeTmpfs(t, warcDir, "50m")
			res, err = crawl.Run(t.Context(), cfg)
			if err != nil || res.End != crawl.EndFinished {
				t.Fatalf("resume after the disk was enlarged: end %q, error %v", res.End, err)
			}
			checkCapturedOnce(t, cfg.Dir, pages)
		})
	}
}

// fillTo writes a file into dir that leaves free bytes free on its filesystem, so that a small
// crawl fills it.
func fillTo(t *testing.T, dir string, free int64) {
	t.Helper()
	u, err := diskspace.Of(dir)
	if err != nil {
		t.Fatal(err)
	}
	if u.Free <= free {
		return
	}
	f, err := os.Create(filepath.Join(dir, "ballast"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for left := u.Free - free; left > 0; left -= int64(len(buf)) {
		if _, err := f.Write(buf[:min(left, int64(len(buf)))]); err != nil {
			t.Fatal(err)
		}
	}
}

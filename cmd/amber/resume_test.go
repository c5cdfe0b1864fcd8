package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
)

// TestResumeAfterKill starts a crawl of a few thousand pages, kills it with SIGKILL partway,
// runs the same command again, and checks that the result is complete and valid: no .open
// file, every page captured, and no page captured twice beyond those in flight at the kill.
func TestResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls 3,000 pages twice")
	}
	const pages = 3000
	const workers = 8
	bin := amberBinary(t)
	site, err := testsite.StartHandler(testsite.Generated{Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	dir := filepath.Join(t.TempDir(), "crawl")
	args := []string{"crawl", "--dir", dir, "--connect-to", site.ConnectTo(), "--allow-private",
		"--host-delay", "0", "--host-concurrency", fmt.Sprint(workers), "--workers", fmt.Sprint(workers),
		"--warc-max-size", "2MB", "--quiet", "http://gen.example.com/"}

	// First run: kill -9 once about a third of the pages are in crawl.log.
	first := exec.Command(bin, args...)
	var stderr1 bytes.Buffer
	first.Stderr = &stderr1
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, crawl.CrawlLogFile)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if n := countLines(logPath); n >= pages/3 {
			break
		}
		if time.Now().After(deadline) {
			first.Process.Kill()
			t.Fatalf("first run made no progress; stderr:\n%s", stderr1.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	linesAtKill := countLines(logPath)
	open, _ := filepath.Glob(filepath.Join(dir, crawl.WARCDir, "*.open"))
	t.Logf("killed after %d crawl.log lines; %d .open file(s) left", linesAtKill, len(open))

	// amber report works on the killed crawl, and says it is unfinished.
	if out, err := exec.Command(bin, "report", dir).CombinedOutput(); err != nil {
		t.Fatalf("amber report on a killed crawl: %v\n%s", err, out)
	}
	summary, err := os.ReadFile(filepath.Join(dir, crawl.ReportsDir, "crawl-report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summary), "crawl status: Unfinished") {
		t.Errorf("crawl-report.txt of a killed crawl:\n%s", summary)
	}
	hosts, _ := os.ReadFile(filepath.Join(dir, crawl.ReportsDir, "hosts-report.txt"))
	if !strings.Contains(string(hosts), " gen.example.com ") {
		t.Errorf("hosts-report.txt of a killed crawl:\n%s", hosts)
	}

	// Second run: the same command resumes and finishes.
	second := exec.Command(bin, args...)
	out, err := second.CombinedOutput()
	if err != nil {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Crawl finished") {
		t.Errorf("second run output: %s", out)
	}

	if open, _ := filepath.Glob(filepath.Join(dir, crawl.WARCDir, "*.open")); len(open) != 0 {
		t.Errorf(".open files left: %v", open)
	}
	reports, err := warccheck.ValidateDir(filepath.Join(dir, crawl.WARCDir))
	if err != nil {
		t.Fatal(err)
	}
	captures := map[string]int{}
	for _, r := range reports {
		if !r.OK() {
			t.Errorf("%s: %v %v", r.Path, r.Errors, r.Dangling)
		}
		for _, rec := range r.Records {
			if rec.Type == "response" || rec.Type == "revisit" {
				captures[rec.TargetURI]++
			}
		}
	}
	missing, twice := 0, 0
	for i := range pages {
		u := "http://gen.example.com" + testsite.PageURL(i)
		switch n := captures[u]; {
		case n == 0:
			missing++
			if missing < 5 {
				t.Errorf("page %s not captured", u)
			}
		case n > 1:
			twice++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d pages missing", missing, pages)
	}
	// Only URLs in flight at the kill (at most one per worker) may be captured twice.
	if twice > workers {
		t.Errorf("%d pages captured twice, want at most %d (the URLs in flight at the kill)", twice, workers)
	}
	t.Logf("pages captured twice after the kill: %d (bound: %d workers)", twice, workers)
	if err := warccheck.CheckCDXJ(filepath.Join(dir, crawl.CDXJFile), filepath.Join(dir, crawl.WARCDir)); err != nil {
		t.Error(err)
	}
	for _, r := range reports {
		crawltest.WarcioCDXJ(t, r.Path) // warcio.js must read every file
	}

	// documents.jsonl went on in the same file: one document per page, whole lines only.
	docs, err := os.ReadFile(filepath.Join(dir, crawl.DocumentsFile))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(string(docs), "\n"), "\n") {
		var d struct {
			ID  string `json:"id"`
			URL string `json:"url"`
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("documents.jsonl: %v: %q", err, line)
		}
		ids[d.ID]++
	}
	repeated := 0
	for _, n := range ids {
		if n > 1 {
			repeated++
		}
	}
	if len(ids) != pages || repeated > workers {
		t.Errorf("%d documents (%d written more than once), want %d (at most %d repeated)", len(ids), repeated, pages, workers)
	}
}

func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
	}
	return n
}

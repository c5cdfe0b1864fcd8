package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/ctl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/redistest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
)

// sharedSite is a site of hosts h0.shared.test ... h(H-1).shared.test, P pages each: page i
// of a host (/p/i.html, page 0 is /) links to its pages 2i+1 and 2i+2 and to the root of the
// next host. It counts the requests in progress on each host and keeps the most it saw, so a
// test can check that politeness held across processes.
type sharedSite struct {
	hosts, pages int
	delay        time.Duration // each answer's wait; default 1 ms, so that requests overlap

	mu      sync.Mutex
	current map[string]int
	most    map[string]int
}

func (s *sharedSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	s.mu.Lock()
	s.current[host]++
	if s.current[host] > s.most[host] {
		s.most[host] = s.current[host]
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.current[host]--
		s.mu.Unlock()
	}()
	time.Sleep(max(s.delay, time.Millisecond)) // requests overlap when politeness lets them
	if r.URL.Path == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "User-agent: *\nDisallow:\n")
		return
	}
	i := 0
	if r.URL.Path != "/" {
		n, ok := strings.CutPrefix(r.URL.Path, "/p/")
		n, ok2 := strings.CutSuffix(n, ".html")
		v, err := strconv.Atoi(n)
		if !ok || !ok2 || err != nil || v <= 0 || v >= s.pages {
			http.NotFound(w, r)
			return
		}
		i = v
	}
	h := 0
	fmt.Sscanf(host, "h%d.", &h)
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<html><head><title>%s page %d</title></head><body>", host, i)
	for _, c := range []int{2*i + 1, 2*i + 2} {
		if c < s.pages {
			fmt.Fprintf(w, `<a href="/p/%d.html">page %d</a> `, c, c)
		}
	}
	fmt.Fprintf(w, `<a href="http://h%d.shared.test/">next host</a></body></html>`, (h+1)%s.hosts)
}

func (s *sharedSite) url(h, i int) string {
	if i == 0 {
		return fmt.Sprintf("http://h%d.shared.test/", h)
	}
	return fmt.Sprintf("http://h%d.shared.test/p/%d.html", h, i)
}

// sharedProc is one amber crawl process of a shared-crawl test.
type sharedProc struct {
	dir string
	cmd *exec.Cmd
	out bytes.Buffer
}

// sharedCrawl is a test's crawl shared by several amber processes: the site, the server and
// the processes, each in its own directory.
type sharedCrawl struct {
	t     *testing.T
	bin   string
	srv   *redistest.Server
	site  *sharedSite
	ts    *testsite.Server
	procs []*sharedProc
}

// newSharedCrawl starts redis-server and a site of hosts×pages pages answering after delay.
func newSharedCrawl(t *testing.T, hosts, pages int, delay time.Duration) *sharedCrawl {
	sc := &sharedCrawl{t: t, bin: amberBinary(t), srv: redistest.Start(t),
		site: &sharedSite{hosts: hosts, pages: pages, current: map[string]int{}, most: map[string]int{}, delay: delay}}
	ts, err := testsite.StartHandler(sc.site)
	if err != nil {
		t.Fatal(err)
	}
	sc.ts = ts
	t.Cleanup(func() {
		for _, p := range sc.procs {
			if p.cmd.ProcessState == nil {
				p.cmd.Process.Kill()
				p.cmd.Wait()
			}
		}
		ts.Close()
	})
	return sc
}

// args is the command line of a process crawling the site into dir: amber crawl with the
// site's connect-to, the given flags and every host's root as a seed.
func (sc *sharedCrawl) args(dir string, flags ...string) []string {
	a := append([]string{"crawl", "--dir", dir, "--connect-to", sc.ts.ConnectTo(), "--allow-private", "--quiet"}, flags...)
	for h := range sc.site.hosts {
		a = append(a, sc.site.url(h, 0))
	}
	return a
}

// start starts one process per directory (n of them, p1, p2, ... in a temporary directory)
// with the command line args gives it.
func (sc *sharedCrawl) start(n int, args func(dir string) []string) {
	root := sc.t.TempDir()
	for i := range n {
		p := &sharedProc{dir: filepath.Join(root, fmt.Sprint("p", i+1))}
		p.cmd = exec.Command(sc.bin, args(p.dir)...)
		p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
		if err := p.cmd.Start(); err != nil {
			sc.t.Fatal(err)
		}
		sc.procs = append(sc.procs, p)
	}
}

// dirs are the processes' directories.
func (sc *sharedCrawl) dirs() []string {
	var d []string
	for _, p := range sc.procs {
		d = append(d, p.dir)
	}
	return d
}

// waitFor waits until ok, or fails the test with the processes' outputs after a minute.
func (sc *sharedCrawl) waitFor(what string, ok func() bool) {
	sc.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !ok() {
		if time.Now().After(deadline) {
			var outs []string
			for _, p := range sc.procs {
				outs = append(outs, p.out.String())
			}
			sc.t.Fatalf("%s: never; outputs:\n%s", what, strings.Join(outs, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lines is the number of lines in the processes' crawl.logs.
func (sc *sharedCrawl) lines() int {
	n := 0
	for _, p := range sc.procs {
		n += countLines(filepath.Join(p.dir, crawl.CrawlLogFile))
	}
	return n
}

// finish waits for the processes still running, which must finish the crawl.
func (sc *sharedCrawl) finish() {
	sc.t.Helper()
	for i, p := range sc.procs {
		if p.cmd.ProcessState != nil {
			continue
		}
		if err := p.cmd.Wait(); err != nil {
			sc.t.Fatalf("p%d: %v\n%s", i+1, err, p.out.String())
		}
		if !strings.Contains(p.out.String(), "Crawl finished") {
			sc.t.Errorf("p%d output: %s", i+1, p.out.String())
		}
	}
}

// check validates every WARC file of the processes (and, with cdxj, their indexes, with
// warcio.js too) and checks that every page of the site was captured and at most maxTwice
// of them twice.
func (sc *sharedCrawl) check(maxTwice int, cdxj bool) {
	t := sc.t
	t.Helper()
	captures := map[string]int{}
	for _, d := range sc.dirs() {
		if open, _ := filepath.Glob(filepath.Join(d, crawl.WARCDir, "*.open")); len(open) != 0 {
			t.Errorf(".open files left: %v", open)
		}
		reports, err := warccheck.ValidateDir(filepath.Join(d, crawl.WARCDir))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range reports {
			if !r.OK() {
				t.Errorf("%s: %v %v", r.Path, r.Errors, r.Dangling)
			}
			for _, rec := range r.Records {
				if rec.Type == "response" || rec.Type == "revisit" {
					captures[rec.TargetURI]++
				}
			}
			if cdxj {
				crawltest.WarcioCDXJ(t, r.Path)
			}
		}
		if cdxj {
			if err := warccheck.CheckCDXJ(filepath.Join(d, crawl.CDXJFile), filepath.Join(d, crawl.WARCDir)); err != nil {
				t.Errorf("%s: %v", d, err)
			}
		}
	}
	missing, twice := 0, 0
	for h := range sc.site.hosts {
		for i := range sc.site.pages {
			switch n := captures[sc.site.url(h, i)]; {
			case n == 0:
				missing++
				if missing < 5 {
					t.Errorf("page %s not captured", sc.site.url(h, i))
				}
			case n > 1:
				twice++
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d pages missing", missing, sc.site.hosts*sc.site.pages)
	}
	if twice > maxTwice {
		t.Errorf("%d pages captured twice, want at most %d (the claims under way when a process or the server stopped)", twice, maxTwice)
	}
	t.Logf("pages captured twice: %d (bound %d)", twice, maxTwice)
}

// TestSharedCrawlKill: three amber processes share one crawl through redis-server and crawl a
// 3,000-page site of 10 hosts; one is killed with SIGKILL partway. The other two finish the
// crawl (the killed one's claims come back when its lease expires); the killed one, started
// again, recovers its WARC files and finds the crawl finished. Every page is captured, pages
// captured twice are at most the killed process's workers, politeness (host concurrency 2)
// held across the processes, every WARC file is valid, and the merged report (amber report
// DIR DIR DIR) agrees with the processes' crawl.logs.
func TestSharedCrawlKill(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls 3,000 pages with three processes")
	}
	const hosts, pages, workers, hostConcurrency = 10, 300, 8, 2
	sc := newSharedCrawl(t, hosts, pages, 0)
	cfgPath := filepath.Join(t.TempDir(), "shared.yaml")
	yaml := fmt.Sprintf("collection: shared\nfrontier:\n  redis: %s\n  crawl_id: shared-kill\n  lease: 2s\n", sc.srv.URL(0))
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(dir string) []string {
		return sc.args(dir, "--config", cfgPath, "--host-delay", "0", "--host-concurrency", strconv.Itoa(hostConcurrency),
			"--workers", strconv.Itoa(workers))
	}
	sc.start(3, args)
	p3 := sc.procs[2]
	sc.waitFor("a third of the pages in the crawl.logs, some in p3's", func() bool {
		return sc.lines() >= hosts*pages/3 && countLines(filepath.Join(p3.dir, crawl.CrawlLogFile)) > 0
	})
	if err := p3.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p3.cmd.Wait()
	t.Logf("killed p3 after %d of its crawl.log lines", countLines(filepath.Join(p3.dir, crawl.CrawlLogFile)))
	sc.finish()
	// The killed process, started again: nothing left to claim; it recovers its WARC files,
	// and writes its index and reports.
	if out, err := exec.Command(sc.bin, args(p3.dir)...).CombinedOutput(); err != nil {
		t.Fatalf("p3 again: %v\n%s", err, out)
	}
	sc.check(workers, true)
	sc.site.mu.Lock()
	for h, n := range sc.site.most {
		if n > hostConcurrency {
			t.Errorf("host %s had %d requests at once, host concurrency is %d", h, n, hostConcurrency)
		}
	}
	sc.site.mu.Unlock()

	// amber report merges the three directories: its crawl.log is theirs, and its hosts report
	// counts the distinct URLs they fetched.
	fetchedURLs := map[string]bool{}
	totalLines := 0
	for _, d := range sc.dirs() {
		for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(d, crawl.CrawlLogFile)) {
			totalLines++
			if l.Status > 0 {
				fetchedURLs[l.URL] = true
			}
		}
	}
	merged := filepath.Join(t.TempDir(), "merged")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, sc.bin, append([]string{"report", "-o", merged}, sc.dirs()...)...).CombinedOutput(); err != nil {
		t.Fatalf("amber report -o OUT DIR DIR DIR: %v\n%s", err, out)
	}
	if n := len(crawltest.ReadCrawlLog(t, filepath.Join(merged, "crawl.log"))); n != totalLines {
		t.Errorf("merged crawl.log has %d lines, the processes' %d", n, totalLines)
	}
	hostsReport, err := os.ReadFile(filepath.Join(merged, "hosts-report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	perHost := map[string]int{}
	for u := range fetchedURLs {
		perHost[hostOf(u)]++
	}
	reported := map[string]int{}
	for _, l := range strings.Split(string(hostsReport), "\n")[1:] {
		if f := strings.Fields(l); len(f) > 2 {
			reported[f[2]], _ = strconv.Atoi(f[0])
		}
	}
	if fmt.Sprint(reported) != fmt.Sprint(perHost) {
		t.Errorf("merged hosts-report.txt counts %v, the crawl.logs' distinct URLs %v:\n%s", reported, perHost, hostsReport)
	}
}

// hostOf is the host of a crawl.log URL.
func hostOf(u string) string {
	rest, _ := strings.CutPrefix(u, "http://")
	h, _, _ := strings.Cut(rest, "/")
	return h
}

// TestSharedCtl: amber ctl on a shared crawl. Given the server and the crawl id it reaches
// both processes (status answers twice, pause pauses both, resume resumes both); a block rule
// given to one process's directory is made by the other too, which records it in its own
// control.log; the crawl then finishes with no URL the rule matches fetched after it.
func TestSharedCtl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two crawl processes")
	}
	sc := newSharedCrawl(t, 4, 200, 5*time.Millisecond)
	sc.start(2, func(dir string) []string {
		return sc.args(dir, "--frontier", sc.srv.URL(0), "--crawl-id", "ctl", "--host-delay", "50ms", "--workers", "2")
	})
	bin, srv, dirs := sc.bin, sc.srv, sc.dirs()
	amberCtl := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"ctl"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("amber ctl %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// Both processes are up once the server answers for two of them.
	sc.waitFor("both processes answer status", func() bool {
		out, err := exec.Command(bin, "ctl", srv.URL(0), "ctl", "status").CombinedOutput()
		return err == nil && strings.Count(string(out), `"urls_fetched"`) == 2
	})
	if out := amberCtl(srv.URL(0), "ctl", "pause"); strings.Count(out, "crawl paused") != 2 {
		t.Errorf("pause through the server: %s", out)
	}
	out := amberCtl(dirs[0], "block", "contains:/p/1")
	if !strings.Contains(out, "done") {
		t.Errorf("block on p1: %s", out)
	}
	// p2 makes the change within a second and records it.
	sc.waitFor("p2's control.log records the block given to p1", func() bool {
		b, _ := os.ReadFile(filepath.Join(dirs[1], ctl.LogFile))
		return strings.Contains(string(b), `"command":"block"`) && strings.Contains(string(b), "contains:/p/1")
	})
	blockedAt := time.Now()
	status := amberCtl(dirs[1], "status")
	if !strings.Contains(status, "contains:/p/1") || !strings.Contains(status, `"paused": true`) {
		t.Errorf("p2's status after the block: %s", status)
	}
	if out := amberCtl(srv.URL(0), "ctl", "resume"); strings.Count(out, "crawl running") != 2 {
		t.Errorf("resume through the server: %s", out)
	}
	sc.finish()
	// No URL the rule matches was fetched after it was made.
	for _, d := range dirs {
		for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(d, crawl.CrawlLogFile)) {
			if l.Status > 0 && strings.Contains(l.URL, "/p/1") && l.Time.After(blockedAt) {
				t.Errorf("%s: %s fetched after the block rule", d, l.URL)
			}
		}
	}
}

// TestSharedCrawlRedisRestart: redis-server is stopped (SIGTERM) in the middle of a crawl of
// two processes and started again on its AOF a second later; the processes wait for it and
// finish the crawl, every page captured once or, for the claims under way at the restart,
// twice at most.
func TestSharedCrawlRedisRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls 1,000 pages with two processes")
	}
	const hosts, pages, workers = 5, 200, 4
	sc := newSharedCrawl(t, hosts, pages, 2*time.Millisecond)
	sc.start(2, func(dir string) []string {
		return sc.args(dir, "--frontier", sc.srv.URL(0), "--crawl-id", "restart", "--host-delay", "10ms",
			"--workers", strconv.Itoa(workers))
	})
	sc.waitFor("a third of the pages in the crawl.logs", func() bool { return sc.lines() >= hosts*pages/3 })
	sc.srv.Stop(syscall.SIGTERM)
	time.Sleep(time.Second)
	sc.srv.Restart()
	sc.finish()
	sc.check(2*workers, false)
}

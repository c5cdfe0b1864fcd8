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
	bin := amberBinary(t)
	srv := redistest.Start(t)
	site := &sharedSite{hosts: hosts, pages: pages, current: map[string]int{}, most: map[string]int{}}
	ts, err := testsite.StartHandler(site)
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()

	root := t.TempDir()
	cfgPath := filepath.Join(root, "shared.yaml")
	yaml := fmt.Sprintf("collection: shared\nfrontier:\n  redis: %s\n  crawl_id: shared-kill\n  lease: 2s\n", srv.URL(0))
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(dir string) []string {
		a := []string{"crawl", "--config", cfgPath, "--dir", dir, "--connect-to", ts.ConnectTo(), "--allow-private",
			"--host-delay", "0", "--host-concurrency", strconv.Itoa(hostConcurrency), "--workers", strconv.Itoa(workers),
			"--quiet"}
		for h := range hosts {
			a = append(a, site.url(h, 0))
		}
		return a
	}
	dirs := []string{filepath.Join(root, "p1"), filepath.Join(root, "p2"), filepath.Join(root, "p3")}
	type proc struct {
		cmd *exec.Cmd
		out bytes.Buffer
	}
	procs := make([]*proc, 3)
	for i, d := range dirs {
		p := &proc{cmd: exec.Command(bin, args(d)...)}
		p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs[i] = p
	}
	defer func() {
		for _, p := range procs {
			if p.cmd.ProcessState == nil {
				p.cmd.Process.Kill()
				p.cmd.Wait()
			}
		}
	}()

	// Kill the third once the three crawl.logs hold a third of the pages.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		n := 0
		for _, d := range dirs {
			n += countLines(filepath.Join(d, crawl.CrawlLogFile))
		}
		if n >= hosts*pages/3 && countLines(filepath.Join(dirs[2], crawl.CrawlLogFile)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no progress; outputs:\n%s\n%s\n%s", procs[0].out.String(), procs[1].out.String(), procs[2].out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := procs[2].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	procs[2].cmd.Wait()
	t.Logf("killed p3 after %d of its crawl.log lines", countLines(filepath.Join(dirs[2], crawl.CrawlLogFile)))

	for i, p := range procs[:2] {
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("p%d: %v\n%s", i+1, err, p.out.String())
		}
		if !strings.Contains(p.out.String(), "Crawl finished") {
			t.Errorf("p%d output: %s", i+1, p.out.String())
		}
	}
	// The killed process, started again: nothing left to claim; it recovers its WARC files,
	// and writes its index and reports.
	out, err := exec.Command(bin, args(dirs[2])...).CombinedOutput()
	if err != nil {
		t.Fatalf("p3 again: %v\n%s", err, out)
	}

	captures := map[string]int{}
	fetchedURLs := map[string]bool{} // distinct URLs with a response, in any process's crawl.log
	totalLines := 0
	for _, d := range dirs {
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
			crawltest.WarcioCDXJ(t, r.Path)
		}
		if err := warccheck.CheckCDXJ(filepath.Join(d, crawl.CDXJFile), filepath.Join(d, crawl.WARCDir)); err != nil {
			t.Errorf("%s: %v", d, err)
		}
		for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(d, crawl.CrawlLogFile)) {
			totalLines++
			if l.Status > 0 {
				fetchedURLs[l.URL] = true
			}
		}
	}
	missing, twice := 0, 0
	for h := range hosts {
		for i := range pages {
			switch n := captures[site.url(h, i)]; {
			case n == 0:
				missing++
				if missing < 5 {
					t.Errorf("page %s not captured", site.url(h, i))
				}
			case n > 1:
				twice++
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d pages missing", missing, hosts*pages)
	}
	if twice > workers {
		t.Errorf("%d pages captured twice, want at most %d (the killed process's claims)", twice, workers)
	}
	t.Logf("pages captured twice: %d (bound %d)", twice, workers)
	site.mu.Lock()
	for h, n := range site.most {
		if n > hostConcurrency {
			t.Errorf("host %s had %d requests at once, host concurrency is %d", h, n, hostConcurrency)
		}
	}
	site.mu.Unlock()

	// amber report merges the three directories: its crawl.log is theirs, and its hosts report
	// counts what they fetched.
	merged := filepath.Join(root, "merged")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, bin, "report", "-o", merged, dirs[0], dirs[1], dirs[2]).CombinedOutput(); err != nil {
		t.Fatalf("amber report DIR DIR DIR: %v\n%s", err, out)
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
	const hosts, pages = 4, 200
	bin := amberBinary(t)
	srv := redistest.Start(t)
	site := &sharedSite{hosts: hosts, pages: pages, current: map[string]int{}, most: map[string]int{}, delay: 5 * time.Millisecond}
	ts, err := testsite.StartHandler(site)
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	root := t.TempDir()
	dirs := []string{filepath.Join(root, "p1"), filepath.Join(root, "p2")}
	procs := make([]*exec.Cmd, len(dirs))
	outs := make([]*bytes.Buffer, len(dirs))
	for i, d := range dirs {
		args := []string{"crawl", "--dir", d, "--frontier", srv.URL(0), "--crawl-id", "ctl", "--connect-to", ts.ConnectTo(),
			"--allow-private", "--host-delay", "50ms", "--workers", "2", "--quiet"}
		for h := range hosts {
			args = append(args, site.url(h, 0))
		}
		procs[i] = exec.Command(bin, args...)
		outs[i] = &bytes.Buffer{}
		procs[i].Stdout, procs[i].Stderr = outs[i], outs[i]
		if err := procs[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, p := range procs {
			if p.ProcessState == nil {
				p.Process.Kill()
				p.Wait()
			}
		}
	}()
	ctl := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"ctl"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("amber ctl %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	// Both processes are up once the server answers for two of them.
	deadline := time.Now().Add(time.Minute)
	for {
		out, err := exec.Command(bin, "ctl", srv.URL(0), "ctl", "status").CombinedOutput()
		if err == nil && strings.Count(string(out), `"urls_fetched"`) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the two processes never answered: %s\n%s\n%s", out, outs[0], outs[1])
		}
		time.Sleep(50 * time.Millisecond)
	}
	if out := ctl(srv.URL(0), "ctl", "pause"); strings.Count(out, "crawl paused") != 2 {
		t.Errorf("pause through the server: %s", out)
	}
	out := ctl(dirs[0], "block", "contains:/p/1")
	if !strings.Contains(out, "done") {
		t.Errorf("block on p1: %s", out)
	}
	// p2 makes the change within a second and records it.
	deadline = time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(dirs[1], crawl.ControlLogFile))
		if strings.Contains(string(b), `"command":"block"`) && strings.Contains(string(b), "contains:/p/1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("p2's control.log after a block given to p1: %s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	blockedAt := time.Now()
	status := ctl(dirs[1], "status")
	if !strings.Contains(status, "contains:/p/1") || !strings.Contains(status, `"paused": true`) {
		t.Errorf("p2's status after the block: %s", status)
	}
	if out := ctl(srv.URL(0), "ctl", "resume"); strings.Count(out, "crawl running") != 2 {
		t.Errorf("resume through the server: %s", out)
	}
	for i, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("p%d: %v\n%s", i+1, err, outs[i])
		}
	}
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
	bin := amberBinary(t)
	srv := redistest.Start(t)
	site := &sharedSite{hosts: hosts, pages: pages, current: map[string]int{}, most: map[string]int{}, delay: 2 * time.Millisecond}
	ts, err := testsite.StartHandler(site)
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	root := t.TempDir()
	dirs := []string{filepath.Join(root, "p1"), filepath.Join(root, "p2")}
	procs := make([]*exec.Cmd, len(dirs))
	outs := make([]*bytes.Buffer, len(dirs))
	for i, d := range dirs {
		args := []string{"crawl", "--dir", d, "--frontier", srv.URL(0), "--crawl-id", "restart", "--connect-to", ts.ConnectTo(),
			"--allow-private", "--host-delay", "10ms", "--workers", strconv.Itoa(workers), "--quiet"}
		for h := range hosts {
			args = append(args, site.url(h, 0))
		}
		procs[i] = exec.Command(bin, args...)
		outs[i] = &bytes.Buffer{}
		procs[i].Stdout, procs[i].Stderr = outs[i], outs[i]
		if err := procs[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, p := range procs {
			if p.ProcessState == nil {
				p.Process.Kill()
				p.Wait()
			}
		}
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		n := 0
		for _, d := range dirs {
			n += countLines(filepath.Join(d, crawl.CrawlLogFile))
		}
		if n >= hosts*pages/3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no progress:\n%s\n%s", outs[0], outs[1])
		}
		time.Sleep(20 * time.Millisecond)
	}
	srv.Stop(syscall.SIGTERM)
	time.Sleep(time.Second)
	srv.Restart()
	for i, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("p%d: %v\n%s", i+1, err, outs[i])
		}
		if !strings.Contains(outs[i].String(), "Crawl finished") {
			t.Errorf("p%d output: %s", i+1, outs[i])
		}
	}
	captures := map[string]int{}
	for _, d := range dirs {
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
		}
	}
	missing, twice := 0, 0
	for h := range hosts {
		for i := range pages {
			switch n := captures[site.url(h, i)]; {
			case n == 0:
				missing++
			case n > 1:
				twice++
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d pages missing", missing, hosts*pages)
	}
	if twice > 2*workers {
		t.Errorf("%d pages captured twice, want at most %d (the claims under way at the restart)", twice, 2*workers)
	}
	t.Logf("pages captured twice: %d", twice)
}

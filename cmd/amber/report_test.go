package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/wacz"
)

// halvesSite serves two hosts, a.test and b.test, that do not link to each other: on each a
// home page linking to five pages, a 404, a page robots.txt disallows and a page on another
// host; pages embed a stylesheet and an image. Every response names its host, so no payload
// of one host is a duplicate of the other's.
type halvesSite struct{}

func (halvesSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if i := strings.IndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	switch p := r.URL.Path; {
	case p == "/robots.txt":
		fmt.Fprintf(w, "# %s\nUser-agent: *\nDisallow: /private/\n", host)
	case p == "/style.css":
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprintf(w, "/* %s */ body { color: #222 }\n", host)
	case p == "/logo.png":
		w.Header().Set("Content-Type", "image/png")
		fmt.Fprintf(w, "\x89PNG\r\n\x1a\n%s", host)
	case p == "/":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<!doctype html><title>%s</title><link rel=stylesheet href=/style.css><img src=/logo.png>", host)
		for i := 1; i <= 5; i++ {
			fmt.Fprintf(w, "<a href=/p%d.html>p%d</a>", i, i)
		}
		fmt.Fprintf(w, "<a href=/missing.html>gone</a><a href=/private/x.html>private</a><a href=http://elsewhere.test/%s>out</a>", host)
	case strings.HasPrefix(p, "/p") && strings.HasSuffix(p, ".html"):
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<!doctype html><title>%s %s</title><link rel=stylesheet href=/style.css><p>page %s of %s</p>", host, p, p, host)
	default:
		http.NotFound(w, r)
	}
}

// crawlHalves crawls halvesSite three times: a.test alone, b.test alone, and both; it returns
// the three crawl directories.
func crawlHalves(t *testing.T) (a, b, whole string) {
	t.Helper()
	site, err := testsite.StartHandler(halvesSite{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	root := t.TempDir()
	crawlOf := func(name string, seeds ...string) string {
		dir := filepath.Join(root, name)
		args := append([]string{"crawl", "--dir", dir, "--connect-to", site.ConnectTo(), "--allow-private",
			"--host-delay", "0", "--retry-delay", "10ms", "--collection", "halves", "--quiet"}, seeds...)
		var stdout, stderr bytes.Buffer
		if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
			t.Fatalf("crawl %s: %v\n%s", name, err, stderr.String())
		}
		return dir
	}
	return crawlOf("a", "http://a.test/"), crawlOf("b", "http://b.test/"), crawlOf("whole", "http://a.test/", "http://b.test/")
}

// TestReportMerged: the reports of two crawls of disjoint halves of a site, merged by amber
// report -o OUT, are those of one crawl of the whole (time-dependent figures masked), and
// OUT/crawl.log holds both crawl.logs in time order.
func TestReportMerged(t *testing.T) {
	a, b, whole := crawlHalves(t)
	out := filepath.Join(t.TempDir(), "merged")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"report", "-o", out, a, b}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("amber report: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), filepath.Join(out, report.HTMLReportFile)) || !strings.Contains(stdout.String(), filepath.Join(out, report.MergedCrawlLogFile)) {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	wholeReports := filepath.Join(whole, crawl.ReportsDir)
	for _, f := range []string{report.SeedsReportFile, report.HostsReportFile, report.MimetypeReportFile,
		report.ResponseCodeReportFile, report.CrawlReportFile, report.ScopeReportFile, report.FailedFile} {
		want, err := os.ReadFile(filepath.Join(wholeReports, f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(report.MaskTimes(want)), string(report.MaskTimes(got))); diff != "" {
			t.Errorf("%s (-one crawl +two merged):\n%s", f, diff)
		}
	}
	// report.html: the same figures and tables (not the links and settings, which name the
	// directories).
	tables := func(dir string) string {
		b, err := os.ReadFile(filepath.Join(dir, report.HTMLReportFile))
		if err != nil {
			t.Fatal(err)
		}
		s := string(report.MaskTimes(b))
		return s[strings.Index(s, `<div class="figures"`):strings.Index(s, `<h2 id="settings">`)]
	}
	if diff := cmp.Diff(tables(wholeReports), tables(out)); diff != "" {
		t.Errorf("report.html (-one crawl +two merged):\n%s", diff)
	}
	for _, h := range []string{"a.test", "b.test", "elsewhere.test"} {
		if !strings.Contains(tables(out), `<tr data-host="`+h+`">`) {
			t.Errorf("report.html: no row for %s", h)
		}
	}
	// The merged crawl.log: every line of both, in time order.
	lines := func(p string) []string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	merged := lines(filepath.Join(out, report.MergedCrawlLogFile))
	both := append(lines(filepath.Join(a, crawl.CrawlLogFile)), lines(filepath.Join(b, crawl.CrawlLogFile))...)
	if !slices.IsSortedFunc(merged, func(x, y string) int { return strings.Compare(x[:24], y[:24]) }) {
		t.Error("merged crawl.log is not in time order")
	}
	slices.Sort(both)
	sorted := slices.Sorted(slices.Values(merged))
	if diff := cmp.Diff(both, sorted); diff != "" {
		t.Errorf("merged crawl.log lines (-both +merged):\n%s", diff)
	}
	html, _ := os.ReadFile(filepath.Join(out, report.HTMLReportFile))
	for _, d := range []string{a, b} {
		rel, _ := filepath.Rel(out, filepath.Join(d, crawl.CrawlLogFile))
		if !bytes.Contains(html, []byte(`href="`+filepath.ToSlash(rel)+`"`)) {
			t.Errorf("report.html does not link to %s", rel)
		}
	}

	// Mistakes in the command line.
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"several DIRs without -o", []string{"report", a, b}},
		{"a DIR twice", []string{"report", "-o", out, a, a}},
		{"-o is a DIR", []string{"report", "-o", b, a, b}},
		{"not a crawl directory", []string{"report", "-o", out, a, t.TempDir()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code := exitCode(run(t.Context(), tc.args, nil, new(bytes.Buffer), new(bytes.Buffer))); code != exitUsage {
				t.Errorf("exit status %d, want %d", code, exitUsage)
			}
		})
	}
}

// TestWACZMerged: amber wacz -o FILE of two crawls of disjoint halves of a site packages what
// one crawl of the whole does: every WARC file, the same index entries in order, the same pages.
func TestWACZMerged(t *testing.T) {
	a, b, whole := crawlHalves(t)
	merged, one := filepath.Join(t.TempDir(), "merged.wacz"), filepath.Join(t.TempDir(), "whole.wacz")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"wacz", a, b, "-o", merged}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("amber wacz: %v\n%s", err, stderr.String())
	}
	if err := run(t.Context(), []string{"wacz", whole, "-o", one}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("amber wacz: %v\n%s", err, stderr.String())
	}
	mp, wp := readPackage(t, merged), readPackage(t, one)
	if mp.warcs != 2 || wp.warcs != 1 {
		t.Errorf("WARC files: %d merged, %d whole; want 2 and 1", mp.warcs, wp.warcs)
	}
	// Each process records its configuration (a resource record): one per crawl directory.
	isConfig := func(l string) bool { return strings.HasPrefix(l, "urn:amber:crawl-config ") }
	if n, m := len(slices.DeleteFunc(slices.Clone(wp.index), func(l string) bool { return !isConfig(l) })),
		len(slices.DeleteFunc(slices.Clone(mp.index), func(l string) bool { return !isConfig(l) })); n != 1 || m != 2 {
		t.Errorf("configuration records: %d whole, %d merged; want 1 and 2", n, m)
	}
	wp.index, mp.index = slices.DeleteFunc(wp.index, isConfig), slices.DeleteFunc(mp.index, isConfig)
	if diff := cmp.Diff(wp.index, mp.index); diff != "" {
		t.Errorf("index (-whole +merged):\n%s", diff)
	}
	if len(mp.index) < 20 {
		t.Errorf("only %d index lines", len(mp.index))
	}
	if diff := cmp.Diff(wp.pages, mp.pages); diff != "" {
		t.Errorf("pages (-whole +merged):\n%s", diff)
	}
	if diff := cmp.Diff(wp.log, mp.log); diff != "" {
		t.Errorf("crawl.log lines (-whole +merged):\n%s", diff)
	}
	if !slices.IsSortedFunc(mp.logTimes, strings.Compare) {
		t.Error("the package's crawl.log is not in time order")
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"several DIRs without -o", []string{"wacz", a, b}, exitUsage},
		{"a DIR twice", []string{"wacz", "-o", merged, a, a}, exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code := exitCode(run(t.Context(), tc.args, nil, new(bytes.Buffer), new(bytes.Buffer))); code != tc.code {
				t.Errorf("exit status %d, want %d", code, tc.code)
			}
		})
	}
}

// waczContent is what TestWACZMerged compares of a package: CDXJ lines without their
// timestamps and WARC positions, pages' URLs and titles, crawl.log lines' status and URL
// (sorted), and crawl.log's times in order.
type waczContent struct {
	warcs      int
	index      []string
	pages, log []string
	logTimes   []string
}

func readPackage(t *testing.T, path string) waczContent {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var c waczContent
	read := func(name string) []string {
		f, err := zr.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		return lines
	}
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, wacz.ArchiveDir) {
			c.warcs++
		}
	}
	ts := regexp.MustCompile(`^(\S+) \d{14} `)
	for _, l := range read(wacz.IndexCDXJ) {
		key := ts.FindStringSubmatch(l)
		var rec struct{ URL, Mime, Status, Digest string }
		if key == nil || json.Unmarshal([]byte(l[len(key[0]):]), &rec) != nil {
			t.Fatalf("CDXJ line %q", l)
		}
		c.index = append(c.index, key[1]+" "+rec.URL+" "+rec.Status+" "+rec.Mime+" "+rec.Digest)
	}
	for _, l := range read(wacz.PagesFile)[1:] {
		var p struct{ URL, Title string }
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatal(err)
		}
		c.pages = append(c.pages, p.URL+" "+p.Title)
	}
	slices.Sort(c.pages)
	for _, l := range read(wacz.CrawlLogEntry) {
		f := strings.Fields(l)
		c.log = append(c.log, f[1]+" "+f[3])
		c.logTimes = append(c.logTimes, f[0])
	}
	slices.Sort(c.log)
	return c
}

// TestSharedDirInput: the report input of a process of a crawl on a shared frontier comes from
// its crawl.yaml, crawl.log and events, and its directory's state (a lock, not a frontier) is
// not opened.
func TestSharedDirInput(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	type ev struct {
		start  bool
		reason string
		at     int // seconds after t0
	}
	for _, tc := range []struct {
		name       string
		events     []ev
		started    time.Time
		ended      time.Time
		endReason  string
		noEventsOK bool
	}{
		{"no events", nil, time.Time{}, time.Time{}, "", true},
		{"ended", []ev{{true, "", 0}, {false, "finished", 60}}, t0, t0.Add(time.Minute), "finished", false},
		{"resumed, then killed", []ev{{true, "", 0}, {false, "cancelled", 60}, {true, "", 120}}, t0, time.Time{}, "", false},
		{"resumed, ended", []ev{{true, "", 0}, {false, "cancelled", 60}, {true, "", 120}, {false, "limit", 180}}, t0, t0.Add(3 * time.Minute), "limit", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, crawl.StateDir), 0o755)
			os.MkdirAll(filepath.Join(dir, "logs"), 0o755)
			yaml := "collection: shared\nfrontier: {redis: \"redis://127.0.0.1:6379/0\"}\nseeds:\n  - http://a.test/\n  - {url: http://b.test/, type: one-page}\n"
			if err := os.WriteFile(filepath.Join(dir, crawl.ConfigFile), []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			if len(tc.events) > 0 {
				var now time.Time
				evs, err := report.OpenEvents(filepath.Join(dir, crawl.EventsFile), report.EventsConfig{CrawlID: "shared", Now: func() time.Time { return now }})
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range tc.events {
					now = t0.Add(time.Duration(e.at) * time.Second)
					if e.start {
						err = evs.CrawlStart(e.at > 0, 2)
					} else {
						err = evs.CrawlEnd(e.reason, "")
					}
					if err != nil {
						t.Fatal(err)
					}
					if err := evs.URLSeed(report.URLInfo{URL: "http://a.test/"}, "standard"); err != nil {
						t.Fatal(err)
					}
				}
				if err := evs.Close(); err != nil {
					t.Fatal(err)
				}
			}
			in, closeFn, err := dirReportInput(dir)
			if err != nil {
				t.Fatal(err)
			}
			closeFn()
			want := []report.SeedInfo{{URL: "http://a.test/", Type: "standard"}, {URL: "http://b.test/", Type: "one-page"}}
			if in.Collection != "shared" || !slices.Equal(in.Seeds, want) || !in.Started.Equal(tc.started) || !in.Ended.Equal(tc.ended) ||
				in.EndReason != tc.endReason || in.EachURL != nil || in.CrawlLog != filepath.Join(dir, crawl.CrawlLogFile) {
				t.Errorf("input %+v", in)
			}
			// amber report DIR writes DIR/reports from the same input.
			if err := run(t.Context(), []string{"report", dir}, nil, new(bytes.Buffer), new(bytes.Buffer)); err != nil {
				t.Fatalf("amber report: %v", err)
			}
			if b, err := os.ReadFile(filepath.Join(dir, crawl.ReportsDir, report.CrawlReportFile)); err != nil || !bytes.Contains(b, []byte("crawl name: shared")) {
				t.Errorf("%s: %v\n%s", report.CrawlReportFile, err, b)
			}
			if es, _ := os.ReadDir(filepath.Join(dir, crawl.StateDir)); len(es) != 0 {
				t.Errorf("files made in the state directory: %v", es)
			}
		})
	}
}

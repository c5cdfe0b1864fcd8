package crawl_test

import (
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

// basicConfig crawls testdata/sites/basic from http://www.example.com/ into dir.
func basicConfig(t *testing.T, site *testsite.Server, dir string) crawl.Config {
	t.Helper()
	var cts []fetch.ConnectTo
	if site != nil {
		cts = connectTo(t, site)
	}
	cfg := crawl.DefaultConfig()
	cfg.Dir = dir
	cfg.Collection = "test"
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://www.example.com/", Type: scope.StandardSeed}}}
	cfg.Workers = 4
	cfg.HostDelay = 0
	cfg.HostConcurrency = 2
	cfg.MaxAttempts = 2
	cfg.RetryDelay = 10 * time.Millisecond
	cfg.ProgressEvery = -1
	cfg.Fetch = fetch.Config{
		UserAgent:    "amber-test/1.0",
		AllowPrivate: true,
		ConnectTo:    cts,
	}
	return cfg
}

// connectAll sends the requests to every host and port to addr, a server's host:port.
func connectAll(t *testing.T, addr string) []fetch.ConnectTo {
	t.Helper()
	ct, err := fetch.ParseConnectTo("::" + addr)
	if err != nil {
		t.Fatal(err)
	}
	return []fetch.ConnectTo{ct}
}

// serveAll serves h on a loopback port until the test ends, and returns its host:port.
func serveAll(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

func connectTo(t *testing.T, site *testsite.Server) []fetch.ConnectTo {
	t.Helper()
	ct, err := fetch.ParseConnectTo(site.ConnectTo())
	if err != nil {
		t.Fatal(err)
	}
	return []fetch.ConnectTo{ct}
}

func startBasic(t *testing.T) *testsite.Server {
	t.Helper()
	site, err := testsite.Start(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "basic"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	return site
}

// TestCrawlBasicSite crawls a multi-host site and checks everything the crawl directory holds.
func TestCrawlBasicSite(t *testing.T) {
	site := startBasic(t)
	dir := t.TempDir()
	res, err := crawl.Run(t.Context(), basicConfig(t, site, dir))
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		t.Fatalf("end = %q, want %q", res.End, crawl.EndFinished)
	}

	// crawl.log: every URL the crawl decided about, with its outcome.
	lines := crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile))
	got := map[string]int{}
	for _, l := range lines {
		if _, dup := got[l.URL]; dup {
			t.Errorf("crawl.log has %s twice", l.URL)
		}
		got[l.URL] = l.Status
	}
	want := map[string]int{
		"http://www.example.com/":                    200,
		"http://www.example.com/robots.txt":          200,
		"http://www.example.com/style.css":           200,
		"http://www.example.com/print.css":           200,
		"http://www.example.com/img/logo.png":        200,
		"http://www.example.com/img/logo-2x.png":     200,
		"http://www.example.com/img/bg.png":          200,
		"http://www.example.com/img/tile.png":        200,
		"http://www.example.com/favicon.ico":         200,
		"http://www.example.com/about.html":          200,
		"http://www.example.com/dir/":                200,
		"http://www.example.com/dir/item1.html":      200,
		"http://www.example.com/old":                 301,
		"http://www.example.com/new.html":            200,
		"http://www.example.com/missing.html":        404,
		"http://www.example.com/feed.xml":            404,
		"http://www.example.com/error":               500,
		"http://www.example.com/copy1.html":          200,
		"http://www.example.com/copy2.html":          200,
		"http://www.example.com/private/secret.html": status.Robots,
		"http://cdn.example.net/pic.png":             200,
		"http://cdn.example.net/robots.txt":          404,
		"http://other.example.org/":                  status.OutOfScope,
		"https://partner.example.net/shop/":          status.OutOfScope,
		"http://other.example.org/friends.html":      status.OutOfScope,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("crawl.log outcomes (-want +got):\n%s", diff)
	}
	for _, l := range lines {
		if l.URL == "http://cdn.example.net/pic.png" && l.Hops != "E" {
			t.Errorf("off-site embed has hop path %q, want E", l.Hops)
		}
		if l.Status == status.OutOfScope && (len(l.Annotations) == 0 || !strings.HasPrefix(l.Annotations[0], "scope:")) {
			t.Errorf("out-of-scope line without its reason: %+v", l)
		}
	}
	// Out of scope and robots-disallowed URLs are never requested.
	for _, p := range [][2]string{{"other.example.org", "/"}, {"other.example.org", "/friends.html"}, {"www.example.com", "/private/secret.html"}} {
		if n := site.Hits(p[0], p[1]); n != 0 {
			t.Errorf("%s%s was requested %d times", p[0], p[1], n)
		}
	}
	// The 500 was retried once (MaxAttempts 2), then archived.
	if n := site.Hits("www.example.com", "/error"); n != 2 {
		t.Errorf("/error requested %d times, want 2", n)
	}

	// WARC: valid for gowarc's strict reader, each captured URL exactly once.
	reports, err := warccheck.ValidateDir(filepath.Join(dir, crawl.WARCDir))
	if err != nil {
		t.Fatal(err)
	}
	type counts struct{ request, response, revisit, metadata int }
	byURL := map[string]*counts{}
	var warcFiles []string
	for _, r := range reports {
		warcFiles = append(warcFiles, r.Path)
		if !r.OK() {
			t.Errorf("%s: %v %v", r.Path, r.Errors, r.Dangling)
		}
		if !strings.HasSuffix(r.Path, ".warc.gz") {
			t.Errorf("WARC file %s not closed out", r.Path)
		}
		for _, rec := range r.Records {
			c := byURL[rec.TargetURI]
			if c == nil {
				c = &counts{}
				byURL[rec.TargetURI] = c
			}
			switch rec.Type {
			case "request":
				c.request++
			case "response":
				c.response++
			case "revisit":
				c.revisit++
			case "metadata":
				c.metadata++
			}
		}
	}
	revisits := 0
	for u, status := range want {
		if status <= 0 {
			if byURL[u] != nil {
				t.Errorf("%s (status %d) has WARC records", u, status)
			}
			continue
		}
		c := byURL[u]
		if c == nil || c.request != 1 || c.response+c.revisit != 1 || c.metadata != 1 {
			t.Errorf("%s: records %+v, want one request, one response or revisit, one metadata", u, c)
			continue
		}
		revisits += c.revisit
	}
	if revisits != 1 || byURL["http://www.example.com/copy1.html"].revisit+byURL["http://www.example.com/copy2.html"].revisit != 1 {
		t.Errorf("want exactly one revisit (the second copy page), got %d", revisits)
	}

	// CDXJ: one line per response/revisit, each pointing at its record.
	cdxj, err := os.ReadFile(filepath.Join(dir, crawl.CDXJFile))
	if err != nil {
		t.Fatal(err)
	}
	cdxLines := strings.Split(strings.TrimSpace(string(cdxj)), "\n")
	if captured := countPositive(want); len(cdxLines) != captured {
		t.Errorf("CDXJ has %d lines, want %d (one per response/revisit)", len(cdxLines), captured)
	}
	// The index is in byte order (pywb binary-searches it) and holds the live index's lines.
	if !slices.IsSorted(cdxLines) {
		t.Errorf("%s is not in byte order:\n%s", crawl.CDXJFile, cdxj)
	}
	live, err := os.ReadFile(filepath.Join(dir, crawl.LiveCDXJFile))
	if err != nil {
		t.Fatal(err)
	}
	liveLines := strings.Split(strings.TrimSpace(string(live)), "\n")
	slices.Sort(liveLines)
	if diff := cmp.Diff(liveLines, cdxLines); diff != "" {
		t.Errorf("sorted index vs live index (-live +sorted):\n%s", diff)
	}
	// internetarchive/gowarc's warc verify, a third reader, accepts every file.
	warccheck.VerifyIA(t, warcFiles...)
	if err := warccheck.CheckCDXJ(filepath.Join(dir, crawl.CDXJFile), filepath.Join(dir, crawl.WARCDir)); err != nil {
		t.Error(err)
	}

	// warcio.js reads every file and indexes the same captures.
	var warcioLines []string
	for _, f := range warcFiles {
		warcioLines = append(warcioLines, crawltest.WarcioCDXJ(t, f)...)
	}
	if len(warcioLines) == 0 {
		t.Error("warcio.js indexed nothing")
	}
	// warcio.js's own index of our files is exactly our CDXJ (order aside).
	ours := append([]string(nil), cdxLines...)
	sort.Strings(ours)
	sort.Strings(warcioLines)
	if diff := cmp.Diff(ours, warcioLines); diff != "" {
		t.Errorf("our CDXJ vs warcio.js cdx-index (-ours +warcio):\n%s", diff)
	}

	// Running again on the finished crawl does nothing.
	before := site.Hits("www.example.com", "/")
	res, err = crawl.Run(t.Context(), basicConfig(t, site, dir))
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndAlreadyFinished {
		t.Errorf("second run: end = %q, want %q", res.End, crawl.EndAlreadyFinished)
	}
	if after := site.Hits("www.example.com", "/"); after != before {
		t.Errorf("second run fetched the seed again")
	}
}

func countPositive(m map[string]int) int {
	n := 0
	for _, v := range m {
		if v > 0 {
			n++
		}
	}
	return n
}

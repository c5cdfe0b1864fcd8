package crawl_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
)

// pipelineSite serves testdata/sites/pipeline: nofollow links, a robots meta nofollow and
// noindex, a robots.txt disallow, a block rule's targets (a link and an embed), a page that
// answers 503 with Retry-After once, a redirect, a 404 and an off-site link. Each server counts
// its own 503s.
func pipelineSite(t *testing.T) *testsite.Server {
	t.Helper()
	root := filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "pipeline", "www.example.com")
	files := http.FileServer(http.Dir(root))
	var mu sync.Mutex
	flaky := 0
	mux := http.NewServeMux()
	mux.Handle("/", files)
	mux.HandleFunc("/flaky.html", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		flaky++
		n := flaky
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!DOCTYPE html><html><head><title>Flaky</title></head><body><p>Back.</p></body></html>")
	})
	mux.HandleFunc("/moved.html", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page.html", http.StatusMovedPermanently)
	})
	site, err := testsite.StartHandler(mux)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	return site
}

// outcome is what a crawl decided about one URL, as crawl.log says it.
type outcome struct {
	Status      int
	Annotations string // without the fetcher's own ("browser") and attempt counts
}

// decisions reads crawl.log as URL → outcomes (a URL may be captured twice, once as a
// revisit; the set of distinct outcomes is kept).
func decisions(t *testing.T, dir string) map[string][]outcome {
	t.Helper()
	got := map[string][]outcome{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
		var ann []string
		for _, a := range l.Annotations {
			if a == "browser" || a == "duplicate:digest" || (strings.HasSuffix(a, "t") && a != "" && strings.Trim(a[:len(a)-1], "0123456789") == "") {
				continue
			}
			ann = append(ann, a)
		}
		o := outcome{Status: l.Status, Annotations: strings.Join(ann, ",")}
		if !slices.Contains(got[l.URL], o) {
			got[l.URL] = append(got[l.URL], o)
			slices.SortFunc(got[l.URL], func(a, b outcome) int { return a.Status - b.Status })
		}
	}
	return got
}

// denials reads events.jsonl as URL → the deny reasons of its url-discover denied events.
func denials(t *testing.T, dir string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, crawl.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("events: %v", err)
		}
		if ev["event.action"] != "url-discover" || ev["event.type"] != "denied" {
			continue
		}
		u, _ := ev["url.full"].(string)
		r, _ := ev["crawler.url.deny_reason"].(string)
		got[u] = r
	}
	return got
}

// scopeReport reads reports/scope-report.json.
func scopeReport(t *testing.T, dir string) report.ScopeReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, crawl.ReportsDir, "scope-report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r report.ScopeReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSamePipelineBothFetchers crawls one site with the plain and the browser fetcher and
// checks that both took the same decisions: nofollow (rel and robots meta), robots.txt, a block
// rule on a link and on an embed, the retry of a 503 after its Retry-After, the redirect, the
// 404, the off-site link; the same reasons in crawl.log, events and the scope report.
func TestSamePipelineBothFetchers(t *testing.T) {
	path := crawltest.Chromium(t)
	crawlWith := func(fetcher string) (string, *testsite.Server) {
		site := pipelineSite(t)
		cfg := basicConfig(t, site, t.TempDir())
		cfg.Fetcher = fetcher
		cfg.Workers = 2
		cfg.MaxAttempts = 3
		cfg.RetryDelay = 50 * time.Millisecond
		block, err := scope.ParseRule("contains:/blocked/")
		if err != nil {
			t.Fatal(err)
		}
		cfg.Scope = scope.Config{
			Flavour: scope.Standard,
			Block:   []scope.Rule{block},
			Seeds:   []scope.Seed{{URL: "http://www.example.com/", Type: scope.StandardSeed}},
		}
		if fetcher == crawl.FetcherBrowser {
			cfg.Browser = browser.Config{Path: path, PageTimeout: 60 * time.Second, BehaviorTimeout: 5 * time.Second}
		}
		res, err := crawl.Run(t.Context(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", fetcher, err)
		}
		if res.End != crawl.EndFinished {
			t.Fatalf("%s: end %q", fetcher, res.End)
		}
		return cfg.Dir, site
	}
	plainDir, plainSite := crawlWith(crawl.FetcherHTTP)
	browserDir, browserSite := crawlWith(crawl.FetcherBrowser)

	base := "http://www.example.com"
	want := map[string][]outcome{
		base + "/":                    {{200, ""}},
		base + "/page.html":           {{200, ""}},
		base + "/meta-nofollow.html":  {{200, ""}},
		base + "/noindex.html":        {{200, ""}},
		base + "/from-noindex.html":   {{200, ""}},
		base + "/flaky.html":          {{200, ""}},
		base + "/moved.html":          {{301, ""}},
		base + "/missing.html":        {{404, ""}},
		base + "/img/logo.png":        {{200, ""}},
		base + "/style.css":           {{200, ""}},
		base + "/robots.txt":          {{200, ""}},
		base + "/favicon.ico":         {{404, ""}},
		base + "/private/secret.html": {{-9998, "robots"}},
		base + "/blocked/page.html":   {{-5000, "scope:block:contains:/blocked/"}},
		base + "/blocked/ad.png":      {{-5000, "scope:block:contains:/blocked/"}},
		"http://other.example.org/":   {{-5000, "scope:out-of-scope"}},
	}
	plain, rendered := decisions(t, plainDir), decisions(t, browserDir)
	if diff := cmp.Diff(want, plain); diff != "" {
		t.Errorf("plain fetcher: crawl.log outcomes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(plain, rendered); diff != "" {
		t.Errorf("crawl.log outcomes differ between fetchers (-plain +browser):\n%s", diff)
	}

	wantDenied := map[string]string{
		base + "/nofollow-target.html": report.DenyNofollow,
		base + "/hidden.html":          report.DenyNofollow,
		base + "/private/secret.html":  report.DenyRobots,
		base + "/blocked/page.html":    report.DenyOutOfScope,
		base + "/blocked/ad.png":       report.DenyOutOfScope,
		"http://other.example.org/":    report.DenyOutOfScope,
	}
	for name, dir := range map[string]string{"plain": plainDir, "browser": browserDir} {
		if diff := cmp.Diff(wantDenied, denials(t, dir)); diff != "" {
			t.Errorf("%s: denied url-discover events (-want +got):\n%s", name, diff)
		}
	}

	// The retry waited for Retry-After in both: two requests for the page each.
	for name, site := range map[string]*testsite.Server{"plain": plainSite, "browser": browserSite} {
		if n := site.Hits("www.example.com", "/flaky.html"); n != 2 {
			t.Errorf("%s: /flaky.html requested %d times, want 2", name, n)
		}
		for _, p := range []string{"/nofollow-target.html", "/hidden.html", "/private/secret.html", "/blocked/page.html", "/blocked/ad.png"} {
			if n := site.Hits("www.example.com", p); n != 0 {
				t.Errorf("%s: %s requested %d times", name, p, n)
			}
		}
	}

	// The reports count the same URLs for the same reasons.
	pr, br := scopeReport(t, plainDir), scopeReport(t, browserDir)
	if diff := cmp.Diff(pr.Hosts, br.Hosts); diff != "" {
		t.Errorf("scope report differs between fetchers (-plain +browser):\n%s", diff)
	}
	if pr.Totals.Blocked != 2 || pr.Totals.Robots != 1 {
		t.Errorf("plain scope report totals = %+v, want 2 blocked and 1 robots", pr.Totals)
	}
}

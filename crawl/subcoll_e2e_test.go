package crawl_test

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
	"github.com/amber-crawler/amber/subcoll"
)

// subSite serves the hosts of TestSubcollections and records, per host, each request: its
// path, the X-Sub field it came with, and when it started and its response ended.
type subSite struct {
	mu   sync.Mutex
	reqs map[string][]subReq
}

type subReq struct {
	path, xsub string
	start, end time.Time
}

// bigPage is a page of more than 1 KiB that links to link.
func bigPage(link string) string {
	return `<html><body><a href="` + link + `">next</a>` + strings.Repeat("<p>filler text of a long page</p>", 100) + "</body></html>"
}

func (s *subSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	defer func() {
		s.mu.Lock()
		s.reqs[host] = append(s.reqs[host], subReq{path: r.URL.RequestURI(), xsub: r.Header.Get("X-Sub"), start: start, end: time.Now()})
		s.mu.Unlock()
	}()
	page := func(body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
	switch host + r.URL.Path {
	case "www.example.com/":
		page(`<a href="/big">big</a> <a href="http://news.example.com/">news</a> <a href="http://docs.example.com/">docs</a> <a href="http://js.example.com/">js</a>`)
	case "www.example.com/big":
		page(bigPage("/found"))
	case "docs.example.com/":
		page(`<a href="/big">big</a>`)
	case "docs.example.com/big":
		page(bigPage("/hidden"))
	case "news.example.com/":
		page(`<a href="/1">1</a> <a href="/2">2</a> <a href="/3">3</a> <a href="/4">4</a> <a href="/5">5</a>`)
	case "js.example.com/":
		page(`<p>js</p><script>var a = document.createElement("a"); a.href = "/by-script"; a.textContent = "x"; document.body.appendChild(a);</script>`)
	default:
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		page("<p>" + r.URL.Path + "</p>")
	}
}

// requests returns host's requests in the order they started.
func (s *subSite) requests(host string) []subReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := slices.Clone(s.reqs[host])
	slices.SortFunc(rs, func(a, b subReq) int { return a.start.Compare(b.start) })
	return rs
}

// TestSubcollections crawls four hosts: the collection's (http, no delay, no size limit) and
// three subcollections with their own settings: news (3 URLs per host, a 150 ms delay, an
// X-Sub header), docs (pages cut at 1 KiB are dropped, another X-Sub) and js (the browser
// fetcher in an http crawl). Each gets what its settings say, and its captures say sub:NAME.
func TestSubcollections(t *testing.T) {
	chromium := crawltest.Chromium(t)
	site := &subSite{reqs: map[string][]subReq{}}
	cfg := basicConfig(t, nil, t.TempDir())
	cfg.Fetch.ConnectTo = connectAll(t, serveAll(t, site))
	cfg.Browser = browser.Config{Path: chromium, Screenshot: false, PageTimeout: 60 * time.Second, BehaviorTimeout: 5 * time.Second}
	cfg.HostConcurrency = 1
	rule := func(s string) []scope.Rule {
		r, err := scope.ParseRule(s)
		if err != nil {
			t.Fatal(err)
		}
		return []scope.Rule{r}
	}
	accept := rule(`regex:http://[a-z]+\.example\.com/.*`)
	cfg.Scope.Accept = accept
	delay, three, drop := 150*time.Millisecond, int64(3), true
	cfg.Subcollections = []subcoll.Subcollection{
		{Name: "news", Match: rule(`regex:http://news\.example\.com/.*`), HostDelay: &delay, URLsPerHost: &three,
			Header: http.Header{"X-Sub": {"news"}}},
		{Name: "docs", Match: rule(`regex:http://docs\.example\.com/.*`), MaxResponseSize: 1024, DropOversize: &drop,
			Header: http.Header{"X-Sub": {"docs"}}},
		{Name: "js", Match: rule(`regex:http://js\.example\.com/.*`), Fetcher: crawl.FetcherBrowser},
	}
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		t.Fatalf("end %q", res.End)
	}
	lines, err := report.ReadCrawlLog(filepath.Join(cfg.Dir, crawl.CrawlLogFile))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		status int
		ann    []string
	}
	byURL := map[string]got{}
	subOf := map[string]string{} // captured URL -> its sub: annotation
	for _, l := range lines {
		byURL[l.URL] = got{l.Status, l.Annotations}
		for _, a := range l.Annotations {
			if name, ok := strings.CutPrefix(a, "sub:"); ok && l.Status > 0 {
				subOf[l.URL] = name
			}
		}
	}

	// Every capture of a subcollection's host says so; the collection's say nothing.
	for u, g := range byURL {
		if g.status <= 0 || strings.HasSuffix(u, "/robots.txt") {
			continue
		}
		want := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), ".example.com")
		want, _, _ = strings.Cut(want, ".example.com/")
		if want == "www" {
			want = ""
		}
		if subOf[u] != want {
			t.Errorf("%s: annotated sub %q, want %q (%v)", u, subOf[u], want, g.ann)
		}
	}

	// news: 3 URLs fetched, the others left out as max-doc; every request with its header,
	// at least its delay apart.
	var fetched, maxDoc int
	for u, g := range byURL {
		if !strings.HasPrefix(u, "http://news.example.com/") || strings.HasSuffix(u, "/robots.txt") {
			continue
		}
		switch {
		case g.status > 0:
			fetched++
		case g.status == status.OutOfScope && slices.Contains(g.ann, "scope:max-doc"):
			maxDoc++
		default:
			t.Errorf("%s: status %d %v", u, g.status, g.ann)
		}
	}
	if fetched != 3 || maxDoc < 3 {
		t.Errorf("news: %d URLs fetched, %d left out as max-doc; want 3 and at least 3 (/ links to 5)", fetched, maxDoc)
	}
	news := site.requests("news.example.com")
	for i, r := range news {
		if r.xsub != "news" && r.path != "/robots.txt" {
			t.Errorf("news %s: X-Sub %q, want news", r.path, r.xsub)
		}
		if i > 0 {
			if gap := r.start.Sub(news[i-1].end); gap < delay {
				t.Errorf("news %s started %v after %s ended, want at least %v", r.path, gap, news[i-1].path, delay)
			}
		}
	}

	// docs: /big cut at 1 KiB and dropped, so its link is not followed; the collection's
	// /big is whole and its link followed.
	if g := byURL["http://docs.example.com/big"]; g.status != 200 || !slices.Contains(g.ann, "dropped:oversize") {
		t.Errorf("docs /big: %d %v, want 200 dropped:oversize", g.status, g.ann)
	}
	if _, ok := byURL["http://docs.example.com/hidden"]; ok {
		t.Error("docs /hidden was found: the dropped page's link was followed")
	}
	if g := byURL["http://www.example.com/found"]; g.status != 404 && g.status != 200 {
		t.Errorf("www /found: %d, want it fetched (the collection's /big is read)", g.status)
	}
	for _, r := range site.requests("docs.example.com") {
		if r.xsub != "docs" {
			t.Errorf("docs %s: X-Sub %q, want docs", r.path, r.xsub)
		}
	}
	for _, r := range site.requests("www.example.com") {
		if r.xsub != "" {
			t.Errorf("www %s: X-Sub %q, want none (the collection's)", r.path, r.xsub)
		}
	}

	// js: rendered by the browser in an http crawl (its script's link followed); www is not.
	if g := byURL["http://js.example.com/"]; !slices.Contains(g.ann, "browser") {
		t.Errorf("js /: %v, want it loaded by the browser", g.ann)
	}
	if _, ok := byURL["http://js.example.com/by-script"]; !ok {
		t.Error("js /by-script, the script's link, was not found")
	}
	if g := byURL["http://www.example.com/"]; slices.Contains(g.ann, "browser") {
		t.Errorf("www /: %v, want it fetched by the plain client", g.ann)
	}
}

// TestSubcollectionsBrowserCrawl: in a browser crawl, a subcollection with the http fetcher
// has its URLs fetched by the plain client, with its header and response size; the
// collection's pages are loaded in the browser.
func TestSubcollectionsBrowserCrawl(t *testing.T) {
	chromium := crawltest.Chromium(t)
	site := &subSite{reqs: map[string][]subReq{}}
	cfg := basicConfig(t, nil, t.TempDir())
	cfg.Fetch.ConnectTo = connectAll(t, serveAll(t, site))
	cfg.Fetcher = crawl.FetcherBrowser
	cfg.Browser = browser.Config{Path: chromium, Screenshot: false, PageTimeout: 60 * time.Second, BehaviorTimeout: 5 * time.Second}
	accept, err := scope.ParseRule(`regex:http://(www|docs|js)\.example\.com/.*`)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := scope.ParseRule(`regex:http://docs\.example\.com/.*`)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Scope.Accept = []scope.Rule{accept}
	drop := true
	cfg.Subcollections = []subcoll.Subcollection{{Name: "docs", Match: []scope.Rule{docs}, Fetcher: crawl.FetcherHTTP,
		MaxResponseSize: 1024, DropOversize: &drop, Header: http.Header{"X-Sub": {"docs"}}}}
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		t.Fatalf("end %q", res.End)
	}
	lines, err := report.ReadCrawlLog(filepath.Join(cfg.Dir, crawl.CrawlLogFile))
	if err != nil {
		t.Fatal(err)
	}
	ann := map[string][]string{}
	for _, l := range lines {
		if l.Status > 0 {
			ann[l.URL] = l.Annotations
		}
	}
	for _, tc := range []struct {
		url          string
		browser, sub bool
	}{
		{"http://www.example.com/", true, false},
		{"http://js.example.com/", true, false},
		{"http://docs.example.com/", false, true},
		{"http://docs.example.com/big", false, true},
	} {
		a, ok := ann[tc.url]
		if !ok {
			t.Errorf("%s not captured", tc.url)
			continue
		}
		if got := slices.Contains(a, "browser"); got != tc.browser {
			t.Errorf("%s: %v: loaded by the browser %v, want %v", tc.url, a, got, tc.browser)
		}
		if got := slices.Contains(a, "sub:docs"); got != tc.sub {
			t.Errorf("%s: %v: sub:docs %v, want %v", tc.url, a, got, tc.sub)
		}
	}
	if !slices.Contains(ann["http://docs.example.com/big"], "dropped:oversize") {
		t.Errorf("docs /big: %v, want dropped:oversize (cut at the subcollection's 1 KiB)", ann["http://docs.example.com/big"])
	}
	if _, ok := ann["http://js.example.com/by-script"]; !ok {
		t.Error("js /by-script, the script's link, was not captured: the collection's page was not rendered")
	}
	for _, r := range site.requests("docs.example.com") {
		if r.xsub != "docs" {
			t.Errorf("docs %s: X-Sub %q, want docs", r.path, r.xsub)
		}
	}
}

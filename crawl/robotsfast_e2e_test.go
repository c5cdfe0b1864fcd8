package crawl_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier/redisfront"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/redistest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

// fastSite serves every host alike, for the tests of FAST's robots and per-site settings:
// / links to /p/1 ... /p/N and to the links listed, with extra markup in its head and
// padding after its links; each /p/K is a small page; robots.txt is answered by robots (404
// without). It counts the requests of each host and path.
type fastSite struct {
	pages  int
	head   string           // markup in the head of /
	links  []string         // absolute links on / besides its pages
	pad    int              // bytes of padding after the links of /
	robots http.HandlerFunc // robots.txt; nil: 404
	page   http.HandlerFunc // the /p/K pages; nil: a small page

	mu   sync.Mutex     // guards hits
	hits map[string]int // "host path" -> requests
}

func (s *fastSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	s.mu.Lock()
	s.hits[host+" "+r.URL.Path]++
	s.mu.Unlock()
	switch {
	case r.URL.Path == "/robots.txt" && s.robots != nil:
		s.robots(w, r)
	case r.URL.Path == "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		fmt.Fprintf(&b, "<!doctype html><html><head><title>home of %s</title>%s</head><body><h1>home</h1>\n", host, s.head)
		for k := 1; k <= s.pages; k++ {
			fmt.Fprintf(&b, "<a href=\"/p/%d\">page %d</a>\n", k, k)
		}
		for _, l := range s.links {
			fmt.Fprintf(&b, "<a href=\"%s\">%s</a>\n", l, l)
		}
		b.WriteString("<p>")
		b.WriteString(strings.Repeat("padding ", s.pad/8))
		b.WriteString("</p></body></html>\n")
		fmt.Fprint(w, b.String())
	case strings.HasPrefix(r.URL.Path, "/p/") && s.page != nil:
		s.page(w, r)
	case strings.HasPrefix(r.URL.Path, "/p/"):
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body><p>%s on %s</p></body></html>\n", r.URL.Path, r.URL.Path, host)
	default:
		http.NotFound(w, r)
	}
}

// requests returns how often host was asked for path.
func (s *fastSite) requests(host, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[host+" "+path]
}

// startFAST serves s on loopback for the test.
func startFAST(t *testing.T, s *fastSite) *testsite.Server {
	t.Helper()
	s.hits = map[string]int{}
	ts, err := testsite.StartHandler(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return ts
}

// fastConfig is basicConfig for site, with the given fetcher (FetcherBrowser needs Chromium).
func fastConfig(t *testing.T, ts *testsite.Server, fetcher string) crawl.Config {
	t.Helper()
	cfg := basicConfig(t, ts, t.TempDir())
	if fetcher == crawl.FetcherBrowser {
		cfg.Fetcher = crawl.FetcherBrowser
		cfg.Browser = browser.Config{Path: crawltest.Chromium(t), PageTimeout: 60 * time.Second, BehaviorTimeout: 5 * time.Second}
		cfg.Workers = 2
	}
	return cfg
}

// runFAST runs the crawl and wants it finished.
func runFAST(t *testing.T, cfg crawl.Config) []report.Line {
	t.Helper()
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		t.Fatalf("end %q, want %q", res.End, crawl.EndFinished)
	}
	return crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile))
}

// lastLines returns the last crawl.log line of each URL.
func lastLines(lines []report.Line) map[string]report.Line {
	m := map[string]report.Line{}
	for _, l := range lines {
		m[l.URL] = l
	}
	return m
}

// documentURLs returns the url of each line of documents.jsonl.
func documentURLs(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, crawl.DocumentsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var urls []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		var d struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		urls = append(urls, d.URL)
	}
	return urls
}

// fetchers are the fetchers a test runs with: both, unless -short leaves the browser out.
func fetchers() []string {
	if testing.Short() {
		return []string{crawl.FetcherHTTP}
	}
	return []string{crawl.FetcherHTTP, crawl.FetcherBrowser}
}

// TestRobotsTTL: a robots.txt is fetched once per host by default; with a TTL shorter than
// any gap between two URLs, it is fetched (and archived) again for every URL, and the newest
// one is obeyed.
func TestRobotsTTL(t *testing.T) {
	tests := []struct {
		name string
		ttl  time.Duration
	}{
		{"default: once", 0},
		{"expired at once: again for every URL", time.Nanosecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			served := 0
			site := &fastSite{pages: 4, robots: func(w http.ResponseWriter, r *http.Request) {
				// The first robots.txt allows all; every later one disallows /p/4.
				mu.Lock()
				served++
				n := served
				mu.Unlock()
				w.Header().Set("Content-Type", "text/plain")
				if n == 1 {
					fmt.Fprint(w, "User-agent: *\nDisallow:\n")
					return
				}
				fmt.Fprint(w, "User-agent: *\nDisallow: /p/4\n")
			}}
			ts := startFAST(t, site)
			cfg := fastConfig(t, ts, crawl.FetcherHTTP)
			cfg.Workers, cfg.HostConcurrency = 1, 1
			if tt.ttl > 0 {
				cfg.Robots.TTL = tt.ttl
			}
			lines := runFAST(t, cfg)
			robots, claimed := 0, 0
			for _, l := range lines {
				switch {
				case strings.HasSuffix(l.URL, "/robots.txt"):
					robots++
					if l.Status != 200 {
						t.Errorf("robots.txt line %d, want 200", l.Status)
					}
				case l.Status > 0 || l.Status == status.Robots:
					claimed++
				}
			}
			got := lastLines(lines)["http://www.example.com/p/4"].Status
			if tt.ttl == 0 {
				if robots != 1 || site.requests("www.example.com", "/robots.txt") != 1 {
					t.Errorf("robots.txt archived %d times, requested %d; want once", robots, site.requests("www.example.com", "/robots.txt"))
				}
				if got != 200 {
					t.Errorf("/p/4: %d, want 200 (the one robots.txt allows it)", got)
				}
				return
			}
			// / , /p/1-4 and /favicon.ico: each claim asks for robots.txt again.
			if robots != claimed || claimed != 6 {
				t.Errorf("robots.txt archived %d times for %d URLs claimed, want one for each of 6", robots, claimed)
			}
			if got != status.Robots {
				t.Errorf("/p/4: %d, want %d (the newer robots.txt disallows it)", got, status.Robots)
			}
			reports, err := warccheck.ValidateDir(filepath.Join(cfg.Dir, crawl.WARCDir))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, r := range reports {
				if !r.OK() {
					t.Errorf("%s: %v", r.Path, r.Errors)
				}
				for _, rec := range r.Records {
					// The same robots.txt again is a revisit of the first.
					if (rec.Type == "response" || rec.Type == "revisit") && strings.HasSuffix(rec.TargetURI, "/robots.txt") {
						n++
					}
				}
			}
			if n != robots {
				t.Errorf("%d robots.txt responses and revisits in the WARC files, want %d", n, robots)
			}
		})
	}
}

// TestRobotsTimeout: Robots.Timeout bounds a robots.txt that never answers; by default its
// host's URLs are then left out as robots-unavailable, with Robots.AllowOnTimeout they are
// fetched as without a robots.txt, and the robots.txt line says why.
func TestRobotsTimeout(t *testing.T) {
	tests := []struct {
		name  string
		allow bool
		want  int // status of /
	}{
		{"timeout disallows for now", false, status.Robots},
		{"timeout allows all", true, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			release := make(chan struct{})
			site := &fastSite{pages: 2, robots: func(w http.ResponseWriter, r *http.Request) {
				select { // never answers while the crawl waits for it
				case <-r.Context().Done():
				case <-release:
				}
			}}
			ts := startFAST(t, site)
			t.Cleanup(func() { close(release) })
			cfg := fastConfig(t, ts, crawl.FetcherHTTP)
			cfg.Robots.Timeout = 100 * time.Millisecond
			cfg.Robots.AllowOnTimeout = tt.allow
			lines := runFAST(t, cfg)
			last := lastLines(lines)
			if got := last["http://www.example.com/"].Status; got != tt.want {
				t.Errorf("/: status %d, want %d", got, tt.want)
			}
			rl, ok := last["http://www.example.com/robots.txt"]
			if !ok {
				t.Fatal("no crawl.log line for robots.txt")
			}
			if rl.Status != status.Timeout {
				t.Errorf("robots.txt: status %d, want %d", rl.Status, status.Timeout)
			}
			if got := slices.Contains(rl.Annotations, "robots:timeout-allows-all"); got != tt.allow {
				t.Errorf("robots.txt annotations %v: robots:timeout-allows-all %v, want %v", rl.Annotations, got, tt.allow)
			}
			if tt.allow {
				if got := last["http://www.example.com/p/2"].Status; got != 200 {
					t.Errorf("/p/2: status %d, want 200", got)
				}
			} else if !slices.Contains(last["http://www.example.com/"].Annotations, "robots-unavailable") {
				t.Errorf("/: annotations %v, want robots-unavailable", last["http://www.example.com/"].Annotations)
			}
		})
	}
}

// TestRobotsAuth: a robots.txt answered 401 or 403 allows all by default (RFC 9309) and
// disallows the whole host with Robots.DisallowOnAuth; a 404 allows all either way.
func TestRobotsAuth(t *testing.T) {
	tests := []struct {
		name     string
		code     int
		disallow bool
		want     int
	}{
		{"401 allows", 401, false, 200},
		{"403 allows", 403, false, 200},
		{"401 disallows", 401, true, status.Robots},
		{"403 disallows", 403, true, status.Robots},
		{"404 allows with disallow_on_auth", 404, true, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := &fastSite{pages: 1, robots: func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "no", tt.code)
			}}
			ts := startFAST(t, site)
			cfg := fastConfig(t, ts, crawl.FetcherHTTP)
			cfg.Robots.DisallowOnAuth = tt.disallow
			last := lastLines(runFAST(t, cfg))
			if got := last["http://www.example.com/robots.txt"].Status; got != tt.code {
				t.Errorf("robots.txt: status %d, want %d (archived as answered)", got, tt.code)
			}
			if got := last["http://www.example.com/"].Status; got != tt.want {
				t.Errorf("/: status %d, want %d", got, tt.want)
			}
			if got := site.requests("www.example.com", "/"); (got > 0) != (tt.want == 200) {
				t.Errorf("/ requested %d times, want it requested: %v", got, tt.want == 200)
			}
		})
	}
}

// TestRobotsMeta: <meta name=robots content="noindex,nofollow"> keeps the page's links out
// of the crawl and the page out of documents.jsonl, with both fetchers, unless
// Robots.IgnoreMeta; rel=nofollow is obeyed either way.
func TestRobotsMeta(t *testing.T) {
	for _, fetcher := range fetchers() {
		for _, ignore := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/ignore_meta=%v", fetcher, ignore), func(t *testing.T) {
				site := &fastSite{pages: 2, head: `<meta name="robots" content="noindex,nofollow">`,
					links: []string{"/rel-nofollow"}}
				ts := startFAST(t, site)
				cfg := fastConfig(t, ts, fetcher)
				cfg.Robots.IgnoreMeta = ignore
				// rel=nofollow on a link of its own page, obeyed whatever IgnoreMeta says.
				site.page = func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html; charset=utf-8")
					fmt.Fprintf(w, `<html><head><title>p</title></head><body><p>page %s</p><a rel="nofollow" href="/p/9/nf">nf</a></body></html>`, r.URL.Path)
				}
				lines := runFAST(t, cfg)
				last := lastLines(lines)
				if got := last["http://www.example.com/"].Status; got != 200 {
					t.Fatalf("/: status %d, want 200 (archived whatever its meta says)", got)
				}
				_, followed := last["http://www.example.com/p/1"]
				if followed != ignore {
					t.Errorf("/p/1 followed: %v, want %v", followed, ignore)
				}
				if _, ok := last["http://www.example.com/p/9/nf"]; ok {
					t.Errorf("rel=nofollow link followed: %+v", last["http://www.example.com/p/9/nf"])
				}
				indexed := slices.Contains(documentURLs(t, cfg.Dir), "http://www.example.com/")
				if indexed != ignore {
					t.Errorf("/ in documents.jsonl: %v, want %v", indexed, ignore)
				}
			})
		}
	}
}

// TestRobotsCrawlDelay: a robots.txt Crawl-delay of an hour (cut to fetch.MaxCrawlDelay)
// holds the host's first page, which waits for it after robots.txt, past a run's time limit;
// with Robots.IgnoreCrawlDelay the crawl finishes.
func TestRobotsCrawlDelay(t *testing.T) {
	tests := []struct {
		name   string
		ignore bool
	}{
		{"obeyed", false},
		{"ignored", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := &fastSite{pages: 2, robots: func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, "User-agent: *\nCrawl-delay: 3600\n")
			}}
			ts := startFAST(t, site)
			cfg := fastConfig(t, ts, crawl.FetcherHTTP)
			cfg.Robots.IgnoreCrawlDelay = tt.ignore
			if !tt.ignore {
				cfg.TimeLimit = 2 * time.Second // far below the delay
			}
			res, err := crawl.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			fetched := site.requests("www.example.com", "/") + site.requests("www.example.com", "/p/1") +
				site.requests("www.example.com", "/p/2")
			if tt.ignore {
				if res.End != crawl.EndFinished || fetched != 3 {
					t.Errorf("end %q with %d pages fetched, want finished with 3", res.End, fetched)
				}
				return
			}
			if res.End != crawl.EndLimit || fetched != 0 || site.requests("www.example.com", "/robots.txt") > 1 {
				t.Errorf("end %q with %d pages fetched, want the time limit with robots.txt alone (the Crawl-delay holds the rest)", res.End, fetched)
			}
		})
	}
}

// TestRetryDelayCap: SiteLimits.MaxBackoff cuts the retry delay of a URL: with an hour's
// RetryDelay a page answering 503 twice is captured in the same run.
func TestRetryDelayCap(t *testing.T) {
	var mu sync.Mutex
	answers := 0
	site := &fastSite{pages: 1, page: func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		answers++
		n := answers
		mu.Unlock()
		if n <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, "<html><body>ok</body></html>")
	}}
	ts := startFAST(t, site)
	cfg := fastConfig(t, ts, crawl.FetcherHTTP)
	cfg.MaxAttempts = 3
	cfg.RetryDelay = time.Hour
	cfg.Sites.MaxBackoff = 20 * time.Millisecond
	cfg.TimeLimit = time.Minute // a guard: without the cap the crawl would wait an hour
	last := lastLines(runFAST(t, cfg))
	l := last["http://www.example.com/p/1"]
	if l.Status != 200 || !slices.Contains(l.Annotations, "3t") {
		t.Errorf("/p/1: status %d annotations %v, want 200 at the third attempt (3t)", l.Status, l.Annotations)
	}
}

// closedAddr returns a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestMaxHostFailures: a host that refuses connections is given up after
// Sites.MaxHostFailures+1 failures in a row (its robots.txt requests count, or its pages'
// when robots.txt is ignored): its other URLs fail without a request, with the status of its
// last failure and annotation host-given-up, and an event says the host was given up. Other
// hosts are crawled as usual.
func TestMaxHostFailures(t *testing.T) {
	tests := []struct {
		name         string
		ignoreRobots bool
		maxFailures  int
	}{
		{"robots.txt failures", false, 2},
		{"page failures", true, 2},
		{"no limit", true, 0},
	}
	const deadPages = 8
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var links []string
			for k := range deadPages {
				links = append(links, fmt.Sprintf("http://dead.example.com/d/%d", k))
			}
			site := &fastSite{pages: 2, links: links}
			ts := startFAST(t, site)
			cfg := fastConfig(t, ts, crawl.FetcherHTTP)
			_, port, _ := net.SplitHostPort(closedAddr(t))
			dead, err := fetch.ParseConnectTo("dead.example.com::127.0.0.1:" + port)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Fetch.ConnectTo = append([]fetch.ConnectTo{dead}, cfg.Fetch.ConnectTo...)
			// One attempt each; a robots.txt that did not answer is asked again at once (it is
			// trusted for RetryDelay), so that every URL of the host makes a request.
			cfg.HostConcurrency, cfg.MaxAttempts, cfg.RetryDelay = 1, 1, time.Nanosecond
			accept, err := scope.ParseRule("host:dead.example.com")
			if err != nil {
				t.Fatal(err)
			}
			cfg.Scope.Accept = []scope.Rule{accept}
			cfg.IgnoreRobots = tt.ignoreRobots
			cfg.Sites.MaxHostFailures = tt.maxFailures
			lines := runFAST(t, cfg)
			var tried, givenUp int
			for _, l := range lines {
				if !strings.HasPrefix(l.URL, "http://dead.example.com/") {
					continue
				}
				if slices.Contains(l.Annotations, "host-given-up") {
					givenUp++
					if l.Status != status.ConnectFailed {
						t.Errorf("%s: status %d, want %d (the host's last failure)", l.URL, l.Status, status.ConnectFailed)
					}
					continue
				}
				if l.URL == "http://dead.example.com/robots.txt" || tt.ignoreRobots {
					tried++
				}
			}
			last := lastLines(lines)
			for k := 1; k <= 2; k++ {
				if got := last[fmt.Sprintf("http://www.example.com/p/%d", k)].Status; got != 200 {
					t.Errorf("/p/%d of the live host: status %d, want 200", k, got)
				}
			}
			if tt.maxFailures == 0 {
				if givenUp != 0 || tried < deadPages {
					t.Errorf("%d requests tried, %d given up; want every URL tried, none given up", tried, givenUp)
				}
				return
			}
			if tried != tt.maxFailures+1 {
				t.Errorf("%d requests to the dead host, want %d", tried, tt.maxFailures+1)
			}
			wantGivenUp := deadPages - tt.maxFailures - 1
			if givenUp != wantGivenUp {
				t.Errorf("%d URLs given up, want %d", givenUp, wantGivenUp)
			}
			events, err := os.ReadFile(filepath.Join(cfg.Dir, crawl.EventsFile))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(events), `"event.action":"host-given-up"`); n != 1 {
				t.Errorf("%d host-given-up events, want 1", n)
			}
		})
	}
}

// TestDropOversize: a page cut at the response size limit is read as far as it goes by
// default; with DropOversize it is archived as cut (WARC-Truncated: length) but its links are
// not followed and it has no search document, with both fetchers.
func TestDropOversize(t *testing.T) {
	for _, fetcher := range fetchers() {
		for _, drop := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/drop=%v", fetcher, drop), func(t *testing.T) {
				site := &fastSite{pages: 2, pad: 256 << 10}
				ts := startFAST(t, site)
				cfg := fastConfig(t, ts, fetcher)
				cfg.Fetch.MaxResponseSize = 64 << 10
				cfg.DropOversize = drop
				lines := runFAST(t, cfg)
				last := lastLines(lines)
				home := last["http://www.example.com/"]
				if home.Status != 200 || !slices.Contains(home.Annotations, "truncated:length") {
					t.Fatalf("/: status %d annotations %v, want 200 truncated:length", home.Status, home.Annotations)
				}
				if got := slices.Contains(home.Annotations, "dropped:oversize"); got != drop {
					t.Errorf("/: annotations %v: dropped:oversize %v, want %v", home.Annotations, got, drop)
				}
				if _, followed := last["http://www.example.com/p/1"]; followed == drop {
					t.Errorf("/p/1 followed: %v, want %v", followed, !drop)
				}
				if got := slices.Contains(documentURLs(t, cfg.Dir), "http://www.example.com/"); got == drop {
					t.Errorf("/ in documents.jsonl: %v, want %v", got, !drop)
				}
				reports, err := warccheck.ValidateDir(filepath.Join(cfg.Dir, crawl.WARCDir))
				if err != nil {
					t.Fatal(err)
				}
				found, marked := false, false
				for _, r := range reports {
					if !r.OK() {
						t.Errorf("%s: %v", r.Path, r.Errors)
					}
					for _, rec := range r.Records {
						if rec.TargetURI != "http://www.example.com/" {
							continue
						}
						switch rec.Type {
						case "response":
							found = true
							if rec.Truncated != "length" {
								t.Errorf("response of /: WARC-Truncated %q, want length", rec.Truncated)
							}
						case "metadata":
							marked = rec.Field("dropped") == "oversize"
						}
					}
				}
				if !found {
					t.Error("no response record of / in the WARC files")
				}
				if marked != drop {
					t.Errorf("metadata record of /: dropped: oversize %v, want %v", marked, drop)
				}
			})
		}
	}
}

// maxDocSite serves www.example.com and other.example.com with 9 pages each, the home page of
// www linking to other's; the config accepts both hosts and fetches at most max URLs of each.
func maxDocSite(t *testing.T, max int64) (*fastSite, crawl.Config) {
	t.Helper()
	site := &fastSite{pages: 9, links: []string{"http://other.example.com/"}}
	ts := startFAST(t, site)
	cfg := fastConfig(t, ts, crawl.FetcherHTTP)
	accept, err := scope.ParseRule("host:other.example.com")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Scope.Accept = []scope.Rule{accept}
	cfg.Sites.URLsPerHost = max
	return site, cfg
}

// checkMaxDoc checks the crawl.logs of one crawl (its processes, or its runs) against the
// limit of max URLs per host: exactly max of each host got a response, the rest of each
// host's URLs were refused with -5000 scope:max-doc, and each directory's scope report
// counts its refusals under max-doc.
func checkMaxDoc(t *testing.T, max int, dirs ...string) {
	t.Helper()
	fetched := map[string]int{}
	refused := map[string]int{}
	seen := map[string]bool{}
	for _, dir := range dirs {
		dirRefused := 0
		for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
			if strings.HasSuffix(l.URL, "/robots.txt") {
				continue
			}
			host := strings.Split(strings.TrimPrefix(l.URL, "http://"), "/")[0]
			switch {
			case l.Status > 0:
				if seen[l.URL] {
					t.Errorf("%s fetched twice", l.URL)
				}
				seen[l.URL] = true
				fetched[host]++
			case slices.Contains(l.Annotations, "scope:max-doc"):
				if l.Status != status.OutOfScope {
					t.Errorf("%s: status %d, want %d", l.URL, l.Status, status.OutOfScope)
				}
				refused[host]++
				dirRefused++
			}
		}
		data, err := os.ReadFile(filepath.Join(dir, crawl.ReportsDir, "scope-report.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep report.ScopeReport
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		if got := rep.Totals.Reasons["max-doc"]; got != int64(dirRefused) {
			t.Errorf("%s: scope report counts %d max-doc, crawl.log %d", dir, got, dirRefused)
		}
	}
	for _, host := range []string{"www.example.com", "other.example.com"} {
		// 9 pages, the home page and its favicon: 11 URLs a host.
		if fetched[host] != max || refused[host] != 11-max {
			t.Errorf("%s: %d fetched, %d refused (max-doc); want %d and %d", host, fetched[host], refused[host], max, 11-max)
		}
	}
}

// TestMaxDoc: SiteLimits.MaxURLs fetches at most that many URLs of each host; the others
// are refused with reason max-doc, in crawl.log, events and the scope report. The counts are
// kept in the frontier: a crawl stopped by its URL limit and resumed fetches no more of a host
// in all.
func TestMaxDoc(t *testing.T) {
	const max = 4
	tests := []struct {
		name   string
		resume bool
	}{
		{"one run", false},
		{"stopped and resumed", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, cfg := maxDocSite(t, max)
			if tt.resume {
				first := cfg
				first.LimitURLs = 3
				res, err := crawl.Run(t.Context(), first)
				if err != nil {
					t.Fatal(err)
				}
				if res.End != crawl.EndLimit {
					t.Fatalf("first run: end %q, want %q", res.End, crawl.EndLimit)
				}
			}
			runFAST(t, cfg)
			checkMaxDoc(t, max, cfg.Dir)
			events, err := os.ReadFile(filepath.Join(cfg.Dir, crawl.EventsFile))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(events), `"crawler.url.scope_reason":"max-doc"`); n != 2*(11-max) {
				t.Errorf("%d url-discover-denied events with scope reason max-doc, want %d", n, 2*(11-max))
			}
		})
	}
}

// TestMaxDocShared: two processes of one crawl on a shared Redis frontier fetch at most
// SiteLimits.MaxURLs of each host between them.
func TestMaxDocShared(t *testing.T) {
	srv := redistest.Start(t)
	const max = 5
	_, cfg := maxDocSite(t, max)
	dirs := []string{t.TempDir(), t.TempDir()}
	var wg sync.WaitGroup
	errs := make([]error, len(dirs))
	ends := make([]string, len(dirs))
	for i, dir := range dirs {
		c := cfg
		c.Dir = dir
		c.Shared = redisfront.Shared{URL: srv.URL(0), CrawlID: "maxdoc", Process: fmt.Sprintf("p%d", i+1)}
		wg.Go(func() {
			res, err := crawl.Run(t.Context(), c)
			errs[i], ends[i] = err, res.End
		})
	}
	wg.Wait()
	for i := range dirs {
		if errs[i] != nil || ends[i] != crawl.EndFinished {
			t.Fatalf("process %d: end %q, err %v; want finished", i+1, ends[i], errs[i])
		}
	}
	checkMaxDoc(t, max, dirs...)
}

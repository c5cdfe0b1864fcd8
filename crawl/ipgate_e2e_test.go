package crawl_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/rewrite"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

// addrServer serves HTML pages by Host on one loopback address (127.0.0.N) and counts the
// requests it gets.
type addrServer struct {
	ip    string
	port  string
	pages map[string]string // host+path -> HTML
	mu    sync.Mutex        // guards got
	got   []string          // host+path of each request, in order
}

func startAddrServer(t *testing.T, ip string, pages map[string]string) *addrServer {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	s := &addrServer{ip: ip, pages: pages}
	_, s.port, _ = net.SplitHostPort(ln.Addr().String())
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := strings.Cut(r.Host, ":")
		s.mu.Lock()
		s.got = append(s.got, host+r.URL.Path)
		s.mu.Unlock()
		body, ok := s.pages[host+r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *addrServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

// to maps host (any port) to the server.
func (s *addrServer) to(host string) fetch.ConnectTo {
	return fetch.ConnectTo{Host: host, ToHost: s.ip, ToPort: s.port}
}

// TestIPScopeCrawl: ip rules decide the URLs found with their hosts' addresses (an accept
// rule's mask, a block rule), a URL whose host moved to an address outside the accepted mask
// after it was queued is refused when its connection is made (no byte reaches the server), and
// a mirror host's link is crawled as the preferred host's.
func TestIPScopeCrawl(t *testing.T) {
	www := startAddrServer(t, "127.0.0.1", map[string]string{
		"www.example.com/": `<a href="http://near.example.net/">near</a> <a href="http://far.example.org/">far</a>
			<a href="http://moving.example.net/">moving</a> <a href="http://Mirror.Example.com/m.html">mirror</a>
			<img src="http://cdn.example.org/i.png">`,
		"www.example.com/m.html":    `mirrored page`,
		"near.example.net/":         `near`,
		"moving.example.net/":       `moving`,
		"mirror.example.com/m.html": `never asked`,
	})
	blocked := startAddrServer(t, "127.0.0.2", map[string]string{"cdn.example.org/i.png": "png"})
	outside := startAddrServer(t, "127.0.0.3", map[string]string{"far.example.org/": "far", "moving.example.net/": "moved"})

	mirrors, err := rewrite.Mirrors([][]string{{"www.example.com", "mirror.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := func(moving *addrServer, limit int64) crawl.Config {
		cfg := crawl.DefaultConfig()
		cfg.Dir, cfg.Collection = dir, "ip"
		cfg.Scope = scope.Config{
			Seeds:  []scope.Seed{{URL: "http://www.example.com/"}},
			Accept: []scope.Rule{{IP: "127.0.0.0:255.255.255.254"}}, // 127.0.0.0 and 127.0.0.1
			Block:  []scope.Rule{{IP: "127.0.0.2/32"}},
		}
		cfg.URLs.Rewrite = mirrors
		cfg.Workers, cfg.HostDelay, cfg.IgnoreRobots, cfg.ProgressEvery = 1, 0, true, -1
		cfg.LimitURLs = limit
		cfg.Fetch = fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true, ConnectTo: []fetch.ConnectTo{
			www.to("www.example.com"), www.to("near.example.net"), www.to("mirror.example.com"),
			blocked.to("cdn.example.org"), outside.to("far.example.org"), moving.to("moving.example.net"),
		}}
		return cfg
	}
	// The first run fetches the seed only: moving.example.net is queued while it is at
	// 127.0.0.1. Then its address moves to 127.0.0.3, outside the accepted mask.
	if res, err := crawl.Run(t.Context(), config(www, 1)); err != nil || res.End != crawl.EndLimit {
		t.Fatalf("first run: %+v, %v", res, err)
	}
	if res, err := crawl.Run(t.Context(), config(outside, 0)); err != nil || res.End != crawl.EndFinished {
		t.Fatalf("second run: %+v, %v", res, err)
	}

	type row struct {
		status int
		notes  string
	}
	got := map[string]row{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
		got[l.URL] = row{l.Status, strings.Join(l.Annotations, ",")}
	}
	want := map[string]row{
		"http://www.example.com/":       {200, ""},
		"http://near.example.net/":      {200, ""},
		"http://www.example.com/m.html": {200, "rewritten-from:http://Mirror.Example.com/m.html"},
		// Inferred favicons, of the hosts fetched only.
		"http://www.example.com/favicon.ico":  {404, ""},
		"http://near.example.net/favicon.ico": {404, ""},
		"http://far.example.org/":             {status.OutOfScope, "scope:" + scope.ReasonAddress},
		"http://cdn.example.org/i.png":        {status.OutOfScope, "scope:block:ip:127.0.0.2/32"},
		"http://moving.example.net/":          {status.OutOfScope, "scope:" + scope.ReasonAddress + ",addr:127.0.0.3"},
	}
	for u, w := range want {
		g, ok := got[u]
		if !ok {
			t.Errorf("%s: no crawl.log line", u)
			continue
		}
		// The lines with responses carry other annotations too; compare the ones expected.
		if g.status != w.status || (w.notes != "" && !strings.Contains(g.notes, w.notes)) || (w.notes == "" && g.status < 0) {
			t.Errorf("%s: crawl.log %d %q, want %d %q", u, g.status, g.notes, w.status, w.notes)
		}
	}
	if len(got) != len(want) {
		t.Errorf("crawl.log has %d URLs, want %d: %v", len(got), len(want), got)
	}
	if r := blocked.requests(); len(r) > 0 {
		t.Errorf("the blocked address got requests: %q", r)
	}
	if r := outside.requests(); len(r) > 0 {
		t.Errorf("the address outside the accepted mask got requests: %q", r)
	}
	if r := www.requests(); slices.Contains(r, "mirror.example.com/m.html") {
		t.Errorf("the mirror host was asked: %q", r)
	}
	// The refusals are discover-denied events with their reasons.
	var denied []string
	for _, ev := range crawltest.ReadEvents(t, filepath.Join(dir, crawl.EventsFile)) {
		if ev["event.action"] == report.ActionURLDiscover && ev["event.type"] == "denied" {
			denied = append(denied, fmt.Sprint(ev["url.full"], " ", ev["crawler.url.scope_reason"]))
		}
	}
	sort.Strings(denied)
	wantDenied := []string{"http://cdn.example.org/i.png block:ip:127.0.0.2/32", "http://far.example.org/ address",
		"http://moving.example.net/ address"}
	if !slices.Equal(denied, wantDenied) {
		t.Errorf("discover-denied events %q, want %q", denied, wantDenied)
	}
}

// TestIPScopeProxyRefused: ip rules with a proxy are a configuration error (amber does not
// know the addresses the proxy connects to).
func TestIPScopeProxyRefused(t *testing.T) {
	www := startAddrServer(t, "127.0.0.1", map[string]string{"www.example.com/": "home"})
	cfg := crawl.DefaultConfig()
	cfg.Dir, cfg.Collection, cfg.ProgressEvery = t.TempDir(), "ip", -1
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://www.example.com/"}}, Block: []scope.Rule{{IP: "10.0.0.0/8"}}}
	proxy := &url.URL{Scheme: "http", Host: net.JoinHostPort(www.ip, www.port)}
	cfg.Fetch = fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true, Proxy: proxy}
	if _, err := crawl.Run(t.Context(), cfg); !errors.Is(err, crawl.ErrConfig) {
		t.Fatalf("Run with ip rules and a proxy = %v, want a config error", err)
	}
	if r := www.requests(); len(r) > 0 {
		t.Errorf("requests made: %q", r)
	}
}

// TestPerIPPoliteness: two host names on one address share its delay with Config.PerIP: as
// crawl.log's fetch times show, no request starts before the delay has passed since the end
// of the one before, whichever host each was for, and the requests that waited for their
// address say so (ip-wait:ADDRESS).
func TestPerIPPoliteness(t *testing.T) {
	pages := map[string]string{}
	for _, h := range []string{"a.example.com", "b.example.com"} {
		pages[h+"/"] = `<a href="/1">1</a> <a href="/2">2</a> <a href="/3">3</a>`
		for i := 1; i <= 3; i++ {
			pages[fmt.Sprintf("%s/%d", h, i)] = "page"
		}
	}
	srv := startAddrServer(t, "127.0.0.1", pages)
	const delay = 150 * time.Millisecond
	cfg := crawl.DefaultConfig()
	cfg.Dir, cfg.Collection, cfg.ProgressEvery = t.TempDir(), "perip", -1
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://a.example.com/"}, {URL: "http://b.example.com/"}}}
	cfg.Workers, cfg.HostDelay, cfg.HostConcurrency, cfg.IgnoreRobots = 4, delay, 1, true
	cfg.PerIP = true
	cfg.Fetch = fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true,
		ConnectTo: []fetch.ConnectTo{srv.to("a.example.com"), srv.to("b.example.com")}}
	if res, err := crawl.Run(t.Context(), cfg); err != nil || res.End != crawl.EndFinished {
		t.Fatalf("Run: %+v, %v", res, err)
	}
	var lines []report.Line
	hosts := map[string]bool{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile)) {
		if l.Status != 200 && !strings.HasSuffix(l.URL, "/favicon.ico") { // favicons: 404
			t.Errorf("%s: status %d", l.URL, l.Status)
			continue
		}
		lines = append(lines, l)
		hosts[strings.Split(l.URL, "/")[2]] = true
	}
	if len(lines) != 10 || len(hosts) != 2 {
		t.Fatalf("%d URLs of %d hosts fetched, want 10 (4 pages and a favicon each) of 2", len(lines), len(hosts))
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].FetchStart.Before(lines[j].FetchStart) })
	switches := 0
	for i := 1; i < len(lines); i++ {
		prev, cur := lines[i-1], lines[i]
		// crawl.log times are in milliseconds: allow for their rounding.
		if earliest := prev.FetchStart.Add(prev.FetchDur + delay - 2*time.Millisecond); cur.FetchStart.Before(earliest) {
			t.Errorf("%s started %v after %s started (which took %v), before the delay %v had passed",
				cur.URL, cur.FetchStart.Sub(prev.FetchStart), prev.URL, prev.FetchDur, delay)
		}
		if strings.Split(prev.URL, "/")[2] != strings.Split(cur.URL, "/")[2] {
			switches++
		}
	}
	if switches == 0 {
		t.Errorf("the hosts were not interleaved: the test shows nothing")
	}
	// Both seeds are claimed at once: one of them waits for the address (ip-wait in crawl.log).
	waited := 0
	for _, l := range lines {
		if slices.Contains(l.Annotations, "ip-wait:127.0.0.1") {
			waited++
		}
	}
	if waited == 0 {
		t.Errorf("no crawl.log line says its request waited for its address (ip-wait:127.0.0.1)")
	}
}

// TestPerIPDelayInForce: with Config.PerIP an address waits, after a request of a host, the
// delay in force for that host, not the crawl's delay as configured: here a.example.com's
// robots.txt says Crawl-delay: 1 while the crawl's delay is 0, and b.example.com/x, on the same
// address and found only on a.example.com's page, is requested no sooner than a second after
// that page's request ended (and says it waited, ip-wait:127.0.0.1).
func TestPerIPDelayInForce(t *testing.T) {
	srv := startAddrServer(t, "127.0.0.1", map[string]string{
		"a.example.com/robots.txt": "User-agent: *\nCrawl-delay: 1\n",
		"a.example.com/":           `<a href="http://b.example.com/x">x</a>`,
		"b.example.com/x":          "page",
	})
	cfg := crawl.DefaultConfig()
	cfg.Dir, cfg.Collection, cfg.ProgressEvery = t.TempDir(), "perip", -1
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://a.example.com/"}}, Accept: []scope.Rule{{Host: "b.example.com"}}}
	cfg.Workers, cfg.HostDelay, cfg.HostConcurrency, cfg.PerIP = 2, 0, 1, true
	cfg.Fetch = fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true,
		ConnectTo: []fetch.ConnectTo{srv.to("a.example.com"), srv.to("b.example.com")}}
	if res, err := crawl.Run(t.Context(), cfg); err != nil || res.End != crawl.EndFinished {
		t.Fatalf("Run: %+v, %v", res, err)
	}
	byURL := map[string]report.Line{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile)) {
		byURL[l.URL] = l
	}
	a, b := byURL["http://a.example.com/"], byURL["http://b.example.com/x"]
	if a.Status != 200 || b.Status != 200 {
		t.Fatalf("a.example.com/ %d, b.example.com/x %d; want both 200", a.Status, b.Status)
	}
	// crawl.log times are in milliseconds: allow for their rounding.
	if gap := b.FetchStart.Sub(a.FetchStart.Add(a.FetchDur)); gap < time.Second-2*time.Millisecond {
		t.Errorf("b.example.com/x was requested %v after a.example.com/ ended, before a.example.com's Crawl-delay of 1s", gap)
	}
	if !slices.Contains(b.Annotations, "ip-wait:127.0.0.1") {
		t.Errorf("b.example.com/x annotations %v, want ip-wait:127.0.0.1", b.Annotations)
	}
}

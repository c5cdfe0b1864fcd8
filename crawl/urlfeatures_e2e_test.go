package crawl_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/feed"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/listing"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/rewrite"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

// urlSite is the site of TestCrawlURLFeatures: every answer by host and path (query
// included); anything else is a 404.
type urlSite map[string]urlAnswer

type urlAnswer struct {
	status   int
	ctype    string
	location string
	body     string
}

func (s urlSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, _, _ := strings.Cut(r.Host, ":")
	a, ok := s[host+r.URL.RequestURI()]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if a.location != "" {
		w.Header().Set("Location", a.location)
	}
	if a.ctype != "" {
		w.Header().Set("Content-Type", a.ctype)
	}
	if a.status == 0 {
		a.status = 200
	}
	w.WriteHeader(a.status)
	w.Write([]byte(a.body))
}

func page(body string) urlAnswer {
	return urlAnswer{ctype: "text/html; charset=utf-8", body: "<!DOCTYPE html><html><head><title>t</title></head><body>" + body + "</body></html>"}
}

const (
	www = "http://www.example.com"
	cdn = "http://cdn.example.net"
	ext = "http://ext.example.org"
)

var featureSite = urlSite{
	"www.example.com/": {ctype: "text/html", body: `<!DOCTYPE html><html><head><title>home</title>
<link rel="alternate" type="application/atom+xml" href="/atom.xml"></head><body>
<a href="/list?b=2&amp;a=1">unsorted</a> <a href="/list?a=1&amp;b=2">sorted</a> <a href="/list?b=2;a=1">semicolons</a>
<a href="/old/page.html">moved</a> <a href="/ext/x.html">rewritten out of scope</a>
<a href="/fast-refresh.html">fast</a> <a href="/slow-refresh.html">slow</a>
<a href="/trap/a/b/a/b/a/b/x.html">trap</a> <a href="/twice/a/b/a/b/x.html">not a trap</a>
<a href="/redir/1">redirects</a>
</body></html>`},
	"www.example.com/list?a=1&b=2":  page("list"),
	"www.example.com/list?a=1;b=2":  page("list with semicolons"),
	"www.example.com/new/page.html": page(`new <img src="/old/img.png">`),
	"www.example.com/new/img.png":   {ctype: "image/png", body: "\x89PNG\r\n\x1a\n"},
	"www.example.com/fast-refresh.html": {ctype: "text/html",
		body: `<html><head><meta http-equiv="refresh" content="2; url=` + cdn + `/fast-target.html"></head></html>`},
	"www.example.com/slow-refresh.html": {ctype: "text/html",
		body: `<html><head><meta http-equiv="refresh" content="10; url=` + cdn + `/slow-target.html"></head></html>`},
	"cdn.example.net/fast-target.html":     page("fast target"),
	"www.example.com/twice/a/b/a/b/x.html": page("twice"),
	"www.example.com/redir/1":              {status: 302, location: "/redir/2"},
	"www.example.com/redir/2":              {status: 302, location: "/redir/3"},
	"www.example.com/redir/3":              {status: 302, location: "/redir/end.html"},
	"www.example.com/redir/end.html":       page("end"),
	"www.example.com/rss.xml": {ctype: "application/rss+xml", body: `<?xml version="1.0"?>
<rss version="2.0"><channel><title>news</title><link>http://www.example.com/</link>
<item><title>1</title><link>http://www.example.com/rss/1.html</link></item>
<item><title>2</title><guid>http://www.example.com/rss/2.html?z=1&amp;y=2</guid></item>
<item><title>3</title><link>` + ext + `/item.html</link></item>
<item><title>4</title><link>http://www.example.com/rss/4.html</link></item>
</channel></rss>`},
	"www.example.com/atom.xml": {ctype: "application/atom+xml", body: `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>blog</title><link href="http://www.example.com/"/>
<entry><title>a</title><link rel="alternate" href="/atom/a.html"/></entry>
</feed>`},
	"www.example.com/rss/1.html":         page(`<a href="/rss/deeper.html">deeper</a><img src="/rss/pic.png">`),
	"www.example.com/rss/pic.png":        {ctype: "image/png", body: "\x89PNG\r\n\x1a\nother"},
	"www.example.com/rss/2.html?y=2&z=1": page("two"),
	"ext.example.org/item.html":          page("an item elsewhere"),
	"www.example.com/atom/a.html":        page("a"),
}

// TestCrawlURLFeatures crawls a site with FAST's URL features on: sorted query parameters,
// rewrite rules (one into the site, one out of scope), a meta refresh below and one above
// the threshold, a redirect chain longer than allowed, a repeating path trap, a configured
// RSS feed (more items than allowed, one out of scope taken with ignore_rules, items' links
// not followed) and an Atom feed found by auto-discovery. It checks the exact outcome of
// every URL in crawl.log, the rewrittenFrom metadata, the feed-read events, and that every
// WARC validates.
func TestCrawlURLFeatures(t *testing.T) {
	site, err := testsite.StartHandler(featureSite)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	cfg := basicConfig(t, site, t.TempDir())
	cfg.HostConcurrency = 1
	repeats, refreshMax := 2, 3
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: www + "/"}}, MaxPathRepeats: &repeats}
	rules, err := rewrite.ParseAll([]string{`*/old/*/new/*`, `#^http://www\.example\.com/ext/(.*)$#` + ext + `/moved/$1#`})
	if err != nil {
		t.Fatal(err)
	}
	cfg.URLs = crawl.URLConfig{Rewrite: rules, SortQuery: true, RefreshRedirectMax: &refreshMax, MaxRedirects: 2}
	cfg.Feeds = listing.Feeds{URLs: []string{www + "/rss.xml"}, Limits: feed.Limits{MaxLinks: 3},
		SkipItemLinks: true, IgnoreRules: true, AutoDiscover: true}
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		t.Fatalf("end = %q", res.End)
	}

	type outcome struct {
		Status    int
		Hops, Via string
		Notes     []string
	}
	got := map[string]outcome{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile)) {
		if strings.HasSuffix(l.URL, "/robots.txt") || strings.HasSuffix(l.URL, "/favicon.ico") {
			continue
		}
		if _, dup := got[l.URL]; dup {
			t.Errorf("crawl.log has %s twice", l.URL)
		}
		o := outcome{Status: l.Status, Hops: l.Hops, Via: l.Via}
		for _, a := range l.Annotations {
			for _, p := range []string{"scope:", "feed:", "rewritten-from:"} {
				if strings.HasPrefix(a, p) {
					o.Notes = append(o.Notes, a)
				}
			}
		}
		got[l.URL] = o
	}
	home := www + "/"
	want := map[string]outcome{
		home:                  {Status: 200},
		www + "/list?a=1&b=2": {Status: 200, Hops: "L", Via: home},
		www + "/list?a=1;b=2": {Status: 200, Hops: "L", Via: home},
		www + "/new/page.html": {Status: 200, Hops: "L", Via: home,
			Notes: []string{"rewritten-from:" + www + "/old/page.html"}},
		www + "/new/img.png": {Status: 200, Hops: "LE", Via: www + "/new/page.html",
			Notes: []string{"rewritten-from:" + www + "/old/img.png"}},
		ext + "/moved/x.html": {Status: status.OutOfScope, Hops: "L", Via: home,
			Notes: []string{"scope:out-of-scope", "rewritten-from:" + www + "/ext/x.html"}},
		www + "/fast-refresh.html":       {Status: 200, Hops: "L", Via: home},
		cdn + "/fast-target.html":        {Status: 200, Hops: "LR", Via: www + "/fast-refresh.html"},
		www + "/slow-refresh.html":       {Status: 200, Hops: "L", Via: home},
		cdn + "/slow-target.html":        {Status: status.OutOfScope, Hops: "LL", Via: www + "/slow-refresh.html", Notes: []string{"scope:out-of-scope"}},
		www + "/trap/a/b/a/b/a/b/x.html": {Status: status.OutOfScope, Hops: "L", Via: home, Notes: []string{"scope:trap"}},
		www + "/twice/a/b/a/b/x.html":    {Status: 200, Hops: "L", Via: home},
		www + "/redir/1":                 {Status: 302, Hops: "L", Via: home},
		www + "/redir/2":                 {Status: 302, Hops: "LR", Via: www + "/redir/1"},
		www + "/redir/3":                 {Status: 302, Hops: "LRR", Via: www + "/redir/2"},
		www + "/redir/end.html":          {Status: status.TooManyHops, Hops: "LRRR", Via: www + "/redir/3", Notes: []string{"scope:max-redirects"}},
		www + "/rss.xml":                 {Status: 200, Hops: "L", Via: home, Notes: []string{"feed:rss:3", "feed:truncated:max-links"}},
		www + "/rss/1.html":              {Status: 200, Hops: "LL", Via: www + "/rss.xml"},
		www + "/rss/pic.png":             {Status: 200, Hops: "LLE", Via: www + "/rss/1.html"},
		www + "/rss/2.html?y=2&z=1":      {Status: 200, Hops: "LL", Via: www + "/rss.xml"},
		ext + "/item.html":               {Status: 200, Hops: "LL", Via: www + "/rss.xml"},
		www + "/atom.xml":                {Status: 200, Hops: "L", Via: home, Notes: []string{"feed:atom:1"}},
		www + "/atom/a.html":             {Status: 200, Hops: "LL", Via: www + "/atom.xml"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("crawl.log (-want +got):\n%s", diff)
	}
	// What was rewritten or sorted away was never requested; the item links of an item page
	// were not followed; the fourth item was beyond max_link_count.
	for _, hp := range []string{"www.example.com /old/page.html", "www.example.com /list?b=2&a=1", "www.example.com /rss/deeper.html",
		"www.example.com /rss/4.html", "ext.example.org /moved/x.html", "cdn.example.net /slow-target.html", "www.example.com /redir/end.html"} {
		host, p, _ := strings.Cut(hp, " ")
		if n := site.Hits(host, p); n != 0 {
			t.Errorf("%s%s requested %d times", host, p, n)
		}
	}

	// Every WARC validates; the captures are exactly the URLs fetched; the rewritten ones
	// carry rewrittenFrom in their metadata records.
	reports, err := warccheck.ValidateDir(filepath.Join(cfg.Dir, crawl.WARCDir))
	if err != nil {
		t.Fatal(err)
	}
	var captured []string
	from := map[string]string{}
	for _, r := range reports {
		if !r.OK() {
			t.Errorf("%s: %v %v", r.Path, r.Errors, r.Dangling)
		}
		for _, rec := range r.Records {
			switch {
			case rec.Type == "response" && !strings.HasSuffix(rec.TargetURI, "/robots.txt") && !strings.HasSuffix(rec.TargetURI, "/favicon.ico"):
				captured = append(captured, rec.TargetURI)
			case rec.Type == "metadata" && rec.Field("rewrittenFrom") != "":
				from[rec.TargetURI] = rec.Field("rewrittenFrom")
			}
		}
	}
	var wantCaptured []string
	for u, o := range want {
		if o.Status > 0 {
			wantCaptured = append(wantCaptured, u)
		}
	}
	slices.Sort(captured)
	slices.Sort(wantCaptured)
	if diff := cmp.Diff(wantCaptured, captured); diff != "" {
		t.Errorf("response records (-want +got):\n%s", diff)
	}
	wantFrom := map[string]string{www + "/new/page.html": www + "/old/page.html", www + "/new/img.png": www + "/old/img.png"}
	if diff := cmp.Diff(wantFrom, from); diff != "" {
		t.Errorf("rewrittenFrom in metadata records (-want +got):\n%s", diff)
	}

	var reads []string
	for _, e := range readEventLog(t, cfg.Dir) {
		if e["event.action"] != listing.ActionFeedRead {
			continue
		}
		reads = append(reads, strings.Join([]string{e["url.full"].(string), str(e["labels.feed_kind"]),
			str(e["labels.feed_links"]), str(e["labels.feed_truncated"])}, " "))
	}
	slices.Sort(reads)
	if diff := cmp.Diff([]string{www + "/atom.xml atom 1 ", www + "/rss.xml rss 3 max-links"}, reads); diff != "" {
		t.Errorf("feed-read events (-want +got):\n%s", diff)
	}

	txt, err := os.ReadFile(filepath.Join(cfg.Dir, crawl.ReportsDir, report.CrawlReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := "\nfeeds read: 2\nfeed item links: 4\n"; !strings.Contains(string(txt), want) {
		t.Errorf("crawl-report.txt lacks %q:\n%s", want, txt)
	}

	// The scope report counts the trap.
	b, err := os.ReadFile(filepath.Join(cfg.Dir, crawl.ReportsDir, report.ScopeReportJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var sr report.ScopeReport
	if err := json.Unmarshal(b, &sr); err != nil {
		t.Fatal(err)
	}
	if sr.Totals.Reasons[scope.ReasonTrap] != 1 || sr.Totals.Reasons["max-redirects"] != 1 {
		t.Errorf("scope report reasons %v, want trap 1 and max-redirects 1", sr.Totals.Reasons)
	}
}

func str(v any) string { s, _ := v.(string); return s }

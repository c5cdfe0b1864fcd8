package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/status"
)

func TestFromSitemap(t *testing.T) {
	tests := []struct {
		hops string
		want bool
	}{
		{"", false},
		{"M", false},     // a configured sitemap file
		{"PM", false},    // a sitemap file listed in robots.txt
		{"PRM", false},   // ... of a robots.txt that redirected
		{"LLPM", false},  // ... fetched for a page two links from the seed
		{"MM", true},     // an entry of a configured sitemap
		{"PMM", true},    // an entry (or a sitemap listed by an index) of a robots.txt sitemap
		{"PMMM", true},   // an entry of a sitemap listed by an index
		{"PMRM", true},   // an entry of a sitemap file that redirected
		{"PMRRM", true},  // ... twice
		{"PMML", false},  // a link of a page a sitemap listed
		{"PMMR", false},  // the redirect of an entry
		{"PMME", false},  // an embed of an entry
		{"RM", false},    // not after a sitemap file
		{"12+MM", true},  // abbreviated as crawl.log writes long paths
		{"12+LM", false}, // ...
	}
	for _, tt := range tests {
		if got := FromSitemap(tt.hops); got != tt.want {
			t.Errorf("FromSitemap(%q) = %v, want %v", tt.hops, got, tt.want)
		}
	}
}

func TestSitemapEvents(t *testing.T) {
	p := filepath.Join(t.TempDir(), "events.jsonl")
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	ev, err := OpenEvents(p, EventsConfig{CrawlID: "c", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	const sm = "http://a.example/sitemap.xml"
	entry := URLInfo{URL: "http://a.example/only.html", Hops: "PMM", Via: sm, Seed: "http://a.example/"}
	steps := []error{
		ev.URLDiscover(URLInfo{URL: sm, Hops: "PM", Via: "http://a.example/robots.txt"}),
		ev.URLsDiscovered([]URLInfo{entry, {URL: "http://a.example/link.html", Hops: "L"}}),
		ev.URLDiscoverDenied(URLInfo{URL: "http://b.example/x", Hops: "PMM", Via: sm}, DenyOutOfScope, "out-of-scope"),
		ev.SitemapRead(URLInfo{URL: sm, Hops: "PM"}, SitemapInfo{Kind: "urlset", URLs: 50000, Truncated: "max-urls"}),
		ev.SitemapRead(URLInfo{URL: "http://a.example/i2.xml", Hops: "PMM"}, SitemapInfo{Kind: "index", URLs: 2, Problem: "nested-index"}),
		ev.SitemapRead(URLInfo{URL: "http://a.example/s.html", Hops: "M"}, SitemapInfo{Problem: "not-a-sitemap"}),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if err := ev.Close(); err != nil {
		t.Fatal(err)
	}
	keys := []string{"event.action", "event.type", "event.outcome", "event.reason", "url.full", "crawler.url.source",
		"crawler.sitemap.kind", "crawler.sitemap.urls.count", "crawler.sitemap.truncated", "message"}
	var got []map[string]any
	for _, e := range readEvents(t, p) {
		m := map[string]any{}
		for _, k := range keys {
			if v, ok := e[k]; ok {
				m[k] = v
			}
		}
		got = append(got, m)
	}
	want := []map[string]any{
		{"event.action": "url-discover", "event.type": "allowed", "url.full": sm, "message": "Discovered " + sm},
		{"event.action": "url-discover", "event.type": "allowed", "url.full": entry.URL, "crawler.url.source": "sitemap", "message": "Discovered " + entry.URL},
		{"event.action": "url-discover", "event.type": "allowed", "url.full": "http://a.example/link.html", "message": "Discovered http://a.example/link.html"},
		{"event.action": "url-discover", "event.type": "denied", "url.full": "http://b.example/x", "crawler.url.source": "sitemap",
			"message": "Denied http://b.example/x: out_of_scope (out-of-scope)"},
		{"event.action": "sitemap-read", "event.type": "info", "event.outcome": "success", "url.full": sm, "crawler.sitemap.kind": "urlset",
			"crawler.sitemap.urls.count": float64(50000), "crawler.sitemap.truncated": "max-urls",
			"message": "Read sitemap " + sm + ": urlset of 50000 URLs, truncated (max-urls)"},
		{"event.action": "sitemap-read", "event.type": "info", "event.outcome": "success", "event.reason": "nested-index",
			"url.full": "http://a.example/i2.xml", "crawler.sitemap.kind": "index", "crawler.sitemap.urls.count": float64(2),
			"message": "Read sitemap http://a.example/i2.xml: index of 2 URLs, nested-index"},
		{"event.action": "sitemap-read", "event.type": "info", "event.outcome": "failure", "event.reason": "not-a-sitemap",
			"url.full": "http://a.example/s.html", "crawler.sitemap.urls.count": float64(0),
			"message": "Read sitemap http://a.example/s.html: not a sitemap"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestSitemapCounts: the URLs listed in sitemaps are counted per host and in all, whatever
// became of them, in crawl-report.txt and report.html; the sitemap files themselves are not.
func TestSitemapCounts(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	const (
		seed  = "http://a.example/"
		robot = "http://a.example/robots.txt"
		index = "http://a.example/sitemap_index.xml"
		set   = "http://a.example/pages.xml"
	)
	n := 0
	line := func(code int, u, hops, via string, ann ...string) Line {
		n++
		return Line{Time: t0.Add(time.Duration(n) * time.Second), Status: code, Size: 100, URL: u, Hops: hops, Via: via,
			MIME: "text/html", Seed: seed, Annotations: ann}
	}
	in := Input{
		Collection: "sm", Started: t0, Ended: t0.Add(time.Minute), EndReason: EndFinished,
		Seeds: []SeedInfo{{URL: seed, Type: "standard"}},
		Lines: []Line{
			line(200, robot, "P", seed),
			line(200, seed, "", ""),
			line(200, index, "PM", robot, "sitemap:index:1"),
			line(200, set, "PMM", index, "sitemap:urlset:4"),
			line(200, "http://a.example/only.html", "PMMM", set),
			line(200, "http://a.example/about.html", "L", seed), // listed too, but linked first
			line(404, "http://a.example/gone.html", "PMMM", set),
			line(status.OutOfScope, "http://b.example/x.html", "PMMM", set, "scope:out-of-scope"),
			line(200, "http://a.example/other.xml", "M", seed, "sitemap:text:1"),
			line(200, "http://a.example/t.html", "MM", "http://a.example/other.xml"),
		},
		URLs: []URLState{
			{URL: "http://a.example/later.html", State: status.Queued, Hops: "MM", Via: "http://a.example/other.xml", Seed: seed},
		},
	}
	dir := t.TempDir()
	if err := Write(dir, in); err != nil {
		t.Fatal(err)
	}
	crawlReport, err := os.ReadFile(filepath.Join(dir, CrawlReportFile))
	if err != nil {
		t.Fatal(err)
	}
	// Listed: pages.xml, only, gone, b.example/x, t, later; captured: pages.xml, only, gone, t.
	for _, want := range []string{"\nURIs from sitemaps: 6\nURIs from sitemaps captured: 4\n\n"} {
		if !strings.Contains(string(crawlReport), want) {
			t.Errorf("crawl-report.txt lacks %q:\n%s", want, crawlReport)
		}
	}
	html, err := os.ReadFile(filepath.Join(dir, HTMLReportFile))
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`<tr data-host="([^"]+)"><td>[^<]+</td><td class="n">(\d+)</td><td class="n">(\d+)</td></tr>`).
		FindAllStringSubmatch(string(html), -1)
	var got []string
	for _, r := range rows {
		got = append(got, r[1]+" "+r[2]+" "+r[3])
	}
	if diff := cmp.Diff([]string{"a.example 5 4", "b.example 1 0"}, got); diff != "" {
		t.Errorf("report.html sitemaps table (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		`<tfoot><tr><th>total</th><th class="n">6</th><th class="n">4</th></tr></tfoot>`,
		`<div class="figure" id="fig-from-sitemaps"><div class="v">6</div><div class="l">from sitemaps</div></div>`,
	} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

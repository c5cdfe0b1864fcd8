package crawl_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/status"
)

// TestCrawlSeedTypes crawls a multi-host site from seeds of all four Archive-It types, with a
// collection accept rule and a block rule, and checks exactly which URLs were captured and why
// the others were left out.
func TestCrawlSeedTypes(t *testing.T) {
	site, err := testsite.Start(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "scope"))
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	accept, _ := scope.ParseRule("surt:http://(org,example,accepted,")
	block, _ := scope.ParseRule("contains:/calendar/")
	cfg := basicConfig(t, nil, t.TempDir())
	cfg.Fetch.ConnectTo = connectTo(t, site)
	cfg.IgnoreRobots = true
	cfg.Scope = scope.Config{
		Accept: []scope.Rule{accept},
		Block:  []scope.Rule{block},
		Seeds: []scope.Seed{
			{URL: "http://std.example.com/", Type: scope.StandardSeed},
			{URL: "http://plus.example.com/", Type: scope.StandardPlus},
			{URL: "http://onepage.example.com/article.html", Type: scope.OnePage},
			{URL: "http://oneplus.example.com/story.html", Type: scope.OnePagePlus},
		},
	}
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		t.Fatalf("end = %q", res.End)
	}
	got := map[string]string{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile)) {
		switch {
		case l.Status > 0:
			got[l.URL] = "captured"
		case l.Status == status.OutOfScope || l.Status == status.TooManyHops:
			got[l.URL] = l.Annotations[0]
		default:
			got[l.URL] = "fetch failed"
		}
	}
	want := map[string]string{
		// standard: its site, both protocols; accept and block rules; other hosts out.
		"http://std.example.com/":     "captured",
		"http://std.example.com/sub/": "captured",
		// In scope and fetched: the test server speaks only plain HTTP, so the TLS handshake
		// fails, which shows that the https URL was let in and tried.
		"https://std.example.com/secure.html":       "fetch failed",
		"http://std.example.com/calendar/2026.html": "scope:block:contains:/calendar/",
		"http://other.example.net/x.html":           "scope:out-of-scope",
		"http://accepted.example.org/in.html":       "captured",
		"http://accepted.example.org/also.html":     "captured",
		// standard+: one hop off its scope, with its embeds, but not two.
		"http://plus.example.com/":        "captured",
		"http://off1.example.net/":        "captured",
		"http://off1.example.net/pic.png": "captured",
		"http://off2.example.net/":        "scope:out-of-scope",
		// one-page: the page and its embeds only, not even its own site.
		"http://onepage.example.com/article.html": "captured",
		"http://onepage.example.com/img.png":      "captured",
		"http://onepage.example.com/other.html":   "scope:out-of-scope",
		// one-page+: the page and the pages it links to, on any host, and no further.
		"http://oneplus.example.com/story.html":    "captured",
		"http://oneplus.example.com/more.html":     "captured",
		"http://ext.example.org/page.html":         "captured",
		"http://oneplus.example.com/evenmore.html": "scope:out-of-scope",
		"http://ext.example.org/deeper.html":       "scope:out-of-scope",
	}
	// Inferred favicons are captured (404s here) for every host with a captured page.
	for u := range got {
		if filepath.Base(u) == "favicon.ico" {
			delete(got, u)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

package crawl_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/scope"
)

// TestCrawlBrowser crawls a JavaScript site with the browser fetcher and checks that every
// resource the page needed is in the WARC, the script-made link was followed, the screenshot
// is stored, and the search document has the script-inserted text.
func TestCrawlBrowser(t *testing.T) {
	path := crawltest.Chromium(t)
	site := crawltest.JSSite(t)
	cfg := basicConfig(t, site, t.TempDir())
	cfg.Fetcher = crawl.FetcherBrowser
	cfg.Browser = browser.Config{Path: path, Screenshot: true, PageTimeout: 60 * time.Second, BehaviorTimeout: 10 * time.Second}
	block, _ := scope.ParseRule("contains:/blocked/")
	cfg.Scope = scope.Config{
		Flavour: scope.Brozzler,
		Block:   []scope.Rule{block},
		Seeds:   []scope.Seed{{URL: "http://www.example.com/", Type: scope.StandardSeed}},
	}
	cfg.Workers = 2
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		t.Fatalf("end %q", res.End)
	}
	reports, err := warccheck.ValidateDir(filepath.Join(cfg.Dir, crawl.WARCDir))
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]int{}
	screenshot := false
	for _, r := range reports {
		if !r.OK() {
			t.Errorf("%s: %v", r.Path, r.Errors)
		}
		for _, rec := range r.Records {
			switch rec.Type {
			case "response", "revisit":
				if _, seen := status[rec.TargetURI]; !seen {
					status[rec.TargetURI] = rec.HTTPStatus
				}
			case "resource":
				if rec.TargetURI == "urn:screenshot:http://www.example.com/" && rec.ContentType == "image/png" {
					screenshot = true
				}
			}
		}
	}
	base := "http://www.example.com"
	for p, want := range map[string]int{
		"/":                        200,
		"/style.css":               200,
		"/app.js":                  200,
		"/data.json":               200, // loaded with fetch()
		"/img/bg.png":              200, // CSS background
		"/fonts/test.woff2":        200, // web font
		"/img/observed.png":        200, // loads only when scrolled into view
		"/img/lazy.png":            200,
		"/frame.html":              200, // iframe
		"/img/frame.png":           200, // the iframe's image
		"/protected.png":           200, // needs the cookie the page set
		"/redirect.png":            302,
		"/img/target.png":          200,
		"/made-by-script.html?x=1": 404, // a link that exists only after the script ran, followed
		"/from-frame.html":         404, // a link inside the iframe, followed
	} {
		if got, ok := status[base+p]; !ok || got != want {
			t.Errorf("%s: status %d (captured %v), want %d", p, got, ok, want)
		}
	}
	if !screenshot {
		t.Error("no screenshot resource record")
	}
	if n := site.Hits("www.example.com", "/blocked/ad.png"); n != 0 {
		t.Errorf("blocked resource fetched %d times", n)
	}
	docs, _ := readDocuments(t, filepath.Join(cfg.Dir, crawl.DocumentsFile))
	found := false
	for _, d := range docs {
		if d.URL == base+"/" && strings.Contains(d.BodyContent, "Inserted by script") {
			found = true
		}
	}
	if !found {
		t.Errorf("no search document with the script-inserted text: %+v", docs)
	}
	if err := warccheck.CheckCDXJ(filepath.Join(cfg.Dir, crawl.CDXJFile), filepath.Join(cfg.Dir, crawl.WARCDir)); err != nil {
		t.Error(err)
	}
	for _, r := range reports {
		crawltest.WarcioCDXJ(t, r.Path)
	}
}

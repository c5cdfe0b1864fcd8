package qa_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/patch"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
)

// TestSphinxSearchPatch: a plain crawl of the search page of a Sphinx site (Python's
// documentation, Debian's python3-doc) as a One-Page seed captures the page and what its HTML
// names, not the JSON its script fetches, nor the style sheet imported by a style sheet its
// style sheet imports (an embed three hops off the page, out of scope by the transclusion
// rule). qa names both missing: the JSON as an XHR of the search page that the crawl never
// saw, the style sheet with the style sheet that asked and the crawl's reason. A patch crawl
// captures them, and a second qa finds the search page replays with nothing missing.
func TestSphinxSearchPatch(t *testing.T) {
	crawltest.Chromium(t)
	docs := crawltest.SphinxDocs(t)
	const (
		page     = "http://www.example.com/search.html"
		glossary = "http://www.example.com/_static/glossary.json"
		classic  = "http://www.example.com/_static/classic.css"
	)
	start := func() *testsite.Server {
		site, err := testsite.StartHandler(http.FileServer(http.Dir(docs)))
		if err != nil {
			t.Fatal(err)
		}
		return site
	}
	dir := t.TempDir()
	site := start()
	cfg := crawlConfig(t, site, dir, false)
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: page, Type: scope.OnePage}}}
	cfg.EffectiveConfig = []byte("collection: qa-test\nseeds:\n  - url: " + page + "\n    type: one-page\n")
	if err := runCrawl(cfg); err != nil {
		t.Fatal(err)
	}
	site.Close() // qa replays offline

	runQA(t, dir, nil)
	before := readQA(t, dir)
	if len(before) != 1 {
		t.Fatalf("qa checked %d pages, want the search page alone", len(before))
	}
	want := []report.QAMissing{
		{URL: classic, Type: "Stylesheet", Via: "http://www.example.com/_static/default.css", Crawl: "-5000 scope:out-of-scope"},
		{URL: glossary, Type: "XHR"},
	}
	if d := cmp.Diff(want, before[page].Missing); d != "" {
		t.Fatalf("missing before the patch (-want +got):\n%s", d)
	}

	urls, ok, err := patch.Read(filepath.Join(dir, "reports", report.QAFile))
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	site = start()
	defer site.Close()
	pcfg := crawlConfig(t, site, dir, false)
	pcfg.Scope, pcfg.EffectiveConfig = cfg.Scope, cfg.EffectiveConfig
	pcfg.Patch = urls
	res, err := crawl.Run(t.Context(), pcfg)
	if err != nil || res.End != crawl.EndFinished {
		t.Fatalf("patch crawl: %v %q", err, res.End)
	}
	if d := cmp.Diff(&patch.Result{Asked: 2, Queued: 2}, res.Patch); d != "" {
		t.Errorf("patch (-want +got):\n%s", d)
	}
	site.Close()

	sum := runQA(t, dir, nil)
	after := readQA(t, dir)[page]
	if len(after.Missing) != 0 || sum.Missing != 0 || after.Status != http.StatusOK {
		t.Errorf("after the patch: status %d, missing %+v", after.Status, after.Missing)
	}
	if sum.Previous == nil || sum.Previous.Missing != 2 {
		t.Errorf("the previous run's figures: %+v", sum.Previous)
	}
}

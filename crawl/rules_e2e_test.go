package crawl_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/config/elastic"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/scope"
)

// elasticRulesets reads the extraction rulesets of testdata/sites/elastic/crawler.yml, an
// Elastic Open Crawler file taken as it is, and compiles them.
func elasticRulesets(t *testing.T) *extract.Rulesets {
	t.Helper()
	e, err := elastic.LoadFile(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "elastic", "crawler.yml"))
	if err != nil {
		t.Fatal(err)
	}
	cv, err := e.Convert()
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := cv.File.Documents.Rulesets()
	if err != nil {
		t.Fatal(err)
	}
	return compiled
}

// TestCrawlExtractionRules crawls the docs origin of the Elastic test site with the
// extraction rulesets of its crawler.yml and checks the custom fields of each document in
// documents.jsonl: the ruleset's url filter (begins /docs/) picks the pages, a CSS selector
// gives an array, a URL regex a string, a set rule its value.
func TestCrawlExtractionRules(t *testing.T) {
	site, err := testsite.Start(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "elastic"))
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	cfg := basicConfig(t, site, t.TempDir())
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://docs.example.com/", Type: scope.StandardSeed}}}
	cfg.Documents.Rulesets = elasticRulesets(t)
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndFinished {
		t.Fatalf("end %q, err %v", res.End, err)
	}
	docs, _ := readDocuments(t, filepath.Join(cfg.Dir, crawl.DocumentsFile))
	got := map[string][]extract.Field{}
	for _, d := range docs {
		got[d.URL] = d.Fields
	}
	want := map[string][]extract.Field{
		"http://docs.example.com/": nil,
		"http://docs.example.com/docs/v2/intro.html": {
			{Name: "authors", Values: []string{"Ada Lovelace", "Charles Babbage"}},
			{Name: "doc_version", Values: []string{"2"}},
			{Name: "has_product", Values: []string{"yes"}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("custom fields by document URL (-want +got):\n%s", diff)
	}
}

// TestCrawlExtractionRulesBrowser checks that with the browser fetcher the rules read the
// rendered DOM: the element they select is made by the page's script.
func TestCrawlExtractionRulesBrowser(t *testing.T) {
	path := crawltest.Chromium(t)
	site := crawltest.JSSite(t)
	cfg := basicConfig(t, site, t.TempDir())
	cfg.Fetcher = crawl.FetcherBrowser
	cfg.Browser = browser.Config{Path: path, PageTimeout: 60 * time.Second, BehaviorTimeout: 10 * time.Second}
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://www.example.com/", Type: scope.OnePage}}}
	rs, err := extract.CompileRulesets([]extract.Ruleset{{
		Domain:     "http://www.example.com",
		URLFilters: []extract.URLFilter{{Type: "ends", Pattern: "/"}},
		Rules: []extract.ExtractionRule{
			{Action: extract.ActionExtract, FieldName: "script_link", Selector: "#dyn a"},
			{Action: extract.ActionSet, FieldName: "rendered", Selector: "#dyn > a[href]", Value: "yes"},
			{Action: extract.ActionExtract, FieldName: "heading", Selector: "h1.bg", JoinAs: extract.JoinString},
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Documents.Rulesets = rs
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndFinished {
		t.Fatalf("end %q, err %v", res.End, err)
	}
	docs, _ := readDocuments(t, filepath.Join(cfg.Dir, crawl.DocumentsFile))
	var got []extract.Field
	found := false
	for _, d := range docs {
		if d.URL == "http://www.example.com/" {
			got, found = d.Fields, true
		}
	}
	if !found {
		t.Fatalf("no document of the seed: %+v", docs)
	}
	want := []extract.Field{
		{Name: "heading", Values: []string{"Static heading"}},
		{Name: "rendered", Values: []string{"yes"}},
		{Name: "script_link", Values: []string{"script link"}, Array: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("custom fields of the rendered page (-want +got):\n%s", diff)
	}
}

package crawl_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/replay"
	"github.com/amber-crawler/amber/scope"
)

// sphinxSearchJS waits until the replayed search page has settled: loaded, and its script's
// request of the glossary JSON answered (found or not); then returns what the page loaded
// (resourcesJS) and whether the script had the glossary (its result template is in the page).
const sphinxSearchJS = `(() => {
  if (document.readyState !== 'complete') throw new Error('page not loaded');
  const resources = ` + resourcesJS + `(window);
  if (!resources.some(r => r.url.endsWith('/_static/glossary.json'))) throw new Error('glossary.json not asked for yet');
  return JSON.stringify({glossary: !!document.getElementById('glossary-result'), resources});
})()`

// TestReplaySphinxSearch: the search page of a Sphinx site (Python's documentation) names its
// scripts and search index in its HTML, and its script fetches _static/glossary.json. A plain
// crawl of the page and its embeds captures all but that JSON: amber replay, the page loaded
// in Chromium through it, misses exactly the JSON, with the search page as the page that
// asked. A browser crawl captures it, and the same replay misses nothing.
func TestReplaySphinxSearch(t *testing.T) {
	chromium := crawltest.Chromium(t)
	docs := crawltest.SphinxDocs(t)
	const page = "http://www.example.com/search.html"
	for _, tc := range []struct {
		fetcher     string
		wantMissing []string
	}{
		{crawl.FetcherHTTP, []string{"http://www.example.com/_static/glossary.json"}},
		{crawl.FetcherBrowser, nil},
	} {
		t.Run(tc.fetcher, func(t *testing.T) {
			site, err := testsite.StartHandler(http.FileServer(http.Dir(docs)))
			if err != nil {
				t.Fatal(err)
			}
			cfg := basicConfig(t, site, t.TempDir())
			cfg.Fetcher = tc.fetcher
			cfg.Browser = browser.Config{Path: chromium, PageTimeout: 30 * time.Second, BehaviorTimeout: 5 * time.Second}
			cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: page, Type: scope.OnePagePlus}}}
			res, err := crawl.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.End != crawl.EndFinished {
				t.Fatalf("end %q", res.End)
			}
			site.Close() // offline from here

			srv, err := replay.Open(t.Context(), replay.Config{Sources: []string{cfg.Dir}, StateDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			proxy := httptest.NewServer(srv)
			defer proxy.Close()
			out, err := browser.Evaluate(t.Context(), browser.RenderConfig{
				Path: chromium, URL: page, Proxy: proxy.URL, TrustSPKI: []string{srv.CASPKI()},
				Expression: sphinxSearchJS, Timeout: 40 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Glossary  bool
				Resources []replayedResource
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			var missing []string
			for _, m := range srv.Misses() {
				if !strings.HasPrefix(m.URL, "http://www.example.com/") {
					continue // the browser's own requests
				}
				missing = append(missing, m.URL)
				if m.Referer != page {
					t.Errorf("miss %s asked by %q, want the search page", m.URL, m.Referer)
				}
			}
			slices.Sort(missing)
			if !slices.Equal(missing, tc.wantMissing) {
				t.Errorf("amber replay missed %v, want %v (resources %v)", missing, tc.wantMissing, got.Resources)
			}
			if nf := notFound(got.Resources); !slices.Equal(nf, tc.wantMissing) {
				t.Errorf("replay answered 404 for %v, want %v", nf, tc.wantMissing)
			}
			if got.Glossary != (len(tc.wantMissing) == 0) {
				t.Errorf("the search page's script had the glossary: %v, want %v", got.Glossary, len(tc.wantMissing) == 0)
			}
		})
	}
}

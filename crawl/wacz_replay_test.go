package crawl_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/wacz"
)

// waczReplayIndex embeds the WACZ /archive.wacz (or the source given as ?source=, such as a
// multi-WACZ collection's JSON) in ReplayWeb.page at the URL given as ?url=, the way
// replayIndex embeds a WARC (the worker registered and active before the player is
// added; see replayIndex).
const waczReplayIndex = `<!doctype html>
<html><head><meta charset="utf-8"><title>replay</title><script src="/ui.js"></script></head>
<body style="margin:0">
<script>
(async () => {
  const reg = await navigator.serviceWorker.register('/replay/sw.js?serveIndex=1', {scope: '/replay/'});
  const sw = reg.installing || reg.waiting || reg.active;
  while (sw.state !== 'activated') {
    await new Promise(resolve => sw.addEventListener('statechange', resolve, {once: true}));
  }
  const player = document.createElement('replay-web-page');
  player.setAttribute('style', 'height:100vh');
  const params = new URLSearchParams(location.search);
  player.setAttribute('source', params.get('source') || '/archive.wacz');
  player.setAttribute('url', params.get('url'));
  player.setAttribute('replayBase', '/replay/');
  player.setAttribute('embed', 'replayonly');
  document.body.appendChild(player);
})();
</script>
</body></html>
`

// serveWACZReplay serves ReplayWeb.page and the package at path as /archive.wacz (with range
// requests, as ReplayWeb.page reads a WACZ) from 127.0.0.1, and returns the player page's URL.
func serveWACZReplay(t *testing.T, rwp, path string) string {
	t.Helper()
	mux := playerMux(rwp, waczReplayIndex)
	mux.HandleFunc("GET /archive.wacz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wacz+zip")
		http.ServeFile(w, r, path)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// TestReplayWACZ crawls the basic site from two seeds, one of them a redirect, stops the site,
// packages the crawl as WACZ files (the plain index and one page list, and the compressed index
// read through its IDX with the pages that are not seeds in extraPages.jsonl) and opens each
// file itself, not the WARCs, in ReplayWeb.page 2.5.3 offline in headless Chromium: every
// seed page shows, with its images.
func TestReplayWACZ(t *testing.T) {
	path := crawltest.Chromium(t)
	rwp := replayWebPage(t)
	site := startBasic(t)
	cfg := basicConfig(t, site, t.TempDir())
	cfg.Scope = scope.Config{Seeds: []scope.Seed{
		{URL: "http://museum.example.com/", Type: scope.StandardSeed},
		{URL: "http://www.example.com/dir/", Type: scope.StandardSeed},
	}}
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		t.Fatalf("end %q", res.End)
	}
	// Offline from here: whatever the replay shows comes from the package.
	site.Close()

	for _, form := range []struct {
		name string
		opts wacz.Options
	}{
		{"index.cdxj", wacz.Options{}},
		{"index.idx,extraPages.jsonl", wacz.Options{IndexThreshold: -1, IndexBlockLines: 4, PagesLimit: -1}},
	} {
		out := filepath.Join(t.TempDir(), "basic.wacz")
		pkg, err := wacz.Write(t.Context(), cfg.Dir, out, form.opts)
		if err != nil {
			t.Fatal(err)
		}
		if pkg.CompressedIndex != (form.opts.IndexThreshold < 0) {
			t.Fatalf("%s: compressed index %v", form.name, pkg.CompressedIndex)
		}
		player := serveWACZReplay(t, rwp, out)
		for _, tc := range []struct {
			seed       string
			wantFrame  string   // the replayed document's URL, after redirects
			wantText   []string // in its text
			wantLoaded []string // its images that load
		}{
			{
				seed:       "http://museum.example.com/",
				wantFrame:  "http://www.example.com/",
				wantText:   []string{"Welcome to the Example Museum"},
				wantLoaded: []string{"/img/logo.png", "/pic.png"},
			},
			{
				seed:      "http://www.example.com/dir/",
				wantFrame: "http://www.example.com/dir/",
				wantText:  []string{"Collection", "Objects", "Item 1"},
			},
		} {
			t.Run(form.name+"/"+tc.seed, func(t *testing.T) {
				out, err := browser.Evaluate(t.Context(), browser.RenderConfig{
					Path: path, URL: player + "?url=" + url.QueryEscape(tc.seed), Expression: replayedJS, Timeout: 40 * time.Second,
				})
				if err != nil {
					t.Fatal(err)
				}
				var got replayed
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				t.Logf("%+v", got)
				if !strings.HasSuffix(got.Frame, "mp_/"+tc.wantFrame) {
					t.Errorf("replayed frame %q, want the replay of %s", got.Frame, tc.wantFrame)
				}
				for _, s := range tc.wantText {
					if !strings.Contains(got.Text, s) {
						t.Errorf("replayed text has no %q: %q", s, got.Text)
					}
				}
				if !slices.Equal(got.Loaded, tc.wantLoaded) || len(got.Broken) > 0 {
					t.Errorf("images loaded %v, broken %v; want %v loaded, none broken", got.Loaded, got.Broken, tc.wantLoaded)
				}
			})
		}
	}
}

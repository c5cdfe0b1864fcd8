package crawl_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/replay"
	"github.com/amber-crawler/amber/scope"
)

// replayWebPage returns the directory holding ReplayWeb.page's ui.js and sw.js (unpacked by
// `make tools`), or skips the test without them (fails in CI).
func replayWebPage(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(crawltest.ModuleRoot(t), "node_modules", ".replaywebpage")
	for _, f := range []string{"ui.js", "sw.js"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("ReplayWeb.page is required in CI (make tools): %v", err)
			}
			t.Skipf("no ReplayWeb.page (make tools): %v", err)
		}
	}
	return dir
}

// replayIndex embeds the archive in ReplayWeb.page. The player registers its service worker
// at replayBase + "sw.js?serveIndex=1" with replayBase as scope (so it is served at
// /replay/sw.js and needs no Service-Worker-Allowed header), and opens its iframe as soon as
// the worker is registered, not active: a frame that loads before the worker controls it is
// retried only three times, 100ms apart, which a 1.2 MB worker on a busy machine does not
// always make. So the page registers the same worker itself and adds the player once the
// worker is active. embed="replayonly" leaves out the URL bar. The player is as high as the
// viewport: an IntersectionObserver in the replayed page measures against the top-level
// viewport, so the bottom of a taller player would stay out of the observer's view even
// when scrolled into the player's.
const replayIndex = `<!doctype html>
<html><head><meta charset="utf-8"><title>replay</title><script src="/ui.js"></script></head>
<body style="margin:0">
<script>
(async () => {
  const reg = await navigator.serviceWorker.register('/replay/sw.js?serveIndex=1', {scope: '/replay/'});
  const sw = reg.installing || reg.waiting || reg.active;
  while (sw.state !== 'activated') {
    await new Promise(resolve => sw.addEventListener('statechange', resolve, {once: true}));
  }
  document.body.insertAdjacentHTML('beforeend', '<replay-web-page style="height:100vh" ' +
    'source="/archive.warc.gz" url="http://www.example.com/" replayBase="/replay/" embed="replayonly">' +
    '</replay-web-page>');
})();
</script>
</body></html>
`

// serveReplay serves ReplayWeb.page and the WARC files of warcDir, concatenated into
// /archive.warc.gz (gzip members one after the other are one valid gzip stream), from
// 127.0.0.1, and returns the page's URL.
func serveReplay(t *testing.T, rwp, warcDir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(warcDir, "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no WARC files in %s: %v", warcDir, err)
	}
	slices.Sort(files)
	var archive []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		archive = append(archive, b...)
	}
	mux := playerMux(rwp, replayIndex)
	mux.HandleFunc("GET /archive.warc.gz", func(w http.ResponseWriter, r *http.Request) {
		// ServeContent answers the range requests ReplayWeb.page makes.
		w.Header().Set("Content-Type", "application/warc")
		http.ServeContent(w, r, "archive.warc.gz", time.Time{}, bytes.NewReader(archive))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// playerMux serves ReplayWeb.page (rwp holds its ui.js and sw.js) with index as its page;
// the caller adds the archive's routes.
func playerMux(rwp, index string) *http.ServeMux {
	js := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			http.ServeFile(w, r, filepath.Join(rwp, name))
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(index))
	})
	mux.HandleFunc("GET /ui.js", js("ui.js"))
	// The worker's own index page of the player loads ./ui.js.
	mux.HandleFunc("GET /replay/ui.js", js("ui.js"))
	mux.HandleFunc("GET /replay/sw.js", js("sw.js"))
	return mux
}

// replayedJS reaches the replayed page inside ReplayWeb.page 2.5:
//
//	replay-web-page ⟶ shadowRoot iframe (/replay/?source=…) ⟶ its document's replay-app-main
//	⟶ shadowRoot wr-item ⟶ shadowRoot wr-coll-replay ⟶ shadowRoot iframe
//	(/replay/w/COLL/mp_/http://www.example.com/) ⟶ the replayed document
//
// (all same-origin, so contentDocument is readable). It scrolls the replayed page to the
// bottom, as the browser fetcher's behaviour did, so that the images that load on view get
// their chance, and returns a replayed as JSON once every image has finished (loaded or
// broken), the observer has set every data-src, and the result is the same on two polls in a
// row (the script's fetch() has settled). Until then it throws why it is not done, which
// browser.Evaluate reports if the time runs out.
const replayedJS = `(() => {
  const q = (root, sel) => root ? root.querySelector(sel) : null;
  const host = q(document, 'replay-web-page');
  const appFrame = q(host && host.shadowRoot, 'iframe');
  const app = q(appFrame && appFrame.contentDocument, 'replay-app-main');
  const item = q(app && app.shadowRoot, 'wr-item');
  const player = q(item && item.shadowRoot, 'wr-coll-replay');
  const frame = q(player && player.shadowRoot, 'iframe');
  const doc = frame && frame.contentDocument;
  if (!doc || doc.readyState !== 'complete' || !doc.body || !doc.location.href.includes('mp_/')) {
    throw new Error('replayed page not loaded: ' + (doc ? doc.location.href + ' ' + doc.readyState : 'no replay frame'));
  }
  frame.contentWindow.scrollTo(0, doc.documentElement.scrollHeight);
  const imgs = Array.from(doc.images);
  const pending = imgs.filter(i => !i.complete || !i.src).map(i => i.src || i.dataset.src);
  if (pending.length) throw new Error('images pending: ' + pending.join(' '));
  const path = i => new URL(i.src).pathname;
  const got = JSON.stringify({
    frame: doc.location.href,
    text: doc.body.innerText,
    loaded: imgs.filter(i => i.naturalWidth > 0).map(path).sort(),
    broken: imgs.filter(i => i.naturalWidth === 0).map(path).sort(),
    resources: ` + resourcesJS + `(frame.contentWindow),
  });
  const settled = window.__amberLast === got;
  window.__amberLast = got;
  if (!settled) throw new Error('not settled: ' + got);
  return got;
})()`

// resourcesJS lists the resources a replayed document loaded, from its resource timing: each
// one's archived URL and the status the replay answered with (0 where the browser does not
// say). In ReplayWeb.page the names are replay URLs (/replay/w/COLL/TIMESTAMPmod_/URL): the
// archived URL is what follows the modifier. It is evaluated on the replayed document's window
// (w), once replayedJS (or directJS) has found the page settled.
const resourcesJS = `((w) => w.performance.getEntriesByType('resource').map(e => {
  const m = e.name.match(/\/[0-9]*[a-z]{2}_\/(https?:\/\/.*)$/);
  return {url: m ? m[1] : e.name, status: e.responseStatus || 0};
}))`

// directJS is replayedJS for a page loaded directly, through amber replay as the browser's
// proxy: the same settling, the same figures, and the page's resources (resourcesJS).
const directJS = `(() => {
  const doc = document;
  if (doc.readyState !== 'complete' || !doc.body) throw new Error('page not loaded: ' + doc.readyState);
  window.scrollTo(0, doc.documentElement.scrollHeight);
  const imgs = Array.from(doc.images);
  const pending = imgs.filter(i => !i.complete || !i.src).map(i => i.src || i.dataset.src);
  if (pending.length) throw new Error('images pending: ' + pending.join(' '));
  const path = i => new URL(i.src).pathname;
  const got = JSON.stringify({
    frame: doc.location.href,
    text: doc.body.innerText,
    loaded: imgs.filter(i => i.naturalWidth > 0).map(path).sort(),
    broken: imgs.filter(i => i.naturalWidth === 0).map(path).sort(),
    resources: ` + resourcesJS + `(window),
  });
  const settled = window.__amberLast === got;
  window.__amberLast = got;
  if (!settled) throw new Error('not settled: ' + got);
  return got;
})()`

// replayedResource is one entry of resourcesJS.
type replayedResource struct {
	URL    string
	Status int
}

// replayed is what replayedJS returns.
type replayed struct {
	Frame  string   // the replay iframe's URL
	Text   string   // the replayed body's rendered text
	Loaded []string // paths of the images that loaded (naturalWidth > 0)
	Broken []string // paths of the images that did not
	// Resources are what the replayed document loaded, by archived URL, with the replay's
	// status.
	Resources []replayedResource
}

// notFound is the sorted archived URLs of rs that the replay answered with 404.
func notFound(rs []replayedResource) []string {
	var out []string
	for _, r := range rs {
		if r.Status == http.StatusNotFound && !slices.Contains(out, r.URL) {
			out = append(out, r.URL)
		}
	}
	slices.Sort(out)
	return out
}

// TestReplay crawls the JavaScript site with each fetcher, stops the site, and replays the
// crawl's WARC offline in ReplayWeb.page in headless Chromium.
func TestReplay(t *testing.T) {
	path := crawltest.Chromium(t)
	rwp := replayWebPage(t)
	for _, tc := range []struct {
		fetcher    string
		wantText   []string // in the replayed page's text
		noText     []string // not in it
		wantLoaded []string // images that load on replay
		wantBroken []string // images that do not
		// want404 are the resources both replays answer with 404: those the archive lacks
		// (wantMissing, which amber replay records as misses) and the site's own 404s, archived.
		want404, wantMissing []string
	}{
		{
			// The browser ran the page's script, let it fetch() data.json, scrolled (so the
			// IntersectionObserver set the observed image's src and the loading=lazy image
			// loaded) and sent the cookie the page set: all of it is in the archive.
			fetcher:    crawl.FetcherBrowser,
			wantText:   []string{"Inserted by script", "JSON item one"},
			wantLoaded: []string{"/img/lazy.png", "/img/observed.png", "/protected.png", "/redirect.png"},
			// The site has no ad image: its 404 is archived, and replayed.
			want404: []string{"http://www.example.com/blocked/ad.png"},
		},
		{
			// The plain fetcher captured what the HTML names, app.js included, so at replay
			// the script runs again in the replayed page: its text shows. Everything the
			// script asks for at run time was never captured: its fetch() of /data.json
			// gets ReplayWeb.page's 404 (no JSON items), and /img/observed.png, named only
			// by data-src until the observer sets the src, is broken. /img/lazy.png is a
			// plain src in the HTML, so it was captured and loads. /protected.png was
			// captured as the 403 the site gives a request without the page's cookie.
			fetcher:     crawl.FetcherHTTP,
			wantText:    []string{"Inserted by script"},
			noText:      []string{"JSON item one"},
			wantLoaded:  []string{"/img/lazy.png", "/redirect.png"},
			wantBroken:  []string{"/img/observed.png", "/protected.png"},
			want404:     []string{"http://www.example.com/blocked/ad.png", "http://www.example.com/data.json", "http://www.example.com/img/observed.png"},
			wantMissing: []string{"http://www.example.com/data.json", "http://www.example.com/img/observed.png"},
		},
	} {
		t.Run(tc.fetcher, func(t *testing.T) {
			site := crawltest.JSSite(t)
			cfg := basicConfig(t, site, t.TempDir())
			cfg.Fetcher = tc.fetcher
			cfg.Browser = browser.Config{Path: path, PageTimeout: 30 * time.Second, BehaviorTimeout: 10 * time.Second}
			cfg.Scope = scope.Config{
				Flavour: scope.Brozzler,
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
			// Offline from here: whatever the replay shows comes from the WARC.
			site.Close()

			page := serveReplay(t, rwp, filepath.Join(cfg.Dir, crawl.WARCDir))
			out, err := browser.Evaluate(t.Context(), browser.RenderConfig{
				Path: path, URL: page, Expression: replayedJS, Timeout: 40 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			var got replayed
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			t.Logf("%+v", got)
			if !strings.Contains(got.Frame, "/mp_/http://www.example.com/") {
				t.Errorf("replayed frame %q, want the replay of http://www.example.com/", got.Frame)
			}
			for _, s := range tc.wantText {
				if !strings.Contains(got.Text, s) {
					t.Errorf("replayed text has no %q: %q", s, got.Text)
				}
			}
			for _, s := range tc.noText {
				if strings.Contains(got.Text, s) {
					t.Errorf("replayed text has %q: %q", s, got.Text)
				}
			}
			for _, p := range tc.wantLoaded {
				if !slices.Contains(got.Loaded, p) {
					t.Errorf("%s did not load on replay (loaded %v, broken %v)", p, got.Loaded, got.Broken)
				}
			}
			for _, p := range tc.wantBroken {
				if !slices.Contains(got.Broken, p) {
					t.Errorf("%s is not missing on replay (loaded %v, broken %v)", p, got.Loaded, got.Broken)
				}
			}
			if nf := notFound(got.Resources); !slices.Equal(nf, tc.want404) {
				t.Errorf("ReplayWeb.page answered 404 for %v, want %v (resources %v)", nf, tc.want404, got.Resources)
			}
			agrees(t, path, cfg.Dir, got, tc.want404, tc.wantMissing)
		})
	}
}

// agrees replays the crawl in dir with amber replay, loading its page in Chromium through the
// replay as proxy, and checks that it agrees with ReplayWeb.page (rwp): the same images load
// and break, the same resources answer 404 (want404), and amber replay records as misses
// exactly those the archive lacks (wantMissing; the others are archived 404s).
func agrees(t *testing.T, chromium, dir string, rwp replayed, want404, wantMissing []string) {
	t.Helper()
	srv, err := replay.Open(t.Context(), replay.Config{Sources: []string{dir}, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	proxy := httptest.NewServer(srv)
	defer proxy.Close()
	out, err := browser.Evaluate(t.Context(), browser.RenderConfig{
		Path: chromium, URL: "http://www.example.com/", Proxy: proxy.URL, TrustSPKI: []string{srv.CASPKI()},
		Expression: directJS, Timeout: 40 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	var got replayed
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("amber replay: %+v", got)
	if !slices.Equal(got.Loaded, rwp.Loaded) || !slices.Equal(got.Broken, rwp.Broken) {
		t.Errorf("amber replay loaded %v and broke %v; ReplayWeb.page loaded %v and broke %v", got.Loaded, got.Broken, rwp.Loaded, rwp.Broken)
	}
	if nf := notFound(got.Resources); !slices.Equal(nf, want404) {
		t.Errorf("amber replay answered 404 for %v, want %v (resources %v)", nf, want404, got.Resources)
	}
	var misses []string
	for _, m := range srv.Misses() {
		if strings.HasPrefix(m.URL, "http://www.example.com/") && !slices.Contains(misses, m.URL) {
			misses = append(misses, m.URL)
		}
	}
	slices.Sort(misses)
	if !slices.Equal(misses, wantMissing) {
		t.Errorf("amber replay recorded misses %v, want %v", misses, wantMissing)
	}
}

package crawl_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/replay"
	"github.com/amber-crawler/amber/scope"
)

// The pages of testdata/sites/shared and what each loads: every page the shared files (a
// style sheet with a web font and a background image, a script that fetches a JSON file, a
// logo) and /live/stamp.js, which changes on every request; pages a to d an image of their
// own. Pages a and b show the style sheet's background image as an <img> too, so they ask for
// it twice.
var (
	sharedPages  = []string{"/", "/a.html", "/b.html", "/c.html", "/d.html"}
	sharedFiles  = []string{"/static/site.css", "/static/app.js", "/static/data.json", "/static/logo.png", "/static/photo.png", "/static/text.woff2"}
	sharedStamp  = "/live/stamp.js"
	sharedOwnImg = map[string]string{"/a.html": "/img/a.png", "/b.html": "/img/b.png", "/c.html": "/img/c.png", "/d.html": "/img/d.png"}
)

// sharedRoot is the directory testdata/sites/shared serves www.example.com from.
func sharedRoot(t *testing.T) string {
	return filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "shared", "www.example.com")
}

// sharedSite serves testdata/sites/shared and /live/stamp.js, a script whose body is new on
// every request.
func sharedSite(t *testing.T) *testsite.Server {
	t.Helper()
	var stamps atomic.Int64
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(sharedRoot(t))))
	mux.HandleFunc(sharedStamp, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprintf(w, "window.stamp = %d;\n", stamps.Add(1))
	})
	site, err := testsite.StartHandler(mux)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	return site
}

// TestBrowserArchivesSharedResourcesOnce crawls five pages that share their style sheet,
// scripts, font and images with the browser fetcher, in two runs (the first stops at a URL
// limit after the home page, the second resumes): every page loaded every resource from the
// server, yet the WARC files hold one capture per resource URL and payload (as our reader and
// warcio.js count them), a resource whose payload changed is captured each time, crawl.log
// logs what was archived, each page's metadata record lists every resource it loaded, and
// every page replays through amber replay with all its resources.
func TestBrowserArchivesSharedResourcesOnce(t *testing.T) {
	path := crawltest.Chromium(t)
	site := sharedSite(t)
	cfg := basicConfig(t, site, t.TempDir())
	cfg.Fetcher = crawl.FetcherBrowser
	cfg.Browser = browser.Config{Path: path, Tabs: 2, PageTimeout: 60 * time.Second, BehaviorTimeout: 10 * time.Second}
	cfg.Scope = scope.Config{Flavour: scope.Brozzler, Seeds: []scope.Seed{{URL: "http://www.example.com/", Type: scope.StandardSeed}}}
	cfg.Workers = 2
	cfg.LimitURLs = 1
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndLimit {
		t.Fatalf("first run = %+v, %v; want it to stop at the limit", res, err)
	}
	cfg.LimitURLs = 0
	if res, err = crawl.Run(t.Context(), cfg); err != nil || res.End != crawl.EndFinished {
		t.Fatalf("second run = %+v, %v", res, err)
	}

	// Every page got every resource from the server: what the crawl holds is not served
	// from the archive.
	for _, p := range []string{"/static/site.css", "/static/app.js", sharedStamp} {
		if n := site.Hits("www.example.com", p); n != len(sharedPages) {
			t.Errorf("%s requested %d times, want %d (once per page)", p, n, len(sharedPages))
		}
	}

	base := "http://www.example.com"
	warcDir := filepath.Join(cfg.Dir, crawl.WARCDir)
	reports, err := warccheck.ValidateDir(warcDir)
	if err != nil {
		t.Fatal(err)
	}
	captures := map[string]int{}   // TYPE URL -> records
	perPayload := map[string]int{} // URL DIGEST -> response and revisit records
	metadata := map[string][]warccheck.Field{}
	var files []string
	for _, r := range reports {
		files = append(files, r.Path)
		if !r.OK() {
			t.Errorf("%s: %v", r.Path, r.Errors)
		}
		for _, rec := range r.Records {
			switch rec.Type {
			case "response", "revisit":
				perPayload[rec.TargetURI+" "+rec.PayloadDigest]++
				captures["capture "+rec.TargetURI]++
			case "request":
				captures["request "+rec.TargetURI]++
			case "metadata":
				if strings.HasPrefix(rec.TargetURI, "http") {
					captures["metadata "+rec.TargetURI]++
					metadata[rec.TargetURI] = rec.Fields
				}
			}
		}
	}
	for k, n := range perPayload {
		// Each run fetches and archives robots.txt again: it is not a resource of a page.
		if n != 1 && !strings.HasPrefix(k, base+"/robots.txt ") {
			t.Errorf("%s: %d response and revisit records, want 1 per URL and payload", k, n)
		}
	}
	want := map[string]int{}
	for _, p := range sharedFiles {
		want[base+p] = 1
	}
	for _, p := range sharedPages {
		want[base+p] = 1
	}
	for _, p := range sharedOwnImg {
		want[base+p] = 1
	}
	want[base+sharedStamp] = len(sharedPages) // a new payload on every page
	for u, n := range want {
		for _, typ := range []string{"capture", "request", "metadata"} {
			if got := captures[typ+" "+u]; got != n {
				t.Errorf("%s: %d %s records, want %d", u, got, typ, n)
			}
		}
	}

	// warcio.js reads the same: one index line per URL and payload.
	var indexed []string
	for _, f := range files {
		for _, l := range crawltest.WarcioCDXJ(t, f) {
			var line struct{ URL, Digest string }
			if _, js, ok := strings.Cut(l, " {"); !ok || json.Unmarshal([]byte("{"+js), &line) != nil {
				t.Fatalf("warcio cdx-index line %q", l)
			} else if strings.HasPrefix(line.URL, "http") {
				indexed = append(indexed, line.URL+" sha1:"+line.Digest)
			}
		}
	}
	var ours []string
	for k, n := range perPayload {
		for range n {
			ours = append(ours, k)
		}
	}
	slices.Sort(indexed)
	slices.Sort(ours)
	if diff := cmp.Diff(ours, indexed); diff != "" {
		t.Errorf("warcio.js index (-our reader +warcio.js):\n%s", diff)
	}

	// crawl.log has a line for what was archived, not for what the crawl held already.
	lines := map[string]int{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile)) {
		lines[l.URL]++
	}
	for u, n := range want {
		if lines[u] != n {
			t.Errorf("%s: %d crawl.log lines, want %d", u, lines[u], n)
		}
	}

	// Each page's metadata record lists every resource it loaded, once.
	for _, p := range sharedPages {
		wantRes := []string{base + sharedStamp}
		for _, f := range sharedFiles {
			wantRes = append(wantRes, base+f)
		}
		if img := sharedOwnImg[p]; img != "" {
			wantRes = append(wantRes, base+img)
		}
		var got []string
		for _, f := range metadata[base+p] {
			if u, hop, ok := strings.Cut(f.Value, " "); strings.EqualFold(f.Name, "outlink") && ok && strings.HasPrefix(hop, "E ") &&
				u != base+"/favicon.ico" { // the full browser asks for it, the headless shell does not
				got = append(got, u)
			}
		}
		slices.Sort(wantRes)
		slices.Sort(got)
		if diff := cmp.Diff(wantRes, got); diff != "" {
			t.Errorf("%s: embeds its metadata record lists (-want +got):\n%s", p, diff)
		}
	}

	replaySharedSite(t, path, cfg.Dir)
}

// replaySharedSite replays the crawl in dir through amber replay: every resource of the site
// answers 200 with the bytes the site serves, and every page, loaded in Chromium through the
// proxy, shows all its resources with nothing of the site missing from the archive.
func replaySharedSite(t *testing.T, chromium, dir string) {
	t.Helper()
	s, err := replay.Open(t.Context(), replay.Config{Sources: []string{dir}, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(s)
	t.Cleanup(func() {
		proxy.Close()
		s.Close()
	})
	pu, err := url.Parse(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	static := slices.Clone(sharedFiles)
	for _, p := range sharedOwnImg {
		static = append(static, p)
	}
	for _, p := range static {
		resp, err := client.Get("http://www.example.com" + p)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(sharedRoot(t), filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || string(body) != string(want) {
			t.Errorf("replay of %s: %d, %d bytes; want 200 with the %d bytes served", p, resp.StatusCode, len(body), len(want))
		}
	}

	// The home page loads the others in frames of its own origin, so one browser shows them
	// all: each frame's title says its script fetched the JSON, its images decoded, its
	// heading has the style sheet's colour and each resource answered 200.
	expr := `(async () => {
  const pages = ['/a.html', '/b.html', '/c.html', '/d.html'];
  if (!window.framesAdded) {
    window.framesAdded = true;
    for (const p of pages) {
      const f = document.createElement('iframe');
      f.src = p;
      f.style.height = '600px';
      document.body.appendChild(f);
    }
  }
  const report = w => {
    const d = w.document;
    if (d.readyState !== 'complete' || !/ready|failed/.test(d.title)) return null;
    const res = {};
    for (const e of w.performance.getEntriesByType('resource')) res[new URL(e.name).pathname] = e.responseStatus;
    return {title: d.title, color: w.getComputedStyle(d.querySelector('h1')).color,
      images: [...d.images].map(i => i.naturalWidth), resources: res};
  };
  const out = {'/': report(window)};
  for (const f of document.querySelectorAll('iframe')) out[new URL(f.src).pathname] = report(f.contentWindow);
  return Object.values(out).every(v => v) && Object.keys(out).length === 5 ? JSON.stringify(out) : '';
})()`
	got, err := browser.Evaluate(t.Context(), browser.RenderConfig{Path: chromium, URL: "http://www.example.com/", Expression: expr,
		Proxy: proxy.URL, TrustSPKI: []string{s.CASPKI()}, Timeout: 60 * time.Second})
	if err != nil {
		t.Fatalf("%v\nmisses: %+v", err, s.Misses())
	}
	var pages map[string]struct {
		Title, Color string
		Images       []int
		Resources    map[string]int
	}
	if err := json.Unmarshal([]byte(got), &pages); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	for _, p := range sharedPages {
		pg, ok := pages[p]
		if !ok {
			t.Errorf("%s: not replayed", p)
			continue
		}
		if !strings.HasSuffix(pg.Title, " ready") || pg.Color != "rgb(10, 20, 30)" {
			t.Errorf("%s: title %q, heading colour %q; want its script's fetch and its style sheet", p, pg.Title, pg.Color)
		}
		for i, w := range pg.Images {
			if w == 0 {
				t.Errorf("%s: image %d did not load (widths %v)", p, i, pg.Images)
			}
		}
		wantRes := append(slices.Clone(sharedFiles), sharedStamp)
		if img := sharedOwnImg[p]; img != "" {
			wantRes = append(wantRes, img)
		}
		for _, r := range wantRes {
			if pg.Resources[r] != 200 {
				t.Errorf("%s: %s answered %d in the replayed page, want 200 (resources: %v)", p, r, pg.Resources[r], pg.Resources)
			}
		}
	}
	for _, m := range s.Misses() {
		if strings.Contains(m.URL, "www.example.com/") && !strings.HasSuffix(m.URL, "/favicon.ico") {
			t.Errorf("missing from the archive: %+v", m)
		}
	}
}

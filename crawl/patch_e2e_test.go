package crawl_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/patch"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/warc"
)

// patchSite serves a page whose script asks for what a plain crawl does not see (data.json,
// and /go, which redirects to landing.png), and pages and style sheets no page links to.
func patchSite(t *testing.T) *testsite.Server {
	t.Helper()
	pngBody := []byte("\x89PNG\r\n\x1a\nnot really")
	mux := http.NewServeMux()
	serve := func(path, ctype, body string) {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.Write([]byte(body))
		})
	}
	serve("/{$}", "text/html", `<!DOCTYPE html><title>patch</title><img src="/static.png"><script src="/app.js"></script>`)
	serve("/app.js", "text/javascript", `fetch('/data.json'); new Image().src = '/go';`)
	serve("/data.json", "application/json", `{"items": []}`)
	serve("/static.png", "image/png", string(pngBody))
	serve("/landing.png", "image/png", string(pngBody)+" landing")
	serve("/extra.css", "text/css", `@import url(/font.css); body { background: url(/bg2.png) }`)
	serve("/font.css", "text/css", `h1 { background: url(/bg3.png) }`)
	serve("/bg2.png", "image/png", string(pngBody)+" bg2")
	serve("/bg3.png", "image/png", string(pngBody)+" bg3")
	mux.HandleFunc("GET /go", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/landing.png", http.StatusFound)
	})
	site, err := testsite.StartHandler(mux)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	return site
}

// TestPatch: a patch crawl of a finished plain crawl captures the URLs it is given, what they
// redirect to and what they embed (as far as the scope lets embeds of embeds in), as embeds of their pages, into new WARC files of the crawl, indexed; it leaves
// out what the scope refuses and what the crawl already has; the crawl is finished again. An
// interrupted patch crawl resumes as one.
func TestPatch(t *testing.T) {
	site := patchSite(t)
	cfg := basicConfig(t, site, t.TempDir())
	cfg.IgnoreRobots = true
	cfg.Workers = 2
	block, _ := scope.ParseRule("contains:/ads/")
	cfg.Scope.Block = []scope.Rule{block}
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndFinished {
		t.Fatalf("crawl: %v %q", err, res.End)
	}
	before := warcNames(t, cfg.Dir)

	const base, page = "http://www.example.com", "http://www.example.com/"
	pc := cfg
	pc.Patch = []patch.URL{
		{URL: base + "/data.json", Page: page, Type: "XHR"},
		{URL: base + "/go", Page: page, Type: "Image"},
		{URL: base + "/data.json", Page: page, Type: "XHR"}, // twice: once
		{URL: base + "/extra.css", Page: page, Type: "Stylesheet"},
		{URL: base + "/ads/x.png", Page: page, Type: "Image"},              // blocked by a rule
		{URL: base + "/static.png", Page: page, Type: "Image"},             // captured already
		{URL: base + "/more.json", Page: base + "/nope.html", Type: "XHR"}, // a page the crawl does not know
	}
	// Stopped at once: the patch is queued, nothing crawled.
	pc.TimeLimit = 1
	res, err = crawl.Run(t.Context(), pc)
	if err != nil || res.End != crawl.EndLimit {
		t.Fatalf("patch: %v %q", err, res.End)
	}
	want := &patch.Result{Asked: 6, Queued: 3, Known: 1, OutOfScope: 1, NoPage: 1}
	if d := cmp.Diff(want, res.Patch); d != "" {
		t.Errorf("patch result (-want +got):\n%s", d)
	}
	if fin, err := crawl.Finished(cfg.Dir); err != nil || fin {
		t.Errorf("Finished = %v, %v while the patch is queued", fin, err)
	}
	// Resumed as any crawl is: the rest of the patch, as a patch.
	res, err = crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndFinished || res.Patch != nil {
		t.Fatalf("resumed patch: %v %q %+v", err, res.End, res.Patch)
	}
	if fin, err := crawl.Finished(cfg.Dir); err != nil || !fin {
		t.Errorf("Finished = %v, %v after the patch", fin, err)
	}

	type entry struct {
		Status     int
		Hops, Via  string
		Annotation string
	}
	got := map[string]entry{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile)) {
		if _, seen := got[l.URL]; !seen || l.Status != -5000 {
			got[l.URL] = entry{l.Status, l.Hops, l.Via, strings.Join(l.Annotations, ",")}
		}
	}
	for u, w := range map[string]entry{
		base + "/data.json":   {200, "E", page, ""},
		base + "/go":          {302, "E", page, ""},
		base + "/landing.png": {200, "ER", base + "/go", ""},
		base + "/extra.css":   {200, "E", page, ""},
		base + "/ads/x.png":   {-5000, "E", page, "scope:block:contains:/ads/"},
		base + "/font.css":    {200, "EE", base + "/extra.css", ""},
		base + "/bg2.png":     {200, "EE", base + "/extra.css", ""},
		base + "/bg3.png":     {200, "EEE", base + "/font.css", ""}, // in by the seed's prefix
	} {
		if g := got[u]; g != w {
			t.Errorf("%s: crawl.log %+v, want %+v", u, g, w)
		}
	}
	for _, u := range []string{base + "/more.json"} {
		if _, ok := got[u]; ok {
			t.Errorf("%s in crawl.log: its page is not in the crawl", u)
		}
	}
	if n := site.Hits("www.example.com", "/static.png"); n != 1 {
		t.Errorf("static.png fetched %d times, want once (by the crawl)", n)
	}

	// New WARC files, indexed, valid.
	after := warcNames(t, cfg.Dir)
	if len(after) <= len(before) {
		t.Errorf("WARC files %v after the patch, %v before", after, before)
	}
	index, err := os.ReadFile(filepath.Join(cfg.Dir, crawl.CDXJFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{base + "/data.json", base + "/landing.png", base + "/extra.css"} {
		if !strings.Contains(string(index), warc.CDXKey(u)+" ") {
			t.Errorf("%s not in the sorted index", u)
		}
	}
	if err := warccheck.CheckCDXJ(filepath.Join(cfg.Dir, crawl.CDXJFile), filepath.Join(cfg.Dir, crawl.WARCDir)); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, crawl.ReportsDir, report.HTMLReportFile)); err != nil {
		t.Error(err)
	}

	// Patched again: everything is known now.
	pc.TimeLimit = 0
	res, err = crawl.Run(t.Context(), pc)
	if err != nil || res.End != crawl.EndFinished {
		t.Fatalf("second patch: %v %q", err, res.End)
	}
	want = &patch.Result{Asked: 6, Queued: 0, Known: 4, OutOfScope: 1, NoPage: 1}
	if d := cmp.Diff(want, res.Patch); d != "" {
		t.Errorf("second patch result (-want +got):\n%s", d)
	}
}

// TestPatchQueued: a crawl that stopped with URLs queued is not patched: the patch would crawl
// them too.
func TestPatchQueued(t *testing.T) {
	site := patchSite(t)
	cfg := basicConfig(t, site, t.TempDir())
	cfg.IgnoreRobots = true
	cfg.LimitURLs = 1
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndLimit || res.Stats.Queued == 0 {
		t.Fatalf("crawl: %v %q %+v", err, res.End, res.Stats)
	}
	cfg.Patch = []patch.URL{{URL: "http://www.example.com/data.json", Page: "http://www.example.com/"}}
	if _, err := crawl.Run(t.Context(), cfg); !errors.Is(err, crawl.ErrPatchQueued) {
		t.Errorf("patch of a crawl with URLs queued: %v, want ErrPatchQueued", err)
	}
}

// warcNames lists the WARC files of a crawl directory.
func warcNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(dir, crawl.WARCDir))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

package crawl_test

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
)

// recrawlSite is www.example.com as a static web server would serve it (ETag and
// Last-Modified, 304 to a matching conditional request), in two versions: the first crawl sees
// the first, the second crawl the second (or the first again). Between them some resources
// change, most do not.
type recrawlSite struct {
	srv *httptest.Server
	gen atomic.Int32 // 1 or 2

	mu          sync.Mutex          // guards conditional
	conditional map[string][]string // paths asked for conditionally: "If-None-Match: v" ...
}

// recrawlResource is one resource of the site.
type recrawlResource struct {
	ctype     string
	body      [2][]byte // per version; nil: not there (404)
	etag      bool      // served with an ETag (of its body)
	lastMod   bool      // served with a Last-Modified (of its version)
	ignoreIMS bool      // always answers 200, conditional or not
}

// solidPNG is a 96×96 PNG of one colour with noise (about 27 KB, as a photo's share of a
// page's bytes is large), the same for the same colour.
func solidPNG(c color.RGBA) []byte {
	const side = 96
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	rnd := rand.New(rand.NewPCG(uint64(c.R)<<16|uint64(c.G)<<8|uint64(c.B), 1))
	for i := range side * side {
		n := uint8(rnd.IntN(64))
		img.Set(i%side, i/side, color.RGBA{c.R/2 + n, c.G/2 + n, c.B/2 + n, 255})
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

func both(b []byte) [2][]byte { return [2][]byte{b, b} }

// recrawlResources is the site. The seed links to pages (one unchanged, one changed, which
// links to a page new in the second version) and to a text file, and embeds style sheets (one
// unchanged, one changed, each with a background image: the changed one's is another, new in
// the second version) and images: with an ETag, with a Last-Modified only, changed, with no
// validator, and one whose server ignores conditional requests.
var recrawlResources = map[string]recrawlResource{
	"/": {ctype: "text/html", etag: true, lastMod: true, body: both([]byte(`<!doctype html>
<html><head><title>Recrawl</title><link rel="stylesheet" href="/style.css"><link rel="stylesheet" href="/theme.css"></head>
<body><h1>Recrawl test</h1>
<img src="/img/logo.png"> <img src="/img/lastmod.png"> <img src="/img/changed.png"> <img src="/img/plain.png"> <img src="/img/ignores.png">
<div class="bg">background</div> <div class="theme">theme</div>
<p><a href="/same.html">same</a> <a href="/changed.html">changed</a> <a href="/notes.txt">notes</a></p>
</body></html>
`))},
	"/style.css":       {ctype: "text/css", etag: true, body: both([]byte(".bg { background: url(/img/bg.png); width: 8px; height: 8px }\n"))},
	"/same.html":       {ctype: "text/html", etag: true, body: both([]byte("<html><title>Same</title><p>This page does not change.</p></html>\n"))},
	"/changed.html":    {ctype: "text/html", etag: true, body: [2][]byte{[]byte("<html><title>Changed</title><p>version one</p></html>\n"), []byte("<html><title>Changed</title><p>version two</p><a href=\"/new.html\">new</a></html>\n")}},
	"/new.html":        {ctype: "text/html", etag: true, body: [2][]byte{nil, []byte("<html><title>New</title><p>new in version two</p></html>\n")}},
	"/notes.txt":       {ctype: "text/plain", etag: true, body: both([]byte("Notes that never change.\n"))},
	"/img/logo.png":    {ctype: "image/png", etag: true, lastMod: true, body: both(solidPNG(color.RGBA{200, 0, 0, 255}))},
	"/img/lastmod.png": {ctype: "image/png", lastMod: true, body: both(solidPNG(color.RGBA{0, 200, 0, 255}))},
	"/img/changed.png": {ctype: "image/png", etag: true, body: [2][]byte{solidPNG(color.RGBA{0, 0, 200, 255}), solidPNG(color.RGBA{0, 0, 100, 255})}},
	"/img/plain.png":   {ctype: "image/png", body: both(solidPNG(color.RGBA{200, 200, 0, 255}))},
	"/img/ignores.png": {ctype: "image/png", etag: true, ignoreIMS: true, body: both(solidPNG(color.RGBA{0, 200, 200, 255}))},
	"/img/bg.png":      {ctype: "image/png", etag: true, body: both(solidPNG(color.RGBA{200, 0, 200, 255}))},
	"/robots.txt":      {ctype: "text/plain", etag: true, lastMod: true, body: both([]byte("User-agent: *\nDisallow: /private/\n"))},

	"/theme.css": {ctype: "text/css", etag: true, body: [2][]byte{
		[]byte(".theme { background: url(/img/theme-one.png); width: 8px; height: 8px }\n"),
		[]byte(".theme { background: url(/img/theme-two.png); width: 8px; height: 8px }\n")}},
	"/img/theme-one.png": {ctype: "image/png", etag: true, body: both(solidPNG(color.RGBA{100, 100, 0, 255}))},
	"/img/theme-two.png": {ctype: "image/png", etag: true, body: [2][]byte{nil, solidPNG(color.RGBA{0, 100, 100, 255})}},
}

func startRecrawlSite(t *testing.T) *recrawlSite {
	t.Helper()
	s := &recrawlSite{conditional: map[string][]string{}}
	s.gen.Store(1)
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *recrawlSite) serve(w http.ResponseWriter, r *http.Request) {
	gen := s.gen.Load()
	res, ok := recrawlResources[r.URL.Path]
	var body []byte
	if ok {
		body = res.body[gen-1]
	}
	if body == nil {
		http.NotFound(w, r)
		return
	}
	inm, ims := r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since")
	if inm != "" || ims != "" {
		s.mu.Lock()
		for _, h := range []string{"If-None-Match: " + inm, "If-Modified-Since: " + ims} {
			if !strings.HasSuffix(h, ": ") {
				s.conditional[r.URL.Path] = append(s.conditional[r.URL.Path], h)
			}
		}
		s.mu.Unlock()
	}
	sum := sha1.Sum(body)
	etag := `"` + hex.EncodeToString(sum[:6]) + `"`
	lastMod := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if !bytes.Equal(res.body[0], res.body[1]) && gen == 2 {
		lastMod = lastMod.AddDate(0, 1, 0)
	}
	if res.etag {
		w.Header().Set("ETag", etag)
	}
	if res.lastMod {
		w.Header().Set("Last-Modified", lastMod.Format(http.TimeFormat))
	}
	notModified := false
	switch {
	case res.ignoreIMS:
	case inm != "":
		notModified = res.etag && inm == etag
	case ims != "":
		t, err := http.ParseTime(ims)
		notModified = res.lastMod && err == nil && !lastMod.After(t)
	}
	if notModified {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", res.ctype)
	w.Write(body)
}

// askedConditionally returns what the site was asked for conditionally (only ever by a
// second crawl).
func (s *recrawlSite) askedConditionally() map[string][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]string{}
	for p, hs := range s.conditional {
		out[p] = slices.Clone(hs)
		slices.Sort(out[p])
	}
	return out
}

func recrawlConfig(t *testing.T, site *recrawlSite, fetcher, dir string) crawl.Config {
	t.Helper()
	cfg := crawl.DefaultConfig()
	cfg.Dir = dir
	cfg.Collection = "recrawl"
	cfg.Fetcher = fetcher
	flavour := scope.Standard
	if fetcher == crawl.FetcherBrowser {
		flavour = scope.Brozzler
		cfg.Browser = browser.Config{Path: crawltest.Chromium(t), Screenshot: true, PageTimeout: 30 * time.Second, BehaviorTimeout: 5 * time.Second}
	}
	cfg.Scope = scope.Config{Flavour: flavour, Seeds: []scope.Seed{{URL: "http://www.example.com/", Type: scope.StandardSeed}}}
	cfg.Workers = 2
	cfg.HostDelay = 0
	cfg.HostConcurrency = 2
	cfg.RetryDelay = 10 * time.Millisecond
	cfg.ProgressEvery = -1
	ct, err := fetch.ParseConnectTo("www.example.com:80:" + strings.TrimPrefix(site.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Fetch = fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true, ConnectTo: []fetch.ConnectTo{ct}}
	return cfg
}

// captureKind is what a crawl wrote for a URL: "response", "revisit identical-payload-digest"
// or "revisit server-not-modified".
type captureKind string

// crawlRecords reads every WARC file of a crawl directory (validated by gowarc) and returns the
// response and revisit records by URL (screenshots left out). A URL may have several: a
// resumed run fetches robots.txt again, Chromium asks for /favicon.ico besides the crawl.
func crawlRecords(t *testing.T, dir string) map[string][]warccheck.Record {
	t.Helper()
	reps, err := warccheck.ValidateDir(filepath.Join(dir, crawl.WARCDir))
	if err != nil {
		t.Fatal(err)
	}
	if err := warccheck.CheckCDXJ(filepath.Join(dir, crawl.CDXJFile), filepath.Join(dir, crawl.WARCDir)); err != nil {
		t.Error(err)
	}
	out := map[string][]warccheck.Record{}
	for _, rep := range reps {
		for _, r := range rep.Records {
			if (r.Type == "response" || r.Type == "revisit") && strings.HasPrefix(r.TargetURI, "http") {
				out[r.TargetURI] = append(out[r.TargetURI], r)
			}
		}
	}
	return out
}

// kindsOf is what was written for each path: the kind of its records, "+"-joined when they
// differ.
func kindsOf(recs map[string][]warccheck.Record) map[string]captureKind {
	out := map[string]captureKind{}
	for u, rs := range recs {
		var kinds []string
		for _, r := range rs {
			if k := string(kindOf(r)); !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
		slices.Sort(kinds)
		out[strings.TrimPrefix(u, "http://www.example.com")] = captureKind(strings.Join(kinds, "+"))
	}
	return out
}

func kindOf(r warccheck.Record) captureKind {
	if r.Type != "revisit" {
		return captureKind(r.Type)
	}
	return captureKind("revisit " + r.Profile[strings.LastIndex(r.Profile, "/")+1:])
}

const (
	response    captureKind = "response"
	identical   captureKind = "revisit identical-payload-digest"
	notModified captureKind = "revisit server-not-modified"
)

// TestRecrawl crawls the site, changes it, and crawls it again with --recrawl-of the first
// crawl, with each fetcher, in one run and in two (stopped by a URL limit, then resumed; with
// the first crawl moved away in between, its index was read once, by the first run, but its
// captures cannot be read back). The second crawl has a revisit for exactly what did not
// change (identical-payload-digest, or server-not-modified for what came back 304) and a
// response for what changed, each revisit referring to the first crawl's capture of the URL
// (its URI and exact WARC-Date). The plain fetcher asks for pages and style sheets
// conditionally too, and follows the links of a page or style sheet that came back 304 as
// the first crawl captured it (the changed one's new ones too); without the first crawl to
// read them back from, it asks for them unconditionally. The browser loads pages
// unconditionally; robots.txt is never asked for conditionally. The reports count duplicates
// and not-modified URLs in Heritrix's columns.
func TestRecrawl(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fetcher   string
		resume    bool
		moved     bool // the first crawl moved away before the resumed run
		dedupOnly bool // --dedup-from instead of --recrawl-of
		want      recrawlExpect
	}{
		{"http", crawl.FetcherHTTP, false, false, false, recrawlHTTP},
		{"http resumed", crawl.FetcherHTTP, true, false, false, recrawlHTTP},
		{"http resumed, first crawl moved away", crawl.FetcherHTTP, true, true, false, recrawlHTTP},
		{"http dedup-from", crawl.FetcherHTTP, false, false, true, dedupHTTP},
		{"browser", crawl.FetcherBrowser, false, false, false, recrawlBrowser},
		{"browser resumed, first crawl moved away", crawl.FetcherBrowser, true, true, false, recrawlBrowser},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site := startRecrawlSite(t)
			tmp := t.TempDir()
			first, second := filepath.Join(tmp, "first"), filepath.Join(tmp, "second")
			res, err := crawl.Run(t.Context(), recrawlConfig(t, site, tc.fetcher, first))
			if err != nil || res.End != crawl.EndFinished {
				t.Fatalf("first crawl: %+v, %v", res, err)
			}
			one := crawlRecords(t, first)
			for u, k := range kindsOf(one) {
				if k != response {
					t.Errorf("first crawl: %s is a %s", u, k)
				}
			}

			site.gen.Store(2)
			cfg := recrawlConfig(t, site, tc.fetcher, second)
			if tc.dedupOnly {
				cfg.DedupFrom = []string{first}
			} else {
				cfg.RecrawlOf = first
			}
			if tc.resume {
				cfg.LimitURLs = 4
				res, err := crawl.Run(t.Context(), cfg)
				if err != nil || res.End != crawl.EndLimit {
					t.Fatalf("second crawl, first run: %+v, %v", res, err)
				}
				// The earlier crawl was read by the first run: the next does not need it, but
				// asks for pages unconditionally without it.
				moved := first + ".moved"
				if tc.moved {
					if err := os.Rename(first, moved); err != nil {
						t.Fatal(err)
					}
				}
				cfg.LimitURLs = 0
				res, err = crawl.Run(t.Context(), cfg)
				if tc.moved {
					if rerr := os.Rename(moved, first); rerr != nil {
						t.Fatal(rerr)
					}
				}
				if err != nil || res.End != crawl.EndFinished {
					t.Fatalf("second crawl, resumed: %+v, %v", res, err)
				}
			} else {
				res2, err := crawl.Run(t.Context(), cfg)
				if err != nil || res2.End != crawl.EndFinished {
					t.Fatalf("second crawl: %+v, %v", res2, err)
				}
				a, b := warcBytes(t, first), warcBytes(t, second)
				t.Logf("WARC bytes: first crawl %d, second crawl %d (%.1f%%); bytes received: %d, %d (%.1f%%)", a, b,
					100*float64(b)/float64(a), res.Bytes, res2.Bytes, 100*float64(res2.Bytes)/float64(res.Bytes))
			}

			two := crawlRecords(t, second)
			want, got := tc.want, recrawlExpect{records: kindsOf(two), asked: site.askedConditionally()}
			if tc.moved && tc.fetcher == crawl.FetcherHTTP {
				// The pages and style sheets the resumed run fetched it asked for
				// unconditionally: those that did not change are identical revisits.
				want, got = pagesEitherWay(want), pagesEitherWay(got)
			}
			if d := cmp.Diff(want.records, got.records); d != "" {
				t.Errorf("second crawl's records (-want +got):\n%s", d)
			}
			if d := cmp.Diff(want.asked, got.asked); d != "" {
				t.Errorf("conditional requests (-want +got):\n%s", d)
			}
			for u, rs := range two {
				for _, r := range rs {
					if r.Type != "revisit" {
						continue
					}
					if len(one[u]) != 1 {
						t.Errorf("%s: a revisit of %d captures", u, len(one[u]))
						continue
					}
					orig := one[u][0]
					wantDate := orig.Date
					if tc.dedupOnly {
						// The index alone gives the date to the second.
						wantDate = orig.Date[:len("2006-01-02T15:04:05")] + ".000000Z"
					}
					if r.RefersToURI != u || r.RefersToDate != wantDate || r.PayloadDigest != orig.PayloadDigest {
						t.Errorf("%s refers to %s %s (digest %s), want the first crawl's %s %s (%s)", u, r.RefersToURI, r.RefersToDate,
							r.PayloadDigest, orig.TargetURI, orig.Date, orig.PayloadDigest)
					}
				}
			}
			// What was written, now that it is what was wanted, is what crawl.log and the
			// reports must say.
			checkRecrawlLog(t, second, kindsOf(two))
			checkRecrawlReports(t, second, kindsOf(two))
		})
	}
}

// recrawlExpect is what the second crawl of the site writes and asks for conditionally.
type recrawlExpect struct {
	records map[string]captureKind // path -> record
	asked   map[string][]string    // path -> the conditional headers sent
}

var (
	recrawlHTTP = recrawlExpect{
		records: map[string]captureKind{
			"/robots.txt": identical, "/img/plain.png": identical, "/img/ignores.png": identical,
			"/": notModified, "/same.html": notModified, "/style.css": notModified,
			"/img/logo.png": notModified, "/img/lastmod.png": notModified, "/img/bg.png": notModified, "/notes.txt": notModified,
			"/changed.html": response, "/new.html": response, "/img/changed.png": response, "/favicon.ico": response,
			"/theme.css": response, "/img/theme-two.png": response,
		},
		asked: map[string][]string{
			"/":                {"If-Modified-Since: Thu, 01 Jan 2026 00:00:00 GMT", "If-None-Match: " + etagOf("/")},
			"/same.html":       {"If-None-Match: " + etagOf("/same.html")},
			"/changed.html":    {"If-None-Match: " + etagOf("/changed.html")},
			"/style.css":       {"If-None-Match: " + etagOf("/style.css")},
			"/theme.css":       {"If-None-Match: " + etagOf("/theme.css")},
			"/img/logo.png":    {"If-Modified-Since: Thu, 01 Jan 2026 00:00:00 GMT", "If-None-Match: " + etagOf("/img/logo.png")},
			"/img/lastmod.png": {"If-Modified-Since: Thu, 01 Jan 2026 00:00:00 GMT"},
			"/img/bg.png":      {"If-None-Match: " + etagOf("/img/bg.png")},
			"/img/changed.png": {"If-None-Match: " + etagOf("/img/changed.png")},
			"/img/ignores.png": {"If-None-Match: " + etagOf("/img/ignores.png")},
			"/notes.txt":       {"If-None-Match: " + etagOf("/notes.txt")},
		},
	}
	// Without --recrawl-of nothing is asked for conditionally: what did not change is a
	// duplicate by digest.
	dedupHTTP = recrawlExpect{
		records: map[string]captureKind{
			"/": identical, "/same.html": identical, "/style.css": identical, "/robots.txt": identical,
			"/img/plain.png": identical, "/img/ignores.png": identical,
			"/img/logo.png": identical, "/img/lastmod.png": identical, "/img/bg.png": identical, "/notes.txt": identical,
			"/changed.html": response, "/new.html": response, "/img/changed.png": response, "/favicon.ico": response,
			"/theme.css": response, "/img/theme-two.png": response,
		},
		asked: map[string][]string{},
	}
	// Chromium loads pages unconditionally (it renders them), and the page's embeds itself:
	// what did not change is a duplicate by digest. The linked text file is a page load made
	// conditional.
	recrawlBrowser = recrawlExpect{
		records: map[string]captureKind{
			"/": identical, "/same.html": identical, "/style.css": identical, "/robots.txt": identical,
			"/img/plain.png": identical, "/img/ignores.png": identical,
			"/img/logo.png": identical, "/img/lastmod.png": identical, "/img/bg.png": identical, "/notes.txt": notModified,
			"/changed.html": response, "/new.html": response, "/img/changed.png": response, "/favicon.ico": response,
			"/theme.css": response, "/img/theme-two.png": response,
		},
		asked: map[string][]string{"/notes.txt": {"If-None-Match: " + etagOf("/notes.txt")}},
	}
)

// pagesEitherWay is e with the pages and style sheets (text/html, text/css) not asked for
// conditionally, and those that were not modified as identical revisits, whichever they
// were: a run without the earlier crawl to read them back from fetches them whole.
func pagesEitherWay(e recrawlExpect) recrawlExpect {
	out := recrawlExpect{records: maps.Clone(e.records), asked: maps.Clone(e.asked)}
	for p, res := range recrawlResources {
		if res.ctype != "text/html" && res.ctype != "text/css" {
			continue
		}
		if out.records[p] == notModified {
			out.records[p] = identical
		}
		delete(out.asked, p)
	}
	return out
}

// etagOf is the ETag the site served for path in its first version.
func etagOf(path string) string {
	sum := sha1.Sum(recrawlResources[path].body[0])
	return `"` + hex.EncodeToString(sum[:6]) + `"`
}

// checkRecrawlLog: crawl.log marks duplicates as Heritrix does.
func checkRecrawlLog(t *testing.T, dir string, want map[string]captureKind) {
	t.Helper()
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
		k, ok := want[strings.TrimPrefix(l.URL, "http://www.example.com")]
		if !ok {
			continue
		}
		wantNote, wantStatus := "", 0
		switch k {
		case identical:
			wantNote = "duplicate:digest"
		case notModified:
			wantNote, wantStatus = "duplicate:server-not-modified", 304
		}
		hasNote := wantNote == "" || slices.Contains(l.Annotations, wantNote)
		if !hasNote || (wantStatus != 0 && l.Status != wantStatus) || (k == response && slices.ContainsFunc(l.Annotations, func(a string) bool { return strings.HasPrefix(a, "duplicate") })) {
			t.Errorf("crawl.log %s: status %d, annotations %v; want a %s", l.URL, l.Status, l.Annotations, k)
		}
	}
}

// checkRecrawlReports: the hosts report counts the revisits in Heritrix's columns.
func checkRecrawlReports(t *testing.T, dir string, want map[string]captureKind) {
	t.Helper()
	counts := map[captureKind]int{}
	for _, k := range want {
		counts[k]++
	}
	data, err := os.ReadFile(filepath.Join(dir, "reports", report.HostsReportFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var row []string
	for _, l := range lines[1:] {
		if f := strings.Fields(l); len(f) > 2 && f[2] == "www.example.com" {
			row = f
		}
	}
	// [#urls] [#bytes] [host] [#robots] [#remaining] [#novel-urls] [#novel-bytes]
	// [#dup-by-hash-urls] [#dup-by-hash-bytes] [#not-modified-urls] [#not-modified-bytes]
	if len(row) != 11 {
		t.Fatalf("hosts-report.txt has no row for www.example.com:\n%s", data)
	}
	got := fmt.Sprintf("urls %s novel %s dup %s not-modified %s", row[0], row[5], row[7], row[9])
	wantRow := fmt.Sprintf("urls %d novel %d dup %d not-modified %d", len(want), counts[response], counts[identical], counts[notModified])
	if got != wantRow {
		t.Errorf("hosts-report.txt: %s, want %s\n%s", got, wantRow, data)
	}
}

// TestRecrawlReplay replays both crawls of the site together, offline, in ReplayWeb.page: the
// second crawl's revisits (the page itself, the images that came back 304 or were identical)
// resolve to the first crawl's captures, so the page shows with every image.
func TestRecrawlReplay(t *testing.T) {
	path := crawltest.Chromium(t)
	rwp := replayWebPage(t)
	site := startRecrawlSite(t)
	tmp := t.TempDir()
	first, second := filepath.Join(tmp, "first"), filepath.Join(tmp, "second")
	if res, err := crawl.Run(t.Context(), recrawlConfig(t, site, crawl.FetcherHTTP, first)); err != nil || res.End != crawl.EndFinished {
		t.Fatalf("first crawl: %+v, %v", res, err)
	}
	site.gen.Store(2)
	cfg := recrawlConfig(t, site, crawl.FetcherHTTP, second)
	cfg.RecrawlOf = first
	if res, err := crawl.Run(t.Context(), cfg); err != nil || res.End != crawl.EndFinished {
		t.Fatalf("second crawl: %+v, %v", res, err)
	}
	site.srv.Close() // offline from here

	both := filepath.Join(tmp, "both")
	if err := os.MkdirAll(both, 0o755); err != nil {
		t.Fatal(err)
	}
	var sizes [2]int64
	for i, dir := range []string{first, second} {
		files, err := filepath.Glob(filepath.Join(dir, crawl.WARCDir, "*.warc.gz"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no WARC files in %s: %v", dir, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sizes[i] += int64(len(b))
			// The first crawl's files sort first (serveReplay concatenates them by name).
			if err := os.WriteFile(filepath.Join(both, fmt.Sprintf("%d-%s", i, filepath.Base(f))), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("WARC bytes: first crawl %d, second crawl %d (%.0f%%)", sizes[0], sizes[1], 100*float64(sizes[1])/float64(sizes[0]))

	out, err := browser.Evaluate(t.Context(), browser.RenderConfig{
		Path: path, URL: serveReplay(t, rwp, both), Expression: replayedJS, Timeout: 40 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	var got replayed
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(got.Frame, "/mp_/http://www.example.com/") || !strings.Contains(got.Text, "Recrawl test") {
		t.Errorf("replayed %q: %q", got.Frame, got.Text)
	}
	want := []string{"/img/changed.png", "/img/ignores.png", "/img/lastmod.png", "/img/logo.png", "/img/plain.png"}
	if d := cmp.Diff(want, got.Loaded); d != "" || len(got.Broken) > 0 {
		t.Errorf("images that load (-want +got):\n%s\nbroken: %v", d, got.Broken)
	}
}

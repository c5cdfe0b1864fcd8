package crawl_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/replay"
	"github.com/amber-crawler/amber/wacz"
)

// TestRecrawlUnchanged crawls the site twice with the plain fetcher, the second time with
// --recrawl-of the first and nothing changed. Everything with a validator comes back 304 and
// is a server-not-modified revisit, pages and style sheets too; the only other records are
// those of what cannot be asked for conditionally: robots.txt (never asked so), the image
// without validators and the one whose server ignores them (identical revisits) and the
// favicon's 404 (no capture to ask about). The links of the pages and style sheets that came
// back 304 are read from the first crawl's captures: the second crawl fetches exactly the
// URLs of the first, each with the same hop path, via, type (crawl.log gives a 304's revisit
// the type of the capture it stands for) and outlinks, lists the same pages in a package, and
// writes the search document of each page again, as it was. The files pass gowarc, warc verify and warcio.js;
// replayed with the first crawl (package replay), each of the second crawl's revisits is
// served with the first crawl's payload.
func TestRecrawlUnchanged(t *testing.T) {
	site := startRecrawlSite(t)
	tmp := t.TempDir()
	first, second := filepath.Join(tmp, "first"), filepath.Join(tmp, "second")
	res1, err := crawl.Run(t.Context(), recrawlConfig(t, site, crawl.FetcherHTTP, first))
	if err != nil || res1.End != crawl.EndFinished {
		t.Fatalf("first crawl: %+v, %v", res1, err)
	}
	// Replay tells captures apart by their CDXJ timestamps, to the second.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	cfg := recrawlConfig(t, site, crawl.FetcherHTTP, second)
	cfg.RecrawlOf = first
	res2, err := crawl.Run(t.Context(), cfg)
	if err != nil || res2.End != crawl.EndFinished {
		t.Fatalf("second crawl: %+v, %v", res2, err)
	}

	one, two := crawlRecords(t, first), crawlRecords(t, second)
	want := map[string]captureKind{
		"/": notModified, "/same.html": notModified, "/changed.html": notModified, "/notes.txt": notModified,
		"/style.css": notModified, "/theme.css": notModified,
		"/img/logo.png": notModified, "/img/lastmod.png": notModified, "/img/changed.png": notModified,
		"/img/bg.png": notModified, "/img/theme-one.png": notModified,
		"/robots.txt": identical, "/img/plain.png": identical, "/img/ignores.png": identical,
		"/favicon.ico": response,
	}
	if d := cmp.Diff(want, kindsOf(two)); d != "" {
		t.Errorf("second crawl's records (-want +got):\n%s", d)
	}
	wantAsked := map[string][]string{}
	for p, res := range recrawlResources {
		if p == "/robots.txt" || res.body[0] == nil {
			continue
		}
		var hs []string
		if res.lastMod {
			hs = append(hs, "If-Modified-Since: Thu, 01 Jan 2026 00:00:00 GMT")
		}
		if res.etag {
			hs = append(hs, "If-None-Match: "+etagOf(p))
		}
		if hs != nil {
			wantAsked[p] = hs
		}
	}
	if d := cmp.Diff(wantAsked, site.askedConditionally()); d != "" {
		t.Errorf("conditional requests (-want +got):\n%s", d)
	}
	for u, rs := range two {
		if r := rs[0]; kindOf(r) == notModified && (r.RefersToURI != u || r.RefersToDate != one[u][0].Date || r.PayloadDigest != one[u][0].PayloadDigest) {
			t.Errorf("%s refers to %s %s (%s), want the first crawl's capture %s (%s)", u, r.RefersToURI, r.RefersToDate, r.PayloadDigest,
				one[u][0].Date, one[u][0].PayloadDigest)
		}
	}

	// The same URLs, found the same way, of the same types, with the same links; the same
	// pages for ReplayWeb.page's list.
	if d := cmp.Diff(fetchedURLs(t, first), fetchedURLs(t, second)); d != "" {
		t.Errorf("URLs fetched: hop path, via and type (-first +second):\n%s", d)
	}
	pages := func(dir string) []string {
		ps, err := wacz.ListPages(t.Context(), []string{dir})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range ps {
			out = append(out, p.URL)
		}
		slices.Sort(out)
		return out
	}
	if p1, p2 := pages(first), pages(second); len(p1) != 3 || !slices.Equal(p1, p2) {
		t.Errorf("pages: first crawl %v, second crawl %v; want the 3 HTML pages in each", p1, p2)
	}
	if d := cmp.Diff(outlinks(t, first), outlinks(t, second)); d != "" {
		t.Errorf("outlinks of each capture (-first +second):\n%s", d)
	}
	docs1, docs2 := searchDocuments(t, first), searchDocuments(t, second)
	if len(docs1) != 3 {
		t.Errorf("first crawl: %d search documents, want one per HTML page (3)", len(docs1))
	}
	if d := cmp.Diff(docs1, docs2); d != "" {
		t.Errorf("search documents (-first +second):\n%s", d)
	}

	// Readers we did not write: warc verify, and warcio.js's index is ours.
	files, err := filepath.Glob(filepath.Join(second, crawl.WARCDir, "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no WARC files: %v", err)
	}
	for _, ia := range warccheck.VerifyIA(t, files...) {
		if ia.Errors != 0 || !ia.AllRecordsRead {
			t.Errorf("warc verify: %+v", ia)
		}
	}
	var theirs []string
	for _, f := range files {
		theirs = append(theirs, crawltest.WarcioCDXJ(t, f)...)
	}
	ours := readLines(t, filepath.Join(second, crawl.CDXJFile))
	sort.Strings(theirs)
	if d := cmp.Diff(ours, theirs); d != "" {
		t.Errorf("our CDXJ vs warcio.js cdx-index (-ours +warcio):\n%s", d)
	}

	site.srv.Close() // offline from here
	checkRecrawlReplay(t, second, first, two)

	sizes := [2]int64{warcBytes(t, first), warcBytes(t, second)}
	t.Logf("WARC bytes: first crawl %d, second crawl %d (%.1f%%); bytes received: %d, %d (%.1f%%)", sizes[0], sizes[1],
		100*float64(sizes[1])/float64(sizes[0]), res1.Bytes, res2.Bytes, 100*float64(res2.Bytes)/float64(res1.Bytes))
}

// TestRecrawlOfRecrawl crawls the unchanged site three times, each crawl a recrawl of the one
// before (--recrawl-of it alone, its crawl.yaml naming the one it recrawled, as amber crawl
// writes it). The second crawl's captures of the pages and images are server-not-modified
// revisits of the first's, which say neither their type nor their content: the third crawl
// reads them back from the first crawl, which the second's crawl.yaml names, and writes the
// same revisits of the first crawl's captures, following the same links; the three crawls
// replay together. (What the second crawl has as an identical revisit the third stores
// whole: it deduplicates against the second crawl's responses only.) With the first crawl moved away, what the second has as such a revisit is
// fetched whole (it may be a page), and the same links are followed all the same.
func TestRecrawlOfRecrawl(t *testing.T) {
	site := startRecrawlSite(t)
	tmp := t.TempDir()
	dirs := []string{filepath.Join(tmp, "first"), filepath.Join(tmp, "second"), filepath.Join(tmp, "third"), filepath.Join(tmp, "fourth")}
	run := func(i int) {
		t.Helper()
		cfg := recrawlConfig(t, site, crawl.FetcherHTTP, dirs[i])
		cfg.EffectiveConfig = []byte("collection: recrawl\n")
		if i > 0 {
			earlier := dirs[min(i-1, 1)] // the fourth crawl recrawls the second too
			cfg.RecrawlOf = earlier
			cfg.EffectiveConfig = fmt.Appendf(nil, "collection: recrawl\nrecrawl_of: %q\n", earlier)
		}
		if res, err := crawl.Run(t.Context(), cfg); err != nil || res.End != crawl.EndFinished {
			t.Fatalf("crawl %d: %+v, %v", i+1, res, err)
		}
		// Replay tells captures apart by their CDXJ timestamps, to the second.
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	}
	for i := range 3 {
		run(i)
	}
	one, two, three := crawlRecords(t, dirs[0]), crawlRecords(t, dirs[1]), crawlRecords(t, dirs[2])
	want := kindsOf(two)
	for p, k := range want {
		if k == identical {
			// Its payload is the first crawl's, whose digests the third crawl does not
			// deduplicate against (the second has it as a revisit only).
			want[p] = response
		}
	}
	if d := cmp.Diff(want, kindsOf(three)); d != "" {
		t.Errorf("third crawl's records (-want +got):\n%s", d)
	}
	for u, rs := range three {
		if r := rs[0]; kindOf(r) == notModified && (kindOf(two[u][0]) != notModified || r.RefersToURI != u || r.RefersToDate != one[u][0].Date) {
			t.Errorf("%s refers to %s %s, want the first crawl's capture %s", u, r.RefersToURI, r.RefersToDate, one[u][0].Date)
		}
	}
	if d := cmp.Diff(fetchedURLs(t, dirs[0]), fetchedURLs(t, dirs[2])); d != "" {
		t.Errorf("URLs fetched (-first +third):\n%s", d)
	}
	if d := cmp.Diff(outlinks(t, dirs[0]), outlinks(t, dirs[2])); d != "" {
		t.Errorf("outlinks of each capture (-first +third):\n%s", d)
	}
	checkRecrawlReplay(t, dirs[2], dirs[0], three, dirs[1])

	moved := dirs[0] + ".moved"
	if err := os.Rename(dirs[0], moved); err != nil {
		t.Fatal(err)
	}
	run(3)
	four := kindsOf(crawlRecords(t, dirs[3]))
	for p, k := range kindsOf(two) {
		if k == notModified && four[p] == notModified {
			t.Errorf("fourth crawl: %s came back 304, whose type its earlier capture does not say", p)
		}
	}
	if err := os.Rename(moved, dirs[0]); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(fetchedURLs(t, dirs[0]), fetchedURLs(t, dirs[3])); d != "" {
		t.Errorf("URLs fetched (-first +fourth):\n%s", d)
	}
}

// checkRecrawlReplay replays the crawl dir (a recrawl of earlier) with earlier and more,
// through the replay proxy, and checks that each URL recs has a 304's revisit for is served as
// the revisit (its time) with the earlier crawl's payload, the site's first version.
func checkRecrawlReplay(t *testing.T, dir, earlier string, recs map[string][]warccheck.Record, more ...string) {
	t.Helper()
	s, err := replay.Open(t.Context(), replay.Config{Sources: append([]string{dir, earlier}, more...), StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	proxy := httptest.NewServer(s)
	defer proxy.Close()
	pu, err := url.Parse(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(pu), DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	replayed := 0
	for u, rs := range recs {
		r := rs[0]
		if kindOf(r) != notModified {
			continue
		}
		replayed++
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		date, err := time.Parse(time.RFC3339Nano, r.Date)
		if err != nil {
			t.Fatal(err)
		}
		path := strings.TrimPrefix(u, "http://www.example.com")
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, recrawlResources[path].body[0]) {
			t.Errorf("replay of %s: %d, %d bytes; want 200 and the first crawl's %d bytes", u, resp.StatusCode, len(body), len(recrawlResources[path].body[0]))
		}
		if got, want := resp.Header.Get("Memento-Datetime"), date.UTC().Format(http.TimeFormat); got != want {
			t.Errorf("replay of %s: the capture of %s, want the revisit's, %s", u, got, want)
		}
		if ct := resp.Header.Get("Content-Type"); ct != recrawlResources[path].ctype {
			t.Errorf("replay of %s: Content-Type %q, want the first crawl's %q", u, ct, recrawlResources[path].ctype)
		}
	}
	if replayed == 0 {
		t.Error("no revisit of a 304 replayed")
	}
	if m := s.Misses(); len(m) > 0 {
		t.Errorf("replay misses: %+v", m)
	}
}

// fetchedURLs lists a crawl's crawl.log lines as "URL hops via MIME", sorted.
func fetchedURLs(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
		out = append(out, fmt.Sprintf("%s %s %s %s", l.URL, l.Hops, l.Via, l.MIME))
	}
	slices.Sort(out)
	return out
}

// outlinks returns the outlinks the metadata record of each capture of a crawl lists, by URL,
// sorted.
func outlinks(t *testing.T, dir string) map[string][]string {
	t.Helper()
	reps, err := warccheck.ValidateDir(filepath.Join(dir, crawl.WARCDir))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, rep := range reps {
		for _, r := range rep.Records {
			if r.Type != "metadata" || !strings.HasPrefix(r.TargetURI, "http") {
				continue
			}
			var links []string
			for _, f := range r.Fields {
				if f.Name == "outlink" {
					links = append(links, f.Value)
				}
			}
			slices.Sort(links)
			out[r.TargetURI] = links
		}
	}
	return out
}

// searchDocuments returns a crawl's search documents by URL (the last line of each id), without
// what says when and where the page was captured.
func searchDocuments(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, line := range readLines(t, filepath.Join(dir, crawl.DocumentsFile)) {
		var d map[string]any
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		for _, k := range []string{"last_crawled_at", "warc_filename", "warc_offset"} {
			if _, ok := d[k]; !ok {
				t.Errorf("document %v has no %s", d["url"], k)
			}
			delete(d, k)
		}
		out[d["url"].(string)] = d
	}
	return out
}

// readLines returns the lines of a file that are not empty.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			out = append(out, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// warcBytes is the size of a crawl's WARC files.
func warcBytes(t *testing.T, dir string) int64 {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, crawl.WARCDir, "*.warc.gz"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no WARC files in %s: %v", dir, err)
	}
	var n int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

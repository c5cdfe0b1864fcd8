package prior

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/warc"
)

// zippedPage is the page of the prior crawl sent gzip-compressed in chunks.
var zippedPage = []byte(`<html><title>zipped</title><a href="/linked.html">linked</a></html>`)

// priorCrawl is an earlier crawl written for the tests: a crawl directory with its WARC file
// and its live and sorted indexes, and what loading it must give.
type priorCrawl struct {
	dir      string
	warcName string
	digests  map[string]frontier.Prior // by digest, dates exact
	urls     map[string]frontier.Prior // by canonical URL
}

func sha1Of(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// memDedup is warc.DedupIndex in memory.
type memDedup struct {
	mu sync.Mutex
	m  map[string]warc.Original
}

func (d *memDedup) LookupDigest(digest string) (string, time.Time, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	o, ok := d.m[digest]
	return o.URI, o.Date, ok, nil
}

func (d *memDedup) StoreDigest(digest, uri string, date time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.m[digest]; !ok {
		d.m[digest] = warc.Original{URI: uri, Date: date}
	}
	return nil
}

// writePriorCrawl writes a crawl directory holding every kind of capture an earlier crawl has.
func writePriorCrawl(t *testing.T) priorCrawl {
	t.Helper()
	dir := t.TempDir()
	w, err := warc.NewWriter(warc.Config{Dir: filepath.Join(dir, crawldir.WARCDir), CDXJPath: filepath.Join(dir, crawldir.LiveCDXJFile),
		Dedup: &memDedup{m: map[string]warc.Original{}}, Hostname: "test", Info: warc.Info{Software: "amber/test"}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 2, 3, 4, 5, 6, 789012000, time.UTC)
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	page, png, plain, css := []byte("<html>page</html>"), []byte("\x89PNG one"), []byte("\x89PNG plain"), []byte("p { color: red }")
	const lm = "Mon, 02 Feb 2026 00:00:00 GMT"
	resp := func(status int, ctype string, hdrs string, body []byte) []byte {
		var b bytes.Buffer
		fmt.Fprintf(&b, "HTTP/1.1 %d X\r\n", status)
		if ctype != "" {
			fmt.Fprintf(&b, "Content-Type: %s\r\n", ctype)
		}
		fmt.Fprintf(&b, "%sContent-Length: %d\r\n\r\n", hdrs, len(body))
		b.Write(body)
		return b.Bytes()
	}
	oldOrig := warc.Original{URI: "http://a.test/old.png", Date: at(-86400), PayloadDigest: sha1Of([]byte("old")), ETag: `"o1"`}
	// A page sent gzip-compressed in chunks: its payload is the compressed body.
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(zippedPage)
	zw.Close()
	chunked := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\nETag: \"z1\"\r\n"+
		"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n", 10, zipped.Bytes()[:10], zipped.Len()-10, zipped.Bytes()[10:])
	caps := []struct {
		url  string
		resp []byte
		orig *warc.Original
	}{
		{"http://a.test/page.html", resp(200, "text/html", "ETag: \"p1\"\r\n", page), nil}, // read for links
		{"http://a.test/img.png", resp(200, "image/png", "ETag: \"i1\"\r\nLast-Modified: "+lm+"\r\n", png), nil},
		{"http://a.test/copy.png", resp(200, "image/png", "ETag: \"c1\"\r\n", png), nil},                                 // identical revisit of img.png
		{"http://a.test/old.png", []byte("HTTP/1.1 304 Not Modified\r\nETag: \"o1\"\r\n\r\n"), &oldOrig},                 // server-not-modified revisit
		{"http://a.test/missing.png", resp(404, "image/png", "ETag: \"m\"\r\n", []byte("gone")), nil},                    // not 2xx
		{"http://a.test/plain.png", resp(200, "image/png", "", plain), nil},                                              // no validators
		{"http://a.test/empty.png", resp(200, "image/png", "ETag: \"e\"\r\n", nil), nil},                                 // empty payload
		{"https://a.test/style.css", resp(200, "text/css; charset=utf-8", "Last-Modified: "+lm+"\r\n", css), nil},        // read for embeds
		{"http://a.test/untyped", resp(200, "", "ETag: \"u\"\r\n", []byte("what am I")), nil},                            // type unknown
		{"http://A.test:80/x/../Canon.PNG?b=2&a=1", resp(200, "image/png", "ETag: \"k\"\r\n", []byte("\x89PNG k")), nil}, // stored canonical
		{"http://a.test/copy.html", resp(200, "text/html", "ETag: \"p2\"\r\n", page), nil},                               // identical revisit of page.html
		{"http://a.test/zipped.html", []byte(chunked), nil},
	}
	dates := map[string]time.Time{}
	for i, c := range caps {
		dates[c.url] = at(i)
		if _, err := w.WriteCapture(warc.Capture{URL: c.url, Date: at(i), Request: []byte("GET / HTTP/1.1\r\n\r\n"),
			Response: bytes.NewReader(c.resp), NotModified: c.orig}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := w.WriteResource("urn:screenshot:http://a.test/page.html", "image/png", at(20), []byte("shot"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := warc.SortCDXJ(filepath.Join(dir, crawldir.LiveCDXJFile), filepath.Join(dir, crawldir.CDXJFile)); err != nil {
		t.Fatal(err)
	}
	d := func(u string, body []byte) frontier.Prior {
		return frontier.Prior{Key: sha1Of(body), URI: u, Date: dates[u]}
	}
	pc := priorCrawl{dir: dir, warcName: res.Filename, digests: map[string]frontier.Prior{}, urls: map[string]frontier.Prior{}}
	for _, p := range []frontier.Prior{
		d("http://a.test/page.html", page), d("http://a.test/img.png", png), d("http://a.test/plain.png", plain),
		d("https://a.test/style.css", css), d("http://a.test/untyped", []byte("what am I")),
		d("http://A.test:80/x/../Canon.PNG?b=2&a=1", []byte("\x89PNG k")), d("http://a.test/zipped.html", zipped.Bytes()),
	} {
		pc.digests[p.Key] = p
	}
	own := func(u string, body []byte) frontier.Prior {
		return frontier.Prior{Key: u, URI: u, Date: dates[u], Captured: dates[u], Digest: sha1Of(body)}
	}
	with := func(p frontier.Prior, etag, lastMod, mime string) frontier.Prior {
		p.ETag, p.LastModified, p.Mime = etag, lastMod, mime
		return p
	}
	for _, p := range []frontier.Prior{
		with(own("http://a.test/page.html", page), `"p1"`, "", "text/html"),
		with(own("http://a.test/img.png", png), `"i1"`, lm, "image/png"),
		{Key: "http://a.test/copy.png", URI: "http://a.test/img.png", Date: dates["http://a.test/img.png"], Captured: dates["http://a.test/copy.png"],
			Digest: sha1Of(png), ETag: `"c1"`, Mime: "image/png"},
		// A server-not-modified revisit says neither the type nor the payload: its original does.
		{Key: "http://a.test/old.png", URI: oldOrig.URI, Date: oldOrig.Date, Captured: dates["http://a.test/old.png"],
			Digest: oldOrig.PayloadDigest, ETag: `"o1"`},
		with(own("https://a.test/style.css", css), "", lm, "text/css"),
		with(own("http://a.test/untyped", []byte("what am I")), `"u"`, "", ""),
		{Key: canonical(t, "http://A.test:80/x/../Canon.PNG?b=2&a=1"), URI: "http://A.test:80/x/../Canon.PNG?b=2&a=1",
			Date: dates["http://A.test:80/x/../Canon.PNG?b=2&a=1"], Captured: dates["http://A.test:80/x/../Canon.PNG?b=2&a=1"],
			Digest: sha1Of([]byte("\x89PNG k")), ETag: `"k"`, Mime: "image/png"},
		with(own("http://a.test/empty.png", nil), `"e"`, "", "image/png"),
		{Key: "http://a.test/copy.html", URI: "http://a.test/page.html", Date: dates["http://a.test/page.html"], Captured: dates["http://a.test/copy.html"],
			Digest: sha1Of(page), ETag: `"p2"`, Mime: "text/html"},
		with(own("http://a.test/zipped.html", zipped.Bytes()), `"z1"`, "", "text/html"),
	} {
		pc.urls[p.Key] = p
	}
	return pc
}

// writeWACZ packs the crawl directory as a WACZ: the WARC file stored, the index as index.cdxj
// (deflated) or as index.cdx.gz (gzip members of a few lines each) with an index.idx that
// gives each member's first key and place.
func writeWACZ(t *testing.T, pc priorCrawl, compressedIndex bool) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "crawl.wacz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	add := func(name string, method uint16, data []byte) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	add("datapackage.json", zip.Deflate, []byte(`{"profile":"data-package","wacz_version":"1.1.1"}`))
	add("archive/"+pc.warcName, zip.Store, read(filepath.Join(pc.dir, crawldir.WARCDir, pc.warcName)))
	index := read(filepath.Join(pc.dir, crawldir.CDXJFile))
	if compressedIndex {
		var gz bytes.Buffer
		idx := "!meta 0 {\"format\": \"cdxj-gzip-1.0\"}\n"
		lines := strings.SplitAfter(strings.TrimSuffix(string(index), "\n"), "\n")
		for i := 0; i < len(lines); i += 3 {
			off := gz.Len()
			zw := gzip.NewWriter(&gz)
			zw.Write([]byte(strings.Join(lines[i:min(i+3, len(lines))], "")))
			zw.Close()
			first, _, _ := strings.Cut(lines[i], " {")
			idx += fmt.Sprintf("%s {\"offset\": %d, \"length\": %d, \"filename\": \"index.cdx.gz\"}\n", first, off, gz.Len()-off)
		}
		add("indexes/index.cdx.gz", zip.Store, gz.Bytes())
		add("indexes/index.idx", zip.Deflate, []byte(idx))
	} else {
		add("indexes/index.cdxj", zip.Deflate, index)
	}
	add("pages/pages.jsonl", zip.Deflate, []byte(`{"format":"json-pages-1.0"}`+"\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// testConfig is cfg with a frontier of its own, the standard flavour's canonical URLs and no
// log.
func testConfig(t testing.TB, cfg Config) Config {
	t.Helper()
	f, err := frontier.Open(frontier.Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cfg.Front, cfg.Log = f, slog.New(slog.DiscardHandler)
	cfg.Canonical = func(raw string) (string, error) { return scope.Canonicalize(raw, scope.Standard) }
	return cfg
}

// TestLoadPriors reads an earlier crawl as a crawl directory, a CDXJ file (sorted or not,
// gzip-compressed or not) and a WACZ (index.cdxj or index.cdx.gz), for deduplication and for
// a recrawl, and looks up what they hold.
func TestLoadPriors(t *testing.T) {
	pc := writePriorCrawl(t)
	gzIndex := filepath.Join(t.TempDir(), "index.cdxj.gz")
	{
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		data, err := os.ReadFile(filepath.Join(pc.dir, crawldir.CDXJFile))
		if err != nil {
			t.Fatal(err)
		}
		zw.Write(data)
		zw.Close()
		if err := os.WriteFile(gzIndex, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	seconds := func(m map[string]frontier.Prior) map[string]frontier.Prior {
		out := map[string]frontier.Prior{}
		for k, p := range m {
			p.Date = p.Date.Truncate(time.Second)
			out[k] = p
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		dedupFrom   []string
		recrawlOf   string
		wantDigests map[string]frontier.Prior
		wantURLs    map[string]frontier.Prior
		wantErr     error
	}{
		{name: "crawl directory, recrawl", recrawlOf: pc.dir, wantDigests: pc.digests, wantURLs: pc.urls},
		// The index alone: dates as CDXJ timestamps give them, to the second.
		{name: "crawl directory, dedup", dedupFrom: []string{pc.dir}, wantDigests: seconds(pc.digests)},
		{name: "sorted cdxj, dedup", dedupFrom: []string{filepath.Join(pc.dir, crawldir.CDXJFile)}, wantDigests: seconds(pc.digests)},
		{name: "gzip cdxj, dedup", dedupFrom: []string{gzIndex}, wantDigests: seconds(pc.digests)},
		{name: "wacz, recrawl", recrawlOf: writeWACZ(t, pc, false), wantDigests: pc.digests, wantURLs: pc.urls},
		{name: "wacz with index.cdx.gz, recrawl", recrawlOf: writeWACZ(t, pc, true), wantDigests: pc.digests, wantURLs: pc.urls},
		{name: "wacz, dedup", dedupFrom: []string{writeWACZ(t, pc, false)}, wantDigests: seconds(pc.digests)},
		{name: "unpacked wacz, recrawl", recrawlOf: unpackWACZ(t, pc), wantDigests: pc.digests, wantURLs: pc.urls},
		{name: "cdxj, recrawl", recrawlOf: filepath.Join(pc.dir, crawldir.CDXJFile), wantErr: ErrNoWARCs},
		{name: "missing", dedupFrom: []string{filepath.Join(pc.dir, "nothing")}, wantErr: os.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig(t, Config{DedupFrom: tc.dedupFrom, RecrawlOf: tc.recrawlOf})
			err := Load(context.Background(), c)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for digest, want := range tc.wantDigests {
				uri, date, ok, err := c.Front.PriorDigest(digest)
				if err != nil || !ok || uri != want.URI || !date.Equal(want.Date) {
					t.Errorf("PriorDigest(%s) = %q %v %v %v, want %q %v", digest, uri, date, ok, err, want.URI, want.Date)
				}
			}
			for _, body := range []string{"", "old", "gone", "shot"} { // empty, a revisit's, a 404's, a resource's
				if _, _, ok, err := c.Front.PriorDigest(sha1Of([]byte(body))); ok || err != nil {
					t.Errorf("PriorDigest of %q found (%v)", body, err)
				}
			}
			got := map[string]frontier.Prior{}
			for _, u := range []string{"http://a.test/page.html", "http://a.test/img.png", "http://a.test/copy.png", "http://a.test/old.png",
				"http://a.test/missing.png", "http://a.test/plain.png", "http://a.test/empty.png", "https://a.test/style.css",
				"http://a.test/untyped", canonical(t, "http://A.test:80/x/../Canon.PNG?b=2&a=1"), "http://a.test/copy.html",
				"http://a.test/zipped.html"} {
				p, ok, err := c.Front.PriorURL(u)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					got[u] = p
				}
			}
			want := tc.wantURLs
			if want == nil {
				want = map[string]frontier.Prior{}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("captures by URL (-want +got):\n%s", d)
			}
		})
	}
}

// TestLoadPriorsOnce: what a run loaded is not loaded again (the earlier crawl may be gone
// by then), and a recrawl of a crawl loaded for deduplication loads its URLs.
func TestLoadPriorsOnce(t *testing.T) {
	pc := writePriorCrawl(t)
	moved := filepath.Join(t.TempDir(), "moved")
	c := testConfig(t, Config{DedupFrom: []string{pc.dir}})
	if err := Load(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(pc.dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := Load(context.Background(), c); err != nil {
		t.Errorf("loaded again: %v", err)
	}
	c.RecrawlOf = pc.dir
	if err := Load(context.Background(), c); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("recrawl of a crawl loaded for dedup only: err = %v, want it read (and missing)", err)
	}
	if err := os.Rename(moved, pc.dir); err != nil {
		t.Fatal(err)
	}
	if err := Load(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.Front.PriorURL("http://a.test/img.png"); !ok || err != nil {
		t.Errorf("PriorURL after the recrawl's load: %v %v", ok, err)
	}
	// A cancelled load stops and records nothing.
	c2 := testConfig(t, Config{RecrawlOf: pc.dir})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := load(ctx, c2, pc.dir, true, true); err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled load: %v", err)
	}
}

// TestReadIndexLine: lines longer than maxPriorLine are skipped whole, the last line needs no
// newline.
func TestReadIndexLine(t *testing.T) {
	long := strings.Repeat("x", maxPriorLine+10)
	in := "a\n" + long + "\nb\n\nc"
	rd := bufioReader(in)
	var got []string
	for {
		l, err := readIndexLine(rd)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if l == nil {
			got = append(got, "<skipped>")
			continue
		}
		got = append(got, strings.TrimSuffix(string(l), "\n"))
	}
	if d := cmp.Diff([]string{"a", "<skipped>", "b", "", "c"}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReaderSize(strings.NewReader(s), 4096) }

func canonical(t *testing.T, u string) string {
	t.Helper()
	c, err := scope.Canonicalize(u, scope.Standard)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLoadPriorsRemovesSpools: the spool and sort files a run killed while loading left in
// the crawl directory go when the next run loads; nothing else does.
func TestLoadPriorsRemovesSpools(t *testing.T) {
	pc := writePriorCrawl(t)
	dir := t.TempDir()
	stale := []string{".prior-123.spool", ".prior-123.spool.sorted", "..prior-123.spool.sorted.run-456", "..prior-123.spool.sorted.tmp-7"}
	keep := []string{"crawl.yaml", ".prior-notes.txt", "prior-1.spool"}
	for _, f := range append(slices.Clone(stale), keep...) {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := testConfig(t, Config{Dir: dir, DedupFrom: []string{pc.dir}})
	if err := Load(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if d := cmp.Diff([]string{".prior-notes.txt", "crawl.yaml", "prior-1.spool"}, left); d != "" {
		t.Errorf("files left (-want +got):\n%s", d)
	}
}

// unpackWACZ lays the crawl out as an unpacked WACZ: indexes/index.cdxj and archive/.
func unpackWACZ(t *testing.T, pc priorCrawl) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []struct{ from, to string }{
		{filepath.Join(pc.dir, crawldir.CDXJFile), filepath.Join(dir, "indexes", "index.cdxj")},
		{filepath.Join(pc.dir, crawldir.WARCDir, pc.warcName), filepath.Join(dir, "archive", pc.warcName)},
	} {
		b, err := os.ReadFile(f.from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(f.to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRecrawlReadBack: the request of each earlier capture with validators is made
// conditional; for content the crawl reads (a page, a style sheet, a response of no known
// type) the earlier capture is read back first, from a crawl directory or a WACZ, a revisit
// from the response it refers to, and a 304 is read as it (Record.Shown); what cannot be read
// back, and a page the browser renders, is asked for unconditionally.
func TestRecrawlReadBack(t *testing.T) {
	pc := writePriorCrawl(t)
	client, err := fetch.NewClient(fetch.Config{UserAgent: "amber-test/1.0"})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	reads := func(mt string) bool { return mt == "" || extract.Reads(mt) }
	const lm = "Mon, 02 Feb 2026 00:00:00 GMT"
	type row struct {
		name    string
		url     string
		render  bool // the browser loads it
		sitemap bool
		asked   http.Header // the conditional fields; nil: none
		earlier string      // the content read back (decoded); "": none
		typ     string      // the type of a 304's revisit
	}
	rows := []row{
		{name: "page", url: "http://a.test/page.html", asked: http.Header{"If-None-Match": {`"p1"`}}, earlier: "<html>page</html>", typ: "text/html"},
		{name: "revisit of a page", url: "http://a.test/copy.html", asked: http.Header{"If-None-Match": {`"p2"`}}, earlier: "<html>page</html>", typ: "text/html"},
		{name: "page sent gzip in chunks", url: "http://a.test/zipped.html", asked: http.Header{"If-None-Match": {`"z1"`}}, earlier: string(zippedPage), typ: "text/html"},
		{name: "style sheet", url: "https://a.test/style.css", asked: http.Header{"If-Modified-Since": {lm}}, earlier: "p { color: red }", typ: "text/css"},
		{name: "no type", url: "http://a.test/untyped", asked: http.Header{"If-None-Match": {`"u"`}}, earlier: "what am I"},
		{name: "image", url: "http://a.test/img.png", asked: http.Header{"If-None-Match": {`"i1"`}, "If-Modified-Since": {lm}}, typ: "image/png"},
		{name: "revisit of an image", url: "http://a.test/copy.png", asked: http.Header{"If-None-Match": {`"c1"`}}, typ: "image/png"},
		// Its type is its original's, which is in no crawl given.
		{name: "304 whose original is not given", url: "http://a.test/old.png"},
		{name: "page the browser renders", url: "http://a.test/page.html", render: true},
		{name: "image the browser loads", url: "http://a.test/img.png", render: true, asked: http.Header{"If-None-Match": {`"i1"`}, "If-Modified-Since": {lm}}, typ: "image/png"},
		{name: "sitemap file", url: "http://a.test/page.html", sitemap: true},
		{name: "not captured with validators", url: "http://a.test/plain.png"},
	}
	moved := filepath.Join(t.TempDir(), "moved")
	for _, src := range []struct {
		name string
		path string
		gone bool // moved away after loading: nothing can be read back
	}{
		{name: "crawl directory", path: pc.dir},
		{name: "wacz", path: writeWACZ(t, pc, false)},
		{name: "wacz with index.cdx.gz", path: writeWACZ(t, pc, true)},
		{name: "moved away", path: pc.dir, gone: true},
	} {
		t.Run(src.name, func(t *testing.T) {
			c := testConfig(t, Config{RecrawlOf: src.path})
			if err := Load(t.Context(), c); err != nil {
				t.Fatal(err)
			}
			if src.gone {
				if err := os.Rename(src.path, moved); err != nil {
					t.Fatal(err)
				}
				defer os.Rename(moved, src.path)
			}
			p := NewRecrawl(t.Context(), c, reads)
			defer p.Close()
			for _, tc := range rows {
				if src.gone && tc.earlier != "" {
					tc.asked, tc.earlier = nil, ""
				}
				t.Run(tc.name, func(t *testing.T) {
					checkReadBack(t, p, client, tc.url, tc.render, tc.sitemap, tc.asked, tc.earlier, tc.typ)
				})
			}
		})
	}
}

// checkReadBack takes a record of rawURL through Recrawl's Before, a 304 and its After, and a
// second one through Before, a 200 and After, and checks what they made of it: the fields
// asked, the content read back and the 304's type.
func checkReadBack(t *testing.T, p *Recrawl, client *fetch.Client, rawURL string, render, sitemap bool, asked http.Header, earlier, typ string) {
	t.Helper()
	record := func() *chain.Record {
		return &chain.Record{Claim: &frontier.Claim{URL: frontier.URL{URL: rawURL, Sitemap: sitemap}},
			Settings: &chain.Settings{Client: client, Render: render}, Request: fetch.Request{URL: rawURL}}
	}
	answer := func(r *chain.Record, resp string) {
		ex, err := client.ReadResponse(t.Context(), rawURL, strings.NewReader(resp), "")
		if err != nil {
			t.Fatal(err)
		}
		r.Result = &fetch.Result{Exchanges: []*fetch.Exchange{ex}}
		r.Captures = make([]chain.Capture, 1)
		if v, err := p.After(t.Context(), r); err != nil || v.Done {
			t.Fatalf("After: %+v, %v", v, err)
		}
	}

	r := record()
	if v, err := p.Before(t.Context(), r); err != nil || v.Done {
		t.Fatalf("Before: %+v, %v", v, err)
	}
	got := http.Header{}
	for _, k := range []string{"If-None-Match", "If-Modified-Since"} {
		if v := r.Request.Header.Values(k); len(v) > 0 {
			got[k] = v
		}
	}
	if len(got) == 0 {
		got = nil
	}
	if d := cmp.Diff(asked, got); d != "" {
		t.Errorf("conditional fields (-want +got):\n%s", d)
	}
	if (r.NotModified != nil) != (asked != nil) {
		t.Errorf("NotModified = %+v with fields %v", r.NotModified, got)
	}
	if (r.Earlier != nil) != (earlier != "") {
		t.Fatalf("Earlier = %v, want one: %v", r.Earlier, earlier != "")
	}
	answer(r, "HTTP/1.1 304 Not Modified\r\n\r\n")
	if asked != nil && (r.Captures[0].NotModified != r.NotModified || r.Captures[0].Type != typ) {
		t.Errorf("the 304's capture: a revisit of %+v of type %q, want of %+v, %q", r.Captures[0].NotModified, r.Captures[0].Type, r.NotModified, typ)
	}
	if r.Content.Unread != (asked != nil && earlier == "") {
		t.Errorf("Content.Unread = %v", r.Content.Unread)
	}
	if earlier != "" {
		shown := r.Shown()
		if shown != r.Earlier || shown.StatusCode != http.StatusOK || shown.URL != rawURL {
			t.Errorf("Shown = %p %d %s, want Earlier %p, a 200 of %s", shown, shown.StatusCode, shown.URL, r.Earlier, rawURL)
		}
		if b, err := shown.ReadBody(1 << 20); err != nil || string(b) != earlier {
			t.Errorf("earlier content %q, %v; want %q", b, err, earlier)
		}
	}
	p.Release(r)
	r.Result.Close()
	if r.Earlier != nil {
		t.Error("Earlier kept after Release")
	}

	// Changed: the 200 is read, the capture read back is let go.
	r = record()
	if _, err := p.Before(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	answer(r, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nnew")
	defer r.Result.Close()
	if r.Earlier != nil || r.Shown() != r.Result.Exchanges[0] || r.Captures[0].NotModified != nil || r.Content.Unread {
		t.Errorf("after a 200: Earlier %v, Shown %p (the 200 %p), NotModified %v, Unread %v", r.Earlier, r.Shown(), r.Result.Exchanges[0],
			r.Captures[0].NotModified, r.Content.Unread)
	}
}

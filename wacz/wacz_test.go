package wacz_test

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gowarc "github.com/nlnwa/gowarc/v2"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/wacz"
)

// crawlSite crawls the test site testdata/sites/SITE from seeds into a new crawl directory
// (see crawlServer) and returns the directory.
func crawlSite(t *testing.T, site string, seeds []string, warcMaxSize int64) string {
	t.Helper()
	srv, err := testsite.Start(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", site))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	return crawlServer(t, srv, site, seeds, warcMaxSize)
}

// crawlServer crawls srv from seeds into a new crawl directory, with the collection and seeds
// recorded in crawl.yaml as amber crawl records them, and returns the directory. warcMaxSize
// > 0 rotates WARC files at that size.
func crawlServer(tb testing.TB, srv *testsite.Server, collection string, seeds []string, warcMaxSize int64) string {
	tb.Helper()
	ct, err := fetch.ParseConnectTo(srv.ConnectTo())
	if err != nil {
		tb.Fatal(err)
	}
	cfg := crawl.DefaultConfig()
	cfg.Dir = filepath.Join(tb.TempDir(), "crawl")
	cfg.Collection = collection
	yml := "collection: " + collection + "\nseeds:\n"
	for _, s := range seeds {
		cfg.Scope.Seeds = append(cfg.Scope.Seeds, scope.Seed{URL: s, Type: scope.StandardSeed})
		yml += "  - url: " + s + "\n    type: standard\n"
	}
	cfg.EffectiveConfig = []byte(yml)
	cfg.Workers = 4
	cfg.HostDelay = 0
	cfg.HostConcurrency = 4
	cfg.MaxAttempts = 1
	cfg.ProgressEvery = -1
	if warcMaxSize > 0 {
		cfg.WARCMaxSize = warcMaxSize
	}
	cfg.Fetch = fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true, ConnectTo: []fetch.ConnectTo{ct}}
	res, err := crawl.Run(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		tb.Fatalf("crawl ended %q", res.End)
	}
	return cfg.Dir
}

// pkgLine is a line of pages.jsonl.
type pkgLine struct {
	ID    string `json:"id"`
	URL   string `json:"url"`
	TS    string `json:"ts"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// datapackage is datapackage.json as a reader sees it.
type datapackage struct {
	Profile      string          `json:"profile"`
	WACZVersion  string          `json:"wacz_version"`
	Title        string          `json:"title"`
	Created      string          `json:"created"`
	Software     string          `json:"software"`
	MainPageURL  string          `json:"mainPageUrl"`
	MainPageDate string          `json:"mainPageDate"`
	Resources    []wacz.Resource `json:"resources"`
}

// opened is a WACZ read back by checkPackage.
type opened struct {
	dp    datapackage
	pages []pkgLine // pages.jsonl's, then extraPages.jsonl's
	main  []string  // the URLs of pages.jsonl
	index []string  // the CDXJ lines, from index.cdxj or every block of index.cdx.gz
	names []string  // entry names in order
}

// checkPackage checks what every package must be, with readers other than wacz's own: unzip
// -t passes; every entry is stored; datapackage.json lists every other entry once with its
// SHA-256 and size, and datapackage-digest.json the SHA-256 of datapackage.json; archive/
// holds the crawl's WARC files byte for byte; each index line (read through index.idx when
// the index is compressed) points, inside the package file, at a WARC record of its URL;
// pages.jsonl starts with its header and has unique ids and RFC 3339 times.
func checkPackage(t *testing.T, path string, warcs []string) opened {
	t.Helper()
	unzipTest(t, path)
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	raw, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()

	var o opened
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		if f.Method != zip.Store {
			t.Errorf("%s: method %d, want stored (0)", f.Name, f.Method)
		}
		if files[f.Name] != nil {
			t.Errorf("%s twice in the package", f.Name)
		}
		files[f.Name] = f
		o.names = append(o.names, f.Name)
	}
	read := func(name string) []byte {
		f := files[name]
		if f == nil {
			t.Fatalf("no %s in the package (%v)", name, o.names)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return b
	}
	hash := func(b []byte) string {
		s := sha256.Sum256(b)
		return "sha256:" + hex.EncodeToString(s[:])
	}

	// The manifest and its digest.
	dpBytes := read(wacz.DatapackageFile)
	if err := json.Unmarshal(dpBytes, &o.dp); err != nil {
		t.Fatal(err)
	}
	var digest struct{ Path, Hash string }
	if err := json.Unmarshal(read(wacz.DatapackageDigest), &digest); err != nil {
		t.Fatal(err)
	}
	if digest.Path != "datapackage.json" || digest.Hash != hash(dpBytes) {
		t.Errorf("datapackage-digest.json = %+v, want path datapackage.json and hash %s", digest, hash(dpBytes))
	}
	if o.dp.Profile != "data-package" || o.dp.WACZVersion != "1.1.1" || o.dp.Software == "" || o.dp.Title == "" {
		t.Errorf("datapackage.json: profile %q, wacz_version %q, software %q, title %q", o.dp.Profile, o.dp.WACZVersion, o.dp.Software, o.dp.Title)
	}
	if _, err := time.Parse(time.RFC3339, o.dp.Created); err != nil {
		t.Errorf("created: %v", err)
	}
	listed := map[string]bool{}
	for _, r := range o.dp.Resources {
		listed[r.Path] = true
		b := read(r.Path)
		if r.Hash != hash(b) || r.Bytes != int64(len(b)) {
			t.Errorf("resource %s: hash %s bytes %d, entry has %s and %d bytes", r.Path, r.Hash, r.Bytes, hash(b), len(b))
		}
		if r.Name != strings.ToLower(filepath.Base(r.Path)) {
			t.Errorf("resource %s named %q", r.Path, r.Name)
		}
	}
	for _, n := range o.names {
		if !listed[n] && n != wacz.DatapackageFile && n != wacz.DatapackageDigest {
			t.Errorf("%s is not in datapackage.json's resources", n)
		}
	}

	// archive/ is the WARC files as they are.
	var archived []string
	for _, n := range o.names {
		if strings.HasPrefix(n, "archive/") {
			archived = append(archived, n)
		}
	}
	var want []string
	for _, w := range warcs {
		want = append(want, "archive/"+filepath.Base(w))
		b, err := os.ReadFile(w)
		if err != nil {
			t.Fatal(err)
		}
		if got := read("archive/" + filepath.Base(w)); !bytes.Equal(got, b) {
			t.Errorf("archive/%s differs from %s", filepath.Base(w), w)
		}
	}
	if diff := cmp.Diff(want, archived); diff != "" {
		t.Errorf("archive/ entries (-want +got):\n%s", diff)
	}

	// The index, plain or through its IDX.
	switch {
	case files[wacz.IndexCDXJ] != nil:
		if files[wacz.IndexCDXGZ] != nil || files[wacz.IndexIDX] != nil {
			t.Errorf("both index forms in the package: %v", o.names)
		}
		o.index = splitLines(t, read(wacz.IndexCDXJ))
	case files[wacz.IndexIDX] != nil:
		o.index = readCompressedIndex(t, read(wacz.IndexIDX), read(wacz.IndexCDXGZ))
	default:
		t.Fatalf("no index in the package: %v", o.names)
	}
	if !slices.IsSorted(o.index) {
		t.Errorf("index lines not sorted")
	}
	for _, l := range o.index {
		checkIndexLine(t, raw, files, l)
	}

	// pages.jsonl, and extraPages.jsonl when there is one.
	ids := map[string]bool{}
	for _, pf := range []struct{ name, header string }{
		{wacz.PagesFile, `{"format": "json-pages-1.0", "id": "pages", "title": "All Pages"}`},
		{wacz.ExtraPagesFile, `{"format": "json-pages-1.0", "id": "extra-pages", "title": "Extra Pages"}`},
	} {
		if files[pf.name] == nil && pf.name == wacz.ExtraPagesFile {
			continue
		}
		pages := splitLines(t, read(pf.name))
		if len(pages) == 0 || pages[0] != pf.header {
			t.Fatalf("%s header: %q", pf.name, pages)
		}
		for _, l := range pages[1:] {
			var p pkgLine
			if err := json.Unmarshal([]byte(l), &p); err != nil {
				t.Fatalf("%s: %v: %s", pf.name, err, l)
			}
			if _, err := time.Parse(time.RFC3339, p.TS); err != nil || p.ID == "" || ids[p.ID] || p.URL == "" {
				t.Errorf("page %s: ts %q (%v), id %q (seen %v)", p.URL, p.TS, err, p.ID, ids[p.ID])
			}
			ids[p.ID] = true
			if pf.name == wacz.PagesFile {
				o.main = append(o.main, p.URL)
			}
			o.pages = append(o.pages, p)
		}
	}
	return o
}

// unzipTest runs Info-ZIP's unzip -t on the package: every entry's CRC and sizes, read as
// another ZIP implementation reads them. Without unzip the check is skipped, except in CI.
func unzipTest(t *testing.T, path string) {
	t.Helper()
	bin, err := exec.LookPath("unzip")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("unzip is required in CI (apt-get install -y unzip): %v", err)
		}
		t.Logf("unzip not installed (apt-get install -y unzip): unzip -t skipped")
		return
	}
	out, err := exec.Command(bin, "-t", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "No errors detected") {
		t.Errorf("unzip -t %s: %v\n%s", path, err, out)
	}
}

// splitLines splits text whose every line ends in "\n".
func splitLines(t *testing.T, b []byte) []string {
	t.Helper()
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Errorf("last line not terminated: %.80q", b[max(0, len(b)-80):])
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// readCompressedIndex reads every block the IDX names out of index.cdx.gz, checking the IDX
// (its !meta line, blocks one after the other covering the whole file, each with its digest
// and the key of its first line) and that each block is a gzip member of its own.
func readCompressedIndex(t *testing.T, idx, cdxgz []byte) []string {
	t.Helper()
	lines := splitLines(t, idx)
	if lines[0] != `!meta 0 {"format":"cdxj-gzip-1.0","filename":"index.cdx.gz"}` {
		t.Errorf("idx meta line %q", lines[0])
	}
	var out []string
	var next int64
	for _, l := range lines[1:] {
		key, js, ok := strings.Cut(l, " {")
		if !ok {
			t.Fatalf("idx line %q", l)
		}
		var loc struct {
			Offset   int64  `json:"offset"`
			Length   int64  `json:"length"`
			Digest   string `json:"digest"`
			Filename string `json:"filename"`
		}
		if err := json.Unmarshal([]byte("{"+js), &loc); err != nil {
			t.Fatalf("idx line %q: %v", l, err)
		}
		if loc.Offset != next || loc.Filename != "index.cdx.gz" || loc.Offset+loc.Length > int64(len(cdxgz)) {
			t.Fatalf("idx line %q: want offset %d in index.cdx.gz of %d bytes", l, next, len(cdxgz))
		}
		member := cdxgz[loc.Offset : loc.Offset+loc.Length]
		next += loc.Length
		sum := sha256.Sum256(member)
		if loc.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
			t.Errorf("idx line %q: digest of the block is %x", l, sum)
		}
		zr, err := gzip.NewReader(bytes.NewReader(member))
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		block, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("block at %d: %v", loc.Offset, err)
		}
		bl := splitLines(t, block)
		if !strings.HasPrefix(bl[0], key+" {") {
			t.Errorf("block at %d starts with %q, idx key %q", loc.Offset, bl[0], key)
		}
		out = append(out, bl...)
	}
	if next != int64(len(cdxgz)) {
		t.Errorf("idx covers %d of %d bytes of index.cdx.gz", next, len(cdxgz))
	}
	return out
}

// checkIndexLine reads, in the package file itself, the WARC record an index line points at
// (archive/FILENAME's data offset plus the line's offset, the line's length) with gowarc and
// checks its type and target URI.
func checkIndexLine(t *testing.T, raw *os.File, files map[string]*zip.File, line string) {
	t.Helper()
	_, js, ok := strings.Cut(line, " {")
	if !ok {
		t.Fatalf("index line %q", line)
	}
	var l struct{ URL, Offset, Length, Filename string }
	if err := json.Unmarshal([]byte("{"+js), &l); err != nil {
		t.Fatalf("index line %q: %v", line, err)
	}
	f := files["archive/"+l.Filename]
	if f == nil {
		t.Errorf("index line %q: no archive/%s", line, l.Filename)
		return
	}
	off, err1 := strconv.ParseInt(l.Offset, 10, 64)
	n, err2 := strconv.ParseInt(l.Length, 10, 64)
	start, err3 := f.DataOffset()
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatalf("index line %q: %v", line, err)
	}
	rd, err := gowarc.NewWarcFileReaderFromStream(io.NewSectionReader(raw, start+off, n), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rec, _, _, err := rd.Next()
	if err != nil {
		t.Errorf("index line %q: no record at offset %d: %v", line, off, err)
		return
	}
	defer rec.Close()
	switch rec.Type() {
	case gowarc.Response, gowarc.Revisit, gowarc.Resource, gowarc.Metadata:
	default:
		t.Errorf("index line %q: a %s record", line, rec.Type())
	}
	if uri := rec.WarcHeader().Get(gowarc.WarcTargetURI); uri != l.URL {
		t.Errorf("index line %q: record for %s", line, uri)
	}
}

// crawlIndex returns the crawl's own sorted CDXJ lines.
func crawlIndex(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, crawl.CDXJFile))
	if err != nil {
		t.Fatal(err)
	}
	return splitLines(t, b)
}

// warcFiles returns the crawl's closed WARC files in name order.
func warcFiles(t *testing.T, dir string) []string {
	t.Helper()
	ws, err := filepath.Glob(filepath.Join(dir, crawl.WARCDir, "*.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ws)
	return ws
}

// noLeftovers checks that dir holds nothing but the names given: no temporary package or
// work directory left behind.
func noLeftovers(t *testing.T, dir string, want ...string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", dir, diff)
	}
}

// docsPages are the pages of the docs site: URL -> title ("" when the page has no search
// document).
var docsPages = map[string]string{
	"http://www.example.com/":                   "Docs home",
	"http://www.example.com/a.html":             "Article A",
	"http://www.example.com/a-copy.html":        "Article A", // a duplicate: the document's additional_urls
	"http://www.example.com/b.html":             "Article B",
	"http://www.example.com/b-print.html":       "Article B", // canonical: b.html
	"http://www.example.com/secret.html":        "",          // noindex: listed, no document
	"http://www.example.com/meta-nofollow.html": "Meta nofollow",
	"http://www.example.com/from-secret.html":   "From secret",
}

// TestWrite packages crawls of the test sites and checks each package: what every package must
// be (checkPackage), the index form chosen by size, the index lines the same as the crawl's,
// and exactly the expected pages with their titles and text.
func TestWrite(t *testing.T) {
	docs := crawlSite(t, "docs", []string{"http://www.example.com/"}, 0)
	// The first seed redirects: the redirect is its page, and the target is a page too.
	basic := crawlSite(t, "basic", []string{"http://museum.example.com/", "http://www.example.com/dir/"}, 0)
	basicPages := map[string]string{
		"http://museum.example.com/":            "", // a 301: a seed, no document
		"http://www.example.com/":               "Example Museum",
		"http://www.example.com/about.html":     "About the Example Museum",
		"http://www.example.com/dir/":           "The collection",
		"http://www.example.com/dir/item1.html": "Item 1",
		"http://www.example.com/copy1.html":     "A page served twice",
		"http://www.example.com/copy2.html":     "A page served twice", // a revisit
		"http://www.example.com/new.html":       "The new page",
	}
	for _, tc := range []struct {
		name           string
		dir            string
		opts           wacz.Options
		wantCompressed bool
		wantPages      map[string]string
		wantExtra      int      // pages in extraPages.jsonl
		wantList       []string // pages.jsonl's URLs (sorted) when there is an extraPages.jsonl
		wantMain       string
		wantTitle      string
	}{
		{name: "docs", dir: docs, wantPages: docsPages, wantMain: "http://www.example.com/", wantTitle: "docs"},
		{name: "docs-compressed", dir: docs, opts: wacz.Options{IndexThreshold: 1000, IndexBlockLines: 3, Title: "Docs site"},
			wantCompressed: true, wantPages: docsPages, wantMain: "http://www.example.com/", wantTitle: "Docs site"},
		{name: "docs-pages-at-limit", dir: docs, opts: wacz.Options{PagesLimit: 8},
			wantPages: docsPages, wantMain: "http://www.example.com/", wantTitle: "docs"},
		{name: "docs-pages-over-limit", dir: docs, opts: wacz.Options{PagesLimit: 7},
			wantPages: docsPages, wantExtra: 7, wantList: []string{"http://www.example.com/"}, wantMain: "http://www.example.com/", wantTitle: "docs"},
		{name: "basic", dir: basic, wantPages: basicPages, wantMain: "http://museum.example.com/", wantTitle: "basic"},
		{name: "basic-always-compressed-and-apart", dir: basic, opts: wacz.Options{IndexThreshold: -1, PagesLimit: -1},
			wantCompressed: true, wantPages: basicPages, wantExtra: 6, wantList: []string{"http://museum.example.com/", "http://www.example.com/dir/"},
			wantMain: "http://museum.example.com/", wantTitle: "basic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outDir := t.TempDir()
			out := filepath.Join(outDir, "x.wacz")
			res, err := wacz.Write(t.Context(), tc.dir, out, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			noLeftovers(t, outDir, "x.wacz")
			warcs := warcFiles(t, tc.dir)
			o := checkPackage(t, out, warcs)

			st, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o644 {
				t.Errorf("%s: mode %v, want -rw-r--r--", out, st.Mode())
			}
			want := wacz.Result{Path: out, Bytes: st.Size(), Resources: o.dp.Resources, WARCs: len(warcs),
				WARCBytes: res.WARCBytes, Pages: len(tc.wantPages), ExtraPages: tc.wantExtra, IndexLines: len(crawlIndex(t, tc.dir)),
				CompressedIndex: tc.wantCompressed, MainPageURL: tc.wantMain}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("Result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(crawlIndex(t, tc.dir), o.index); diff != "" {
				t.Errorf("index lines differ from the crawl's (-want +got):\n%s", diff)
			}
			if o.dp.MainPageURL != tc.wantMain || o.dp.Title != tc.wantTitle {
				t.Errorf("mainPageUrl %q, title %q; want %q, %q", o.dp.MainPageURL, o.dp.Title, tc.wantMain, tc.wantTitle)
			}
			got := map[string]string{}
			for _, p := range o.pages {
				if _, dup := got[p.URL]; dup {
					t.Errorf("page %s twice", p.URL)
				}
				got[p.URL] = p.Title
				if (p.Title != "") != (p.Text != "") {
					t.Errorf("page %s: title %q, text %q: want both or neither", p.URL, p.Title, p.Text)
				}
				if p.URL == tc.wantMain && p.TS != o.dp.MainPageDate {
					t.Errorf("mainPageDate %q, the main page's ts %q", o.dp.MainPageDate, p.TS)
				}
			}
			if diff := cmp.Diff(tc.wantPages, got); diff != "" {
				t.Errorf("pages (-want +got):\n%s", diff)
			}
			switch {
			case tc.wantList != nil:
				slices.Sort(o.main)
				if diff := cmp.Diff(tc.wantList, o.main); diff != "" {
					t.Errorf("pages.jsonl (-want +got):\n%s", diff)
				}
			case slices.Contains(o.names, wacz.ExtraPagesFile) || len(o.main) != len(tc.wantPages):
				t.Errorf("pages.jsonl lists %d pages (entries %v), want all %d", len(o.main), o.names, len(tc.wantPages))
			}
		})
	}
}

// TestWriteKilledCrawl packages a crawl that was killed while writing its last WARC file: the
// .open file is left out, with the index lines and pages that point into it, the index is
// sorted from live.cdxj (the sorted one misses the last run), torn last lines are ignored,
// and the crawl directory is not changed.
func TestWriteKilledCrawl(t *testing.T) {
	dir := crawlSite(t, "docs", []string{"http://www.example.com/"}, 4000)
	warcs := warcFiles(t, dir)
	if len(warcs) < 3 {
		t.Fatalf("want several WARC files, got %v", warcs)
	}
	// What a kill -9 leaves: the last file still .open, the sorted index of the run before
	// (here: without the lines of the last file's records), torn last lines. The file made
	// .open is the last one with a page in it, so that some pages are left out.
	inFile := map[string][]string{} // WARC file name -> the pages captured into it
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
		if _, ok := docsPages[l.URL]; ok {
			fn, _ := l.Extra["warcFilename"].(string)
			inFile[fn] = append(inFile[fn], l.URL)
		}
	}
	last := ""
	for _, w := range warcs {
		if len(inFile[filepath.Base(w)]) > 0 {
			last = w
		}
	}
	wantPages := map[string]string{}
	for u, title := range docsPages {
		if !slices.Contains(inFile[filepath.Base(last)], u) {
			wantPages[u] = title
		}
	}
	if err := os.Rename(last, last+".open"); err != nil {
		t.Fatal(err)
	}
	all := crawlIndex(t, dir)
	var kept []string
	for _, l := range all {
		if !strings.Contains(l, `"filename":"`+filepath.Base(last)+`"`) {
			kept = append(kept, l)
		}
	}
	if len(kept) == len(all) {
		t.Fatalf("no index line points into %s", last)
	}
	stale := strings.Join(kept[:len(kept)/2], "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, crawl.CDXJFile), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{crawl.LiveCDXJFile, crawl.CrawlLogFile, crawl.DocumentsFile} {
		appendFile(t, filepath.Join(dir, f), `{"torn`)
	}
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(filepath.Join(dir, crawl.LiveCDXJFile), later, later); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, dir)

	out := filepath.Join(t.TempDir(), "killed.wacz")
	res, err := wacz.Write(t.Context(), dir, out, wacz.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := checkPackage(t, out, slices.DeleteFunc(slices.Clone(warcs), func(w string) bool { return w == last }))
	if diff := cmp.Diff([]string{last + ".open"}, res.Skipped); diff != "" {
		t.Errorf("Skipped (-want +got):\n%s", diff)
	}
	// Dropped: the lines of the .open file's records, and the torn line.
	if !res.IndexResorted || res.DroppedLines != len(all)-len(kept)+1 || res.IndexLines != len(kept) {
		t.Errorf("resorted %v, dropped %d, lines %d; want true, %d, %d", res.IndexResorted, res.DroppedLines, res.IndexLines, len(all)-len(kept)+1, len(kept))
	}
	if diff := cmp.Diff(kept, o.index); diff != "" {
		t.Errorf("index (-want +got):\n%s", diff)
	}
	// Only pages captured into the packaged files.
	got := map[string]string{}
	for _, p := range o.pages {
		got[p.URL] = p.Title
	}
	if diff := cmp.Diff(wantPages, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, dirState(t, dir)); diff != "" {
		t.Errorf("the crawl directory changed (-before +after):\n%s", diff)
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// dirState is the path, size and modification time of every file under dir but the state.
func dirState(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == crawl.StateDir {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out = append(out, p+" "+strconv.FormatInt(info.Size(), 10)+" "+info.ModTime().String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestWriteErrors: each refusal is its error, and nothing is left behind.
func TestWriteErrors(t *testing.T) {
	dir := crawlSite(t, "docs", []string{"http://www.example.com/"}, 0)
	empty := t.TempDir()
	if err := os.Mkdir(filepath.Join(empty, crawl.StateDir), 0o755); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		dir  string
		out  string // base name in a new directory
		lock bool   // a crawl holds the directory
		want error
	}{
		{name: "not a crawl directory", dir: t.TempDir(), out: "x.wacz", want: wacz.ErrNotCrawlDir},
		{name: "missing directory", dir: filepath.Join(t.TempDir(), "nothing"), out: "x.wacz", want: wacz.ErrNotCrawlDir},
		{name: "not .wacz", dir: dir, out: "x.zip", want: wacz.ErrOutput},
		{name: "bare suffix", dir: dir, out: ".wacz", want: wacz.ErrOutput},
		{name: "no WARC files", dir: empty, out: "x.wacz", want: wacz.ErrNoWARCs},
		{name: "in use", dir: dir, out: "x.wacz", lock: true, want: wacz.ErrInUse},
		{name: "cancelled", ctx: cancelled, dir: dir, out: "x.wacz", want: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.lock {
				f, err := frontier.Open(frontier.Config{Dir: filepath.Join(tc.dir, crawl.StateDir)})
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
			}
			ctx := tc.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			outDir := t.TempDir()
			_, err := wacz.Write(ctx, tc.dir, filepath.Join(outDir, tc.out), wacz.Options{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			noLeftovers(t, outDir)
		})
	}
	// The refusals left the crawl directory usable.
	if _, err := wacz.Write(t.Context(), dir, filepath.Join(t.TempDir(), "ok.wacz"), wacz.Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestDefaultPath: DIR/COLLECTION.wacz, COLLECTION from crawl.yaml when it is a file name.
func TestDefaultPath(t *testing.T) {
	for _, tc := range []struct {
		yaml string // "" for no crawl.yaml
		want string
	}{
		{"collection: museums\n", "museums.wacz"},
		{"seeds: [http://a.example/]\n", "crawl.wacz"},
		{"collection: a/b\n", "crawl.wacz"},
		{"collection: ..\n", "crawl.wacz"},
		{"collection: [not, a, string\n", "crawl.wacz"},
		{"", "crawl.wacz"},
	} {
		dir := t.TempDir()
		if tc.yaml != "" {
			if err := os.WriteFile(filepath.Join(dir, crawl.ConfigFile), []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := wacz.DefaultPath(dir); got != filepath.Join(dir, tc.want) {
			t.Errorf("%q: DefaultPath = %s, want %s", tc.yaml, got, tc.want)
		}
	}
}

package wacz

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/report"

	kgzip "github.com/klauspost/compress/gzip"
)

// TestCrawlDirLayout: the paths wacz reads are those the crawl writes (package crawldir,
// whose names the crawl's are; this test cannot import the crawl, which imports wacz through
// replay).
func TestCrawlDirLayout(t *testing.T) {
	for _, tc := range []struct{ wacz, crawl string }{
		{crawlConfigFile, crawldir.ConfigFile},
		{crawlStateDir, crawldir.StateDir},
		{crawlWARCDir, crawldir.WARCDir},
		{crawlSortedCDXJ, crawldir.CDXJFile},
		{crawlLiveCDXJ, crawldir.LiveCDXJFile},
		{crawlLogFile, crawldir.CrawlLogFile},
		{crawlDocuments, crawldir.DocumentsFile},
	} {
		if tc.wacz != tc.crawl {
			t.Errorf("wacz reads %q where the crawl writes %q", tc.wacz, tc.crawl)
		}
	}
}

// TestIsPage: a page is a seed, or what a browser navigates to that is an HTML page answered
// 2xx, or 304 to a recrawl (a revisit of the earlier capture, of its type); not one whose
// body was not fetched for its type.
func TestIsPage(t *testing.T) {
	nm := []string{"duplicate:server-not-modified"}
	for _, tc := range []struct {
		name string
		l    report.Line
		want bool
	}{
		{"seed", report.Line{Status: 404, Hops: "", MIME: "text/plain"}, true},
		{"page", report.Line{Status: 200, Hops: "L", MIME: "text/html"}, true},
		{"xhtml after a redirect", report.Line{Status: 203, Hops: "LR", MIME: "application/xhtml+xml"}, true},
		{"image", report.Line{Status: 200, Hops: "L", MIME: "image/png"}, false},
		{"embedded page", report.Line{Status: 200, Hops: "LE", MIME: "text/html"}, false},
		{"redirect", report.Line{Status: 301, Hops: "L", MIME: "text/html"}, false},
		{"not found", report.Line{Status: 404, Hops: "L", MIME: "text/html"}, false},
		{"recrawl's 304", report.Line{Status: 304, Hops: "L", MIME: "text/html", Annotations: nm}, true},
		{"recrawl's 304 of an image", report.Line{Status: 304, Hops: "L", MIME: "image/png", Annotations: nm}, false},
		{"304 to a plain request", report.Line{Status: 304, Hops: "L", MIME: "text/html"}, false},
		{"no response", report.Line{Status: -2, Hops: "", MIME: ""}, false},
		{"archived though left unread", report.Line{Status: 200, Hops: "L", MIME: "text/html", Annotations: []string{"type-excluded:text/html"}}, true},
		{"a seed not fetched", report.Line{Status: 200, MIME: "application/zip", Annotations: []string{"type-not-fetched:application/zip", "bytes-not-fetched:9"}}, false},
		{"a page not fetched", report.Line{Status: 200, Hops: "L", MIME: "text/html", Annotations: []string{"type-not-fetched:text/html", "bytes-not-fetched:unknown"}}, false},
	} {
		if got := isPage(tc.l); got != tc.want {
			t.Errorf("%s: isPage = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNormURL(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"http://www.example.com", "http://www.example.com/"},
		{"HTTP://WWW.Example.COM/", "http://www.example.com/"},
		{"http://www.example.com:80/a", "http://www.example.com/a"},
		{"https://www.example.com:443/", "https://www.example.com/"},
		{"http://www.example.com/a?b=1", "http://www.example.com/a?b=1"},
		{"http://[::1]:8080/", "http://[::1]:8080/"},
		{"http://[::1]:80/", "http://[::1]/"},
	} {
		if normURL(tc.a) != normURL(tc.b) || normURL(tc.a) == "" {
			t.Errorf("normURL(%q) = %q, normURL(%q) = %q: want the same", tc.a, normURL(tc.a), tc.b, normURL(tc.b))
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"http://www.example.com/a", "http://www.example.com/A"},         // paths are case-sensitive
		{"http://www.example.com:8080/", "http://www.example.com/"},      // not the default port
		{"https://www.example.com/", "http://www.example.com/"},          // another scheme
		{"http://www.example.com/?", "http://www.example.com/"},          // an empty query is a query
		{"http://www.example.com.evil/", "http://www.example.com/"},      // another host
		{"http://www.example.com/a?b=1", "http://www.example.com/a?b=2"}, // another query
		{"http://example.com/", "http://www.example.com/"},               // another host
		{"http://www.example.com/a/../b", "http://www.example.com/b"},    // as crawl.log writes it, not resolved
		{"http://www.example.com/%41", "http://www.example.com/A"},       // escapes are kept as written
		{"http://www.example.com/a#f", "http://www.example.com/a?#f"},    // ForceQuery differs
	} {
		if normURL(tc.a) == normURL(tc.b) {
			t.Errorf("normURL(%q) = normURL(%q) = %q: want different", tc.a, tc.b, normURL(tc.a))
		}
	}
	for _, s := range []string{"", "not a url", "/relative", "mailto:a@b"} {
		if got := normURL(s); got != "" {
			t.Errorf("normURL(%q) = %q, want \"\"", s, got)
		}
	}
}

// indexLines makes sorted-looking CDXJ lines from fuzz input: each "\n"-separated piece
// becomes a key.
func indexLines(data string) []string {
	var lines []string
	for i, k := range strings.Split(data, "\n") {
		k = strings.Map(func(r rune) rune {
			if r == ' ' || r < 0x20 {
				return '_'
			}
			return r
		}, k)
		js, _ := json.Marshal(map[string]string{"url": k, "offset": fmt.Sprint(i), "filename": "a.warc.gz"})
		lines = append(lines, "k"+k+" 20260101000000 "+string(js)+"\n")
	}
	return lines
}

// FuzzBlockWriter: whatever the lines and the block size, every IDX line locates a gzip member
// of its own, with its digest, starting with the IDX key, the members follow each other, and
// decompressed in IDX order they give back the lines.
// blockLocation is where an index.idx line says a block of index.cdx.gz is.
type blockLocation struct {
	Offset, Length int64
	Digest         string
}

// idxLocation reads the JSON of an index.idx line, its keys exactly as pywb and wabac.js read
// them ("offset", not "Offset", which json.Unmarshal into a struct would also take).
func idxLocation(js string) (blockLocation, error) {
	var m map[string]json.RawMessage
	var loc blockLocation
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		return loc, err
	}
	for key, dst := range map[string]any{"offset": &loc.Offset, "length": &loc.Length, "digest": &loc.Digest} {
		v, ok := m[key]
		if !ok {
			return loc, fmt.Errorf("no %q", key)
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return loc, fmt.Errorf("%s: %w", key, err)
		}
	}
	return loc, nil
}

func FuzzBlockWriter(f *testing.F) {
	f.Add("a\nb\nc", 2)
	f.Add("", 1)
	f.Add("x\ny\nz\nw\nv\nu\nt", 3)
	f.Add(strings.Repeat("long line ", 1000), 256)
	// One gzip writer for every input, at the fastest level: the default level's writer is
	// a megabyte to make and its Reset, once per block, clears much of that, which held this
	// target to 75 inputs a second. The level changes the bytes of a block, not where blocks
	// begin and end nor what the index says of them, which is what this checks.
	gz, _ := kgzip.NewWriterLevel(io.Discard, kgzip.BestSpeed)
	f.Fuzz(func(t *testing.T, data string, n int) {
		n = 1 + abs(n)%300
		lines := indexLines(data)
		var out bytes.Buffer
		b := newBlockWriter(&out, n, "index.cdx.gz")
		b.gz = gz
		for _, l := range lines {
			if err := b.add([]byte(l)); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.flush(); err != nil {
			t.Fatal(err)
		}
		idx := strings.Split(strings.TrimSuffix(b.idx.String(), "\n"), "\n")
		if idx[0] != `!meta 0 {"format":"cdxj-gzip-1.0","filename":"index.cdx.gz"}` {
			t.Fatalf("meta line %q", idx[0])
		}
		if want := (len(lines) + n - 1) / n; len(idx)-1 != want {
			t.Fatalf("%d blocks for %d lines of %d, want %d", len(idx)-1, len(lines), n, want)
		}
		var got []string
		var next int64
		for _, l := range idx[1:] {
			key, js, _ := strings.Cut(l, " {")
			loc, err := idxLocation("{" + js)
			if err != nil {
				t.Fatalf("idx line %q: %v", l, err)
			}
			if loc.Offset != next || loc.Offset+loc.Length > int64(out.Len()) {
				t.Fatalf("idx line %q: want offset %d", l, next)
			}
			member := out.Bytes()[loc.Offset : loc.Offset+loc.Length]
			sum := sha256.Sum256(member)
			if loc.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
				t.Fatalf("idx line %q: digest", l)
			}
			next += loc.Length
			zr, err := gzip.NewReader(bytes.NewReader(member))
			if err != nil {
				t.Fatal(err)
			}
			zr.Multistream(false)
			block, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(block), key+" {") {
				t.Fatalf("block %q does not start with its key %q", block, key)
			}
			got = append(got, strings.SplitAfter(string(block), "\n")...)
			got = got[:len(got)-1] // SplitAfter's empty tail
		}
		if next != int64(out.Len()) {
			t.Fatalf("blocks cover %d of %d bytes", next, out.Len())
		}
		if strings.Join(got, "") != strings.Join(lines, "") {
			t.Fatalf("lines changed:\n%q\n%q", got, lines)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// TestEachLine: every "\n"-terminated line, long ones too, and not a torn last line.
func TestEachLine(t *testing.T) {
	long := strings.Repeat("x", 300<<10) + "\n"
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a\n", []string{"a\n"}},
		{"a\nb", []string{"a\n"}},
		{"a\n\nb\n", []string{"a\n", "\n", "b\n"}},
		{long + "torn", []string{long}},
		{"a\n" + long + long, []string{"a\n", long, long}},
		{strings.Repeat("y", 300<<10), nil},
	} {
		var got []string
		err := eachLine(context.Background(), strings.NewReader(tc.in), "t", func(l []byte) error {
			got = append(got, string(l))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("eachLine(%.20q...) = %d lines, want %d", tc.in, len(got), len(tc.want))
		}
	}
}

// FuzzDocKeys: docKeys and docText read from a line of documents.jsonl (as extract writes it,
// and in another key order) the same URLs, WARC location, title and text as decoding the
// whole line, whatever the text holds.
func FuzzDocKeys(f *testing.F) {
	f.Add("http://a.example/", "http://a.example/b", "Title", `Body ,"title":"x" "warc_filename":"y.warc.gz","warc_offset":5`, "a.warc.gz", int64(12), "custom")
	f.Add("http://a.example/", "", "", "", "", int64(0), "")
	f.Add("http://a.example/\"x", "http://a.example/\\", "\\\"", "\u2028", "b.warc.gz", int64(1<<40), `"warc_filename":"z"`)
	f.Fuzz(func(t *testing.T, u, extra, title, body, file string, offset int64, custom string) {
		if u == "" {
			return
		}
		d := extract.SearchDocument{ID: "1", URL: u, Title: title, BodyContent: body, WARCFilename: file, WARCOffset: offset}
		if extra != "" {
			d.AdditionalURLs = []string{extra}
		}
		if custom != "" {
			d.Fields = []extract.Field{{Name: "note", Values: []string{custom}}}
		}
		line := d.AppendJSON(nil)
		var want document
		if err := json.Unmarshal(line, &want); err != nil {
			t.Skip("not a document encoding/json reads")
		}
		wantTitle, wantBody := want.Title, want.BodyContent
		want.Title, want.BodyContent = "", ""
		gotTitle, gotBody, err := docText(line)
		if err != nil || gotTitle != wantTitle || gotBody != wantBody {
			t.Fatalf("docText(%s) = %q, %q, %v; want %q, %q", line, gotTitle, gotBody, err, wantTitle, wantBody)
		}
		got, err := docKeys(line)
		if err != nil {
			t.Fatal(err)
		}
		got.Title, got.BodyContent = "", "" // set when the line was decoded whole
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("docKeys(%s)\n= %+v\nwant %+v", line, got, want)
		}
		// Another order: additional_urls after the title. Decoded whole, to the same.
		js := func(v string) []byte { b, _ := json.Marshal(v); return b }
		other := fmt.Appendf(nil, `{"url":%s,"title":%s,"additional_urls":[%s],"warc_offset":%d,"warc_filename":%s}`, js(u), js(title), js(extra), offset, js(file))
		var want2 document
		if err := json.Unmarshal(other, &want2); err != nil {
			t.Fatal(err)
		}
		got2, err := docKeys(other)
		if err != nil {
			t.Fatal(err)
		}
		if gotTitle, gotBody, err := docText(other); err != nil || gotTitle != want2.Title || gotBody != "" {
			t.Fatalf("docText(%s) = %q, %q, %v; want %q, \"\"", other, gotTitle, gotBody, err, want2.Title)
		}
		want2.Title, got2.Title, got2.BodyContent = "", "", ""
		if fmt.Sprint(got2) != fmt.Sprint(want2) {
			t.Fatalf("docKeys(%s)\n= %+v\nwant %+v", other, got2, want2)
		}
	})
}

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

	"github.com/amber-crawler/amber/crawl"
)

// TestCrawlDirLayout: the paths wacz reads are the crawl package's.
func TestCrawlDirLayout(t *testing.T) {
	for _, tc := range []struct{ wacz, crawl string }{
		{crawlConfigFile, crawl.ConfigFile},
		{crawlStateDir, crawl.StateDir},
		{crawlWARCDir, crawl.WARCDir},
		{crawlSortedCDXJ, crawl.CDXJFile},
		{crawlLiveCDXJ, crawl.LiveCDXJFile},
		{crawlLogFile, crawl.CrawlLogFile},
		{crawlDocuments, crawl.DocumentsFile},
	} {
		if tc.wacz != tc.crawl {
			t.Errorf("wacz reads %q where the crawl writes %q", tc.wacz, tc.crawl)
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
func FuzzBlockWriter(f *testing.F) {
	f.Add("a\nb\nc", 2)
	f.Add("", 1)
	f.Add("x\ny\nz\nw\nv\nu\nt", 3)
	f.Add(strings.Repeat("long line ", 1000), 256)
	f.Fuzz(func(t *testing.T, data string, n int) {
		n = 1 + abs(n)%300
		lines := indexLines(data)
		var out bytes.Buffer
		b := newBlockWriter(&out, n, "index.cdx.gz")
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
			var loc struct {
				Offset, Length int64
				Digest         string
			}
			if err := json.Unmarshal([]byte("{"+js), &loc); err != nil {
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

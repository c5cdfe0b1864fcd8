package sitemap_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/amber-crawler/amber/sitemap"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r *bytes.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// FuzzParse: Parse never panics, honours its limits, keeps only trimmed http(s) URLs, returns
// a Result exactly when the document is a sitemap, and reads a gzip-compressed document as
// it reads the document itself.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		urlset("http://a.example/1", "http://a.example/?a=1&b=2", " https://a.example/3 "),
		`<sitemapindex><sitemap><loc>http://a.example/s.xml</loc></sitemap></sitemapindex>`,
		"http://a.example/1\n\nhttps://a.example/2\r\nftp://x\n",
		`<urlset><url><loc>http://a.example/1</loc></url><url><<`,
		"<!DOCTYPE html><html><body>x</body></html>",
		"\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>http://a.example/\xe9</loc></url></urlset>",
		"<urlset><url><loc><![CDATA[http://a.example/c]]></loc></url></urlset>",
		"",
		"\x1f\x8b",
	} {
		f.Add([]byte(s), uint16(3), uint32(200))
	}
	root := filepath.Join("..", "testdata", "sites", "elastic", "www.example.com")
	for _, name := range []string{"sitemap_index.xml", "sitemaps/pages.dat", "sitemaps/extra.txt"} {
		if b, err := os.ReadFile(filepath.Join(root, name)); err == nil {
			f.Add(b, uint16(2), uint32(1000))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, maxURLs uint16, maxBytes uint32) {
		lim := sitemap.Limits{MaxURLs: int(maxURLs%100) + 1, MaxBytes: int64(maxBytes%(1<<16)) + 1}
		cr := &countingReader{r: bytes.NewReader(data)}
		res, err := sitemap.Parse(cr, lim)
		if (res == nil) != errors.Is(err, sitemap.ErrNotSitemap) {
			t.Fatalf("result %+v with error %v: want a result exactly when it is a sitemap", res, err)
		}
		if err != nil && res != nil && !errors.Is(err, sitemap.ErrMalformed) {
			t.Fatalf("error %v of a bytes.Reader is neither ErrNotSitemap nor ErrMalformed", err)
		}
		// The buffer of the gzip sniffing reads ahead of the limit, never further.
		if cr.n > lim.MaxBytes+1+64<<10 {
			t.Fatalf("read %d bytes with MaxBytes %d", cr.n, lim.MaxBytes)
		}
		if res == nil {
			return
		}
		if res.Kind != sitemap.URLSet && res.Kind != sitemap.Index && res.Kind != sitemap.Text {
			t.Fatalf("kind %d", res.Kind)
		}
		if len(res.URLs) > lim.MaxURLs {
			t.Fatalf("%d URLs with MaxURLs %d", len(res.URLs), lim.MaxURLs)
		}
		if res.Truncated != "" && res.Truncated != sitemap.TruncatedURLs && res.Truncated != sitemap.TruncatedBytes {
			t.Fatalf("truncated %q", res.Truncated)
		}
		var total int64
		for _, u := range res.URLs {
			total += int64(len(u))
			l := strings.ToLower(u)
			if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") || strings.TrimSpace(u) != u {
				t.Fatalf("kept %q", u)
			}
		}
		// Entities and charsets may lengthen a URL a little, never past four bytes a byte.
		if total > 4*lim.MaxBytes {
			t.Fatalf("%d bytes of URLs with MaxBytes %d", total, lim.MaxBytes)
		}
		if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			return
		}
		zres, zerr := sitemap.Parse(bytes.NewReader(gz(t, data)), lim)
		if diff := cmp.Diff(res, zres, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("gzip-compressed document read differently (-plain +gzip):\n%s", diff)
		}
		if errors.Is(err, sitemap.ErrMalformed) != errors.Is(zerr, sitemap.ErrMalformed) {
			t.Fatalf("plain error %v, gzip error %v", err, zerr)
		}
	})
}

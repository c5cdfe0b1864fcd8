package sitemap_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/sitemap"
)

// BenchmarkParse reads a sitemap of 50,000 URLs (the protocol's limit) as a urlset, the same
// urlset gzip-compressed, and a text file; MB/s is of the uncompressed document.
func BenchmarkParse(b *testing.B) {
	locs := make([]string, sitemap.MaxURLs)
	for i := range locs {
		locs[i] = fmt.Sprintf("https://www.example.com/section-%d/article-%d.html?ref=sitemap&amp;page=%d", i%100, i, i%7)
	}
	xmlDoc := []byte(urlset(locs...))
	text := []byte(strings.ReplaceAll(strings.Join(locs, "\n"), "&amp;", "&"))
	for _, bc := range []struct {
		name string
		doc  []byte
		size int
	}{
		{"urlset", xmlDoc, len(xmlDoc)},
		{"urlset.gz", gz(b, xmlDoc), len(xmlDoc)},
		{"text", text, len(text)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(bc.size))
			b.ReportAllocs()
			for b.Loop() {
				res, err := sitemap.Parse(bytes.NewReader(bc.doc), sitemap.DefaultLimits())
				if err != nil || len(res.URLs) != sitemap.MaxURLs {
					b.Fatalf("%v, %d URLs", err, len(res.URLs))
				}
			}
		})
	}
}

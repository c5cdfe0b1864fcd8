package htmltok

import (
	"bytes"
	"testing"

	"golang.org/x/net/html"

	"github.com/amber-crawler/amber/internal/testsite"
)

// The tokenizer benchmarks read every token of a page as extract's walk does at most:
// every tag's name and attributes, every text's text. XNet is x/net/html's Tokenizer on
// the same page (testsite.NewsPage, which extract's benchmarks read too), for comparison.

func BenchmarkTokenizer5K(b *testing.B)       { benchmarkTokenizer(b, 5<<10) }
func BenchmarkTokenizer100K(b *testing.B)     { benchmarkTokenizer(b, 100<<10) }
func BenchmarkTokenizerXNet5K(b *testing.B)   { benchmarkXNet(b, 5<<10) }
func BenchmarkTokenizerXNet100K(b *testing.B) { benchmarkXNet(b, 100<<10) }

func benchmarkTokenizer(b *testing.B, size int) {
	page := testsite.NewsPage(size)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	var z Tokenizer
	for b.Loop() {
		z.Reset(page)
		for {
			tt := z.Next()
			if tt == ErrorToken {
				break
			}
			switch tt {
			case StartTagToken, SelfClosingTagToken, EndTagToken:
				_, more := z.TagName()
				for more {
					_, _, more = z.TagAttr()
				}
			case TextToken:
				z.Text()
			}
		}
	}
}

func benchmarkXNet(b *testing.B, size int) {
	page := testsite.NewsPage(size)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		z := html.NewTokenizer(bytes.NewReader(page))
		for {
			tt := z.Next()
			if tt == html.ErrorToken {
				break
			}
			switch tt {
			case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
				_, more := z.TagName()
				for more {
					_, _, more = z.TagAttr()
				}
			case html.TextToken:
				z.Text()
			}
		}
	}
}

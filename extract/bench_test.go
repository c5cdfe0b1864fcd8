package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/internal/testsite"
)

func BenchmarkHTML(b *testing.B) {
	body := testsite.NewsPage(100 << 10)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HTML("https://news.example.com/", body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHTMLFixture(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("testdata", "page.html"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := HTML("https://www.example.org/site/index.html", body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCSS(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 100<<10; i++ {
		fmt.Fprintf(&sb, "/* block %d */\n.c%d { color: #333; background: #fff url(\"../img/bg-%d.png\") no-repeat; margin: 0 auto; }\n"+
			"@media (min-width: 600px) { .c%d { padding: 1em 2em; font: 14px/1.5 \"Helvetica Neue\", Arial, sans-serif; } }\n", i, i, i%100, i)
	}
	body := []byte(sb.String())
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CSS("https://news.example.com/static/css/main.css", body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDocument measures ParseDocument (outlinks and search document in one pass) on a
// realistic 100 KB page, for MB/s of HTML on one core.
func BenchmarkDocument(b *testing.B) {
	body := testsite.NewsPage(100 << 10)
	cfg := DefaultDocConfig()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseDocument("https://news.example.com/", "text/html; charset=utf-8", body, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDocumentLatin1 is BenchmarkDocument on the same page declared windows-1252 and
// holding non-ASCII bytes, so that it is transcoded before the pass.
func BenchmarkDocumentLatin1(b *testing.B) {
	body := []byte(strings.ReplaceAll(string(testsite.NewsPage(100<<10)), "&mdash;", "\xe9"))
	cfg := DefaultDocConfig()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseDocument("https://news.example.com/", "text/html; charset=windows-1252", body, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

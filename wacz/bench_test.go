package wacz_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/wacz"
)

// benchDirEnv names a crawl directory for BenchmarkWrite to package (the 100,000-page crawl
// of scripts/bench.sh, say); without it the benchmark crawls a generated 2,000-page site.
const benchDirEnv = "AMBER_WACZ_BENCH_DIR"

// BenchmarkWrite measures packaging a crawl directory: MB/s of the package written and the
// seconds of one package, with the default options (the compressed index above 1 MiB):
//
//	AMBER_WACZ_BENCH_DIR=/path/to/crawl go test -run '^$' -bench Write -benchtime 3x ./wacz/
func BenchmarkWrite(b *testing.B) {
	dir := os.Getenv(benchDirEnv)
	if dir == "" {
		srv, err := testsite.StartHandler(testsite.Generated{Pages: 2000})
		if err != nil {
			b.Fatal(err)
		}
		dir = crawlServer(b, srv, "gen", []string{"http://gen.example.com/"}, 0)
		srv.Close()
	}
	out := filepath.Join(b.TempDir(), "bench.wacz")
	// One package first: its size gives MB/s, and the WARC files are in the page cache for
	// every run alike.
	res, err := wacz.Write(b.Context(), dir, out, wacz.Options{})
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("BenchmarkWrite: %s: %d WARC files (%.1f MB), %d index lines (compressed %v), %d pages, package %.1f MB\n",
		dir, res.WARCs, float64(res.WARCBytes)/1e6, res.IndexLines, res.CompressedIndex, res.Pages, float64(res.Bytes)/1e6)
	b.Run("package", func(b *testing.B) {
		b.SetBytes(res.Bytes)
		var total time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			if _, err := wacz.Write(b.Context(), dir, out, wacz.Options{}); err != nil {
				b.Fatal(err)
			}
			total += time.Since(start)
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "s/package")
		b.ReportMetric(float64(res.Pages)*float64(b.N)/total.Seconds(), "pages/s")
	})
}

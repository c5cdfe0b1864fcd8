package warc_test

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

// BenchmarkWriteCapture measures raw response bytes written per second (request, response,
// metadata, CDXJ line) for 64 KiB and 600-byte HTML-like pages (the generated bench site's are
// about 400 bytes), sequentially and from parallel goroutines.
func BenchmarkWriteCapture(b *testing.B) {
	for _, size := range []int{64 << 10, 600} {
		b.Run(fmt.Sprintf("page=%d", size), func(b *testing.B) { benchmarkWriteCapture(b, size) })
	}
}

func benchmarkWriteCapture(b *testing.B, size int) {
	var page strings.Builder
	for i := 0; page.Len() < size; i++ {
		fmt.Fprintf(&page, "<p class=\"item\">Item %d: <a href=\"/page/%d\">link %d</a> lorem ipsum dolor sit amet</p>\n", i, i*7, i)
	}
	resp := warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/html"}, {"Content-Length", fmt.Sprint(page.Len())}}, []byte(page.String()))
	run := func(b *testing.B, parallel bool) {
		dir := b.TempDir()
		w := newWriter(b, warc.Config{Dir: dir, CDXJPath: filepath.Join(dir, "index.cdxj"), MaxSize: 64 << 20})
		defer w.Close()
		b.SetBytes(int64(len(resp)))
		b.ReportAllocs()
		b.ResetTimer()
		write := func(i int) {
			c := capture(fmt.Sprintf("http://example.com/page/%d", i), t0, nil)
			c.Response = bytes.NewReader(resp)
			if _, err := w.WriteCapture(c); err != nil {
				b.Error(err)
			}
		}
		if !parallel {
			for i := 0; i < b.N; i++ {
				write(i)
			}
			return
		}
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				write(i)
				i++
			}
		})
	}
	b.Run("sequential", func(b *testing.B) { run(b, false) })
	b.Run("parallel", func(b *testing.B) { run(b, true) })
}

// BenchmarkSortCDXJ sorts a live index of 1M CDXJ lines in random key order (about 190 MB)
// with SortCDXJ's default run size, and reports lines/s and MB/s.
func BenchmarkSortCDXJ(b *testing.B) {
	const n = 1_000_000
	dir := b.TempDir()
	src, dst := filepath.Join(dir, warc.LiveCDXJ), filepath.Join(dir, warc.SortedCDXJ)
	f, err := os.Create(src)
	if err != nil {
		b.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	r := rand.New(rand.NewPCG(7, 11))
	for i := range n {
		host, page := r.IntN(5000), r.IntN(1_000_000)
		fmt.Fprintf(bw, "com,example,h%d)/page/%d?q=%d 2024050607%04d {\"url\":\"http://h%d.example.com/page/%d?q=%d\",\"mime\":\"text/html\",\"status\":\"200\",\"digest\":\"%032d\",\"length\":\"%d\",\"offset\":\"%d\",\"filename\":\"amber-20240506070809000-%05d-host.warc.gz\"}\n",
			host, page, i%7, i%10000, host, page, i%7, page, 1000+i%5000, i*3000, i/10000)
	}
	if err := bw.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(src)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := warc.SortCDXJ(src, dst); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

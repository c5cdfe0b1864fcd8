package warc_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/warc"
)

// BenchmarkWriteCapture measures raw response bytes written per second (request, response,
// metadata, CDXJ line) for 64 KiB HTML-like pages, sequentially and from parallel goroutines.
func BenchmarkWriteCapture(b *testing.B) {
	var page strings.Builder
	for i := 0; page.Len() < 64<<10; i++ {
		fmt.Fprintf(&page, "<p class=\"item\">Item %d: <a href=\"/page/%d\">link %d</a> lorem ipsum dolor sit amet</p>\n", i, i*7, i)
	}
	resp := rawResponse(200, "OK", [][2]string{{"Content-Type", "text/html"}, {"Content-Length", fmt.Sprint(page.Len())}}, []byte(page.String()))
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

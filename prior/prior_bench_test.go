package prior

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawldir"
	"github.com/amber-crawler/amber/warc"
)

// benchLines is the number of CDXJ lines (captures, for BenchmarkLoadRecrawl) of the loading
// benchmarks: AMBER_BENCH_PRIOR_LINES, default def. The figure is for 10,000,000:
//
//	AMBER_BENCH_PRIOR_LINES=10000000 go test ./prior -run - -bench LoadPrior -benchtime 1x
func benchLines(b *testing.B, def int) int {
	if v := os.Getenv("AMBER_BENCH_PRIOR_LINES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("AMBER_BENCH_PRIOR_LINES=%q", v)
		}
		return n
	}
	return def
}

// BenchmarkLoadPrior reads a CDXJ index of n lines as amber writes them (distinct URLs and
// payloads, one line in ten a revisit, one in twenty a 404) for --dedup-from: parse every
// line, store the digests of the 2xx responses in the crawl's state.
func BenchmarkLoadPrior(b *testing.B) {
	n := benchLines(b, 200_000)
	index := filepath.Join(b.TempDir(), "index.cdxj")
	f, err := os.Create(index)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var sum [8]byte
	for i := range n {
		binary.BigEndian.PutUint64(sum[:], uint64(i))
		d := sha1.Sum(sum[:])
		mime := `"mime":"text/html","status":"200"`
		switch {
		case i%10 == 9:
			mime = `"mime":"warc/revisit","status":"200"`
		case i%20 == 3:
			mime = `"mime":"text/html","status":"404"`
		}
		host := i % 5000
		fmt.Fprintf(w, "org,example,host%d)/section/%d/page-%d.html %s {\"url\":\"https://host%d.example.org/section/%d/page-%d.html\",%s,\"digest\":\"%s\",\"length\":\"%d\",\"offset\":\"%d\",\"filename\":\"bench-20260101000000000-%05d-host.warc.gz\"}\n",
			host, i%97, i, t0.Add(time.Duration(i)*time.Second).Format("20060102150405"), host, i%97, i, mime,
			base32.StdEncoding.EncodeToString(d[:]), 1500+i%700, int64(i)*2100%1e9, i/400000)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	fi, _ := f.Stat()
	f.Close()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		c := testConfig(b, Config{DedupFrom: []string{index}})
		b.StartTimer()
		start := time.Now()
		cnt, err := load(context.Background(), c, index, true, false)
		if err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		b.ReportMetric(float64(cnt.lines)/el.Seconds(), "lines/s")
		b.ReportMetric(float64(cnt.digests), "digests")
		b.ReportMetric(float64(fi.Size())/float64(n), "bytes/line")
		b.StopTimer()
		c.Front.Close()
		b.StartTimer()
	}
}

// BenchmarkLoadRecrawl reads an earlier crawl directory of n captures (images with an ETag)
// for --recrawl-of: its live index, and the head of every record by its offset.
func BenchmarkLoadRecrawl(b *testing.B) {
	n := benchLines(b, 20_000)
	dir := b.TempDir()
	ww, err := warc.NewWriter(warc.Config{Dir: filepath.Join(dir, crawldir.WARCDir), CDXJPath: filepath.Join(dir, crawldir.LiveCDXJFile),
		Hostname: "bench", Info: warc.Info{Software: "amber/bench"}})
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	body := bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 400)
	for i := range n {
		binary.BigEndian.PutUint32(body, uint32(i))
		resp := fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nETag: \"%x\"\r\nLast-Modified: Thu, 01 Jan 2026 00:00:00 GMT\r\nContent-Length: %d\r\n\r\n%s", i, len(body), body)
		u := fmt.Sprintf("https://host%d.example.org/img/%d.png", i%500, i)
		if _, err := ww.WriteCapture(warc.Capture{URL: u, Date: t0.Add(time.Duration(i) * time.Millisecond),
			Request: []byte("GET / HTTP/1.1\r\n\r\n"), Response: bytes.NewReader(resp)}); err != nil {
			b.Fatal(err)
		}
	}
	if err := ww.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		c := testConfig(b, Config{RecrawlOf: dir})
		b.StartTimer()
		start := time.Now()
		cnt, err := load(context.Background(), c, dir, true, true)
		if err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		if cnt.urls != int64(n) {
			b.Fatalf("%d URLs stored, want %d", cnt.urls, n)
		}
		b.ReportMetric(float64(cnt.lines)/el.Seconds(), "captures/s")
		b.StopTimer()
		c.Front.Close()
		b.StartTimer()
	}
}

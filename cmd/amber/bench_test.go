package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/amber-crawler/amber/internal/testsite"
)

// BenchmarkCrawl10k crawls a local site of 10,000 small pages with the amber binary
// (--host-delay 0 --host-concurrency 16 --workers 16) and reports pages per second, the
// crawler's peak memory (max RSS) and its CPU seconds per 1,000 pages. The site is served by
// this process; the figures are the crawler's alone. make bench runs the same crawl beside wget
// instead (scripts/bench.sh); this is the figure without wget, for go test -bench.
func BenchmarkCrawl10k(b *testing.B) {
	const pages = 10000
	bin := amberBinary(b)
	site, err := testsite.StartHandler(testsite.Generated{Pages: pages})
	if err != nil {
		b.Fatal(err)
	}
	defer site.Close()
	b.ResetTimer()
	for i := range b.N {
		dir := filepath.Join(b.TempDir(), fmt.Sprint("crawl", i))
		cmd := exec.Command(bin, "crawl", "--dir", dir, "--connect-to", site.ConnectTo(), "--allow-private",
			"--host-delay", "0", "--host-concurrency", "16", "--workers", "16", "--quiet", "http://gen.example.com/")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		el := time.Since(start)
		if err != nil {
			b.Fatalf("crawl: %v\n%s", err, out)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		b.ReportMetric(float64(pages)/el.Seconds(), "pages/s")
		b.ReportMetric(float64(ru.Maxrss)/1024, "peakRSS-MB")
		b.ReportMetric(cpu.Seconds()/(pages/1000), "cpu-s/1000pages")
	}
}

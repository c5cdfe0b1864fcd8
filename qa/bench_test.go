package qa_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/proctree"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/qa"
)

// BenchmarkQA runs amber qa over a browser crawl of a generated site of 5 KB pages (30 pages;
// AMBER_QA_BENCH_PAGES=N for another number), whole, with 1, 2 and 4 tabs, and reports pages
// checked per second (each run with its browser's start), and the peak memory of the process
// and the Chromium it runs, sampled every 250 ms: peak-go-rss-MB is this process's (the
// replay, the comparisons, and the test's own site), peak-tree-rss-MB and peak-tree-pss-MB
// sum the process and its browser's (RSS counts shared pages once per process; PSS divides
// them). The crawl is made once, outside the measurement. It prints figures and asserts
// nothing about them:
//
//	go test -run '^$' -bench QA -benchtime 2x ./qa/
func BenchmarkQA(b *testing.B) {
	pages := 30
	if v := os.Getenv("AMBER_QA_BENCH_PAGES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("AMBER_QA_BENCH_PAGES=%q", v)
		}
		pages = n
	}
	site, err := testsite.StartHandler(testsite.Generated{Pages: pages, PageSize: 5000})
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(b.TempDir(), "crawl")
	cfg := crawlConfig(b, site, dir, true)
	cfg.Browser.Tabs = 2
	cfg.IgnoreRobots = true
	res, err := crawl.Run(context.Background(), cfg)
	site.Close()
	if err != nil || res.End != crawl.EndFinished {
		b.Fatalf("crawl: %v %q", err, res.End)
	}
	for _, tabs := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("tabs=%d", tabs), func(b *testing.B) {
			var peakGo, peakRSS, peakPSS atomic.Int64
			stop, sampled := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(sampled)
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				tick := time.NewTicker(250 * time.Millisecond)
				defer tick.Stop()
				for {
					self, _ := proctree.Memory(os.Getpid())
					rss, pss := proctree.TreeMemory(os.Getpid())
					peakGo.Store(max(peakGo.Load(), self))
					peakRSS.Store(max(peakRSS.Load(), rss))
					peakPSS.Store(max(peakPSS.Load(), pss))
					select {
					case <-stop:
						return
					case <-tick.C:
					}
				}
			}()
			checked := 0
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				bc := browserConfig(b)
				bc.Tabs = tabs
				sum, err := qa.Run(context.Background(), qa.Config{Dir: dir, Browser: bc, StateDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				if sum.Failed > 0 || sum.Checked != sum.Listed {
					b.Fatalf("qa: %+v", sum)
				}
				checked += sum.Checked
			}
			elapsed := time.Since(start)
			b.StopTimer()
			close(stop)
			<-sampled
			b.ReportMetric(float64(checked)/elapsed.Seconds(), "pages/s")
			b.ReportMetric(float64(peakGo.Load())/(1<<20), "peak-go-rss-MB")
			b.ReportMetric(float64(peakRSS.Load())/(1<<20), "peak-tree-rss-MB")
			b.ReportMetric(float64(peakPSS.Load())/(1<<20), "peak-tree-pss-MB")
		})
	}
}

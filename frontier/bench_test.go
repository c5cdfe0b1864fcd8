package frontier

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// BenchmarkAddClaimDone adds b.N URLs (16 adding goroutines), then claims and finishes them all
// (16 workers), with no host delay. It reports URLs per second through the whole cycle and per
// phase.
func BenchmarkAddClaimDone(b *testing.B) {
	for _, bc := range []struct{ hosts, conc int }{{1, 16}, {1000, 1}} {
		b.Run(fmt.Sprintf("hosts=%d/conc=%d", bc.hosts, bc.conc), func(b *testing.B) {
			const workers = 16
			f := openT(b, Config{HostConcurrency: bc.conc})
			urls := make([]URL, b.N)
			for i := range urls {
				h := fmt.Sprintf("host%04d.test", i%bc.hosts)
				urls[i] = URL{URL: fmt.Sprintf("http://%s/page/%d", h, i), Host: h, Hops: "L", Via: "http://" + h + "/"}
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; i < len(urls); i += workers {
						if _, err := f.Add(urls[i]); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			added := time.Since(start)
			var claimed sync.Map
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						c, err := f.Claim(context.Background())
						if errors.Is(err, ErrDone) {
							return
						}
						if err != nil {
							b.Error(err)
							return
						}
						if _, dup := claimed.LoadOrStore(c.URL.URL, true); dup {
							b.Errorf("%s claimed twice", c.URL.URL)
						}
						if err := f.Done(c); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			total := time.Since(start)
			b.StopTimer()
			if s := f.Stats(); s.Done != int64(b.N) {
				b.Fatalf("Stats = %+v, want %d done", s, b.N)
			}
			b.ReportMetric(float64(b.N)/total.Seconds(), "urls/s")
			b.ReportMetric(float64(b.N)/added.Seconds(), "adds/s")
			b.ReportMetric(float64(b.N)/(total-added).Seconds(), "claim+done/s")
		})
	}
}

// BenchmarkQueuedMemory adds b.N URLs over 100 hosts and reports the Go heap growth per queued
// URL. The frontier itself keeps only per-host state; what remains is badger's memtables and
// compaction buffers, which are bounded (about 100 MiB at a million URLs), so the figure falls
// as b.N grows.
func BenchmarkQueuedMemory(b *testing.B) {
	f := openT(b, Config{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	batch := make([]URL, 0, 1000)
	for i := range b.N {
		h := fmt.Sprintf("host%03d.test", i%100)
		batch = append(batch, URL{URL: fmt.Sprintf("http://%s/page/%d", h, i), Host: h})
		if len(batch) == cap(batch) || i == b.N-1 {
			if _, err := f.AddBatch(batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heapB/url")
}

package frontier

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// benchURL is the i-th URL of a generated crawl over hosts hosts, shaped like a crawl's
// outlinks: about 60 bytes, with a via, a seed and a hop path.
func benchURL(i, hosts int) URL {
	h := "www.host" + strconv.Itoa(i%hosts) + ".example"
	return URL{
		URL:  "https://" + h + "/section/" + strconv.Itoa(i/hosts%50) + "/page-" + strconv.Itoa(i) + ".html",
		Host: h,
		Hops: "LL",
		Via:  "https://" + h + "/section/" + strconv.Itoa(i/hosts%50) + "/",
		Seed: "https://" + h + "/",
	}
}

// reportCPU reports the process CPU time (user and system) since before per op, when the
// platform can tell.
func reportCPU(b *testing.B, before time.Duration, n int, unit string) {
	if now := cpuTime(); now > 0 {
		b.ReportMetric(float64((now-before).Microseconds())/float64(n), "cpu-µs/"+unit)
	}
}

// BenchmarkAddClaimDone adds b.N URLs (16 adding goroutines), then claims and finishes them all
// (16 workers), with no host delay. It reports URLs per second through the whole cycle and per
// phase, and CPU time per URL.
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
			cpu := cpuTime()
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
			reportCPU(b, cpu, b.N, "url")
		})
	}
}

// BenchmarkCrawl runs what a crawl asks of the frontier for each page, with 16 workers and no
// host delay: claim, look up and store a payload digest, add 20 outlinks (a batch: 2 new
// URLs, the 8 navigation links of the page's host, the same on every page, and 10 URLs added
// before, at random), reject 2 (out of scope: one new, one a footer link on every page),
// finish. It stops after b.N pages and reports pages per second and CPU time per page.
func BenchmarkCrawl(b *testing.B) {
	for _, hosts := range []int{1, 1000} {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			const workers, outlinks, fresh, nav = 16, 20, 2, 8
			f := openT(b, Config{HostConcurrency: 16})
			var seeds []URL
			for i := range 2 * workers {
				seeds = append(seeds, benchURL(i, hosts))
			}
			if _, err := f.AddBatch(seeds); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			start := time.Now()
			var (
				wg    sync.WaitGroup
				mu    sync.Mutex
				next  = len(seeds) // next new URL
				pages int
			)
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					batch := make([]URL, 0, outlinks)
					for {
						mu.Lock()
						if pages >= b.N {
							mu.Unlock()
							return
						}
						pages++
						first := next
						next += fresh
						mu.Unlock()
						c, err := f.Claim(context.Background())
						if err != nil {
							b.Error(err)
							return
						}
						digest := "sha1:" + strconv.Itoa(first)
						if _, _, ok, err := f.LookupDigest(digest); err != nil || ok {
							b.Errorf("LookupDigest(%s) = %v, %v", digest, ok, err)
							return
						}
						if err := f.StoreDigest(digest, c.URL.URL, time.Now()); err != nil {
							b.Error(err)
							return
						}
						batch = batch[:0]
						for i := range outlinks {
							switch {
							case i < fresh:
								batch = append(batch, benchURL(first+i, hosts))
							case i < fresh+nav:
								h := c.URL.Host
								batch = append(batch, URL{URL: "https://" + h + "/section/" + strconv.Itoa(i) + "/", Host: h, Hops: "LL", Seed: "https://" + h + "/"})
							default:
								batch = append(batch, benchURL((first*7+i)%first, hosts))
							}
						}
						if _, err := f.AddBatch(batch); err != nil {
							b.Error(err)
							return
						}
						for _, out := range []string{"https://elsewhere.example/" + strconv.Itoa(first), "https://elsewhere.example/about"} {
							if _, err := f.Reject(URL{URL: out, Host: "elsewhere.example", Hops: "LL", Via: c.URL.URL}, "out-of-scope"); err != nil {
								b.Error(err)
								return
							}
						}
						if err := f.Done(c); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			if s := f.Stats(); s.Done != int64(b.N) {
				b.Fatalf("Stats = %+v, want %d done", s, b.N)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pages/s")
			reportCPU(b, cpu, b.N, "page")
		})
	}
}

// BenchmarkQueuedMemory adds b.N URLs over 100 hosts and reports the Go heap growth per queued
// URL. The frontier itself keeps only per-host state; what remains is badger's memtables and
// compaction buffers, which are bounded, so the figure falls as b.N grows.
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

package browser

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkFetch loads the test site's index page (script text, fetch(), lazy images, an
// iframe, a 6000px scroll) with 1, 2 and 4 tabs, and reports pages per second and the peak
// memory of the browser's processes: peak-rss-MB sums their RSS (shared pages count once
// per process, so it overstates), peak-pss-MB sums their proportional set size (shared
// pages divided among the sharers, the honest total). Run it with a fixed count:
//
//	go test -run XXX -bench Fetch -benchtime 20x ./browser
func BenchmarkFetch(b *testing.B) {
	for _, tabs := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("tabs=%d", tabs), func(b *testing.B) {
			s := newSite(b)
			f := newFetcher(b, func(c *Config) { c.Tabs = tabs; c.Screenshot = true })
			// Start the browser and open the tabs outside the measurement.
			var wg sync.WaitGroup
			for range tabs {
				wg.Go(func() { fetchPage(b, f, s.URL+"/") })
			}
			wg.Wait()
			pid := browserPID(f)

			var peak, peakPSS atomic.Int64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				tick := time.NewTicker(100 * time.Millisecond)
				defer tick.Stop()
				for {
					rss, pss := treeMemory(pid)
					if rss > peak.Load() {
						peak.Store(rss)
					}
					if pss > peakPSS.Load() {
						peakPSS.Store(pss)
					}
					select {
					case <-stop:
						return
					case <-tick.C:
					}
				}
			}()

			var next atomic.Int64
			b.ResetTimer()
			start := time.Now()
			for range tabs {
				wg.Go(func() {
					for next.Add(1) <= int64(b.N) {
						p, err := f.Load(context.Background(), s.URL+"/", nil)
						if err != nil {
							b.Error(err)
							return
						}
						p.Close()
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			close(stop)
			<-sampled
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pages/s")
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-rss-MB")
			b.ReportMetric(float64(peakPSS.Load())/(1<<20), "peak-pss-MB")
		})
	}
}

// treeMemory sums the RSS and PSS (bytes) of pid and all its descendants.
func treeMemory(pid int) (rss, pss int64) {
	if pid == 0 {
		return 0, 0
	}
	parent := map[int]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		p, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// The command name is in parentheses and may hold spaces; fields follow the last ')'.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) > 1 {
			if pp, err := strconv.Atoi(fields[1]); err == nil {
				parent[p] = pp
			}
		}
	}
	for p := range parent {
		for q := p; q != 0; q = parent[q] {
			if q == pid {
				r, s := processMemory(p)
				rss += r
				pss += s
				break
			}
			if _, ok := parent[q]; !ok {
				break
			}
		}
	}
	return rss, pss
}

// processMemory reads Rss and Pss (bytes) from /proc/PID/smaps_rollup.
func processMemory(pid int) (rss, pss int64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "Rss":
			rss = kb << 10
		case "Pss":
			pss = kb << 10
		}
	}
	return rss, pss
}

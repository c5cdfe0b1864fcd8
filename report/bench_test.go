package report

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/status"
)

var benchT0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// benchSeeds are the 20 seeds of the bench crawls.
func benchSeeds() []SeedInfo {
	var seeds []SeedInfo
	for i := range 20 {
		seeds = append(seeds, SeedInfo{URL: "https://host" + strconv.Itoa(i) + ".example.com/", Type: "standard"})
	}
	return seeds
}

// benchURL is URL i of a bench crawl over 200 hosts: 70% captured, 10% out of scope, 5%
// blocked by robots.txt, 5% blocked by a rule, 8% queued, 2% failed. It returns its crawl.log
// line and its frontier entry; either may be nil.
func benchURL(i int, seeds []SeedInfo) (*Line, *URLState) {
	mimes := [...]string{"text/html", "image/png", "text/css", "application/javascript", "image/jpeg"}
	host := "host" + strconv.Itoa(i%200) + ".example.com"
	u := "https://" + host + "/dir" + strconv.Itoa(i%37) + "/page" + strconv.Itoa(i) + ".html"
	seed := seeds[i%20].URL
	via := "https://" + host + "/"
	switch r := i % 100; {
	case r < 70:
		return &Line{Time: benchT0.Add(time.Duration(i) * time.Millisecond), Status: [...]int{200, 200, 200, 404, 301}[i%5],
				Size: int64(1000 + i%50000), URL: u, Hops: "LL", Via: via, MIME: mimes[i%5], Seed: seed,
				Digest: "sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"},
			&URLState{URL: u, State: status.Done, Status: 200, Hops: "LL", Via: via, Seed: seed}
	case r < 80:
		return nil, &URLState{URL: u, State: status.Rejected, Reason: "out-of-scope", Hops: "LLL", Via: via, Seed: seed}
	case r < 85:
		return &Line{Time: benchT0, Status: status.Robots, Size: -1, URL: u, Hops: "LL", Via: via, Seed: seed}, nil
	case r < 90:
		return nil, &URLState{URL: u, State: status.Rejected, Reason: "block:contains:/dir", Hops: "LL", Via: via, Seed: seed}
	case r < 98:
		return nil, &URLState{URL: u, State: status.Queued, Hops: "LL", Via: via, Seed: seed}
	}
	return nil, &URLState{URL: u, State: status.Failed, Status: status.Timeout, Hops: "LL", Via: via, Seed: seed}
}

// benchInput is a bench crawl of n URLs, in memory.
func benchInput(n int) Input {
	in := Input{Collection: "bench", Started: benchT0, Ended: benchT0.Add(time.Hour), EndReason: EndFinished, Seeds: benchSeeds()}
	for i := range n {
		l, u := benchURL(i, in.Seeds)
		if l != nil {
			in.Lines = append(in.Lines, *l)
		}
		if u != nil {
			in.URLs = append(in.URLs, *u)
		}
	}
	return in
}

// BenchmarkWrite100k writes every report of a 100,000-URL crawl held in memory.
func BenchmarkWrite100k(b *testing.B) {
	in := benchInput(100_000)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(dir, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteStreamed writes every report of crawls of 10,000, 100,000 and 1,000,000 URLs
// read as amber reads a crawl directory: crawl.log from disk, the frontier's URLs streamed
// through EachURL. Besides time it reports URLs/s, the peak of the Go heap during Write
// (peak-heap-MB) and, where Linux lets a process reset its peak RSS, the process's peak RSS
// during Write (peak-RSS-MB); the three should not grow with the crawl. The 1,000,000-URL run:
//
//	go test -run '^$' -bench 'WriteStreamed/1M' -benchtime 1x ./report/
func BenchmarkWriteStreamed(b *testing.B) {
	for _, n := range []struct {
		name string
		urls int
	}{{"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}} {
		b.Run(n.name, func(b *testing.B) {
			dir := b.TempDir()
			in := Input{Collection: "bench", Started: benchT0, Ended: benchT0.Add(time.Hour), EndReason: EndFinished,
				Seeds: benchSeeds(), CrawlLog: filepath.Join(dir, "crawl.log")}
			writeBenchLog(b, in.CrawlLog, n.urls, in.Seeds)
			in.EachURL = func(fn func(URLState) error) error {
				for i := range n.urls {
					if _, u := benchURL(i, in.Seeds); u != nil {
						if err := fn(*u); err != nil {
							return err
						}
					}
				}
				return nil
			}
			runtime.GC()
			peak := watchHeap()
			rssReset := resetPeakRSS()
			for b.Loop() {
				if err := Write(filepath.Join(dir, "reports"), in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n.urls)*float64(b.N)/b.Elapsed().Seconds(), "URLs/s")
			b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
			if rssReset {
				if hwm, ok := peakRSS(); ok {
					b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MB")
				}
			}
		})
	}
}

// writeBenchLog writes the crawl.log of a bench crawl of n URLs.
func writeBenchLog(b *testing.B, path string, n int, seeds []SeedInfo) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		if l, _ := benchURL(i, seeds); l != nil {
			w.WriteString(l.Format())
			w.WriteByte('\n')
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// watchHeap samples the bytes of heap objects (live or not yet swept) every millisecond until
// the returned function is called, which returns their peak.
func watchHeap() func() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// resetPeakRSS resets the process's peak RSS (Linux: /proc/self/clear_refs) and reports
// whether it could.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS returns the process's peak RSS in bytes (VmHWM of /proc/self/status).
func peakRSS() (int64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// BenchmarkEventsURLFetch writes url-fetch events.
func BenchmarkEventsURLFetch(b *testing.B) {
	ev, err := OpenEvents(b.TempDir()+"/events.jsonl", EventsConfig{CrawlID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer ev.Close()
	u := URLInfo{URL: "https://www.example.com/a/b.html", Hops: "LL", Via: "https://www.example.com/", Seed: "https://www.example.com/"}
	b.ReportAllocs()
	for b.Loop() {
		if err := ev.URLFetch(u, 200, 5120, time.Millisecond); err != nil {
			b.Fatal(err)
		}
	}
}

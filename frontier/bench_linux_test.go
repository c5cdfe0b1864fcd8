package frontier

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	benchURLs  = flag.Int("frontier-urls", 0, "URLs of BenchmarkQueued10M (default 10,000,000) and BenchmarkResume1M (default 1,000,000)")
	benchHosts = flag.Int("frontier-hosts", 10000, "hosts the URLs of BenchmarkQueued10M and BenchmarkResume1M are spread over")
	benchHeap  = flag.String("frontier-heap", "", "write a heap profile (go tool pprof) of BenchmarkQueued10M to `FILE` once the URLs are added, before the store is closed")
)

// cpuTime is the CPU time (user and system) of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStatus returns the fields of /proc/self/status given in kB (VmHWM, VmRSS, RssAnon,
// RssFile, ...), in bytes.
func procStatus(b *testing.B) map[string]int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status: %v", err)
	}
	m := make(map[string]int64)
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ":")
		val, kb := strings.CutSuffix(strings.TrimSpace(val), " kB")
		if !ok || !kb {
			continue
		}
		if n, err := strconv.ParseInt(val, 10, 64); err == nil {
			m[name] = n << 10
		}
	}
	return m
}

// resetPeak makes VmHWM start again from the current RSS (Linux 4.0 and later).
func resetPeak(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("reset VmHWM: %v (the peak includes what came before)", err)
	}
}

// reportMemory reports the process's peak and current RSS (anonymous and file-backed) and Go
// heap in MB.
func reportMemory(b *testing.B) {
	st := procStatus(b)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	const mb = 1 << 20
	b.ReportMetric(float64(st["VmHWM"])/mb, "peak-rss-MB")
	b.ReportMetric(float64(st["VmRSS"])/mb, "rss-MB")
	b.ReportMetric(float64(st["RssAnon"])/mb, "anon-MB")
	b.ReportMetric(float64(st["RssFile"]+st["RssShmem"])/mb, "file-MB")
	b.ReportMetric(float64(ms.HeapInuse)/mb, "heap-MB")
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += allocated(fi)
			}
		}
		return nil
	})
	return n
}

// BenchmarkQueued10M fills a frontier with 10,000,000 URLs (-frontier-urls) over 10,000 hosts
// (-frontier-hosts), then claims and finishes 100,000 of them with 16 workers, and reports
// the peak RSS of the process (VmHWM, from before the frontier is opened), its RSS at the
// end (anonymous and file-backed: badger's memory-mapped files), the Go heap, the store's
// size, add and claim rates and CPU time per URL. It runs only when -bench names it:
//
//	go test -run '^$' -bench Queued10M -benchtime 1x ./frontier/
func BenchmarkQueued10M(b *testing.B) {
	named(b, "Queued10M")
	n := *benchURLs
	if n <= 0 {
		n = 10_000_000
	}
	for range b.N {
		dir := b.TempDir()
		runtime.GC()
		resetPeak(b)
		f, err := Open(Config{Dir: dir, HostConcurrency: 2})
		if err != nil {
			b.Fatal(err)
		}
		cpu, start := cpuTime(), time.Now()
		fillBench(b, f, n, *benchHosts)
		added, addCPU := time.Since(start), cpuTime()-cpu
		if s := f.Stats(); s.Queued != int64(n) {
			b.Fatalf("Stats = %+v, want %d queued", s, n)
		}
		if *benchHeap != "" {
			writeHeap(b, *benchHeap)
		}
		const claims = 100_000
		cpu, start = cpuTime(), time.Now()
		claimDone(b, f, claims)
		claimed, claimCPU := time.Since(start), cpuTime()-cpu
		reportMemory(b)
		b.ReportMetric(float64(dirSize(dir))/(1<<20), "store-MB")
		b.ReportMetric(float64(n)/added.Seconds(), "adds/s")
		b.ReportMetric(float64(addCPU.Microseconds())/float64(n), "add-cpu-µs/url")
		b.ReportMetric(claims/claimed.Seconds(), "claim+done/s")
		b.ReportMetric(float64(claimCPU.Microseconds())/claims, "claim+done-cpu-µs/url")
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// writeHeap writes a heap profile of the live heap to file.
func writeHeap(b *testing.B, file string) {
	out, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	err = pprof.Lookup("heap").WriteTo(out, 0)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatalf("heap profile: %v", err)
	}
}

// claimDone claims and finishes n URLs with 16 workers.
func claimDone(b *testing.B, f *Frontier, n int) {
	const workers = 16
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := w; i < n; i += workers {
				c, err := f.Claim(context.Background())
				if err == nil {
					err = f.Done(c)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
	}
}

const resumeEnv = "AMBER_FRONTIER_RESUME_DIR"

// BenchmarkResume1M measures the resume of a crawl killed with 1,000,000 URLs known
// (-frontier-urls) over 10,000 hosts (-frontier-hosts): a child process (this test binary) adds
// them, finishes half, claims 16 more and exits without closing the store, as kill -9 would
// leave it. The benchmark then reports the milliseconds from Open to the first Claim
// returning a URL (resume-ms: ready to fetch), of Open alone (open-ms), and the peak RSS of
// that resume. It runs only when -bench names it:
//
//	go test -run '^$' -bench Resume1M -benchtime 1x ./frontier/
func BenchmarkResume1M(b *testing.B) {
	n := *benchURLs
	if n <= 0 {
		n = 1_000_000
	}
	if dir := os.Getenv(resumeEnv); dir != "" {
		f, err := Open(Config{Dir: dir, HostConcurrency: 2})
		if err != nil {
			b.Fatal(err)
		}
		fillBench(b, f, n, *benchHosts)
		claimDone(b, f, n/2)
		for range 16 {
			if _, err := f.Claim(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		os.Exit(0) // no Close: what kill -9 leaves
	}
	named(b, "Resume1M")
	for range b.N {
		b.StopTimer()
		dir := b.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkResume1M$", "-test.benchtime=1x",
			"-frontier-urls="+strconv.Itoa(n), "-frontier-hosts="+strconv.Itoa(*benchHosts))
		cmd.Env = append(os.Environ(), resumeEnv+"="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		runtime.GC()
		resetPeak(b)
		b.StartTimer()
		start := time.Now()
		f, err := Open(Config{Dir: dir, HostConcurrency: 2})
		if err != nil {
			b.Fatal(err)
		}
		opened := time.Since(start)
		c, err := f.Claim(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		resumed := time.Since(start)
		b.StopTimer()
		reportMemory(b)
		b.ReportMetric(float64(resumed.Microseconds())/1000, "resume-ms")
		b.ReportMetric(float64(opened.Microseconds())/1000, "open-ms")
		b.ReportMetric(float64(dirSize(dir))/(1<<20), "store-MB")
		want := Stats{Queued: int64(n - n/2 - 1), InFlight: 1, Done: int64(n / 2)}
		if s := f.Stats(); s != want {
			b.Errorf("Stats after the resume = %+v, want %+v", s, want)
		}
		if err := f.Done(c); err != nil && !errors.Is(err, ErrClosed) {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(fmt.Errorf("close: %w", err))
		}
	}
}

// named skips a long benchmark unless -test.bench names it (so that -bench . passes it by).
func named(b *testing.B, name string) {
	if !strings.Contains(flag.Lookup("test.bench").Value.String(), name) {
		b.Skipf("runs only when -bench names %s", name)
	}
}

// fillBench adds n generated URLs in batches of 1000 from 2 goroutines.
func fillBench(b *testing.B, f *Frontier, n, hosts int) {
	const batchSize = 1000
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := make([]URL, 0, batchSize)
			for start := w * batchSize; start < n; start += 2 * batchSize {
				batch = batch[:0]
				for i := start; i < min(start+batchSize, n); i++ {
					batch = append(batch, benchURL(i, hosts))
				}
				if _, err := f.AddBatch(batch); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

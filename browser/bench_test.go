package browser

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/proctree"
)

// BenchmarkFetch (full Chromium, /usr/bin/chromium) loads the test site's index page (script text, fetch(), lazy images, an
// iframe, a 6000px scroll) with 1, 2 and 4 tabs, and reports pages per second, the CPU the
// browser's processes (chromium-cpu-ms/page, and its parts: the browser process, the
// renderers, the GPU process and the rest, the utility processes) and this process
// (go-cpu-ms/page: the fetcher and the test site, not the memory sampler) spent per page,
// and the peak memory of the browser's processes: peak-rss-MB sums their RSS (shared pages
// count once per process, so it overstates), peak-pss-MB sums their proportional set size
// (shared pages divided among the sharers, the honest total). Run it with a fixed count:
//
//	go test -run XXX -bench Fetch -benchtime 20x ./browser
func BenchmarkFetch(b *testing.B) {
	if err := executable(ChromiumPath); err != nil {
		b.Skipf("no chromium: %v", err)
	}
	benchFetch(b, ChromiumPath)
}

// BenchmarkFetchHeadlessShell is BenchmarkFetch with Chromium's headless shell (Debian's
// chromium-headless-shell package; the browser fetcher's default when it is installed),
// which draws no browser window: about a third less CPU and half the memory per page. It is
// skipped where the package is not installed.
func BenchmarkFetchHeadlessShell(b *testing.B) {
	if err := executable(HeadlessShellPath); err != nil {
		b.Skipf("no headless shell: %v", err)
	}
	benchFetch(b, HeadlessShellPath)
}

func benchFetch(b *testing.B, path string) {
	for _, tabs := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("tabs=%d", tabs), func(b *testing.B) {
			s := newSite(b)
			// One browser for the whole run: the CPU figures are read from its process tree,
			// which a recycled browser would leave.
			f := newFetcher(b, func(c *Config) { c.Path = path; c.Tabs = tabs; c.Screenshot = true; c.RecycleAfter = b.N + 2*tabs })
			// Start the browser and open the tabs outside the measurement, and let the
			// browser finish the work its first pages leave behind (a new renderer stays
			// busy for a second or two after its first page: Chromium's own start-up, some
			// 1.5 s of CPU per tab, which a crawl pays once per RecycleAfter pages).
			var wg sync.WaitGroup
			for range tabs {
				wg.Go(func() { fetchPage(b, f, s.URL+"/") })
			}
			wg.Wait()
			pid := browserPID(f)
			settle(pid)

			var peak, peakPSS, samplerCPU atomic.Int64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				// On a thread of its own, so that its CPU time can be told from the fetcher's.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				cpu0 := threadCPU()
				defer func() { samplerCPU.Store(int64(threadCPU() - cpu0)) }()
				// Reading smaps_rollup walks the page tables of each process, some 5 ms per
				// Chromium process: sampled more often, it takes a good part of a core
				// from the browser being measured.
				tick := time.NewTicker(time.Second)
				defer tick.Stop()
				for {
					rss, pss := proctree.TreeMemory(pid)
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
			cpu0 := treeCPUByKind(pid)
			self0 := selfCPU()
			start := time.Now()
			for range tabs {
				wg.Go(func() {
					for next.Add(1) <= int64(b.N) {
						p, err := f.Load(context.Background(), fetch.Request{URL: s.URL + "/", Admit: blockBlocked})
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
			cpu1 := treeCPUByKind(pid)
			self := selfCPU() - self0
			b.StopTimer()
			close(stop)
			<-sampled
			self -= time.Duration(samplerCPU.Load())
			perPage := func(d time.Duration) float64 { return float64(d.Milliseconds()) / float64(b.N) }
			var cpu time.Duration
			for _, kind := range processKinds {
				d := cpu1[kind] - cpu0[kind]
				cpu += d
				b.ReportMetric(perPage(d), kind+"-cpu-ms/page")
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "pages/s")
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-rss-MB")
			b.ReportMetric(float64(peakPSS.Load())/(1<<20), "peak-pss-MB")
			b.ReportMetric(perPage(cpu), "chromium-cpu-ms/page")
			b.ReportMetric(perPage(self), "go-cpu-ms/page")
		})
	}
}

// settle waits until the processes of pid use less than a tenth of a core, for at most 10 s.
func settle(pid int) {
	const step = 250 * time.Millisecond
	prev := treeCPU(pid)
	for range 40 {
		time.Sleep(step)
		cur := treeCPU(pid)
		if cur-prev < step/10 {
			return
		}
		prev = cur
	}
}

// treeCPU is the CPU time (user and system) pid and its descendants have used, counting
// the children they have waited for.
func treeCPU(pid int) time.Duration {
	var sum time.Duration
	for _, d := range treeCPUByKind(pid) {
		sum += d
	}
	return sum
}

// processKinds are the kinds of Chromium process treeCPUByKind tells apart: the browser
// process (and any process that is not one of the others), the renderers, the GPU process
// (which also composites and rasterises without a GPU), and the utility processes (the
// network service, storage).
var processKinds = []string{"browser", "renderer", "gpu", "utility"}

// treeCPUByKind is treeCPU by processKinds, told by each process's --type flag. A process
// that ended counts in its parent's kind (its parent waited for it).
func treeCPUByKind(pid int) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, p := range proctree.Tree(pid) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		// After the command: state, ppid, ..., utime (field 14), stime, cutime, cstime.
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 15 {
			continue
		}
		var ticks int64
		for _, f := range fields[11:15] {
			n, _ := strconv.ParseInt(f, 10, 64)
			ticks += n
		}
		out[processKind(p)] += time.Duration(ticks) * time.Second / clockTicks
	}
	return out
}

// processKind is the kind (processKinds) of Chromium process pid. Chromium rewrites its
// command line, so the arguments are separated by spaces or NULs.
func processKind(pid int) string {
	cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	for _, a := range strings.FieldsFunc(string(cmd), func(r rune) bool { return r == 0 || r == ' ' }) {
		switch a {
		case "--type=renderer":
			return "renderer"
		case "--type=gpu-process":
			return "gpu"
		case "--type=utility":
			return "utility"
		}
	}
	return "browser"
}

// clockTicks is USER_HZ, the unit of the times in /proc/PID/stat: 100 on Linux.
const clockTicks = 100

// selfCPU is the CPU time (user and system) this process has used: the fetcher, the test
// server and the memory sampler.
func selfCPU() time.Duration {
	return rusage(syscall.RUSAGE_SELF)
}

// threadCPU is the CPU time (user and system) the calling thread has used.
func threadCPU() time.Duration {
	return rusage(syscall.RUSAGE_THREAD)
}

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// hostileHeapProfile names a file BenchmarkHostileInProcess writes a heap profile to at the
// crawl's peak of live heap.
var hostileHeapProfile = flag.String("hostile.heapprofile", "", "write a heap profile at the peak of BenchmarkHostileInProcess to `FILE`")

// hostileCase is one hostile response and how to crawl it.
type hostileCase struct {
	name string
	path string   // the seed's path on the hostile server
	args []string // extra crawl flags
}

// hostileCases are the inputs whose memory the crawler must bound (issue 10): the figures
// are the crawler's peak RSS, which must not follow the size of the input.
var hostileCases = []hostileCase{
	// A 5 MB page of 200,000 distinct links to its own host; --limit 1 ends the crawl once the
	// page is done, after its outlinks went into the frontier.
	{name: "links200k", path: "/links", args: []string{"--limit", "1"}},
	// 10 MB on the wire (gzip members of 1 MiB of zeros each), 10 GiB inflated.
	{name: "gzipbomb", path: "/bomb"},
	// An HTML body that never ends: the client stops at the default --max-response-size.
	{name: "endless", path: "/endless"},
	// 100,000 nested elements.
	{name: "nested100k", path: "/nested"},
	// A page linking a 100 KB URL, which is fetched too.
	{name: "longurl100k", path: "/longurl"},
}

// hostileServer serves the pages of hostileCases on 127.0.0.1.
func hostileServer(tb testing.TB) *httptest.Server {
	tb.Helper()
	links := linksPage(200000)
	bomb := gzipBomb(10240, 1<<20)
	nested := nestedPage(100000)
	long := "/long/" + strings.Repeat("a", 100<<10)
	mux := http.NewServeMux()
	mux.HandleFunc("/links", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(links)
	})
	mux.HandleFunc("/l/", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", fmt.Sprint(len(bomb)))
		w.Write(bomb)
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		chunk := bytes.Repeat([]byte("<p>endless <a href=/e>text</a></p>\n"), 1000)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/nested", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(nested)
	})
	mux.HandleFunc("/longurl", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><a href=%q>long</a></body></html>", long)
	})
	mux.HandleFunc("/long/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<p>long</p>"))
	})
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	return srv
}

// linksPage is an HTML page of n distinct links (about 25 bytes each).
func linksPage(n int) []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><head><title>links</title></head><body>\n")
	for i := range n {
		fmt.Fprintf(&b, "<a href=/l/%07d>%d</a>\n", i, i)
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}

// gzipBomb is members concatenated gzip members of size zero bytes each.
func gzipBomb(members, size int) []byte {
	var one bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&one, gzip.BestCompression)
	zw.Write(make([]byte, size))
	zw.Close()
	return bytes.Repeat(one.Bytes(), members)
}

// nestedPage is an HTML page of n nested div elements with a link and text at the bottom.
func nestedPage(n int) []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><head><title>nested</title></head><body>")
	for range n {
		b.WriteString("<div>")
	}
	b.WriteString("<h1>deep</h1><a href=/deep>deep</a>")
	for range n {
		b.WriteString("</div>")
	}
	b.WriteString("</body></html>")
	return b.Bytes()
}

// hostileArgs are the crawl flags of one case run against srv into dir.
func hostileArgs(srv *httptest.Server, dir string, c hostileCase) []string {
	host := strings.TrimPrefix(srv.URL, "http://")
	args := []string{"crawl", "--dir", dir, "--connect-to", "hostile.example:80:" + host, "--allow-private",
		"--ignore-robots", "--host-delay", "0", "--retry-delay", "10ms", "--max-attempts", "1", "--quiet"}
	args = append(args, c.args...)
	return append(args, "http://hostile.example"+c.path)
}

// BenchmarkHostile crawls each hostile case with the amber binary and reports the crawler's
// peak RSS (peakRSS-MB) and wall time. It asserts nothing about the figures: make
// bench-hostile prints them. A crawl that fails (exit status other than 0, or 14 at --limit)
// fails the benchmark.
func BenchmarkHostile(b *testing.B) {
	bin := amberBinary(b)
	srv := hostileServer(b)
	for _, c := range hostileCases {
		b.Run(c.name, func(b *testing.B) {
			for i := range b.N {
				dir := filepath.Join(b.TempDir(), fmt.Sprint("crawl", i))
				cmd := exec.Command(bin, hostileArgs(srv, dir, c)...)
				start := time.Now()
				out, err := cmd.CombinedOutput()
				el := time.Since(start)
				if err != nil && cmd.ProcessState.ExitCode() != exitLimit {
					b.Errorf("crawl: %v\n%s", err, clip(out, 600))
				}
				if log, err := os.ReadFile(filepath.Join(dir, "logs", "crawl.log")); err == nil {
					line, _, _ := strings.Cut(string(log), "\n")
					b.Logf("exit %d, first crawl.log line: %s", cmd.ProcessState.ExitCode(), clip([]byte(line), 400))
				}
				ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
				b.ReportMetric(float64(ru.Maxrss)/1024, "peakRSS-MB")
				b.ReportMetric(el.Seconds(), "s/crawl")
			}
		})
	}
}

// BenchmarkHostileInProcess runs each hostile crawl in this process (run, as main does) and
// reports the peak of live heap objects; with -hostile.heapprofile FILE it writes a heap
// profile taken at that peak (FILE.CASE), for go tool pprof.
func BenchmarkHostileInProcess(b *testing.B) {
	srv := hostileServer(b)
	for _, c := range hostileCases {
		b.Run(c.name, func(b *testing.B) {
			for i := range b.N {
				dir := filepath.Join(b.TempDir(), fmt.Sprint("crawl", i))
				runtime.GC()
				w := startHeapWatch(*hostileHeapProfile, c.name)
				var out bytes.Buffer
				err := run(b.Context(), hostileArgs(srv, dir, c), nil, &out, &out)
				peak := w.stop()
				if err != nil && exitCode(err) != exitLimit {
					b.Errorf("crawl: %v\n%s", err, clip(out.Bytes(), 600))
				}
				b.ReportMetric(float64(peak)/(1<<20), "peakHeap-MB")
			}
		})
	}
}

// clip is b, or its first and last n/2 bytes when it is longer than n.
func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n/2]) + " … " + string(b[len(b)-n/2:])
	}
	return string(b)
}

// heapWatch samples the live heap every few milliseconds and keeps its peak.
type heapWatch struct {
	done chan struct{}
	wg   sync.WaitGroup
	peak uint64
}

// startHeapWatch starts sampling; when profile is not empty, a heap profile is written to
// profile.name each time the live heap grows a quarter above the last profile's.
func startHeapWatch(profile, name string) *heapWatch {
	w := &heapWatch{done: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var profiled uint64
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-t.C:
			}
			metrics.Read(s)
			v := s[0].Value.Uint64()
			w.peak = max(w.peak, v)
			if profile != "" && v > profiled+profiled/4 {
				profiled = v
				if f, err := os.Create(profile + "." + name); err == nil {
					pprof.Lookup("heap").WriteTo(f, 0)
					f.Close()
				}
			}
		}
	}()
	return w
}

// stop ends sampling and returns the peak.
func (w *heapWatch) stop() uint64 {
	close(w.done)
	w.wg.Wait()
	return w.peak
}

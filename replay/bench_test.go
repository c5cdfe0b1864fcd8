package replay_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/replay"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/warc"
)

// benchDirEnv names a crawl directory (or WACZ file) for BenchmarkReplay to replay (the
// 100,000-page crawl of make bench, say); without it the benchmark crawls a generated
// 2,000-page site.
const benchDirEnv = "AMBER_REPLAY_BENCH_DIR"

// BenchmarkReplay measures a replay of a crawl: opening it (the sources, the scan of the index
// for the crawl's time) and answering a GET of every http(s) URL of its index through the
// proxy with Go's client, one at a time and four at a time:
//
//	AMBER_REPLAY_BENCH_DIR=/path/to/crawl go test -run '^$' -bench Replay -benchtime 1x ./replay/
func BenchmarkReplay(b *testing.B) {
	src := os.Getenv(benchDirEnv)
	if src == "" {
		site, err := testsite.StartHandler(testsite.Generated{Pages: 2000})
		if err != nil {
			b.Fatal(err)
		}
		src = benchCrawl(b, site)
		site.Close()
	}
	state := b.TempDir()
	var urls []string
	b.Run("open", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			s, err := replay.Open(b.Context(), replay.Config{Sources: []string{src}, StateDir: state})
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
	s, err := replay.Open(b.Context(), replay.Config{Sources: []string{src}, StateDir: state})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	urls = indexURLs(b, src)
	proxy := httptest.NewServer(s)
	defer proxy.Close()
	fmt.Printf("BenchmarkReplay: %s: %d URLs\n", src, len(urls))
	for _, clients := range []int{1, 4} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			pu, _ := url.Parse(proxy.URL)
			tr := &http.Transport{Proxy: http.ProxyURL(pu), MaxIdleConnsPerHost: clients}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			var bytes, misses atomic.Int64
			start := time.Now()
			for i := 0; i < b.N; i++ {
				var next atomic.Int64
				var wg sync.WaitGroup
				for c := 0; c < clients; c++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							k := int(next.Add(1)) - 1
							if k >= len(urls) {
								return
							}
							resp, err := client.Get(urls[k])
							if err != nil {
								b.Error(err)
								return
							}
							n, _ := io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							bytes.Add(n)
							if resp.Header.Get("Amber-Replay") == "miss" {
								misses.Add(1)
							}
						}
					}()
				}
				wg.Wait()
			}
			d := time.Since(start)
			b.ReportMetric(float64(len(urls)*b.N)/d.Seconds(), "requests/s")
			b.ReportMetric(float64(bytes.Load())/d.Seconds()/1e6, "MB/s")
			b.ReportMetric(float64(misses.Load())/float64(b.N), "misses")
		})
	}
}

// indexURLs returns the http(s) URLs of a crawl directory's sorted index, each once.
func indexURLs(b *testing.B, src string) []string {
	b.Helper()
	data, err := os.ReadFile(filepath.Join(src, "indexes", warc.SortedCDXJ))
	if err != nil {
		b.Skipf("%s: the benchmark reads a crawl directory's index: %v", src, err)
	}
	seen := map[string]bool{}
	var urls []string
	for _, line := range strings.Split(string(data), "\n") {
		e, err := warc.ParseIndexLine([]byte(line))
		if err != nil || !strings.HasPrefix(e.URL, "http") || seen[e.URL] || strings.Contains(e.Key, "__wb_method=") {
			continue
		}
		seen[e.URL] = true
		urls = append(urls, e.URL)
	}
	return urls
}

// benchCrawl crawls a generated site into a new crawl directory.
func benchCrawl(b *testing.B, site *testsite.Server) string {
	b.Helper()
	ct, err := fetch.ParseConnectTo(site.ConnectTo())
	if err != nil {
		b.Fatal(err)
	}
	cfg := crawl.DefaultConfig()
	cfg.Dir = filepath.Join(b.TempDir(), "crawl")
	cfg.Collection = "bench"
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://gen.example.com/", Type: scope.StandardSeed}}}
	cfg.Workers = 8
	cfg.HostDelay = 0
	cfg.HostConcurrency = 8
	cfg.MaxAttempts = 1
	cfg.ProgressEvery = -1
	cfg.Fetch = fetch.Config{UserAgent: "amber-bench/1.0", AllowPrivate: true, ConnectTo: []fetch.ConnectTo{ct}}
	res, err := crawl.Run(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		b.Fatalf("crawl ended %q", res.End)
	}
	return cfg.Dir
}

package crawl_test

import (
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
)

func generatedConfig(t *testing.T, pages int) (*testsite.Server, crawl.Config) {
	t.Helper()
	site, err := testsite.StartHandler(testsite.Generated{Pages: pages})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	cfg := basicConfig(t, site, t.TempDir())
	cfg.Scope.Seeds[0].URL = "http://gen.example.com/"
	cfg.HostConcurrency = 4
	return site, cfg
}

// TestLimitURLs stops at --limit, resumes with the same limit without fetching more, and goes
// on when the limit is raised.
func TestLimitURLs(t *testing.T) {
	_, cfg := generatedConfig(t, 300)
	cfg.LimitURLs = 40
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndLimit || res.Fetched != 40 || res.Stats.Queued == 0 {
		t.Fatalf("first run: end %q, fetched %d, queued %d; want limit, 40, some", res.End, res.Fetched, res.Stats.Queued)
	}
	res, err = crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndLimit || res.Fetched != 40 {
		t.Errorf("same limit again: end %q, fetched %d; want limit, 40", res.End, res.Fetched)
	}
	cfg.LimitURLs = 0
	res, err = crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		t.Fatalf("raised limit: end %q", res.End)
	}
	// 300 pages, 50 images, the stylesheet; robots.txt is not counted as a URL of the crawl.
	if res.Fetched != 300+50+1+1 {
		t.Errorf("fetched %d over three runs, want %d (pages, images, css, favicon)", res.Fetched, 300+50+1+1)
	}
	lines := crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile))
	seen := map[string]bool{}
	for _, l := range lines {
		if l.Status > 0 && l.URL != "http://gen.example.com/robots.txt" {
			if seen[l.URL] {
				t.Errorf("%s fetched twice", l.URL)
			}
			seen[l.URL] = true
		}
	}
}

func TestLimitBytesAndTime(t *testing.T) {
	_, cfg := generatedConfig(t, 2000)
	cfg.LimitBytes = 20_000
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndLimit || res.Bytes < 20_000 || res.Fetched > 200 {
		t.Errorf("byte limit: end %q, bytes %d, fetched %d", res.End, res.Bytes, res.Fetched)
	}

	_, cfg = generatedConfig(t, 100000)
	cfg.HostDelay = 20 * time.Millisecond
	cfg.HostConcurrency = 1
	cfg.TimeLimit = 300 * time.Millisecond
	start := time.Now()
	res, err = crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndLimit || res.Stats.Queued == 0 {
		t.Errorf("time limit: end %q, queued %d", res.End, res.Stats.Queued)
	}
	t.Logf("time limit 300ms: run took %v, %d fetched", time.Since(start), res.Fetched)
}

// TestRetryAfter: a 503 with Retry-After is retried no sooner than it asks, then archived.
func TestRetryAfter(t *testing.T) {
	var mu sync.Mutex
	var hits []time.Time
	site, err := testsite.StartHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		hits = append(hits, time.Now())
		n := len(hits)
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><body>back</body></html>"))
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	cfg := basicConfig(t, site, t.TempDir())
	cfg.Scope.Seeds[0].URL = "http://busy.example.com/"
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		t.Fatalf("end %q", res.End)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(hits) != 2 {
		t.Fatalf("%d requests, want 2", len(hits))
	}
	if gap := hits[1].Sub(hits[0]); gap < time.Second {
		t.Errorf("retried after %v, before Retry-After's 1s", gap)
	}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile)) {
		if l.URL == "http://busy.example.com/" && (l.Status != 200 || len(l.Annotations) == 0 || l.Annotations[0] != "2t") {
			t.Errorf("crawl.log: %+v, want 200 with 2t", l)
		}
	}
}

package crawl_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/sitelimit"
	"github.com/amber-crawler/amber/status"
)

// embedsSite serves a page on www.example.com whose images are on cdn.example.com (four of
// them) and static.example.com (one, under /private/, which its robots.txt disallows). It
// counts the requests each path of each host got.
type embedsSite struct {
	mu   sync.Mutex
	hits map[string]int // host + path
}

func (s *embedsSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host, _, _ := strings.Cut(r.Host, ":")
	s.mu.Lock()
	s.hits[host+r.URL.Path]++
	s.mu.Unlock()
	switch host + r.URL.Path {
	case "www.example.com/":
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!DOCTYPE html><html><head><title>embeds</title></head><body>
<img src="http://cdn.example.com/a.png"><img src="http://cdn.example.com/b.png">
<img src="http://cdn.example.com/c.png"><img src="http://cdn.example.com/d.png">
<img src="http://static.example.com/private/secret.png"></body></html>`))
	case "static.example.com/robots.txt":
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("User-agent: *\nDisallow: /private/\n"))
	case "cdn.example.com/a.png", "cdn.example.com/b.png", "cdn.example.com/c.png", "cdn.example.com/d.png",
		"static.example.com/private/secret.png":
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	default:
		http.NotFound(w, r)
	}
}

func (s *embedsSite) count(hostPath string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[hostPath]
}

// TestSubresourcesThroughTheChain: a page's embeds are decided the same with both fetchers.
// The plain fetcher queues them as URLs, the browser loads them with the page; either way
// the one robots.txt disallows is refused before it is requested (-9998 robots, a
// url-discover-denied event), and the per-site limit counts the embeds of their host: of four
// images on a host allowed three URLs, three are fetched and one is refused (-5000
// scope:max-doc), never requested.
func TestSubresourcesThroughTheChain(t *testing.T) {
	for _, fetcher := range []string{crawl.FetcherHTTP, crawl.FetcherBrowser} {
		t.Run(fetcher, func(t *testing.T) {
			site := &embedsSite{hits: map[string]int{}}
			addr := serveAll(t, site)
			cfg := basicConfig(t, nil, t.TempDir())
			cfg.Fetch.ConnectTo = connectAll(t, addr)
			cfg.Sites = sitelimit.Config{URLsPerHost: 3}
			cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://www.example.com/", Type: scope.OnePage}}}
			if fetcher == crawl.FetcherBrowser {
				cfg.Fetcher = fetcher
				cfg.Scope.Flavour = scope.Brozzler
				cfg.Browser = browser.Config{Path: crawltest.Chromium(t), PageTimeout: 60 * time.Second, BehaviorTimeout: 5 * time.Second}
			}
			res, err := crawl.Run(t.Context(), cfg)
			if err != nil || res.End != crawl.EndFinished {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			lines := crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile))
			var images, refused []string // the images fetched; those max-doc refused
			secret := false
			for _, l := range lines {
				switch {
				case strings.HasSuffix(l.URL, "/private/secret.png"):
					secret = true
					if l.Status != status.Robots || !slices.Contains(l.Annotations, "robots") || l.Via != "http://www.example.com/" {
						t.Errorf("secret.png: %+v, want -9998 robots via the page", l)
					}
				case !strings.HasPrefix(l.URL, "http://cdn.example.com/") || !strings.HasSuffix(l.URL, ".png"):
				case l.Status == 200:
					images = append(images, l.URL)
				case l.Status == status.OutOfScope && slices.Contains(l.Annotations, "scope:"+sitelimit.ReasonMaxDoc):
					refused = append(refused, l.URL)
				default:
					t.Errorf("an image: %+v", l)
				}
			}
			if !secret {
				t.Error("secret.png has no crawl.log line")
			}
			if len(images) != 3 || len(refused) != 1 {
				t.Errorf("images fetched %v, refused by max-doc %v; want 3 and 1", images, refused)
			}
			if n := site.count("static.example.com/private/secret.png"); n != 0 {
				t.Errorf("secret.png requested %d times", n)
			}
			requested := 0
			for _, p := range []string{"a", "b", "c", "d"} {
				requested += site.count("cdn.example.com/" + p + ".png")
			}
			if requested != 3 {
				t.Errorf("%d image requests, want 3", requested)
			}
			denied := 0
			b, err := os.ReadFile(filepath.Join(cfg.Dir, crawl.EventsFile))
			if err != nil {
				t.Fatal(err)
			}
			for line := range strings.Lines(string(b)) {
				var e map[string]any
				if err := json.Unmarshal([]byte(line), &e); err != nil {
					t.Fatalf("events.jsonl: %v", err)
				}
				if e["crawler.url.deny_reason"] == "robots" && strings.HasSuffix(fmt.Sprint(e["url.full"]), "/private/secret.png") {
					denied++
				}
			}
			if denied != 1 {
				t.Errorf("%d robots url-discover-denied events for secret.png, want 1", denied)
			}
		})
	}
}

package qa_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/scope"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { removeCrawls() }))
}

// startBasic serves the basic test site (several hosts, robots.txt, redirects).
func startBasic(t testing.TB) *testsite.Server {
	t.Helper()
	site, err := testsite.Start(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "basic"))
	if err != nil {
		t.Fatal(err)
	}
	return site
}

// Timeouts of the browser, the same in the crawls and in qa.
const (
	pageTimeout     = 60 * time.Second
	behaviorTimeout = 10 * time.Second
)

// crawlConfig is the config of a crawl of site from http://www.example.com/ into dir, with
// the browser fetcher (brozzler flavour, screenshots) or the plain one.
func crawlConfig(t testing.TB, site *testsite.Server, dir string, browserFetcher bool) crawl.Config {
	t.Helper()
	ct, err := fetch.ParseConnectTo(site.ConnectTo())
	if err != nil {
		t.Fatal(err)
	}
	cfg := crawl.DefaultConfig()
	cfg.Dir = dir
	cfg.Collection = "qa-test"
	cfg.EffectiveConfig = []byte("collection: qa-test\nseeds:\n  - http://www.example.com/\n")
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://www.example.com/", Type: scope.StandardSeed}}}
	cfg.Workers = 2
	cfg.HostDelay = 0
	cfg.HostConcurrency = 2
	cfg.MaxAttempts = 1
	cfg.ProgressEvery = -1
	// Cookies kept, as amber crawl keeps them: the protected image needs the page's.
	cfg.Fetch = fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true, ConnectTo: []fetch.ConnectTo{ct}, Jar: fetch.NewJar()}
	if browserFetcher {
		cfg.Fetcher = crawl.FetcherBrowser
		cfg.Scope.Flavour = scope.Brozzler
		cfg.Browser = browserConfig(t)
	}
	return cfg
}

// browserConfig is the browser of the crawls and of qa.
func browserConfig(t testing.TB) browser.Config {
	return browser.Config{Path: crawltest.Chromium(t), Screenshot: true, PageTimeout: pageTimeout, BehaviorTimeout: behaviorTimeout}
}

// runCrawl runs a crawl to its end.
func runCrawl(cfg crawl.Config) error {
	res, err := crawl.Run(context.Background(), cfg)
	if err != nil {
		return err
	}
	if res.End != crawl.EndFinished {
		return fmt.Errorf("crawl of %s ended %q", cfg.Dir, res.End)
	}
	return nil
}

// crawls are the crawls of the test sites the tests check, made once each; tests copy one
// before they change it.
var crawls struct {
	mu     sync.Mutex
	parent string
	dirs   map[string]string
	errs   map[string]error
}

// removeCrawls removes the shared crawls at the end of the tests.
func removeCrawls() {
	if crawls.parent != "" {
		os.RemoveAll(crawls.parent)
	}
}

// sharedCrawl returns the crawl directory of the site ("js" or "basic") with the browser
// fetcher or the plain one, crawled on first use.
func sharedCrawl(t *testing.T, siteName string, browserFetcher bool) string {
	t.Helper()
	if browserFetcher {
		crawltest.Chromium(t)
	}
	name := fmt.Sprintf("%s-%v", siteName, browserFetcher)
	crawls.mu.Lock()
	defer crawls.mu.Unlock()
	if crawls.dirs == nil {
		crawls.dirs, crawls.errs = map[string]string{}, map[string]error{}
		p, err := os.MkdirTemp("", "amber-qa-test-")
		if err != nil {
			t.Fatal(err)
		}
		crawls.parent = p
	}
	if _, done := crawls.dirs[name]; !done {
		dir := filepath.Join(crawls.parent, name)
		var site *testsite.Server
		if siteName == "js" {
			site = crawltest.JSSite(t)
		} else {
			site = startBasic(t)
		}
		crawls.errs[name] = runCrawl(crawlConfig(t, site, dir, browserFetcher))
		site.Close()
		crawls.dirs[name] = dir
	}
	if err := crawls.errs[name]; err != nil {
		t.Fatal(err)
	}
	return crawls.dirs[name]
}

// copyDir copies the crawl directory src into a new directory and returns it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

package crawl_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/certtest"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/scope"
)

// certSite is an https site that requires a client certificate of its authority: / links
// to /p/1 and /p/2, and every request's client certificate name is recorded.
type certSite struct {
	mu    sync.Mutex // guards names
	names []string
}

func (s *certSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.names = append(s.names, certtest.ClientName(r))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html")
	body := ""
	if r.URL.Path == "/" {
		body = `<a href="/p/1">1</a> <a href="/p/2">2</a>`
	}
	fmt.Fprintf(w, "<html><body>%s %s</body></html>", certtest.ClientName(r), body)
}

func (s *certSite) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.names...)
}

// certConfig is a crawl of ts as https://www.example.com/.
func certConfig(t *testing.T, ts *httptest.Server) crawl.Config {
	t.Helper()
	cfg := basicConfig(t, nil, t.TempDir())
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "https://www.example.com/", Type: scope.StandardSeed}}}
	ct, err := fetch.ParseConnectTo("www.example.com:443:" + ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Fetch.ConnectTo = []fetch.ConnectTo{ct}
	cfg.IgnoreRobots = true
	cfg.MaxAttempts = 1
	return cfg
}

// TestClientCert: with ClientCert and ClientKey both fetchers get through a server that
// requires a client certificate (the browser fetcher's requests are made by the crawl's
// client); without them every request is refused in the TLS handshake.
func TestClientCert(t *testing.T) {
	ca := certtest.NewCA(t)
	certFile, keyFile := ca.ClientFiles(t, "amber-test")
	tests := []struct {
		name    string
		fetcher string
		cert    bool
	}{
		{"http", crawl.FetcherHTTP, true},
		{"browser", crawl.FetcherBrowser, true},
		{"none", crawl.FetcherHTTP, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := &certSite{}
			ts := ca.StartServer(t, site, "www.example.com")
			cfg := certConfig(t, ts)
			if tt.fetcher == crawl.FetcherBrowser {
				cfg.Fetcher = crawl.FetcherBrowser
				cfg.Browser = browser.Config{Path: crawltest.Chromium(t), PageTimeout: 60 * time.Second, BehaviorTimeout: 5 * time.Second}
				cfg.Workers = 2
			}
			if tt.cert {
				cfg.ClientCert, cfg.ClientKey = certFile, keyFile
			}
			last := lastLines(runFAST(t, cfg))
			if !tt.cert {
				if l := last["https://www.example.com/"]; l.Status >= 0 {
					t.Errorf("/: status %d, want a failure (no client certificate)", l.Status)
				}
				if got := site.seen(); len(got) != 0 {
					t.Errorf("the server answered %d requests, want none", len(got))
				}
				return
			}
			for _, p := range []string{"/", "/p/1", "/p/2"} {
				if l := last["https://www.example.com"+p]; l.Status != 200 {
					t.Errorf("%s: status %d, want 200", p, l.Status)
				}
			}
			got := site.seen()
			if len(got) < 3 {
				t.Errorf("the server answered %d requests, want at least 3", len(got))
			}
			for _, n := range got {
				if n != "amber-test" {
					t.Errorf("a request with client certificate %q, want amber-test: %v", n, got)
					break
				}
			}
		})
	}
}

// TestClientCertErrors: a crawl whose client certificate cannot be used does not start, and
// says why.
func TestClientCertErrors(t *testing.T) {
	ca := certtest.NewCA(t)
	certFile, keyFile := ca.ClientFiles(t, "amber-test")
	_, otherKey := ca.ClientFiles(t, "other")
	missing := filepath.Join(t.TempDir(), "none.pem")
	tests := []struct {
		name      string
		cert, key string
		field     string
		is        error
	}{
		{"missing file", missing, keyFile, "ClientCert", fs.ErrNotExist},
		{"key of another certificate", certFile, otherKey, "ClientCert", fetch.ErrKeyMismatch},
		{"no key", certFile, "", "ClientKey", nil},
		{"no certificate", "", keyFile, "ClientCert", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := &certSite{}
			cfg := certConfig(t, ca.StartServer(t, site, "www.example.com"))
			cfg.ClientCert, cfg.ClientKey = tt.cert, tt.key
			_, err := crawl.Run(t.Context(), cfg)
			var fe *crawl.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field || !errors.Is(err, crawl.ErrConfig) {
				t.Fatalf("Run: %v; want a FieldError on %s", err, tt.field)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Run: %v; want %v", err, tt.is)
			}
			if _, err := os.Stat(filepath.Join(cfg.Dir, crawl.CrawlLogFile)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("crawl.log: %v; want none (the crawl did not start)", err)
			}
		})
	}
}

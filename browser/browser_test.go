package browser

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/amber-crawler/amber/internal/crawltest"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/amber-crawler/amber/fetch"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// site is the local test site: the files of testdata/sites/js/www.example.com plus a few handlers that need
// code (a cookie check, a redirect, a gzip-encoded stylesheet, an image that hangs).
type site struct {
	*httptest.Server
	mu   sync.Mutex // guards seen
	seen []string   // request paths in arrival order

	// hang, when set, is called for /hang.png; it returns once the image may be served.
	hang func(r *http.Request) bool
}

func newSite(t testing.TB) *site {
	t.Helper()
	s := &site{}
	root := filepath.Join("..", "testdata", "sites", "js", "www.example.com")
	files := http.FileServer(http.Dir(root))
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			files.ServeHTTP(w, r)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "amber_session", Value: "ok", Path: "/", HttpOnly: true})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(readFile(t, "index.html"))
	})
	mux.HandleFunc("/style.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		zw.Write(readFile(t, "style.css"))
		zw.Close()
	})
	mux.HandleFunc("/redirect.png", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/img/target.png", http.StatusFound)
	})
	mux.HandleFunc("/console.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(consolePage))
	})
	mux.HandleFunc("/protected.png", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("amber_session"); err != nil || c.Value != "ok" {
			http.Error(w, "no cookie", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(readFile(t, "img/protected.png"))
	})
	mux.HandleFunc("/hang.png", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		hang := s.hang
		s.mu.Unlock()
		if hang != nil && !hang(r) {
			return
		}
		w.Header().Set("Content-Type", "image/png")
		w.Write(readFile(t, "img/hang.png"))
	})
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.URL.Path)
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *site) saw(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.seen {
		if p == path {
			return true
		}
	}
	return false
}

func readFile(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "sites", "js", "www.example.com", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newFetcher(t testing.TB, mod func(*Config)) *Fetcher {
	t.Helper()
	path := crawltest.Chromium(t)
	client, err := fetch.NewClient(fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	cfg := Config{
		Path:         path,
		Client:       client,
		Screenshot:   true,
		PageTimeout:  45 * time.Second,
		UserAgent:    "amber-test/1.0 (Chromium)",
		RecycleAfter: 50,
		Logger:       slog.New(slog.DiscardHandler),
	}
	if mod != nil {
		mod(&cfg)
	}
	f, err := New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// blockBlocked is the admission of fetchPage's pages: it refuses the requests under /blocked/
// as a block rule would.
func blockBlocked(_ context.Context, u string) string {
	if strings.Contains(u, "/blocked/") {
		return "block:contains:/blocked/"
	}
	return ""
}

func fetchPage(t testing.TB, f *Fetcher, u string) *Page {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p, err := f.Load(ctx, fetch.Request{URL: u, Admit: blockBlocked})
	if err != nil {
		t.Fatalf("Fetch(%s): %v", u, err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func body(t testing.TB, ex *fetch.Exchange) []byte {
	t.Helper()
	rc, err := ex.Body()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func raw(t testing.TB, ex *fetch.Exchange) []byte {
	t.Helper()
	rc, err := ex.Response()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkIndex asserts that p is a complete capture of the test site's index page.
func checkIndex(t testing.TB, s *site, p *Page, shot bool) {
	t.Helper()
	base := s.URL
	byURL := map[string]*fetch.Exchange{}
	for _, ex := range p.Exchanges {
		if prev, ok := byURL[ex.URL]; ok {
			t.Errorf("%s fetched twice (statuses %d, %d)", ex.URL, prev.StatusCode, ex.StatusCode)
		}
		byURL[ex.URL] = ex
	}
	if len(p.Exchanges) == 0 || p.Exchanges[0].URL != base+"/" {
		t.Fatalf("first exchange is not the page: %v", urls(p.Exchanges))
	}
	want := []struct {
		path   string
		status int
		file   string // expected decoded payload; "" skips the comparison
	}{
		{"/", 200, "index.html"},
		{"/style.css", 200, "style.css"}, // gzip on the wire, decoded for Chromium
		{"/app.js", 200, "app.js"},
		{"/data.json", 200, "data.json"},               // fetch()
		{"/img/bg.png", 200, "img/bg.png"},             // CSS background
		{"/fonts/test.woff2", 200, "fonts/test.woff2"}, // web font
		{"/frame.html", 200, "frame.html"},             // iframe
		{"/img/frame.png", 200, "img/frame.png"},       // the iframe's image
		{"/img/observed.png", 200, "img/observed.png"}, // IntersectionObserver
		{"/img/lazy.png", 200, "img/lazy.png"},         // loading=lazy far down
		{"/img/logo.png", 200, "img/logo.png"},
		{"/protected.png", 200, "img/protected.png"}, // needs the page's cookie
		{"/redirect.png", 302, ""},
		{"/img/target.png", 200, "img/target.png"}, // the redirect's target
	}
	for _, w := range want {
		ex := byURL[base+w.path]
		if ex == nil {
			t.Errorf("%s not captured; captured: %v", w.path, urls(p.Exchanges))
			continue
		}
		if ex.StatusCode != w.status {
			t.Errorf("%s: status %d, want %d", w.path, ex.StatusCode, w.status)
		}
		if w.file != "" {
			if got, want := body(t, ex), readFile(t, w.file); !bytes.Equal(got, want) {
				t.Errorf("%s: payload differs from %s (%d bytes, want %d)", w.path, w.file, len(got), len(want))
			}
		}
		r := raw(t, ex)
		if !bytes.HasPrefix(r, []byte("HTTP/1.1 ")) || !bytes.HasPrefix(ex.Request, []byte("GET ")) {
			t.Errorf("%s: not wire bytes: %q / %q", w.path, firstLine(r), firstLine(ex.Request))
		}
		if w.path == "/style.css" {
			if !bytes.Contains(r, []byte("Content-Encoding: gzip")) {
				t.Errorf("style.css: raw response is not the gzip one")
			}
		} else if w.file != "" && !bytes.HasSuffix(r, readFile(t, w.file)) {
			t.Errorf("%s: raw response does not end with the file", w.path)
		}
	}
	if ex := byURL[base+"/redirect.png"]; ex != nil && ex.Header.Get("Location") != "/img/target.png" {
		t.Errorf("redirect Location = %q", ex.Header.Get("Location"))
	}
	if ex := byURL[base+"/protected.png"]; ex != nil && !bytes.Contains(ex.Request, []byte("amber_session=ok")) {
		t.Errorf("protected.png request has no cookie:\n%s", ex.Request)
	}
	if ex := byURL[base+"/"]; ex != nil && !bytes.Contains(ex.Request, []byte("User-Agent: amber-test/1.0 (Chromium)")) {
		t.Errorf("page request lacks the configured User-Agent:\n%s", ex.Request)
	}

	if len(p.Blocked) != 1 || p.Blocked[0] != (fetch.Refusal{URL: base + "/blocked/ad.png", Reason: "block:contains:/blocked/"}) {
		t.Errorf("Blocked = %v", p.Blocked)
	}
	if s.saw("/blocked/ad.png") {
		t.Errorf("blocked resource reached the server")
	}
	if byURL[base+"/blocked/ad.png"] != nil {
		t.Errorf("blocked resource recorded")
	}

	links := map[fetch.Link]bool{}
	for _, l := range p.Outlinks {
		links[l] = true
	}
	for _, l := range []fetch.Link{
		{URL: base + "/made-by-script.html?x=1", Context: "a/@href"},
		{URL: base + "/static-link.html", Context: "a/@href"},
		{URL: base + "/nofollow-link.html", Context: "a/@href", NoFollow: true},
		{URL: base + "/area-link.html", Context: "area/@href"},
		{URL: base + "/from-frame.html", Context: "a/@href"},
	} {
		if !links[l] {
			t.Errorf("outlink %v missing; have %v", l, p.Outlinks)
		}
	}
	for _, text := range []string{"Inserted by script", "JSON item one", "JSON item two", "<!DOCTYPE html>"} {
		if !strings.Contains(p.HTML, text) {
			t.Errorf("HTML lacks %q", text)
		}
	}
	if p.Title != "Amber browser test" {
		t.Errorf("Title = %q", p.Title)
	}
	if p.FinalURL != base+"/" {
		t.Errorf("FinalURL = %q", p.FinalURL)
	}
	if shot && !bytes.HasPrefix(p.Screenshot, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("screenshot is not a PNG (%d bytes)", len(p.Screenshot))
	}
	if p.TimedOut {
		t.Errorf("TimedOut")
	}
}

func urls(exs []*fetch.Exchange) []string {
	var out []string
	for _, ex := range exs {
		out = append(out, ex.URL)
	}
	return out
}

func firstLine(b []byte) string {
	l, _, _ := bytes.Cut(b, []byte("\r\n"))
	return string(l)
}

func TestFetchPage(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, nil)
	before := unlanded.Load()
	p := fetchPage(t, f, s.URL+"/")
	checkIndex(t, s, p, true)
	// Every request the page announced or amber performed ended by Chromium's event: none
	// held a wait for idle until the bound.
	if n := unlanded.Load() - before; n != 0 {
		t.Errorf("%d requests left flight by the bound", n)
	}

	t.Run("status is a result", func(t *testing.T) {
		p := fetchPage(t, f, s.URL+"/missing.html")
		if len(p.Exchanges) == 0 || p.Exchanges[0].StatusCode != 404 {
			t.Fatalf("exchanges %v", urls(p.Exchanges))
		}
	})
	t.Run("no response is an error", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		_, err = f.Load(t.Context(), fetch.Request{URL: "http://" + addr + "/"})
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Kind != fetch.Connect {
			t.Fatalf("err = %v, want a fetch.Connect error", err)
		}
	})
	t.Run("the page redirects", func(t *testing.T) {
		p := fetchPage(t, f, s.URL+"/redirect.png")
		if got := urls(p.Exchanges); len(got) < 2 || got[0] != s.URL+"/redirect.png" || got[1] != s.URL+"/img/target.png" {
			t.Fatalf("exchanges %v", got)
		}
		if p.FinalURL != s.URL+"/img/target.png" {
			t.Errorf("FinalURL = %q", p.FinalURL)
		}
	})
}

// consolePage reports errors on its console in every way a page can, and messages that are
// not errors.
const consolePage = `<!DOCTYPE html>
<html><head><title>console</title></head><body>
<script>
console.log('not an error');
console.warn('not an error either');
console.error('failed to', 42, {a: 1});
console.assert(1 === 2, 'one is not two');
console.assert(true, 'holds');
null.property;
</script>
<script>Promise.reject(new TypeError('nobody handles this'));</script>
<script>Promise.reject(new Error('handled')).catch(() => {});</script>
</body></html>`

// TestPageTypesConsole: each exchange of a page has its resource type, and the page its
// console errors (not its logs and warnings, nor those of the page before it in the tab).
func TestPageTypesConsole(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, nil)
	p := fetchPage(t, f, s.URL+"/console.html")
	want := []ConsoleMessage{
		{Kind: ConsoleError, Text: "failed to 42 Object", URL: s.URL + "/console.html", Line: 6},
		{Kind: ConsoleAssert, Text: "one is not two", URL: s.URL + "/console.html", Line: 7},
		{Kind: ConsoleException, Text: "Uncaught TypeError: Cannot read properties of null (reading 'property')", URL: s.URL + "/console.html", Line: 9},
		{Kind: ConsoleException, Text: "Uncaught (in promise) TypeError: nobody handles this", URL: s.URL + "/console.html", Line: 11},
	}
	if d := cmp.Diff(want, p.Console); d != "" {
		t.Errorf("console (-want +got):\n%s", d)
	}
	if len(p.Types) != len(p.Exchanges) || p.Types[0] != "Document" {
		t.Fatalf("types %v of %v", p.Types, urls(p.Exchanges))
	}

	// The next page in the same tab: its own types, none of the console errors above.
	p = fetchPage(t, f, s.URL+"/")
	if len(p.Console) != 0 {
		t.Errorf("console of the index page: %+v", p.Console)
	}
	types := map[string]string{}
	for i, ex := range p.Exchanges {
		types[strings.TrimPrefix(ex.URL, s.URL)] = p.Types[i]
	}
	for path, want := range map[string]string{
		"/": "Document", "/style.css": "Stylesheet", "/app.js": "Script",
		// fetch(), which the interception stage reports as XHR.
		"/data.json":    "XHR",
		"/img/logo.png": "Image", "/img/observed.png": "Image", "/fonts/test.woff2": "Font",
		"/frame.html": "Document", "/redirect.png": "Image", "/img/target.png": "Image",
	} {
		if got := types[path]; got != want {
			t.Errorf("%s: type %q, want %q", path, got, want)
		}
	}
}

// TestDefaultBinary captures the test site's page with the Chromium New picks when
// Config.Path is empty (the headless shell where it is installed, as in CI; the tests'
// other fetchers run /usr/bin/chromium): every resource of the page is captured with it too.
func TestDefaultBinary(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, func(c *Config) { c.Path = "" })
	if f.cfg.Path != DefaultPath() {
		t.Errorf("Path %s, want %s", f.cfg.Path, DefaultPath())
	}
	if os.Getenv("CI") == "true" && f.cfg.Path != HeadlessShellPath {
		t.Errorf("CI runs %s, want the headless shell %s (apt-get install -y chromium-headless-shell)", f.cfg.Path, HeadlessShellPath)
	}
	checkIndex(t, s, fetchPage(t, f, s.URL+"/"), true)
}

// TestTestBrowser: the tests run the browser a crawl runs by default (crawltest keeps copies
// of the paths, as it cannot import this package).
func TestTestBrowser(t *testing.T) {
	if crawltest.ChromiumPath != ChromiumPath || crawltest.HeadlessShellPath != HeadlessShellPath {
		t.Fatalf("crawltest's paths %s, %s; browser's %s, %s", crawltest.ChromiumPath, crawltest.HeadlessShellPath, ChromiumPath, HeadlessShellPath)
	}
	if os.Getenv("AMBER_TEST_CHROMIUM") != "" {
		t.Skip("AMBER_TEST_CHROMIUM chooses the tests' browser")
	}
	if got := crawltest.Chromium(t); got != DefaultPath() {
		t.Errorf("the tests run %s, a crawl %s", got, DefaultPath())
	}
}

func TestConfig(t *testing.T) {
	client, err := fetch.NewClient(fetch.Config{UserAgent: "x"})
	if err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]Config{
		"no client":      {Path: "/bin/sh"},
		"negative tabs":  {Path: "/bin/sh", Client: client, Tabs: -1},
		"negative time":  {Path: "/bin/sh", Client: client, PageTimeout: -time.Second},
		"missing binary": {Path: "/nonexistent/chromium", Client: client},
		"directory":      {Path: "/", Client: client},
		"bad user agent": {Path: "/bin/sh", Client: client, UserAgent: "a\nb"},
	} {
		if _, err := New(t.Context(), cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
}

func TestFirstExecutable(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shell, plain := write("shell", 0o755), write("plain", 0o644)
	const full = "/usr/bin/chromium"
	for _, tc := range []struct {
		name, preferred, want string
	}{
		{"installed", shell, shell},
		{"missing", filepath.Join(dir, "none"), full},
		{"not executable", plain, full},
		{"directory", dir, full},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := firstExecutable(tc.preferred, full); got != tc.want {
				t.Errorf("firstExecutable(%s) = %s, want %s", tc.preferred, got, tc.want)
			}
		})
	}
}

func TestTabsConcurrent(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, func(c *Config) { c.Tabs = 2 })
	round := func() {
		var wg sync.WaitGroup
		pages := make([]*Page, 4)
		errs := make([]error, 4)
		for i := range pages {
			wg.Go(func() {
				pages[i], errs[i] = f.Load(t.Context(), fetch.Request{URL: s.URL + "/", Admit: blockBlocked})
			})
		}
		wg.Wait()
		for i, p := range pages {
			if errs[i] != nil {
				t.Fatalf("page %d: %v", i, errs[i])
			}
			t.Cleanup(func() { p.Close() })
			checkIndex(t, s, p, true)
		}
	}
	round()
	f.mu.Lock()
	in := f.cur
	first := append([]*tab(nil), in.idle...)
	f.mu.Unlock()
	if len(first) == 0 || len(first) > 2 {
		t.Fatalf("%d idle tabs after the first round, want 1 or 2", len(first))
	}
	round()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur != in {
		t.Fatalf("browser restarted")
	}
	for _, tb := range in.idle {
		found := false
		for _, old := range first {
			found = found || old == tb
		}
		if !found && len(first) == 2 {
			t.Errorf("a new tab was opened although two were idle")
		}
	}
	if len(in.idle) > 2 {
		t.Errorf("%d idle tabs, want at most 2", len(in.idle))
	}
}

func browserPID(f *Fetcher) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur == nil {
		return 0
	}
	return f.cur.pid
}

func TestCrashRecovery(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, func(c *Config) { c.Screenshot = false })
	fetchPage(t, f, s.URL+"/frame.html")
	pid := browserPID(f)
	if pid == 0 {
		t.Fatal("no browser pid")
	}

	t.Run("between pages", func(t *testing.T) {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		p := fetchPage(t, f, s.URL+"/")
		checkIndex(t, s, p, false)
		if browserPID(f) == pid {
			t.Errorf("browser not restarted")
		}
	})

	t.Run("during a page", func(t *testing.T) {
		var once sync.Once
		s.mu.Lock()
		s.hang = func(r *http.Request) bool {
			killed := false
			once.Do(func() {
				killed = true
				syscall.Kill(browserPID(f), syscall.SIGKILL)
			})
			if killed {
				<-r.Context().Done() // the first attempt never gets the image
				return false
			}
			return true
		}
		s.mu.Unlock()
		before := browserPID(f)
		p := fetchPage(t, f, s.URL+"/slow.html")
		if browserPID(f) == before {
			t.Errorf("browser not restarted")
		}
		var got bool
		for _, ex := range p.Exchanges {
			if ex.URL == s.URL+"/hang.png" {
				got = ex.StatusCode == 200 && bytes.Equal(body(t, ex), readFile(t, "img/hang.png"))
			}
		}
		if !got {
			t.Errorf("retried page lacks hang.png: %v", urls(p.Exchanges))
		}
		if p.Exchanges[0].URL != s.URL+"/slow.html" {
			t.Errorf("first exchange %s", p.Exchanges[0].URL)
		}
	})
}

func TestRecycle(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, func(c *Config) { c.RecycleAfter = 2; c.Screenshot = false })
	fetchPage(t, f, s.URL+"/frame.html")
	pid := browserPID(f)
	fetchPage(t, f, s.URL+"/frame.html")
	fetchPage(t, f, s.URL+"/frame.html")
	if got := browserPID(f); got == pid || got == 0 {
		t.Errorf("browser not recycled after 2 pages (pid %d, then %d)", pid, got)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("recycled browser %d still runs", pid)
	}
}

func TestTimeout(t *testing.T) {
	s := newSite(t)
	release := make(chan struct{})
	s.mu.Lock()
	s.hang = func(r *http.Request) bool {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return false
	}
	s.mu.Unlock()
	defer close(release)
	f := newFetcher(t, func(c *Config) { c.PageTimeout = 3 * time.Second; c.Screenshot = false })
	p := fetchPage(t, f, s.URL+"/slow.html")
	if !p.TimedOut {
		t.Errorf("TimedOut = false")
	}
	if len(p.Exchanges) == 0 || p.Exchanges[0].URL != s.URL+"/slow.html" || p.Exchanges[0].StatusCode != 200 {
		t.Fatalf("page not kept: %v", urls(p.Exchanges))
	}
	if !strings.Contains(p.HTML, "Waiting for an image") {
		t.Errorf("HTML of the timed-out page not collected")
	}
}

func TestHangRecovery(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, func(c *Config) { c.PageTimeout = 4 * time.Second; c.Screenshot = false })
	fetchPage(t, f, s.URL+"/frame.html")
	var once sync.Once
	var stopped int
	s.mu.Lock()
	s.hang = func(r *http.Request) bool {
		first := false
		once.Do(func() {
			first = true
			stopped = browserPID(f)
			syscall.Kill(stopped, syscall.SIGSTOP) // the browser stops answering
		})
		if first {
			<-r.Context().Done()
			return false
		}
		return true
	}
	s.mu.Unlock()
	p := fetchPage(t, f, s.URL+"/slow.html")
	if pid := browserPID(f); pid == stopped {
		t.Errorf("hung browser not replaced")
	}
	if syscall.Kill(stopped, 0) == nil {
		t.Errorf("hung browser %d still exists", stopped)
	}
	if p.TimedOut || len(p.Exchanges) < 2 {
		t.Errorf("retried page: TimedOut %v, exchanges %v", p.TimedOut, urls(p.Exchanges))
	}
}

func TestUnrecorded(t *testing.T) {
	s := newSite(t)
	f := newFetcher(t, func(c *Config) { c.Screenshot = false })
	before := unlanded.Load()
	p := fetchPage(t, f, s.URL+"/unrecorded.html")
	if n := unlanded.Load() - before; n != 0 {
		t.Errorf("%d requests left flight by the bound", n)
	}
	if s.saw("/ws") || s.saw("/post") {
		t.Errorf("chromium reached the server by itself: %v", s.seen)
	}
	var post bool
	for _, fl := range p.Failed {
		post = post || (fl.URL == s.URL+"/post" && errors.Is(fl.Err, ErrRequestBody))
	}
	if !post {
		t.Errorf("POST not reported in Failed: %v", p.Failed)
	}

	// As a fetch.Fetcher, the browser returns the page's exchanges and its rendering.
	res, err := f.Fetch(t.Context(), fetch.Request{URL: s.URL + "/data.json"})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if got := body(t, res.Exchanges[0]); !bytes.Equal(got, readFile(t, "data.json")) {
		t.Errorf("Fetch: body %q", got)
	}
	if res.Render == nil || res.Render.FinalURL != s.URL+"/data.json" {
		t.Errorf("Fetch: Render = %+v", res.Render)
	}
}

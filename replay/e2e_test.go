package replay_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/certtest"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/replay"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/warc"
)

// The site of the end-to-end tests: www.example.com over http and secure.example.com over
// https. The home page has a style sheet (with a background image), an image from each host,
// a script served gzip-compressed and chunked that fetches data.json with a cache-busting
// parameter (the crawl, which runs no script, captured data.json from a preload link), an
// iframe of the https site that reports to the page, and a link to a redirect.
var siteFiles = map[string]string{
	"www.example.com/": `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Replayed</title>
<link rel="stylesheet" href="/style.css">
<link rel="preload" href="/data.json" as="fetch" crossorigin>
<script>
window.frameReport = null; // before the iframe can report, whatever loads first
window.addEventListener('message', e => { window.frameReport = e.data; });
</script>
</head><body>
<h1>Replay test</h1>
<p id="out">not yet</p>
<img id="local" src="/img/a.png" alt="a">
<img id="secure" src="https://secure.example.com/img/b.png" alt="b">
<iframe src="https://secure.example.com/" width="200" height="100"></iframe>
<a href="/old">an old link</a>
<script src="/app.js"></script>
</body></html>
`,
	"www.example.com/about.html": `<!DOCTYPE html><html><head><title>About</title></head><body><p>About us.</p><a href="/">home</a></body></html>`,
	"www.example.com/style.css":  "body { background: url(/img/bg.png) repeat-x; }\nh1 { color: rgb(1, 2, 3); }\n",
	"www.example.com/data.json":  `{"msg": "loaded from the archive"}`,
	"www.example.com/app.js": `fetch('/data.json?_=' + Date.now())
  .then(r => r.json())
  .then(j => { document.getElementById('out').textContent = j.msg; document.title += ' ready'; })
  .catch(e => { document.title += ' failed: ' + e; });
`,
	"secure.example.com/": `<!DOCTYPE html><html><head><title>Secure</title></head><body>
<img src="/img/b.png" alt="b"><a href="http://www.example.com/about.html">about</a>
<script>window.addEventListener('load', () => parent.postMessage({title: document.title, width: document.images[0].naturalWidth}, '*'));</script>
</body></html>`,
}

// pngOf is a small PNG of one colour.
func pngOf(c color.RGBA) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for x := 0; x < 4; x++ {
		for y := 0; y < 3; y++ {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

var siteImages = map[string][]byte{
	"www.example.com/img/a.png":    pngOf(color.RGBA{255, 0, 0, 255}),
	"www.example.com/img/bg.png":   pngOf(color.RGBA{0, 255, 0, 255}),
	"secure.example.com/img/b.png": pngOf(color.RGBA{0, 0, 255, 255}),
}

// siteHandler serves siteFiles and siteImages by host and path; /old redirects to
// /about.html; app.js is sent gzip-compressed in chunks.
func siteHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := strings.Cut(r.Host, ":")
		k := host + r.URL.Path
		switch {
		case k == "www.example.com/old":
			http.Redirect(w, r, "/about.html", http.StatusMovedPermanently)
		case k == "www.example.com/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			body := siteFiles[k]
			io.WriteString(zw, body[:len(body)/2])
			zw.Flush()
			w.(http.Flusher).Flush() // the rest in another chunk
			io.WriteString(zw, body[len(body)/2:])
			zw.Close()
		case siteImages[k] != nil:
			w.Header().Set("Content-Type", "image/png")
			w.Write(siteImages[k])
		case siteFiles[k] != "":
			switch {
			case strings.HasSuffix(k, ".css"):
				w.Header().Set("Content-Type", "text/css")
			case strings.HasSuffix(k, ".json"):
				w.Header().Set("Content-Type", "application/json")
			default:
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
			}
			io.WriteString(w, siteFiles[k])
		default:
			http.NotFound(w, r)
		}
	})
}

// shared is the crawl of the site that the end-to-end tests replay, made once.
var shared struct {
	once sync.Once
	dir  string
	err  error
}

// removeShared removes the shared crawl at the end of the tests.
func removeShared() {
	if shared.dir != "" {
		os.RemoveAll(filepath.Dir(shared.dir))
	}
}

// crawlSite crawls the site (both hosts) once with the plain fetcher and returns the crawl
// directory.
func crawlSite(t *testing.T) string {
	t.Helper()
	shared.once.Do(func() { shared.dir, shared.err = doCrawl(t) })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.dir
}

func doCrawl(t *testing.T) (string, error) {
	site, err := testsite.StartHandler(siteHandler())
	if err != nil {
		return "", err
	}
	defer site.Close()
	ca := certtest.NewCA(t)
	secure := httptest.NewUnstartedServer(siteHandler())
	secure.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Server(t, "secure.example.com")}}
	secure.StartTLS()
	defer secure.Close()
	toSecure, err := fetch.ParseConnectTo("secure.example.com:443:" + secure.Listener.Addr().String())
	if err != nil {
		return "", err
	}
	toSite, err := fetch.ParseConnectTo(site.ConnectTo())
	if err != nil {
		return "", err
	}
	parent, err := os.MkdirTemp("", "amber-replay-e2e-")
	if err != nil {
		return "", err
	}
	cfg := crawl.DefaultConfig()
	cfg.Dir = filepath.Join(parent, "crawl")
	cfg.Collection = "replay-test"
	cfg.EffectiveConfig = []byte("collection: replay-test\nseeds:\n  - http://www.example.com/\n  - https://secure.example.com/\n")
	cfg.Scope = scope.Config{Seeds: []scope.Seed{
		{URL: "http://www.example.com/", Type: scope.StandardSeed},
		{URL: "https://secure.example.com/", Type: scope.StandardSeed},
	}}
	cfg.Workers = 2
	cfg.HostDelay = 0
	cfg.MaxAttempts = 1
	cfg.IgnoreRobots = true
	cfg.ProgressEvery = -1
	cfg.Fetch = fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true, ConnectTo: []fetch.ConnectTo{toSecure, toSite}}
	res, err := crawl.Run(context.Background(), cfg)
	if err != nil {
		return "", err
	}
	if res.End != crawl.EndFinished {
		return "", fmt.Errorf("crawl ended %q", res.End)
	}
	return cfg.Dir, nil
}

// startReplay opens a replay of dir (its state in a temporary directory) behind an httptest
// server.
func startReplay(t *testing.T, dir string) (*replay.Server, *httptest.Server) {
	t.Helper()
	s, err := replay.Open(t.Context(), replay.Config{Sources: []string{dir}, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(s)
	t.Cleanup(func() {
		proxy.Close()
		s.Close()
	})
	return s, proxy
}

// liveBody is what the site serves at a URL, as its handler writes it (before gzip).
func liveBody(u string) []byte {
	pu, _ := url.Parse(u)
	k := pu.Host + pu.Path
	if b := siteImages[k]; b != nil {
		return b
	}
	return []byte(siteFiles[k])
}

// siteURLs are the URLs of the site the crawl captured, with the status each was served.
var siteURLs = []struct {
	url    string
	status int
}{
	{"http://www.example.com/", 200},
	{"http://www.example.com/style.css", 200},
	{"http://www.example.com/data.json", 200},
	{"http://www.example.com/app.js", 200},
	{"http://www.example.com/img/a.png", 200},
	{"http://www.example.com/img/bg.png", 200},
	{"http://www.example.com/old", 301},
	{"http://www.example.com/about.html", 200},
	{"https://secure.example.com/", 200},
	{"https://secure.example.com/img/b.png", 200},
}

// TestEndToEndClient replays the crawl with Go's client, over http and https: every URL the
// site served comes back with its status and body; app.js still gzip-compressed, now with a
// Content-Length; the start page lists the pages.
func TestEndToEndClient(t *testing.T) {
	dir := crawlSite(t)
	// app.js is archived as it came: chunked and gzip-compressed.
	if h := archivedHead(t, dir, "http://www.example.com/app.js"); h.Get("Transfer-Encoding") != "chunked" || h.Get("Content-Encoding") != "gzip" {
		t.Fatalf("app.js archived with %+v, want chunked and gzip", h.Fields)
	}
	s, proxy := startReplay(t, dir)
	client := proxyClient(t, proxy, s)
	for _, u := range siteURLs {
		t.Run(u.url, func(t *testing.T) {
			want := row{url: u.url, wantStatus: u.status}
			switch {
			case u.status == 301:
				want.wantHeader = map[string][]string{"Location": {"/about.html"}}
			case strings.HasSuffix(u.url, "app.js"):
				want.wantBody, want.gunzip = liveBody(u.url), true
				want.wantHeader = map[string][]string{"Content-Encoding": {"gzip"}}
				want.wantAbsent = []string{"Transfer-Encoding"}
			default:
				want.wantBody = liveBody(u.url)
			}
			checkRow(t, client, want)
		})
	}
	checkRow(t, client, row{name: "fuzzy", url: "http://www.example.com/data.json?_=1712345678901", wantStatus: 200,
		wantBody: liveBody("http://www.example.com/data.json"), wantIn: map[string]string{"Amber-Replay": "cache-busting"}})
	checkRow(t, client, row{name: "miss", url: "https://secure.example.com/nothere", wantStatus: 404})
	resp, err := client.Get("http://" + replay.StartHost + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`<a href="http://www.example.com/">`, `<a href="https://secure.example.com/">`, "Replayed", "About",
		s.At().Format("2006-01-02 15:04:05"), "https://secure.example.com/nothere"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("start page lacks %q", want)
		}
	}
	if len(s.Misses()) != 1 {
		t.Errorf("misses %+v, want the one asked for", s.Misses())
	}
}

// archivedHead returns the HTTP head of the first capture of u in the crawl directory dir.
func archivedHead(t *testing.T, dir, u string) *warc.HTTPHead {
	t.Helper()
	index, err := os.ReadFile(filepath.Join(dir, "indexes", warc.SortedCDXJ))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(index), "\n") {
		e, err := warc.ParseIndexLine([]byte(line))
		if err != nil || e.URL != u {
			continue
		}
		f, err := os.Open(filepath.Join(dir, "warcs", e.Filename))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := warc.ReadRecord(f, e.Offset, e.Length)
		if err != nil {
			t.Fatal(err)
		}
		return r.HTTP
	}
	t.Fatalf("%s not in the index", u)
	return nil
}

// TestEndToEndCurl replays the crawl with curl, over http and https, trusting the authority
// with --cacert: status lines, bodies, and app.js decoded by curl --compressed.
func TestEndToEndCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("curl not found (CI needs it)")
		}
		t.Skip("curl not found")
	}
	s, proxy := startReplay(t, crawlSite(t))
	for _, tc := range []struct {
		url        string
		args       []string
		wantStatus string
		wantBody   []byte
	}{
		{"http://www.example.com/", nil, "HTTP/1.1 200 OK", liveBody("http://www.example.com/")},
		{"https://secure.example.com/img/b.png", nil, "HTTP/1.1 200 OK", liveBody("https://secure.example.com/img/b.png")},
		{"https://www.example.com/about.html", nil, "HTTP/1.1 200 OK", liveBody("http://www.example.com/about.html")},
		{"http://www.example.com/app.js", []string{"--compressed"}, "HTTP/1.1 200 OK", liveBody("http://www.example.com/app.js")},
		{"http://www.example.com/old", nil, "HTTP/1.1 301 Moved Permanently", nil},
		{"https://secure.example.com/missing.css", nil, "HTTP/1.1 404 Not Found", nil},
	} {
		t.Run(tc.url, func(t *testing.T) {
			args := append([]string{"--silent", "--show-error", "--proxy", proxy.URL, "--cacert", s.CAPath(), "--dump-header", "-"}, tc.args...)
			cmd := exec.Command(curl, append(args, tc.url)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("curl: %v\n%s", err, stderr.String())
			}
			// With https, the proxy's "200 Connection Established" comes first.
			heads := strings.Split(string(out), "\r\n\r\n")
			var last string
			for i, h := range heads {
				if strings.HasPrefix(h, "HTTP/1.1 200 Connection Established") {
					continue
				}
				last = h
				if tc.wantBody != nil && strings.Join(heads[i+1:], "\r\n\r\n") != string(tc.wantBody) {
					t.Errorf("body %.200q, want %.200q", strings.Join(heads[i+1:], "\r\n\r\n"), tc.wantBody)
				}
				break
			}
			if status, _, _ := strings.Cut(last, "\r\n"); status != tc.wantStatus {
				t.Errorf("status line %q, want %q", status, tc.wantStatus)
			}
		})
	}
}

// TestEndToEndChromium loads the home page in headless Chromium through the proxy, the
// authority trusted by its public key: the page and all its resources come from the archive
// (the style sheet applied, its background image, both images, the https iframe, the script
// and the JSON it fetches with a cache-busting parameter, found by the fuzzy rules), and
// nothing of the site is missing.
func TestEndToEndChromium(t *testing.T) {
	path := crawltest.Chromium(t)
	s, proxy := startReplay(t, crawlSite(t))
	expr := `(() => {
  if (document.readyState !== 'complete' || !/ready|failed/.test(document.title) || !window.frameReport) return '';
  const res = {};
  for (const e of performance.getEntriesByType('resource')) res[e.name] = e.responseStatus;
  return JSON.stringify({
    title: document.title,
    out: document.getElementById('out').textContent,
    color: getComputedStyle(document.querySelector('h1')).color,
    images: [...document.images].map(i => i.naturalWidth),
    frame: window.frameReport,
    resources: res,
  });
})()`
	got, err := browser.Evaluate(t.Context(), browser.RenderConfig{Path: path, URL: "http://www.example.com/", Expression: expr,
		Proxy: proxy.URL, TrustSPKI: []string{s.CASPKI()}, Timeout: 60 * time.Second})
	if err != nil {
		t.Fatalf("%v\nmisses: %+v", err, s.Misses())
	}
	var page struct {
		Title, Out, Color string
		Images            []int
		Frame             struct {
			Title string
			Width int
		}
		Resources map[string]int
	}
	if err := json.Unmarshal([]byte(got), &page); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if page.Title != "Replayed ready" || page.Out != "loaded from the archive" || page.Color != "rgb(1, 2, 3)" {
		t.Errorf("title %q, text %q, h1 colour %q: want the page, its script's fetch and its style sheet", page.Title, page.Out, page.Color)
	}
	if len(page.Images) != 2 || page.Images[0] != 4 || page.Images[1] != 4 {
		t.Errorf("image widths %v, want both images (4 pixels wide)", page.Images)
	}
	if page.Frame.Title != "Secure" || page.Frame.Width != 4 {
		t.Errorf("the https iframe reported %+v, want its title and image", page.Frame)
	}
	for _, u := range []string{"http://www.example.com/style.css", "http://www.example.com/img/bg.png", "http://www.example.com/app.js", "http://www.example.com/img/a.png"} {
		if page.Resources[u] != 200 {
			t.Errorf("%s: status %d in the page, want 200 (resources: %v)", u, page.Resources[u], page.Resources)
		}
	}
	for _, m := range s.Misses() {
		if strings.Contains(m.URL, "example.com/") && !strings.HasSuffix(m.URL, "/favicon.ico") {
			t.Errorf("missing from the archive: %+v", m)
		}
	}
}

package replay_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/replay"
	"github.com/amber-crawler/amber/wacz"
	"github.com/amber-crawler/amber/warc"
)

// t0 is the time of the fixture's first captures.
var t0 = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// Bodies of the fixture.
var (
	homeBody    = []byte("<html><title>Home</title><p>home</p></html>")
	scriptBody  = bytes.Repeat([]byte("console.log('compressible');\n"), 50)
	newsV1      = []byte("<html>news of the first day</html>")
	newsV2      = []byte("<html>news two days later</html>")
	pngBody     = []byte("\x89PNG\r\n\x1a\nnot really a png but bytes")
	goneURL     = "http://gone.example.com/original"
	goneBody    = []byte("this payload's first capture is in a crawl not given")
	truncHeader = 100
)

// dedup is a warc.DedupIndex in memory that also knows goneBody's digest, as captured in a
// crawl that the fixture does not hold.
type dedup struct{ warctest.MemDedup }

func (d *dedup) LookupDigest(digest string) (string, time.Time, bool, error) {
	if digest == warctest.Digest(goneBody) {
		return goneURL, t0.Add(-24 * time.Hour), true, nil
	}
	return d.MemDedup.LookupDigest(digest)
}

// capture is one exchange of the fixture.
type capture struct {
	url      string
	at       time.Time
	resp     []byte
	request  []byte // default: a GET
	trunc    string
	original *warc.Original
}

// fixtureCaptures are the exchanges of the fixture crawl.
func fixtureCaptures(t testing.TB) []capture {
	zipped := warctest.Gzip(t, scriptBody)
	page := func(status int, reason string, fields [][2]string, body []byte) []byte {
		return warctest.RawResponse(status, reason, fields, body)
	}
	html := [2]string{"Content-Type", "text/html; charset=utf-8"}
	cl := func(b []byte) [2]string { return [2]string{"Content-Length", fmt.Sprint(len(b))} }
	form := "user=ann&pass=s3cret"
	return []capture{
		{url: "http://example.com/", at: t0, resp: page(200, "OK", [][2]string{html, cl(homeBody),
			{"Set-Cookie", "a=1; Path=/"}, {"set-cookie", "b=2; Path=/"}, {"Connection", "keep-alive, X-Hop"},
			{"Keep-Alive", "timeout=5"}, {"X-Hop", "hop"}, {"Strict-Transport-Security", "max-age=31536000"},
			{"X-Kept", "kept"}}, homeBody)},
		{url: "http://example.com/app.js", at: t0, resp: page(200, "OK", [][2]string{{"Content-Type", "application/javascript"},
			{"Content-Encoding", "gzip"}, {"Transfer-Encoding", "chunked"}}, warctest.Chunk(zipped, 100))},
		// The same payload as the home page: a revisit.
		{url: "http://example.com/copy.html", at: t0.Add(time.Second), resp: page(200, "OK", [][2]string{html, cl(homeBody), {"X-Copy", "yes"}}, homeBody)},
		{url: "http://example.com/old", at: t0, resp: page(301, "Moved Permanently", [][2]string{{"Location", "/new.html"}, cl(nil)}, nil)},
		{url: "http://secure.example.com/", at: t0, resp: page(301, "Moved Permanently", [][2]string{{"Location", "https://secure.example.com/"}, cl(nil)}, nil)},
		{url: "https://secure.example.com/", at: t0, resp: page(200, "OK", [][2]string{html, cl([]byte("secure"))}, []byte("secure"))},
		{url: "http://loop.example.com/", at: t0, resp: page(301, "Moved Permanently", [][2]string{{"Location", "https://loop.example.com/"}, cl(nil)}, nil)},
		{url: "http://example.com/news", at: t0, resp: page(200, "OK", [][2]string{html, cl(newsV1)}, newsV1)},
		{url: "http://example.com/news", at: t0.Add(48 * time.Hour), resp: page(200, "OK", [][2]string{html, cl(newsV2)}, newsV2)},
		{url: "http://example.com/flaky", at: t0, resp: page(503, "Service Unavailable", [][2]string{cl([]byte("busy"))}, []byte("busy"))},
		{url: "http://example.com/flaky", at: t0.Add(time.Second), resp: page(200, "OK", [][2]string{cl([]byte("fine"))}, []byte("fine"))},
		{url: "http://example.com/api/data.json?_=1700000000000", at: t0, resp: page(200, "OK", [][2]string{{"Content-Type", "application/json"}, cl([]byte(`{"a":1}`))}, []byte(`{"a":1}`))},
		{url: "http://example.com/style.css?v=1", at: t0, resp: page(200, "OK", [][2]string{{"Content-Type", "text/css"}, cl([]byte("p{}"))}, []byte("p{}"))},
		{url: "http://example.com/list.html?page=1", at: t0, resp: page(200, "OK", [][2]string{html, cl([]byte("page one"))}, []byte("page one"))},
		{url: "http://example.com/article?id=5", at: t0, resp: page(200, "OK", [][2]string{html, cl([]byte("article 5"))}, []byte("article 5"))},
		{url: "http://example.com/feed?callback=jsonp1712345&q=x", at: t0, resp: page(200, "OK", [][2]string{{"Content-Type", "application/javascript"}, cl([]byte("jsonp1712345({})"))}, []byte("jsonp1712345({})"))},
		{url: "http://example.com/login", at: t0, request: []byte("POST /login HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " + fmt.Sprint(len(form)) + "\r\n\r\n" + form),
			resp: page(200, "OK", [][2]string{html, cl([]byte("welcome ann"))}, []byte("welcome ann"))},
		{url: "http://example.com/lying", at: t0, resp: page(200, "OK", [][2]string{cl([]byte("hello"))}, []byte("helloworld"))},
		{url: "http://example.com/cut", at: t0, trunc: "length", resp: page(200, "OK", [][2]string{{"Content-Length", fmt.Sprint(truncHeader)}}, []byte("only ten b"))},
		{url: "http://example.com/empty", at: t0, resp: page(204, "No Content", nil, nil)},
		{url: "http://example.com/img.png", at: t0, resp: page(200, "OK", [][2]string{{"Content-Type", "image/png"}, cl(pngBody), {"ETag", `"v1"`}}, pngBody)},
		{url: "http://example.com/img.png", at: t0.Add(time.Hour), resp: page(304, "Not Modified", [][2]string{{"ETag", `"v1"`}}, nil),
			original: &warc.Original{URI: "http://example.com/img.png", Date: t0, PayloadDigest: warctest.Digest(pngBody)}},
		{url: "http://example.com/needs-gone", at: t0, resp: page(200, "OK", [][2]string{cl(goneBody)}, goneBody)},
		{url: "http://www.example.org/w", at: t0, resp: page(200, "OK", [][2]string{cl([]byte("www"))}, []byte("www"))},
	}
}

// writeFixture writes the fixture crawl into a new crawl directory, as a crawl leaves it:
// warcs/, indexes/live.cdxj and indexes/index.cdxj sorted, crawl.yaml, state/.
func writeFixture(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "crawl")
	for _, d := range []string{"warcs", "indexes", "state"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "crawl.yaml"), []byte("collection: fixture\nseeds:\n  - http://example.com/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(dir, "indexes", warc.LiveCDXJ)
	w, err := warc.NewWriter(warc.Config{Dir: filepath.Join(dir, "warcs"), Prefix: "fixture", Hostname: "test",
		CDXJPath: live, Dedup: &dedup{}, Info: warc.Info{Software: "amber/test"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range fixtureCaptures(t) {
		u, _ := url.Parse(c.url)
		req := c.request
		if req == nil {
			req = []byte("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\n\r\n")
		}
		if _, err := w.WriteCapture(warc.Capture{URL: c.url, Date: c.at, Request: req, Response: bytes.NewReader(c.resp),
			Truncated: c.trunc, NotModified: c.original}); err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
	}
	if _, err := w.WriteResource("urn:screenshot:http://example.com/", "image/png", t0, pngBody, ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := warc.SortCDXJ(live, filepath.Join(dir, "indexes", warc.SortedCDXJ)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sources writes the fixture and its packages.
func sources(t *testing.T) map[string]string {
	t.Helper()
	dir := writeFixture(t)
	plain := filepath.Join(t.TempDir(), "plain.wacz")
	if _, err := wacz.Write(t.Context(), dir, plain, wacz.Options{}); err != nil {
		t.Fatal(err)
	}
	blocks := filepath.Join(t.TempDir(), "blocks.wacz")
	if _, err := wacz.Write(t.Context(), dir, blocks, wacz.Options{IndexThreshold: -1, IndexBlockLines: 3}); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"crawl directory": dir, "wacz": plain, "wacz with compressed index": blocks}
}

// proxyClient returns a client whose proxy is srv, that trusts the replay's authority.
func proxyClient(t testing.TB, proxy *httptest.Server, s *replay.Server) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(s.CAPath())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("%s: no certificate", s.CAPath())
	}
	pu, _ := url.Parse(proxy.URL)
	tr := &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{RootCAs: pool}, DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

package replay_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/replay"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { removeShared() }))
}

// row is a request through the proxy and what must come back.
type row struct {
	name       string
	method     string // default GET
	url        string
	header     map[string]string
	body       string
	wantStatus int
	wantBody   []byte // nil: not checked
	gunzip     bool   // the body is compared after gunzip
	wantHeader map[string][]string
	wantAbsent []string
	wantIn     map[string]string // header fields that must contain a string
}

func httpTime(t time.Time) []string { return []string{t.UTC().Format(http.TimeFormat)} }

// rows are the requests of TestProxy.
func rows(caPEM []byte) []row {
	return []row{
		{name: "archived status, fields and body", url: "http://example.com/", wantStatus: 200, wantBody: homeBody,
			wantHeader: map[string][]string{
				"Set-Cookie": {"a=1; Path=/", "b=2; Path=/"}, "X-Kept": {"kept"}, "Content-Type": {"text/html; charset=utf-8"},
				"X-Archive-Orig-Strict-Transport-Security": {"max-age=31536000"}, "Memento-Datetime": httpTime(t0),
				"Amber-Replay": {"exact"}, "Content-Length": {fmt.Sprint(len(homeBody))}},
			wantAbsent: []string{"Keep-Alive", "X-Hop", "Strict-Transport-Security", "Connection", "Date"}},
		{name: "an http capture over https", url: "https://example.com/", wantStatus: 200, wantBody: homeBody},
		{name: "chunked and gzip: de-chunked, still gzip", url: "http://example.com/app.js", wantStatus: 200, wantBody: scriptBody, gunzip: true,
			wantHeader: map[string][]string{"Content-Encoding": {"gzip"}, "Content-Type": {"application/javascript"}},
			wantAbsent: []string{"Transfer-Encoding"}},
		{name: "revisit: its fields, the original's payload", url: "http://example.com/copy.html", wantStatus: 200, wantBody: homeBody,
			wantHeader: map[string][]string{"X-Copy": {"yes"}, "Memento-Datetime": httpTime(t0.Add(time.Second))},
			wantAbsent: []string{"Set-Cookie"}},
		{name: "redirect as archived", url: "http://example.com/old", wantStatus: 301, wantBody: []byte{},
			wantHeader: map[string][]string{"Location": {"/new.html"}}},
		{name: "https capture over https", url: "https://secure.example.com/", wantStatus: 200, wantBody: []byte("secure")},
		{name: "http redirect to https over http", url: "http://secure.example.com/", wantStatus: 301,
			wantHeader: map[string][]string{"Location": {"https://secure.example.com/"}}},
		{name: "redirect to itself passed over", url: "https://loop.example.com/", wantStatus: 404,
			wantHeader: map[string][]string{"Amber-Replay": {"miss"}}},
		{name: "closest to the crawl's time", url: "http://example.com/news", wantStatus: 200, wantBody: newsV1},
		{name: "closest to Accept-Datetime", url: "http://example.com/news", header: map[string]string{"Accept-Datetime": t0.Add(47 * time.Hour).Format(http.TimeFormat)},
			wantStatus: 200, wantBody: newsV2, wantHeader: map[string][]string{"Memento-Datetime": httpTime(t0.Add(48 * time.Hour))}},
		{name: "a 5xx after the others", url: "http://example.com/flaky", wantStatus: 200, wantBody: []byte("fine")},
		{name: "fuzzy: cache-busting parameter", url: "http://example.com/api/data.json?_=1712345678901", wantStatus: 200, wantBody: []byte(`{"a":1}`),
			wantIn: map[string]string{"Amber-Replay": `fuzzy; rules=cache-busting; url="http://example.com/api/data.json?_=1700000000000"`}},
		{name: "fuzzy: cache-busting parameter left out", url: "http://example.com/api/data.json", wantStatus: 200, wantBody: []byte(`{"a":1}`)},
		{name: "fuzzy: static file with another query", url: "http://example.com/style.css?v=2", wantStatus: 200, wantBody: []byte("p{}"),
			wantIn: map[string]string{"Amber-Replay": "rules=static-file"}},
		{name: "a page's query is kept", url: "http://example.com/list.html?page=2", wantStatus: 404},
		{name: "fuzzy: tracking parameter", url: "http://example.com/article?utm_source=news&id=5", wantStatus: 200, wantBody: []byte("article 5"),
			wantIn: map[string]string{"Amber-Replay": "rules=tracking"}},
		{name: "fuzzy: jsonp callback", url: "http://example.com/feed?q=x&callback=jsonp999", wantStatus: 200, wantBody: []byte("jsonp1712345({})"),
			wantIn: map[string]string{"Amber-Replay": "rules=jsonp"}},
		{name: "POST found by its body", method: "POST", url: "http://example.com/login", body: "user=ann&pass=s3cret",
			header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, wantStatus: 200, wantBody: []byte("welcome ann")},
		{name: "POST with another body", method: "POST", url: "http://example.com/login", body: "user=bob&pass=x",
			header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, wantStatus: 404},
		{name: "body past its Content-Length", url: "http://example.com/lying", wantStatus: 200, wantBody: []byte("hello")},
		{name: "truncated capture: what there is", url: "http://example.com/cut", wantStatus: 200, wantBody: []byte("only ten b"),
			wantHeader: map[string][]string{"Content-Length": {"10"}}},
		{name: "204", url: "http://example.com/empty", wantStatus: 204, wantBody: []byte{}},
		{name: "server-not-modified revisit: the original's response", url: "http://example.com/img.png",
			header:     map[string]string{"Accept-Datetime": t0.Add(time.Hour).Format(http.TimeFormat)},
			wantStatus: 200, wantBody: pngBody,
			wantHeader: map[string][]string{"Etag": {`"v1"`}, "Content-Type": {"image/png"}, "Memento-Datetime": httpTime(t0.Add(time.Hour))}},
		{name: "revisit whose original is not in the archive", url: "http://example.com/needs-gone", wantStatus: 404},
		{name: "www. does not matter", url: "http://example.org/w", wantStatus: 200, wantBody: []byte("www")},
		{name: "one byte range", url: "http://example.com/img.png", header: map[string]string{"Range": "bytes=2-5"},
			wantStatus: 206, wantBody: pngBody[2:6],
			wantHeader: map[string][]string{"Content-Range": {fmt.Sprintf("bytes 2-5/%d", len(pngBody))}, "Content-Length": {"4"}}},
		{name: "the last bytes", url: "http://example.com/img.png", header: map[string]string{"Range": "bytes=-3"},
			wantStatus: 206, wantBody: pngBody[len(pngBody)-3:]},
		{name: "a range past the end", url: "http://example.com/img.png", header: map[string]string{"Range": "bytes=1000-"},
			wantStatus: 416, wantHeader: map[string][]string{"Content-Range": {fmt.Sprintf("bytes */%d", len(pngBody))}}},
		{name: "several ranges: the whole body", url: "http://example.com/img.png", header: map[string]string{"Range": "bytes=0-1,4-5"},
			wantStatus: 200, wantBody: pngBody},
		{name: "HEAD", method: "HEAD", url: "http://example.com/", wantStatus: 200, wantBody: []byte{},
			wantHeader: map[string][]string{"Content-Length": {fmt.Sprint(len(homeBody))}}},
		{name: "CORS preflight", method: "OPTIONS", url: "http://example.com/api",
			header:     map[string]string{"Origin": "http://example.com", "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "x-token"},
			wantStatus: 204, wantHeader: map[string][]string{"Access-Control-Allow-Origin": {"http://example.com"},
				"Access-Control-Allow-Methods": {"PUT"}, "Access-Control-Allow-Headers": {"x-token"}}},
		{name: "not in the archive", url: "http://example.com/nothere", header: map[string]string{"Referer": "http://example.com/", "Sec-Fetch-Dest": "image"},
			wantStatus: 404, wantHeader: map[string][]string{"Amber-Replay": {"miss"}, "Content-Type": {"text/html; charset=utf-8"}},
			wantIn: map[string]string{"Body": "http://example.com/nothere"}},
		{name: "start page", url: "http://amber.replay/", wantStatus: 200, wantHeader: map[string][]string{"Amber-Replay": {"start"}},
			wantIn: map[string]string{"Body": "amber replay"}},
		{name: "start page over https", url: "https://amber.replay/", wantStatus: 200, wantHeader: map[string][]string{"Amber-Replay": {"start"}}},
		{name: "the authority's certificate", url: "http://amber.replay/ca.pem", wantStatus: 200, wantBody: caPEM},
	}
}

// wantMisses are the misses the rows leave, in order.
var wantMisses = []replay.Miss{
	{Method: "GET", URL: "https://loop.example.com/"},
	{Method: "GET", URL: "http://example.com/list.html?page=2"},
	{Method: "POST", URL: "http://example.com/login"},
	{Method: "GET", URL: "http://example.com/needs-gone"},
	{Method: "GET", URL: "http://example.com/nothere", Referer: "http://example.com/", Dest: "image"},
}

// TestProxy replays the fixture crawl through the proxy, over http and (CONNECT) https, from
// the crawl directory and from WACZ packages of it with a plain and a compressed index.
func TestProxy(t *testing.T) {
	for name, src := range sources(t) {
		t.Run(name, func(t *testing.T) {
			state := t.TempDir()
			s, err := replay.Open(t.Context(), replay.Config{Sources: []string{src}, StateDir: state})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if !s.At().Equal(t0) {
				t.Errorf("At = %v, want the earliest capture %v", s.At(), t0)
			}
			proxy := httptest.NewServer(s)
			defer proxy.Close()
			client := proxyClient(t, proxy, s)
			caPEM, err := os.ReadFile(s.CAPath())
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range rows(caPEM) {
				t.Run(tc.name, func(t *testing.T) {
					checkRow(t, client, tc)
				})
			}
			var got []replay.Miss
			for _, m := range s.Misses() {
				if m.Time.IsZero() || m.Reason == "" {
					t.Errorf("miss %+v: no time or reason", m)
				}
				m.Time, m.Reason = time.Time{}, ""
				got = append(got, m)
			}
			if d := cmp.Diff(wantMisses, got); d != "" {
				t.Errorf("Misses (-want +got):\n%s", d)
			}
			lines := readMisses(t, filepath.Join(state, replay.MissesFile))
			if d := cmp.Diff(s.Misses(), lines); d != "" {
				t.Errorf("%s (-Misses +file):\n%s", replay.MissesFile, d)
			}
			// The proxy's own address answers with the start page.
			resp, err := http.Get(proxy.URL + "/")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("Amber-Replay") != "start" {
				t.Errorf("GET %s/: %s, Amber-Replay %q", proxy.URL, resp.Status, resp.Header.Get("Amber-Replay"))
			}
		})
	}
}

// checkRow makes a row's request and checks the response.
func checkRow(t *testing.T, client *http.Client, tc row) {
	t.Helper()
	method := tc.method
	if method == "" {
		method = "GET"
	}
	req, err := http.NewRequest(method, tc.url, strings.NewReader(tc.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range tc.header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != tc.wantStatus {
		t.Errorf("status %d, want %d (body %.200q)", resp.StatusCode, tc.wantStatus, body)
	}
	if method != "HEAD" && resp.ContentLength >= 0 && resp.ContentLength != int64(len(body)) {
		t.Errorf("Content-Length %d for %d bytes", resp.ContentLength, len(body))
	}
	got := body
	if tc.gunzip {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("gunzip: %v", err)
		}
		if got, err = io.ReadAll(zr); err != nil {
			t.Fatalf("gunzip: %v", err)
		}
	}
	if tc.wantBody != nil && !bytes.Equal(got, tc.wantBody) {
		t.Errorf("body %.200q, want %.200q", got, tc.wantBody)
	}
	for k, v := range tc.wantHeader {
		if d := cmp.Diff(v, resp.Header[k]); d != "" {
			t.Errorf("%s (-want +got):\n%s", k, d)
		}
	}
	for _, k := range tc.wantAbsent {
		if v, ok := resp.Header[k]; ok {
			t.Errorf("%s: %q, want none", k, v)
		}
	}
	for k, v := range tc.wantIn {
		have := resp.Header.Get(k)
		if k == "Body" {
			have = string(body)
		}
		if !strings.Contains(have, v) {
			t.Errorf("%s %.300q does not contain %q", k, have, v)
		}
	}
}

// readMisses reads a misses file.
func readMisses(t *testing.T, path string) []replay.Miss {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []replay.Miss
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m replay.Miss
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v: %s", path, err, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// TestAt: Config.At chooses the capture served, a request's Accept-Datetime its own; the CA
// is made once per state directory and kept (0600 for its key).
func TestAt(t *testing.T) {
	dir := writeFixture(t)
	state := t.TempDir()
	for _, tc := range []struct {
		at   time.Time
		want []byte
	}{
		{time.Time{}, newsV1},
		{t0.Add(25 * time.Hour), newsV2},
		{t0.Add(23 * time.Hour), newsV1},
		{t0.Add(365 * 24 * time.Hour), newsV2},
	} {
		t.Run(tc.at.Format(time.RFC3339), func(t *testing.T) {
			s, err := replay.Open(t.Context(), replay.Config{Sources: []string{dir}, StateDir: state, At: tc.at})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			proxy := httptest.NewServer(s)
			defer proxy.Close()
			client := proxyClient(t, proxy, s)
			checkRow(t, client, row{url: "https://example.com/news", wantStatus: 200, wantBody: tc.want})
			// A request's Accept-Datetime chooses its own time.
			checkRow(t, client, row{url: "https://example.com/news", header: map[string]string{"Accept-Datetime": t0.Format(http.TimeFormat)},
				wantStatus: 200, wantBody: newsV1})
		})
	}
	fi, err := os.Stat(filepath.Join(state, replay.CAKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, want 0600", replay.CAKeyFile, fi.Mode())
	}
	es, _ := os.ReadDir(state)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if want := []string{replay.CAKeyFile, replay.CAFile, replay.MissesFile}; !slices.Equal(names, want) {
		t.Errorf("state directory holds %v, want %v (no temporary files left)", names, want)
	}
}

// TestKilledCrawl replays a crawl killed while writing: its WARC file still .open, its sorted
// index missing (or older than the live one). The live index is sorted outside the crawl
// directory, which is left as it was.
func TestKilledCrawl(t *testing.T) {
	dir := writeFixture(t)
	warcs, err := filepath.Glob(filepath.Join(dir, "warcs", "*.warc.gz"))
	if err != nil || len(warcs) != 1 {
		t.Fatalf("WARC files %v (%v)", warcs, err)
	}
	if err := os.Rename(warcs[0], warcs[0]+".open"); err != nil {
		t.Fatal(err)
	}
	// The sorted index of an earlier run: without this run's lines.
	if err := os.WriteFile(filepath.Join(dir, "indexes", "index.cdxj"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "indexes", "index.cdxj"), old, old)
	before := dirListing(t, dir)
	s, err := replay.Open(t.Context(), replay.Config{Sources: []string{dir}, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(s)
	checkRow(t, proxyClient(t, proxy, s), row{url: "http://example.com/copy.html", wantStatus: 200, wantBody: homeBody})
	proxy.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, dirListing(t, dir)); d != "" {
		t.Errorf("the crawl directory changed (-before +after):\n%s", d)
	}
}

// dirListing lists the files under dir with their sizes.
func dirListing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("%s %d", strings.TrimPrefix(p, dir), fi.Size()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOpenErrors: a source that is neither a crawl directory nor a WACZ file is ErrNotArchive.
func TestOpenErrors(t *testing.T) {
	notZip := filepath.Join(t.TempDir(), "x.wacz")
	os.WriteFile(notZip, []byte("not a zip"), 0o644)
	for name, src := range map[string]string{
		"missing":           filepath.Join(t.TempDir(), "none"),
		"empty directory":   t.TempDir(),
		"not a zip":         notZip,
		"a crawl not begun": func() string { d := t.TempDir(); os.Mkdir(filepath.Join(d, "warcs"), 0o755); return d }(),
	} {
		t.Run(name, func(t *testing.T) {
			s, err := replay.Open(t.Context(), replay.Config{Sources: []string{src}, StateDir: t.TempDir()})
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, replay.ErrNotArchive) {
				t.Errorf("Open: %v, want ErrNotArchive", err)
			}
		})
	}
	if _, err := replay.Open(t.Context(), replay.Config{}); !errors.Is(err, replay.ErrConfig) {
		t.Errorf("Open without sources: %v, want ErrConfig", err)
	}
}

// TestDefaultStateDir: replay/ in a crawl directory, and in the one a WACZ lies in; else
// beside the WACZ.
func TestDefaultStateDir(t *testing.T) {
	crawlDir := t.TempDir()
	os.Mkdir(filepath.Join(crawlDir, "state"), 0o755)
	other := t.TempDir()
	for _, tc := range []struct{ source, want string }{
		{crawlDir, filepath.Join(crawlDir, "replay")},
		{filepath.Join(crawlDir, "museum.wacz"), filepath.Join(crawlDir, "replay")},
		{filepath.Join(other, "museum.wacz"), filepath.Join(other, "museum.replay")},
	} {
		if got := replay.DefaultStateDir(tc.source); got != tc.want {
			t.Errorf("DefaultStateDir(%s) = %s, want %s", tc.source, got, tc.want)
		}
	}
}

// TestTunnel speaks through CONNECT by hand: TLS with a request in absolute form, TLS to an
// IP address (no SNI), and plain HTTP in a tunnel to port 80.
func TestTunnel(t *testing.T) {
	dir := writeFixture(t)
	s, err := replay.Open(t.Context(), replay.Config{Sources: []string{dir}, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	proxy := httptest.NewServer(s)
	defer proxy.Close()
	caPEM, err := os.ReadFile(s.CAPath())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	for _, tc := range []struct {
		name, connect, serverName, request string
		tls                                bool
		wantStatus                         int
		wantBody                           []byte
	}{
		{"absolute form in TLS", "example.com:443", "example.com", "GET https://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n", true, 200, homeBody},
		{"TLS to an address", "192.0.2.7:443", "", "GET / HTTP/1.1\r\nHost: 192.0.2.7\r\n\r\n", true, 404, nil},
		{"plain HTTP in a tunnel", "example.com:80", "", "GET /copy.html HTTP/1.1\r\nHost: example.com\r\n\r\n", false, 200, homeBody},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", proxy.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", tc.connect, tc.connect)
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("CONNECT: %v %v", resp, err)
			}
			var rw io.ReadWriter = conn
			if tc.tls {
				host, _, _ := net.SplitHostPort(tc.connect)
				cfg := &tls.Config{RootCAs: pool, ServerName: tc.serverName}
				if tc.serverName == "" {
					cfg.ServerName = host // verified against the certificate's IP address
				}
				tc := tls.Client(conn, cfg)
				if err := tc.Handshake(); err != nil {
					t.Fatalf("handshake: %v", err)
				}
				rw = tc
				br = bufio.NewReader(tc)
			}
			io.WriteString(rw, tc.request)
			resp, err = http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus || tc.wantBody != nil && !bytes.Equal(body, tc.wantBody) {
				t.Errorf("%s, body %.80q; want %d %.80q", resp.Status, body, tc.wantStatus, tc.wantBody)
			}
		})
	}
}

// TestCapture reads captures whole, in every kind of source: a resource record (the
// screenshot), a response de-chunked and still gzip, a revisit with its original's payload,
// the capture closest to the time asked; and says what is missing or too large. It records
// no miss.
func TestCapture(t *testing.T) {
	for name, src := range sources(t) {
		t.Run(name, func(t *testing.T) {
			s, err := replay.Open(t.Context(), replay.Config{Sources: []string{src}, StateDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, tc := range []struct {
				uri        string
				at         time.Time
				wantStatus int
				wantTime   time.Time
				wantType   string
				wantBody   []byte
			}{
				{uri: "urn:screenshot:http://example.com/", wantStatus: 200, wantTime: t0, wantType: "image/png", wantBody: pngBody},
				{uri: "http://example.com/", wantStatus: 200, wantTime: t0, wantType: "text/html; charset=utf-8", wantBody: homeBody},
				{uri: "http://example.com/app.js", wantStatus: 200, wantTime: t0, wantType: "application/javascript", wantBody: warctest.Gzip(t, scriptBody)},
				{uri: "http://example.com/copy.html", wantStatus: 200, wantTime: t0.Add(time.Second), wantType: "text/html; charset=utf-8", wantBody: homeBody},
				{uri: "http://example.com/news", wantStatus: 200, wantTime: t0, wantType: "text/html; charset=utf-8", wantBody: newsV1},
				{uri: "http://example.com/news", at: t0.Add(47 * time.Hour), wantStatus: 200, wantTime: t0.Add(48 * time.Hour), wantType: "text/html; charset=utf-8", wantBody: newsV2},
			} {
				c, err := s.Capture(tc.uri, tc.at, 1<<20)
				if err != nil {
					t.Errorf("%s: %v", tc.uri, err)
					continue
				}
				if c.Status != tc.wantStatus || !c.Time.Equal(tc.wantTime) || c.Header.Get("Content-Type") != tc.wantType || !bytes.Equal(c.Body, tc.wantBody) {
					t.Errorf("%s: status %d, time %v, type %q, %d bytes; want %d, %v, %q, %d bytes", tc.uri,
						c.Status, c.Time, c.Header.Get("Content-Type"), len(c.Body), tc.wantStatus, tc.wantTime, tc.wantType, len(tc.wantBody))
				}
			}
			for _, uri := range []string{"urn:screenshot:http://example.com/nothere", "http://example.com/api/data.json", "https://loop.example.com/"} {
				if _, err := s.Capture(uri, time.Time{}, 1<<20); !errors.Is(err, replay.ErrNotFound) {
					t.Errorf("%s: %v, want ErrNotFound (no fuzzy rules, no redirect to itself)", uri, err)
				}
			}
			if _, err := s.Capture("http://example.com/", time.Time{}, int64(len(homeBody)-1)); !errors.Is(err, replay.ErrTooLarge) {
				t.Errorf("a payload over max: %v, want ErrTooLarge", err)
			}
			if m := s.Misses(); len(m) != 0 {
				t.Errorf("misses recorded: %+v", m)
			}
		})
	}
}

package warc_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

var t0 = time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)

// crawlFixture is a set of captures covering the cases a crawl produces.
type crawlFixture struct {
	name      string
	capture   warc.Capture
	wantType  string // "response" or "revisit"
	wantStat  int
	rawBody   []byte // bytes after the HTTP header block
	payload   []byte // the entity body: rawBody without chunk framing
	truncated string
	revisitOf string // for a revisit, the name of the fixture it refers to
}

func fixtures(t testing.TB) []crawlFixture {
	html := []byte("<html><head><title>x</title></head><body><a href=/a>a</a></body></html>\n")
	gz := warctest.Gzip(t, bytes.Repeat([]byte("compressible text "), 200))
	chunkedGz := warctest.Chunk(gz, 100)
	var fs []crawlFixture
	add := func(name, url string, status int, reason string, headers [][2]string, body []byte, typ string) *crawlFixture {
		resp := warctest.RawResponse(status, reason, headers, body)
		fs = append(fs, crawlFixture{
			name:     name,
			capture:  capture(url, t0.Add(time.Duration(len(fs))*time.Second), resp),
			wantType: typ, wantStat: status, rawBody: body, payload: body,
		})
		return &fs[len(fs)-1]
	}
	add("html", "http://www.example.com/index.html?b=2&a=1", 200, "OK",
		[][2]string{{"Content-Type", "text/html; charset=utf-8"}, {"Content-Length", fmt.Sprint(len(html))}}, html, "response")
	cg := add("chunked gzip", "http://example.com/big.txt", 200, "OK",
		[][2]string{{"Content-Type", "text/plain"}, {"Transfer-Encoding", "chunked"}, {"Content-Encoding", "gzip"}}, chunkedGz, "response")
	cg.payload = gz
	add("404", "http://example.com/missing", 404, "Not Found",
		[][2]string{{"Content-Type", "text/html"}, {"Content-Length", "9"}}, []byte("not found"), "response")
	add("redirect", "https://example.com:8443/old", 301, "Moved Permanently",
		[][2]string{{"Location", "https://example.com:8443/new"}, {"Content-Length", "0"}}, nil, "response")
	add("duplicate payload", "http://example.com/index-copy.html", 200, "OK",
		[][2]string{{"Content-Type", "text/html"}, {"Content-Length", fmt.Sprint(len(html))}}, html, "revisit").revisitOf = "html"
	// The same entity body in other chunks is the same payload.
	rechunked := add("chunked gzip, other chunk sizes", "http://example.com/big-again.txt", 200, "OK",
		[][2]string{{"Content-Type", "text/plain"}, {"Transfer-Encoding", "chunked"}, {"Content-Encoding", "gzip"}}, warctest.Chunk(gz, 37), "revisit")
	rechunked.payload, rechunked.revisitOf = gz, "chunked gzip"
	add("duplicate 404 is not a revisit", "http://example.com/missing2", 404, "Not Found",
		[][2]string{{"Content-Type", "text/html"}, {"Content-Length", "9"}}, []byte("not found"), "response")
	tr := add("truncated", "http://example.com/huge.bin", 200, "OK",
		[][2]string{{"Content-Type", "application/octet-stream"}, {"Content-Length", "1000000"}}, bytes.Repeat([]byte{7}, 5000), "response")
	tr.capture.Truncated = "length"
	tr.truncated = "length"
	add("no content type", "http://example.com/raw", 200, "OK",
		[][2]string{{"Content-Length", "3"}}, []byte("abc"), "response")
	return fs
}

func TestWriteCaptureRoundTrip(t *testing.T) {
	dir := t.TempDir()
	warcs := filepath.Join(dir, "warcs")
	cdxj := filepath.Join(dir, "indexes", "index.cdxj")
	w := newWriter(t, warc.Config{Dir: warcs, CDXJPath: cdxj, Dedup: &warctest.MemDedup{}})
	fs := fixtures(t)
	results := map[string]warc.Result{}
	for _, f := range fs {
		res, err := w.WriteCapture(f.capture)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		results[f.name] = res
	}
	shot, err := w.WriteResource("urn:screenshot:http://example.com/", "image/png", t0, []byte("\x89PNG fake"), results["html"].RecordID)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteCapture(fs[0].capture); !errors.Is(err, warc.ErrClosed) {
		t.Errorf("WriteCapture after Close: err = %v, want ErrClosed", err)
	}

	reps, err := warccheck.ValidateDir(warcs)
	if err != nil {
		t.Fatalf("ValidateDir: %v", err)
	}
	if len(reps) != 1 {
		t.Fatalf("%d files, want 1", len(reps))
	}
	if err := warccheck.CheckCDXJ(cdxj, warcs); err != nil {
		t.Fatalf("CheckCDXJ: %v", err)
	}
	// internetarchive/gowarc's warc verify accepts every response but the truncated one: it
	// digests the body as net/http reads it, and reading a body shorter than its
	// Content-Length fails.
	ia, err := warccheck.RunIA(warccheck.IAPath(t), reps[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems := []string{"failed to calculate payload digest recordID=" + results["truncated"].RecordID + " err=unexpected EOF"}
	if d := cmp.Diff(wantProblems, ia[0].Problems); d != "" || ia[0].Errors != 1 || !ia[0].AllRecordsRead {
		t.Errorf("warc verify %+v; problems (-want +got):\n%s", ia[0], d)
	}
	recs := reps[0].Records
	byID := map[string]warccheck.Record{}
	for _, r := range recs {
		byID[r.RecordID] = r
	}
	info := recs[0]
	if info.Type != "warcinfo" {
		t.Fatalf("first record %s", info.Type)
	}
	for _, name := range []string{"software", "operator", "isPartOf", "format", "conformsTo", "robots", "http-header-user-agent"} {
		if info.Field(name) == "" {
			t.Errorf("warcinfo lacks %s", name)
		}
	}
	if got := info.Field("http-header-user-agent"); got != testInfo.UserAgent {
		t.Errorf("http-header-user-agent %q, want %q", got, testInfo.UserAgent)
	}
	if got := info.Field("robots"); got != "obey" {
		t.Errorf("robots %q, want obey", got)
	}
	// The configuration follows in a metadata record, byte for byte as given.
	conf := recs[1]
	if conf.Type != "metadata" || conf.TargetURI != warc.ConfigURI || conf.ContentType != warc.ConfigContentType ||
		conf.RefersTo != info.RecordID || conf.WarcinfoID != info.RecordID {
		t.Errorf("second record %+v, want the crawl-config metadata record referring to %s", conf, info.RecordID)
	}
	if got := recordBlock(t, reps[0].Path, conf.Offset); !bytes.Equal(got, testInfo.Config) {
		t.Errorf("crawl-config block\n%q\nwant\n%q", got, testInfo.Config)
	}

	for _, f := range fs {
		t.Run(f.name, func(t *testing.T) {
			res := results[f.name]
			main, ok := byID[res.RecordID]
			if !ok {
				t.Fatalf("record %s not in file", res.RecordID)
			}
			if main.Offset != res.Offset || main.Length != res.Length || filepath.Base(reps[0].Path) != res.Filename {
				t.Errorf("result %+v, record at %d length %d", res, main.Offset, main.Length)
			}
			got := struct {
				Type, URI, IP, Truncated string
				Status                   int
				Revisit                  bool
			}{main.Type, main.TargetURI, main.IPAddress, main.Truncated, main.HTTPStatus, res.Revisit}
			want := got
			want.Type, want.URI, want.IP, want.Truncated, want.Status, want.Revisit = f.wantType, f.capture.URL, "127.0.0.1", f.truncated, f.wantStat, f.wantType == "revisit"
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("record (-want +got):\n%s", d)
			}
			// The payload digest is over the entity body: chunk framing removed, gzip kept.
			if want := warctest.Digest(f.payload); res.PayloadDigest != want || main.PayloadDigest != want {
				t.Errorf("payload digest result %s record %s, want %s", res.PayloadDigest, main.PayloadDigest, want)
			}
			if main.Type == "revisit" {
				orig := results[f.revisitOf]
				origRec := byID[orig.RecordID]
				if main.RefersToURI != origRec.TargetURI || main.RefersToDate != origRec.Date ||
					main.Profile != "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest" {
					t.Errorf("revisit refers to %s %s profile %s, want %s %s", main.RefersToURI, main.RefersToDate, main.Profile, origRec.TargetURI, origRec.Date)
				}
				if res.PayloadDigest != orig.PayloadDigest {
					t.Errorf("revisit digest %s, original %s", res.PayloadDigest, orig.PayloadDigest)
				}
			}
			// Request and metadata point at the response.
			var linked []string
			for _, r := range recs {
				for _, c := range r.ConcurrentTo {
					if c == res.RecordID {
						linked = append(linked, r.Type)
					}
				}
			}
			if d := cmp.Diff([]string{"request", "metadata"}, linked); f.name != "html" && d != "" {
				t.Errorf("records linked to the response (-want +got):\n%s", d)
			}
			for _, r := range recs {
				if r.Type == "metadata" && len(r.ConcurrentTo) == 1 && r.ConcurrentTo[0] == res.RecordID {
					wantFields := []warccheck.Field{
						{Name: "Via", Value: "http://example.com/"}, {Name: "Hopsfromseed", Value: "L"}, {Name: "Sourceseed", Value: "http://example.com/"},
						{Name: "Outlink", Value: "http://example.com/a L a/@href"}, {Name: "Outlink", Value: "http://example.com/style.css E link/@href"},
						{Name: "Fetchtimems", Value: "12"},
					}
					if d := cmp.Diff(wantFields, r.Fields, cmp.Comparer(strings.EqualFold)); d != "" {
						t.Errorf("metadata fields (-want +got):\n%s", d)
					}
				}
			}
		})
	}
	if r := byID[shot.RecordID]; r.Type != "resource" || r.TargetURI != "urn:screenshot:http://example.com/" ||
		len(r.ConcurrentTo) != 1 || r.ConcurrentTo[0] != results["html"].RecordID {
		t.Errorf("screenshot record %+v", r)
	}

	data, err := os.ReadFile(cdxj)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := warccheck.ParseCDXJ(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(fs)+2 { // the captures, the screenshot and the crawl-config
		t.Fatalf("%d CDXJ lines, want %d", len(lines), len(fs)+2)
	}
	confTS := strings.NewReplacer("-", "", ":", "", "T", "").Replace(conf.Date)[:14]
	wantConf := fmt.Sprintf(`urn:amber:crawl-config %s {"url":"urn:amber:crawl-config","mime":"application/yaml","length":"%d","offset":"%d","filename":"%s"}`,
		confTS, conf.Length, conf.Offset, results["html"].Filename)
	textLines := strings.Split(string(data), "\n")
	if textLines[0] != wantConf {
		t.Errorf("first CDXJ line\n got %s\nwant %s", textLines[0], wantConf)
	}
	first := textLines[1]
	wantFirst := fmt.Sprintf(`com,example)/index.html?a=1&b=2 20240506070809 {"url":"http://www.example.com/index.html?b=2&a=1","mime":"text/html","status":"200","digest":"%s","length":"%d","offset":"%d","filename":"%s"}`,
		strings.TrimPrefix(results["html"].PayloadDigest, "sha1:"), results["html"].Length, results["html"].Offset, results["html"].Filename)
	if first != wantFirst {
		t.Errorf("second CDXJ line\n got %s\nwant %s", first, wantFirst)
	}
	byURL := map[string]crawlFixture{}
	for _, f := range fs {
		byURL[f.capture.URL] = f
	}
	for _, l := range lines {
		if f, ok := byURL[l.URL]; ok {
			if want := strings.TrimPrefix(warctest.Digest(f.payload), "sha1:"); l.Digest != want {
				t.Errorf("%s: CDXJ digest %s, want %s (the entity body's)", f.name, l.Digest, want)
			}
		}
		switch l.URL {
		case "http://example.com/index-copy.html":
			if l.Mime != "warc/revisit" {
				t.Errorf("revisit mime %q", l.Mime)
			}
		case "urn:screenshot:http://example.com/":
			if l.Key != l.URL || l.Mime != "image/png" || l.Status != "" {
				t.Errorf("screenshot line %+v", l)
			}
		}
	}
}

func TestFileNamingAndRotation(t *testing.T) {
	dir := t.TempDir()
	w := newWriter(t, warc.Config{Dir: dir, Prefix: "coll-x", Hostname: "crawl host/1", MaxSize: 2000})
	body := bytes.Repeat([]byte("x"), 3000) // compresses to far less than MaxSize
	for i := range 6 {
		resp := warctest.RawResponse(200, "OK", [][2]string{{"Content-Length", "3000"}}, append(body, byte('a'+i)))
		c := capture(fmt.Sprintf("http://example.com/%d", i), t0, resp)
		if _, err := w.WriteCapture(c); err != nil {
			t.Fatal(err)
		}
		open, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz.open"))
		if len(open) != 1 {
			t.Fatalf("after capture %d: %d .open files, want 1", i, len(open))
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if open, _ := filepath.Glob(filepath.Join(dir, "*.open")); len(open) != 0 {
		t.Errorf(".open files left after Close: %v", open)
	}
	files := warcFiles(t, dir)
	if len(files) < 2 {
		t.Fatalf("%d files, want rotation", len(files))
	}
	re := regexp.MustCompile(`^coll-x-\d{17}-(\d{5})-crawl-host-1\.warc\.gz$`)
	for i, f := range files {
		m := re.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			t.Errorf("file name %s does not match %s", filepath.Base(f), re)
			continue
		}
		if want := fmt.Sprintf("%05d", i); m[1] != want {
			t.Errorf("file %s serial %s, want %s", filepath.Base(f), m[1], want)
		}
	}
	// Every file validates on its own: warcinfo first, captures not split across files.
	reps, err := warccheck.ValidateDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range reps {
		for _, rec := range r.Records {
			if rec.Type == "response" {
				n++
			}
		}
	}
	if n != 6 {
		t.Errorf("%d responses, want 6", n)
	}

	// A new writer continues the serial.
	w2 := newWriter(t, warc.Config{Dir: dir, Prefix: "coll-x", Hostname: "crawl host/1"})
	res, err := w2.WriteCapture(capture("http://example.com/again", t0, warctest.RawResponse(200, "OK", nil, []byte("z"))))
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("-%05d-", len(files)); !strings.Contains(res.Filename, want) {
		t.Errorf("resumed file %s, want serial %s", res.Filename, want)
	}
}

func TestConcurrentWrites(t *testing.T) {
	dir := t.TempDir()
	cdxj := filepath.Join(dir, "index.cdxj")
	dedup := &warctest.MemDedup{}
	w := newWriter(t, warc.Config{Dir: dir, CDXJPath: cdxj, Dedup: dedup, MaxSize: 20000})
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 15 {
				body := []byte(fmt.Sprintf("body %d %s", i%5, strings.Repeat("y", 500*(i%3))))
				resp := warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/plain"}}, body)
				if _, err := w.WriteCapture(capture(fmt.Sprintf("http://h%d.example.com/%d", g, i), t0, resp)); err != nil {
					errs <- err
					return
				}
				if i%7 == 0 {
					if _, err := w.WriteResource(fmt.Sprintf("urn:screenshot:http://h%d.example.com/%d", g, i), "image/png", t0, []byte("png"), ""); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := warccheck.ValidateDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := warccheck.CheckCDXJ(cdxj, dir); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(cdxj)
	lines, _ := warccheck.ParseCDXJ(data)
	revisits := 0
	for _, l := range lines {
		if l.Mime == "warc/revisit" {
			revisits++
		}
	}
	files := len(warcFiles(t, dir)) // one crawl-config line each
	if len(lines) != 60+4*3+files || revisits == 0 {
		t.Errorf("%d lines (%d revisits), want %d with some revisits", len(lines), revisits, 60+4*3+files)
	}
}

func TestWriteCaptureInvalid(t *testing.T) {
	w := newWriter(t, warc.Config{Dir: t.TempDir()})
	defer w.Close()
	ok := capture("http://example.com/", t0, warctest.RawResponse(200, "OK", nil, []byte("x")))
	tests := []struct {
		name string
		edit func(c *warc.Capture)
	}{
		{"empty URL", func(c *warc.Capture) { c.URL = "" }},
		{"no response", func(c *warc.Capture) { c.Response = nil }},
		{"empty response", func(c *warc.Capture) { c.Response = bytes.NewReader(nil) }},
		{"bad extra name", func(c *warc.Capture) { c.Extra = []warc.Field{{Name: "two words", Value: "v"}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ok
			c.Response = bytes.NewReader(warctest.RawResponse(200, "OK", nil, []byte("x")))
			tt.edit(&c)
			if _, err := w.WriteCapture(c); !errors.Is(err, warc.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
	if _, err := warc.NewWriter(warc.Config{}); !errors.Is(err, warc.ErrConfig) {
		t.Errorf("NewWriter without Dir: err = %v, want ErrConfig", err)
	}
}

func TestCDXKey(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://www.example.com/path?b=2&a=1", "com,example)/path?a=1&b=2"},
		{"https://Example.COM/Path/Page.HTML", "com,example)/path/page.html"},
		{"http://www2.example.com/", "com,example)/"},
		{"http://wwwexample.com/", "com,wwwexample)/"},
		{"http://sub.www.example.com/", "com,example,www,sub)/"},
		{"http://example.com:80/", "com,example)/"},
		{"https://example.com:443/x", "com,example)/x"},
		{"http://example.com:8080/x", "com,example:8080)/x"},
		{"http://127.0.0.1:8000/a", "1,0,0,127:8000)/a"},
		{"http://example.com", "com,example)/"},
		{"http://example.com/?", "com,example)/"},
		{"http://example.com/a b", "com,example)/a%20b"},
		{"http://bücher.ch/", "ch,xn--bcher-kva)/"},
		{"urn:screenshot:http://example.com/", "urn:screenshot:http://example.com/"},
		{"http://example.com/p?z&y=1&x", "com,example)/p?x&y=1&z"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			if got := warc.CDXKey(tt.url); got != tt.want {
				t.Errorf("CDXKey(%q) = %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}

// TestConcurrentDuplicatesBecomeRevisits writes the same payload from several goroutines at
// once: exactly one response may hold it, every other capture is a revisit of it.
func TestConcurrentDuplicatesBecomeRevisits(t *testing.T) {
	dir := t.TempDir()
	w := newWriter(t, warc.Config{Dir: dir, Dedup: &warctest.MemDedup{}})
	body := []byte("<html><body>the same page under many URLs</body></html>")
	resp := warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/html"}}, body)
	const n = 16
	results := make([]warc.Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := w.WriteCapture(capture(fmt.Sprintf("http://example.com/copy%d", i), time.Now(), resp))
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		}()
	}
	wg.Wait()
	responses := 0
	for _, r := range results {
		if !r.Revisit {
			responses++
		}
	}
	if responses != 1 {
		t.Errorf("%d responses for one payload written concurrently, want 1", responses)
	}
}

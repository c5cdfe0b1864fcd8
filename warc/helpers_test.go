package warc_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/warc"
)

// rawRequest builds the bytes of a GET request as fetch would send them.
func rawRequest(url string) []byte {
	path := "/"
	host := url
	if i := strings.Index(url, "://"); i >= 0 {
		host = url[i+3:]
	}
	if i := strings.IndexByte(host, '/'); i >= 0 {
		path = host[i:]
		host = host[:i]
	}
	return []byte("GET " + path + " HTTP/1.1\r\nHost: " + host +
		"\r\nUser-Agent: amber-test\r\nAccept: */*\r\nAccept-Encoding: gzip\r\nConnection: keep-alive\r\n\r\n")
}

// rawResponse builds response bytes: status line, headers in order, blank line, body as given
// (already chunked or compressed by the caller when the headers say so).
func rawResponse(status int, reason string, headers [][2]string, body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, reason)
	for _, h := range headers {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// chunk encodes body with chunked transfer-coding, n bytes per chunk.
func chunk(body []byte, n int) []byte {
	var b bytes.Buffer
	for len(body) > 0 {
		k := min(n, len(body))
		fmt.Fprintf(&b, "%x\r\n", k)
		b.Write(body[:k])
		b.WriteString("\r\n")
		body = body[k:]
	}
	b.WriteString("0\r\n\r\n")
	return b.Bytes()
}

func gzipBytes(t testing.TB, body []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func sha1Base32(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// memDedup is an in-memory warc.DedupIndex.
type memDedup struct {
	mu sync.Mutex
	m  map[string]dedupEntry
}

type dedupEntry struct {
	uri  string
	date time.Time
}

func newMemDedup() *memDedup { return &memDedup{m: map[string]dedupEntry{}} }

func (d *memDedup) LookupDigest(digest string) (string, time.Time, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.m[digest]
	return e.uri, e.date, ok, nil
}

func (d *memDedup) StoreDigest(digest, uri string, date time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.m[digest]; !ok {
		d.m[digest] = dedupEntry{uri, date}
	}
	return nil
}

// capture makes a Capture of url with the given raw response.
func capture(url string, date time.Time, resp []byte) warc.Capture {
	return warc.Capture{
		URL:          url,
		Date:         date,
		IP:           "127.0.0.1",
		Request:      rawRequest(url),
		Response:     bytes.NewReader(resp),
		ResponseSize: int64(len(resp)),
		Via:          "http://example.com/",
		Hops:         "L",
		Seed:         "http://example.com/",
		Outlinks: []warc.Outlink{
			{URL: "http://example.com/a", Hop: "L", Context: "a/@href"},
			{URL: "http://example.com/style.css", Hop: "E", Context: "link/@href"},
		},
		Extra: []warc.Field{{Name: "fetchTimeMs", Value: "12"}},
	}
}

// warcFiles lists the finished WARC files in dir.
func warcFiles(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".warc.gz") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

func newWriter(t testing.TB, cfg warc.Config) *warc.Writer {
	t.Helper()
	if cfg.Hostname == "" {
		cfg.Hostname = "testhost"
	}
	if cfg.Info.Software == "" {
		cfg.Info = testInfo
	}
	w, err := warc.NewWriter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// testInfo is the warcinfo content newWriter uses when the test sets none.
var testInfo = warc.Info{
	Software: "amber/test", Operator: "tester", Collection: "test-coll", Description: "unit test",
	UserAgent: "Mozilla/5.0 (compatible; amber/test; +http://example.com/bot)", Robots: "obey",
	Config: []byte("# crawl config\nseeds:\n  - url: http://example.com/\n    type: standard\nscope:\n  block: [\"a: b\", 'c\\d']\n"),
}

// recordBlock returns the block of the record whose gzip member starts at offset in a .warc.gz
// file, read with nothing but compress/gzip and the Content-Length header.
func recordBlock(t testing.TB, path string, offset int64) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	rec, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	head, block, ok := bytes.Cut(rec, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("record at %d: no end of header", offset)
	}
	n := -1
	for _, l := range strings.Split(string(head), "\r\n") {
		if name, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(name, "Content-Length") {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if n < 0 || len(block) != n+4 || !bytes.HasSuffix(block, []byte("\r\n\r\n")) {
		t.Fatalf("record at %d: Content-Length %d for %d bytes", offset, n, len(block))
	}
	return block[:n]
}

// memTempDir is a temporary directory in memory (/dev/shm) where there is one, else
// t.TempDir(). Recover syncs the file it keeps, and an fsync on a disk that other processes
// are writing to can take a second: FuzzRecover ran 3 inputs a second on a busy machine, a
// thousand and more in memory.
func memTempDir(t testing.TB) string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "amber-warc-test-"); err == nil {
			t.Cleanup(func() { _ = os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

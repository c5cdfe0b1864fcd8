package warc_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

// capture makes a Capture of url with the given raw response.
func capture(url string, date time.Time, resp []byte) warc.Capture {
	return warc.Capture{
		URL:          url,
		Date:         date,
		IP:           "127.0.0.1",
		Request:      warctest.RawRequest(url),
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

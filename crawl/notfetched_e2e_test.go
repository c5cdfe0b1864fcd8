package crawl_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/contentfilter"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/warc"
)

// bigSize is the length of the large bodies of bigSite: 50 MiB, made as they are written.
const bigSize = 50 << 20

// bigSitePage is an HTML page of bigSite.
const bigSitePage = "<!doctype html><html><head><title>a page</title></head><body><p>a page</p></body></html>"

// bigSite serves a page linking to large responses of types the crawl leaves out, and counts
// the body bytes the server wrote of each (those its writes took): /big.zip (application/zip,
// with its Content-Length), /stream.bin (application/octet-stream, chunked) and /big.xhtml
// (application/xhtml+xml, a type amber reads links from, whose body starts with a link to
// /from-xhtml); /untyped.bin without a Content-Type (sniffed application/octet-stream), and
// HTML pages (a 404 too).
type bigSite struct {
	written map[string]*atomic.Int64
}

func newBigSite() *bigSite {
	s := &bigSite{written: map[string]*atomic.Int64{}}
	for _, p := range []string{"/big.zip", "/stream.bin", "/big.xhtml"} {
		s.written[p] = &atomic.Int64{}
	}
	return s
}

func (s *bigSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	flush := func() {}
	var head []byte
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>files</title></head><body><a href="/big.zip">zip</a>
<a href="/stream.bin">stream</a> <a href="/big.xhtml">xhtml</a> <a href="/untyped.bin">untyped</a> <a href="/page.html">page</a></body></html>`)
		return
	case "/page.html", "/from-xhtml":
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, bigSitePage)
		return
	case "/untyped.bin":
		w.Header()["Content-Type"] = nil // no sniffing by net/http: served without one
		w.Write([]byte("\x00\x01\x02\x03 binary"))
		return
	case "/big.zip":
		w.Header().Set("Content-Type", "application/zip")
		w.Header().Set("Content-Length", strconv.Itoa(bigSize))
	case "/stream.bin":
		w.Header().Set("Content-Type", "application/octet-stream")
		flush = w.(http.Flusher).Flush // no Content-Length: chunked
	case "/big.xhtml":
		w.Header().Set("Content-Type", "application/xhtml+xml")
		w.Header().Set("Content-Length", strconv.Itoa(bigSize))
		head = []byte(`<html xmlns="http://www.w3.org/1999/xhtml"><body><a href="/from-xhtml">on</a><!--`)
	default:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, bigSitePage)
		return
	}
	written := s.written[r.URL.Path]
	buf := bytes.Repeat([]byte("z"), 32<<10)
	copy(buf, head)
	for n := 0; n < bigSize; n += len(buf) {
		if _, err := w.Write(buf); err != nil {
			return // the crawler closed the connection
		}
		flush()
		written.Add(int64(len(buf)))
	}
}

// TestContentTypeNotFetched crawls bigSite with Content.Types text/html and the plain fetcher:
// a response whose Content-Type is a type left out is not fetched. The crawler closes the
// connection once the head has arrived, so the server writes no more than the connection's
// buffers take of its 50 MiB; no response record is written (gowarc and warcio.js read its
// request and the metadata record saying why), no CDXJ line, no link of it is followed and it
// has no search document; crawl.log (type-not-fetched:TYPE, bytes-not-fetched:N or unknown),
// the content-excluded event and the scope report say so, with the bytes not fetched. A
// response without a Content-Type is fetched whole: its type is sniffed from its body.
func TestContentTypeNotFetched(t *testing.T) {
	const home = "http://www.example.com/"
	site := newBigSite()
	ts, err := testsite.StartHandler(site)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	cfg := basicConfig(t, ts, t.TempDir())
	cfg.Content.Types = []string{"text/html"}
	last := lastLines(runFAST(t, cfg))
	ts.Close() // its handlers have returned: the counts are final

	const maxWritten = 8 << 20 // what a loopback connection's buffers take, and then some
	for p, n := range site.written {
		t.Logf("%s: the server wrote %d of its %d body bytes", p, n.Load(), bigSize)
		if n.Load() > maxWritten {
			t.Errorf("%s: the server wrote %d body bytes, want at most %d", p, n.Load(), maxWritten)
		}
	}

	type logged struct {
		Status int
		Size   int64
		MIME   string
		Notes  []string
	}
	contentNotes := func(l report.Line) []string {
		var out []string
		for _, a := range l.Annotations {
			if strings.Contains(a, "excluded:") || strings.Contains(a, "not-fetched:") {
				out = append(out, a)
			}
		}
		return out
	}
	wantLines := map[string]logged{
		"big.zip":     {200, 0, "application/zip", []string{"type-not-fetched:application/zip", "bytes-not-fetched:" + strconv.Itoa(bigSize)}},
		"stream.bin":  {200, 0, "application/octet-stream", []string{"type-not-fetched:application/octet-stream", "bytes-not-fetched:unknown"}},
		"big.xhtml":   {200, 0, "application/xhtml+xml", []string{"type-not-fetched:application/xhtml+xml", "bytes-not-fetched:" + strconv.Itoa(bigSize)}},
		"untyped.bin": {200, 11, "", []string{"type-excluded:application/octet-stream"}},
		"page.html":   {200, int64(len(bigSitePage)), "text/html", nil},
	}
	for p, want := range wantLines {
		l, ok := last[home+p]
		if !ok {
			t.Errorf("%s: no crawl.log line", p)
			continue
		}
		got := logged{l.Status, l.Size, l.MIME, contentNotes(l)}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: crawl.log line (-want +got):\n%s", p, d)
		}
	}
	if l, ok := last[home+"from-xhtml"]; ok {
		t.Errorf("the link of the unfetched XHTML was followed: %+v", l)
	}
	if docs := documentURLs(t, cfg.Dir); slices.ContainsFunc(docs, func(u string) bool { return strings.HasPrefix(u, home+"big") }) {
		t.Errorf("documents %q: one of a response not fetched", docs)
	}

	var events []string
	for _, e := range crawltest.ReadEvents(t, filepath.Join(cfg.Dir, crawl.EventsFile)) {
		if e["event.action"] == contentfilter.ActionExcluded {
			events = append(events, fmt.Sprintf("%s %v %v %v", strings.TrimPrefix(fmt.Sprint(e["url.full"]), home), e["event.reason"], e["labels.type"], e["labels.bytes"]))
		}
	}
	slices.Sort(events)
	wantEvents := []string{
		"big.xhtml type-not-fetched application/xhtml+xml " + strconv.Itoa(bigSize),
		"big.zip type-not-fetched application/zip " + strconv.Itoa(bigSize),
		"stream.bin type-not-fetched application/octet-stream unknown",
		"untyped.bin type-excluded application/octet-stream <nil>",
	}
	if d := cmp.Diff(wantEvents, events); d != "" {
		t.Errorf("content-excluded events (-want +got):\n%s", d)
	}

	// The WARC files: gowarc (strict) reads them; a URL not fetched has its request record and
	// a metadata record concurrent to it, saying why, and nothing else.
	warcDir := filepath.Join(cfg.Dir, crawl.WARCDir)
	reps, err := warccheck.ValidateDir(warcDir)
	if err != nil {
		t.Fatal(err)
	}
	type record struct{ Type, ConcurrentTo, NotFetched, Bytes, Status string }
	records := map[string][]record{}
	ids := map[string]string{} // record ID -> type
	var files []string
	for _, r := range reps {
		files = append(files, r.Path)
		for _, rec := range r.Records {
			ids[rec.RecordID] = rec.Type
		}
	}
	for _, r := range reps {
		for _, rec := range r.Records {
			concurrent := ""
			if len(rec.ConcurrentTo) == 1 {
				concurrent = ids[rec.ConcurrentTo[0]]
			}
			p := strings.TrimPrefix(rec.TargetURI, home)
			records[p] = append(records[p], record{rec.Type, concurrent, rec.Field("notFetched"), rec.Field("notFetchedBytes"), rec.Field("responseStatus")})
		}
	}
	wantRecords := map[string][]record{
		"big.zip":     {{"request", "", "", "", ""}, {"metadata", "request", "type:application/zip", strconv.Itoa(bigSize), "200"}},
		"stream.bin":  {{"request", "", "", "", ""}, {"metadata", "request", "type:application/octet-stream", "unknown", "200"}},
		"big.xhtml":   {{"request", "", "", "", ""}, {"metadata", "request", "type:application/xhtml+xml", strconv.Itoa(bigSize), "200"}},
		"untyped.bin": {{"request", "response", "", "", ""}, {"response", "", "", "", ""}, {"metadata", "response", "", "", ""}},
	}
	for p, want := range wantRecords {
		if d := cmp.Diff(want, records[p]); d != "" {
			t.Errorf("%s: records (-want +got):\n%s", p, d)
		}
	}

	// The place crawl.log gives for a URL not fetched is its request record (warc.ReadRecord).
	zip := last[home+"big.zip"]
	name, _ := zip.Extra["warcFilename"].(string)
	offset, _ := zip.Extra["warcFileOffset"].(float64)
	f, err := os.Open(filepath.Join(warcDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := warc.ReadRecord(f, int64(offset), 0)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Type != "request" || rec.TargetURI != home+"big.zip" || rec.HTTP != nil {
		t.Errorf("crawl.log's record of big.zip: %s of %s (HTTP response %v), want its request", rec.Type, rec.TargetURI, rec.HTTP)
	}

	// warcio.js reads the same records, and finds no response of a URL not fetched.
	var warcio []string
	for _, r := range warccheck.WarcioRecords(t, files...) {
		if p := strings.TrimPrefix(r.TargetURI, home); strings.HasPrefix(p, "big") || p == "stream.bin" {
			warcio = append(warcio, p+" "+r.Type)
		}
	}
	slices.Sort(warcio)
	wantWarcio := []string{"big.xhtml metadata", "big.xhtml request", "big.zip metadata", "big.zip request", "stream.bin metadata", "stream.bin request"}
	if d := cmp.Diff(wantWarcio, warcio); d != "" {
		t.Errorf("warcio.js records (-want +got):\n%s", d)
	}
	for _, p := range warccheck.WarcioPayloads(t, files...) {
		if !p.OK() {
			t.Errorf("warcio.js: %s: payload digest %s, computed %s", p.TargetURI, p.Declared, p.Computed)
		}
	}
	for _, ia := range warccheck.VerifyIA(t, files...) {
		if ia.Errors != 0 || !ia.AllRecordsRead {
			t.Errorf("warc verify: %+v", ia)
		}
	}
	cdxj, err := os.ReadFile(filepath.Join(cfg.Dir, crawl.CDXJFile))
	if err != nil {
		t.Fatal(err)
	}
	lines, err := warccheck.ParseCDXJ(cdxj)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if p := strings.TrimPrefix(l.URL, home); strings.HasPrefix(p, "big") || p == "stream.bin" {
			t.Errorf("a CDXJ line of %s, which was not fetched", l.URL)
		}
	}
	if err := warccheck.CheckCDXJ(filepath.Join(cfg.Dir, crawl.CDXJFile), warcDir); err != nil {
		t.Error(err)
	}

	// The scope report counts them by host and seed, with the bytes not fetched.
	sr := scopeReport(t, cfg.Dir)
	want := &report.ContentCounts{TypeExcluded: 1, TypeNotFetched: 3, BytesNotFetched: 2 * bigSize, SizeUnknown: 1}
	if d := cmp.Diff(want, sr.Totals.Content); d != "" {
		t.Errorf("scope report totals' content (-want +got):\n%s", d)
	}
	if len(sr.ContentBySeed) != 1 || sr.ContentBySeed[0].Seed != home || sr.ContentBySeed[0].ContentCounts != *want {
		t.Errorf("scope report content by seed %+v, want %s's %+v", sr.ContentBySeed, home, *want)
	}
	text, err := os.ReadFile(filepath.Join(cfg.Dir, crawl.ReportsDir, report.ScopeReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if row := fmt.Sprintf("www.example.com 1 0 0 0 3 %d 1\n", 2*bigSize); !strings.Contains(string(text), row) {
		t.Errorf("scope-report.txt has no row %q:\n%s", row, text)
	}
}

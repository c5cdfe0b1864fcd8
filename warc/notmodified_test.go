package warc_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

// TestWriteNotModified: a 304 answering a conditional request is written as a
// server-not-modified revisit without a block, referring to the original with its payload
// digest and validators; a 304 to a plain request and a 200 to a conditional one are responses.
// gowarc (strict), internetarchive/gowarc's warc verify and warcio.js's indexer read them.
func TestWriteNotModified(t *testing.T) {
	dir := t.TempDir()
	cdxj := filepath.Join(dir, "index.cdxj")
	w := newWriter(t, warc.Config{Dir: dir, CDXJPath: cdxj, Dedup: &warctest.MemDedup{}})
	page := []byte("<html><title>same</title></html>")
	origDate := time.Date(2026, 1, 2, 3, 4, 5, 678000000, time.UTC)
	orig := warc.Original{URI: "http://example.com/page", Date: origDate, PayloadDigest: warctest.Digest(page),
		ETag: `"v1"`, LastModified: "Thu, 01 Jan 2026 00:00:00 GMT"}
	for _, tc := range []struct {
		name        string
		capture     warc.Capture
		wantType    string
		notModified bool
		wantDigest  string
		wantETag    string // WARC-Etag of the revisit
		wantLastMod string // WARC-Last-Modified of the revisit
	}{
		{
			name: "304 to a conditional request",
			capture: withOriginal(capture("http://example.com/page", t0,
				warctest.RawResponse(304, "Not Modified", [][2]string{{"ETag", `"v1"`}, {"Date", "Fri, 02 Jan 2026 00:00:00 GMT"}}, nil)), &orig),
			wantType: "revisit", notModified: true, wantDigest: orig.PayloadDigest,
			wantETag: `"v1"`, wantLastMod: orig.LastModified,
		},
		{
			// The 304's own validators win over those that were sent.
			name: "304 with validators of its own",
			capture: withOriginal(capture("http://example.com/page", t0.Add(time.Second),
				warctest.RawResponse(304, "Not Modified", [][2]string{{"ETag", `W/"v1"`}, {"Last-Modified", "Sat, 03 Jan 2026 00:00:00 GMT"}}, nil)), &orig),
			wantType: "revisit", notModified: true, wantDigest: orig.PayloadDigest,
			wantETag: `W/"v1"`, wantLastMod: "Sat, 03 Jan 2026 00:00:00 GMT",
		},
		{
			name: "304 to a plain request is a response",
			capture: capture("http://example.com/odd", t0.Add(2*time.Second),
				warctest.RawResponse(304, "Not Modified", nil, nil)),
			wantType: "response", wantDigest: warctest.Digest(nil),
		},
		{
			name: "200 to a conditional request is a response",
			capture: withOriginal(capture("http://example.com/page", t0.Add(3*time.Second),
				warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/html"}, {"ETag", `"v2"`}}, []byte("<html>changed</html>"))), &orig),
			wantType: "response", wantDigest: warctest.Digest([]byte("<html>changed</html>")),
		},
		{
			name: "304 to a conditional request, digest unknown",
			capture: withOriginal(capture("http://example.com/other", t0.Add(4*time.Second),
				warctest.RawResponse(304, "Not Modified", nil, nil)), &warc.Original{URI: "http://example.com/other", Date: origDate, ETag: `"x"`}),
			wantType: "revisit", notModified: true, wantETag: `"x"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := w.WriteCapture(tc.capture)
			if err != nil {
				t.Fatal(err)
			}
			if res.Revisit != (tc.wantType == "revisit") || res.NotModified != tc.notModified || res.PayloadDigest != tc.wantDigest {
				t.Errorf("result %+v, want type %s, not modified %v, digest %q", res, tc.wantType, tc.notModified, tc.wantDigest)
			}
			f, err := os.Open(filepath.Join(dir, res.Filename+".open"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			head, err := warc.ReadRecordHead(f, res.Offset, res.Length)
			if err != nil {
				t.Fatal(err)
			}
			want := warc.RecordHead{Type: tc.wantType, TargetURI: tc.capture.URL, Date: tc.capture.Date, PayloadDigest: tc.wantDigest, Status: 304}
			switch {
			case tc.notModified:
				want.Profile, want.RefersToURI, want.RefersToDate = "http://netpreserve.org/warc/1.1/revisit/server-not-modified", tc.capture.NotModified.URI, origDate
				want.Status, want.ETag, want.LastModified = 0, tc.wantETag, tc.wantLastMod
			case strings.HasPrefix(tc.name, "200"):
				want.Status, want.ETag, want.Mime = 200, `"v2"`, "text/html"
			}
			if d := cmp.Diff(want, head); d != "" {
				t.Errorf("record head (-want +got):\n%s", d)
			}
		})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	files := warcFiles(t, dir)
	rep, err := warccheck.Validate(files[0])
	if err != nil {
		t.Fatalf("gowarc: %v", err)
	}
	for _, r := range rep.Records {
		if r.Type == "revisit" {
			if b := recordBlock(t, files[0], r.Offset); len(b) != 0 || r.ContentType != "" {
				t.Errorf("revisit at %d: block %q, Content-Type %q; want none", r.Offset, b, r.ContentType)
			}
		}
	}
	for _, ia := range warccheck.VerifyIA(t, files...) {
		if ia.Errors != 0 || !ia.AllRecordsRead {
			t.Errorf("warc verify: %+v", ia)
		}
	}
	if err := warccheck.CheckCDXJ(cdxj, dir); err != nil {
		t.Error(err)
	}
	compareWarcioIndex(t, dir, cdxj, files)
}

func withOriginal(c warc.Capture, o *warc.Original) warc.Capture {
	c.NotModified = o
	return c
}

// compareWarcioIndex compares the CDXJ lines the Writer wrote with what warcio.js's cdx-index
// prints for the files (skipped without node and warcio.js, failed then in CI).
func compareWarcioIndex(t *testing.T, dir, cdxj string, files []string) {
	t.Helper()
	node, pkg := warcioJS(t)
	ours, err := os.ReadFile(cdxj)
	if err != nil {
		t.Fatal(err)
	}
	var theirs bytes.Buffer
	for _, f := range files {
		cmd := exec.Command(node, filepath.Join(pkg, "dist", "cli.js"), "cdx-index", filepath.Base(f))
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &theirs, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Fatalf("warcio cdx-index %s: %v\n%s", f, err, stderr.String())
		}
	}
	if d := cmp.Diff(strings.Split(theirs.String(), "\n"), strings.Split(string(ours), "\n")); d != "" {
		t.Errorf("CDXJ lines differ (-warcio.js +ours):\n%s", d)
	}
}

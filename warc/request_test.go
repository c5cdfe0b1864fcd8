package warc_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

// TestWriteRequest: a capture without its response is its request record and a metadata
// record concurrent to it, with the capture's lines; it has no CDXJ line (warcio.js's indexer
// finds nothing to index in it either), and gowarc (strict) and internetarchive/gowarc's warc
// verify read the file.
func TestWriteRequest(t *testing.T) {
	dir := t.TempDir()
	cdxj := filepath.Join(dir, "index.cdxj")
	w := newWriter(t, warc.Config{Dir: dir, CDXJPath: cdxj, Dedup: &warctest.MemDedup{}})
	page := capture("http://example.com/", t0, warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/html"}}, []byte("<html></html>")))
	if _, err := w.WriteCapture(page); err != nil {
		t.Fatal(err)
	}
	const big = "http://example.com/big.zip"
	c := capture(big, t0.Add(time.Second), nil)
	c.Response, c.ResponseSize, c.Outlinks = nil, 0, nil
	c.Extra = append(c.Extra, warc.Field{Name: "notFetched", Value: "type:application/zip"})
	res, err := w.WriteRequest(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.RecordID == "" || res.Status != 0 || res.PayloadDigest != "" || res.Revisit {
		t.Errorf("result %+v, want the request record's", res)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	files := warcFiles(t, dir)
	rep, err := warccheck.Validate(files[0])
	if err != nil {
		t.Fatalf("gowarc: %v", err)
	}
	var got []string
	for _, r := range rep.Records {
		if r.TargetURI != big {
			continue
		}
		got = append(got, r.Type)
		switch r.Type {
		case "request":
			if r.RecordID != res.RecordID || r.Offset != res.Offset || r.Length != res.Length || filepath.Base(files[0]) != res.Filename || len(r.ConcurrentTo) != 0 {
				t.Errorf("request record %+v, result %+v", r, res)
			}
			if b := recordBlock(t, files[0], r.Offset); string(b) != string(c.Request) {
				t.Errorf("request block %q, want %q", b, c.Request)
			}
		case "metadata":
			if d := cmp.Diff([]string{res.RecordID}, r.ConcurrentTo); d != "" {
				t.Errorf("metadata concurrent to (-want +got):\n%s", d)
			}
			want := "via: http://example.com/\r\nhopsFromSeed: L\r\nsourceSeed: http://example.com/\r\nfetchTimeMs: 12\r\nnotFetched: type:application/zip\r\n"
			if b := recordBlock(t, files[0], r.Offset); string(b) != want {
				t.Errorf("metadata block %q, want %q", b, want)
			}
		}
	}
	if d := cmp.Diff([]string{"request", "metadata"}, got); d != "" {
		t.Errorf("records of %s (-want +got):\n%s", big, d)
	}
	for _, ia := range warccheck.VerifyIA(t, files...) {
		if ia.Errors != 0 || !ia.AllRecordsRead {
			t.Errorf("warc verify: %+v", ia)
		}
	}
	if err := warccheck.CheckCDXJ(cdxj, dir); err != nil {
		t.Error(err)
	}
	compareWarcioIndex(t, dir, cdxj, files) // the page's line alone
}

func TestWriteRequestInvalid(t *testing.T) {
	w := newWriter(t, warc.Config{Dir: t.TempDir()})
	defer w.Close()
	tests := []struct {
		name string
		edit func(c *warc.Capture)
	}{
		{"empty URL", func(c *warc.Capture) { c.URL = "" }},
		{"no request", func(c *warc.Capture) { c.Request = nil }},
		{"bad extra name", func(c *warc.Capture) { c.Extra = []warc.Field{{Name: "two words", Value: "v"}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := capture("http://example.com/", t0, nil)
			tt.edit(&c)
			if _, err := w.WriteRequest(c); !errors.Is(err, warc.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

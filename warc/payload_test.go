package warc_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/warc"
)

// TestChunkedPayloadDigest writes chunked responses, well formed and not, and checks that the
// record block is the response as given, that the payload digest (in the record, the Result
// and the CDXJ line) is the digest of what could be de-chunked, and that the write never fails.
func TestChunkedPayloadDigest(t *testing.T) {
	entity := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	tests := []struct {
		name   string
		body   []byte // as on the wire
		entity []byte // the payload
	}{
		{"well formed", chunk(entity, 10), entity},
		{"one chunk", chunk(entity, 100), entity},
		{"chunk extensions and trailer", []byte("a;name=v\r\n0123456789\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: 1\r\n\r\n"), entity},
		{"upper-case hex sizes", []byte("A\r\n0123456789\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n\r\n"), entity},
		{"no last chunk", bytes.TrimSuffix(chunk(entity, 10), []byte("0\r\n\r\n")), entity},
		// chunk(entity, 10) is "a\r\n" + 10 bytes + "\r\n" per chunk: 15 bytes each.
		{"truncated inside a chunk", chunk(entity, 10)[:20], entity[:12]},
		{"truncated in a size line", chunk(entity, 10)[:16], entity[:10]},
		{"size line not hex", []byte("a\r\n0123456789\r\nzz\r\nmore\r\n0\r\n\r\n"), entity[:10]},
		{"chunk longer than its size", []byte("5\r\n0123456789\r\n0\r\n\r\n"), entity[:5]},
		{"empty", nil, nil},
		{"only the last chunk", []byte("0\r\n\r\n"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cdxj := filepath.Join(dir, "index.cdxj")
			w := newWriter(t, warc.Config{Dir: dir, CDXJPath: cdxj, Dedup: newMemDedup()})
			resp := rawResponse(200, "OK", [][2]string{{"Content-Type", "text/plain"}, {"Transfer-Encoding", "chunked"}}, tt.body)
			res, err := w.WriteCapture(capture("http://example.com/x", t0, resp))
			if err != nil {
				t.Fatalf("WriteCapture: %v", err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			want := sha1Base32(tt.entity)
			if res.PayloadDigest != want || res.Revisit {
				t.Errorf("result %+v, want a response with payload digest %s", res, want)
			}
			reps, err := warccheck.ValidateDir(dir)
			if err != nil {
				t.Fatalf("ValidateDir: %v", err)
			}
			if err := warccheck.CheckCDXJ(cdxj, dir); err != nil {
				t.Errorf("CheckCDXJ: %v", err)
			}
			for _, r := range reps[0].Records {
				if r.RecordID != res.RecordID {
					continue
				}
				if r.PayloadDigest != want || r.BlockDigest != sha1Base32(resp) {
					t.Errorf("record digests payload %s block %s, want %s and %s (the response as given)", r.PayloadDigest, r.BlockDigest, want, sha1Base32(resp))
				}
				if got := recordBlock(t, reps[0].Path, r.Offset); !bytes.Equal(got, resp) {
					t.Errorf("record block %q, want the response as given %q", got, resp)
				}
			}
		})
	}
}

// TestChunkingsDeduplicate writes one gzip-encoded page served with three chunk sizes and once
// with Content-Length: the first capture is a response, the others revisits of it, and every
// file passes internetarchive/gowarc's warc verify and gowarc's (nlnwa) validation.
func TestChunkingsDeduplicate(t *testing.T) {
	var page strings.Builder
	for i := range 400 {
		fmt.Fprintf(&page, "<p>item %d: %d</p>\n", i, i*i%1013)
	}
	gz := gzipBytes(t, []byte(page.String()))
	headers := func(extra [2]string) [][2]string {
		return [][2]string{{"Content-Type", "text/html"}, {"Content-Encoding", "gzip"}, extra}
	}
	chunked := [2]string{"Transfer-Encoding", "chunked"}
	bodies := []struct {
		name    string
		headers [][2]string
		body    []byte
	}{
		{"chunks of 1000", headers(chunked), chunk(gz, 1000)},
		{"chunks of 4096", headers(chunked), chunk(gz, 4096)},
		{"chunks of 7", headers(chunked), chunk(gz, 7)},
		{"content-length", headers([2]string{"Content-Length", fmt.Sprint(len(gz))}), gz},
	}
	dir := t.TempDir()
	cdxj := filepath.Join(dir, "index.cdxj")
	w := newWriter(t, warc.Config{Dir: dir, CDXJPath: cdxj, Dedup: newMemDedup()})
	var got []string
	for i, b := range bodies {
		res, err := w.WriteCapture(capture(fmt.Sprintf("http://example.com/page?chunking=%d", i), t0, rawResponse(200, "OK", b.headers, b.body)))
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		kind := "response"
		if res.Revisit {
			kind = "revisit"
		}
		got = append(got, b.name+": "+kind+" "+res.PayloadDigest)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d := sha1Base32(gz)
	want := []string{"chunks of 1000: response " + d, "chunks of 4096: revisit " + d, "chunks of 7: revisit " + d, "content-length: revisit " + d}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("captures\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := warccheck.ValidateDir(dir); err != nil {
		t.Fatalf("ValidateDir: %v", err)
	}
	if err := warccheck.CheckCDXJ(cdxj, dir); err != nil {
		t.Fatalf("CheckCDXJ: %v", err)
	}
	data, err := os.ReadFile(cdxj)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := warccheck.ParseCDXJ(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if l.URL != warc.ConfigURI && "sha1:"+l.Digest != d {
			t.Errorf("CDXJ line for %s has digest %s, want %s", l.URL, l.Digest, d)
		}
	}
	files := warcFiles(t, dir)
	reps := warccheck.VerifyIA(t, files...)
	if len(reps) != 1 || reps[0].Records != 2+4*3 {
		t.Errorf("warc verify read %+v, want one file of 14 records", reps)
	}
}

package warc_test

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

// TestChunkedPayloadDigest writes a response for every way a chunked body can end or break,
// its body as amber's fetcher stores it, and checks its WARC-Payload-Digest (in the record, the
// Result and the CDXJ line) against the rule of chunkedPayload (docs/warc.md): the de-chunked
// entity body when the head declares chunked alone and the framing is complete, else the body
// as stored. Every file is then read by the three readers: nlnwa/gowarc (warccheck: valid,
// except where gowarc refuses the head), warcio.js (which computes the digest written, or
// where it reads another payload, the one given) and internetarchive/gowarc's warc verify
// (valid, or failing for the reason given).
func TestChunkedPayloadDigest(t *testing.T) {
	entity := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	wf := warctest.Chunk(entity, 10) // "a\r\n0123456789\r\n" three times, "6\r\nuvwxyz\r\n", "0\r\n\r\n"
	noLast := bytes.TrimSuffix(wf, []byte("0\r\n\r\n"))
	big := bytes.Repeat([]byte("0123456789abcdefghijklmnopqrstuvwxyz.\n"), 40_000) // 1.5 MB
	cat := func(parts ...string) []byte { return []byte(strings.Join(parts, "")) }
	chunked := []string{"chunked"}
	const (
		readFails = "failed to calculate payload digest" // warc verify: the body does not read
		headFails = "failed to read response"            // warc verify: net/http refuses the head
	)
	tests := []struct {
		name      string
		proto     string   // status line version; "HTTP/1.1" when empty
		te        []string // Transfer-Encoding fields; chunked when nil
		body      []byte   // as stored
		truncated string   // WARC-Truncated, as the fetcher sets it
		entity    []byte   // the payload when the framing is complete; nil: the body as stored
		warcio    []byte   // the payload warcio.js reads when it is not the payload
		gowarc    string   // what gowarc refuses the record for; "": valid
		ia        string   // what warc verify fails the record for; "": valid
	}{
		// Complete chunked framing: the entity body.
		{name: "well formed", body: wf, entity: entity},
		{name: "one chunk", body: warctest.Chunk(entity, 100), entity: entity},
		{name: "upper-case hex sizes", body: cat("A\r\n0123456789\r\n1A\r\n", string(entity[10:]), "\r\n0\r\n\r\n"), entity: entity},
		{name: "chunk extensions", body: cat("a;name=value\r\n0123456789\r\n1a;q=\"x;y\"\r\n", string(entity[10:]), "\r\n0;last\r\n\r\n"), entity: entity},
		{name: "white space after a size", body: cat("a \r\n0123456789\r\n1a\t\r\n", string(entity[10:]), "\r\n0\r\n\r\n"), entity: entity},
		{name: "only the last chunk", body: []byte("0\r\n\r\n"), entity: []byte{}},
		// Past the 1 MiB a response keeps in memory (the rest spooled to a file).
		{name: "well formed, past memory", body: warctest.Chunk(big, 100_000), entity: big},
		{name: "not chunked, past memory", te: []string{}, body: big},
		{name: "cut short, past memory", body: warctest.Chunk(big, 100_000)[:1_300_000], truncated: "disconnect", ia: readFails,
			warcio: big[:1_200_000+99_885]}, // the whole chunks and what came of the last
		{name: "bytes after the last chunk", body: cat(string(wf), "HTTP/1.1 200 OK\r\n"), entity: entity},
		{name: "Transfer-Encoding in capitals", te: []string{"Chunked"}, body: wf, entity: entity,
			warcio: wf}, // de-chunks only "chunked", exactly
		{name: "trailer fields", body: cat(string(noLast), "0\r\nX-Checksum: 1\r\nX-More: 2\r\n\r\n"), entity: entity,
			warcio: cat(string(entity), "X-Checksum: 1\r\nX-More: 2\r\n\r\n")}, // wants CRLF after the last chunk, passes the rest through
		{name: "size line of 64 bytes or more", body: cat("a;", strings.Repeat("x", 70), "\r\n0123456789\r\n", string(noLast[15:]), "0\r\n\r\n"), entity: entity,
			warcio: cat("a;", strings.Repeat("x", 70), "\r\n0123456789\r\n", string(noLast[15:]), "0\r\n\r\n")}, // reads 64 bytes of it as the first line, falls back

		// A head that does not declare chunked alone: the body as stored.
		{name: "gzip, chunked", te: []string{"gzip, chunked"}, body: wf,
			gowarc: "unsupported transfer encoding", ia: headFails},
		{name: "two Transfer-Encoding fields", te: []string{"chunked", "chunked"}, body: wf,
			gowarc: "too many transfer encodings", ia: headFails},
		{name: "HTTP/1.0", proto: "HTTP/1.0", te: chunked, body: wf,
			warcio: entity}, // de-chunks whatever the version

		// Framing that breaks or ends early: the body as stored.
		{name: "empty body", body: nil, truncated: "disconnect", ia: readFails},
		{name: "no last chunk", body: noLast, truncated: "disconnect", ia: readFails,
			warcio: entity},
		{name: "no CRLF after the last chunk", body: cat(string(noLast), "0\r\n"), truncated: "disconnect", ia: readFails,
			warcio: entity},
		{name: "trailer section cut short", body: cat(string(noLast), "0\r\nX-Checksum: 1\r\n"), truncated: "disconnect", ia: readFails,
			warcio: cat(string(entity), "X-Checksum: 1\r\n")},
		{name: "cut in the first chunk", body: wf[:8], truncated: "disconnect", ia: readFails},
		{name: "cut in a later chunk", body: wf[:20], truncated: "disconnect", ia: readFails,
			warcio: entity[:12]},
		{name: "cut in a size line", body: wf[:16], truncated: "disconnect", ia: readFails,
			warcio: entity[:10]},
		{name: "size larger than the body", body: []byte("400\r\n<p>a chunk announced as 1,024 bytes</p>\n"), truncated: "disconnect", ia: readFails},
		{name: "size larger than the body, after a chunk", body: cat("a\r\n0123456789\r\n400\r\nabcdef"), truncated: "disconnect", ia: readFails,
			warcio: entity[:16]},
		{name: "bad size line", body: []byte("zz\r\n"), truncated: "unspecified", ia: readFails},
		{name: "bad size line after a chunk", body: cat("a\r\n0123456789\r\nzz\r\n"), truncated: "unspecified", ia: readFails,
			warcio: cat("0123456789zz\r\n")}, // keeps the chunks before the break, passes the rest through
		{name: "chunk longer than its size", body: []byte("5\r\n0123456789\r\n"), truncated: "unspecified", ia: readFails},
		{name: "chunk longer than its size, after a chunk", body: cat("a\r\n0123456789\r\n5\r\nabcdefghij\r\n"), truncated: "unspecified", ia: readFails,
			warcio: cat("0123456789abcdefghij\r\n")}, // drops the broken chunk's size line
		{name: "bare LF line endings", body: []byte("a\n0123456789\n0\n\n"), ia: readFails},
		{name: "bare LF after the sizes only", body: cat("a\n0123456789\r\n1a\n", string(entity[10:]), "\r\n0\n\r\n"), ia: readFails,
			warcio: entity},
		{name: "white space before an extension", body: cat("a ;x=1\r\n0123456789\r\n", string(noLast[15:]), "0\r\n\r\n"), ia: readFails,
			warcio: entity}, // RFC 9112 allows it, net/http does not
	}
	type written struct {
		dir, file  string
		resp       []byte
		res        warc.Result
		payload    string // the digest the rule gives
		warcioWant string // the digest warcio.js computes
	}
	out := make([]written, len(tests))
	var files []string
	for i, tt := range tests {
		dir := t.TempDir()
		proto, te := cmp.Or(tt.proto, "HTTP/1.1"), tt.te
		if te == nil {
			te = chunked
		}
		headers := [][2]string{{"Content-Type", "text/plain"}}
		for _, v := range te {
			headers = append(headers, [2]string{"Transfer-Encoding", v})
		}
		resp := warctest.RawResponse(200, "OK", headers, tt.body)
		resp = append([]byte(proto), resp[len("HTTP/1.1"):]...)
		w := newWriter(t, warc.Config{Dir: dir, CDXJPath: filepath.Join(dir, "index.cdxj"), Dedup: &warctest.MemDedup{}})
		c := capture("http://example.com/x", t0, resp)
		c.Truncated = tt.truncated
		res, err := w.WriteCapture(c)
		if err != nil {
			t.Fatalf("%s: WriteCapture: %v", tt.name, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		payload := tt.body
		if tt.entity != nil {
			payload = tt.entity
		}
		wr := payload
		if tt.warcio != nil {
			wr = tt.warcio
		}
		f := warcFiles(t, dir)
		if len(f) != 1 {
			t.Fatalf("%s: %d WARC files", tt.name, len(f))
		}
		out[i] = written{dir, f[0], resp, res, warctest.Digest(payload), warctest.Digest(wr)}
		files = append(files, f[0])
	}
	byFile := map[string]warccheck.WarcioPayload{}
	for _, p := range warccheck.WarcioPayloads(t, files...) {
		byFile[p.File] = p
	}
	ia, err := warccheck.RunIA(warccheck.IAPath(t), files...)
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := out[i]
			if o.res.PayloadDigest != o.payload || o.res.Revisit {
				t.Errorf("result %+v, want a response with payload digest %s", o.res, o.payload)
			}
			reps, err := warccheck.ValidateDir(o.dir)
			switch {
			case tt.gowarc == "" && err != nil:
				t.Errorf("gowarc (warccheck): %v", err)
			case tt.gowarc != "" && (err == nil || !strings.Contains(err.Error(), tt.gowarc)):
				t.Errorf("gowarc (warccheck): %v, want it to refuse the record: %s", err, tt.gowarc)
			}
			if tt.gowarc == "" {
				if err := warccheck.CheckCDXJ(filepath.Join(o.dir, "index.cdxj"), o.dir); err != nil {
					t.Errorf("CheckCDXJ: %v", err)
				}
			}
			found := false
			for _, r := range reps[0].Records {
				if r.RecordID != o.res.RecordID {
					continue
				}
				found = true
				if r.PayloadDigest != o.payload || r.BlockDigest != warctest.Digest(o.resp) || r.Truncated != tt.truncated {
					t.Errorf("record: payload digest %s, block digest %s, WARC-Truncated %q; want %s, %s (the response as given), %q",
						r.PayloadDigest, r.BlockDigest, r.Truncated, o.payload, warctest.Digest(o.resp), tt.truncated)
				}
				if got := recordBlock(t, reps[0].Path, r.Offset); !bytes.Equal(got, o.resp) {
					t.Errorf("record block %q, want the response as given %q", got, o.resp)
				}
			}
			if !found {
				t.Errorf("no record %s in %s", o.res.RecordID, o.file)
			}
			p, ok := byFile[o.file]
			switch {
			case !ok:
				t.Errorf("warcio.js read no response record in %s", o.file)
			case p.Declared != o.payload || p.Computed != o.warcioWant:
				t.Errorf("warcio.js: record digest %s, computed %s; want %s and %s", p.Declared, p.Computed, o.payload, o.warcioWant)
			}
			problems := strings.Join(ia[i].Problems, "; ")
			switch {
			case tt.ia == "" && !ia[i].OK():
				t.Errorf("warc verify: %+v, want valid", ia[i])
			case tt.ia != "" && (ia[i].OK() || !strings.Contains(problems, tt.ia) || len(ia[i].Problems) != 1):
				t.Errorf("warc verify: %+v, want one problem: %s", ia[i], tt.ia)
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
	gz := warctest.Gzip(t, []byte(page.String()))
	headers := func(extra [2]string) [][2]string {
		return [][2]string{{"Content-Type", "text/html"}, {"Content-Encoding", "gzip"}, extra}
	}
	chunked := [2]string{"Transfer-Encoding", "chunked"}
	bodies := []struct {
		name    string
		headers [][2]string
		body    []byte
	}{
		{"chunks of 1000", headers(chunked), warctest.Chunk(gz, 1000)},
		{"chunks of 4096", headers(chunked), warctest.Chunk(gz, 4096)},
		{"chunks of 7", headers(chunked), warctest.Chunk(gz, 7)},
		{"content-length", headers([2]string{"Content-Length", fmt.Sprint(len(gz))}), gz},
	}
	dir := t.TempDir()
	cdxj := filepath.Join(dir, "index.cdxj")
	w := newWriter(t, warc.Config{Dir: dir, CDXJPath: cdxj, Dedup: &warctest.MemDedup{}})
	var got []string
	for i, b := range bodies {
		res, err := w.WriteCapture(capture(fmt.Sprintf("http://example.com/page?chunking=%d", i), t0, warctest.RawResponse(200, "OK", b.headers, b.body)))
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
	d := warctest.Digest(gz)
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

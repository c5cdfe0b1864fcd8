package warc_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

// TestReadRecord opens records the Writer wrote, and uncompressed ones as other tools write
// them, and reads their HTTP heads, bodies as recorded and payloads (de-chunked, content
// coding kept).
func TestReadRecord(t *testing.T) {
	dir := t.TempDir()
	w := newWriter(t, warc.Config{Dir: dir, Dedup: &warctest.MemDedup{}})
	write := func(c warc.Capture) warc.Result {
		t.Helper()
		res, err := w.WriteCapture(c)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	page := []byte("<html>hello</html>")
	plainResp := warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/html"}, {"content-length", fmt.Sprint(len(page))},
		{"Set-Cookie", "a=1"}, {"Set-Cookie", "b=2"}}, page)
	plain := write(capture("http://example.com/", t0, plainResp))
	revisit := write(capture("http://example.com/copy", t0.Add(time.Second), plainResp))

	zipped := warctest.Gzip(t, bytes.Repeat([]byte("compressible text "), 100))
	chunkedResp := warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/plain"}, {"Content-Encoding", "gzip"},
		{"Transfer-Encoding", "chunked"}}, warctest.Chunk(zipped, 7))
	chunked := write(capture("http://example.com/chunked", t0, chunkedResp))

	broken := warctest.RawResponse(200, "OK", [][2]string{{"Transfer-Encoding", "chunked"}}, []byte("5\r\nhello\r\n7\r\nwor"))
	brokenCapture := capture("http://example.com/broken", t0, broken)
	brokenCapture.Truncated = "disconnect"
	brokenRes := write(brokenCapture)

	// Framing no browser de-chunks: the body is the payload as stored.
	gzChunked := warctest.RawResponse(200, "OK", [][2]string{{"Transfer-Encoding", "gzip, chunked"}}, warctest.Chunk([]byte("abc"), 2))
	gzChunkedRes := write(capture("http://example.com/gzchunked", t0, gzChunked))
	http10 := []byte("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + string(warctest.Chunk([]byte("xyz"), 2)))
	http10Res := write(capture("http://example.com/http10", t0, http10))

	big := make([]byte, 300<<10)
	for i := range big {
		big[i] = byte('a' + i*7%26)
	}
	bigResp := warctest.RawResponse(200, "OK", [][2]string{{"Transfer-Encoding", "chunked"}}, warctest.Chunk(big, 1000))
	bigRes := write(capture("http://example.com/big", t0, bigResp))

	notModified := capture("http://example.com/nm", t0.Add(time.Hour), warctest.RawResponse(304, "Not Modified", nil, nil))
	notModified.NotModified = &warc.Original{URI: "http://example.com/", Date: t0, PayloadDigest: plain.PayloadDigest}
	nm := write(notModified)

	shot, err := w.WriteResource("urn:screenshot:http://example.com/", "image/png", t0, []byte("png bytes"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := warcFiles(t, dir)[0]

	folded := "HTTP/1.0 404 Not Found\r\nX-Long: one\r\n two\r\n\r\nno"
	other := "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: <http://example.org/x>\r\n" +
		"WARC-Date: 2025-12-31T23:59:59Z\r\nContent-Type: application/http;msgtype=response\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n\r\n", len(folded)) + folded + "\r\n\r\n"
	huge := "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("x", 300<<10) + "\r\n\r\nbody"
	hugeRec := "WARC/1.1\r\nWARC-Type: response\r\nWARC-Date: 2025-12-31T23:59:59Z\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n\r\n", len(huge)) + huge + "\r\n\r\n"
	otherPath := filepath.Join(dir, "other.warc")
	if err := os.WriteFile(otherPath, []byte("junk"+other+hugeRec), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name           string
		path           string
		offset, length int64
		wantType       string
		wantCT         string
		wantHTTP       *warc.HTTPHead
		wantPayload    []byte
		wantBody       []byte // when it differs from the payload
		wantTruncated  string
		wantRefersTo   string
		wantErr        bool
	}{
		{name: "response", path: path, offset: plain.Offset, length: plain.Length, wantType: "response",
			wantCT: "application/http; msgtype=response",
			wantHTTP: &warc.HTTPHead{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Fields: []warc.Field{
				{Name: "Content-Type", Value: "text/html"}, {Name: "content-length", Value: fmt.Sprint(len(page))},
				{Name: "Set-Cookie", Value: "a=1"}, {Name: "Set-Cookie", Value: "b=2"}}},
			wantPayload: page},
		{name: "length unknown", path: path, offset: plain.Offset, wantType: "response",
			wantCT: "application/http; msgtype=response",
			wantHTTP: &warc.HTTPHead{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Fields: []warc.Field{
				{Name: "Content-Type", Value: "text/html"}, {Name: "content-length", Value: fmt.Sprint(len(page))},
				{Name: "Set-Cookie", Value: "a=1"}, {Name: "Set-Cookie", Value: "b=2"}}},
			wantPayload: page},
		{name: "revisit: the headers, no payload", path: path, offset: revisit.Offset, length: revisit.Length, wantType: "revisit",
			wantCT: "application/http; msgtype=response",
			wantHTTP: &warc.HTTPHead{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Fields: []warc.Field{
				{Name: "Content-Type", Value: "text/html"}, {Name: "content-length", Value: fmt.Sprint(len(page))},
				{Name: "Set-Cookie", Value: "a=1"}, {Name: "Set-Cookie", Value: "b=2"}}},
			wantPayload: []byte{}, wantRefersTo: "http://example.com/"},
		{name: "chunked and gzip: de-chunked, still gzip", path: path, offset: chunked.Offset, length: chunked.Length,
			wantType: "response", wantCT: "application/http; msgtype=response",
			wantHTTP: &warc.HTTPHead{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Fields: []warc.Field{
				{Name: "Content-Type", Value: "text/plain"}, {Name: "Content-Encoding", Value: "gzip"},
				{Name: "Transfer-Encoding", Value: "chunked"}}},
			wantPayload: zipped, wantBody: warctest.Chunk(zipped, 7)},
		{name: "broken chunks end the payload", path: path, offset: brokenRes.Offset, length: brokenRes.Length,
			wantType: "response", wantCT: "application/http; msgtype=response", wantTruncated: "disconnect",
			wantHTTP: &warc.HTTPHead{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Fields: []warc.Field{
				{Name: "Transfer-Encoding", Value: "chunked"}}},
			wantPayload: []byte("hellowor"), wantBody: []byte("5\r\nhello\r\n7\r\nwor")},
		{name: "gzip, chunked: as stored", path: path, offset: gzChunkedRes.Offset, length: gzChunkedRes.Length,
			wantType: "response", wantCT: "application/http; msgtype=response",
			wantHTTP: &warc.HTTPHead{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Fields: []warc.Field{
				{Name: "Transfer-Encoding", Value: "gzip, chunked"}}},
			wantPayload: warctest.Chunk([]byte("abc"), 2)},
		{name: "chunked in HTTP/1.0: as stored", path: path, offset: http10Res.Offset, length: http10Res.Length,
			wantType: "response", wantCT: "application/http; msgtype=response",
			wantHTTP: &warc.HTTPHead{Proto: "HTTP/1.0", Status: 200, Reason: "OK", Fields: []warc.Field{
				{Name: "Transfer-Encoding", Value: "chunked"}}},
			wantPayload: warctest.Chunk([]byte("xyz"), 2)},
		{name: "large chunked", path: path, offset: bigRes.Offset, length: bigRes.Length, wantType: "response",
			wantCT: "application/http; msgtype=response",
			wantHTTP: &warc.HTTPHead{Proto: "HTTP/1.1", Status: 200, Reason: "OK", Fields: []warc.Field{
				{Name: "Transfer-Encoding", Value: "chunked"}}},
			wantPayload: big, wantBody: warctest.Chunk(big, 1000)},
		{name: "server-not-modified revisit: no block", path: path, offset: nm.Offset, length: nm.Length, wantType: "revisit",
			wantPayload: []byte{}, wantRefersTo: "http://example.com/"},
		{name: "resource", path: path, offset: shot.Offset, length: shot.Length, wantType: "resource", wantCT: "image/png",
			wantPayload: []byte("png bytes")},
		{name: "uncompressed, folded field", path: otherPath, offset: 4, length: int64(len(other)), wantType: "response",
			wantCT: "application/http;msgtype=response",
			wantHTTP: &warc.HTTPHead{Proto: "HTTP/1.0", Status: 404, Reason: "Not Found", Fields: []warc.Field{
				{Name: "X-Long", Value: "one two"}}},
			wantPayload: []byte("no")},
		{name: "HTTP head over 256 KiB", path: otherPath, offset: int64(4 + len(other)), wantErr: true},
		{name: "not at a record", path: otherPath, offset: 0, wantErr: true},
		{name: "past the end", path: path, offset: 1 << 40, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Open(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rec, err := warc.ReadRecord(f, tc.offset, tc.length)
			if tc.wantErr {
				if !errors.Is(err, warc.ErrIndex) {
					t.Errorf("err = %v, want ErrIndex", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.Type != tc.wantType || rec.ContentType != tc.wantCT || rec.Truncated != tc.wantTruncated || rec.RefersToURI != tc.wantRefersTo {
				t.Errorf("type %q, content type %q, truncated %q, refers to %q", rec.Type, rec.ContentType, rec.Truncated, rec.RefersToURI)
			}
			if d := cmp.Diff(tc.wantHTTP, rec.HTTP); d != "" {
				t.Errorf("HTTP (-want +got):\n%s", d)
			}
			size := rec.PayloadSize()
			payload, err := io.ReadAll(rec.Payload())
			if err != nil {
				t.Fatal(err)
			}
			if chunked := rec.HTTP != nil && rec.HTTP.Proto == "HTTP/1.1" && rec.HTTP.Get("Transfer-Encoding") == "chunked"; chunked && size != -1 || !chunked && size != int64(len(payload)) {
				t.Errorf("PayloadSize %d for a payload of %d bytes (chunked: %v)", size, len(payload), chunked)
			}
			if !bytes.Equal(payload, tc.wantPayload) {
				t.Errorf("payload %d bytes %.60q, want %d bytes %.60q", len(payload), payload, len(tc.wantPayload), tc.wantPayload)
			}
			want := tc.wantBody
			if want == nil {
				want = tc.wantPayload
			}
			// Opened again: the body as recorded.
			rec, err = warc.ReadRecord(f, tc.offset, tc.length)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(rec.Body())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, want) {
				t.Errorf("body %d bytes %.60q, want %d bytes %.60q", len(body), body, len(want), want)
			}
		})
	}
}

// TestHTTPHeadGet finds a field in any letter case, the first of several.
func TestHTTPHeadGet(t *testing.T) {
	h := &warc.HTTPHead{Fields: []warc.Field{{Name: "set-cookie", Value: "a"}, {Name: "Set-Cookie", Value: "b"}}}
	for _, tc := range []struct{ name, want string }{{"Set-Cookie", "a"}, {"SET-COOKIE", "a"}, {"Location", ""}} {
		if got := h.Get(tc.name); got != tc.want {
			t.Errorf("Get(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func FuzzReadRecord(f *testing.F) {
	f.Add([]byte("WARC/1.1\r\nWARC-Type: response\r\nWARC-Date: 2026-01-01T00:00:00Z\r\nContent-Length: 48\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n"))
	f.Add(warctest.Gzip(f, []byte("WARC/1.1\r\nWARC-Type: resource\r\nWARC-Date: 2026-01-01T00:00:00Z\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n")))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := warc.ReadRecord(bytes.NewReader(b), 0, int64(len(b)))
		if err != nil {
			if !errors.Is(err, warc.ErrIndex) {
				t.Errorf("err %v does not wrap ErrIndex", err)
			}
			return
		}
		if rec.Type == "" || rec.Date.IsZero() {
			t.Errorf("record %+v without type or date", rec.RecordHead)
		}
		// A corrupt gzip member is an error reading the payload; it must not panic or
		// produce more than the input holds.
		n, _ := io.Copy(io.Discard, rec.Payload())
		if n > int64(len(b)) && !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) { // gzip may expand
			t.Errorf("payload of %d bytes from %d bytes of input", n, len(b))
		}
	})
}

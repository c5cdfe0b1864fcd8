package fetch

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadResponse: a recorded response reads as the fetch that recorded it read it: the same
// status, header fields, decoded body and truncation, and the same raw bytes.
func TestReadResponse(t *testing.T) {
	gz := gzipString("<p>hello gzip</p>")
	chunkedGzip := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" +
		chunk(gz[:7]) + chunk(gz[7:]) + "0\r\nX-Trailer: 1\r\n\r\n"
	tests := []struct {
		name      string
		resp      string
		truncated string // given, the record's WARC-Truncated
		cfg       Config
		// want
		kind          ErrorKind // of the error; 0: none
		status        int
		header        http.Header // subset checked
		body          string
		wantTruncated string
		raw           string // the raw response kept; "": resp
	}{
		{
			name:   "content-length",
			resp:   "HTTP/1.1 200 OK\r\nContent-Type: text/css\r\nContent-Length: 14\r\n\r\nbody { x: 1 }\n",
			status: 200, header: http.Header{"Content-Type": {"text/css"}}, body: "body { x: 1 }\n",
		},
		{
			name:   "chunked and gzip, with trailers",
			resp:   chunkedGzip,
			status: 200, header: http.Header{"Content-Encoding": {"gzip"}, "X-Trailer": nil}, body: "<p>hello gzip</p>",
		},
		{
			name:   "interim response first",
			resp:   "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
			status: 200, body: "ok",
		},
		{
			name:   "http/1.0 close-delimited",
			resp:   "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<p>until close</p>",
			status: 200, body: "<p>until close</p>",
		},
		{
			name:   "body shorter than its content-length",
			resp:   "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort",
			status: 200, body: "short", wantTruncated: "disconnect",
		},
		{
			name:   "chunked framing that breaks",
			resp:   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n",
			status: 200, body: "abc", wantTruncated: "unspecified",
		},
		{
			name:      "truncated when recorded",
			resp:      "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\ncut at the limit",
			truncated: "length",
			status:    200, body: "cut at the limit", wantTruncated: "length",
		},
		{
			name:   "over MaxResponseSize",
			resp:   "HTTP/1.1 200 OK\r\nContent-Length: 26\r\n\r\nabcdefghijklmnopqrstuvwxyz",
			cfg:    Config{MaxResponseSize: 48},
			status: 200, body: "abcdefghi", wantTruncated: "length",
			raw: "HTTP/1.1 200 OK\r\nContent-Length: 26\r\n\r\nabcdefghi",
		},
		{
			name:   "spilled to a file",
			resp:   "HTTP/1.1 200 OK\r\nContent-Length: 65536\r\n\r\n" + strings.Repeat("0123456789abcdef", 4096),
			cfg:    Config{SpillThreshold: 4 << 10},
			status: 200, body: strings.Repeat("0123456789abcdef", 4096),
		},
		{name: "not a response", resp: "<html>a page</html>\n", kind: Protocol},
		{name: "nothing", resp: "", kind: Broken},
		{name: "head cut short", resp: "HTTP/1.1 200 OK\r\nContent-Ty", kind: Broken},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.cfg.TempDir = dir
			c := newTestClient(t, tc.cfg)
			ex, err := c.ReadResponse(t.Context(), "http://example.test/page", strings.NewReader(tc.resp), tc.truncated)
			if tc.kind != 0 {
				var fe *Error
				if !errors.As(err, &fe) || fe.Kind != tc.kind {
					t.Fatalf("err = %v, want a %v *Error", err, tc.kind)
				}
				if files, _ := os.ReadDir(dir); len(files) != 0 {
					t.Errorf("files left in TempDir: %v", files)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			if ex.URL != "http://example.test/page" || ex.Method != http.MethodGet || ex.StatusCode != tc.status || ex.Truncated != tc.wantTruncated {
				t.Errorf("URL %q, method %q, status %d, truncated %q; want status %d, truncated %q",
					ex.URL, ex.Method, ex.StatusCode, ex.Truncated, tc.status, tc.wantTruncated)
			}
			for k, v := range tc.header {
				if d := cmp.Diff(v, ex.Header[k]); d != "" {
					t.Errorf("header %s (-want +got):\n%s", k, d)
				}
			}
			body, err := ex.ReadBody(1 << 20)
			if err != nil || string(body) != tc.body {
				t.Errorf("ReadBody = %q, %v; want %q", body, err, tc.body)
			}
			want := tc.raw
			if want == "" {
				want = tc.resp
			}
			if raw := readAll(t, ex.Response); string(raw) != want {
				t.Errorf("raw response %q, want %q", raw, want)
			}
			if ex.ResponseSize() != int64(len(want)) {
				t.Errorf("ResponseSize = %d, want %d", ex.ResponseSize(), len(want))
			}
			if err := ex.Close(); err != nil {
				t.Fatal(err)
			}
			if files, _ := os.ReadDir(dir); len(files) != 0 {
				t.Errorf("files left in TempDir after Close: %v", files)
			}
		})
	}
}

// TestReadResponseReader: a reader that fails mid-body truncates the exchange (disconnect);
// the Exchange keeps what was read.
func TestReadResponseReader(t *testing.T) {
	c := newTestClient(t, Config{})
	r := io.MultiReader(strings.NewReader("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"), errAfter{})
	ex, err := c.ReadResponse(t.Context(), "http://example.test/", r, "")
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	if body, _ := ex.ReadBody(100); ex.Truncated != "disconnect" || string(body) != "abc" {
		t.Errorf("truncated %q, body %q; want disconnect, abc", ex.Truncated, body)
	}
}

type errAfter struct{}

func (errAfter) Read([]byte) (int, error) { return 0, errors.New("read error") }

func chunk(s string) string { return fmt.Sprintf("%x\r\n%s\r\n", len(s), s) }

package warc

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// TestChunkedAlone checks the writer's decision over the stored bytes (headChunkedAlone) and
// the reader's over the parsed head (HTTPHead.chunkedAlone) against the same table: the digest
// a record is written with and the one it is read back with follow one rule.
func TestChunkedAlone(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\ntransfer-encoding:CHUNKED\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding :  chunked  \r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nThis line is not a field\r\nTransfer-Encoding: chunked\r\n\r\n", true},
		{"HTTP/1.2 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", true},
		// Codings before chunked, several fields, empty list elements: net/http de-chunks none of
		// them (and warcio.js only the exact value "chunked").
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, \r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n", false},
		// Transfer-Encoding means nothing in HTTP/1.0 (RFC 9112 §6.1; net/http ignores it).
		{"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false},
		{"HTTP/2 200\r\nTransfer-Encoding: chunked\r\n\r\n", false},
		{"HTTP/1.x 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nX-Transfer-Encoding: chunked\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Encoding: chunked\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", false},
		{"HTTP/1.1 200 OK\n\n", false},
		// ASCII case folding only, as net/http compares: the Kelvin sign is no k.
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chun\u212aed\r\n\r\n", false},
		{"HTTP/0.9 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false},
		{"HTTP/2.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", true},
	}
	for _, tt := range tests {
		if got := headChunkedAlone([]byte(tt.header)); got != tt.want {
			t.Errorf("headChunkedAlone(%q) = %v, want %v", tt.header, got, tt.want)
		}
		head, err := readHTTPHead(bufio.NewReader(strings.NewReader(tt.header)), &RecordHead{}, true)
		if err != nil {
			t.Errorf("readHTTPHead(%q): %v", tt.header, err)
			continue
		}
		if got := head.chunkedAlone(); got != tt.want {
			t.Errorf("HTTPHead.chunkedAlone(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

// checkPlainChunks fails if plainChunks takes body and digests it otherwise than net/http's
// reading does (chunkedPayload); it reports whether plainChunks took it.
func checkPlainChunks(t testing.TB, body []byte) bool {
	t.Helper()
	got, ok := plainChunks(body)
	if !ok {
		return false
	}
	want, err := chunkedPayload(bytes.NewReader(body), payloadDigest{digest: "stored"})
	if err != nil || got != want {
		t.Fatalf("plainChunks(%q) = %+v, net/http reads %+v (%v)", body, got, want, err)
	}
	return true
}

// TestPlainChunks: the fast path takes the plain chunked bodies and digests them as net/http
// de-chunks them; everything else (extensions, spaces, bare LF, trailers, bytes after the
// end, a short or long chunk, 16 digits) is left to net/http.
func TestPlainChunks(t *testing.T) {
	tests := []struct {
		body  string
		plain bool
	}{
		{"0\r\n\r\n", true},
		{"5\r\nhello\r\n0\r\n\r\n", true},
		{"5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n", true},
		{"A\r\n0123456789\r\n0\r\n\r\n", true},
		{"000a\r\n0123456789\r\n00\r\n\r\n", true},
		{"5;ext=1\r\nhello\r\n0\r\n\r\n", false},
		{"5 \r\nhello\r\n0\r\n\r\n", false},
		{"5\nhello\r\n0\r\n\r\n", false},
		{"5\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n", false},
		{"5\r\nhello\r\n0\r\n\r\nextra", false},
		{"5\r\nhell\r\n0\r\n\r\n", false},
		{"5\r\nhello!\r\n0\r\n\r\n", false},
		{"5\r\nhello\r\n", false},
		{"5\r\nhello\r\n0\r\n", false},
		{"0000000000000005\r\nhello\r\n0\r\n\r\n", false},
		{"\r\n5\r\nhello\r\n0\r\n\r\n", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := checkPlainChunks(t, []byte(tt.body)); got != tt.plain {
			t.Errorf("plainChunks(%q) took it: %v, want %v", tt.body, got, tt.plain)
		}
	}
}

// FuzzPlainChunks: whatever plainChunks takes, it digests as net/http de-chunks it.
func FuzzPlainChunks(f *testing.F) {
	f.Add([]byte("5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n"))
	f.Add([]byte("1\r\nx\r\n0\r\n\r\n"))
	f.Fuzz(func(t *testing.T, body []byte) { checkPlainChunks(t, body) })
}

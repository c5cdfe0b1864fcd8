// Package warctest builds the raw HTTP exchanges and the in-memory dedup index that tests of
// WARC writing and reading capture: the bytes as a server would send them (chunked, gzipped,
// fields in order), their payload digest as a WARC record carries it.
package warctest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// RawRequest is the bytes of a GET request of url as amber's fetcher sends it.
func RawRequest(url string) []byte {
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

// RawResponse is the bytes of an HTTP/1.1 response: status line, fields in order, blank line,
// body as given (already chunked or compressed by the caller when the fields say so).
func RawResponse(status int, reason string, fields [][2]string, body []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, reason)
	for _, f := range fields {
		fmt.Fprintf(&b, "%s: %s\r\n", f[0], f[1])
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// Chunk encodes body with the chunked transfer coding, n bytes a chunk, and the last chunk.
func Chunk(body []byte, n int) []byte {
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

// Gzip is body compressed as one gzip member.
func Gzip(t testing.TB, body []byte) []byte {
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

// Digest is the payload digest of b as a WARC record carries it: "sha1:" and the SHA-1 in
// base 32.
func Digest(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// MemDedup is a warc.DedupIndex in memory: the first URI and date stored for each digest.
type MemDedup struct {
	mu sync.Mutex
	m  map[string]dedupEntry
}

type dedupEntry struct {
	uri  string
	date time.Time
}

// LookupDigest returns the URI and date first stored for digest.
func (d *MemDedup) LookupDigest(digest string) (string, time.Time, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	e, ok := d.m[digest]
	return e.uri, e.date, ok, nil
}

// StoreDigest stores uri and date for digest unless one is stored already.
func (d *MemDedup) StoreDigest(digest, uri string, date time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]dedupEntry{}
	}
	if _, ok := d.m[digest]; !ok {
		d.m[digest] = dedupEntry{uri, date}
	}
	return nil
}

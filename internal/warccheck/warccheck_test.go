package warccheck_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/warc"
)

func digest(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// record renders one WARC record; Content-Length and WARC-Block-Digest are added unless given,
// and a WARC-Payload-Digest for application/http blocks.
func record(headers [][2]string, block []byte) []byte {
	var b bytes.Buffer
	b.WriteString("WARC/1.1\r\n")
	has := map[string]bool{}
	ct := ""
	for _, h := range headers {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
		has[h[0]] = true
		if h[0] == "Content-Type" {
			ct = h[1]
		}
	}
	if !has["WARC-Block-Digest"] {
		fmt.Fprintf(&b, "WARC-Block-Digest: %s\r\n", digest(block))
	}
	if !has["WARC-Payload-Digest"] && strings.HasPrefix(ct, "application/http") {
		if i := bytes.Index(block, []byte("\r\n\r\n")); i >= 0 {
			fmt.Fprintf(&b, "WARC-Payload-Digest: %s\r\n", digest(block[i+4:]))
		}
	}
	if !has["Content-Length"] {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(block))
	}
	b.WriteString("\r\n")
	b.Write(block)
	b.WriteString("\r\n\r\n")
	return b.Bytes()
}

func gz(parts ...[]byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	for _, p := range parts {
		zw.Write(p)
	}
	zw.Close()
	return b.Bytes()
}

const (
	infoID = "<urn:uuid:00000000-0000-4000-8000-000000000001>"
	respID = "<urn:uuid:00000000-0000-4000-8000-000000000002>"
	reqID  = "<urn:uuid:00000000-0000-4000-8000-000000000003>"
	date   = "2024-05-06T07:08:09Z"
)

var (
	warcinfo = record([][2]string{{"WARC-Type", "warcinfo"}, {"WARC-Record-ID", infoID}, {"WARC-Date", date},
		{"Content-Type", "application/warc-fields"}}, []byte("software: test\r\n"))
	httpResp = []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello")
	response = record([][2]string{{"WARC-Type", "response"}, {"WARC-Record-ID", respID}, {"WARC-Date", date},
		{"WARC-Target-URI", "http://example.com/"}, {"WARC-Warcinfo-ID", infoID},
		{"Content-Type", "application/http; msgtype=response"}}, httpResp)
	request = record([][2]string{{"WARC-Type", "request"}, {"WARC-Record-ID", reqID}, {"WARC-Date", date},
		{"WARC-Target-URI", "http://example.com/"}, {"WARC-Concurrent-To", respID},
		{"Content-Type", "application/http; msgtype=request"}}, []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"))
)

func TestValidate(t *testing.T) {
	revisit := func(extra ...[2]string) []byte {
		h := [][2]string{{"WARC-Type", "revisit"}, {"WARC-Record-ID", "<urn:uuid:00000000-0000-4000-8000-000000000009>"},
			{"WARC-Date", date}, {"WARC-Target-URI", "http://example.com/b"},
			{"WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"},
			{"WARC-Refers-To-Target-URI", "http://example.com/"}, {"WARC-Refers-To-Date", date},
			{"WARC-Payload-Digest", digest([]byte("hello"))}, {"Content-Type", "application/http; msgtype=response"}}
		return record(append(h, extra...), []byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"))
	}
	tests := []struct {
		name    string
		file    []byte
		wantErr string // substring of one reported problem; "" = valid
	}{
		{"valid", bytes.Join([][]byte{gz(warcinfo), gz(request), gz(response), gz(revisit())}, nil), ""},
		{"bad block digest", bytes.Join([][]byte{gz(warcinfo), gz(bytes.Replace(response, []byte("hello"), []byte("hellO"), 1))}, nil), "digest"},
		{"bad content length", bytes.Join([][]byte{gz(warcinfo), gz(bytes.Replace(response, []byte(fmt.Sprintf("Content-Length: %d", len(httpResp))), []byte(fmt.Sprintf("Content-Length: %d", len(httpResp)-1)), 1))}, nil), ""},
		{"two records in one member", bytes.Join([][]byte{gz(warcinfo), gz(request, response)}, nil), "gzip member"},
		{"warcinfo not first", bytes.Join([][]byte{gz(response), gz(warcinfo)}, nil), "first record"},
		{"dangling concurrent-to", bytes.Join([][]byte{gz(warcinfo), gz(request)}, nil), "Concurrent-To"},
		{"unknown revisit profile", bytes.Join([][]byte{gz(warcinfo), gz(bytes.Replace(revisit(), []byte("revisit/identical-payload-digest"), []byte("revisit/x-other"), 1))}, nil), "revisit profile"},
		{"revisit truncated", bytes.Join([][]byte{gz(warcinfo), gz(revisit([2]string{"WARC-Truncated", "length"}))}, nil), "WARC-Truncated"},
		{"garbage at end", append(bytes.Join([][]byte{gz(warcinfo), gz(response)}, nil), "junk"...), "bytes after"},
		{"truncated", bytes.Join([][]byte{gz(warcinfo), gz(response)[:40]}, nil), ""},
		{"not a warc", []byte("WARC/\n"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.warc.gz")
			if err := os.WriteFile(path, tt.file, 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := warccheck.Validate(path)
			valid := tt.name == "valid"
			if valid {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				if len(rep.Records) != 4 || rep.Records[2].HTTPStatus != 200 || rep.Records[3].HTTPStatus != 200 ||
					rep.Records[1].ConcurrentTo[0] != respID || rep.Records[2].Length <= 0 {
					t.Errorf("records %+v", rep.Records)
				}
				return
			}
			if !errors.Is(err, warccheck.ErrInvalid) || rep.OK() {
				t.Fatalf("Validate = %v (errors %v), want ErrInvalid", err, rep.Errors)
			}
			if tt.wantErr != "" && !strings.Contains(strings.Join(rep.Errors, "\n"), tt.wantErr) {
				t.Errorf("errors %q do not mention %q", rep.Errors, tt.wantErr)
			}
		})
	}
}

func TestCheckCDXJ(t *testing.T) {
	dir := t.TempDir()
	cdxj := filepath.Join(dir, "index.cdxj")
	w, err := warc.NewWriter(warc.Config{Dir: dir, CDXJPath: cdxj, Hostname: "h"})
	if err != nil {
		t.Fatal(err)
	}
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nbody")
	res, err := w.WriteCapture(warc.Capture{URL: "http://example.com/", Date: time.Now(), Response: bytes.NewReader(resp),
		Request: []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := warccheck.CheckCDXJ(cdxj, dir); err != nil {
		t.Fatalf("CheckCDXJ: %v", err)
	}
	good, _ := os.ReadFile(cdxj)
	off := fmt.Sprintf(`"offset":"%d"`, res.Offset)
	tests := []struct {
		name string
		line string
	}{
		{"wrong offset", strings.Replace(string(good), off, `"offset":"0"`, 1)},
		{"wrong length", strings.Replace(string(good), fmt.Sprintf(`"length":"%d"`, res.Length), fmt.Sprintf(`"length":"%d"`, res.Length+5), 1)},
		{"wrong url", strings.Replace(string(good), `"url":"http://example.com/"`, `"url":"http://example.com/x"`, 1)},
		{"wrong digest", strings.Replace(string(good), `"digest":"`, `"digest":"X`, 1)},
		{"missing file", strings.Replace(string(good), res.Filename, "nope.warc.gz", 1)},
		{"torn", strings.TrimSuffix(string(good), "\n")},
		{"not cdxj", "hello\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bad.cdxj")
			if err := os.WriteFile(p, []byte(tt.line), 0o644); err != nil {
				t.Fatal(err)
			}
			err := warccheck.CheckCDXJ(p, dir)
			if err == nil || (tt.name != "missing file" && !errors.Is(err, warccheck.ErrInvalid)) {
				t.Errorf("CheckCDXJ = %v, want an ErrInvalid error", err)
			}
		})
	}
}

func TestValidateDir(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.NewWriter(warc.Config{Dir: dir, Hostname: "h", MaxSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.WriteCapture(warc.Capture{URL: "http://example.com/", Response: bytes.NewReader([]byte("HTTP/1.1 204 No Content\r\n\r\n"))})
	if err != nil {
		t.Fatal(err)
	}
	// The screenshot lands in the next file (MaxSize 1 rotates), pointing back at the response.
	if _, err := w.WriteResource("urn:screenshot:http://example.com/", "image/png", time.Now(), []byte("png"), res.RecordID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteResource("urn:screenshot:http://example.com/2", "image/png", time.Now(), []byte("png"), "<urn:uuid:nowhere>"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	reps, err := warccheck.ValidateDir(dir)
	if len(reps) != 3 {
		t.Fatalf("%d reports, want 3", len(reps))
	}
	if !errors.Is(err, warccheck.ErrInvalid) || !strings.Contains(err.Error(), "urn:uuid:nowhere") || strings.Contains(err.Error(), res.RecordID) {
		t.Errorf("ValidateDir error %v: want only the unknown Concurrent-To reported", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.warc.gz.open"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := warccheck.ValidateDir(dir); err == nil || !strings.Contains(err.Error(), "still open") {
		t.Errorf("ValidateDir with an .open file: %v", err)
	}
}

// FuzzValidate: no input makes Validate panic.
func FuzzValidate(f *testing.F) {
	f.Add(bytes.Join([][]byte{gz(warcinfo), gz(request), gz(response)}, nil))
	f.Add(bytes.Join([][]byte{warcinfo, request, response}, nil))
	f.Add([]byte("WARC/\n"))
	f.Add(gz([]byte("WARC/1.1\r\nContent-Length: 99999999999\r\n\r\n")))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.warc.gz")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = warccheck.Validate(path)
	})
}

// TestChunkedPayloadDigest checks the payload digest of chunked responses with Validate and
// with internetarchive/gowarc's `warc verify`: for complete chunked framing both want the
// digest of the de-chunked entity body (gzip kept), and both reject the digest of the body
// with its chunk framing, which gowarc v2.0.1 computes. When the framing breaks Validate wants
// gowarc's digest of the body as stored, and warc verify fails on the read error whatever the
// digest.
func TestChunkedPayloadDigest(t *testing.T) {
	var plain bytes.Buffer
	for i := range 300 {
		fmt.Fprintf(&plain, "line %d: %d\n", i, i*i%977)
	}
	entity := gz(plain.Bytes())
	var chunked bytes.Buffer
	for rest := entity; len(rest) > 0; {
		n := min(100, len(rest))
		fmt.Fprintf(&chunked, "%x\r\n%s\r\n", n, rest[:n])
		rest = rest[n:]
	}
	chunked.WriteString("0\r\n\r\n")
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n"
	// Chunks are "64\r\n" + 100 bytes + "\r\n": 250 bytes end 34 bytes into the third one.
	truncated := chunked.Bytes()[:250]
	trailers := append(bytes.Clone(bytes.TrimSuffix(chunked.Bytes(), []byte("\r\n"))), "X-Checksum: 1\r\n\r\n"...)
	respHead := func(head string, body []byte, payloadDigest string) []byte {
		return gz(record([][2]string{{"WARC-Type", "response"}, {"WARC-Record-ID", respID}, {"WARC-Date", date},
			{"WARC-Target-URI", "http://example.com/"}, {"WARC-Warcinfo-ID", infoID},
			{"WARC-Payload-Digest", payloadDigest},
			{"Content-Type", "application/http; msgtype=response"}}, append([]byte(head), body...)))
	}
	resp := func(body []byte, payloadDigest string) []byte { return respHead(head, body, payloadDigest) }
	gzipChunked := strings.Replace(head, "Transfer-Encoding: chunked", "Transfer-Encoding: gzip, chunked", 1)
	tests := []struct {
		name      string
		record    []byte
		wantValid bool   // Validate's verdict
		wantIA    bool   // warc verify's verdict
		iaProblem string // substring of warc verify's complaint
	}{
		{"de-chunked entity body", resp(chunked.Bytes(), digest(entity)), true, true, ""},
		{"body with chunk framing", resp(chunked.Bytes(), digest(chunked.Bytes())), false, false, "payload digests do not match"},
		{"de-chunked but gunzipped", resp(chunked.Bytes(), digest(plain.Bytes())), false, false, "payload digests do not match"},
		{"trailer fields left out", resp(trailers, digest(entity)), true, true, ""},
		{"trailer fields digested", resp(trailers, digest(append(entity, "X-Checksum: 1\r\n\r\n"...))), false, false, "payload digests do not match"},
		// Broken framing: the body as stored is the payload for Validate (and amber's writer);
		// warc verify fails on the read error whatever the digest.
		{"truncated, body as stored", resp(truncated, digest(truncated)), true, false, "failed to calculate payload digest"},
		{"truncated, what could be de-chunked", resp(truncated, digest(entity[:200+250-2*106-4])), false, false, "failed to calculate payload digest"},
		// Chunked after another coding: net/http refuses the head, and so gowarc (which parses
		// it with net/http) and warc verify, whatever the digest.
		{"gzip, chunked", respHead(gzipChunked, chunked.Bytes(), digest(chunked.Bytes())), false, false, "unsupported transfer encoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.warc.gz")
			if err := os.WriteFile(path, append(gz(warcinfo), tt.record...), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := warccheck.Validate(path)
			if got := err == nil; got != tt.wantValid {
				t.Errorf("Validate = %v, want valid %v", err, tt.wantValid)
			}
			reps, err := warccheck.RunIA(warccheck.IAPath(t), path)
			if err != nil {
				t.Fatal(err)
			}
			if got := reps[0].OK(); got != tt.wantIA {
				t.Errorf("warc verify: %+v, want valid %v", reps[0], tt.wantIA)
			}
			if p := strings.Join(reps[0].Problems, "\n"); !strings.Contains(p, tt.iaProblem) {
				t.Errorf("warc verify problems %q do not mention %q", p, tt.iaProblem)
			}
		})
	}
}

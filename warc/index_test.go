package warc_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

func TestParseIndexLine(t *testing.T) {
	ts := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, tc := range []struct {
		name, line string
		want       warc.IndexEntry
		wantErr    bool
	}{
		{
			name: "amber",
			line: `com,example)/a?b=1 20260304050607 {"url":"http://www.example.com/a?b=1","mime":"text/html","status":"200","digest":"LKBHM6JLBO7E2TTUSDEXLAD4S6JPLRW2","length":"812","offset":"1234","filename":"x-00001.warc.gz"}` + "\n",
			want: warc.IndexEntry{Key: "com,example)/a?b=1", Time: ts, URL: "http://www.example.com/a?b=1", Mime: "text/html", Status: 200,
				Digest: "sha1:LKBHM6JLBO7E2TTUSDEXLAD4S6JPLRW2", Length: 812, Offset: 1234, Filename: "x-00001.warc.gz"},
		},
		{
			// Numbers instead of strings, a labelled lower-case digest, CRLF.
			name: "numbers",
			line: `com,example)/ 20260304050607 {"url":"https://example.com/","status":304,"digest":"sha1:lkbhm6jlbo7e2ttusdexlad4s6jplrw2","length":10,"offset":0,"filename":"a.warc.gz"}` + "\r\n",
			want: warc.IndexEntry{Key: "com,example)/", Time: ts, URL: "https://example.com/", Status: 304,
				Digest: "sha1:LKBHM6JLBO7E2TTUSDEXLAD4S6JPLRW2", Length: 10, Filename: "a.warc.gz"},
		},
		{
			// Browsertrix's SHA-256 digests cannot match amber's SHA-1 ones.
			name: "sha256 and revisit",
			line: `com,example)/ 20260304050607 {"url":"https://example.com/","mime":"warc/revisit","status":"200","digest":"sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae","length":"5","offset":"9","filename":"b.warc.gz"}`,
			want: warc.IndexEntry{Key: "com,example)/", Time: ts, URL: "https://example.com/", Mime: "warc/revisit", Status: 200, Length: 5, Offset: 9, Filename: "b.warc.gz"},
		},
		{
			name: "short timestamp, no status",
			line: `urn:screenshot:http://example.com/ 2026 {"url":"urn:screenshot:http://example.com/","mime":"image/png","length":"5","offset":"9","filename":"b.warc.gz"}`,
			want: warc.IndexEntry{Key: "urn:screenshot:http://example.com/", Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
				URL: "urn:screenshot:http://example.com/", Mime: "image/png", Length: 5, Offset: 9, Filename: "b.warc.gz"},
		},
		{name: "no json", line: `com,example)/ 20260304050607`, wantErr: true},
		{name: "bad json", line: `com,example)/ 20260304050607 {"url":`, wantErr: true},
		{name: "bad timestamp", line: `com,example)/ 2026-03-04 {"url":"x"}`, wantErr: true},
		{name: "bad offset", line: `com,example)/ 20260304050607 {"url":"x","offset":"ten"}`, wantErr: true},
		{name: "empty", line: "", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := warc.ParseIndexLine([]byte(tc.line))
			if tc.wantErr {
				if !errors.Is(err, warc.ErrIndex) {
					t.Errorf("err = %v, want ErrIndex", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestNormalizeDigest(t *testing.T) {
	const b32 = "LKBHM6JLBO7E2TTUSDEXLAD4S6JPLRW2"
	for _, tc := range []struct{ in, want string }{
		{b32, "sha1:" + b32},
		{"sha1:" + b32, "sha1:" + b32},
		{"SHA1:lkbhm6jlbo7e2ttusdexlad4s6jplrw2", "sha1:" + b32},
		{"sha1:5a8276792b0bbe4d4e7490c975807c9792f5c6da", "sha1:" + b32}, // hex
		{"sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", ""},
		{"-", ""},
		{"", ""},
		{"sha1:!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!", ""},
		{"sha1:" + b32[:31], ""},
	} {
		if got := warc.NormalizeDigest(tc.in); got != tc.want {
			t.Errorf("NormalizeDigest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestReadRecordHead reads the heads of records the Writer wrote (gzip members) and of
// uncompressed records as other tools write them.
func TestReadRecordHead(t *testing.T) {
	dir := t.TempDir()
	w := newWriter(t, warc.Config{Dir: dir, Dedup: &warctest.MemDedup{}})
	body := []byte("<html>hello</html>")
	resp := warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/html"}, {"ETag", `"abc"`},
		{"last-modified", "Thu, 01 Jan 2026 00:00:00 GMT"}}, body)
	first, err := w.WriteCapture(capture("http://example.com/", t0, resp))
	if err != nil {
		t.Fatal(err)
	}
	again, err := w.WriteCapture(capture("http://example.com/copy", t0.Add(time.Second), resp))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := w.WriteResource("urn:screenshot:http://example.com/", "image/png", t0, []byte("png"), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := warcFiles(t, dir)[0]
	plain := []byte("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: <http://example.org/x>\r\n" +
		"WARC-Date: 2025-12-31T23:59:59Z\r\nContent-Type: application/http;msgtype=response\r\n" +
		"WARC-Payload-Digest: sha1:LKBHM6JLBO7E2TTUSDEXLAD4S6JPLRW2\r\nContent-Length: 40\r\n\r\n" +
		"HTTP/1.0 404 Not Found\r\nEtag: W/\"1\"\r\n\r\nno\r\n\r\n")
	plainPath := filepath.Join(dir, "plain.warc")
	if err := os.WriteFile(plainPath, append([]byte("junk before"), plain...), 0o644); err != nil {
		t.Fatal(err)
	}
	digest := warctest.Digest(body)
	for _, tc := range []struct {
		name           string
		path           string
		offset, length int64
		want           warc.RecordHead
		wantErr        bool
	}{
		{name: "response", path: path, offset: first.Offset, length: first.Length, want: warc.RecordHead{
			Type: "response", TargetURI: "http://example.com/", Date: t0, PayloadDigest: digest, Status: 200, Mime: "text/html",
			ETag: `"abc"`, LastModified: "Thu, 01 Jan 2026 00:00:00 GMT"}},
		{name: "length unknown", path: path, offset: first.Offset, want: warc.RecordHead{
			Type: "response", TargetURI: "http://example.com/", Date: t0, PayloadDigest: digest, Status: 200, Mime: "text/html",
			ETag: `"abc"`, LastModified: "Thu, 01 Jan 2026 00:00:00 GMT"}},
		{name: "revisit", path: path, offset: again.Offset, length: again.Length, want: warc.RecordHead{
			Type: "revisit", TargetURI: "http://example.com/copy", Date: t0.Add(time.Second), PayloadDigest: digest,
			Profile: "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest", RefersToURI: "http://example.com/",
			RefersToDate: t0, Status: 200, Mime: "text/html", ETag: `"abc"`, LastModified: "Thu, 01 Jan 2026 00:00:00 GMT"}},
		{name: "resource", path: path, offset: shot.Offset, length: shot.Length, want: warc.RecordHead{
			Type: "resource", TargetURI: "urn:screenshot:http://example.com/", Date: t0, PayloadDigest: shot.PayloadDigest}},
		{name: "uncompressed", path: plainPath, offset: int64(len("junk before")), length: int64(len(plain)), want: warc.RecordHead{
			Type: "response", TargetURI: "http://example.org/x", Date: time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC),
			PayloadDigest: "sha1:LKBHM6JLBO7E2TTUSDEXLAD4S6JPLRW2", Status: 404, ETag: `W/"1"`}},
		{name: "not at a record", path: plainPath, offset: 0, wantErr: true},
		{name: "cut short", path: path, offset: first.Offset, length: 20, wantErr: true},
		{name: "past the end", path: path, offset: 1 << 40, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Open(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := warc.ReadRecordHead(f, tc.offset, tc.length)
			if tc.wantErr {
				if !errors.Is(err, warc.ErrIndex) {
					t.Errorf("err = %v, want ErrIndex", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func FuzzParseIndexLine(f *testing.F) {
	f.Add([]byte(`com,example)/a 20260304050607 {"url":"http://example.com/a","mime":"text/html","status":"200","digest":"LKBHM6JLBO7E2TTUSDEXLAD4S6JPLRW2","length":"812","offset":"1234","filename":"x.warc.gz"}`))
	f.Add([]byte(`a 2026 {"status":304,"offset":1}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := warc.ParseIndexLine(line)
		if err != nil {
			return
		}
		if e.Digest != "" && warc.NormalizeDigest(e.Digest) != e.Digest {
			t.Errorf("digest %q is not normal", e.Digest)
		}
	})
}

func FuzzReadRecordHead(f *testing.F) {
	f.Add([]byte("WARC/1.1\r\nWARC-Type: response\r\nWARC-Date: 2026-01-01T00:00:00Z\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: 30\r\n\r\nHTTP/1.1 200 OK\r\nETag: x\r\n\r\n"))
	f.Add(warctest.Gzip(f, []byte("WARC/1.1\r\nWARC-Type: revisit\r\nWARC-Date: 2026-01-01T00:00:00Z\r\nContent-Length: 0\r\n\r\n\r\n\r\n")))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := warc.ReadRecordHead(bytes.NewReader(b), 0, int64(len(b)))
		if err == nil && (h.Type == "" || h.Date.IsZero()) {
			t.Errorf("head %+v without type or date", h)
		}
		if err != nil && !errors.Is(err, warc.ErrIndex) {
			t.Errorf("err %v does not wrap ErrIndex", err)
		}
	})
}

package gzfixed

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
)

// decode reads member as gzip with the standard library and with klauspost/compress.
func decode(t testing.TB, member []byte) []byte {
	t.Helper()
	got := decodeStd(t, member)
	kr, err := kgzip.NewReader(bytes.NewReader(member))
	if err != nil {
		t.Fatalf("klauspost gzip header: %v", err)
	}
	kgot, err := io.ReadAll(kr)
	if err != nil {
		t.Fatalf("klauspost gzip: %v", err)
	}
	if !bytes.Equal(got, kgot) {
		t.Fatalf("the two readers disagree")
	}
	return got
}

// decodeStd reads member as one gzip member with the standard library.
func decodeStd(t testing.TB, member []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(member))
	if err != nil {
		t.Fatalf("gzip header: %v", err)
	}
	zr.Multistream(false)
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	return got
}

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	request := "GET /p/12.html HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: amber/1.0 (+https://example.org/bot)\r\nAccept: text/html\r\nAccept-Encoding: gzip\r\n\r\n"
	// A match of the longest length, 258, at the longest distance, 32768.
	far := append(randomBytes(3, 258), randomBytes(4, 32768-258)...)
	far = append(far, far[:258]...)
	// A repeat farther back than the window, which no match may reach.
	beyond := append(randomBytes(5, 40000), randomBytes(5, 3000)...)
	tests := []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"one byte", []byte{0}},
		{"three bytes", []byte("abc")},
		{"four same", []byte("aaaa")},
		{"long run", bytes.Repeat([]byte{'x'}, 5000)},
		{"every byte value", func() []byte {
			b := make([]byte, 512)
			for i := range b {
				b[i] = byte(i)
			}
			return b
		}()},
		{"random", randomBytes(1, 3000)},
		{"request", []byte(request)},
		{"requests", []byte(strings.Repeat(request, 20))},
		{"lengths", func() []byte {
			// Repeats of every length from 3 to 300 after a random gap.
			var b []byte
			for n := 3; n <= 300 && len(b) < MaxInput-700; n++ {
				src := randomBytes(uint64(n), n)
				b = append(b, src...)
				b = append(b, randomBytes(uint64(n)+1000, n%17)...)
				b = append(b, src...)
			}
			return b
		}()},
		{"farthest match", far},
		{"repeat beyond the window", beyond},
		{"max input", randomBytes(2, MaxInput)},
	}
	var e Encoder
	for _, tt := range tests {
		prefix := []byte("kept")
		out := e.Append(prefix, tt.in)
		if !bytes.HasPrefix(out, []byte("kept")) {
			t.Errorf("%s: dst's bytes not kept", tt.name)
		}
		if got := decode(t, out[4:]); !bytes.Equal(got, tt.in) {
			t.Errorf("%s: read back %d bytes, want %d", tt.name, len(got), len(tt.in))
		}
		// The text codes, whether or not AppendText would decline: the member is written.
		text := e.appendMember([]byte("kept"), tt.in, &textCodes, true)
		if got := decode(t, text[4:]); !bytes.Equal(got, tt.in) {
			t.Errorf("%s, text codes: read back %d bytes, want %d", tt.name, len(got), len(tt.in))
		}
	}
}

// The fixed codes compress repeated text: the request repeated 20 times is a few times smaller.
func TestCompresses(t *testing.T) {
	in := []byte(strings.Repeat("GET /p/12.html HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n", 40))
	var e Encoder
	out := e.Append(nil, in)
	if len(out)*10 > len(in) {
		t.Errorf("%d bytes compressed to %d", len(in), len(out))
	}
	if got := decode(t, out); !bytes.Equal(got, in) {
		t.Error("read back differs")
	}
}

func TestMaxInput(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic past MaxInput")
		}
	}()
	var e Encoder
	e.Append(nil, make([]byte, MaxInput+1))
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("GET / HTTP/1.1\r\nHost: example.org\r\n\r\n"))
	f.Add(bytes.Repeat([]byte("ab"), 400))
	f.Add([]byte{})
	var e Encoder
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > MaxInput {
			in = in[:MaxInput]
		}
		// Twice with one encoder: nothing of one member may leak into the next. The standard
		// library's reader only: klauspost's, instrumented, runs 15 times slower (TestRoundTrip
		// reads with both).
		for range 2 {
			if got := decodeStd(t, e.Append(nil, in)); !bytes.Equal(got, in) {
				t.Fatalf("read back %q, want %q", got, in)
			}
			if got := decodeStd(t, e.appendMember(nil, in, &textCodes, true)); !bytes.Equal(got, in) {
				t.Fatalf("text codes: read back %q, want %q", got, in)
			}
		}
	})
}

// BenchmarkAppend compresses WARC records of typical sizes with the fixed codes, the text
// codes and klauspost/compress at level 2 (a new member each time, as a WARC writer does): a
// request, the metadata record of a page with its outlinks, and responses of 5 KB and 30 KB
// generated pages.
//
// Each row cycles through benchRecords records of its kind, all different, as a crawl's are.
// On one record compressed again and again the processor learns the encoder's branches (match
// or literal at each byte) and the figures are those of no crawl: a 5 KB response took 17.6 µs
// with the text codes that way, against 37 to 39 µs over 128 different pages and about 50
// µs in a crawl's profile.
func BenchmarkAppend(b *testing.B) {
	rows := []struct {
		name string
		recs [][]byte
	}{{name: "request"}, {name: "metadata"}, {name: "response-5KB"}, {name: "response-30KB"}}
	for i := range benchRecords {
		n := 1000 + 37*i
		rows[0].recs = append(rows[0].recs, requestRecord(n))
		rows[1].recs = append(rows[1].recs, metadataRecord(n))
		rows[2].recs = append(rows[2].recs, generatedPage(n, 5000))
		rows[3].recs = append(rows[3].recs, generatedPage(n, 30000))
	}
	for _, row := range rows {
		var size int
		for _, r := range row.recs {
			size += len(r)
		}
		// each runs one encoder on the records in turn (enc returns a member's size, or
		// false when it declines the record); it reports the mean member.
		each := func(b *testing.B, enc func(p []byte) (int, bool)) {
			b.SetBytes(int64(size / len(row.recs)))
			var n, total, declined int
			for b.Loop() {
				m, ok := enc(row.recs[n%len(row.recs)])
				n++
				if !ok {
					declined++
					continue
				}
				total += m
			}
			if declined > 0 {
				// The time is then what declining them costs.
				b.ReportMetric(float64(declined)/float64(n), "declined/member")
			}
			if n > declined {
				b.ReportMetric(float64(total)/float64(n-declined), "bytes/member")
			}
		}
		b.Run("fixed/"+row.name, func(b *testing.B) {
			var e Encoder
			var out []byte
			each(b, func(p []byte) (int, bool) {
				out = e.Append(out[:0], p)
				return len(out), true
			})
		})
		b.Run("text/"+row.name, func(b *testing.B) {
			var e Encoder
			var out []byte
			each(b, func(p []byte) (int, bool) {
				var ok bool
				out, ok = e.AppendText(out[:0], p)
				return len(out), ok
			})
		})
		b.Run("klauspost2/"+row.name, func(b *testing.B) {
			var buf bytes.Buffer
			zw, _ := kgzip.NewWriterLevel(&buf, 2)
			each(b, func(p []byte) (int, bool) {
				buf.Reset()
				zw.Reset(&buf)
				zw.Write(p)
				zw.Close()
				return buf.Len(), true
			})
		})
	}
}

// benchRecords is the number of different records of each kind BenchmarkAppend cycles through.
const benchRecords = 128

// requestRecord is the WARC request record of page n of a generated site.
func requestRecord(n int) []byte {
	http := fmt.Sprintf("GET /p/%d.html HTTP/1.1\r\n"+
		"Host: 127.0.0.1:40909\r\n"+
		"User-Agent: amber/0.1 (+https://github.com/amber-crawler/amber)\r\n"+
		"Accept-Encoding: gzip\r\n"+
		"Referer: http://127.0.0.1:40909/p/%d.html\r\n\r\n", n, (n-1)/2)
	return fmt.Appendf(nil, "WARC/1.1\r\n"+
		"WARC-Type: request\r\n"+
		"WARC-Target-URI: http://127.0.0.1:40909/p/%d.html\r\n"+
		"WARC-Date: 2026-12-07T03:10:%02d.%06dZ\r\n"+
		"WARC-Record-ID: <urn:uuid:0a1b2c3d-4e5f-6789-abcd-ef01234%05d>\r\n"+
		"WARC-Concurrent-To: <urn:uuid:1a1b2c3d-4e5f-6789-abcd-ef01234%05d>\r\n"+
		"Content-Type: application/http;msgtype=request\r\n"+
		"Content-Length: %d\r\n"+
		"WARC-Block-Digest: sha1:3I42H3S6NNFQ2MSVX7XZKYAY%06d\r\n\r\n%s\r\n\r\n",
		n, n%60, n*7919%1000000, n, n+1, len(http), n, http)
}

// metadataRecord is the WARC metadata record of page n of a generated site of 5 KB pages: its
// outlinks.
func metadataRecord(n int) []byte {
	const site = "http://127.0.0.1:40909"
	var meta bytes.Buffer
	fmt.Fprintf(&meta, "WARC/1.1\r\nWARC-Type: metadata\r\nWARC-Target-URI: %s/p/%d.html\r\n"+
		"Content-Type: application/warc-fields\r\n\r\n", site, n)
	for _, m := range hrefs.FindAllSubmatch(generatedPage(n, 5000), -1) {
		fmt.Fprintf(&meta, "outlink: %s%s L a/@href\r\n", site, m[1])
	}
	fmt.Fprintf(&meta, "outlink: %s/style.css E link/@href\r\n"+
		"outlink: %s/img/%d.png E img/@src\r\n\r\n\r\n", site, site, n%50)
	return meta.Bytes()
}

var hrefs = regexp.MustCompile(`href="([^"]*)"`)

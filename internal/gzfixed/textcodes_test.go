package gzfixed

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"io/fs"
	"math/bits"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/internal/testsite"

	kgzip "github.com/klauspost/compress/gzip"
)

// The text codes are built from a corpus of HTML by
//
//	go test ./internal/gzfixed -run TestTextCodes -corpus DIR
//
// which counts the symbols of every .html file under DIR as AppendText writes them (in pieces
// of trainPiece bytes) and rewrites textcodes.go with the lengths of a Huffman code for them,
// of at most 15 bits, every symbol counted at least once in 2^14 so that each has a code.
var corpus = flag.String("corpus", "", "rebuild textcodes.go from the .html files under this directory")

// trainPiece is the size of the pieces the corpus is counted in: the largest record amber's
// WARC writer gives AppendText (warc's textMax), so that matches reach no farther back than in
// a record.
const trainPiece = 16 << 10

func TestTextCodes(t *testing.T) {
	if *corpus != "" {
		writeTextCodes(t, *corpus)
	}
	for _, c := range []struct {
		name string
		lens []uint8
	}{{"literal/length", textLitLengths[:]}, {"distance", textDistLengths[:]}} {
		// A complete prefix code, every symbol with a code: DEFLATE readers refuse an
		// incomplete one, and AppendText must be able to write any input.
		var kraft uint64
		for s, l := range c.lens {
			if l == 0 || l > 15 {
				t.Fatalf("%s symbol %d: code length %d", c.name, s, l)
			}
			kraft += 1 << (15 - l)
		}
		if kraft != 1<<15 {
			t.Errorf("%s codes: Kraft sum %d/32768, want a complete code", c.name, kraft)
		}
	}
}

func writeTextCodes(t *testing.T, dir string) {
	var e Encoder
	var lit [numLit]uint64
	var dist [numDist]uint64
	files, pieces, size := 0, 0, 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".html") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		size += len(b)
		for len(b) > 0 {
			n := min(len(b), trainPiece)
			e.appendMember(nil, b[:n], &textCodes, true) // counts whatever AppendText would decide
			for s, f := range e.litHist {
				lit[s] += uint64(f)
			}
			for s, f := range e.distHist {
				dist[s] += uint64(f)
			}
			b = b[n:]
			pieces++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no .html file under %s", dir)
	}
	lit[256] = uint64(pieces) // the end of a block, one a member
	floored := func(hist []uint64) []uint32 {
		var total uint64
		for _, f := range hist {
			total += f
		}
		shift := max(0, bits.Len64(total)-31) // so that the counts fit in 32 bits
		out := make([]uint32, len(hist))
		for s, f := range hist {
			out[s] = uint32(max(max(f, total>>14)>>shift, 1))
		}
		return out
	}
	var src bytes.Buffer
	fmt.Fprintf(&src, `package gzfixed

// The code lengths of the text codes (see the package doc), from the symbols of %d HTML files
// (%d bytes) under %s, written by
//
//	go test ./internal/gzfixed -run TestTextCodes -corpus DIR
//
// (see textcodes_test.go).

var textLitLengths = [numLit]uint8{%s}

var textDistLengths = [numDist]uint8{%s}
`, files, size, dir, join(huffmanLengths(floored(lit[:]), 15)), join(huffmanLengths(floored(dist[:]), 15)))
	out, err := format.Source(src.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("textcodes.go", out, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("textcodes.go written from %d files, %d bytes: run the tests again to use it", files, size)
}

func join(lens []uint8) string {
	var b strings.Builder
	for i, l := range lens {
		if i%32 == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d, ", l)
	}
	return b.String() + "\n"
}

// generatedPage is the response, head and body, of page i of a site of pages of about size
// bytes of varied text, as make bench crawls.
func generatedPage(i, size int) []byte {
	rec := httptest.NewRecorder()
	testsite.Generated{Pages: 10000, PageSize: size}.ServeHTTP(rec, httptest.NewRequest("GET", testsite.PageURL(i), nil))
	return append([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nDate: Mon, 07 Dec 2026 03:10:11 GMT\r\n\r\n"), rec.Body.Bytes()...)
}

// klauspostSize is the size of p as a gzip member of klauspost/compress at level 2, as the
// WARC writer compresses what AppendText declines.
func klauspostSize(t testing.TB, p []byte) int {
	var buf bytes.Buffer
	zw, _ := kgzip.NewWriterLevel(&buf, 2)
	if _, err := zw.Write(p); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Len()
}

// cjkText is n bytes of text in Chinese (UTF-8), words drawn at random.
func cjkText(seed uint64, n int) []byte {
	words := []string{"网页", "存档", "爬虫", "收藏", "历史", "互联网", "图书馆", "文件", "记录", "数据", "世界", "我们", "保存", "研究", "网站"}
	r := rand.New(rand.NewPCG(seed, 2))
	var b []byte
	for len(b) < n {
		b = append(b, words[r.IntN(len(words))]...)
		if r.IntN(8) == 0 {
			b = append(b, "，"...)
		}
	}
	return b
}

// AppendText writes HTML and text in the Latin script with the text codes, within a few
// percent of the size of dynamic codes of the input's own, and declines input its codes suit
// badly (text in another script, compressed images), which the caller compresses otherwise.
func TestAppendText(t *testing.T) {
	// The pages of the test sites, one after another.
	var site []byte
	err := filepath.WalkDir("../../testdata/sites", func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".html") && len(site) < 16<<10 {
			var b []byte
			b, err = os.ReadFile(path)
			site = append(site, b...)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		in     []byte
		ok     bool
		within float64 // the largest size as a share of klauspost's, when ok
	}{
		{"page of 5 KB", generatedPage(1234, 5000), true, 1.07},
		{"page of 15 KB", generatedPage(77, 15000), true, 1.08},
		{"test sites' pages", site, true, 1.05},
		// Declined as the member's own codes would make it much shorter: few symbols, for
		// which the text codes' table costs more than it saves.
		{"small page", generatedPage(9, 0), false, 0},
		{"one sentence repeated", bytes.Repeat([]byte("It was the best of times, it was the worst of times, it was the age of wisdom. "), 40), false, 0},
		{"Chinese text", cjkText(1, 6000), false, 0},
		// Markup in ASCII first and the text in Chinese: the stretches sampled at the middle
		// and end decline it before it is encoded; the cost of the whole would too.
		{"page in Chinese", append(append(bytes.Clone(generatedPage(5, 0)), cjkText(2, 4000)...), "</p></body></html>"...), false, 0},
		{"random bytes", randomBytes(5, 8000), false, 0},
	}
	var e Encoder
	for _, tt := range tests {
		out, ok := e.AppendText([]byte("kept"), tt.in)
		if ok != tt.ok {
			t.Errorf("%s: ok %v, want %v (text codes %.0f bits, own dynamic codes about %.0f)", tt.name, ok, tt.ok, e.textCost(), e.dynamicCost())
			continue
		}
		if !ok {
			if string(out) != "kept" {
				t.Errorf("%s: declined, but dst is %q", tt.name, out)
			}
			continue
		}
		if got := decode(t, out[4:]); !bytes.Equal(got, tt.in) {
			t.Errorf("%s: read back differs", tt.name)
		}
		k := klauspostSize(t, tt.in)
		own := 0
		ll, dl := huffmanLengths(e.litHist[:], 15), huffmanLengths(e.distHist[:], 15)
		for s, f := range e.litHist {
			own += int(f) * int(ll[s])
		}
		for s, f := range e.distHist {
			own += int(f) * int(dl[s])
		}
		t.Logf("%s: %d bytes: text codes %d, klauspost level 2 %d (%.3f), fixed codes %d; symbols: text %.0f own %d entropy %.0f", tt.name, len(tt.in), len(out)-4, k, float64(len(out)-4)/float64(k), len(e.Append(nil, tt.in)), e.textCost()/8, own/8, (e.dynamicCost()-560)/8)
		if float64(len(out)-4) > tt.within*float64(k) {
			t.Errorf("%s: %d bytes with the text codes, more than %.2f times klauspost's %d", tt.name, len(out)-4, tt.within, k)
		}
	}
}

package warc_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/internal/warctest"
	"github.com/amber-crawler/amber/warc"
)

// byteOrder is the reference: the lines of in sorted as LC_ALL=C sort sorts them.
func byteOrder(in string) string {
	if in == "" {
		return ""
	}
	lines := strings.Split(strings.TrimSuffix(in, "\n"), "\n")
	slices.Sort(lines) // Go compares strings byte by byte
	return strings.Join(lines, "\n") + "\n"
}

// cSort runs `LC_ALL=C sort` on in, or returns ok=false when there is no sort command.
func cSort(t *testing.T, in string) (string, bool) {
	t.Helper()
	if _, err := exec.LookPath("sort"); err != nil {
		return "", false
	}
	cmd := exec.Command("sort")
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sort: %v", err)
	}
	return string(out), true
}

func randomLines(r *rand.Rand, n int) string {
	var b strings.Builder
	alphabet := []byte("ab, )/:{}\"\t\x01~\xc3\xa9\xff0123456789")
	for range n {
		k := r.IntN(40)
		for range k {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestSortCDXJ(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	inputs := []struct{ name, in string }{
		{"empty", ""},
		{"one line without newline", "com,example)/ 2024 {}"},
		{"already sorted", "a\nb\nc\n"},
		{"reversed", "c\nb\na\n"},
		{"duplicates are kept", "b x\na\nb x\na\nb x\n"},
		{"prefix sorts first", "com,example)/a 2024\ncom,example)/ 2024\ncom,example)/a\ncom,example)/\n"},
		{"bytes below newline", "a\tb\na\na\x01\n"},
		{"UTF-8 and high bytes in byte order", "é\nz\n\xff\nZ\ne\n"},
		{"blank lines", "b\n\na\n\n"},
		{"CRLF kept", "b\r\na\r\n"},
		{"last line without newline", "b\na"},
		{"cdxj", "com,example)/b 20240101000000 {\"url\":\"http://example.com/b\"}\n" +
			"com,example)/a?x=1 20240101000000 {\"url\":\"http://example.com/a?x=1\"}\n" +
			"com,example)/a 20240101000001 {\"url\":\"http://example.com/a\"}\n" +
			"com,example)/a 20240101000000 {\"url\":\"http://example.com/a\"}\n" +
			"urn:amber:crawl-config 20240101000000 {\"url\":\"urn:amber:crawl-config\"}\n" +
			"com,example,www)/ 20240101000000 {\"url\":\"http://www.example.com/\"}\n"},
		{"random", randomLines(r, 3000)},
	}
	for _, in := range inputs {
		want := byteOrder(in.in)
		if got, ok := cSort(t, in.in); ok && got != want {
			t.Fatalf("%s: LC_ALL=C sort gives\n%q\nthe reference gives\n%q", in.name, got, want)
		}
		params := []struct{ run, fanIn int }{{1, 2}, {7, 3}, {256, 2}, {1 << 20, 64}}
		if in.name == "random" { // one line per run would mean thousands of files
			params = []struct{ run, fanIn int }{{256, 2}, {4096, 3}, {1 << 20, 64}}
		}
		for _, p := range params {
			t.Run(fmt.Sprintf("%s/run=%d,fanin=%d", in.name, p.run, p.fanIn), func(t *testing.T) {
				dir := t.TempDir()
				src, dst := filepath.Join(dir, warc.LiveCDXJ), filepath.Join(dir, warc.SortedCDXJ)
				if err := os.WriteFile(src, []byte(in.in), 0o644); err != nil {
					t.Fatal(err)
				}
				// An older sorted index is replaced.
				if err := os.WriteFile(dst, []byte("old index\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := warc.SortLines(src, dst, p.run, p.fanIn); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(dst)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != want {
					t.Errorf("sorted\n%q\nwant\n%q", got, want)
				}
				if src, _ := os.ReadFile(src); string(src) != in.in {
					t.Errorf("source changed to %q", src)
				}
				entries, _ := os.ReadDir(dir)
				if len(entries) != 2 {
					var names []string
					for _, e := range entries {
						names = append(names, e.Name())
					}
					t.Errorf("files left: %v, want only the source and the index", names)
				}
			})
		}
	}
}

func TestSortCDXJErrors(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, warc.SortedCDXJ)
	if err := os.WriteFile(dst, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := warc.SortCDXJ(filepath.Join(dir, "missing.cdxj"), dst); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing source: err = %v, want os.ErrNotExist", err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "kept\n" {
		t.Errorf("index after a failed sort = %q, want it untouched", got)
	}
	src := filepath.Join(dir, warc.LiveCDXJ)
	if err := os.WriteFile(src, []byte("b\na\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := warc.SortCDXJ(src, filepath.Join(dir, "no such dir", warc.SortedCDXJ)); err == nil {
		t.Error("sorting into a missing directory succeeded")
	}
}

// TestSortCDXJAfterRecover is the end of a run that was killed: Recover repairs the live
// append-order index, SortCDXJ writes the sorted one, and every sorted line still points at
// its record.
func TestSortCDXJAfterRecover(t *testing.T) {
	dir := t.TempDir()
	warcs := filepath.Join(dir, "warcs")
	live := filepath.Join(dir, "indexes", warc.LiveCDXJ)
	sorted := filepath.Join(dir, "indexes", warc.SortedCDXJ)
	w := newWriter(t, warc.Config{Dir: warcs, CDXJPath: live, MaxSize: 4000})
	for i, u := range []string{"http://z.example.com/", "http://a.example.com/b", "http://a.example.com/", "http://www.m.example.com/?b=1&a=2"} {
		resp := warctest.RawResponse(200, "OK", [][2]string{{"Content-Type", "text/html"}}, []byte(fmt.Sprintf("<p>%d %s</p>", i, strings.Repeat("q", 3000))))
		if _, err := w.WriteCapture(capture(u, t0.Add(time.Duration(i)*time.Hour), resp)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(live, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`com,example,a)/c 20240506 {"url":"http://a.exa`); err != nil { // torn by a kill
		t.Fatal(err)
	}
	f.Close()
	rec, err := warc.Recover(warcs, live)
	if err != nil || len(rec) != 1 || rec[0].DroppedLines != 1 {
		t.Fatalf("Recover = %+v, %v; want the torn line dropped", rec, err)
	}
	if err := warc.SortCDXJ(live, sorted); err != nil {
		t.Fatal(err)
	}
	if err := warccheck.CheckCDXJ(sorted, warcs); err != nil {
		t.Errorf("CheckCDXJ(sorted): %v", err)
	}
	liveData, _ := os.ReadFile(live)
	sortedData, _ := os.ReadFile(sorted)
	if want := byteOrder(string(liveData)); string(sortedData) != want {
		t.Errorf("sorted index\n%s\nwant\n%s", sortedData, want)
	}
	if bytes.Equal(liveData, sortedData) {
		t.Error("the captures were written in key order: the test proves nothing")
	}
}

package report

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSubcollectionsReport: subcollections-report.txt counts the captures annotated sub:NAME
// (lines with a response), by kind; a crawl without such lines has no such file.
func TestSubcollectionsReport(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	const seed = "http://a.example/"
	n := 0
	line := func(u string, code int, size int64, ann ...string) Line {
		n++
		return Line{Time: t0.Add(time.Duration(n) * time.Second), Status: code, Size: size, URL: u, Hops: "L", Via: seed,
			MIME: "text/html", Seed: seed, Annotations: ann}
	}
	tests := []struct {
		name  string
		lines []Line
		want  string // "": no file
	}{
		{"none", []Line{line(seed, 200, 10), line("http://a.example/x", 404, 5)}, ""},
		{"two subcollections", []Line{
			line(seed, 200, 10),
			line("http://news.example/", 200, 100, "sub:news"),
			line("http://news.example/a", 200, 50, "duplicate:digest", "sub:news"),
			line("http://news.example/b", 304, 0, "sub:news"),
			line("http://news.example/c", -5000, -1, "scope:max-doc"),
			line("http://js.example/", 200, 7, "browser", "sub:js"),
			line("http://js.example/x", -2, -1, "sub:js"), // no response: not a capture
			line("http://b.example/", 200, 3, "sub:"),     // no name
		}, "[#urls] [#bytes] [subcollection] [#novel-urls] [#dup-by-hash-urls] [#not-modified-urls]\n" +
			"3 150 news 1 1 1 \n" +
			"1 7 js 1 0 0 \n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Collection: "s", Started: t0, Ended: t0.Add(time.Minute), EndReason: EndFinished,
				Seeds: []SeedInfo{{URL: seed, Type: "standard"}}, Lines: tt.lines}
			dir := t.TempDir()
			if err := Write(dir, in); err != nil {
				t.Fatal(err)
			}
			html, err := os.ReadFile(filepath.Join(dir, HTMLReportFile))
			if err != nil {
				t.Fatal(err)
			}
			if has := bytes.Contains(html, []byte(`<table id="subcollections-table">`)); has != (tt.want != "") {
				t.Errorf("report.html has the subcollections table: %v, want %v", has, tt.want != "")
			}
			if tt.want != "" && !bytes.Contains(html, []byte(`<tr data-sub="news"><td>news</td><td class="n">3</td><td class="n">150</td><td class="n">1</td><td class="n">1</td><td class="n">1</td></tr>`)) {
				t.Errorf("report.html lacks news' row")
			}
			got, err := os.ReadFile(filepath.Join(dir, SubcollectionsReportFile))
			if tt.want == "" {
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("%s written (%v):\n%s", SubcollectionsReportFile, err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", SubcollectionsReportFile, diff)
			}
		})
	}
}

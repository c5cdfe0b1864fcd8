package report

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// qaFixture writes a qa.jsonl (and the qa-previous.jsonl of an earlier run, and thumbnails)
// into the reports directory dir and returns its pages.
func qaFixture(t *testing.T, dir string) []QAPage {
	t.Helper()
	f := func(v float64) *float64 { return &v }
	at := time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)
	pages := []QAPage{
		{URL: "http://example.com/", Captured: at.Add(-time.Hour), Checked: at, Status: 200, Requests: 9, Text: f(1), TextSource: "document",
			Pixel: f(1), PixelSource: "capture", CaptureThumb: "qa/a-capture.png", ReplayThumb: "qa/a-replay.png", Diff: "qa/a-diff.png",
			Missing: []QAMissing{}, Console: []QAConsole{}},
		{URL: "http://example.com/app.html", Captured: at.Add(-time.Hour), Checked: at.Add(time.Second), Status: 200, Requests: 5, Text: f(0.6), TextSource: "document",
			Pixel: f(0.8), PixelSource: "capture", CaptureThumb: "qa/b-capture.png", ReplayThumb: "qa/b-replay.png",
			Missing: []QAMissing{{URL: "http://example.com/data.json", Type: "XHR"}, {URL: "http://cdn.example.net/img/x.png", Type: "Image", Crawl: "-5000 scope:out-of-scope"}},
			Console: []QAConsole{{Kind: "exception", Text: "Uncaught (in promise) SyntaxError: bad JSON", URL: "http://example.com/app.js", Line: 3}}},
		{URL: "http://example.com/other.html", Captured: at.Add(-time.Hour), Checked: at.Add(2 * time.Second), Status: 200, Requests: 2, Text: f(0.97), TextSource: "response",
			PixelSource: "none", Missing: []QAMissing{{URL: "http://example.com/data.json", Type: "XHR"}}, Console: []QAConsole{}},
		{URL: "http://example.com/gone.html", Captured: at.Add(-time.Hour), Checked: at.Add(3 * time.Second), Error: "browser: chromium failed", TextSource: "none", PixelSource: "none"},
	}
	write := func(name string, ps []QAPage) {
		var b bytes.Buffer
		for _, p := range ps {
			line, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(append(line, '\n'))
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, QADir), 0o755); err != nil {
		t.Fatal(err)
	}
	write(QAFile, pages)
	prev := []QAPage{{URL: "http://example.com/", Checked: at.Add(-time.Hour), Text: f(0.5), Missing: []QAMissing{{URL: "http://example.com/a"}, {URL: "http://example.com/b"}, {URL: "http://example.com/c"}}}}
	write(QAPreviousFile, prev)
	for _, name := range []string{"a-capture.png", "a-replay.png", "b-capture.png", "b-replay.png"} {
		img := image.NewRGBA(image.Rect(0, 0, 8, 5))
		img.Set(1, 1, color.RGBA{200, 0, 0, 255})
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, QADir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return pages
}

// TestEachQAPage reads back what was written, and a missing file as none.
func TestEachQAPage(t *testing.T) {
	dir := t.TempDir()
	want := qaFixture(t, dir)
	var got []QAPage
	ok, err := EachQAPage(filepath.Join(dir, QAFile), func(p QAPage) error { got = append(got, p); return nil })
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if ok, err := EachQAPage(filepath.Join(dir, "none.jsonl"), func(QAPage) error { return nil }); ok || err != nil {
		t.Errorf("a missing file: %v %v, want none", ok, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte("{\"url\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := EachQAPage(filepath.Join(dir, "bad.jsonl"), func(QAPage) error { return nil }); err == nil {
		t.Error("a line that is no QAPage read without an error")
	}
}

// TestHTMLQA: report.html's QA section, from qa.jsonl in the reports directory: the figures
// with the previous run's, the worst pages first with their thumbnails inline, the missing
// URLs by host and type; and none without qa.jsonl (the golden report).
func TestHTMLQA(t *testing.T) {
	in := fixture()
	dir := filepath.Join(t.TempDir(), "reports")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	qaFixture(t, dir)
	if err := Write(dir, in); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, HTMLReportFile))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for id, want := range map[string]string{
		"qa-pages": "4 (1)", "qa-failed": "1 (0)", "qa-text": "0.857 (0.500)", "qa-pixel": "0.900", "qa-missing": "2 (3)", "qa-console": "1 (0)",
	} {
		m := regexp.MustCompile(`id="` + id + `"><div class="v">([^<]*)<`).FindStringSubmatch(page)
		if m == nil || m[1] != want {
			t.Errorf("figure %s = %v, want %q", id, m, want)
		}
	}
	rows := regexp.MustCompile(`(?s)<table id="qa-pages-table".*?</table>`).FindString(page)
	var order []string
	for _, m := range regexp.MustCompile(`<td class="u">(http[^<]*)`).FindAllStringSubmatch(rows, -1) {
		order = append(order, m[1])
	}
	wantOrder := []string{"http://example.com/gone.html", "http://example.com/app.html", "http://example.com/other.html", "http://example.com/"}
	if d := cmp.Diff(wantOrder, order); d != "" {
		t.Errorf("worst pages order (-want +got):\n%s", d)
	}
	if n := strings.Count(rows, `src="data:image/png;base64,`); n != 4 {
		t.Errorf("%d inline thumbnails, want 4", n)
	}
	if !strings.Contains(rows, `<a href="qa/a-diff.png">difference</a>`) {
		t.Error("no link to the difference image")
	}
	groups := regexp.MustCompile(`(?s)<table id="qa-missing-table".*?</table>`).FindString(page)
	for _, want := range []string{
		`<tr data-host="example.com" data-type="XHR">`, `http://example.com/data.json <span class="note">(http://example.com/app.html and 2 pages in all; never seen by the crawl)`,
		`<tr data-host="cdn.example.net" data-type="Image">`, `crawl: -5000 scope:out-of-scope`,
	} {
		if !strings.Contains(groups, want) {
			t.Errorf("missing URLs table lacks %q:\n%s", want, groups)
		}
	}
	if strings.Contains(page, "qa-stale") {
		t.Error("the qa is said to be older than the crawl, which ended before it")
	}

	// A crawl that ended after the qa: the section says so.
	in.Ended = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	if err := Write(dir, in); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, HTMLReportFile)); !strings.Contains(string(b), "qa-stale") {
		t.Error("a qa older than the crawl's end is not said to be")
	}

	// In Chromium: the images are shown under the page's policy, no console message.
	_, console := loadInChromium(t, filepath.Join(dir, HTMLReportFile), "")
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
}

package qa_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/qa"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/warc"
)

// readQA reads a crawl's qa.jsonl, by page URL.
func readQA(t *testing.T, dir string) map[string]report.QAPage {
	t.Helper()
	out := map[string]report.QAPage{}
	ok, err := report.EachQAPage(filepath.Join(dir, "reports", report.QAFile), func(p report.QAPage) error {
		if _, dup := out[p.URL]; dup {
			return fmt.Errorf("%s twice", p.URL)
		}
		out[p.URL] = p
		return nil
	})
	if err != nil || !ok {
		t.Fatalf("read qa.jsonl: %v %v", ok, err)
	}
	return out
}

// runQA runs qa on dir with the tests' browser; mod changes the config first.
func runQA(t *testing.T, dir string, mod func(*qa.Config)) qa.Summary {
	t.Helper()
	cfg := qa.Config{Dir: dir, Browser: browserConfig(t), StateDir: t.TempDir()}
	if mod != nil {
		mod(&cfg)
	}
	sum, err := qa.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestBrowserCrawls: a browser crawl of each test site replays whole: every page scores text
// 1 against its rendered text and pixels 1 against its screenshot (a page the crawl reached
// by a redirect too: its screenshot is named by the URL it was asked for), and nothing is
// missing; each page has its thumbnails and difference image.
func TestBrowserCrawls(t *testing.T) {
	for _, site := range []string{"js", "basic"} {
		t.Run(site, func(t *testing.T) {
			dir := copyDir(t, sharedCrawl(t, site, true))
			sum := runQA(t, dir, nil)
			pages := readQA(t, dir)
			if sum.Checked != sum.Listed || len(pages) != sum.Listed || sum.Listed == 0 || sum.Failed != 0 || sum.Interrupted {
				t.Fatalf("summary %+v, %d lines", sum, len(pages))
			}
			if sum.Missing != 0 || sum.TextMean < 0.99 || sum.PixelMean < 0.99 || sum.PixelPages != sum.Listed {
				t.Errorf("figures %+v", sum.Figures)
			}
			for u, p := range pages {
				if p.Text == nil || *p.Text < 0.99 || p.TextSource != "document" || p.CaptureWords == 0 {
					t.Errorf("%s: text %v from %q (%d words)", u, p.Text, p.TextSource, p.CaptureWords)
				}
				if p.Pixel == nil || *p.Pixel < 0.99 || p.PixelSource != "capture" {
					t.Errorf("%s: pixels %v from %q", u, p.Pixel, p.PixelSource)
				}
				if len(p.Missing) != 0 || len(p.Console) != 0 || p.Error != "" || p.Status != 200 {
					t.Errorf("%s: missing %v, console %v, error %q, status %d", u, p.Missing, p.Console, p.Error, p.Status)
				}
				for _, img := range []string{p.CaptureThumb, p.ReplayThumb, p.Diff} {
					b, err := os.ReadFile(filepath.Join(dir, "reports", filepath.FromSlash(img)))
					if err != nil || !strings.HasPrefix(img, report.QADir+"/") {
						t.Errorf("%s: image %q: %v", u, img, err)
						continue
					}
					cfg, err := png.DecodeConfig(bytes.NewReader(b))
					if err != nil || (img != p.Diff && cfg.Width != qa.ThumbnailWidth) || (img == p.Diff && cfg.Width != 1366) {
						t.Errorf("%s: %s is %dx%d: %v", u, img, cfg.Width, cfg.Height, err)
					}
				}
			}
		})
	}
}

// TestPlainCrawl: the replay of a plain crawl of the JS site misses exactly what its script
// loads (the JSON list, the image loaded when scrolled into view), which the crawl never saw;
// the page's script fails on the missing JSON (a console error); its text, compared with the
// text of the HTML as served, has the words the script inserts more; there is no screenshot
// to compare with, unless a browser crawl of the site is the reference.
func TestPlainCrawl(t *testing.T) {
	dir := copyDir(t, sharedCrawl(t, "js", false))
	sum := runQA(t, dir, nil)
	p := readQA(t, dir)["http://www.example.com/"]
	want := []report.QAMissing{
		{URL: "http://www.example.com/data.json", Type: "XHR"},
		{URL: "http://www.example.com/img/observed.png", Type: "Image"},
	}
	if d := cmp.Diff(want, p.Missing); d != "" {
		t.Errorf("missing (-want +got):\n%s", d)
	}
	if len(p.Console) != 1 || p.Console[0].Kind != "exception" || !strings.Contains(p.Console[0].Text, "JSON") {
		t.Errorf("console %+v, want the script's JSON error", p.Console)
	}
	if p.Text == nil || *p.Text >= 0.99 || p.TextSource != "document" || p.ReplayWords <= p.CaptureWords {
		t.Errorf("text %v from %q, %d words at capture, %d in replay", p.Text, p.TextSource, p.CaptureWords, p.ReplayWords)
	}
	if p.Pixel != nil || p.PixelSource != "none" || p.ReplayThumb == "" || p.CaptureThumb != "" {
		t.Errorf("pixels %v from %q, thumbnails %q %q", p.Pixel, p.PixelSource, p.CaptureThumb, p.ReplayThumb)
	}
	if sum.Missing != 2 || sum.PagesMissing != 1 || sum.Console != 1 {
		t.Errorf("summary %+v", sum)
	}

	// Against the browser crawl: the words and pixels of the list the script did not load.
	runQA(t, dir, func(c *qa.Config) { c.Reference = sharedCrawl(t, "js", true) })
	p = readQA(t, dir)["http://www.example.com/"]
	if p.Text == nil || *p.Text >= 0.99 || p.TextSource != "reference" {
		t.Errorf("text against the reference %v from %q", p.Text, p.TextSource)
	}
	if p.Pixel == nil || *p.Pixel >= 0.99 || p.PixelSource != "reference" || p.Diff == "" {
		t.Errorf("pixels against the reference %v from %q, diff %q", p.Pixel, p.PixelSource, p.Diff)
	}
	if len(p.Missing) != 2 {
		t.Errorf("missing %+v", p.Missing)
	}
}

// TestDeletedResource: a resource removed from the crawl's WARC file (its record cut out, the
// index put right) is missing in replay, with the page that needed it, its type, and what
// the crawl did of it (it captured it).
func TestDeletedResource(t *testing.T) {
	dir := copyDir(t, sharedCrawl(t, "js", true))
	deleteCapture(t, dir, "http://www.example.com/img/logo.png")
	runQA(t, dir, nil)
	p := readQA(t, dir)["http://www.example.com/"]
	want := []report.QAMissing{{URL: "http://www.example.com/img/logo.png", Type: "Image", Crawl: "200 browser"}}
	if d := cmp.Diff(want, p.Missing); d != "" {
		t.Errorf("missing (-want +got):\n%s", d)
	}
}

// TestSelectPages: --limit takes the first pages of the list, --sample a reproducible draw;
// the two together, and a directory that is no crawl, are errors.
func TestSelectPages(t *testing.T) {
	src := sharedCrawl(t, "basic", false)
	dir := copyDir(t, src)
	sum := runQA(t, dir, func(c *qa.Config) { c.Limit = 2 })
	pages := readQA(t, dir)
	if sum.Listed != 7 || sum.Checked != 2 || len(pages) != 2 {
		t.Errorf("limit 2: %+v, %d lines", sum, len(pages))
	}
	if _, ok := pages["http://www.example.com/"]; !ok {
		t.Errorf("limit 2 without the seed: %v", slices.Collect(mapKeys(pages)))
	}
	draw := func() []string {
		sum := runQA(t, dir, func(c *qa.Config) { c.Sample, c.Seed = 3, 42 })
		if sum.Seed != 42 || sum.Checked != 3 {
			t.Errorf("sample: %+v", sum)
		}
		got := slices.Collect(mapKeys(readQA(t, dir)))
		slices.Sort(got)
		return got
	}
	if a, b := draw(), draw(); !slices.Equal(a, b) || len(a) != 3 {
		t.Errorf("two draws with one seed: %v and %v", a, b)
	}
	for name, cfg := range map[string]qa.Config{
		"limit and sample": {Dir: dir, Limit: 1, Sample: 1},
		"not a crawl":      {Dir: t.TempDir()},
		"no directory":     {},
		"bad reference":    {Dir: dir, Reference: t.TempDir()},
	} {
		if _, err := qa.Run(t.Context(), cfg); err == nil {
			t.Errorf("%s: no error", name)
		} else if name != "not a crawl" && !errors.Is(err, qa.ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
}

func mapKeys(m map[string]report.QAPage) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestInterrupted: a run whose context ends keeps the pages it checked, and the previous
// run's file; its progress is reported page by page.
func TestInterrupted(t *testing.T) {
	dir := copyDir(t, sharedCrawl(t, "basic", false))
	runQA(t, dir, func(c *qa.Config) { c.Limit = 1 })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var seen []qa.Progress
	sum, err := qa.Run(ctx, qa.Config{Dir: dir, Browser: browserConfig(t), StateDir: t.TempDir(), Progress: func(p qa.Progress) {
		seen = append(seen, p)
		if p.Done == 2 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	lines := readQA(t, dir)
	if !sum.Interrupted || sum.Checked < 2 || sum.Checked >= sum.Listed || len(lines) != sum.Checked {
		t.Errorf("summary %+v, %d lines", sum, len(lines))
	}
	if sum.Previous == nil || sum.Previous.Pages != 1 {
		t.Errorf("previous %+v, want the run of one page", sum.Previous)
	}
	for i, p := range seen {
		if p.Done != i+1 || p.Total != sum.Listed || p.Page.URL == "" {
			t.Errorf("progress %d: %+v", i, p)
		}
	}
}

// deleteCapture cuts the response record of u out of its WARC file and puts the indexes
// right, as if the capture had been removed from the archive.
func deleteCapture(t *testing.T, dir, u string) {
	t.Helper()
	sorted := filepath.Join(dir, "indexes", warc.SortedCDXJ)
	b, err := os.ReadFile(sorted)
	if err != nil {
		t.Fatal(err)
	}
	var cut warc.IndexEntry
	for _, line := range strings.Split(string(b), "\n") {
		if e, err := warc.ParseIndexLine([]byte(line)); err == nil && e.URL == u && e.Mime != "warc/revisit" {
			cut = e
		}
	}
	if cut.Length == 0 {
		t.Fatalf("%s not in the index", u)
	}
	path := filepath.Join(dir, "warcs", cut.Filename)
	w, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w = append(w[:cut.Offset:cut.Offset], w[cut.Offset+cut.Length:]...)
	if err := os.WriteFile(path, w, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, idx := range []string{sorted, filepath.Join(dir, "indexes", warc.LiveCDXJ)} {
		b, err := os.ReadFile(idx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			e, err := warc.ParseIndexLine([]byte(line))
			if err != nil || e.Filename != cut.Filename || e.Offset < cut.Offset {
				out = append(out, line)
				continue
			}
			if e.Offset == cut.Offset {
				continue
			}
			head, js, _ := strings.Cut(line, "{")
			var m map[string]any
			if err := json.Unmarshal([]byte("{"+js), &m); err != nil {
				t.Fatal(err)
			}
			m["offset"] = fmt.Sprint(e.Offset - cut.Length)
			nb, _ := json.Marshal(m)
			out = append(out, head+string(nb))
		}
		if err := os.WriteFile(idx, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

package report

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// writeLog writes lines to a new crawl.log at path.
func writeLog(t *testing.T, path string, lines []Line) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	cl, err := OpenCrawlLog(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if err := cl.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMergedCrawlLogs: the fixture's crawl.log split between two processes (every other line,
// and the first lines all in one) gives the reports of one crawl.log, and MergeCrawlLogs puts
// the lines back in time order.
func TestMergedCrawlLogs(t *testing.T) {
	in := fixture()
	for _, split := range []struct {
		name string
		a    func(i int) bool
	}{
		{"alternate", func(i int) bool { return i%2 == 0 }},
		{"first half", func(i int) bool { return i < len(in.Lines)/2 }},
		{"all in the second", func(int) bool { return false }},
	} {
		t.Run(split.name, func(t *testing.T) {
			dir := t.TempDir()
			var a, b []Line
			for i, l := range in.Lines {
				if split.a(i) {
					a = append(a, l)
				} else {
					b = append(b, l)
				}
			}
			whole, pa, pb := filepath.Join(dir, "whole.log"), filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
			writeLog(t, whole, in.Lines)
			writeLog(t, pa, a)
			writeLog(t, pb, b)

			one := in
			one.Lines, one.CrawlLog = nil, whole
			one.Dirs = []string{dir}
			two := in
			two.Lines, two.CrawlLog, two.CrawlLogs = nil, pb, []string{pa, filepath.Join(dir, "missing.log")}
			two.Dirs = []string{dir}
			if err := Write(filepath.Join(dir, "one"), one); err != nil {
				t.Fatal(err)
			}
			if err := Write(filepath.Join(dir, "two"), two); err != nil {
				t.Fatal(err)
			}
			want, got := readReports(t, filepath.Join(dir, "one")), readReports(t, filepath.Join(dir, "two"))
			for _, name := range reportFiles {
				if diff := cmp.Diff(want[name], got[name]); diff != "" {
					t.Errorf("%s (-one crawl.log +two):\n%s", name, diff)
				}
			}

			var merged bytes.Buffer
			if err := MergeCrawlLogs(&merged, []string{pb, pa}); err != nil {
				t.Fatal(err)
			}
			wholeText, _ := os.ReadFile(whole)
			if diff := cmp.Diff(string(wholeText), merged.String()); diff != "" {
				t.Errorf("merged crawl.log (-one +merged):\n%s", diff)
			}
		})
	}
}

// TestHTMLOutputsAndSettings: report.html shows each crawl directory's crawl.yaml (once for
// directories with the same one) and links, relative to the reports directory, to the output
// files that exist.
func TestHTMLOutputsAndSettings(t *testing.T) {
	root := t.TempDir()
	const yaml = "collection: museums\nauth:\n  - {origin: https://intranet.example.org, type: basic, username: jane, password: '***'}\n"
	files := map[string]string{
		"a/crawl.yaml": yaml,
		"a/warcs/museums-20260301100000000-00000-h.warc.gz":      "x",
		"a/warcs/museums-20260301100500000-00001-h.warc.gz.open": "x",
		"a/indexes/index.cdxj":                                   "x",
		"a/documents.jsonl":                                      "{}\n",
		"a/logs/events.jsonl":                                    "{}\n",
		"a/museums.wacz":                                         "x",
		"b c/crawl.yaml":                                         yaml,
		"b c/warcs/museums-20260301100000000-00000-h2.warc.gz":   "x",
		"d/crawl.yaml":                                           "collection: other\n",
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := fixture()
	writeLog(t, filepath.Join(root, "a", "logs", "crawl.log"), in.Lines)
	in.Lines, in.CrawlLog = nil, filepath.Join(root, "a", "logs", "crawl.log")
	dirs := []string{filepath.Join(root, "a"), filepath.Join(root, "b c"), filepath.Join(root, "d")}
	for _, tc := range []struct {
		name, reports string
		dirs          []string
		settings      int
	}{
		{"own reports directory", filepath.Join(root, "a", "reports"), nil, 1},
		{"several directories", filepath.Join(root, "merged", "reports"), dirs, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := in
			in.Dirs = tc.dirs
			if err := Write(tc.reports, in); err != nil {
				t.Fatal(err)
			}
			page, err := os.ReadFile(filepath.Join(tc.reports, HTMLReportFile))
			if err != nil {
				t.Fatal(err)
			}
			var links []string
			for _, m := range regexp.MustCompile(`<li><a href="([^"]*)">`).FindAllSubmatch(page, -1) {
				p, err := url.PathUnescape(string(m[1]))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := os.Stat(filepath.Join(tc.reports, filepath.FromSlash(p))); err != nil {
					t.Errorf("link %s: %v", m[1], err)
				}
				links = append(links, filepath.Base(p))
			}
			want := []string{"museums-20260301100000000-00000-h.warc.gz", "museums-20260301100500000-00001-h.warc.gz.open",
				"index.cdxj", "documents.jsonl", "crawl.log", "events.jsonl", "crawl.yaml", "museums.wacz"}
			if tc.dirs != nil {
				want = append(want, "museums-20260301100000000-00000-h2.warc.gz", "crawl.yaml", "crawl.yaml")
			}
			want = append(want, CrawlReportFile, SeedsReportFile, HostsReportFile, MimetypeReportFile,
				ResponseCodeReportFile, ScopeReportFile, ScopeReportJSONFile, FailedFile)
			if diff := cmp.Diff(want, links); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
			pres := regexp.MustCompile(`(?s)<pre class="settings">(.*?)</pre>`).FindAllSubmatch(page, -1)
			if len(pres) != tc.settings {
				t.Fatalf("%d settings blocks, want %d", len(pres), tc.settings)
			}
			if s := string(pres[0][1]); !strings.Contains(s, "password: &#39;***&#39;") || !strings.Contains(s, "collection: museums") {
				t.Errorf("settings: %s", s)
			}
			if tc.dirs != nil && !slices.ContainsFunc(pres, func(m [][]byte) bool { return bytes.Contains(m[1], []byte("collection: other")) }) {
				t.Error("the third directory's crawl.yaml is not shown")
			}
		})
	}
}

func TestMerge(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	in := func(coll string, start, end int, reason string, seeds ...string) Input {
		i := Input{Collection: coll, EndReason: reason, CrawlLog: coll + ".log", Dirs: []string{coll}}
		if start >= 0 {
			i.Started = t0.Add(time.Duration(start) * time.Second)
		}
		if end >= 0 {
			i.Ended = t0.Add(time.Duration(end) * time.Second)
		}
		for _, s := range seeds {
			i.Seeds = append(i.Seeds, SeedInfo{URL: s, Type: "standard"})
		}
		return i
	}
	for _, tc := range []struct {
		name           string
		ins            []Input
		started, ended time.Time
		reason         string
		seeds          int
	}{
		{"both finished", []Input{in("a", 10, 100, "finished", "http://a/"), in("b", 5, 90, "finished", "http://b/", "http://a/")}, t0.Add(5 * time.Second), t0.Add(100 * time.Second), "finished", 2},
		{"one stopped at a limit", []Input{in("a", 10, 100, "finished"), in("b", 5, 90, "limit:bytes")}, t0.Add(5 * time.Second), t0.Add(100 * time.Second), "limit:bytes", 0},
		{"one killed", []Input{in("a", 10, 100, "finished"), in("b", -1, -1, "")}, t0.Add(10 * time.Second), time.Time{}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Merge(tc.ins...)
			if m.Collection != "a" || !m.Started.Equal(tc.started) || !m.Ended.Equal(tc.ended) || m.EndReason != tc.reason || len(m.Seeds) != tc.seeds {
				t.Errorf("merged %+v", m)
			}
			if !slices.Equal(m.CrawlLogs, []string{"a.log", "b.log"}) || !slices.Equal(m.Dirs, []string{"a", "b"}) || m.CrawlLog != "" {
				t.Errorf("crawl.logs %q, dirs %q", m.CrawlLogs, m.Dirs)
			}
		})
	}
}

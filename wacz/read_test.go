package wacz_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/wacz"
)

// TestReader reads packages back with wacz.Open: the WARC files at their place in the file
// (Section), the pages in pages.jsonl and extraPages.jsonl as the test's own reader of the
// package sees them, and ListPages gives the same pages straight from the crawl directory.
func TestReader(t *testing.T) {
	dir := crawlSite(t, "basic", []string{"http://museum.example.com/", "http://www.example.com/dir/"}, 0)
	for _, tc := range []struct {
		name string
		opts wacz.Options
	}{
		{"pages in one file", wacz.Options{}},
		{"seeds apart", wacz.Options{PagesLimit: -1, IndexThreshold: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x.wacz")
			if _, err := wacz.Write(t.Context(), dir, out, tc.opts); err != nil {
				t.Fatal(err)
			}
			o := checkPackage(t, out, warcFiles(t, dir))
			r, err := wacz.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if d := cmp.Diff(o.names, r.Names()); d != "" {
				t.Errorf("names (-want +got):\n%s", d)
			}
			for _, w := range warcFiles(t, dir) {
				sec, err := r.Section(wacz.ArchiveDir + filepath.Base(w))
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(sec)
				if err != nil {
					t.Fatal(err)
				}
				want, err := os.ReadFile(w)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("Section(%s) differs from %s", wacz.ArchiveDir+filepath.Base(w), w)
				}
			}
			if _, err := r.Section("archive/none.warc.gz"); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Section of a missing entry: %v, want ErrNotExist", err)
			}
			pages, err := r.Pages()
			if err != nil {
				t.Fatal(err)
			}
			var want []wacz.Page
			for _, p := range o.pages {
				want = append(want, wacz.Page{ID: p.ID, URL: p.URL, TS: p.TS, Title: p.Title, Text: p.Text})
			}
			if d := cmp.Diff(want, pages); d != "" {
				t.Errorf("Pages (-want +got):\n%s", d)
			}
			listed, err := wacz.ListPages(t.Context(), []string{dir})
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				want[i].Text = ""
			}
			if d := cmp.Diff(want, listed); d != "" {
				t.Errorf("ListPages (-want +got):\n%s", d)
			}
			if len(pages) == 0 || pages[0].Time().IsZero() {
				t.Errorf("first page %+v: no time", pages)
			}
		})
	}

	notZip := filepath.Join(t.TempDir(), "x.wacz")
	if err := os.WriteFile(notZip, []byte("not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := wacz.Open(notZip); !errors.Is(err, wacz.ErrNotWACZ) {
		t.Errorf("Open of a file that is not a ZIP: %v, want ErrNotWACZ", err)
	}
	if _, err := wacz.ListPages(t.Context(), []string{t.TempDir()}); !errors.Is(err, wacz.ErrNotCrawlDir) {
		t.Errorf("ListPages of a directory that is no crawl: %v, want ErrNotCrawlDir", err)
	}
}

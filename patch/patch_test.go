package patch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
)

func TestRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), report.QAFile)
	var b []byte
	for _, p := range []report.QAPage{
		{URL: "http://a.example/", Missing: []report.QAMissing{{URL: "http://a.example/d.json", Type: "XHR"}, {URL: "http://a.example/i.png", Type: "Image"}}},
		{URL: "http://a.example/b.html", Missing: []report.QAMissing{}},
		{URL: "http://a.example/c.html", Missing: []report.QAMissing{{URL: "http://a.example/i.png", Type: "Image"}, {URL: "http://cdn.example/f.woff2", Type: "Font"}}},
	} {
		line, _ := json.Marshal(p)
		b = append(append(b, line...), '\n')
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, ok, err := Read(path)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	want := []URL{
		{URL: "http://a.example/d.json", Page: "http://a.example/", Type: "XHR"},
		{URL: "http://a.example/i.png", Page: "http://a.example/", Type: "Image"},
		{URL: "http://cdn.example/f.woff2", Page: "http://a.example/c.html", Type: "Font"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Read (-want +got):\n%s", d)
	}
	if _, ok, err := Read(filepath.Join(t.TempDir(), "none")); ok || err != nil {
		t.Errorf("no file: %v %v", ok, err)
	}

	pages, byPage, n := ByPage(append(got, URL{URL: "http://a.example/i.png", Page: "http://a.example/z.html"}))
	if n != 3 || !cmp.Equal(pages, []string{"http://a.example/", "http://a.example/c.html"}) || len(byPage["http://a.example/"]) != 2 {
		t.Errorf("ByPage: %v %v %d", pages, byPage, n)
	}
}

func TestLinks(t *testing.T) {
	r := &chain.Record{Content: chain.Content{Files: true, Feeds: true, Links: []extract.Outlink{
		{URL: "http://a.example/x.css", Hop: hop.Embed}, {URL: "http://a.example/to", Hop: hop.Redirect},
		{URL: "http://a.example/l", Hop: hop.Link}, {URL: "http://a.example/s.js", Hop: hop.Speculative},
		{URL: "http://a.example/favicon.ico", Hop: hop.Inferred},
	}}}
	if v, err := (Links{}).After(t.Context(), r); err != nil || v.Done {
		t.Fatal(v, err)
	}
	if want := []extract.Outlink{{URL: "http://a.example/x.css", Hop: hop.Embed}, {URL: "http://a.example/to", Hop: hop.Redirect}}; !cmp.Equal(want, r.Content.Links) || r.Content.Files || r.Content.Feeds {
		t.Errorf("content after: %+v", r.Content)
	}
}

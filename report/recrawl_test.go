package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/status"
)

// TestRevisitColumns: the captures of a crawl that builds on an earlier one go to the
// columns Heritrix puts them in: a 304 (a recrawl's, annotated duplicate:server-not-modified)
// to not-modified, a revisit of a payload captured before (this crawl's or an earlier one's,
// annotated duplicate:digest) to dup-by-hash, the rest to novel.
func TestRevisitColumns(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	seed := "http://a.example/"
	var in Input
	in.Collection, in.Started = "recrawl", t0
	in.Seeds = []SeedInfo{{URL: seed, Type: "standard"}}
	for _, l := range []struct {
		url         string
		status      int
		size        int64
		annotations []string
	}{
		{seed, 304, 100, []string{"duplicate:server-not-modified"}},
		{seed + "same.html", 200, 1000, []string{"duplicate:digest"}},
		{seed + "changed.html", 200, 2000, nil},
		{seed + "img.png", 304, 50, []string{"browser", "duplicate:server-not-modified"}},
		{seed + "odd", 304, 10, nil}, // a 304 to a plain request is not-modified too
	} {
		in.Lines = append(in.Lines, Line{Time: t0, Status: l.status, Size: l.size, URL: l.url, Seed: seed,
			MIME: "text/html", Annotations: l.annotations, Extra: map[string]any{ExtraContentSize: float64(l.size)}})
		in.URLs = append(in.URLs, URLState{URL: l.url, Host: "a.example", State: status.Done, Status: l.status, Seed: seed})
	}
	dir := t.TempDir()
	if err := Write(dir, in); err != nil {
		t.Fatal(err)
	}
	hosts, err := os.ReadFile(filepath.Join(dir, HostsReportFile))
	if err != nil {
		t.Fatal(err)
	}
	rows := parseColumns(t, string(hosts), heritrixHostsColumns, true)
	want := map[string]string{
		"#urls": "5", "#bytes": "3160", "host": "a.example", "#novel-urls": "1", "#novel-bytes": "2000",
		"#dup-by-hash-urls": "1", "#dup-by-hash-bytes": "1000", "#not-modified-urls": "3", "#not-modified-bytes": "160",
	}
	got := map[string]string{}
	for k := range want {
		got[k] = rows[0][k]
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("hosts-report.txt (-want +got):\n%s\n%s", d, hosts)
	}
	summary, err := os.ReadFile(filepath.Join(dir, CrawlReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"duplicate-by-hash URIs: 1", "not-modified URIs: 3", "novel URIs: 1"} {
		if !strings.Contains(string(summary), s) {
			t.Errorf("crawl-report.txt lacks %q:\n%s", s, summary)
		}
	}
}

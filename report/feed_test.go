package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFeedCounts: crawl-report.txt counts the feeds read (lines annotated feed:KIND:N, each
// URL once, its last line's N) and their item links; a crawl without feeds has no such lines.
func TestFeedCounts(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	const seed = "http://a.example/"
	n := 0
	line := func(u string, ann ...string) Line {
		n++
		return Line{Time: t0.Add(time.Duration(n) * time.Second), Status: 200, Size: 100, URL: u, Hops: "L", Via: seed,
			MIME: "application/rss+xml", Seed: seed, Annotations: ann}
	}
	tests := []struct {
		name  string
		lines []Line
		want  string // "" : no feed lines at all
	}{
		{"none", []Line{line(seed), line("http://a.example/sitemap.xml", "sitemap:urlset:3")}, ""},
		{"rss and atom", []Line{
			line("http://a.example/rss.xml", "feed:rss:3", "feed:truncated:max-links"),
			line("http://a.example/atom.xml", "feed:atom:1"),
			line("http://a.example/page.html", "feed:not-a-feed"),
			line("http://a.example/x", "feed:rss:x", "feed:rss:-1", "feed:other:5"),
		}, "\nfeeds read: 2\nfeed item links: 4\n\n"},
		{"a feed logged twice counts once", []Line{
			line("http://a.example/rss.xml", "feed:rss:2"),
			line("http://a.example/rss.xml", "feed:rss:5"),
		}, "\nfeeds read: 1\nfeed item links: 5\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Collection: "f", Started: t0, Ended: t0.Add(time.Minute), EndReason: EndFinished,
				Seeds: []SeedInfo{{URL: seed, Type: "standard"}}, Lines: tt.lines}
			dir := t.TempDir()
			if err := Write(dir, in); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, CrawlReportFile))
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if strings.Contains(string(got), "feed") {
					t.Fatalf("crawl-report.txt mentions feeds:\n%s", got)
				}
				return
			}
			if !strings.Contains(string(got), tt.want) {
				t.Fatalf("crawl-report.txt lacks %q:\n%s", tt.want, got)
			}
		})
	}
}

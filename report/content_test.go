package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestContentCounts: the crawl.log lines the content filters and POSTs annotate
// (type-excluded:TYPE, header-excluded:NAME, links-not-searched:TYPE, post, and
// type-not-fetched:TYPE with the bytes not fetched, bytes-not-fetched:N|unknown) are counted
// by host, by seed and for the crawl, the same in crawl-report.txt, scope-report.txt,
// scope-report.json and report.html; a crawl without them shows none of it.
func TestContentCounts(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	const seedA, seedB = "http://a.example/", "http://b.example/"
	n := 0
	line := func(u, seed string, code int, ann ...string) Line {
		n++
		return Line{Time: t0.Add(time.Duration(n) * time.Second), Status: code, Size: 10, URL: u, Hops: "L", Via: seed,
			MIME: "text/html", Seed: seed, Annotations: ann}
	}
	lines := []Line{
		line(seedA, seedA, 200),
		line("http://a.example/doc.pdf", seedA, 200, "type-excluded:application/pdf"),
		line("http://a.example/x.pdf", seedA, 200, "type-excluded:application/pdf"),
		line("http://a.example/h", seedA, 200, "header-excluded:Server"),
		line("http://a.example/s.css", seedA, 200, "links-not-searched:text/css"),
		line("http://a.example/search", seedA, 200, "post", "type-excluded:text/plain"),
		line(seedB, seedB, 200),
		line("http://b.example/form", seedB, 200, "post"),
		line("http://b.example/posts", seedB, 200, "postal"), // not post
		line("http://a.example/big.zip", seedA, 200, "type-not-fetched:application/zip", "bytes-not-fetched:52428800"),
		line("http://a.example/big.iso", seedA, 200, "type-not-fetched:application/x-iso9660-image", "bytes-not-fetched:1000"),
		line("http://b.example/stream", seedB, 200, "type-not-fetched:video/mp4", "bytes-not-fetched:unknown"),
	}
	tests := []struct {
		name  string
		lines []Line
		want  *ContentCounts
	}{
		{"none", lines[:1], nil},
		{"content", lines, &ContentCounts{TypeExcluded: 3, HeaderExcluded: 1, LinksNotSearched: 1, Post: 2,
			TypeNotFetched: 3, BytesNotFetched: 52429800, SizeUnknown: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Input{Collection: "c", Started: t0, Ended: t0.Add(time.Minute), EndReason: EndFinished,
				Seeds: []SeedInfo{{URL: seedA, Type: "standard"}, {URL: seedB, Type: "standard"}}, Lines: tt.lines}
			dir := t.TempDir()
			if err := Write(dir, in); err != nil {
				t.Fatal(err)
			}
			read := func(name string) string {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			var sr ScopeReport
			if err := json.Unmarshal([]byte(read(ScopeReportJSONFile)), &sr); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, sr.Totals.Content); diff != "" {
				t.Errorf("scope-report.json totals.content (-want +got):\n%s", diff)
			}
			crawlReport, scopeText, html := read(CrawlReportFile), read(ScopeReportFile), read(HTMLReportFile)
			if tt.want == nil {
				if sr.ContentBySeed != nil || strings.Contains(crawlReport, "POST URIs") ||
					strings.Contains(scopeText, "[#post]") || strings.Contains(html, `id="content"`) {
					t.Errorf("content figures in the reports of a crawl without any")
				}
				return
			}
			hosts := map[string]*ContentCounts{}
			for _, h := range sr.Hosts {
				hosts[h.Host] = h.Content
			}
			wantHosts := map[string]*ContentCounts{
				"a.example": {TypeExcluded: 3, HeaderExcluded: 1, LinksNotSearched: 1, Post: 1, TypeNotFetched: 2, BytesNotFetched: 52429800},
				"b.example": {Post: 1, TypeNotFetched: 1, SizeUnknown: 1},
			}
			if diff := cmp.Diff(wantHosts, hosts); diff != "" {
				t.Errorf("scope-report.json hosts' content (-want +got):\n%s", diff)
			}
			wantSeeds := []SeedContent{
				{Seed: seedA, ContentCounts: ContentCounts{TypeExcluded: 3, HeaderExcluded: 1, LinksNotSearched: 1, Post: 1, TypeNotFetched: 2, BytesNotFetched: 52429800}},
				{Seed: seedB, ContentCounts: ContentCounts{Post: 1, TypeNotFetched: 1, SizeUnknown: 1}},
			}
			if diff := cmp.Diff(wantSeeds, sr.ContentBySeed); diff != "" {
				t.Errorf("scope-report.json content_by_seed (-want +got):\n%s", diff)
			}
			for _, want := range []string{"type-excluded URIs: 3\n", "header-excluded URIs: 1\n", "links-not-searched URIs: 1\n", "POST URIs: 2\n",
				"type-not-fetched URIs: 3\n", "bytes not fetched: 52429800\n", "type-not-fetched URIs of unknown size: 1\n"} {
				if !strings.Contains(crawlReport, want) {
					t.Errorf("crawl-report.txt has no line %q:\n%s", want, crawlReport)
				}
			}
			for _, want := range []string{
				"[host] [#type-excluded] [#header-excluded] [#links-not-searched] [#post] [#type-not-fetched] [bytes-not-fetched] [#not-fetched-size-unknown]\n" +
					"a.example 3 1 1 1 2 52429800 0\nb.example 0 0 0 1 1 0 1\ntotal 3 1 1 2 3 52429800 1\n",
				"[seed] [#type-excluded] [#header-excluded] [#links-not-searched] [#post] [#type-not-fetched] [bytes-not-fetched] [#not-fetched-size-unknown]\n" +
					"http://a.example/ 3 1 1 1 2 52429800 0\nhttp://b.example/ 0 0 0 1 1 0 1\n",
			} {
				if !strings.Contains(scopeText, want) {
					t.Errorf("scope-report.txt has no\n%s\nin\n%s", want, scopeText)
				}
			}
			for _, want := range []string{
				`<tr data-host="a.example"><td>a.example</td><td class="n">3</td><td class="n">1</td><td class="n">1</td><td class="n">1</td><td class="n">2</td><td class="n">52429800</td><td class="n">0</td></tr>`,
				`<tfoot><tr><th>total</th><th class="n">3</th><th class="n">1</th><th class="n">1</th><th class="n">2</th><th class="n">3</th><th class="n">52429800</th><th class="n">1</th></tr></tfoot>`,
				`<tr><td class="u">http://b.example/</td><td class="n">0</td><td class="n">0</td><td class="n">0</td><td class="n">1</td><td class="n">1</td><td class="n">0</td><td class="n">1</td></tr>`,
			} {
				if !strings.Contains(html, want) {
					t.Errorf("report.html has no %s", want)
				}
			}
		})
	}
}

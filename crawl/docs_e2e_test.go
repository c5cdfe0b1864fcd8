package crawl_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
)

// readDocuments reads documents.jsonl and keeps the last line of each id (later lines
// supersede earlier ones).
func readDocuments(t *testing.T, path string) (map[string]extract.SearchDocument, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	docs := map[string]extract.SearchDocument{}
	lines := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines++
		var d extract.SearchDocument
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("documents.jsonl line %d: %v", lines, err)
		}
		docs[d.ID] = d
	}
	return docs, lines
}

// TestCrawlDocuments crawls pages with duplicate content, a canonical link, noindex and
// nofollow, and checks the search documents against the WARC.
func TestCrawlDocuments(t *testing.T) {
	site, err := testsite.Start(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "docs"))
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	cfg := basicConfig(t, site, t.TempDir())
	cfg.Workers = 1 // documents in a predictable order: the first URL of a content group keeps the id
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndFinished {
		t.Fatalf("end %q, err %v", res.End, err)
	}
	docs, _ := readDocuments(t, filepath.Join(cfg.Dir, crawl.DocumentsFile))
	type final struct {
		URL        string
		Additional []string
	}
	got := map[string]final{}
	for _, d := range docs {
		got[d.Title] = final{d.URL, d.AdditionalURLs}
	}
	want := map[string]final{
		"Docs home":     {"http://www.example.com/", nil},
		"Article A":     {"http://www.example.com/a.html", []string{"http://www.example.com/a-copy.html"}},
		"Article B":     {"http://www.example.com/b.html", []string{"http://www.example.com/b-print.html"}},
		"From secret":   {"http://www.example.com/from-secret.html", nil},
		"Meta nofollow": {"http://www.example.com/meta-nofollow.html", nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("final documents by title (-want +got):\n%s", diff)
	}
	if site.Hits("www.example.com", "/secret.html") != 1 {
		t.Error("the noindex page was not archived")
	}
	for _, p := range []string{"/nofollow-target.html", "/unfollowed.html"} {
		if n := site.Hits("www.example.com", p); n != 0 {
			t.Errorf("%s (nofollow) fetched %d times", p, n)
		}
	}
	if site.Hits("www.example.com", "/pixel.png") != 1 {
		t.Error("the embed of a nofollow page was not captured")
	}

	// Each document's WARC location is the response (or revisit) record of one of its URLs.
	for _, d := range docs {
		rep, err := warccheck.Validate(filepath.Join(cfg.Dir, crawl.WARCDir, d.WARCFilename))
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(rep.Records, func(r warccheck.Record) bool { return r.Offset == d.WARCOffset })
		if i < 0 {
			t.Errorf("%s: no record at %s:%d", d.URL, d.WARCFilename, d.WARCOffset)
			continue
		}
		r := rep.Records[i]
		if (r.Type != "response" && r.Type != "revisit") || (r.TargetURI != d.URL && !slices.Contains(d.AdditionalURLs, r.TargetURI)) {
			t.Errorf("%s: record at offset %d is a %s of %s", d.URL, d.WARCOffset, r.Type, r.TargetURI)
		}
	}

	// Events: nofollow links are denied with their reason.
	events, err := os.ReadFile(filepath.Join(cfg.Dir, crawl.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	denied := 0
	for _, line := range splitLines(events) {
		var ev map[string]any
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("events line: %v", err)
		}
		if ev["crawler.url.deny_reason"] == "nofollow" {
			denied++
		}
	}
	if denied != 2 {
		t.Errorf("%d nofollow denials in events.jsonl, want 2", denied)
	}
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

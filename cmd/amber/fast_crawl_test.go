package main

import (
	"bytes"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
)

// TestCrawlFASTConfig crawls the basic test site from a FAST crawler configuration given to
// --config as it is: its start URI, include_domains, exclude_uris, delay and FAST's default
// exclude_exts (which leaves out CSS and images) decide what is captured, and the crawl says
// it read the file as another crawler's config. `amber scope check` reads the same file.
func TestCrawlFASTConfig(t *testing.T) {
	site, err := testsite.Start(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "basic"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	_, port, _ := net.SplitHostPort(site.Addr)
	xml := writeFile(t, t.TempDir(), "crawler.xml", `<?xml version="1.0" encoding="utf-8"?>
<CrawlerConfig>
  <DomainSpecification name="museum">
    <attrib name="start_uris" type="list-string">
      <member> http://www.example.com/ </member>
    </attrib>
    <attrib name="delay" type="real"> 0 </attrib>
    <section name="include_domains">
      <attrib name="exact" type="list-string"><member> www.example.com </member></attrib>
    </section>
    <section name="exclude_uris">
      <attrib name="prefix" type="list-string"><member> http://www.example.com/private/ </member></attrib>
    </section>
  </DomainSpecification>
</CrawlerConfig>
`)
	dir := filepath.Join(t.TempDir(), "crawl")
	var stdout, stderr bytes.Buffer
	args := []string{"crawl", "--config", xml, "--dir", dir, "--allow-private", "--max-attempts", "1", "--connect-to", "::127.0.0.1:" + port}
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "is another crawler's config") || !strings.Contains(stderr.String(), "amber: note: ") {
		t.Errorf("no word of the conversion and its notes:\n%s", stderr.String())
	}
	var captured []string
	out := map[string]string{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
		switch {
		case l.Status == 200 && !strings.HasSuffix(l.URL, "/robots.txt"):
			captured = append(captured, l.URL)
		case l.Status == -5000 && len(l.Annotations) > 0:
			out[l.URL] = l.Annotations[0]
		}
	}
	slices.Sort(captured)
	want := []string{
		"http://www.example.com/", "http://www.example.com/about.html", "http://www.example.com/copy1.html",
		"http://www.example.com/copy2.html", "http://www.example.com/dir/", "http://www.example.com/dir/item1.html",
		"http://www.example.com/new.html",
	}
	if diff := cmp.Diff(want, captured); diff != "" {
		t.Errorf("captured with status 200 (-want +got):\n%s", diff)
	}
	for u, prefix := range map[string]string{
		"http://www.example.com/private/secret.html": "scope:block:", // exclude_uris prefix
		"http://www.example.com/style.css":           "scope:block:", // FAST's default exclude_exts
		"http://www.example.com/img/logo.png":        "scope:block:", // idem, an embed
		"http://other.example.org/":                  "scope:out-of", // include_domains exact
	} {
		if !strings.HasPrefix(out[u], prefix) {
			t.Errorf("%s: left out as %q, want %s...", u, out[u], prefix)
		}
	}

	stdout.Reset()
	if err := run(t.Context(), []string{"scope", "check", "--config", xml, "http://www.example.com/private/x", "http://www.example.com/x.html"}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("scope check: %v", err)
	}
	got := decodeOutputs(t, stdout.String())
	if len(got) != 2 || got[0].Decision != "out" || got[1].Decision != "in" {
		t.Errorf("scope check: %+v", got)
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
)

// TestCrawlFASTPriority crawls from a FAST configuration with two work queue levels (pri,
// put_scheme include, b.example.com at level 1, the rest at the default 2): crawl.log has the
// seed, then every URL of b.example.com, then the others; crawl.yaml keeps
// politeness.priority.
func TestCrawlFASTPriority(t *testing.T) {
	port, _ := hostSite(t, "127.0.0.1", map[string]string{
		"www.example.com/":  `<a href="http://a.example.com/">a</a> <a href="/2">2</a> <a href="http://b.example.com/">b</a>`,
		"www.example.com/2": "two",
		"a.example.com/":    `<a href="/1">1</a>`,
		"a.example.com/1":   "a1",
		"b.example.com/":    `<a href="/1">1</a> <a href="/2">2</a>`,
		"b.example.com/1":   "b1",
		"b.example.com/2":   "b2",
	})
	tmp := t.TempDir()
	xml := writeFile(t, tmp, "crawler.xml", `<?xml version="1.0" encoding="utf-8"?>
<CrawlerConfig>
  <DomainSpecification name="priority">
    <attrib name="start_uris" type="list-string"><member>http://www.example.com/</member></attrib>
    <attrib name="delay" type="real">0</attrib>
    <attrib name="enforce_delay_per_ip" type="boolean">no</attrib>
    <attrib name="robots" type="boolean">no</attrib>
    <section name="workqueue_priority">
      <attrib name="levels" type="integer">2</attrib>
      <attrib name="default" type="integer">2</attrib>
      <attrib name="start_uri_pri" type="integer">1</attrib>
      <attrib name="pop_scheme" type="string">pri</attrib>
      <attrib name="put_scheme" type="string">include</attrib>
      <section name="1">
        <section name="include_domains">
          <attrib name="exact" type="list-string"><member>b.example.com</member></attrib>
        </section>
      </section>
    </section>
  </DomainSpecification>
</CrawlerConfig>
`)
	dir := filepath.Join(t.TempDir(), "crawl")
	var stdout, stderr bytes.Buffer
	args := []string{"crawl", "--config", xml, "--dir", dir, "--allow-private", "--workers", "1", "--connect-to", "::127.0.0.1:" + port}
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	var got []string
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
		if l.Status > 0 {
			got = append(got, l.URL)
		}
	}
	// The seed; then level 1 (b.example.com) to its end; then level 2, the hosts in turn.
	want := []string{
		"http://www.example.com/",
		"http://b.example.com/", "http://b.example.com/1", "http://b.example.com/2",
	}
	if len(got) != 7 || strings.Join(got[:4], " ") != strings.Join(want, " ") {
		t.Fatalf("crawl.log fetches %q, want %q and then the 3 URLs of level 2", got, want)
	}
	rest := strings.Join(got[4:], " ")
	for _, u := range []string{"http://www.example.com/2", "http://a.example.com/", "http://a.example.com/1"} {
		if !strings.Contains(rest, u) {
			t.Errorf("level 2 fetches %q lack %s", rest, u)
		}
	}
	yaml, err := os.ReadFile(filepath.Join(dir, crawl.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"priority:", "levels: 2", "pick: pri", "b\\.example\\.com"} {
		if !bytes.Contains(yaml, []byte(want)) {
			t.Errorf("crawl.yaml has no %q:\n%s", want, yaml)
		}
	}
}

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDomainFlags: --domain, --crawl-rule, --max-crawl-depth, --sitemap and --sitemaps-robots
// reach the crawl's scope and sitemap settings, with the YAML's own keys, and crawl.yaml
// records them.
func TestDomainFlags(t *testing.T) {
	tmp := t.TempDir()
	yml := writeFile(t, tmp, "c.yaml", `seeds:
  - url: http://a.example/start
    sitemap_urls: [http://a.example/seed-sitemap.xml]
scope:
  domains:
    - url: http://a.example
      crawl_rules: [deny begins /private]
      sitemap_urls: [http://a.example/domain-sitemap.xml]
sitemaps:
  urls: [http://a.example/sitemap.xml]
documents:
  extraction_rulesets:
    - domain: http://a.example
      rules: [{action: extract, field_name: byline, selector: .author, source: html}]
`)
	type view struct {
		Flavour  string
		Domains  []string // origin and rule count
		Depth    string
		Robots   bool
		Sitemaps []string
		Rulesets bool
	}
	for _, tc := range []struct {
		name string
		args []string
		want view
		err  string
	}{
		{"seeds only, standard", []string{"http://a.example/"}, view{"standard", nil, "<nil>", false, nil, false}, ""},
		{"crawl rule makes domains of the seeds", []string{"--flavour", "elastic", "--crawl-rule", "deny ends .pdf", "--max-crawl-depth", "3", "http://a.example/x", "https://b.example/"},
			view{"elastic", []string{"http://a.example 1", "https://b.example 1"}, "3", true, nil, false}, ""},
		{"domain flag implies elastic", []string{"--domain", "https://B.example:443/", "https://b.example/"},
			view{"elastic", []string{"https://b.example 0"}, "<nil>", true, nil, false}, ""},
		{"sitemap flag, standard, robots off", []string{"--sitemap", "http://a.example/s.xml", "http://a.example/"},
			view{"standard", nil, "<nil>", false, []string{"http://a.example/s.xml"}, false}, ""},
		{"sitemaps-robots in standard", []string{"--sitemaps-robots", "http://a.example/"}, view{"standard", nil, "<nil>", true, nil, false}, ""},
		{"elastic robots sitemaps off", []string{"--flavour", "elastic", "--sitemaps-robots=false", "http://a.example/"}, view{"elastic", []string{"http://a.example 0"}, "<nil>", false, nil, false}, ""},
		{"yaml", []string{"--config", yml, "--crawl-rule", "allow regex .*", "--sitemap", "http://a.example/sitemap.xml"},
			view{"elastic", []string{"http://a.example 2"}, "<nil>", true, []string{"http://a.example/sitemap.xml", "http://a.example/domain-sitemap.xml", "http://a.example/seed-sitemap.xml"}, true}, ""},
		{"bad rule", []string{"--crawl-rule", "deny regex (?<=x)", "http://a.example/"}, view{}, "lookbehind"},
		{"bad domain", []string{"--domain", "http://a.example/path", "http://a.example/"}, view{}, "no path"},
		{"seed outside the domains", []string{"--domain", "http://a.example", "http://c.example/"}, view{}, "http://c.example/"},
		{"depth 0", []string{"--max-crawl-depth", "0", "http://a.example/"}, view{}, "at least 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseCrawlArgs(append([]string{"--dir", filepath.Join(tmp, "crawl")}, tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			cfg, _, err := buildConfig(a)
			if err == nil {
				c, cerr := crawlConfig(cfg, a)
				if err = cerr; err == nil {
					if tc.err != "" {
						t.Fatalf("no error, want %q", tc.err)
					}
					got := view{Flavour: string(c.Scope.Flavour), Robots: c.Sitemaps.Robots, Sitemaps: c.Sitemaps.URLs,
						Rulesets: c.Documents.Rulesets != nil, Depth: "<nil>"}
					for _, d := range c.Scope.Domains {
						got.Domains = append(got.Domains, fmt.Sprintf("%s %d", d.URL, len(d.Rules)))
					}
					if c.Scope.MaxCrawlDepth != nil {
						got.Depth = fmt.Sprint(*c.Scope.MaxCrawlDepth)
					}
					if diff := cmp.Diff(tc.want, got); diff != "" {
						t.Errorf("(-want +got):\n%s", diff)
					}
					if len(cfg.Scope.Domains) > 0 && !strings.Contains(string(c.EffectiveConfig), "domains:") {
						t.Errorf("crawl.yaml lacks the domains:\n%s", c.EffectiveConfig)
					}
					return
				}
			}
			if tc.err == "" || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
}

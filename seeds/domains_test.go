package seeds

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCrawlRule(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want CrawlRuleSpec
		err  bool
	}{
		{in: "deny begins /blog", want: CrawlRuleSpec{"deny", "begins", "/blog"}},
		{in: "  Allow  REGEX   .*  ", want: CrawlRuleSpec{"allow", "regex", ".*"}},
		{in: "deny contains /a b/c", want: CrawlRuleSpec{"deny", "contains", "/a b/c"}},
		{in: "deny\tends\t.pdf", want: CrawlRuleSpec{"deny", "ends", ".pdf"}},
		{in: "deny begins", err: true},
		{in: "block begins /x", err: true},
		{in: "deny starts /x", err: true},
		{in: "", err: true},
	} {
		got, err := ParseCrawlRule(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("ParseCrawlRule(%q): err = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.in) {
				t.Errorf("ParseCrawlRule(%q): error %q", tc.in, err)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("ParseCrawlRule(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
		if back, err := ParseCrawlRule(got.String()); err != nil || back != got {
			t.Errorf("%q does not read back: %+v, %v", got.String(), back, err)
		}
	}
}

// TestDomainsYAML: the elastic keys of amber's own config, both rule forms, and a marshalled
// config that reads back the same.
func TestDomainsYAML(t *testing.T) {
	c, err := ParseConfig([]byte(`seeds: [http://www.example.com/]
scope:
  flavour: elastic
  max_crawl_depth: 3
  domains:
    - url: http://www.example.com
      crawl_rules:
        - deny begins /blog
        - {policy: allow, type: regex, pattern: .*}
      sitemap_urls: [http://www.example.com/sitemap.xml]
sitemaps:
  robots: false
  urls: [http://www.example.com/other.xml]
documents:
  extraction_rulesets:
    - domain: http://docs.example.com
      url_filters: [{type: begins, pattern: /docs/}]
      rules:
        - {action: extract, field_name: authors, selector: .author, join_as: array, source: html}
`), "amber.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := c.Scope.Domains
	if len(d) != 1 || len(d[0].CrawlRules) != 2 || d[0].CrawlRules[0] != (CrawlRuleSpec{"deny", "begins", "/blog"}) ||
		d[0].CrawlRules[1] != (CrawlRuleSpec{"allow", "regex", ".*"}) || *c.Scope.MaxCrawlDepth != 3 {
		t.Fatalf("scope = %+v", c.Scope)
	}
	if c.Sitemaps.Robots == nil || *c.Sitemaps.Robots || len(c.Sitemaps.URLs) != 1 {
		t.Errorf("sitemaps = %+v", c.Sitemaps)
	}
	if rs := c.Documents.ExtractionRulesets; len(rs) != 1 || rs[0].Domain != "http://docs.example.com" || rs[0].Rules[0].Selector != ".author" {
		t.Errorf("extraction rulesets = %+v", rs)
	}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseConfig(out, "crawl.yaml")
	if err != nil {
		t.Fatalf("marshalled config does not read back: %v\n%s", err, out)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s\n%s", diff, out)
	}
	if _, err := ParseConfig([]byte("scope:\n  domains:\n    - url: http://a.example\n      crawl_rules: [deny begins]\n"), "bad.yaml"); err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("a bad string rule: err = %v, want one naming line 4", err)
	}
}

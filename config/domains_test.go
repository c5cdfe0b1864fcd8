package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawlrule"
	"github.com/amber-crawler/amber/scope"
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
		{in: "deny regex (?=x)", err: true},
		{in: "deny regex [", err: true},
		{in: "", err: true},
	} {
		got, err := ParseCrawlRule(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("ParseCrawlRule(%q): err = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrConfig) || !errors.Is(err, crawlrule.ErrRule) || !strings.Contains(err.Error(), tc.in) {
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
	c, err := Parse([]byte(`seeds: [http://www.example.com/]
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
	back, err := Parse(out, "crawl.yaml")
	if err != nil {
		t.Fatalf("marshalled config does not read back: %v\n%s", err, out)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s\n%s", diff, out)
	}
	if _, err := Parse([]byte("scope:\n  domains:\n    - url: http://a.example\n      crawl_rules: [deny begins]\n"), "bad.yaml"); err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("a bad string rule: err = %v, want one naming line 4", err)
	}
}

// TestDomainsScope: the crawl rules of each domain compiled in order, in either case; a bad
// rule names its domain and its place (from 1); the result is a scope the elastic flavour
// takes and decides with.
func TestDomainsScope(t *testing.T) {
	ds := []DomainSpec{
		{URL: "http://www.example.com", CrawlRules: []CrawlRuleSpec{{"deny", "begins", "/blog"}, {"Allow", "REGEX", ".*"}}},
		{URL: "http://docs.example.com", CrawlRules: []CrawlRuleSpec{{"deny", "ends", ".pdf"}}},
		{URL: "http://api.example.com"},
	}
	got, err := DomainsScope(ds)
	if err != nil {
		t.Fatal(err)
	}
	var rules [][]string
	for _, d := range got {
		var rs []string
		for _, r := range d.Rules {
			rs = append(rs, r.String())
		}
		rules = append(rules, rs)
	}
	want := [][]string{{"deny begins /blog", "allow regex .*"}, {"deny ends .pdf"}, nil}
	if diff := cmp.Diff(want, rules); diff != "" || got[1].URL != "http://docs.example.com" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	s, err := scope.New(scope.Config{Flavour: scope.Elastic, Domains: got, Seeds: []scope.Seed{{URL: "http://www.example.com/"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Decide(scope.Candidate{URL: "http://www.example.com/blog/x", Hops: "L"}); d.In || d.Reason != "crawl-rule:1:deny:begins:/blog" {
		t.Errorf("Decide = %+v", d)
	}

	for _, tc := range []struct {
		name  string
		ds    []DomainSpec
		place string
	}{
		{"bad policy", []DomainSpec{{URL: "http://a.example", CrawlRules: []CrawlRuleSpec{{"block", "begins", "/x"}}}}, "http://a.example: crawl rule 1"},
		{"second rule", []DomainSpec{{URL: "http://a.example"}, {URL: "http://b.example",
			CrawlRules: []CrawlRuleSpec{{"deny", "begins", "/x"}, {"deny", "regex", `(a)\1`}}}}, "http://b.example: crawl rule 2"},
		{"empty pattern", []DomainSpec{{URL: "http://a.example", CrawlRules: []CrawlRuleSpec{{"deny", "ends", ""}}}}, "http://a.example: crawl rule 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DomainsScope(tc.ds)
			if !errors.Is(err, ErrConfig) || !errors.Is(err, crawlrule.ErrRule) || !strings.Contains(err.Error(), tc.place) {
				t.Errorf("DomainsScope: %v; want an ErrConfig and ErrRule naming %q", err, tc.place)
			}
		})
	}
}

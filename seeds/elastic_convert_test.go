package seeds

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const convertSample = `domains:
  - url: HTTP://WWW.Example.com:80
    seed_urls: [http://www.example.com/start.html]
    sitemap_urls: [http://www.example.com/sitemap.xml]
    crawl_rules:
      - {policy: deny, type: begins, pattern: /blog}
      - {policy: allow, type: regex, pattern: .*}
  - url: https://docs.example.com
    extraction_rulesets:
      - url_filters: [{type: begins, pattern: /docs/}]
        rules:
          - {action: extract, field_name: authors, selector: .author, join_as: array, source: html}
max_crawl_depth: 3
max_unique_url_count: 5000
max_duration: 3600
max_title_size: 500
binary_content_extraction_enabled: true
binary_content_extraction_mime_types: [application/pdf]
sitemap_discovery_disabled: true
loopback_allowed: true
ssl_verification_mode: none
user_agent: Museum-Crawler (archive@example.org)
output_sink: file
output_dir: output/site
`

// TestConvertElastic maps every key of a sample onto amber's model, and the rendered YAML
// reads back as the same config with each mapped key commented.
func TestConvertElastic(t *testing.T) {
	e, err := ParseElastic([]byte(convertSample), "crawler.yml")
	if err != nil {
		t.Fatal(err)
	}
	cv, err := e.Convert()
	if err != nil {
		t.Fatal(err)
	}
	c := cv.Config
	three, off := 3, false
	want := &Config{
		Seeds: []SeedSpec{{URL: "http://www.example.com/start.html"}, {URL: "https://docs.example.com/"}},
		Scope: ScopeSpec{Flavour: "elastic", MaxCrawlDepth: &three, Domains: []DomainSpec{
			{URL: "http://www.example.com", SitemapURLs: []string{"http://www.example.com/sitemap.xml"},
				CrawlRules: []CrawlRuleSpec{{"deny", "begins", "/blog"}, {"allow", "regex", ".*"}}},
			{URL: "https://docs.example.com"},
		}},
		Limits:    Limits{URLs: 5000, Time: time.Hour},
		UserAgent: "Museum-Crawler (archive@example.org)",
		Network:   Network{AllowPrivate: true},
		Sitemaps:  Sitemaps{Robots: &off},
		Documents: Documents{MaxTitleSize: 500, BinaryMIMETypes: []string{"application/pdf"},
			ExtractionRulesets: []ExtractionRulesetSpec{{Domain: "https://docs.example.com",
				URLFilters: []ElasticURLFilter{{Type: "begins", Pattern: "/docs/"}},
				Rules:      []ElasticRule{{Action: "extract", FieldName: "authors", Selector: ".author", JoinAs: "array", Source: "html"}}}}},
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("converted config (-want +got):\n%s", diff)
	}
	out, err := cv.Render("crawler.yml")
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseConfig(out, "converted.yaml")
	if err != nil {
		t.Fatalf("rendered config does not parse: %v\n%s", err, out)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Errorf("rendered config reads back differently (-want +got):\n%s\n%s", diff, out)
	}
	for _, s := range []string{
		"max_crawl_depth: 3 # from max_crawl_depth",
		"urls: 5000 # from max_unique_url_count",
		"# from domains[1].seed_urls",
		"robots: false # from sitemap_discovery_disabled",
		"# - domains[1] (https://docs.example.com) has no seed_urls",
		"output_dir \"output/site\": give the crawl directory with --dir",
	} {
		if !strings.Contains(string(out), s) {
			t.Errorf("rendered config lacks %q:\n%s", s, out)
		}
	}
}

// TestConvertElasticRefuses: keys amber's config cannot hold yet are errors naming them.
func TestConvertElasticRefuses(t *testing.T) {
	const d = "domains:\n  - url: https://example.com\n"
	for _, tc := range []struct{ yaml, key string }{
		{d + "auth:\n  - {domain: https://example.com, type: raw, header: t}\n", "auth"},
		{d + "auth.domain: https://example.com\nauth.type: basic\nauth.username: u\nauth.password: p\n", "auth"},
		{d + "http_auth_allowed: true\n", "http_auth_allowed"},
		{d + "http_proxy_host: proxy\n", "http_proxy_host"},
		{"domains:\n  - url: https://example.com\n    http_headers:\n      - {X-Key: v}\n", "domains[0].http_headers"},
	} {
		e, err := ParseElastic([]byte(tc.yaml), "x.yml")
		if err != nil {
			t.Fatalf("%s: %v", tc.key, err)
		}
		_, err = e.Convert()
		if !errors.Is(err, ErrElasticConfig) || !strings.Contains(err.Error(), tc.key+":") {
			t.Errorf("%s: err = %v", tc.key, err)
		}
	}
}

package elastic

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
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
	e, err := Parse([]byte(convertSample), "crawler.yml")
	if err != nil {
		t.Fatal(err)
	}
	cv, err := e.Convert()
	if err != nil {
		t.Fatal(err)
	}
	c := cv.File
	three, off := 3, false
	want := &config.File{
		Seeds: []config.SeedSpec{{URL: "http://www.example.com/start.html"}, {URL: "https://docs.example.com/"}},
		Scope: config.ScopeSpec{Flavour: "elastic", MaxCrawlDepth: &three, Domains: []config.DomainSpec{
			{URL: "http://www.example.com", SitemapURLs: []string{"http://www.example.com/sitemap.xml"},
				CrawlRules: []config.CrawlRuleSpec{{Policy: "deny", Type: "begins", Pattern: "/blog"}, {Policy: "allow", Type: "regex", Pattern: ".*"}}},
			{URL: "https://docs.example.com"},
		}},
		Limits:    config.Limits{URLs: 5000, Time: time.Hour},
		UserAgent: "Museum-Crawler (archive@example.org)",
		Network:   config.Network{AllowPrivate: true},
		Sitemaps:  config.Sitemaps{Robots: &off},
		Documents: config.Documents{MaxTitleSize: 500, BinaryMIMETypes: []string{"application/pdf"},
			ExtractionRulesets: []config.ExtractionRulesetSpec{{Domain: "https://docs.example.com",
				URLFilters: []config.URLFilterSpec{{Type: "begins", Pattern: "/docs/"}},
				Rules:      []config.ExtractionRuleSpec{{Action: "extract", FieldName: "authors", Selector: ".author", JoinAs: "array", Source: "html"}}}}},
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("converted config (-want +got):\n%s", diff)
	}
	out, err := cv.Render("crawler.yml")
	if err != nil {
		t.Fatal(err)
	}
	back, err := config.Parse(out, "converted.yaml")
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

const convertAccessSample = `domains:
  - url: https://www.example.com
    http_headers:
      - {X-Archive: museum}
      - {Cookie: "jwt-token=c00kie"}
  - url: http://api.example.com
    http_headers:
      - {Authorization: "Bearer T0KEN-42"}
auth:
  - {domain: "https://www.example.com", type: basic, username: alice, password: s3cret}
  - {domain: "http://intranet.example.com", type: raw, header: "Token xyz-789"}
http_auth_allowed: true
http_proxy_host: proxy.example.org
http_proxy_username: crawler
http_proxy_password: pr0xy-pw
`

// TestConvertElasticAccess: auth (both forms), http_auth_allowed, http_headers and
// http_proxy_* map onto amber's keys; Convert keeps the secrets (a crawl runs from its
// config.File), Render writes env: references in their place and says which variable is which.
func TestConvertElasticAccess(t *testing.T) {
	e, err := Parse([]byte(convertAccessSample), "crawler.yml")
	if err != nil {
		t.Fatal(err)
	}
	cv, err := e.Convert()
	if err != nil {
		t.Fatal(err)
	}
	c := cv.File
	wantAuth := []config.AuthSpec{
		{Origin: "https://www.example.com", Type: "basic", Username: "alice", Password: "s3cret"},
		{Origin: "http://intranet.example.com", Type: "raw", Value: "Token xyz-789"},
		{Origin: "http://api.example.com", Type: "raw", Value: "Bearer T0KEN-42"},
	}
	if diff := cmp.Diff(wantAuth, c.Auth); diff != "" {
		t.Errorf("auth (-want +got):\n%s", diff)
	}
	wantHeaders := map[string]config.HeaderMap{"https://www.example.com": {"X-Archive": "museum", "Cookie": "jwt-token=c00kie"}}
	if diff := cmp.Diff(wantHeaders, c.OriginHeaders); diff != "" {
		t.Errorf("origin_headers (-want +got):\n%s", diff)
	}
	if want := (&config.ProxySpec{URL: "http://proxy.example.org:8080", Username: "crawler", Password: "pr0xy-pw"}); !cmp.Equal(want, c.Proxy) {
		t.Errorf("proxy = %+v, want %+v", c.Proxy, want)
	}
	if !c.HTTPAuthAllowed {
		t.Error("http_auth_allowed not converted")
	}

	out, err := cv.Render("crawler.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"s3cret", "xyz-789", "T0KEN-42", "pr0xy-pw", "c00kie"} {
		if strings.Contains(string(out), secret) {
			t.Errorf("rendered config holds the secret %q:\n%s", secret, out)
		}
	}
	for _, s := range []string{
		"# from auth[0]", "# from domains[1].http_headers[0].Authorization", "password: env:AMBER_AUTH_0_PASSWORD",
		"value: env:AMBER_AUTH_1_VALUE", "value: env:AMBER_AUTH_2_VALUE", "password: env:AMBER_PROXY_PASSWORD",
		"Cookie: env:AMBER_COOKIE_0", "X-Archive: museum", "http_auth_allowed: true # from http_auth_allowed",
		"proxy: # from http_proxy_host", "url: http://proxy.example.org:8080", "username: crawler",
		"# - AMBER_AUTH_0_PASSWORD: the value of auth[0].password\n",
		"# - AMBER_AUTH_1_VALUE: the value of auth[1].header\n",
		"# - AMBER_AUTH_2_VALUE: the value of domains[1].http_headers[0].Authorization\n",
		"# - AMBER_PROXY_PASSWORD: the value of http_proxy_password\n",
		"# - AMBER_COOKIE_0: the value of domains[0].http_headers[1].Cookie\n",
		"http_proxy_port not given: 8080",
	} {
		if !strings.Contains(string(out), s) {
			t.Errorf("rendered config lacks %q:\n%s", s, out)
		}
	}
	// With the variables set, the rendered file is the same crawl as the Elastic one.
	back, err := config.Parse(out, "converted.yaml")
	if err != nil {
		t.Fatalf("rendered config does not parse: %v\n%s", err, out)
	}
	vars := map[string]string{"AMBER_AUTH_0_PASSWORD": "s3cret", "AMBER_AUTH_1_VALUE": "Token xyz-789",
		"AMBER_AUTH_2_VALUE": "Bearer T0KEN-42", "AMBER_PROXY_PASSWORD": "pr0xy-pw", "AMBER_COOKIE_0": "jwt-token=c00kie"}
	got, err := back.Access(func(k string) (string, bool) { v, ok := vars[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	want, err := c.Access(nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(x, y *url.Userinfo) bool { return x.String() == y.String() })); diff != "" {
		t.Errorf("access of the rendered config (-elastic +rendered):\n%s", diff)
	}
	// Render left the converted config as it was.
	if c.Auth[0].Password != "s3cret" || c.OriginHeaders["https://www.example.com"]["Cookie"] != "jwt-token=c00kie" {
		t.Error("Render changed the converted config")
	}
}

// TestConvertElasticAuthForms: the older flat auth.* keys, an origin given twice (the last
// wins, as in the open crawler), and credentials sent over http only with http_auth_allowed.
func TestConvertElasticAuthForms(t *testing.T) {
	const d = "domains:\n  - url: http://example.com\n"
	for _, tc := range []struct {
		name, yaml string
		want       []config.AuthSpec
		allowed    bool
		notes      []string
		comment    string
	}{
		{"flat keys", d + "auth.domain: http://example.com\nauth.type: basic\nauth.username: u\nauth.password: p\n",
			[]config.AuthSpec{{Origin: "http://example.com", Type: "basic", Username: "u", Password: "p"}}, false,
			[]string{"without http_auth_allowed: true the credentials are not sent over plain http"}, "# - AMBER_AUTH_0_PASSWORD: the value of auth.password\n"},
		{"same origin twice", d + "http_auth_allowed: true\nauth:\n  - {domain: http://example.com, type: raw, header: first}\n  - {domain: 'HTTP://example.com:80', type: raw, header: second}\n",
			[]config.AuthSpec{{Origin: "http://example.com", Type: "raw", Value: "second"}}, true,
			[]string{"auth[1] and an earlier entry are both for http://example.com"}, "  # from auth[1]\n  - origin: http://example.com\n    type: raw\n    value: env:AMBER_AUTH_0_VALUE\n"},
		{"allowed without auth", d + "http_auth_allowed: true\n", nil, true, nil, "http_auth_allowed: true # from http_auth_allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Parse([]byte(tc.yaml), "x.yml")
			if err != nil {
				t.Fatal(err)
			}
			cv, err := e.Convert()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, cv.File.Auth); diff != "" {
				t.Errorf("auth (-want +got):\n%s", diff)
			}
			if cv.File.HTTPAuthAllowed != tc.allowed {
				t.Errorf("http_auth_allowed = %v, want %v", cv.File.HTTPAuthAllowed, tc.allowed)
			}
			notes := strings.Join(cv.Notes, "\n")
			for _, n := range tc.notes {
				if !strings.Contains(notes, n) {
					t.Errorf("notes lack %q:\n%s", n, notes)
				}
			}
			out, err := cv.Render("x.yml")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), tc.comment) {
				t.Errorf("rendered config lacks %q:\n%s", tc.comment, out)
			}
		})
	}
}

// TestConvertElasticRefuses: an Authorization field in a domain's http_headers when the
// domain has an auth entry too is an error naming the field.
func TestConvertElasticRefuses(t *testing.T) {
	const y = "domains:\n  - url: https://example.com\n    http_headers:\n      - {authorization: t}\nauth:\n  - {domain: https://example.com, type: raw, header: u}\n"
	e, err := Parse([]byte(y), "x.yml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Convert()
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "domains[0].http_headers[0].authorization:") {
		t.Errorf("err = %v", err)
	}
}

// TestElasticsearchYMLBesideFileSink: the open crawler reads config/elasticsearch.yml beside
// every crawler.yml; with output_sink file its connection is unused, and the two files
// combined build a crawl that sends no document anywhere (no error, no sink).
func TestElasticsearchYMLBesideFileSink(t *testing.T) {
	parts := []config.Part{}
	for name, data := range map[string]string{
		"crawler.yml":       "domains: [{url: 'https://example.com'}]\noutput_sink: file\n",
		"elasticsearch.yml": "elasticsearch.host: http://127.0.0.1\nelasticsearch.port: 9200\noutput_index: site\n",
	} {
		c, err := Parse([]byte(data), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cv, err := c.Convert()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		parts = append(parts, config.Part{Name: name, File: cv.File, Converted: cv})
	}
	f, err := config.Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	if f.Index.Sink != "" {
		t.Errorf("index.sink = %q, want none", f.Index.Sink)
	}
	cfg, err := config.Build(f, config.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if len(cfg.Services) != 0 {
		t.Errorf("services %v, want none", cfg.Services)
	}
}

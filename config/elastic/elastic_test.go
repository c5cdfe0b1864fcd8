package elastic

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/config"
)

// TestParseElasticSite reads the Elastic test site's config as the open crawler wrote it.
func TestParseElasticSite(t *testing.T) {
	p := filepath.Join("..", "..", "testdata", "sites", "elastic", "crawler.yml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !Is(data) {
		t.Fatalf("Is(%s) = false", p)
	}
	c, err := LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Domains) != 3 || c.Domains[0].URL != "http://www.example.com" || len(c.Domains[0].CrawlRules) != 4 {
		t.Fatalf("domains = %+v", c.Domains)
	}
	if r := c.Domains[0].CrawlRules[0]; r != (CrawlRule{Policy: "deny", Type: "begins", Pattern: "/blog"}) {
		t.Errorf("first crawl rule = %+v", r)
	}
	rs := c.Domains[1].ExtractionRulesets
	if len(rs) != 1 || len(rs[0].Rules) != 3 || rs[0].Rules[1].Selector != `/docs/v(\d+)/` || rs[0].Rules[1].Source != "url" {
		t.Errorf("extraction rulesets = %+v", rs)
	}
	auths, err := c.AuthEntries()
	if err != nil || len(auths) != 2 || auths[0].Username != "alice" || auths[1].Header != "Bearer T0KEN-42" {
		t.Errorf("auth = %+v, %v", auths, err)
	}
	if c.MaxCrawlDepth == nil || *c.MaxCrawlDepth != 3 || c.HTTPAuthAllowed == nil || !*c.HTTPAuthAllowed {
		t.Errorf("max_crawl_depth %v, http_auth_allowed %v", c.MaxCrawlDepth, c.HTTPAuthAllowed)
	}
}

// TestIsElasticConfig tells an Elastic file from amber's own configs.
func TestIsElasticConfig(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       bool
	}{
		{"elastic", "domains:\n  - url: https://example.com\n", true},
		{"amber", "collection: x\nseeds: [https://example.com/]\n", false},
		{"amber museum", mustRead(t, filepath.Join("..", "..", "testdata", "scope", "museums.yaml")), false},
		{"domains of strings", "domains: [https://example.com]\n", false},
		{"a domain without url", "domains:\n  - url: https://a.example\n  - seed_urls: [https://b.example/]\n", false},
		{"empty", "", false},
		{"not YAML", "domains: [\n", false},
	} {
		if got := Is([]byte(tc.yaml)); got != tc.want {
			t.Errorf("%s: Is = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParseElasticErrors: every refusal names the key (and its line where the file has one).
func TestParseElasticErrors(t *testing.T) {
	const d = "domains:\n  - url: https://example.com\n"
	for _, tc := range []struct {
		name, yaml string
		want       []string // substrings of the error
	}{
		{"empty file", "", []string{"empty file"}},
		{"no domains", "max_crawl_depth: 2\n", []string{"at least one domain"}},
		{"unknown key", d + "crawl_speed: fast\n", []string{"crawl_speed", "line 3"}},
		{"unknown domain key", "domains:\n  - url: https://example.com\n    depth: 3\n", []string{"depth", "line 3"}},
		{"schedule", d + "schedule:\n  pattern: \"0 12 * * *\"\n", []string{"schedule", "cron", "line 3"}},
		{"unknown sink", d + "output_sink: kafka\n", []string{"output_sink", "kafka"}},
		{"unknown elasticsearch key", d + "elasticsearch:\n  hots: http://localhost\n", []string{"hots", "line 4"}},
		{"unknown dotted elasticsearch key", d + "elasticsearch.bulk_api.max_itmes: 3\n", []string{"max_itmes"}},
		{"retry_on_failure not a count", d + "elasticsearch:\n  retry_on_failure: often\n", []string{"retry_on_failure"}},
		{"log rotation", d + "log_file_rotation_policy: hourly\n", []string{"log_file_rotation_policy", "hourly"}},
		{"domain auth of a known type", "domains:\n  - url: https://example.com\n    auth: {type: digest, username: u}\n", []string{"domains[0].auth.type", "digest"}},
		{"domain auth basic without username", "domains:\n  - url: https://example.com\n    auth: {type: basic, password: p}\n", []string{"domains[0].auth", "username"}},
		{"unknown sink", d + "output_sink: kafka\n", []string{"output_sink", "kafka"}},
		{"domain with path", "domains:\n  - url: https://example.com/blog\n", []string{"domains[0].url", "path", "line 2"}},
		{"domain not http", "domains:\n  - url: ftp://example.com\n", []string{"domains[0].url", "http"}},
		{"domain without scheme", "domains:\n  - url: example.com\n", []string{"domains[0].url"}},
		{"same domain twice", "domains:\n  - url: https://Example.com\n  - url: https://example.com:443\n", []string{"domains[1].url", "domains[0]"}},
		{"relative seed", "domains:\n  - url: https://example.com\n    seed_urls: [/start]\n", []string{"seed_urls[0]"}},
		{"bad sitemap", "domains:\n  - url: https://example.com\n    sitemap_urls: [ftp://example.com/s.xml]\n", []string{"sitemap_urls[0]"}},
		{"bad policy", "domains:\n  - url: https://example.com\n    crawl_rules:\n      - policy: allow\n        type: begins\n        pattern: /a\n      - policy: block\n        type: begins\n        pattern: /b\n",
			[]string{"line 7", "crawl_rules[1]", `policy "block"`}},
		{"bad rule type", "domains:\n  - url: https://example.com\n    crawl_rules:\n      - {policy: deny, type: glob, pattern: /a}\n", []string{"crawl_rules[0]", `type "glob"`}},
		{"empty pattern", "domains:\n  - url: https://example.com\n    crawl_rules:\n      - {policy: deny, type: begins}\n", []string{"crawl_rules[0]", "empty pattern"}},
		{"ruby regex", "domains:\n  - url: https://example.com\n    crawl_rules:\n      - {policy: deny, type: regex, pattern: '/a(?=b)'}\n", []string{"crawl_rules[0]", "lookahead"}},
		{"ruleset without rules", "domains:\n  - url: https://example.com\n    extraction_rulesets:\n      - url_filters: [{type: begins, pattern: /a}]\n", []string{"extraction_rulesets[0].rules"}},
		{"bad url filter", "domains:\n  - url: https://example.com\n    extraction_rulesets:\n      - url_filters: [{type: starts, pattern: /a}]\n        rules: [{action: set, field_name: f, selector: x, value: v}]\n", []string{"url_filters[0]"}},
		{"auth unknown type", d + "auth:\n  - {domain: https://example.com, type: digest, username: u, password: p}\n", []string{"auth[0].type", "digest"}},
		{"auth unknown key", d + "auth:\n  - {domain: https://example.com, type: basic, user: u}\n", []string{"user"}},
		{"raw without header", d + "auth:\n  - {domain: https://example.com, type: raw}\n", []string{"auth[0]", "header"}},
		{"basic without username", d + "auth:\n  - {domain: https://example.com, type: basic, password: p}\n", []string{"auth[0]", "username"}},
		{"auth domain with path", d + "auth:\n  - {domain: https://example.com/x, type: raw, header: t}\n", []string{"auth[0].domain"}},
		{"both auth forms", d + "auth.domain: https://example.com\nauth.type: raw\nauth.header: t\nauth:\n  - {domain: https://example.com, type: raw, header: t}\n", []string{"not both"}},
		{"proxy pieces without host", d + "http_proxy_port: 3128\n", []string{"http_proxy_host"}},
		{"proxy protocol", d + "http_proxy_host: p\nhttp_proxy_protocol: socks5\n", []string{"http_proxy_protocol"}},
		{"ssl mode", d + "ssl_verification_mode: lax\n", []string{"ssl_verification_mode"}},
		{"log level", d + "log_level: loud\n", []string{"log_level"}},
		{"wrong type", d + "max_crawl_depth: deep\n", []string{"max_crawl_depth", "line 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), "crawler.yml")
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("err = %v, want ErrConfig", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), "crawler.yml") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

// TestParseElasticValues: the open crawler's spellings (underscored numbers, the flat auth.*
// keys, content_extraction_* names) and the proxy's defaults.
func TestParseElasticValues(t *testing.T) {
	c, err := Parse([]byte(`domains:
  - url: https://example.com
max_body_size: 5_242_880
auth.domain: https://example.com
auth.type: basic
auth.username: user
auth.password: pass
http_proxy_host: proxy.internal
http_proxy_username: u
http_proxy_password: p
content_extraction_enabled: true
content_extraction_mime_types: [application/pdf]
`), "x.yml")
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxBodySize == nil || *c.MaxBodySize != 5242880 {
		t.Errorf("max_body_size = %v", c.MaxBodySize)
	}
	auths, err := c.AuthEntries()
	if err != nil || len(auths) != 1 || auths[0] != (Auth{Domain: "https://example.com", Type: "basic", Username: "user", Password: "pass", from: "auth.*"}) {
		t.Errorf("auth entries = %+v, %v", auths, err)
	}
	if p := c.ProxyURL(); p == nil || p.String() != "http://u:p@proxy.internal:8080" {
		t.Errorf("proxy = %v, want http://u:p@proxy.internal:8080", p)
	}
	if c.ContentExtractionEnabled == nil || !*c.ContentExtractionEnabled || len(c.ContentExtractionMIMETypes) != 1 {
		t.Errorf("content extraction = %v %v", c.ContentExtractionEnabled, c.ContentExtractionMIMETypes)
	}
}

func TestElasticOrigin(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://example.com", "http://example.com"},
		{"HTTPS://Example.COM/", "https://example.com"},
		{"https://example.com:443", "https://example.com"},
		{"http://example.com:80", "http://example.com"},
		{"https://example.com:8443", "https://example.com:8443"},
		{"http://[::1]:8080", "http://[::1]:8080"},
		{"http://example.com/a", ""},
		{"http://example.com?q", ""},
		{"http://user@example.com", ""},
		{"mailto:a@example.com", ""},
		{"http://", ""},
	} {
		got, err := config.Origin(tc.in)
		if (err != nil) != (tc.want == "") || got != tc.want {
			t.Errorf("Origin(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// FuzzParseElastic: any bytes give a config or an ErrConfig error, never a panic.
func FuzzParseElastic(f *testing.F) {
	f.Add([]byte(mustReadF(f, filepath.Join("..", "..", "testdata", "sites", "elastic", "crawler.yml"))))
	f.Add([]byte("domains:\n  - url: https://example.com\nauth.type: raw\n"))
	f.Add([]byte("domains: [{url: 'http://[::1]:80'}]\nschedule: {pattern: x}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "fuzz.yml")
		if err != nil {
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v does not wrap ErrConfig", err)
			}
			return
		}
		if len(c.Domains) == 0 && !c.connectionOnly() {
			t.Fatal("a config without domains (and not an elasticsearch.yml) was accepted")
		}
		_ = c.ProxyURL()
	})
}

func mustReadF(f *testing.F, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	return string(b)
}

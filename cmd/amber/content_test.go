package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/contentfilter"
	"github.com/amber-crawler/amber/crawl"
)

// TestContentYAML: the content section (FAST's allowed_types, uri_search_mime,
// exclude_headers) reaches crawl.Config, is written back to crawl.yaml as it ran, and a bad
// type, field name or pattern is refused naming what is wrong.
func TestContentYAML(t *testing.T) {
	// view is contentfilter.Config with each header rule written NAME PATTERN.
	type view struct {
		Types, LinkTypes, Headers []string
	}
	see := func(c contentfilter.Config) view {
		v := view{Types: c.Types, LinkTypes: c.LinkTypes}
		for _, r := range c.ExcludeHeaders {
			v.Headers = append(v.Headers, r.Name+" "+r.Pattern.String())
		}
		return v
	}
	tests := []struct {
		name    string
		yaml    string
		want    view
		wantErr string
	}{
		{"none", "", view{}, ""},
		{"all set", `content:
  types: [text/html, "text/*", application/pdf]
  link_types: [text/html]
  exclude_headers:
    x-robots-tag: [noarchive, "^none$"]
    Content-Language: ["^fr"]
`, view{Types: []string{"text/html", "text/*", "application/pdf"}, LinkTypes: []string{"text/html"},
			Headers: []string{"Content-Language ^fr", "X-Robots-Tag noarchive", "X-Robots-Tag ^none$"}}, ""},
		{"bad type", "content:\n  types: [text]\n", view{}, "Content.Types"},
		{"partial wildcard", "content:\n  link_types: [text/x-*]\n", view{}, "Content.LinkTypes"},
		{"bad field name", "content:\n  exclude_headers: {\"X Y\": [a]}\n", view{}, "content.exclude_headers"},
		{"bad pattern", "content:\n  exclude_headers: {Server: [\"a(\"]}\n", view{}, "content.exclude_headers"},
		{"unknown key", "content:\n  mime_types: [text/html]\n", view{}, "mime_types"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSetting(t, tt.yaml, nil, tt.wantErr, tt.want, func(c crawl.Config) view { return see(c.Content) })
		})
	}
}

// TestSessionCookieTTLYAML: session_cookie_ttl (FAST's cookie_timeout) reaches
// crawl.Config, survives crawl.yaml, and a negative one is refused.
func TestSessionCookieTTLYAML(t *testing.T) {
	for _, tt := range []struct {
		yaml    string
		want    time.Duration
		wantErr string
	}{
		{"", 0, ""},
		{"session_cookie_ttl: 15m\n", 15 * time.Minute, ""},
		{"session_cookie_ttl: -1s\n", 0, "SessionCookieTTL"},
		{"session_cookie_ttl: soon\n", 0, "session_cookie_ttl"},
	} {
		t.Run(tt.yaml, func(t *testing.T) {
			checkSetting(t, tt.yaml, nil, tt.wantErr, tt.want, func(c crawl.Config) time.Duration { return c.SessionCookieTTL })
		})
	}
}

// TestPostPayloadsYAML: post_payloads (FAST's post_payload) reach crawl.Config, a body
// env:NAME read from the environment and written to crawl.yaml as env:NAME; an entry with
// both or neither of url and prefix, an unset variable and a URL that is not http(s) are
// refused.
func TestPostPayloadsYAML(t *testing.T) {
	t.Setenv("AMBER_TEST_POST_BODY", "token=s3cret")
	for _, tt := range []struct {
		name, yaml string
		want       []crawl.PostPayload
		wantErr    string
	}{
		{"none", "", nil, ""},
		{"url and prefix", `post_payloads:
  - {url: http://www.example.com/search, body: "q=a&b=c"}
  - {prefix: http://www.example.com/secure/, body: env:AMBER_TEST_POST_BODY}
`, []crawl.PostPayload{{URL: "http://www.example.com/search", Body: "q=a&b=c"},
			{URL: "http://www.example.com/secure/", Prefix: true, Body: "token=s3cret"}}, ""},
		{"both", "post_payloads: [{url: http://a.example.com/, prefix: http://a.example.com/, body: x}]\n", nil, "post_payloads[0]"},
		{"neither", "post_payloads: [{body: x}]\n", nil, "post_payloads[0]"},
		{"unset variable", "post_payloads: [{url: http://a.example.com/, body: env:AMBER_TEST_UNSET_VARIABLE}]\n", nil, "post_payloads[0].body"},
		{"not http", "post_payloads: [{url: ftp://a.example.com/, body: x}]\n", nil, "PostPayloads[0]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, c, err := yamlCrawlConfig(t, tt.yaml)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.PostPayloads); diff != "" {
				t.Errorf("PostPayloads (-want +got):\n%s", diff)
			}
			if strings.Contains(string(c.EffectiveConfig), "s3cret") {
				t.Errorf("crawl.yaml holds the body read from the environment:\n%s", c.EffectiveConfig)
			}
			again, _ := readBack(t, c)
			if diff := cmp.Diff(cfg.PostPayloads, again.PostPayloads); diff != "" {
				t.Errorf("crawl.yaml post_payloads (-given +read again):\n%s", diff)
			}
		})
	}
}

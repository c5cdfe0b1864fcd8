package main

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
)

// TestSubcollectionsYAML: subcollections in the YAML become crawl.Config.Subcollections, are
// kept in crawl.yaml, and what the crawl refuses is an error before the crawl starts.
func TestSubcollectionsYAML(t *testing.T) {
	const yaml = `subcollections:
  - name: news
    match: ["regex:https?://news\\.example\\.com/.*"]
    except: [{contains: /archive/}]
    seeds: [http://news.example.com/]
    host_delay: 10s
    urls_per_host: 5
    oversize: drop
    headers: {x-team: news}
    response_size: 1KiB
  - name: js
    fetcher: browser
    schemes: [https]
    max_hops: 2
    sitemaps: true
`
	cfg, c, err := yamlCrawlConfig(t, yaml)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Scope.Seeds); n != 2 {
		t.Errorf("%d seeds, want the collection's and the subcollection's", n)
	}
	if len(c.Subcollections) != 2 {
		t.Fatalf("%d subcollections, want 2", len(c.Subcollections))
	}
	news, js := c.Subcollections[0], c.Subcollections[1]
	if news.Name != "news" || len(news.Match) != 1 || len(news.Except) != 1 || *news.HostDelay != 10*time.Second ||
		*news.URLsPerHost != 5 || !*news.DropOversize || news.MaxResponseSize != 1024 {
		t.Errorf("news = %+v", news)
	}
	if diff := cmp.Diff(http.Header{"X-Team": {"news"}}, news.Header); diff != "" {
		t.Errorf("news header (-want +got):\n%s", diff)
	}
	if js.Fetcher != crawl.FetcherBrowser || !cmp.Equal(js.Schemes, []string{"https"}) || *js.MaxHops != 2 || !*js.SitemapsRobots || js.DropOversize != nil {
		t.Errorf("js = %+v", js)
	}
	if !strings.Contains(string(c.EffectiveConfig), "subcollections:") || len(cfg.Subcollections) != 2 {
		t.Errorf("crawl.yaml does not keep the subcollections:\n%s", c.EffectiveConfig)
	}

	for _, tc := range []struct {
		name, yaml, field string
	}{
		{"headers with the browser", "subcollections: [{name: a, fetcher: browser, headers: {X-A: '1'}}]", "Subcollections[0]"},
		{"proxy in a browser crawl", "fetcher: browser\nsubcollections: [{name: a, proxy: 'http://p.example:3128'}]", "Subcollections[0]"},
		{"deeper than the collection", "scope: {max_hops: 2}\nsubcollections: [{name: a, max_hops: 3}]", "Subcollections[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := yamlCrawlConfig(t, tc.yaml)
			var fe *crawl.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field {
				t.Errorf("err = %v, want a *crawl.FieldError for %s", err, tc.field)
			}
		})
	}
	if _, _, err := yamlCrawlConfig(t, "subcollections: [{name: a}, {name: a}]"); err == nil || !strings.Contains(err.Error(), "subcollections[1] (a)") {
		t.Errorf("two subcollections named a: err = %v", err)
	}
}

package config

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const subYAML = `seeds: [http://www.example.org/]
subcollections:
  - name: news
    match: ["regex:https?://news\\.example\\.org/.*"]
    except: [{contains: /archive/}]
    seeds: [http://news.example.org/]
    fetcher: browser
    schemes: [http]
    max_hops: 2
    oversize: drop
    host_delay: 10s
    urls_per_host: 5
    sitemaps: true
  - name: intranet.v2
    headers: {X-Team: "env:API_TOKEN"}
    proxy: "http://u:pw@proxy.example.org:3128"
    response_size: 1KiB
`

// TestSubcollections: the YAML keys as written, checked, with rules parsed and the header
// and proxy secrets resolved; the subcollections' seeds are seeds of the crawl.
func TestSubcollections(t *testing.T) {
	c, err := Parse([]byte(subYAML), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.CheckSubcollections(env)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d subcollections, want 2", len(got))
	}
	news, intra := got[0], got[1]
	if news.Name != "news" || news.Fetcher != "browser" || news.Oversize != "drop" || !cmp.Equal(news.Schemes, []string{"http"}) {
		t.Errorf("news: name %q, fetcher %q, oversize %q, schemes %q", news.Name, news.Fetcher, news.Oversize, news.Schemes)
	}
	if *news.HostDelay != 10*time.Second || *news.URLsPerHost != 5 || *news.MaxHops != 2 || !*news.Sitemaps {
		t.Errorf("news: host_delay %v, urls_per_host %d, max_hops %d, sitemaps %v", *news.HostDelay, *news.URLsPerHost, *news.MaxHops, *news.Sitemaps)
	}
	if len(news.MatchRules) != 1 || len(news.ExceptRules) != 1 {
		t.Errorf("news: %d match and %d except rules, want 1 and 1", len(news.MatchRules), len(news.ExceptRules))
	}
	if diff := cmp.Diff(http.Header{"X-Team": {"Bearer tok-from-env"}}, intra.Header); diff != "" {
		t.Errorf("intranet.v2 header (-want +got):\n%s", diff)
	}
	if intra.ProxyURL == nil || intra.ProxyURL.String() != "http://u:pw@proxy.example.org:3128" {
		t.Errorf("intranet.v2 proxy = %v", intra.ProxyURL)
	}
	if intra.ResponseSize != 1024 {
		t.Errorf("intranet.v2 response_size = %d, want 1024", intra.ResponseSize)
	}
	var urls []string
	for _, s := range c.AllSeeds() {
		urls = append(urls, s.URL)
	}
	if diff := cmp.Diff([]string{"http://www.example.org/", "http://news.example.org/"}, urls); diff != "" {
		t.Errorf("AllSeeds (-want +got):\n%s", diff)
	}
	sc, err := c.ScopeConfig("standard")
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Seeds) != 2 {
		t.Errorf("scope has %d seeds, want the collection's and the subcollection's", len(sc.Seeds))
	}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "pw@") || !strings.Contains(string(out), "name: intranet.v2") {
		t.Errorf("crawl.yaml: the proxy password written, or the subcollection left out:\n%s", out)
	}
}

// TestSubcollectionErrors: each invalid value is an error naming the subcollection and key,
// and no error shows a secret.
func TestSubcollectionErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       string // in the error
	}{
		{"no name", "- {fetcher: http}", `subcollections[0] (): name ""`},
		{"name with a space", "- {name: a b}", `name "a b"`},
		{"name with a comma", "- {name: 'a,b'}", `name "a,b"`},
		{"names twice", "- {name: a}\n- {name: b}\n- {name: a}", "subcollections[2] (a): the name of subcollections[0] too"},
		{"bad match rule", "- {name: a, match: ['regex:(']}", "subcollections[0] (a).match[0]"},
		{"bad except rule", "- {name: a, except: ['nokind:x']}", "subcollections[0] (a).except[0]"},
		{"bad seed", "- {name: a, seeds: ['ftp://x.example/']}", "subcollections[0] (a).seeds[0] (ftp://x.example/)"},
		{"fetcher", "- {name: a, fetcher: chrome}", `fetcher "chrome": want http or browser`},
		{"ftp scheme", "- {name: a, schemes: [http, ftp]}", `schemes: "ftp": amber crawls http and https only`},
		{"no scheme", "- {name: a, schemes: []}", "schemes: empty"},
		{"negative hops", "- {name: a, max_hops: -1}", "max_hops -1"},
		{"oversize", "- {name: a, oversize: cut}", `oversize "cut": want truncate or drop`},
		{"negative delay", "- {name: a, host_delay: -1s}", "host_delay -1s"},
		{"negative docs", "- {name: a, urls_per_host: -2}", "urls_per_host -2"},
		{"authorization header", "- {name: a, headers: {Authorization: hunter2}}", "subcollections[0] (a).headers: Authorization"},
		{"proxy password no user", "- {name: a, proxy: {url: 'http://p.example:3128', password: hunter2}}", "subcollections[0] (a): config: invalid config: proxy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte("seeds: [http://a.example/]\nsubcollections:\n"+indent(tc.yaml)), "c.yaml")
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.CheckSubcollections(env)
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("err = %v, want ErrConfig", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("err = %q shows a secret", err)
			}
		})
	}
}

// indent indents each line of s by two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ") + "\n"
}

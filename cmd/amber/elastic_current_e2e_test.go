package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
)

// currentSite serves the site the current crawler.yml.example names (its domain's entry
// points /foo and /bar), on 127.0.0.1: /foo has a header and a footer (exclude_tags), and
// links to a URL of 17 path segments, one of 11 query parameters (max_url_segments 16,
// max_url_params 10) and a /blog page (its crawl rule denies /blog).
func currentSite(t *testing.T) *httptest.Server {
	long := "/" + strings.Repeat("s/", 16) + "x"
	params := "/p?" + strings.Repeat("a=1&", 10) + "b=2"
	pages := map[string]string{
		"/foo": `<html><head><title>Foo</title></head><body><header><h1>Site header</h1></header>
<h2>Foo page</h2><p class="author">Ada</p><p>Foo text.</p>
<a href="/bar">bar</a> <a href="` + long + `">long</a> <a href="` + params + `">params</a> <a href="/blog/post">blog</a>
<footer>Footer text</footer></body></html>`,
		"/bar": `<html><head><title>Bar</title></head><body><p>Bar text.</p></body></html>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := pages[r.URL.Path]; ok {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, p)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCrawlCurrentElasticExample crawls with elastic/crawler's current crawler.yml.example,
// every key uncommented (config/elastic/testdata), changed only where it must be to run
// here: its domain http://localhost:8000 is the test site on 127.0.0.1, the schedule
// (refused), the proxy (none here) and the placeholder CA certificates are taken out, and
// output_sink is file: its Elasticsearch on localhost:9200 with an API key is not here (the
// sink's own tests run against ZincSearch, which takes no API key). It
// checks the notes on the terminal, the URLs left out by max_url_segments, max_url_params
// and the crawl rule, with their reasons in crawl.log, and the document of /foo without the
// header and footer its exclude_tags name.
func TestCrawlCurrentElasticExample(t *testing.T) {
	srv := currentSite(t)
	data, err := os.ReadFile(filepath.Join(crawltest.ModuleRoot(t), "config", "elastic", "testdata", "crawler.yml"))
	if err != nil {
		t.Fatal(err)
	}
	yml := strings.ReplaceAll(string(data), "http://localhost:8000", srv.URL)
	if !strings.Contains(yml, "\noutput_sink: elasticsearch\n") {
		t.Fatal("the example's output_sink is no longer elasticsearch: look at this test again")
	}
	yml = strings.Replace(yml, "\noutput_sink: elasticsearch\n", "\noutput_sink: file\n", 1)
	var kept []string
	skip := false
	for _, l := range strings.Split(yml, "\n") {
		switch {
		case strings.HasPrefix(l, "schedule:"), strings.HasPrefix(l, "ssl_ca_certificates:"):
			skip = true
			continue
		case strings.HasPrefix(l, "http_proxy_"):
			continue
		case skip && (strings.HasPrefix(l, " ") || l == ""):
			continue
		}
		skip = false
		kept = append(kept, l)
	}
	cfgFile := writeFile(t, t.TempDir(), "crawler.yml", strings.Join(kept, "\n"))
	dir := filepath.Join(t.TempDir(), "crawl")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"crawl", "--config", cfgFile, "--dir", dir, "--host-delay", "0"}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	for _, note := range []string{"amber: note: purge_crawl_enabled: ignored", "amber: note: sink_lock_max_retries: ignored", "amber: note: log_file_rotation_policy: ignored"} {
		if !strings.Contains(stderr.String(), note) {
			t.Errorf("stderr lacks %q:\n%s", note, stderr.String())
		}
	}
	reasons := map[string]string{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
		reasons[strings.TrimPrefix(l.URL, srv.URL)] = fmt.Sprint(l.Status, " ", strings.Join(l.Annotations, ","))
	}
	for path, want := range map[string]string{
		"/foo":                               "200",
		"/bar":                               "200",
		"/" + strings.Repeat("s/", 16) + "x": "-5000 scope:url-too-many-segments",
		"/p?" + strings.Repeat("a=1&", 10) + "b=2": "-5000 scope:url-too-many-params",
		"/blog/post": "-5000 scope:crawl-rule:1:deny:begins:/blog",
	} {
		if !strings.HasPrefix(reasons[path], want) {
			t.Errorf("%s: crawl.log %q, want %q", path, reasons[path], want)
		}
	}
	docs, err := os.ReadFile(filepath.Join(dir, crawl.DocumentsFile))
	if err != nil {
		t.Fatal(err)
	}
	var foo string
	for _, l := range strings.Split(string(docs), "\n") {
		if strings.Contains(l, `"url":"`+srv.URL+`/foo"`) {
			foo = l
		}
	}
	if !strings.Contains(foo, `"body_content":"Foo page Ada Foo text. bar long params blog"`) || strings.Contains(foo, "Site header") || strings.Contains(foo, "Footer text") {
		t.Errorf("document of /foo: want its body without header and footer:\n%s", foo)
	}
}

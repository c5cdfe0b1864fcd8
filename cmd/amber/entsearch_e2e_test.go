package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/crawl"
)

// entSearchFiles writes the two files of a crawl of srv: Enterprise Search's settings
// (user agent, threads, a title limit, loopback access, and settings of Enterprise Search
// itself) and an Open Crawler file with the domain, its entry point and a crawl rule.
// extra is added to the Open Crawler file.
func entSearchFiles(t *testing.T, srv string, extra string) (es, oc string) {
	dir := t.TempDir()
	es = writeFile(t, dir, "enterprise-search.yml", `secret_management.encryption_keys: [abc]
elasticsearch.host: http://127.0.0.1:9200
ent_search.external_url: http://localhost:3002
crawler.http.user_agent: "amber-test (+mailto:archive@example.org)"
crawler.http.compression.enabled: true
crawler:
  crawl:
    threads.limit: 2
    max_crawl_depth.limit: 5
  extraction.title_size.limit: 2
  security.dns.allow_loopback_access: true
`)
	oc = writeFile(t, dir, "crawler.yml", `domains:
  - url: `+srv+`
    seed_urls: [`+srv+`/foo]
    crawl_rules:
      - {policy: deny, type: begins, pattern: /blog}
`+extra)
	return es, oc
}

// TestCrawlEnterpriseSearchAndOpenCrawler crawls a 127.0.0.1 site with two --config files,
// Enterprise Search's settings and an Open Crawler file with the domain: the settings of
// both are in force (the user agent the site sees, the title limit in documents.jsonl,
// the crawl rule in crawl.log, loopback access, the workers in crawl.yaml), and stderr
// names the keys of the settings file amber ignores.
func TestCrawlEnterpriseSearchAndOpenCrawler(t *testing.T) {
	var mu sync.Mutex
	agents := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents[r.UserAgent()] = true
		mu.Unlock()
		switch r.URL.Path {
		case "/foo":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Foo</title></head><body><p>Foo text.</p><a href="/bar">bar</a> <a href="/blog/x">blog</a></body></html>`)
		case "/bar":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<html><head><title>Bar</title></head><body><p>Bar text.</p></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	es, oc := entSearchFiles(t, srv.URL, "")
	dir := filepath.Join(t.TempDir(), "crawl")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"crawl", "--config", es, "--config", oc, "--dir", dir, "--host-delay", "0"}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{
		"amber: note: crawler.http.compression.enabled: ignored",
		"amber: note: not crawler settings, ignored (they configure Enterprise Search itself): secret_management.encryption_keys, elasticsearch.host, ent_search.external_url",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	mu.Lock()
	if !agents["amber-test (+mailto:archive@example.org)"] || len(agents) != 1 {
		t.Errorf("user agents the site saw: %v", agents)
	}
	mu.Unlock()
	log, err := os.ReadFile(filepath.Join(dir, crawl.CrawlLogFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), srv.URL+"/bar") || !strings.Contains(string(log), "crawl-rule:1:deny:begins:/blog") {
		t.Errorf("crawl.log lacks /bar or the crawl rule's reason:\n%s", log)
	}
	titles := map[string]string{}
	docs, err := os.ReadFile(filepath.Join(dir, crawl.DocumentsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(docs)), "\n") {
		var d struct{ URL, Title string }
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		titles[strings.TrimPrefix(d.URL, srv.URL)] = d.Title
	}
	if titles["/foo"] != "Fo" || titles["/bar"] != "Ba" {
		t.Errorf("titles %v, want them cut at 2 bytes (crawler.extraction.title_size.limit)", titles)
	}
	saved, err := config.Load(filepath.Join(dir, crawl.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	if saved.Workers != 2 || len(saved.Seeds) != 1 || !saved.Network.AllowPrivate {
		t.Errorf("crawl.yaml: workers %d, seeds %v, allow_private %v", saved.Workers, saved.Seeds, saved.Network.AllowPrivate)
	}
}

// TestSeveralConfigsDisagree: a key two files set to different values stops amber crawl,
// amber scope check and amber config convert before anything is written, naming the key
// and both files.
func TestSeveralConfigsDisagree(t *testing.T) {
	es, oc := entSearchFiles(t, "http://127.0.0.1:9", "max_crawl_depth: 3\n")
	dir := filepath.Join(t.TempDir(), "crawl")
	for _, args := range [][]string{
		{"crawl", "--config", es, "--config", oc, "--dir", dir},
		{"scope", "check", "--config", es, "--config", oc, "http://127.0.0.1:9/x"},
		{"config", "convert", es, oc},
	} {
		var stdout, stderr bytes.Buffer
		err := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "scope.max_crawl_depth is 5 in "+es+" and 3 in "+oc) {
			t.Errorf("%s: err %v, want a usage error naming the key and both files", args[0], err)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("crawl directory written: %v", err)
	}
}

// TestConfigConvertSeveral: amber config convert of the two files prints one amber YAML,
// each key commented with its file and key, which amber reads back.
func TestConfigConvertSeveral(t *testing.T) {
	es, oc := entSearchFiles(t, "http://127.0.0.1:9", "")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"config", "convert", es, oc}, nil, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"converted from several files, combined in this order: the Enterprise Search settings " + es + "; the Elastic Open Crawler file " + oc,
		"workers: 2 # from " + es + ": crawler.crawl.threads.limit",
		"# from " + oc + ": domains[0].seed_urls",
		"# - " + es + ": not crawler settings, ignored",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	f, err := config.Parse(stdout.Bytes(), "converted")
	if err != nil {
		t.Fatalf("output is not amber YAML: %v", err)
	}
	if f.Workers != 2 || len(f.Seeds) != 1 || len(f.Scope.Domains) != 1 {
		t.Errorf("converted: workers %d, seeds %v, domains %v", f.Workers, f.Seeds, f.Scope.Domains)
	}
}

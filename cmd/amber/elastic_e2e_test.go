package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testproxy"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
)

// TestCrawlElasticConfig is issue 12's acceptance test: the Elastic test site's crawler.yml,
// an Elastic Open Crawler file as it is (with the open crawler's http_proxy_* keys added to
// point it at a forward proxy the test starts), is crawled with `amber crawl --config`. It
// asserts the URLs captured and, for each URL left out, its reason (crawl rules in order,
// out-of-domain, max_crawl_depth, robots.txt); sitemaps found through robots.txt, an index,
// a gzip urlset under a name that does not say so and a text sitemap; the credentials of one
// origin never sent to another; the proxy password and the credentials in no file of the
// crawl directory (but the request records of their own origin); the extraction rules'
// fields in documents.jsonl; and every WARC readable by gowarc and warcio.js.
func TestCrawlElasticConfig(t *testing.T) {
	t.Run("http", func(t *testing.T) { testCrawlElasticConfig(t, nil) })
	t.Run("browser", func(t *testing.T) {
		testCrawlElasticConfig(t, []string{"--fetcher", "browser", "--browser-path", crawltest.Chromium(t), "--screenshot=false"})
	})
}

// testCrawlElasticConfig is TestCrawlElasticConfig with the given further flags (the fetcher).
func testCrawlElasticConfig(t *testing.T, extra []string) {
	const (
		basicPW   = "s3cret"   // crawler.yml and _routes.txt
		token     = "T0KEN-42" // idem
		proxyUser = "crawler"
		proxyPW   = "pr0xy-s3cret"
	)
	root := filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "elastic")
	site, err := testsite.Start(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	proxy := testproxy.Start(site.Addr, proxyUser, proxyPW)
	t.Cleanup(proxy.Close)
	host, port, err := net.SplitHostPort(proxy.Addr())
	if err != nil {
		t.Fatal(err)
	}
	yml, err := os.ReadFile(filepath.Join(root, "crawler.yml"))
	if err != nil {
		t.Fatal(err)
	}
	yml = fmt.Appendf(yml, "http_proxy_host: %s\nhttp_proxy_port: %s\nhttp_proxy_protocol: http\nhttp_proxy_username: %s\nhttp_proxy_password: %s\n",
		host, port, proxyUser, proxyPW)
	cfgFile := writeFile(t, t.TempDir(), "crawler.yml", string(yml))

	dir := filepath.Join(t.TempDir(), "crawl")
	var stdout, stderr bytes.Buffer
	args := append([]string{"crawl", "--config", cfgFile, "--dir", dir, "--host-delay", "0", "--workers", "4"}, extra...)
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "is another crawler's config") {
		t.Errorf("no word that the file was read as an Elastic config:\n%s", stderr.String())
	}

	// What was captured, and why each URL was left out.
	var captured, sitemapFiles []string
	out := map[string]string{}
	hops := map[string]string{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
		hops[l.URL] = l.Hops
		for _, a := range l.Annotations {
			if strings.HasPrefix(a, "sitemap:") {
				sitemapFiles = append(sitemapFiles, strings.TrimPrefix(l.URL, "http://www.example.com")+" "+a)
			}
		}
		switch {
		case l.Status == 200 && !strings.HasSuffix(l.URL, "/robots.txt"):
			captured = append(captured, l.URL)
		case l.Status < 0:
			reason := fmt.Sprint(l.Status)
			for _, a := range l.Annotations {
				if strings.HasPrefix(a, "scope:") || a == "robots" || strings.HasPrefix(a, "robots") {
					reason += " " + a
				}
			}
			out[l.URL] = reason
		}
	}
	slices.Sort(captured)
	// The browser follows /moved.html's redirect in the page and so captures /about.html
	// there too (README, "One pipeline"): the set of URLs is what must not differ.
	captured = slices.Compact(captured)
	wantCaptured := []string{
		"http://api.example.com/v1/status.json", // an entry point, with its bearer token
		"http://cdn.example.net/logo.png",       // another origin, but an embed
		"http://docs.example.com/",              // a domain without entry points gets its root
		"http://docs.example.com/docs/v2/guide.pdf?dl=1",
		"http://docs.example.com/docs/v2/intro.html",
		"http://www.example.com/",
		"http://www.example.com/about.html",
		"http://www.example.com/also-only-in-sitemap.html", // in the text sitemap only
		"http://www.example.com/deep/1.html",               // depth 2
		"http://www.example.com/deep/2.html",               // depth 3
		"http://www.example.com/login.html",
		"http://www.example.com/members/",             // with the session cookie login.html set
		"http://www.example.com/only-in-sitemap.html", // in the gzip urlset only
		"http://www.example.com/private/",             // basic auth
		"http://www.example.com/private/handbook.html",
		"http://www.example.com/products/widget.html",
		"http://www.example.com/sitemap_index.xml",
		"http://www.example.com/sitemaps/extra.txt",
		"http://www.example.com/sitemaps/pages.dat",
		"http://www.example.com/style.css",
	}
	if diff := cmp.Diff(wantCaptured, captured); diff != "" {
		t.Errorf("captured with status 200 (-want +got):\n%s", diff)
	}
	wantOut := map[string]string{
		"http://www.example.com/blog/":                      "-5000 scope:crawl-rule:1:deny:begins:/blog",
		"http://www.example.com/blog/2021/post.html":        "-5000 scope:crawl-rule:1:deny:begins:/blog",
		"http://www.example.com/products/draft-gadget.html": "-5000 scope:crawl-rule:2:deny:contains:/draft",
		"http://www.example.com/products/widget.html.bak":   "-5000 scope:crawl-rule:3:deny:ends:.bak",
		"http://www.example.com/deep/3.html":                "-4001 scope:max-depth",
		"http://elsewhere.example.net/":                     "-5000 scope:out-of-domain",
		"http://elsewhere.example.net/from-sitemap.html":    "-5000 scope:out-of-domain",
		"http://docs.example.com/docs/v2/guide.pdf":         "-5000 scope:crawl-rule:1:deny:ends:.pdf",
		"http://www.example.com/robots-blocked/page.html":   "-9998",
	}
	for u, want := range wantOut {
		if got := out[u]; !strings.HasPrefix(got, want) {
			t.Errorf("%s: left out as %q, want %q", u, got, want)
		}
	}
	// The sitemap files: both robots.txt lines, the index's two children (the text sitemap
	// is listed twice, read once), the gzip urlset read by its magic bytes.
	slices.Sort(sitemapFiles)
	wantSitemaps := []string{"/sitemap_index.xml sitemap:index:2", "/sitemaps/extra.txt sitemap:text:2", "/sitemaps/pages.dat sitemap:urlset:3"}
	if diff := cmp.Diff(wantSitemaps, sitemapFiles); diff != "" {
		t.Errorf("sitemap files read (-want +got):\n%s", diff)
	}
	if h := hops["http://www.example.com/only-in-sitemap.html"]; !strings.HasSuffix(h, "MM") {
		t.Errorf("only-in-sitemap.html has hop path %q, want one ending in MM", h)
	}

	// Everything went through the proxy, and each credential to its own origin only.
	for _, c := range proxy.Connects() {
		if c.Status != 200 {
			t.Errorf("CONNECT %s answered %d", c.Target, c.Status)
		}
	}
	if len(proxy.Connects()) == 0 || len(proxy.Others()) != 0 {
		t.Errorf("%d CONNECTs and %d other requests at the proxy", len(proxy.Connects()), len(proxy.Others()))
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+basicPW))
	for _, r := range site.Requests() {
		want := map[string]string{"www.example.com": basic, "api.example.com": "Bearer " + token}[r.Host]
		if r.Authorization != want {
			t.Errorf("%s%s sent Authorization %q, want %q", r.Host, r.URI, r.Authorization, want)
		}
	}

	// No secret in any file of the crawl directory, but in the WARC request records of the
	// origin it was sent to.
	secrets := []string{basicPW, proxyPW, base64.StdEncoding.EncodeToString([]byte(proxyUser + ":" + proxyPW))}
	own := map[string]string{basic: "http://www.example.com", "Bearer " + token: "http://api.example.com"}
	var warcs []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasSuffix(p, ".warc.gz") {
			warcs = append(warcs, p)
			for _, r := range readWARC(t, p) {
				for _, s := range secrets {
					if bytes.Contains(r.Data, []byte(s)) {
						t.Errorf("%s record of %s holds %q", r.Type, r.URI, s)
					}
				}
				for s, o := range own {
					if bytes.Contains(r.Data, []byte(s)) && (r.Type != "request" || originOf(r.URI) != o) {
						t.Errorf("%s record of %s holds the credential of %s", r.Type, r.URI, o)
					}
				}
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range append(secrets, basic, token) {
			if bytes.Contains(data, []byte(s)) {
				t.Errorf("%s holds %q", p, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// The extraction rules' fields, on the docs pages only.
	docs := map[string]map[string]any{}
	f, err := os.Open(filepath.Join(dir, crawl.DocumentsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var d map[string]any
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		docs[fmt.Sprint(d["url"])] = d
	}
	intro := docs["http://docs.example.com/docs/v2/intro.html"]
	if intro == nil {
		t.Fatalf("no document for intro.html; documents: %v", slices.Collect(func(yield func(string) bool) {
			for u := range docs {
				if !yield(u) {
					return
				}
			}
		}))
	}
	if got := fmt.Sprint(intro["authors"], " ", intro["doc_version"], " ", intro["has_product"]); got != "[Ada Lovelace Charles Babbage] 2 yes" {
		t.Errorf("intro.html's extracted fields: %s", got)
	}
	for _, u := range []string{"http://docs.example.com/", "http://www.example.com/"} {
		if d := docs[u]; d == nil || d["authors"] != nil || d["doc_version"] != nil {
			t.Errorf("%s: document %v, want one without extracted fields", u, d != nil)
		}
	}

	// Every WARC reads in gowarc (our validator) and in warcio.js.
	if len(warcs) == 0 {
		t.Fatal("no WARC files")
	}
	if _, err := warccheck.ValidateDir(filepath.Join(dir, crawl.WARCDir)); err != nil {
		t.Errorf("ValidateDir: %v", err)
	}
	for _, w := range warcs {
		if lines := crawltest.WarcioCDXJ(t, w); len(lines) == 0 {
			t.Errorf("warcio.js indexed nothing in %s", w)
		}
	}
}

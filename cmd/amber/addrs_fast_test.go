package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
)

// hostSite serves pages by Host on a loopback address and records the hosts and paths asked.
func hostSite(t *testing.T, ip string, pages map[string]string) (port string, asked func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := strings.Cut(r.Host, ":")
		mu.Lock()
		got = append(got, host+r.URL.Path)
		mu.Unlock()
		body, ok := pages[host+r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, body)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), got...) }
}

// TestCrawlFASTAddrs crawls from a FAST configuration with an include_domains ipmask, a
// mirror_site_files file and FAST's default enforce_delay_per_ip: a host at an address outside
// the mask is left out with reason address and never asked, a mirror's link is crawled as the
// preferred host's, and crawl.yaml has politeness.per_ip.
func TestCrawlFASTAddrs(t *testing.T) {
	p1, asked1 := hostSite(t, "127.0.0.1", map[string]string{
		"www.example.com/": `<a href="http://near.example.net/">near</a> <a href="http://far.example.org/">far</a>
			<a href="http://mirror.example.com/m.html">mirror</a>`,
		"www.example.com/m.html": "mirrored",
		"near.example.net/":      "near",
	})
	p2, asked2 := hostSite(t, "127.0.0.2", map[string]string{"far.example.org/": "far"})
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "mirrors.txt"), []byte("www.example.com mirror.example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	xml := writeFile(t, tmp, "crawler.xml", `<?xml version="1.0" encoding="utf-8"?>
<CrawlerConfig>
  <DomainSpecification name="addrs">
    <attrib name="start_uris" type="list-string"><member>http://www.example.com/</member></attrib>
    <attrib name="delay" type="real">0</attrib>
    <attrib name="mirror_site_files" type="list-string"><member>mirrors.txt</member></attrib>
    <section name="include_domains">
      <attrib name="ipmask" type="list-string"><member>127.0.0.0-1</member></attrib>
    </section>
  </DomainSpecification>
</CrawlerConfig>
`)
	dir := filepath.Join(t.TempDir(), "crawl")
	var stdout, stderr bytes.Buffer
	args := []string{"crawl", "--config", xml, "--dir", dir, "--allow-private", "--max-attempts", "1",
		"--connect-to", "far.example.org::127.0.0.2:" + p2, "--connect-to", "::127.0.0.1:" + p1}
	if err := run(t.Context(), args, nil, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	got := map[string]string{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
		got[l.URL] = fmt.Sprint(l.Status, " ", strings.Join(l.Annotations, ","))
	}
	for u, want := range map[string]string{
		"http://www.example.com/":       "200",
		"http://near.example.net/":      "200",
		"http://www.example.com/m.html": "200 rewritten-from:http://mirror.example.com/m.html",
		"http://far.example.org/":       "-5000 scope:address",
	} {
		if !strings.HasPrefix(got[u], want) {
			t.Errorf("%s: crawl.log %q, want %q...", u, got[u], want)
		}
	}
	if a := asked2(); len(a) > 0 {
		t.Errorf("the address outside the mask was asked %q", a)
	}
	for _, a := range asked1() {
		if strings.HasPrefix(a, "mirror.example.com") {
			t.Errorf("the mirror host was asked %q", a)
		}
	}
	yaml, err := os.ReadFile(filepath.Join(dir, crawl.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"per_ip: true", "ip:127.0.0.0-1", "mirror.example.com"} {
		if !bytes.Contains(yaml, []byte(want)) {
			t.Errorf("crawl.yaml has no %q:\n%s", want, yaml)
		}
	}
}

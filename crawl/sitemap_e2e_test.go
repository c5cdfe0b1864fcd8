package crawl_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/listing"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/scope"
	"github.com/amber-crawler/amber/sitemap"
	"github.com/amber-crawler/amber/status"
)

// logOutcome is what crawl.log says of one URL, for the sitemap tests.
type logOutcome struct {
	Status    int
	Hops, Via string
	Notes     []string // the annotations that start with "sitemap:", "scope:" or "robots"
}

// sitemapOutcomes reads crawl.log as URL → outcome of its last line, leaving out robots.txt
// and inferred favicons; it fails the test on a URL logged twice (robots.txt aside: a
// resumed crawl fetches it again).
func sitemapOutcomes(t *testing.T, dir string) map[string]logOutcome {
	t.Helper()
	got := map[string]logOutcome{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(dir, crawl.CrawlLogFile)) {
		if strings.HasSuffix(l.URL, "/robots.txt") || strings.HasSuffix(l.URL, "/favicon.ico") {
			continue
		}
		if _, dup := got[l.URL]; dup {
			t.Errorf("crawl.log has %s twice", l.URL)
		}
		o := logOutcome{Status: l.Status, Hops: l.Hops, Via: l.Via}
		for _, a := range l.Annotations {
			if strings.HasPrefix(a, "sitemap:") || strings.HasPrefix(a, "scope:") || a == "robots" {
				o.Notes = append(o.Notes, a)
			}
		}
		got[l.URL] = o
	}
	return got
}

// readEventLog reads events.jsonl.
func readEventLog(t *testing.T, dir string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, crawl.EventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("events.jsonl: %v", err)
		}
		evs = append(evs, m)
	}
	return evs
}

// sitemapEvents returns, from events.jsonl, the URLs whose url-discover events say they came
// from a sitemap, and each sitemap-read event as "URL kind count reason".
func sitemapEvents(t *testing.T, dir string) (fromSitemap []string, reads []string) {
	t.Helper()
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	for _, e := range readEventLog(t, dir) {
		switch str(e, "event.action") {
		case report.ActionURLDiscover:
			if str(e, "crawler.url.source") == report.SourceSitemap {
				fromSitemap = append(fromSitemap, str(e, "url.full"))
			}
		case report.ActionSitemapRead:
			n, _ := e["crawler.sitemap.urls.count"].(float64)
			reads = append(reads, strings.Join([]string{str(e, "url.full"), str(e, "crawler.sitemap.kind"),
				strings.TrimSuffix(strings.TrimSuffix(jsonNumber(n), ".0"), "."), str(e, "event.reason")}, " "))
		}
	}
	slices.Sort(fromSitemap)
	slices.Sort(reads)
	return fromSitemap, reads
}

func jsonNumber(f float64) string { b, _ := json.Marshal(f); return string(b) }

// warcResponses returns the URLs with a response record in the crawl's WARC files, which
// must be valid.
func warcResponses(t *testing.T, dir string) map[string]bool {
	t.Helper()
	reports, err := warccheck.ValidateDir(filepath.Join(dir, crawl.WARCDir))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range reports {
		if !r.OK() {
			t.Errorf("%s: %v %v", r.Path, r.Errors, r.Dangling)
		}
		for _, rec := range r.Records {
			if rec.Type == "response" {
				got[rec.TargetURI] = true
			}
		}
	}
	return got
}

// sitemapReportRows returns the rows of report.html's sitemaps table as "host listed
// captured", and crawl-report.txt.
func sitemapReportRows(t *testing.T, dir string) ([]string, string) {
	t.Helper()
	html, err := os.ReadFile(filepath.Join(dir, crawl.ReportsDir, report.HTMLReportFile))
	if err != nil {
		t.Fatal(err)
	}
	table := regexp.MustCompile(`(?s)<table id="sitemap-hosts">.*?</table>`).Find(html)
	var rows []string
	for _, m := range regexp.MustCompile(`<tr data-host="([^"]+)"><td>[^<]*</td><td class="n">(\d+)</td><td class="n">(\d+)</td></tr>`).FindAllSubmatch(table, -1) {
		rows = append(rows, string(m[1])+" "+string(m[2])+" "+string(m[3]))
	}
	txt, err := os.ReadFile(filepath.Join(dir, crawl.ReportsDir, report.CrawlReportFile))
	if err != nil {
		t.Fatal(err)
	}
	return rows, string(txt)
}

// TestCrawlSitemapsElastic crawls issue 12's site in the Standard flavour with robots.txt
// Sitemap: lines read: the index is followed, the gzip urlset served under a name that does
// not say gzip and the text sitemap are read, the pages only sitemaps list are captured with
// hop paths ending in M, the sitemap files are archived, and the reports and events count
// the URLs that came from sitemaps.
func TestCrawlSitemapsElastic(t *testing.T) {
	site, err := testsite.Start(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "elastic"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	cfg := basicConfig(t, site, t.TempDir())
	// One request at a time on the host: the seed's links are queued before the sitemap
	// files (claimed first after it) are read, so the pages both list keep their L.
	cfg.HostConcurrency = 1
	cfg.Sitemaps.Robots = true
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		t.Fatalf("end = %q", res.End)
	}
	const (
		www    = "http://www.example.com"
		robots = www + "/robots.txt"
		index  = www + "/sitemap_index.xml"
		pages  = www + "/sitemaps/pages.dat"
		extra  = www + "/sitemaps/extra.txt"
	)
	got := sitemapOutcomes(t, cfg.Dir)
	want := map[string]logOutcome{
		index:                              {Status: 200, Hops: "PM", Via: robots, Notes: []string{"sitemap:index:2"}},
		extra:                              {Status: 200, Hops: "PM", Via: robots, Notes: []string{"sitemap:text:2"}},
		pages:                              {Status: 200, Hops: "PMM", Via: index, Notes: []string{"sitemap:urlset:3"}},
		www + "/only-in-sitemap.html":      {Status: 200, Hops: "PMMM", Via: pages},
		www + "/also-only-in-sitemap.html": {Status: 200, Hops: "PMM", Via: extra},
		"http://elsewhere.example.net/from-sitemap.html": {Status: status.OutOfScope, Hops: "PMM", Via: extra, Notes: []string{"scope:out-of-scope"}},
		// Listed by pages.dat too, but linked from the seed first.
		www + "/about.html":          {Status: 200, Hops: "L", Via: www + "/"},
		www + "/blog/2021/post.html": {Status: 200, Hops: "L", Via: www + "/"},
	}
	for u, w := range want {
		if diff := cmp.Diff(w, got[u]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", u, diff)
		}
	}
	for _, p := range []string{"/sitemap_index.xml", "/sitemaps/pages.dat", "/sitemaps/extra.txt"} {
		if n := site.Hits("www.example.com", p); n != 1 {
			t.Errorf("%s requested %d times, want once", p, n)
		}
	}
	if n := site.Hits("elsewhere.example.net", "/from-sitemap.html"); n != 0 {
		t.Errorf("the out-of-scope sitemap entry was requested %d times", n)
	}

	// The sitemap files are in the WARC like any capture.
	responses := warcResponses(t, cfg.Dir)
	for _, u := range []string{index, pages, extra, www + "/only-in-sitemap.html", www + "/also-only-in-sitemap.html"} {
		if !responses[u] {
			t.Errorf("no response record for %s", u)
		}
	}
	// Sitemap files are not search documents; the pages they list are.
	docs, _ := readDocuments(t, filepath.Join(cfg.Dir, crawl.DocumentsFile))
	docURLs := map[string]bool{}
	for _, d := range docs {
		docURLs[d.URL] = true
	}
	for u, want := range map[string]bool{index: false, pages: false, extra: false, www + "/only-in-sitemap.html": true} {
		if docURLs[u] != want {
			t.Errorf("document for %s: %v, want %v", u, docURLs[u], want)
		}
	}

	fromSitemap, reads := sitemapEvents(t, cfg.Dir)
	if diff := cmp.Diff([]string{"http://elsewhere.example.net/from-sitemap.html", www + "/also-only-in-sitemap.html", www + "/only-in-sitemap.html", pages},
		fromSitemap); diff != "" {
		t.Errorf("url-discover events from sitemaps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{index + " index 2 ", extra + " text 2 ", pages + " urlset 3 "}, reads); diff != "" {
		t.Errorf("sitemap-read events (-want +got):\n%s", diff)
	}

	rows, crawlReport := sitemapReportRows(t, cfg.Dir)
	if diff := cmp.Diff([]string{"www.example.com 3 3", "elsewhere.example.net 1 0"}, rows); diff != "" {
		t.Errorf("report.html URLs from sitemaps (-want +got):\n%s", diff)
	}
	if !strings.Contains(crawlReport, "URIs from sitemaps: 4\nURIs from sitemaps captured: 3\n") {
		t.Errorf("crawl-report.txt lacks the sitemap counts:\n%s", crawlReport)
	}
}

// sitemapOnlyConfig crawls testdata/sites/sitemap-only from http://site.example/ with its
// configured sitemap files, robots.txt Sitemap: lines, and at most three URLs per sitemap.
func sitemapOnlyConfig(t *testing.T, site *testsite.Server, dir string) crawl.Config {
	cfg := basicConfig(t, site, dir)
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://site.example/", Type: scope.StandardSeed}}}
	cfg.HostConcurrency = 1
	cfg.Sitemaps = listing.Sitemaps{
		Robots: true,
		URLs: []string{
			"http://site.example/config/sitemap.xml",
			"http://site.example/index1.xml",
			"http://site.example/big.txt",
			"http://site.example/page-not-sitemap.html",
			"http://other.example/sitemap.xml",
		},
		Limits: sitemap.Limits{MaxURLs: 3},
	}
	return cfg
}

func startSitemapOnly(t *testing.T) *testsite.Server {
	t.Helper()
	site, err := testsite.Start(filepath.Join(crawltest.ModuleRoot(t), "testdata", "sites", "sitemap-only"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	return site
}

// TestCrawlSitemapCases: configured sitemap files (hop M from the seed), an index listed by
// an index (archived, not followed), a sitemap cut at the URL limit, a page that is not a
// sitemap (its links not followed), a sitemap robots.txt disallows, one that redirects, and
// one out of scope; the crawl is stopped after two URLs and resumed, so sitemap files queued
// by the first run are read as sitemaps by the second.
func TestCrawlSitemapCases(t *testing.T) {
	site := startSitemapOnly(t)
	dir := t.TempDir()
	cfg := sitemapOnlyConfig(t, site, dir)
	cfg.LimitURLs = 2
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndLimit {
		t.Fatalf("first run: end = %q, want %q", res.End, crawl.EndLimit)
	}
	if res.Stats.Queued == 0 {
		t.Fatal("first run left nothing queued: the resume tests nothing")
	}
	cfg = sitemapOnlyConfig(t, site, dir)
	if res, err = crawl.Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if res.End != crawl.EndFinished {
		t.Fatalf("second run: end = %q", res.End)
	}

	const (
		s      = "http://site.example"
		seed   = s + "/"
		robots = s + "/robots.txt"
	)
	got := sitemapOutcomes(t, dir)
	want := map[string]logOutcome{
		seed:                               {Status: 200},
		s + "/linked.html":                 {Status: 200, Hops: "L", Via: seed},
		s + "/config/sitemap.xml":          {Status: 200, Hops: "M", Via: seed, Notes: []string{"sitemap:urlset:2"}},
		s + "/config/page.html":            {Status: 200, Hops: "MM", Via: s + "/config/sitemap.xml"},
		"http://other.example/listed.html": {Status: status.OutOfScope, Hops: "MM", Via: s + "/config/sitemap.xml", Notes: []string{"scope:out-of-scope"}},
		"http://other.example/sitemap.xml": {Status: status.OutOfScope, Hops: "M", Via: seed, Notes: []string{"scope:out-of-scope"}},
		s + "/index1.xml":                  {Status: 200, Hops: "M", Via: seed, Notes: []string{"sitemap:index:2"}},
		s + "/index2.xml":                  {Status: 200, Hops: "MM", Via: s + "/index1.xml", Notes: []string{"sitemap:index:1", "sitemap:nested-index"}},
		s + "/big.txt":                     {Status: 200, Hops: "M", Via: seed, Notes: []string{"sitemap:text:3", "sitemap:truncated:max-urls"}},
		s + "/big/1.html":                  {Status: 200, Hops: "MM", Via: s + "/big.txt"},
		s + "/big/2.html":                  {Status: 200, Hops: "MM", Via: s + "/big.txt"},
		s + "/big/3.html":                  {Status: 200, Hops: "MM", Via: s + "/big.txt"},
		s + "/page-not-sitemap.html":       {Status: 200, Hops: "M", Via: seed, Notes: []string{"sitemap:not-a-sitemap"}},
		s + "/blocked/sitemap.xml":         {Status: status.Robots, Hops: "PM", Via: robots, Notes: []string{"robots"}},
		s + "/moved-sitemap.xml":           {Status: 301, Hops: "PM", Via: robots},
		s + "/new-sitemap.xml":             {Status: 200, Hops: "PMR", Via: s + "/moved-sitemap.xml", Notes: []string{"sitemap:urlset:1"}},
		s + "/from-moved.html":             {Status: 200, Hops: "PMRM", Via: s + "/new-sitemap.xml"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("crawl.log (-want +got):\n%s", diff)
	}
	for _, p := range []string{"/never.xml", "/never.html", "/big/4.html", "/big/5.html", "/not-followed.html", "/blocked/sitemap.xml", "/blocked-only.html"} {
		if n := site.Hits("site.example", p); n != 0 {
			t.Errorf("%s requested %d times, want never", p, n)
		}
	}
	if n := site.Hits("other.example", "/sitemap.xml"); n != 0 {
		t.Errorf("the out-of-scope sitemap was requested %d times", n)
	}
	for _, p := range []string{"/config/sitemap.xml", "/index1.xml", "/index2.xml", "/big.txt", "/new-sitemap.xml"} {
		if n := site.Hits("site.example", p); n != 1 {
			t.Errorf("%s requested %d times, want once", p, n)
		}
	}
	responses := warcResponses(t, dir)
	for _, p := range []string{"/config/sitemap.xml", "/index1.xml", "/index2.xml", "/big.txt", "/page-not-sitemap.html", "/moved-sitemap.xml", "/new-sitemap.xml"} {
		if !responses[s+p] {
			t.Errorf("no response record for %s", s+p)
		}
	}

	_, reads := sitemapEvents(t, dir)
	if diff := cmp.Diff([]string{
		s + "/big.txt text 3 ",
		s + "/config/sitemap.xml urlset 2 ",
		s + "/index1.xml index 2 ",
		s + "/index2.xml index 1 nested-index",
		s + "/new-sitemap.xml urlset 1 ",
		s + "/page-not-sitemap.html  0 not-a-sitemap",
	}, reads); diff != "" {
		t.Errorf("sitemap-read events (-want +got):\n%s", diff)
	}
	rows, crawlReport := sitemapReportRows(t, dir)
	// Listed: config/page.html, index2.xml, big/1-3.html, from-moved.html; other.example/listed.html.
	if diff := cmp.Diff([]string{"site.example 6 6", "other.example 1 0"}, rows); diff != "" {
		t.Errorf("report.html URLs from sitemaps (-want +got):\n%s", diff)
	}
	if !strings.Contains(crawlReport, "URIs from sitemaps: 7\nURIs from sitemaps captured: 6\n") {
		t.Errorf("crawl-report.txt lacks the sitemap counts:\n%s", crawlReport)
	}
}

// TestCrawlSitemapsOff: without Sitemaps, robots.txt Sitemap: lines are not read.
func TestCrawlSitemapsOff(t *testing.T) {
	site := startSitemapOnly(t)
	cfg := basicConfig(t, site, t.TempDir())
	cfg.Scope = scope.Config{Seeds: []scope.Seed{{URL: "http://site.example/", Type: scope.StandardSeed}}}
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndFinished {
		t.Fatalf("end %q, err %v", res.End, err)
	}
	var urls []string
	for u := range sitemapOutcomes(t, cfg.Dir) {
		urls = append(urls, u)
	}
	slices.Sort(urls)
	if diff := cmp.Diff([]string{"http://site.example/", "http://site.example/linked.html"}, urls); diff != "" {
		t.Errorf("crawl.log (-want +got):\n%s", diff)
	}
}

// TestCrawlSitemapBrowser: in a browser crawl, sitemap files are fetched with the HTTP client
// (they are not pages) and the pages they list are loaded in the browser.
func TestCrawlSitemapBrowser(t *testing.T) {
	path := crawltest.Chromium(t)
	site := startSitemapOnly(t)
	cfg := sitemapOnlyConfig(t, site, t.TempDir())
	cfg.Sitemaps.URLs = []string{"http://site.example/config/sitemap.xml"}
	cfg.Fetcher = crawl.FetcherBrowser
	cfg.Browser = browser.Config{Path: path, PageTimeout: 60 * time.Second, BehaviorTimeout: 5 * time.Second}
	cfg.Workers = 2
	res, err := crawl.Run(t.Context(), cfg)
	if err != nil || res.End != crawl.EndFinished {
		t.Fatalf("end %q, err %v", res.End, err)
	}
	browserLine := map[string]bool{}
	for _, l := range crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile)) {
		browserLine[l.URL] = slices.Contains(l.Annotations, "browser")
	}
	want := map[string]bool{
		"http://site.example/config/sitemap.xml": false,
		"http://site.example/new-sitemap.xml":    false,
		"http://site.example/moved-sitemap.xml":  false,
		"http://site.example/config/page.html":   true,
		"http://site.example/from-moved.html":    true,
	}
	for u, w := range want {
		if b, ok := browserLine[u]; !ok || b != w {
			t.Errorf("%s: in crawl.log %v, fetched by the browser %v; want fetched by the browser %v", u, ok, b, w)
		}
	}
}

func TestSitemapConfigValidate(t *testing.T) {
	if got, want := crawl.DefaultConfig().Sitemaps, (listing.Sitemaps{Limits: sitemap.DefaultLimits()}); !cmp.Equal(got, want) {
		t.Errorf("DefaultConfig().Sitemaps = %+v, want %+v (off, the protocol's limits)", got, want)
	}
	tests := []struct {
		name  string
		s     listing.Sitemaps
		field string // "" for valid
	}{
		{"robots and URLs", listing.Sitemaps{Robots: true, URLs: []string{"http://a.example/s.xml", "https://a.example:8443/s.txt"}}, ""},
		{"zero limits are the protocol's", listing.Sitemaps{Limits: sitemap.Limits{}}, ""},
		{"relative URL", listing.Sitemaps{URLs: []string{"/sitemap.xml"}}, "Sitemaps.URLs"},
		{"ftp URL", listing.Sitemaps{URLs: []string{"ftp://a.example/s.xml"}}, "Sitemaps.URLs"},
		{"no host", listing.Sitemaps{URLs: []string{"http:///s.xml"}}, "Sitemaps.URLs"},
		{"unparsable URL", listing.Sitemaps{URLs: []string{"http://a.example/%zz"}}, "Sitemaps.URLs"},
		{"negative URL limit", listing.Sitemaps{Limits: sitemap.Limits{MaxURLs: -1}}, "Sitemaps.Limits.MaxURLs"},
		{"negative byte limit", listing.Sitemaps{Limits: sitemap.Limits{MaxBytes: -1}}, "Sitemaps.Limits.MaxBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := crawl.DefaultConfig()
			cfg.Dir = t.TempDir()
			cfg.Scope.Seeds = []scope.Seed{{URL: "http://a.example/"}}
			cfg.Sitemaps = tt.s
			err := cfg.Validate()
			var fe *crawl.FieldError
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.field != "" && (!errors.As(err, &fe) || fe.Field != tt.field || !errors.Is(err, crawl.ErrConfig)):
				t.Errorf("Validate() = %v, want a FieldError for %s", err, tt.field)
			}
		})
	}
}

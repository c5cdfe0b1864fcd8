package entsearch

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/scope"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

func read(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// env is a lookup of the variables vars ("NAME=value").
func env(vars ...string) func(string) (string, bool) {
	m := map[string]string{}
	for _, v := range vars {
		k, val, _ := strings.Cut(v, "=")
		m[k] = val
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func convert(t *testing.T, data string, lookup func(string) (string, bool)) *config.Converted {
	t.Helper()
	s, err := Parse([]byte(data), "enterprise-search.yml", lookup)
	if err != nil {
		t.Fatal(err)
	}
	cv, err := s.Convert()
	if err != nil {
		t.Fatal(err)
	}
	return cv
}

func TestIs(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want bool
	}{
		{"dotted crawler key", "crawler.http.user_agent: x\n", true},
		{"nested crawler", "crawler:\n  http:\n    user_agent: x\n", true},
		{"connector crawler", "connector.crawler.http.user_agent: x\n", true},
		{"nested connector crawler", "connector:\n  crawler:\n    http.user_agent: x\n", true},
		{"ent_search only", "ent_search.external_url: http://localhost:3002\n", true},
		{"secret_management", "secret_management.encryption_keys: [a]\n", true},
		{"amber yaml", "seeds: [https://example.org/]\nworkers: 2\n", false},
		{"open crawler", "domains:\n  - url: https://example.org\n", false},
		{"elasticsearch.yml", "elasticsearch.host: http://localhost\n", false},
		{"crawler-ish prefix", "crawlers: 3\n", false},
		{"not yaml", "<CrawlerConfig/>", false},
		{"empty", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Is([]byte(tc.data)); got != tc.want {
				t.Errorf("Is = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSeedsCrawlerBlock converts the crawler block of enterprise-search.yml that the seeds'
// reference names: binary content extraction, deduplication fields and the size limits.
func TestSeedsCrawlerBlock(t *testing.T) {
	data := read(t, "seeds.yml")
	if !Is(data) {
		t.Fatal("not recognised as Enterprise Search settings")
	}
	f, cv, err := LoadData(data, "seeds.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := config.Documents{
		BinaryMIMETypes:      []string{"application/pdf", "application/msword"},
		DeduplicationFields:  []string{"title", "body_content", "meta_keywords", "meta_description", "links", "headings"},
		MaxBodySize:          5242880,
		MaxHeadingsCount:     25,
		MaxIndexedLinksCount: 25,
		MaxDescriptionSize:   1024,
		MaxKeywordsSize:      512,
		MaxTitleSize:         1024,
	}
	if d := cmp.Diff(want, f.Documents); d != "" {
		t.Errorf("documents (-want +got):\n%s", d)
	}
	if got := cv.Sources["documents.binary_content_extraction_mime_types"]; got != "crawler.content_extraction.mime_types" {
		t.Errorf("source of the MIME types = %q", got)
	}
	if len(f.Seeds) != 0 || len(f.Scope.Domains) != 0 {
		t.Errorf("seeds or domains from a settings file: %+v %+v", f.Seeds, f.Scope.Domains)
	}
}

// TestGolden converts an enterprise-search.yml with every crawler.* setting, dotted and
// nested, among Enterprise Search's own settings, and compares amber's YAML with its notes
// to the golden file (refresh with -update).
func TestGolden(t *testing.T) {
	s, err := Parse(read(t, "enterprise-search.yml"), "enterprise-search.yml", env())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Keys {
		if _, ok := s.Crawler[k.Name]; !ok {
			t.Errorf("testdata/enterprise-search.yml lacks %s", k.Name)
		}
	}
	cv, err := s.Convert()
	if err != nil {
		t.Fatal(err)
	}
	got, err := cv.Render("enterprise-search.yml")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "enterprise-search.yml.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if d := cmp.Diff(string(read(t, "enterprise-search.yml.golden")), string(got)); d != "" {
		t.Errorf("rendering (-golden +got):\n%s", d)
	}
	back, err := config.Parse(got, "golden")
	if err != nil {
		t.Fatalf("the rendering is not amber YAML: %v", err)
	}
	if back.Proxy == nil || back.Proxy.Password != "env:PROXY_PASSWORD" {
		t.Errorf("proxy = %+v, want its password the reference env:PROXY_PASSWORD", back.Proxy)
	}
}

// TestDottedNested: a setting means the same written with dots, nested, or half of each,
// and under connector.crawler; written twice it is an error naming both lines.
func TestDottedNested(t *testing.T) {
	want := convert(t, "crawler.crawl.max_crawl_depth.limit: 4\ncrawler.http.user_agent: UA\n", env()).File
	for _, data := range []string{
		"crawler:\n  crawl:\n    max_crawl_depth:\n      limit: 4\n  http:\n    user_agent: UA\n",
		"crawler.crawl:\n  max_crawl_depth.limit: 4\ncrawler.http:\n  user_agent: UA\n",
		"connector.crawler.crawl.max_crawl_depth.limit: 4\nconnector:\n  crawler.http.user_agent: UA\n",
	} {
		got := convert(t, data, env()).File
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%q (-dotted +got):\n%s", data, d)
		}
	}
	_, err := Parse([]byte("crawler.http.user_agent: A\ncrawler:\n  http:\n    user_agent: B\n"), "x.yml", env())
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "given twice") || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("twice: err %v", err)
	}
}

// TestEnv: ${NAME} and ${NAME:default} are read from the environment, also within a value;
// a variable not set without a default is an error, except a secret's, which stays a
// reference.
func TestEnv(t *testing.T) {
	cv := convert(t, "crawler.crawl.threads.limit: ${THREADS}\ncrawler.crawl.max_duration.limit: ${DUR:60}\n"+
		"crawler.http.user_agent: \"amber (${CONTACT:nobody})\"\n", env("THREADS=3", "CONTACT=ops@example.org"))
	f := cv.File
	if f.Workers != 3 || f.Limits.Time != time.Minute || f.UserAgent != "amber (ops@example.org)" {
		t.Errorf("workers %d, time %v, user agent %q", f.Workers, f.Limits.Time, f.UserAgent)
	}
	proxy := "crawler.http.proxy.host: p.example.org\ncrawler.http.proxy.port: 3128\ncrawler.http.proxy.username: u\ncrawler.http.proxy.password: ${PW}\n"
	for _, vars := range [][]string{nil, {"PW=secret"}} {
		if got := convert(t, proxy, env(vars...)).File.Proxy; got == nil || got.Password != "env:PW" || got.URL != "http://p.example.org:3128" {
			t.Errorf("env %v: proxy %+v, want http://p.example.org:3128 with password env:PW", vars, got)
		}
	}
	for _, data := range []string{"crawler.crawl.threads.limit: ${NOPE}\n", "crawler.http.user_agent: \"a ${NOPE} b\"\n"} {
		s, err := Parse([]byte(data), "x.yml", env())
		if err == nil {
			_, err = s.Convert()
		}
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "NOPE") {
			t.Errorf("%q: err %v, want one naming NOPE", data, err)
		}
	}
}

// TestRefused: what amber cannot honour, or does not know, is an error naming the key.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"unknown key", "crawler.extraction.content_hash_include: [title]\n", "crawler.extraction.content_hash_include: not a setting"},
		{"misspelt nested", "crawler:\n  http:\n    user_agnet: x\n", "crawler.http.user_agnet"},
		{"no redirects", "crawler.http.max_redirects: 0\n", "cannot honour"},
		{"proxy without port", "crawler.http.proxy.host: p\n", "crawler.http.proxy.port"},
		{"proxy socks", "crawler.http.proxy.host: p\ncrawler.http.proxy.port: 1080\ncrawler.http.proxy.protocol: socks5\n", "http or https"},
		{"port without host", "crawler.http.proxy.port: 1080\n", "without crawler.http.proxy.host"},
		{"verification mode", "crawler.security.ssl.verification_mode: strict\n", "full, certificate or none"},
		{"depth 0", "crawler.crawl.max_crawl_depth.limit: 0\n", "at least 1"},
		{"not a number", "crawler.crawl.threads.limit: many\n", "crawler.crawl.threads.limit"},
		{"not a bool", "crawler.content_extraction.enabled: maybe\n", "true or false"},
		{"a map value", "crawler.http.user_agent: {a: b}\n", "crawler.http.user_agent.a: not a setting"},
		{"a list of maps", "crawler.content_extraction.mime_types: [{a: b}]\n", "want a list of values"},
		{"not a mapping", "- crawler\n", "not a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse([]byte(tc.data), "x.yml", env())
			if err == nil {
				_, err = s.Convert()
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want ErrConfig with %q", err, tc.want)
			}
		})
	}
}

// TestNotes: the keys amber takes without effect, and the file's other keys, are named in
// notes; their values never are.
func TestNotes(t *testing.T) {
	cv := convert(t, "crawler.workers.pool_size.limit: 4\ncrawler.http.default_encoding: latin1\n"+
		"elasticsearch.password: hunter2\nent_search:\n  external_url: http://x\n", env())
	notes := strings.Join(cv.Notes, "\n")
	for _, want := range []string{"crawler.workers.pool_size.limit: ignored", "crawler.http.default_encoding: ignored", "elasticsearch.password, ent_search.external_url"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "hunter2") {
		t.Errorf("notes hold a value of the file:\n%s", notes)
	}
}

// TestWithAmberYAML: the settings combined with an amber YAML file of seeds alone make a
// crawl of the elastic flavour, each seed's origin a domain, with the settings' depth limit.
func TestWithAmberYAML(t *testing.T) {
	es := convert(t, "crawler.crawl.max_crawl_depth.limit: 2\n", env()).File
	seeds, err := config.Parse([]byte("seeds: [https://www.example.org/a]\n"), "amber.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := config.Merge(config.Part{Name: "enterprise-search.yml", File: es}, config.Part{Name: "amber.yaml", File: seeds})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := f.ScopeConfig(scope.Standard)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Flavour != scope.Elastic || len(sc.Domains) != 1 || sc.Domains[0].URL != "https://www.example.org" || *sc.MaxCrawlDepth != 2 {
		t.Errorf("scope: flavour %s, domains %+v, depth %v", sc.Flavour, sc.Domains, sc.MaxCrawlDepth)
	}
}

// TestKeysDocumented: the table of docs/elastic-enterprise-search.md has one row for each
// of Keys, in its order, with its amber key, or "—" for a key accepted without effect.
func TestKeysDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "elastic-enterprise-search.md"))
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "| `crawler.") {
			continue
		}
		cols := strings.Split(l, "|")
		got = append(got, strings.TrimSpace(cols[1])+" "+strings.TrimSpace(cols[2]))
	}
	for _, k := range Keys {
		amber := "—"
		if k.Amber != "" {
			amber = "`" + k.Amber + "`"
		}
		want = append(want, "`"+k.Name+"` "+amber)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("docs table (-Keys +docs):\n%s", d)
	}
}

package scope

import (
	"errors"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/crawlrule"
)

func rules(t *testing.T, ss ...string) crawlrule.List {
	t.Helper()
	var l crawlrule.List
	for _, s := range ss {
		r, err := crawlrule.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		l = append(l, r)
	}
	return l
}

// elasticConfig is the crawl of testdata/sites/elastic/crawler.yml (three domains, the
// reference's rule-order example, max_crawl_depth 3) with Archive-It rules added.
func elasticConfig(t *testing.T) Config {
	return Config{
		Flavour: Elastic,
		Domains: []Domain{
			{URL: "http://www.example.com", Rules: rules(t, "deny begins /blog", "deny contains /draft",
				"deny ends .bak", "allow regex .*")},
			{URL: "HTTP://Docs.Example.COM:80/", Rules: rules(t, "deny ends .pdf")},
			{URL: "https://api.example.com:8443"},
		},
		MaxCrawlDepth: intp(3),
		Block:         []Rule{mustRule(t, "contains:/login")},
		Accept:        []Rule{mustRule(t, "contains:/blog/2021/keep"), mustRule(t, "host:elsewhere.example.net")},
		Seeds: []Seed{
			{URL: "http://www.example.com/"},
			{URL: "http://docs.example.com/docs/", Block: []Rule{mustRule(t, "contains:/docs/old/")}},
			{URL: "https://api.example.com:8443/v1/status.json"},
		},
	}
}

func TestDecideElastic(t *testing.T) {
	s := mustNew(t, elasticConfig(t))
	const docs = "http://docs.example.com/docs/"
	denied := func(rule string) Decision { return out(ReasonCrawlRulePrefix + rule) }
	runRows(t, s, []row{
		// 1. not http(s)
		{url: "ftp://www.example.com/a", hops: "L", want: out(ReasonScheme)},
		{url: "mailto:someone@example.com", hops: "L", want: out(ReasonScheme)},
		// 2. robots.txt, of any origin
		{url: "http://elsewhere.example.net/robots.txt", hops: "LP", want: in(ReasonPrerequisite)},
		// Archive-It block rules, before the domains: they bind embeds too
		{url: "http://www.example.com/login", hops: "L", want: out("block:contains:/login")},
		{url: "http://cdn.example.net/login/logo.png", hops: "LE", want: out("block:contains:/login")},
		{name: "a seed's block rule", url: "http://docs.example.com/docs/old/a.html", hops: "L", seed: docs,
			want: out("block:contains:/docs/old/")},
		{name: "another seed's block rule does not apply", url: "http://docs.example.com/docs/old/a.html", hops: "L",
			want: in(ReasonDomain)},
		// 3. the origin is a domain: scheme, host and port exactly
		{url: "http://elsewhere.example.net/", hops: "L", want: out(ReasonOutOfDomain)},
		{name: "an accept rule cannot bring in another origin", url: "http://elsewhere.example.net/x", hops: "L",
			want: out(ReasonOutOfDomain)},
		{url: "https://www.example.com/", hops: "L", want: out(ReasonOutOfDomain)},
		{url: "http://www.example.com:8080/", hops: "L", want: out(ReasonOutOfDomain)},
		{url: "http://example.com/", hops: "L", want: out(ReasonOutOfDomain)},
		{url: "http://sub.www.example.com/", hops: "L", want: out(ReasonOutOfDomain)},
		{url: "http://www.example.com.evil.net/", hops: "L", want: out(ReasonOutOfDomain)},
		{url: "http://wwwexample.com/", hops: "L", want: out(ReasonOutOfDomain)},
		{url: "https://api.example.com/v1/", hops: "L", want: out(ReasonOutOfDomain)},
		{url: "http://user@elsewhere.example.net/", hops: "L", want: out(ReasonOutOfDomain)},
		{url: "http://WWW.EXAMPLE.COM:80/a.html", hops: "L", want: in(ReasonDomain)},
		{url: "https://api.example.com:8443/v1/other.json", hops: "L", want: in(ReasonDomain)},
		{name: "userinfo is not part of the origin", url: "http://user@www.example.com/a.html", hops: "L", want: in(ReasonDomain)},
		// ... except an embed of an in-scope page
		{url: "http://cdn.example.net/style.css", hops: "LE", want: embed},
		{url: "http://cdn.example.net/style.css", hops: "E", viaOff: 2, want: inOff(ReasonEmbed, 2)},
		{url: "http://cdn.example.net/font.woff", hops: "LEE", want: embed},
		{url: "http://cdn.example.net/favicon.ico", hops: "LI", want: out(ReasonOutOfDomain)},
		{url: "http://cdn.example.net/page.html", hops: "LEL", want: out(ReasonOutOfDomain)},
		{url: "http://cdn.example.net/page.html", hops: "LER", want: out(ReasonOutOfDomain)},
		{url: "http://cdn.example.net/page.html", hops: "LX", want: out(ReasonOutOfDomain)},
		{url: "http://cdn.example.net/page.html", hops: "M", want: out(ReasonOutOfDomain)},
		// 4. the domain's crawl rules, first match
		{url: "http://www.example.com/blog", hops: "L", want: denied("1:deny:begins:/blog")},
		{url: "http://www.example.com/blog/2021/post.html", hops: "L", want: denied("1:deny:begins:/blog")},
		{url: "http://www.example.com/blogger/", hops: "L", want: denied("1:deny:begins:/blog")},
		{url: "http://www.example.com/about/blog", hops: "L", want: in(ReasonDomain)},
		{url: "http://www.example.com/products/draft-1.html", hops: "L", want: denied("2:deny:contains:/draft")},
		{url: "http://www.example.com/products/a.bak", hops: "L", want: denied("3:deny:ends:.bak")},
		{url: "http://www.example.com/products/a.bak?v=1", hops: "L", want: in(ReasonDomain)},
		{url: "http://www.example.com/blog/x.html#frag", hops: "L", want: denied("1:deny:begins:/blog")},
		{url: "http://docs.example.com/docs/v2/guide.pdf", hops: "L", want: denied("1:deny:ends:.pdf")},
		{url: "http://docs.example.com/docs/v2/guide.pdf?dl=1", hops: "L", want: in(ReasonDomain)},
		{url: "http://docs.example.com/docs/v2/guide.PDF", hops: "L", want: in(ReasonDomain)},
		{name: "an in-domain embed is decided by the rules", url: "http://www.example.com/img/x.bak", hops: "LE",
			want: denied("3:deny:ends:.bak")},
		{url: "http://www.example.com/img/x.png", hops: "LE", want: in(ReasonDomain)},
		{url: "http://www.example.com/blog/x.html", hops: "M", want: denied("1:deny:begins:/blog")},
		// an Archive-It accept rule lets in what a crawl rule denies, within the depth
		{url: "http://www.example.com/blog/2021/keep.html", hops: "L", want: in("accept:contains:/blog/2021/keep")},
		{url: "http://www.example.com/blog/2021/keep.html", hops: "LLL", want: out(ReasonMaxDepth)},
		// 5. depth: seeds and sitemap entries 1, each L or X adds 1, R, E, I, M nothing
		{url: "http://www.example.com/deep/1.html", hops: "L", want: in(ReasonDomain)},
		{url: "http://www.example.com/deep/2.html", hops: "LL", want: in(ReasonDomain)},
		{url: "http://www.example.com/deep/3.html", hops: "LLL", want: out(ReasonMaxDepth)},
		{url: "http://www.example.com/deep/3.html", hops: "LLX", want: out(ReasonMaxDepth)},
		{url: "http://www.example.com/deep/r.html", hops: "LRLR", want: in(ReasonDomain)},
		{url: "http://www.example.com/deep/r.html", hops: "LRLRL", want: out(ReasonMaxDepth)},
		{url: "http://www.example.com/deep/2.png", hops: "LLE", want: in(ReasonDomain)},
		{url: "http://www.example.com/only-in-sitemap.html", hops: "M", want: in(ReasonDomain)},
		{url: "http://www.example.com/from-sitemap.html", hops: "LLLM", want: in(ReasonDomain)},
		{url: "http://www.example.com/from-sitemap.html", hops: "LLLMLL", want: in(ReasonDomain)},
		{url: "http://www.example.com/from-sitemap.html", hops: "MLLL", want: out(ReasonMaxDepth)},
		{url: "http://www.example.com/robots.txt", hops: "LLLLLP", want: in(ReasonPrerequisite)},
		// seeds go through the same steps
		{url: "http://www.example.com/", want: in(ReasonSeed)},
		{url: "https://api.example.com:8443/v1/status.json", want: in(ReasonSeed)},
		{url: "http://www.example.com/blog/", want: denied("1:deny:begins:/blog")},
		{url: "http://www.example.com/login", want: out("block:contains:/login")},
		{url: "http://elsewhere.example.net/", want: out(ReasonOutOfDomain)},
	})
}

func TestElasticDefaultDepth(t *testing.T) {
	s := mustNew(t, Config{Flavour: Elastic, Domains: []Domain{{URL: "http://a.test"}}, Seeds: []Seed{{URL: "http://a.test/"}}})
	runRows(t, s, []row{
		{name: "depth 10", url: "http://a.test/x", hops: strings.Repeat("L", DefaultMaxCrawlDepth-1), want: in(ReasonDomain)},
		{name: "depth 11", url: "http://a.test/x", hops: strings.Repeat("L", DefaultMaxCrawlDepth), want: out(ReasonMaxDepth)},
		{name: "no rules: everything allowed", url: "http://a.test/anything?at=all", hops: "L", want: in(ReasonDomain)},
	})
	s = mustNew(t, Config{Flavour: Elastic, MaxCrawlDepth: intp(1), Domains: []Domain{{URL: "http://a.test"}},
		Seeds: []Seed{{URL: "http://a.test/"}}})
	runRows(t, s, []row{
		{name: "max 1: the seed", url: "http://a.test/", want: in(ReasonSeed)},
		{name: "max 1: a sitemap entry", url: "http://a.test/s", hops: "M", want: in(ReasonDomain)},
		{name: "max 1: a link", url: "http://a.test/x", hops: "L", want: out(ReasonMaxDepth)},
	})
}

func TestCrawlDepth(t *testing.T) {
	for hops, want := range map[string]int{
		"": 1, "L": 2, "LL": 3, "X": 2, "LX": 3, "R": 1, "LR": 2, "RRL": 2, "E": 1, "LLE": 3, "I": 1, "P": 1,
		"M": 1, "LLLM": 1, "LLLML": 2, "MMLX": 3, "LMLML": 2,
	} {
		if got := CrawlDepth(hops); got != want {
			t.Errorf("CrawlDepth(%q) = %d, want %d", hops, got, want)
		}
	}
}

func TestOrigin(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://www.example.com/", "http://www.example.com"},
		{"https://example.com:8443/a/b?c#d", "https://example.com:8443"},
		{"http://user:pw@example.com/", "http://example.com"},
		{"http://[::1]:8080/", "http://[::1]:8080"},
		{"http://127.0.0.1/", "http://127.0.0.1"},
		{"ftp://example.com/", ""},
		{"mailto:a@example.com", ""},
		{"", ""},
	} {
		if got := Origin(tc.url); got != tc.want {
			t.Errorf("Origin(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}

func TestNewElasticErrors(t *testing.T) {
	dom := []Domain{{URL: "http://a.test"}}
	seeds := []Seed{{URL: "http://a.test/"}}
	for _, tt := range []struct {
		name string
		cfg  Config
		want error
	}{
		{"no domain", Config{Flavour: Elastic, Seeds: seeds}, ErrConfig},
		{"domain with a path", Config{Flavour: Elastic, Domains: []Domain{{URL: "http://a.test/blog"}}}, ErrURL},
		{"domain with a query", Config{Flavour: Elastic, Domains: []Domain{{URL: "http://a.test/?x=1"}}}, ErrURL},
		{"domain with an empty query", Config{Flavour: Elastic, Domains: []Domain{{URL: "http://a.test?"}}}, ErrURL},
		{"domain with a fragment", Config{Flavour: Elastic, Domains: []Domain{{URL: "http://a.test/#top"}}}, ErrURL},
		{"domain with a user", Config{Flavour: Elastic, Domains: []Domain{{URL: "http://me@a.test"}}}, ErrURL},
		{"domain not http", Config{Flavour: Elastic, Domains: []Domain{{URL: "ftp://a.test"}}}, ErrURL},
		{"domain without scheme", Config{Flavour: Elastic, Domains: []Domain{{URL: "a.test"}}}, ErrURL},
		{"domain without host", Config{Flavour: Elastic, Domains: []Domain{{URL: "http://"}}}, ErrURL},
		{"domain with a bad host", Config{Flavour: Elastic, Domains: []Domain{{URL: "http://a b.test"}}}, ErrURL},
		{"domain with a bad port", Config{Flavour: Elastic, Domains: []Domain{{URL: "http://a.test:99999"}}}, ErrURL},
		{"domain twice", Config{Flavour: Elastic, Domains: []Domain{{URL: "http://a.test"}, {URL: "HTTP://A.test:80/"}}}, ErrConfig},
		{"missing rule", Config{Flavour: Elastic, Domains: []Domain{{URL: "http://a.test", Rules: crawlrule.List{nil}}}}, ErrConfig},
		{"seed outside the domains", Config{Flavour: Elastic, Domains: dom, Seeds: []Seed{{URL: "http://b.test/"}}}, ErrConfig},
		{"seed on another scheme", Config{Flavour: Elastic, Domains: dom, Seeds: []Seed{{URL: "https://a.test/"}}}, ErrConfig},
		{"max_crawl_depth 0", Config{Flavour: Elastic, Domains: dom, Seeds: seeds, MaxCrawlDepth: intp(0)}, ErrConfig},
		{"max_crawl_depth negative", Config{Flavour: Elastic, Domains: dom, Seeds: seeds, MaxCrawlDepth: intp(-1)}, ErrConfig},
		{"domains in standard", Config{Domains: dom, Seeds: seeds}, ErrConfig},
		{"max_crawl_depth in brozzler", Config{Flavour: Brozzler, Seeds: seeds, MaxCrawlDepth: intp(3)}, ErrConfig},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.cfg); !errors.Is(err, tt.want) {
				t.Errorf("New: %v, want %v", err, tt.want)
			}
		})
	}
}

// TestElasticSeeds: seeds in domains of every form; a recorded seed redirect outside the
// domains (an older run's) is left out rather than failing a resumed crawl; nothing is
// promoted.
func TestElasticSeeds(t *testing.T) {
	s := mustNew(t, Config{Flavour: Elastic,
		Domains: []Domain{{URL: "https://a.test:8443/"}, {URL: "http://xn--bcher-kva.test"}},
		Seeds: []Seed{{URL: "https://A.test:8443/x"}, {URL: "http://bücher.test/"},
			{URL: "http://elsewhere.test/", RedirectedFrom: "https://a.test:8443/x"},
			{URL: "https://a.test:8443/y", RedirectedFrom: "https://a.test:8443/x"}}})
	if _, ok := s.SeedType("http://elsewhere.test/"); ok {
		t.Error("a redirect seed outside the domains was kept")
	}
	if _, ok := s.SeedType("https://a.test:8443/y"); !ok {
		t.Error("a redirect seed inside the domains was lost")
	}
	if s.PromoteRedirect("https://a.test:8443/x", "https://a.test:8443/z", "R") {
		t.Error("PromoteRedirect changed an elastic scope")
	}
	runRows(t, s, []row{
		{url: "http://bücher.test/a", hops: "L", want: in(ReasonDomain)},
		{url: "https://a.test:8443/", hops: "RL", want: in(ReasonDomain)},
	})
}

// TestElasticLeavesOthersAlone: Standard and Brozzler decide as before whatever the reasons
// the Elastic flavour added, and an elastic scope's seeds follow its domains, not Standard's
// seed prefixes.
func TestElasticLeavesOthersAlone(t *testing.T) {
	for _, f := range []Flavour{Standard, Brozzler} {
		s := mustNew(t, Config{Flavour: f, Seeds: []Seed{{URL: "http://a.test/x/"}}})
		runRows(t, s, []row{
			{url: "http://a.test/x/", want: in(ReasonSeed)},
			{url: "http://b.test/", hops: "L", want: outOfScop},
		})
	}
	s := mustNew(t, Config{Flavour: Elastic, Domains: []Domain{{URL: "http://a.test"}}, Seeds: []Seed{{URL: "http://a.test/x/"}}})
	runRows(t, s, []row{
		{name: "outside the seed's prefix, inside the domain", url: "http://a.test/other", hops: "L", want: in(ReasonDomain)},
	})
}

package scope

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// row is one Decide case. URLs are canonicalised with the scope's flavour before deciding.
type row struct {
	name        string
	url         string
	hops        string
	seed        string // "" = the first seed
	viaOff      int
	via         string
	viaRedirect string
	want        Decision
}

func intp(n int) *int { return &n }

func mustRule(t *testing.T, s string) Rule {
	t.Helper()
	r, err := ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustNew(t *testing.T, cfg Config) *Scope {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func canon(t *testing.T, s *Scope, u string) string {
	t.Helper()
	if u == "" {
		return ""
	}
	c, err := Canonicalize(u, s.Flavour())
	if err != nil {
		t.Fatalf("Canonicalize(%q): %v", u, err)
	}
	return c
}

func runRows(t *testing.T, s *Scope, rows []row) {
	t.Helper()
	for _, r := range rows {
		name := r.name
		if name == "" {
			name = r.hops + " " + r.url
		}
		t.Run(name, func(t *testing.T) {
			c := Candidate{
				URL:         canon(t, s, r.url),
				Hops:        r.hops,
				Via:         canon(t, s, r.via),
				ViaHopsOff:  r.viaOff,
				ViaRedirect: canon(t, s, r.viaRedirect),
				Seed:        canon(t, s, r.seed),
			}
			got := s.Decide(c)
			if diff := cmp.Diff(r.want, got); diff != "" {
				t.Errorf("Decide(%+v) (-want +got):\n%s", c, diff)
			}
		})
	}
}

var (
	in        = func(reason string) Decision { return Decision{In: true, Reason: reason} }
	inOff     = func(reason string, off int) Decision { return Decision{In: true, Reason: reason, HopsOff: off} }
	out       = func(reason string) Decision { return Decision{Reason: reason} }
	embed     = in(ReasonEmbed)
	seedPfx   = in(ReasonSeedPrefix)
	outOfScop = out(ReasonOutOfScope)
)

// standardConfig is the crawl most Standard tests use.
func standardConfig(t *testing.T) Config {
	return Config{
		Flavour: Standard,
		Block: []Rule{
			mustRule(t, "host:ads.example.com"),
			mustRule(t, "contains:/login"),
			{Contains: "/private", Host: "example.com"},
		},
		Accept: []Rule{
			mustRule(t, "surt:https://(org,archive,"),
			mustRule(t, `regex:http://accepted\.example\.info/.*`),
		},
		Seeds: []Seed{
			{URL: "http://example.com/"},
			{URL: "http://plus.example.net/", Type: "Standard+"},
			{URL: "http://one.example.org/article.html", Type: OnePage},
			{URL: "http://oneplus.example.org/page.html", Type: "One-Page+"},
			{URL: "http://rules.example.biz/", Accept: []Rule{mustRule(t, "host:partner.org")},
				Block: []Rule{mustRule(t, "contains:/tmp/")}, MaxHops: intp(2)},
		},
	}
}

const (
	sPlus    = "http://plus.example.net/"
	sOne     = "http://one.example.org/article.html"
	sOnePlus = "http://oneplus.example.org/page.html"
	sRules   = "http://rules.example.biz/"
)

func TestDecideStandard(t *testing.T) {
	s := mustNew(t, standardConfig(t))
	L100 := strings.Repeat("L", 100)
	runRows(t, s, []row{
		// Seeds are never scope-checked (not even by block rules).
		{name: "seed", url: "http://example.com/", want: in(ReasonSeed)},
		{name: "seed on a blocked host", url: "http://ads.example.com/", want: in(ReasonSeed)},
		// Step 1: scheme.
		{url: "mailto:someone@example.com", hops: "L", want: out(ReasonScheme)},
		{url: "ftp://example.com/file", hops: "L", want: out(ReasonScheme)},
		{url: "javascript:void(0)", hops: "E", want: out(ReasonScheme)},
		// Step 2: prerequisites, before block rules.
		{url: "http://ads.example.com/robots.txt", hops: "LLP", viaOff: 1, want: inOff(ReasonPrerequisite, 1)},
		{url: "http://elsewhere.test/robots.txt", hops: "P", want: in(ReasonPrerequisite)},
		// Step 3: block rules bind embeds too, and come before accept rules.
		{name: "block embed", url: "http://ads.example.com/x.js", hops: "LE", want: out("block:host:ads.example.com")},
		{name: "block subdomain", url: "http://cdn.ads.example.com/x.js", hops: "E", want: out("block:host:ads.example.com")},
		{name: "block label boundary", url: "http://notads.example.com/x.js", hops: "E", want: embed},
		{url: "http://example.com/login?next=/", hops: "L", want: out("block:contains:/login")},
		{name: "block before accept", url: "https://archive.org/login", hops: "L", want: out("block:contains:/login")},
		{name: "map rule", url: "http://www.example.com/private/x", hops: "L", want: out("block:contains:/private host:example.com")},
		{name: "map rule other host", url: "http://notexample.com/private/x", hops: "LE", want: embed},
		// Step 4: traps, before embeds.
		{url: "http://example.com/foo/foo/foo/", hops: "L", want: out(ReasonTrap)},
		{url: "http://example.com/foo/foo/foo", hops: "L", want: out(ReasonTrap)},
		{url: "http://example.com/a/foo/foo/foo/b.png", hops: "LE", want: out(ReasonTrap)},
		{url: "http://example.com/foo/foo/bar/foo/", hops: "L", want: seedPfx},
		{url: "http://example.com/foo/foo/", hops: "L", want: seedPfx},
		{url: "http://example.com/x?p=/a/a/a/a", hops: "L", want: seedPfx},
		{name: "20 segments", url: "http://example.com/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20", hops: "L", want: seedPfx},
		{name: "20 segments and a slash", url: "http://example.com/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/", hops: "L", want: seedPfx},
		{name: "21 segments", url: "http://example.com/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/", hops: "L", want: out(ReasonTrap)},
		{name: "repeated", url: "http://example.com/s/s/s", hops: "L", want: out(ReasonTrap)},
		{name: "empty segments", url: "http://example.com/a////", hops: "L", want: out(ReasonTrap)},
		// Step 5: transclusion, off-site.
		{url: "http://cdn.other.net/x", hops: "E", want: embed},
		{url: "http://cdn.other.net/x", hops: "LE", want: embed},
		{url: "http://cdn.other.net/x", hops: "LEE", want: embed},
		{url: "http://cdn.other.net/x", hops: "LX", want: embed},
		{url: "http://cdn.other.net/x", hops: "LR", want: embed},
		{url: "http://cdn.other.net/x", hops: "LRRR", want: embed},
		{url: "http://cdn.other.net/x", hops: "LRE", want: embed},
		{url: "http://cdn.other.net/x", hops: "LRI", want: embed},
		{url: "http://cdn.other.net/x", hops: "R", want: embed},
		{url: "http://cdn.other.net/x", hops: "LME", want: embed},
		{url: "http://cdn.other.net/x", hops: "L", want: outOfScop},
		{url: "http://cdn.other.net/x", hops: "LEEE", want: outOfScop},
		{url: "http://cdn.other.net/x", hops: "LXX", want: outOfScop},
		{url: "http://cdn.other.net/x", hops: "LEM", want: outOfScop},
		{name: "embed inherits offHops", url: "http://cdn.other.net/x", hops: "LLE", viaOff: 1, seed: sPlus, want: inOff(ReasonEmbed, 1)},
		// Step 6: the hop limit (default 100), after embeds.
		{name: "100th hop", url: "http://example.com/p100", hops: L100, want: seedPfx},
		{name: "101st hop", url: "http://example.com/p101", hops: L100 + "L", want: out(ReasonMaxHops)},
		{name: "embed of the 100th page", url: "http://cdn.other.net/x.png", hops: L100 + "E", want: embed},
		{name: "on-site embed of the 100th page", url: "http://example.com/x.png", hops: L100 + "E", want: embed},
		{name: "accept rule after 100 hops", url: "https://archive.org/x", hops: L100 + "L", want: out(ReasonMaxHops)},
		// Step 7: accept rules; an https:// SURT is read as http://.
		{url: "https://web.archive.org/x", hops: "LL", viaOff: 1, seed: sPlus, want: in("accept:surt:https://(org,archive,")},
		{url: "http://archive.org/", hops: "L", want: in("accept:surt:https://(org,archive,")},
		{url: "http://accepted.example.info/a/b", hops: "L", want: in(`accept:regex:http://accepted\.example\.info/.*`)},
		{name: "regex is anchored", url: "http://xaccepted.example.info/a", hops: "L", want: outOfScop},
		{name: "regex whole URL", url: "https://accepted.example.info/a", hops: "L", want: outOfScop},
		// Step 8: seed prefixes, both protocols, www is a subdomain.
		{url: "https://example.com/deep/page.html", hops: "LL", want: seedPfx},
		{url: "http://example.com:8080/", hops: "L", want: outOfScop},
		{url: "http://www.example.com/", hops: "L", want: outOfScop},
		{name: "prefixes are shared by all seeds", url: "http://example.com/x", hops: "L", seed: sOne, want: seedPfx},
		// Step 9: one hop off.
		{name: "standard+ one hop off", url: "http://elsewhere.org/", hops: "L", seed: sPlus, want: inOff(ReasonOneHopOff, 1)},
		{name: "standard+ two hops off", url: "http://elsewhere.org/b", hops: "LL", viaOff: 1, seed: sPlus, want: outOfScop},
		{name: "standard+ back on site", url: "http://plus.example.net/x", hops: "LL", viaOff: 1, seed: sPlus, want: seedPfx},
		{name: "standard+ from deep on-site page", url: "http://elsewhere.org/", hops: "LLLL", seed: sPlus, want: inOff(ReasonOneHopOff, 1)},
		{name: "standard not off", url: "http://elsewhere.org/", hops: "L", want: outOfScop},
		{name: "one-page+ link", url: "http://elsewhere.org/", hops: "L", seed: sOnePlus, want: inOff(ReasonOneHopOff, 1)},
		{name: "one-page+ same site", url: "http://oneplus.example.org/other.html", hops: "L", seed: sOnePlus, want: inOff(ReasonOneHopOff, 1)},
		{name: "one-page+ link on redirect target", url: "http://elsewhere.org/", hops: "RL", seed: sOnePlus, want: inOff(ReasonOneHopOff, 1)},
		{name: "one-page+ link in frame", url: "http://elsewhere.org/", hops: "EL", seed: sOnePlus, want: inOff(ReasonOneHopOff, 1)},
		{name: "one-page+ second hop", url: "http://elsewhere.org/b", hops: "LL", viaOff: 1, seed: sOnePlus, want: outOfScop},
		{name: "one-page+ embed", url: "http://cdn.other.net/a.css", hops: "LE", viaOff: 1, seed: sOnePlus, want: inOff(ReasonEmbed, 1)},
		// One-page seeds add no prefix; their embeds are in; accept rules still work.
		{name: "one-page link", url: "http://one.example.org/other.html", hops: "L", seed: sOne, want: outOfScop},
		{name: "one-page embed", url: "http://one.example.org/pic.png", hops: "E", seed: sOne, want: embed},
		{name: "one-page accept rule", url: "https://archive.org/details/x", hops: "L", seed: sOne, want: in("accept:surt:https://(org,archive,")},
		// Seed-level rules merge with the collection's; the seed's max_hops overrides.
		{name: "seed accept", url: "http://www.partner.org/", hops: "L", seed: sRules, want: in("accept:host:partner.org")},
		{name: "seed accept other seed", url: "http://www.partner.org/", hops: "L", want: outOfScop},
		{name: "seed block", url: "http://rules.example.biz/tmp/x", hops: "L", seed: sRules, want: out("block:contains:/tmp/")},
		{name: "seed block other seed", url: "http://example.com/tmp/x", hops: "L", want: seedPfx},
		{name: "collection block on seed", url: "http://rules.example.biz/login", hops: "L", seed: sRules, want: out("block:contains:/login")},
		{name: "collection accept on seed", url: "https://archive.org/", hops: "L", seed: sRules, want: in("accept:surt:https://(org,archive,")},
		{name: "seed max_hops", url: "http://rules.example.biz/3", hops: "LLL", seed: sRules, want: out(ReasonMaxHops)},
		{name: "seed max_hops ok", url: "http://rules.example.biz/2", hops: "LL", seed: sRules, want: seedPfx},
		{name: "unknown seed is the first", url: "http://example.com/tmp/", hops: "L", seed: "http://unknown.test/", want: seedPfx},
		// Garbage in: no panic.
		{name: "no host", url: "", hops: "L", want: out(ReasonScheme)},
	})
}

func TestDecideStandardSeedFormats(t *testing.T) {
	tests := []struct {
		seed string
		rows []row
	}{
		{"https://archive.org/about/", []row{
			{url: "https://archive.org/webarchive.html", hops: "L", want: outOfScop},
			{url: "https://archive.org/about/bios.html", hops: "L", want: seedPfx},
			{url: "http://archive.org/about/bios.html", hops: "L", want: seedPfx},
		}},
		{"https://archive.org/about", []row{
			{url: "https://archive.org/webarchive.html", hops: "L", want: seedPfx},
			{url: "https://archive.org/about/bios.html", hops: "L", want: seedPfx},
			{url: "https://crawler.archive.org/", hops: "L", want: outOfScop},
		}},
		{"http://ca.gov", []row{
			{url: "http://ca.gov/x", hops: "L", want: seedPfx},
			{url: "https://governor.ca.gov/", hops: "L", want: seedPfx},
			{url: "http://www.ca.gov/", hops: "L", want: seedPfx},
			{url: "http://ca.gov:8080/", hops: "L", want: seedPfx},
			{url: "http://notca.gov/", hops: "L", want: outOfScop},
			{url: "http://ca.gov.evil.com/", hops: "L", want: outOfScop},
		}},
		{"http://www.ca.gov", []row{
			{url: "http://www.ca.gov/x", hops: "L", want: seedPfx},
			{url: "http://sub.www.ca.gov/", hops: "L", want: seedPfx},
			{url: "http://ca.gov/", hops: "L", want: outOfScop},
			{url: "http://governor.ca.gov/", hops: "L", want: outOfScop},
		}},
		{"http://ca.gov/", []row{
			{url: "http://ca.gov/x", hops: "L", want: seedPfx},
			{url: "http://www.ca.gov/", hops: "L", want: outOfScop},
		}},
		{"http://www.example.com/", []row{
			{name: "www is a subdomain", url: "http://example.com/", hops: "L", want: outOfScop},
		}},
		{"http://test.com/", []row{
			{url: "http://testanother.com/", hops: "L", want: outOfScop},
			{url: "http://test.com.evil/", hops: "L", want: outOfScop},
		}},
		{"http://test.com", []row{
			{url: "http://testanother.com/", hops: "L", want: outOfScop},
			{url: "http://sub.test.com/", hops: "L", want: seedPfx},
		}},
		{"http://example.com:8080/app/", []row{
			{url: "http://example.com:8080/app/x", hops: "L", want: seedPfx},
			{url: "http://example.com/app/x", hops: "L", want: outOfScop},
			{url: "http://example.com:8080/other", hops: "L", want: outOfScop},
		}}, // §3.1 step 1 cuts after the last "/" of the whole SURT, query included.
		{"http://example.com/search?q=a/b", []row{
			{name: "slash in the seed's query", url: "http://example.com/other", hops: "L", want: outOfScop},
			{url: "http://example.com/search", hops: "L", want: outOfScop},
			{url: "http://example.com/search?q=b", hops: "L", want: outOfScop},
			{url: "http://example.com/search?q=a/", hops: "L", want: seedPfx},
			{url: "http://example.com/search?q=a/c", hops: "L", want: seedPfx},
			{url: "https://example.com/search?q=a/b/c", hops: "L", want: seedPfx},
			{name: "compared lowercased", url: "http://example.com/Search?Q=A/x", hops: "L", want: seedPfx},
		}},
		{"http://example.com/search?q=ab", []row{
			{name: "no slash in the seed's query", url: "http://example.com/other", hops: "L", want: seedPfx},
			{url: "http://www.example.com/", hops: "L", want: outOfScop},
		}},
		{"http://example.com/search?q=a%2Fb", []row{
			{name: "escaped slash is not a slash", url: "http://example.com/other", hops: "L", want: seedPfx},
		}},
		{"http://example.com/dir/search?q=a", []row{
			{url: "http://example.com/dir/x", hops: "L", want: seedPfx},
			{url: "http://example.com/other", hops: "L", want: outOfScop},
		}},
		{"http://example.com?q=a/b", []row{
			{name: "query without a path", url: "http://example.com/other", hops: "L", want: outOfScop},
			{url: "http://example.com/?q=a/c", hops: "L", want: seedPfx},
			{url: "http://sub.example.com/", hops: "L", want: outOfScop},
		}},
		{"http://example.com?x=1", []row{
			{name: "a query is a path: the site only", url: "http://example.com/other", hops: "L", want: seedPfx},
			{url: "http://sub.example.com/", hops: "L", want: outOfScop},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.seed, func(t *testing.T) {
			runRows(t, mustNew(t, Config{Seeds: []Seed{{URL: tt.seed}}}), tt.rows)
		})
	}
}

func TestDecideRuleKinds(t *testing.T) {
	// Each matcher, in both flavours, as an accept rule on a scope whose seed is elsewhere.
	tests := []struct {
		rule     string
		url      string
		standard bool
		brozzler bool
	}{
		{"surt:https://(org,archive,", "https://crawler.archive.org/x", true, true},
		{"surt:https://(org,archive,", "http://crawler.archive.org/x", true, false},
		{"surt:http://(org,archive,", "https://archive.org/x", true, false},
		{"surt:(org,archive,", "https://archive.org/x", true, true},
		{"surt:(org,archive,", "http://archive.org/x", true, true},
		{"surt:http://(org,archive,)/About/", "http://archive.org/About/x", true, true},
		{"surt:http://(org,archive,)/About/", "http://archive.org/about/x", true, false},
		{"surt:http://(org,archive,)/", "http://u:p@archive.org/", false, true},
		{"ssurt:org,archive,//https:/", "https://archive.org/x", true, true},
		{"ssurt:org,archive,//https:/", "http://archive.org/x", false, false},
		{"ssurt:org,archive,//http:/x?a=1&b=2", "http://archive.org/x?b=2&a=1", true, true},
		{`regex:https?://archive\.org/.*\.pdf`, "http://archive.org/a/b.pdf", true, true},
		{`regex:https?://archive\.org/.*\.pdf`, "http://archive.org/a/b.pdf?x", false, false},
		{"regex:.*", "http://anything.test/", true, true},
		{"regex:(?i).*ARCHIVE.*", "http://archive.org/", true, true},
		{"contains:archive", "http://web.archive.org/", true, true},
		{"contains:Archive", "http://web.archive.org/", false, false},
		{"host:archive.org", "http://archive.org:8080/", true, true},
		{"host:archive.org", "http://www.archive.org/", true, true},
		{"host:archive.org", "http://notarchive.org/", false, false},
		{"host:ARCHIVE.org.", "http://archive.org/", true, true},
		{"host:bücher.ch", "http://www.bücher.ch/", true, true},
		{"host:1.2.3.4", "http://1.2.3.4/", true, true},
		{"host:2.3.4", "http://1.2.3.4/", false, false},
		{"host:[::1]", "http://[::1]:8080/", true, true},
		{`parent_regex:http://via\.test/.*`, "http://any.test/", true, true},
		{`parent_regex:http://other\.test/.*`, "http://any.test/", false, false},
	}
	for _, tt := range tests {
		for _, f := range []Flavour{Standard, Brozzler} {
			want := tt.standard
			if f == Brozzler {
				want = tt.brozzler
			}
			t.Run(string(f)+"/"+tt.rule+"/"+tt.url, func(t *testing.T) {
				r := mustRule(t, tt.rule)
				s := mustNew(t, Config{Flavour: f, Accept: []Rule{r}, Seeds: []Seed{{URL: "http://seed.test/"}}})
				d := s.Decide(Candidate{URL: canon(t, s, tt.url), Hops: "L", Via: "http://via.test/x"})
				if d.In != want {
					t.Errorf("%s on %s: got %+v, want In=%v", tt.rule, tt.url, d, want)
				}
				if want && d.Reason != "accept:"+r.String() {
					t.Errorf("reason %q", d.Reason)
				}
			})
		}
	}
}

func TestDecideRuleOrder(t *testing.T) {
	// First match wins, collection before seed, in the order given, whatever the index.
	cfg := Config{
		Block: []Rule{mustRule(t, "regex:.*/z/.*"), mustRule(t, "contains:/z/"), mustRule(t, "host:a.test")},
		Accept: []Rule{mustRule(t, "host:b.test"), mustRule(t, "surt:http://(test,b,"),
			mustRule(t, "contains:b.test"), mustRule(t, "regex:.*")},
		Seeds: []Seed{{URL: "http://seed.test/", Block: []Rule{mustRule(t, "contains:/")},
			Accept: []Rule{mustRule(t, "contains:c.test")}}},
	}
	for _, f := range []Flavour{Standard, Brozzler} {
		t.Run(string(f), func(t *testing.T) {
			cfg.Flavour = f
			s := mustNew(t, cfg)
			runRows(t, s, []row{
				{url: "http://a.test/z/1", hops: "L", want: out("block:regex:.*/z/.*")},
				{url: "http://a.test/y/1", hops: "L", want: out("block:host:a.test")},
				{url: "http://b.test/y/1", hops: "E", want: out("block:contains:/")},
			})
			cfg.Seeds[0].Block = nil
			s = mustNew(t, cfg)
			runRows(t, s, []row{
				{url: "http://b.test/y/1", hops: "L", want: in("accept:host:b.test")},
				{url: "http://www.c.test/", hops: "L", want: in("accept:regex:.*")},
			})
			cfg.Seeds[0].Block = []Rule{mustRule(t, "contains:/")}
		})
	}
}

func TestDecideManyRules(t *testing.T) {
	// More than 512 rules in a level (the idSet's heap path) and many prefixes.
	var cfg Config
	for i := 0; i < 700; i++ {
		cfg.Block = append(cfg.Block, Rule{Contains: fmt.Sprintf("/block%d/", i)})
		cfg.Accept = append(cfg.Accept, Rule{Host: fmt.Sprintf("accept%d.test", i)})
		cfg.Seeds = append(cfg.Seeds, Seed{URL: fmt.Sprintf("http://seed%d.test/", i)})
	}
	s := mustNew(t, cfg)
	runRows(t, s, []row{
		{url: "http://seed5.test/block699/", hops: "L", want: out("block:contains:/block699/")},
		{url: "http://seed5.test/block1/block0/", hops: "L", want: out("block:contains:/block0/")},
		{url: "http://www.accept650.test/", hops: "L", want: in("accept:host:accept650.test")},
		{url: "http://seed699.test/x", hops: "L", want: seedPfx},
		{url: "http://seed700.test/x", hops: "L", want: outOfScop},
	})
}

func TestDecideBrozzler(t *testing.T) {
	const sQuery = "http://query.example.com/search?q=a/b"
	cfg := Config{
		Flavour: Brozzler,
		Block:   []Rule{mustRule(t, "host:ads.example.com"), {ParentRegex: `http://spam\.test/.*`}},
		Accept: []Rule{
			mustRule(t, "surt:https://(org,archive,"),
			{Regex: `^https://www\.youtube\.com/watch\?.*$`, ParentRegex: `^https://www\.youtube\.com/user/.*$`},
		},
		Seeds: []Seed{
			{URL: "https://example.com/about"},
			{URL: "http://query.example.com/search?q=a/b"},
			{URL: "http://plus.example.net/", Type: StandardPlus},
			{URL: "http://one.example.org/article.html", Type: OnePage},
			{URL: "http://oneplus.example.org/page.html", Type: OnePagePlus},
			{URL: "http://rules.example.biz/", MaxHops: intp(1), MaxHopsOff: intp(2),
				Accept: []Rule{mustRule(t, "host:partner.org")}, Block: []Rule{mustRule(t, "contains:/tmp/")}},
		},
	}
	s := mustNew(t, cfg)
	L100 := strings.Repeat("L", 100)
	runRows(t, s, []row{
		{name: "seed", url: "https://example.com/about", want: in(ReasonSeed)},
		// 1. scheme
		{url: "mailto:a@example.com", hops: "L", want: out(ReasonScheme)},
		{url: "data:image/png;base64,AAAA", hops: "E", want: out(ReasonScheme)},
		{url: "http://ads.example.com/robots.txt", hops: "P", want: in(ReasonPrerequisite)},
		// Automatic seed rule: begins with the seed URL, same protocol, port, exact host, path case.
		{url: "https://example.com/about/bios.html", hops: "L", want: seedPfx},
		{url: "https://example.com/aboutus", hops: "L", want: seedPfx},
		{url: "https://example.com/about?x=1", hops: "L", want: seedPfx},
		{url: "https://example.com/webarchive.html", hops: "L", want: outOfScop},
		{url: "http://example.com/about/bios.html", hops: "L", want: outOfScop},
		{url: "https://www.example.com/about/bios.html", hops: "L", want: outOfScop},
		{url: "https://example.com:8443/about/bios.html", hops: "L", want: outOfScop},
		{url: "https://example.com/About/bios.html", hops: "L", want: outOfScop},
		{name: "seeds do not share", url: "https://example.com/about/x", hops: "L", seed: "http://plus.example.net/", want: inOff(ReasonOneHopOff, 1)},
		// The seed's query (and any "/" in it) is not part of its automatic rule.
		{name: "slash in the seed's query", url: "http://query.example.com/other", hops: "L", seed: sQuery, want: outOfScop},
		{url: "http://query.example.com/search?q=a/b/c", hops: "L", seed: sQuery, want: seedPfx},
		{url: "http://query.example.com/search?q=zzz", hops: "L", seed: sQuery, want: seedPfx},
		{url: "http://query.example.com/searching", hops: "L", seed: sQuery, want: seedPfx},
		{url: "https://query.example.com/search?q=a/b", hops: "L", seed: sQuery, want: outOfScop},
		// 2. max-hops, counting L only, before any rule.
		{name: "100th hop", url: "https://example.com/about/100", hops: L100, want: seedPfx},
		{name: "101st hop", url: "https://example.com/about/101", hops: L100 + "L", want: out(ReasonMaxHops)},
		{name: "embeds do not count", url: "https://example.com/about/100", hops: "EEE" + strings.Repeat("L", 99) + "RL", want: seedPfx},
		{name: "accept after max hops", url: "https://archive.org/", hops: L100 + "L", want: out(ReasonMaxHops)},
		{name: "one-page accept rule", url: "https://archive.org/", hops: "L", seed: "http://one.example.org/article.html", want: out(ReasonMaxHops)},
		{name: "one-page own site", url: "http://one.example.org/article.html/x", hops: "L", seed: "http://one.example.org/article.html", want: out(ReasonMaxHops)},
		{name: "one-page+ accept rule", url: "https://archive.org/", hops: "L", seed: "http://oneplus.example.org/page.html", want: in("accept:surt:https://(org,archive,")},
		{name: "one-page+ second hop", url: "https://archive.org/", hops: "LL", seed: "http://oneplus.example.org/page.html", want: out(ReasonMaxHops)},
		{name: "one-page+ off", url: "http://elsewhere.org/", hops: "L", seed: "http://oneplus.example.org/page.html", want: inOff(ReasonOneHopOff, 1)},
		// 3. block (parent: the via or its redirect).
		{url: "http://ads.example.com/", hops: "L", want: out("block:host:ads.example.com")},
		{name: "block parent", url: "https://example.com/about/x", hops: "L", via: "http://spam.test/p", want: out(`block:parent_regex:http://spam\.test/.*`)},
		{name: "block parent redirect", url: "https://example.com/about/x", hops: "L", via: "http://a.test/", viaRedirect: "http://spam.test/p", want: out(`block:parent_regex:http://spam\.test/.*`)},
		// 4. accept.
		{url: "https://crawler.archive.org/", hops: "LL", viaOff: 0, want: in("accept:surt:https://(org,archive,")},
		{name: "https surt keeps scheme", url: "http://crawler.archive.org/", hops: "L", want: outOfScop},
		{name: "parent rule", url: "https://www.youtube.com/watch?v=1", hops: "L", via: "https://www.youtube.com/user/bob", want: in(`accept:regex:^https://www\.youtube\.com/watch\?.*$ parent_regex:^https://www\.youtube\.com/user/.*$`)},
		{name: "parent rule redirect", url: "https://www.youtube.com/watch?v=1", hops: "L", via: "https://youtu.be/bob", viaRedirect: "https://www.youtube.com/user/bob", want: in(`accept:regex:^https://www\.youtube\.com/watch\?.*$ parent_regex:^https://www\.youtube\.com/user/.*$`)},
		{name: "parent rule other via", url: "https://www.youtube.com/watch?v=1", hops: "L", via: "https://www.youtube.com/", want: outOfScop},
		// 5. hops_off.
		{name: "standard+ one off", url: "http://elsewhere.org/", hops: "L", seed: "http://plus.example.net/", want: inOff(ReasonOneHopOff, 1)},
		{name: "standard+ two off", url: "http://elsewhere.org/b", hops: "LL", viaOff: 1, seed: "http://plus.example.net/", want: outOfScop},
		{name: "standard+ back", url: "http://plus.example.net/b", hops: "LL", viaOff: 1, seed: "http://plus.example.net/", want: seedPfx},
		{name: "standard off", url: "http://elsewhere.org/", hops: "L", want: outOfScop},
		// Embeds: always in except block rules, whatever the hops.
		{url: "http://cdn.other.net/x.js", hops: "E", want: embed},
		{url: "http://cdn.other.net/x.js", hops: "LLEEEE", viaOff: 1, want: inOff(ReasonEmbed, 1)},
		{url: "http://cdn.other.net/x.js", hops: L100 + "LLE", want: embed},
		{url: "http://cdn.other.net/favicon.ico", hops: "LI", want: embed},
		{url: "http://cdn.other.net/next", hops: "LR", want: embed},
		{name: "one-page embed", url: "http://cdn.other.net/x.js", hops: "E", seed: "http://one.example.org/article.html", want: embed},
		{name: "blocked embed", url: "http://ads.example.com/x.js", hops: "LE", want: out("block:host:ads.example.com")},
		{name: "no trap in brozzler", url: "https://example.com/about/foo/foo/foo/", hops: "L", want: seedPfx},
		// Seed-level rules and limits.
		{name: "seed accept", url: "http://partner.org/", hops: "L", seed: "http://rules.example.biz/", want: in("accept:host:partner.org")},
		{name: "seed block", url: "http://rules.example.biz/tmp/", hops: "L", seed: "http://rules.example.biz/", want: out("block:contains:/tmp/")},
		{name: "seed max_hops", url: "http://rules.example.biz/x", hops: "LL", seed: "http://rules.example.biz/", want: out(ReasonMaxHops)},
		{name: "seed max_hops_off", url: "http://elsewhere.org/b", hops: "L", viaOff: 1, seed: "http://rules.example.biz/", want: inOff(ReasonOneHopOff, 2)},
	})
}

func TestBrozzlerLimits(t *testing.T) {
	// §4.2 table, and overrides: the seed's value beats the collection's.
	tests := []struct {
		typ               SeedType
		cfgHops, cfgOff   *int
		seedHops, seedOff *int
		hops, off         int
	}{
		{StandardSeed, nil, nil, nil, nil, 100, 0},
		{StandardPlus, nil, nil, nil, nil, 100, 1},
		{OnePage, nil, nil, nil, nil, 0, 0},
		{OnePagePlus, nil, nil, nil, nil, 1, 1},
		{OnePage, intp(3), intp(2), nil, nil, 3, 2},
		{OnePage, intp(3), intp(2), intp(5), intp(4), 5, 4},
		{StandardPlus, nil, intp(0), nil, nil, 100, 0},
	}
	for _, tt := range tests {
		t.Run(string(tt.typ), func(t *testing.T) {
			s := mustNew(t, Config{Flavour: Brozzler, MaxHops: tt.cfgHops, MaxHopsOff: tt.cfgOff,
				Seeds: []Seed{{URL: "http://seed.test/", Type: tt.typ, MaxHops: tt.seedHops, MaxHopsOff: tt.seedOff}}})
			st := s.first
			if st.maxHops != tt.hops || st.maxHopsOff != tt.off {
				t.Errorf("limits = %d, %d; want %d, %d", st.maxHops, st.maxHopsOff, tt.hops, tt.off)
			}
		})
	}
	// Standard flavour: 100 for every type, or the override.
	s := mustNew(t, Config{MaxHops: intp(7), Seeds: []Seed{{URL: "http://a.test/", Type: OnePage}, {URL: "http://b.test/", MaxHops: intp(3)}}})
	if got := s.lookup("http://a.test/").maxHops; got != 7 {
		t.Errorf("collection max_hops = %d", got)
	}
	if got := s.lookup("http://b.test/").maxHops; got != 3 {
		t.Errorf("seed max_hops = %d", got)
	}
	s = mustNew(t, Config{Seeds: []Seed{{URL: "http://a.test/", Type: OnePage}}})
	if got := s.first.maxHops; got != 100 {
		t.Errorf("default max_hops = %d", got)
	}
}

func TestPromoteRedirectStandard(t *testing.T) {
	s := mustNew(t, Config{Seeds: []Seed{
		{URL: "http://example.com/", Type: StandardPlus},
		{URL: "http://one.test/a", Type: OnePage},
		{URL: "http://long.test/"},
	}})
	target := "https://www.example.com/home"
	d := func(u, hops string) Decision {
		return s.Decide(Candidate{URL: u, Hops: hops, Seed: "http://example.com/"})
	}
	if got := d("https://www.example.com/other", "RL"); got.Reason != ReasonOneHopOff {
		t.Fatalf("before promotion: %+v", got)
	}
	if !s.PromoteRedirect("http://example.com/", target, "R") {
		t.Fatal("PromoteRedirect = false")
	}
	if got := d("https://www.example.com/other", "RL"); got != seedPfx {
		t.Errorf("after promotion: %+v", got)
	}
	if got := d("http://www.example.com/x", "RLL"); got != seedPfx {
		t.Errorf("after promotion, http: %+v", got)
	}
	if typ, ok := s.SeedType(target); !ok || typ != StandardPlus {
		t.Errorf("SeedType(target) = %q, %v", typ, ok)
	}
	if typ, ok := s.SeedType("HTTPS://WWW.EXAMPLE.COM/home"); !ok || typ != StandardPlus {
		t.Errorf("SeedType(non-canonical target) = %q, %v", typ, ok)
	}
	// The promoted seed is a source seed of its own (same type).
	if got := s.Decide(Candidate{URL: "http://off.test/", Hops: "L", Seed: target}); got != inOff(ReasonOneHopOff, 1) {
		t.Errorf("from promoted seed: %+v", got)
	}
	if s.PromoteRedirect("http://example.com/", target, "R") {
		t.Error("second PromoteRedirect = true")
	}
	wantPrefixes := []string{"http://(com,example,)/", "http://(com,example,www,)/", "http://(test,long,)/"}
	if diff := cmp.Diff(wantPrefixes, seedPrefixes(s, "")); diff != "" {
		t.Errorf("seed prefixes (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ seed, target, hops string }{
		{"http://long.test/", "http://long2.test/", "RRRRR"}, // chain of 5
		{"http://long.test/", "http://long2.test/", "L"},     // not a redirect
		{"http://long.test/", "http://long2.test/", "RL"},    // not a redirect chain
		{"http://long.test/", "http://long2.test/", ""},      // the seed itself
		{"http://one.test/a", "http://one2.test/", "R"},      // one-page seeds add no prefix
		{"http://unknown.test/", "http://u2.test/", "R"},     // not a seed
		{"http://long.test/", "mailto:x@y.z", "R"},           // not http(s)
		{"http://long.test/", "http://long.test/", "R"},      // itself
		{"http://long.test/", "http://long.test/x", "R"},     // already covered
	} {
		if tt.target != "http://long.test/x" && s.PromoteRedirect(tt.seed, tt.target, tt.hops) {
			t.Errorf("PromoteRedirect(%q, %q, %q) = true", tt.seed, tt.target, tt.hops)
		}
	}
	if !s.PromoteRedirect("http://long.test/", "http://long2.test/", "RRRR") {
		t.Error("chain of 4 not promoted")
	}
	if got := s.Decide(Candidate{URL: "http://long2.test/x", Hops: "RRRRL"}); got != seedPfx {
		t.Errorf("after chain of 4: %+v", got)
	}
	// A covered prefix does not change scope, but the seed is still recorded.
	if !s.PromoteRedirect("http://long.test/", "http://long.test/x", "R") {
		t.Error("new seed within an existing prefix not recorded")
	}
	if _, ok := s.SeedType("http://long.test/x"); !ok {
		t.Error("SeedType of covered target missing")
	}
}

func TestPromoteRedirectBrozzler(t *testing.T) {
	s := mustNew(t, Config{Flavour: Brozzler, Seeds: []Seed{
		{URL: "http://example.org/"},
		{URL: "http://example.net/a/", Type: StandardPlus},
		{URL: "http://example.info/"},
	}})
	dec := func(seed, u string) Decision { return s.Decide(Candidate{URL: u, Hops: "RL", Seed: seed}) }
	if got := dec("http://example.org/", "https://example.org/other"); got != outOfScop {
		t.Fatalf("before: %+v", got)
	}
	// Only the scheme changed: the whole seed in the new scheme.
	if !s.PromoteRedirect("http://example.org/", "https://example.org/home?x=1", "R") {
		t.Fatal("PromoteRedirect = false")
	}
	if got := dec("http://example.org/", "https://example.org/other"); got != seedPfx {
		t.Errorf("after scheme change: %+v", got)
	}
	if diff := cmp.Diff([]string{"org,example,//http:/", "org,example,//https:/"}, seedPrefixes(s, "http://example.org/")); diff != "" {
		t.Errorf("prefixes (-want +got):\n%s", diff)
	}
	// Host changed: only the target's SSURT without its query.
	if !s.PromoteRedirect("http://example.net/a/", "https://www.example.net/start/?q=1", "RR") {
		t.Fatal("PromoteRedirect = false")
	}
	if got := dec("http://example.net/a/", "https://www.example.net/start/x"); got != seedPfx {
		t.Errorf("target prefix: %+v", got)
	}
	if got := dec("http://example.net/a/", "https://www.example.net/other"); got != inOff(ReasonOneHopOff, 1) {
		t.Errorf("outside target prefix: %+v", got)
	}
	if got := dec("http://example.net/a/", "https://example.net/a/x"); got != inOff(ReasonOneHopOff, 1) {
		t.Errorf("scheme of a different host: %+v", got)
	}
	if typ, ok := s.SeedType("https://www.example.net/start/?q=1"); !ok || typ != StandardPlus {
		t.Errorf("SeedType(target) = %q, %v", typ, ok)
	}
	// The alias resolves to the seed's scope.
	if got := s.Decide(Candidate{URL: "http://example.net/a/b", Hops: "L", Seed: "https://www.example.net/start/?q=1"}); got != seedPfx {
		t.Errorf("alias seed: %+v", got)
	}
	// A redundant prefix is not added (the target is still recorded as an alias).
	s.PromoteRedirect("http://example.org/", "https://example.org/deeper/", "R")
	if diff := cmp.Diff([]string{"org,example,//http:/", "org,example,//https:/"}, seedPrefixes(s, "http://example.org/")); diff != "" {
		t.Errorf("redundant prefix added (-want +got):\n%s", diff)
	}
	if s.PromoteRedirect("http://example.org/", "https://example.org/deeper/", "R") {
		t.Error("second call changed scope")
	}
	if s.PromoteRedirect("http://example.info/", "http://x.test/", "L") {
		t.Error("non-redirect promoted")
	}
	// Any chain length (the browser follows the whole chain).
	if !s.PromoteRedirect("http://example.info/", "http://x.test/", "RRRRRR") {
		t.Error("long chain not recorded")
	}
}

func TestNewRedirectedFrom(t *testing.T) {
	// A resumed crawl passes promoted seeds back with RedirectedFrom.
	std := mustNew(t, Config{Seeds: []Seed{
		{URL: "https://www.example.com/home", RedirectedFrom: "http://example.com/"},
		{URL: "http://example.com/", Type: StandardPlus},
	}})
	if typ, ok := std.SeedType("https://www.example.com/home"); !ok || typ != StandardPlus {
		t.Errorf("standard: SeedType = %q, %v", typ, ok)
	}
	if got := std.Decide(Candidate{URL: "http://www.example.com/x", Hops: "RL"}); got != seedPfx {
		t.Errorf("standard: %+v", got)
	}
	if got := std.first.url; got != "http://example.com/" {
		t.Errorf("first seed = %q", got)
	}
	br := mustNew(t, Config{Flavour: Brozzler, Seeds: []Seed{
		{URL: "http://example.com/"},
		{URL: "https://example.com/home", RedirectedFrom: "http://example.com/"},
		{URL: "http://orphan.test/", RedirectedFrom: "http://gone.test/"},
	}})
	if got := br.Decide(Candidate{URL: "https://example.com/x", Hops: "RL", Seed: "http://example.com/"}); got != seedPfx {
		t.Errorf("brozzler: %+v", got)
	}
	if got := br.Decide(Candidate{URL: "http://orphan.test/x", Hops: "L", Seed: "http://orphan.test/"}); got != seedPfx {
		t.Errorf("brozzler orphan: %+v", got)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want error
	}{
		{"flavour", Config{Flavour: "heritrix"}, ErrConfig},
		{"max_hops", Config{MaxHops: intp(-1)}, ErrConfig},
		{"max_hops_off", Config{MaxHopsOff: intp(-1)}, ErrConfig},
		{"seed max_hops", Config{Seeds: []Seed{{URL: "http://a.test/", MaxHops: intp(-2)}}}, ErrConfig},
		{"seed url", Config{Seeds: []Seed{{URL: "not a url"}}}, ErrURL},
		{"seed scheme", Config{Seeds: []Seed{{URL: "ftp://a.test/"}}}, ErrURL},
		{"seed redirected url", Config{Seeds: []Seed{{URL: "http://a.test/"}, {URL: "::", RedirectedFrom: "http://a.test/"}}}, ErrURL},
		{"seed type", Config{Seeds: []Seed{{URL: "http://a.test/", Type: "two-page"}}}, ErrSeedType},
		{"empty rule", Config{Accept: []Rule{{}}}, ErrRule},
		{"regex", Config{Block: []Rule{{Regex: "("}}}, ErrRule},
		{"surt", Config{Accept: []Rule{{SURT: "http://archive.org/"}}}, ErrRule},
		{"seed rule", Config{Seeds: []Seed{{URL: "http://a.test/", Block: []Rule{{Host: "a b"}}}}}, ErrRule},
		{"max_url_length", Config{MaxURLLength: -1}, ErrConfig},
		{"seed too long", Config{Seeds: []Seed{{URL: urlOfLen(DefaultMaxURLLength + 1)}}}, ErrURL},
		{"seed over own limit", Config{MaxURLLength: 30, Seeds: []Seed{{URL: urlOfLen(31)}}}, ErrURL},
		{"seed IPv4 invalid", Config{Seeds: []Seed{{URL: "http://1.2.3.4.5/"}}}, ErrURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.cfg); !errors.Is(err, tt.want) {
				t.Errorf("New: %v, want %v", err, tt.want)
			}
		})
	}
}

func TestNoSeeds(t *testing.T) {
	for _, f := range []Flavour{Standard, Brozzler} {
		s := mustNew(t, Config{Flavour: f, Accept: []Rule{mustRule(t, "host:a.test")}})
		runRows(t, s, []row{
			{url: "http://a.test/", hops: "L", want: in("accept:host:a.test")},
			{url: "http://b.test/", hops: "L", want: outOfScop},
			{url: "http://b.test/", hops: "E", want: embed},
		})
	}
}

func TestDuplicateSeed(t *testing.T) {
	s := mustNew(t, Config{Seeds: []Seed{{URL: "http://a.test/", Type: OnePage}, {URL: "HTTP://A.TEST", Type: StandardPlus}}})
	if typ, _ := s.SeedType("http://a.test/"); typ != OnePage {
		t.Errorf("SeedType = %q, want the first entry's", typ)
	}
}

func TestConcurrentDecideAndPromote(t *testing.T) {
	for _, f := range []Flavour{Standard, Brozzler} {
		t.Run(string(f), func(t *testing.T) {
			var seeds []Seed
			for i := 0; i < 50; i++ {
				seeds = append(seeds, Seed{URL: fmt.Sprintf("http://s%d.test/", i)})
			}
			s := mustNew(t, Config{Flavour: f, Seeds: seeds, Block: []Rule{mustRule(t, "contains:/x/")}})
			var wg sync.WaitGroup
			for g := 0; g < 4; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < 2000; i++ {
						n := i % 50
						s.Decide(Candidate{URL: fmt.Sprintf("https://s%d.test/p", n), Hops: "RL", Seed: fmt.Sprintf("http://s%d.test/", n)})
					}
				}()
			}
			for i := 0; i < 50; i++ {
				s.PromoteRedirect(fmt.Sprintf("http://s%d.test/", i), fmt.Sprintf("https://s%d.test/", i), "R")
			}
			wg.Wait()
			for i := 0; i < 50; i++ {
				d := s.Decide(Candidate{URL: fmt.Sprintf("https://s%d.test/p", i), Hops: "RL", Seed: fmt.Sprintf("http://s%d.test/", i)})
				if d != seedPfx {
					t.Fatalf("seed %d: %+v", i, d)
				}
			}
		})
	}
}

func TestDecideNeverPanics(t *testing.T) {
	s := mustNew(t, standardConfig(t))
	cfg := standardConfig(t)
	cfg.Flavour = Brozzler
	b := mustNew(t, cfg)
	for _, u := range []string{"", "http://", "http://@", "http://[", "https://:80", "x://y", "http://a/?&&", "http:/x", "://", "http://a:b:c@d:e/f"} {
		for _, h := range []string{"", "L", "E", "P", "LLLLLLLLLLLLLLLLLLLLLLLLLLLLLL?", "\x00"} {
			s.Decide(Candidate{URL: u, Hops: h, Via: u, ViaRedirect: u, Seed: u, ViaHopsOff: -5})
			b.Decide(Candidate{URL: u, Hops: h, Via: u, ViaRedirect: u, Seed: u, ViaHopsOff: 1 << 30})
		}
	}
}

func TestIsTrap(t *testing.T) {
	tests := map[string]bool{
		"":            false,
		"/":           false,
		"/a":          false,
		"/a/":         false,
		"/a/a":        false,
		"/a/a/":       false,
		"/a/a/a":      true,
		"/a/a/a/":     true,
		"/x/a/a/a/y":  true,
		"/a/a/b/a/a":  false,
		"/a/a?/a/a/a": false,
		"/a/a/a?q":    true,
		"/ab/a/a":     false,
		"/a/ab/ab/ab": true,
		"//":          false,
		"///":         false,
		"////":        true,
		"/a////b":     true,
		"/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20":   false,
		"/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/":  false,
		"/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/x": true,
		"/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20?/": false,
	}
	for in, want := range tests {
		if got := isTrap(in); got != want {
			t.Errorf("isTrap(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestTranscluded(t *testing.T) {
	for h, want := range map[string]bool{
		"E": true, "LE": true, "LEE": true, "LX": true, "LR": true, "LRRR": true, "LRE": true, "LRI": true,
		"R": true, "RR": true, "LLLE": true, "ELE": true, "LXE": true, "LRRRRRRE": true,
		"L": false, "LEEE": false, "LXX": false, "": false, "LL": false, "EEE": false, "LM": false, "LEXE": false,
	} {
		if got := transcluded(h); got != want {
			t.Errorf("transcluded(%q) = %v, want %v", h, got, want)
		}
	}
}

// seedPrefixes returns the Standard flavour's seed SURT prefixes (sorted; promoted seeds
// included), or in the Brozzler flavour the automatic SSURT accept prefixes of seed.
func seedPrefixes(s *Scope, seed string) []string {
	var out []string
	if s.flavour == Brozzler {
		if st := s.lookup(seed); st != nil {
			out = append(out, *st.auto.Load()...)
		}
		return out
	}
	s.prefixes.Load().each("", func(p string) { out = append(out, p) })
	return out
}

// urlOfLen returns a canonical http URL of exactly n bytes (n >= 20).
func urlOfLen(n int) string {
	u := "http://a.test/p?q="
	return u + strings.Repeat("x", n-len(u))
}

func TestMaxURLLength(t *testing.T) {
	// Every urlOfLen URL matches the block rule: below the limit it decides, above it the
	// length does, before anything else.
	blocked := Decision{Reason: "block:contains:/p?q=x"}
	tooLong := Decision{Reason: ReasonTooLong}
	tests := []struct {
		name  string
		limit int // Config.MaxURLLength
		n     int // length of the candidate URL
		hops  string
		want  Decision
	}{
		{"default at limit", 0, DefaultMaxURLLength, "L", blocked},
		{"default over limit", 0, DefaultMaxURLLength + 1, "L", tooLong},
		{"seed at limit", 0, DefaultMaxURLLength, "", Decision{In: true, Reason: ReasonSeed}},
		{"seed over limit", 0, DefaultMaxURLLength + 1, "", tooLong},
		{"prerequisite over limit", 0, DefaultMaxURLLength + 1, "LP", tooLong},
		{"embed over limit", 0, DefaultMaxURLLength + 1, "LE", tooLong},
		{"100 KB", 0, 100 << 10, "L", tooLong},
		{"own limit at", 40, 40, "L", blocked},
		{"own limit over", 40, 41, "L", tooLong},
		{"raised limit", 100 << 10, 100 << 10, "L", blocked},
	}
	for _, f := range []Flavour{Standard, Brozzler} {
		for _, tt := range tests {
			t.Run(string(f)+"/"+tt.name, func(t *testing.T) {
				s := mustNew(t, Config{Flavour: f, MaxURLLength: tt.limit,
					Block: []Rule{mustRule(t, "contains:/p?q=x")},
					Seeds: []Seed{{URL: "http://a.test/"}}})
				u := urlOfLen(tt.n)
				if len(u) != tt.n {
					t.Fatalf("urlOfLen(%d) has %d bytes", tt.n, len(u))
				}
				if got := s.Decide(Candidate{URL: u, Hops: tt.hops, Via: "http://a.test/"}); got != tt.want {
					t.Errorf("Decide(%d bytes, %q) = %+v, want %+v", tt.n, tt.hops, got, tt.want)
				}
			})
		}
	}
}

func TestMaxURLLengthSeeds(t *testing.T) {
	at, over := urlOfLen(DefaultMaxURLLength), urlOfLen(DefaultMaxURLLength+1)
	if _, err := New(Config{Seeds: []Seed{{URL: at}}}); err != nil {
		t.Errorf("seed of %d bytes: %v", len(at), err)
	}
	_, err := New(Config{Seeds: []Seed{{URL: "http://a.test/"}, {URL: over}}})
	if !errors.Is(err, ErrURL) || !strings.Contains(err.Error(), over[:50]) {
		t.Errorf("seed of %d bytes: %v, want ErrURL naming the seed", len(over), err)
	}
	if err != nil && len(err.Error()) > 300 {
		t.Errorf("error of %d bytes for a long seed; want the seed's start only", len(err.Error()))
	}
	// A recorded redirect seed over the limit is left out, so that a crawl resumes.
	for _, f := range []Flavour{Standard, Brozzler} {
		s, err := New(Config{Flavour: f, Seeds: []Seed{{URL: "http://a.test/"}, {URL: over, RedirectedFrom: "http://a.test/"}}})
		if err != nil {
			t.Fatalf("%s: redirected seed over the limit: %v", f, err)
		}
		if _, ok := s.SeedType(over); ok {
			t.Errorf("%s: redirected seed over the limit is a seed", f)
		}
		// A redirect to a URL over the limit is not promoted either.
		if s.PromoteRedirect("http://a.test/", "http://b.test/"+strings.Repeat("y", DefaultMaxURLLength), "R") {
			t.Errorf("%s: PromoteRedirect to a URL over the limit changed the scope", f)
		}
		if !s.PromoteRedirect("http://a.test/", "http://b.test/", "R") {
			t.Errorf("%s: PromoteRedirect to a short URL did not change the scope", f)
		}
	}
}

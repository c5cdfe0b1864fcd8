package scope

import (
	"errors"
	"testing"

	"github.com/amber-crawler/amber/crawlrule"
)

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{
		"http://www.archive.org", "HTTPS://Bücher.CH.:443/a/./b/../c?q=1#f", `http:\\a\b?c\d`,
		"http://a/%2F%zz/%7e?%aa b", "http://[::1]:80/", "http://u:p@h:0/", "mailto:x", "http://a/b//c/../",
		"http://xn--bcher-kva.ch/", "http://a/%", "http://%41/", "http://a/\t\n", "http://a.b../..",
		"http://0x7f.1../", "http://2130706433/", "http://1.2.3.4.5./", "http://１２７。１/",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, raw string, brozzler bool) {
		fl := Standard
		if brozzler {
			fl = Brozzler
		}
		_ = surtOf(raw)
		_ = ssurtOf(raw)
		c, err := Canonicalize(raw, fl)
		if err != nil {
			if !errors.Is(err, ErrURL) {
				t.Fatalf("Canonicalize(%q) error %v does not wrap ErrURL", raw, err)
			}
			return
		}
		c2, err := Canonicalize(c, fl)
		if err != nil || c2 != c {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", raw, c, c2, err)
		}
		_ = surtOf(c)
		_ = ssurtOf(c)
	})
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"surt:http://(org,archive,", "ssurt:org,archive,//https:/", `regex:^https?://a\.b/.*$`,
		"contains:/login", "host:Bücher.ch.", "parent_regex:.*", "surt:(", "regex:(", "x:y", "",
	} {
		f.Add(s, "http://www.archive.org/a?b=1")
	}
	f.Fuzz(func(t *testing.T, s, u string) {
		r, err := ParseRule(s)
		if err != nil {
			if !errors.Is(err, ErrRule) {
				t.Fatalf("ParseRule(%q) error %v does not wrap ErrRule", s, err)
			}
			return
		}
		r2, err := ParseRule(r.String())
		if err != nil || r2 != r {
			t.Fatalf("round trip %q -> %q -> %+v, %v", s, r.String(), r2, err)
		}
		for _, fl := range []Flavour{Standard, Brozzler} {
			sc, err := New(Config{Flavour: fl, Accept: []Rule{r}, Block: []Rule{r}})
			if err != nil {
				t.Fatalf("New with parsed rule %q: %v", s, err)
			}
			if c, err := Canonicalize(u, fl); err == nil {
				sc.Decide(Candidate{URL: c, Hops: "L", Via: c, ViaRedirect: u})
			}
			sc.Decide(Candidate{URL: u, Hops: "E", Via: u})
		}
	})
}

func FuzzDecide(f *testing.F) {
	f.Add("http://example.com/a/b", "LLE", "http://example.com/", 0)
	f.Add("https://www.youtube.com/watch?v=1", "L", "https://www.youtube.com/user/x", 1)
	var scopes []*Scope
	for _, fl := range []Flavour{Standard, Brozzler} {
		s, err := New(Config{
			Flavour: fl,
			Block:   []Rule{{Host: "ads.example.com"}, {Contains: "/login"}, {ParentRegex: `.*spam.*`}},
			Accept: []Rule{{SURT: "https://(org,archive,"}, {SSURT: "com,example,"}, {Regex: `.*\.pdf`},
				{Regex: `^https://www\.youtube\.com/watch\?.*$`, ParentRegex: `^https://www\.youtube\.com/user/.*$`}},
			Seeds: []Seed{{URL: "http://example.com/"}, {URL: "http://plus.test", Type: StandardPlus},
				{URL: "http://op.test/a", Type: OnePagePlus}},
		})
		if err != nil {
			f.Fatal(err)
		}
		scopes = append(scopes, s)
	}
	el, err := New(Config{
		Flavour: Elastic,
		Block:   []Rule{{Contains: "/login"}},
		Accept:  []Rule{{Contains: "/blog/keep"}},
		Domains: []Domain{
			{URL: "http://example.com", Rules: crawlrule.List{mustCrawlRule(f, "deny begins /blog"),
				mustCrawlRule(f, "deny ends .pdf"), mustCrawlRule(f, `allow regex \/a.*`), mustCrawlRule(f, "deny contains *")}},
			{URL: "https://docs.example.org:8443"},
		},
		MaxCrawlDepth: intp(3),
		Seeds:         []Seed{{URL: "http://example.com/"}},
	})
	if err != nil {
		f.Fatal(err)
	}
	scopes = append(scopes, el)
	f.Fuzz(func(t *testing.T, u, hops, via string, off int) {
		for _, s := range scopes {
			c := Candidate{URL: u, Hops: hops, Via: via, ViaHopsOff: off, Seed: via}
			if d1, d2 := s.Decide(c), s.Decide(c); d1 != d2 {
				t.Fatalf("not deterministic: %+v vs %+v", d1, d2)
			}
			if cu, err := Canonicalize(u, s.Flavour()); err == nil {
				c.URL = cu
				s.Decide(c)
			}
		}
	})
}

func mustCrawlRule(tb testing.TB, s string) *crawlrule.Rule {
	tb.Helper()
	r, err := crawlrule.Parse(s)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

package scope

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/crawlrule"
)

// benchScope builds a crawl with 1,000 seeds and 200 collection rules of mixed kinds (plus
// seed-level rules on every tenth seed), and 4,096 candidates: on-site and off-site links,
// embeds, blocked and accepted URLs.
func benchScope(b *testing.B, f Flavour) (*Scope, []Candidate) {
	b.Helper()
	rng := rand.New(rand.NewSource(1))
	types := []SeedType{StandardSeed, StandardSeed, StandardPlus, OnePage, OnePagePlus}
	var cfg Config
	cfg.Flavour = f
	for i := 0; i < 1000; i++ {
		sd := Seed{URL: fmt.Sprintf("http://www.site%d.com/", i), Type: types[i%len(types)]}
		if i%3 == 0 {
			sd.URL = fmt.Sprintf("https://site%d.org/section%d/", i, i%7)
		}
		if i%10 == 0 {
			sd.Accept = []Rule{{Host: fmt.Sprintf("partner%d.net", i)}}
			sd.Block = []Rule{{Contains: fmt.Sprintf("/private%d/", i)}}
		}
		cfg.Seeds = append(cfg.Seeds, sd)
	}
	add := func(block bool, r Rule) {
		if block {
			cfg.Block = append(cfg.Block, r)
		} else {
			cfg.Accept = append(cfg.Accept, r)
		}
	}
	for i := 0; i < 200; i++ {
		block := i%2 == 0
		switch i % 10 {
		case 0, 1, 2:
			add(block, Rule{SURT: fmt.Sprintf("http://(com,extra%d,", i)})
		case 3, 4:
			add(block, Rule{Host: fmt.Sprintf("ads%d.example.com", i)})
		case 5, 6:
			add(block, Rule{Contains: fmt.Sprintf("/calendar%d/", i)})
		case 7:
			add(block, Rule{Contains: "/login", Host: fmt.Sprintf("site%d.com", i)})
		case 8:
			add(block, Rule{Regex: fmt.Sprintf(`https?://www\.site%d\.com/archive/\d+/.*`, i)})
		case 9:
			add(block, Rule{SSURT: fmt.Sprintf("com,cdn%d,", i)})
		}
	}
	if f == Elastic {
		// Each seed's origin is a domain with four crawl rules, one of them a regex.
		rs := crawlrule.List{mustCrawlRule(b, "deny begins /page1*/item"), mustCrawlRule(b, "deny contains /private"),
			mustCrawlRule(b, "deny ends .pdf"), mustCrawlRule(b, `allow regex \/.*`)}
		for _, sd := range cfg.Seeds {
			u, _ := Canonicalize(sd.URL, f)
			cfg.Domains = append(cfg.Domains, Domain{URL: Origin(u), Rules: rs})
		}
		cfg.MaxCrawlDepth = intp(3)
	}
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	hopsList := []string{"L", "LL", "LLL", "LE", "LLE", "E", "LX", "LR", strings100}
	cands := make([]Candidate, 4096)
	for i := range cands {
		n := rng.Intn(1000)
		seed, _ := Canonicalize(cfg.Seeds[n].URL, f)
		var u string
		switch rng.Intn(8) {
		case 0, 1, 2:
			u = fmt.Sprintf("%spage%d/item?id=%d", seed, rng.Intn(50), rng.Intn(1000))
		case 3:
			u = fmt.Sprintf("https://cdn%d.com/static/app.%d.js", rng.Intn(300), rng.Intn(100))
		case 4:
			u = fmt.Sprintf("http://www.extra%d.com/calendar%d/2024/", rng.Intn(300), rng.Intn(200))
		case 5:
			u = fmt.Sprintf("http://ads%d.example.com/banner.gif", rng.Intn(300))
		case 6:
			u = fmt.Sprintf("http://www.site%d.com/archive/%d/x.html", rng.Intn(300), rng.Intn(10))
		case 7:
			u = fmt.Sprintf("https://elsewhere%d.net/a/b/c/d?q=%d&r=2", rng.Intn(1000), rng.Intn(9))
		}
		cu, err := Canonicalize(u, f)
		if err != nil {
			b.Fatal(err)
		}
		cands[i] = Candidate{URL: cu, Hops: hopsList[rng.Intn(len(hopsList))], Via: seed, ViaHopsOff: rng.Intn(2), Seed: seed}
	}
	return s, cands
}

var strings100 = func() string {
	b := make([]byte, 100)
	for i := range b {
		b[i] = 'L'
	}
	return string(b)
}()

func benchmarkDecide(b *testing.B, f Flavour) {
	s, cands := benchScope(b, f)
	in := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if s.Decide(cands[i&4095]).In {
			in++
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
	if in == 0 {
		b.Fatal("nothing in scope")
	}
}

// BenchmarkDecide measures decisions per second on one core, for each flavour.
func BenchmarkDecide(b *testing.B) {
	b.Run("standard", func(b *testing.B) { benchmarkDecide(b, Standard) })
	b.Run("brozzler", func(b *testing.B) { benchmarkDecide(b, Brozzler) })
	b.Run("elastic", func(b *testing.B) { benchmarkDecide(b, Elastic) })
}

func BenchmarkDecideParallel(b *testing.B) {
	s, cands := benchScope(b, Standard)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			s.Decide(cands[i&4095])
			i++
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
}

func BenchmarkCanonicalize(b *testing.B) {
	urls := []string{
		"http://www.Example.com/a/./b/../c/page.html?x=1&y=2#frag",
		"https://bücher.ch/%7Euser/Index.HTML",
		"http://example.com:80/path with space/?q=a b",
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Canonicalize(urls[i%len(urls)], Standard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCanonicalizeLong canonicalises 100 KB URLs (a long path of segments with dot
// segments and escapes, a long query, a long fragment) and decides them: both must stay
// linear in the length of the URL and allocate a small multiple of it.
func BenchmarkCanonicalizeLong(b *testing.B) {
	const size = 100 << 10
	seg := "/Seg%7e./x/../a%41b"
	var sb strings.Builder
	sb.WriteString("http://WWW.Example.COM:80")
	for sb.Len() < size/2 {
		sb.WriteString(seg)
	}
	sb.WriteString("?")
	for sb.Len() < size*9/10 {
		sb.WriteString("k=v%2f&a b=")
	}
	sb.WriteString("#")
	for sb.Len() < size {
		sb.WriteString("frag")
	}
	urls := map[string]string{
		"path-query": sb.String(),
		"slashes":    "http://example.com/" + strings.Repeat("/", size),
		"dots":       "http://example.com/" + strings.Repeat("x/./y/../", size/9),
		"percent":    "http://example.com/" + strings.Repeat("%", size),
		"host":       "http://" + strings.Repeat("a.", size/2) + "com/",
	}
	s, err := New(Config{Seeds: []Seed{{URL: "http://example.com/"}}})
	if err != nil {
		b.Fatal(err)
	}
	for name, u := range urls {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(u)))
			for i := 0; i < b.N; i++ {
				c, err := Canonicalize(u, Standard)
				if err != nil {
					continue // an invalid URL is an answer too
				}
				if d := s.Decide(Candidate{URL: c, Hops: "L"}); d.Reason != ReasonTooLong {
					b.Fatalf("Decide(%d bytes) = %+v", len(c), d)
				}
			}
		})
	}
}

package fast

import (
	"errors"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/scope"
)

// decider converts a collection and returns a function deciding a URL found by a link on
// the first seed (hop path L), or its embed (E), with amber's scope.
func decider(t *testing.T, xml string) func(u, hops string) scope.Decision {
	t.Helper()
	f, err := Parse([]byte(xml), "t.xml")
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	d, err := f.Domain("")
	if err != nil {
		t.Fatal(err)
	}
	cv, err := d.Convert(ConvertOptions{})
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	sc, err := cv.File.ScopeConfig(scope.Standard)
	if err != nil {
		t.Fatalf("ScopeConfig: %v", err)
	}
	s, err := scope.New(sc)
	if err != nil {
		t.Fatalf("scope.New: %v", err)
	}
	seed, err := scope.Canonicalize(cv.File.Seeds[0].URL, scope.Standard)
	if err != nil {
		t.Fatal(err)
	}
	return func(u, hops string) scope.Decision {
		cu, err := scope.Canonicalize(u, scope.Standard)
		if err != nil {
			t.Fatalf("canonicalize %s: %v", u, err)
		}
		via := seed
		if len(hops) > 1 {
			via = seed + "x" // a page below the seed
		}
		return s.Decide(scope.Candidate{URL: cu, Hops: hops, Via: via, Seed: seed})
	}
}

func collection(body string) string {
	return `<?xml version="1.0"?><CrawlerConfig><DomainSpecification name="c">` + body + `</DomainSpecification></CrawlerConfig>`
}

const startURI = `<attrib name="start_uris" type="list-string"><member>http://www.example.com/</member></attrib>`

func list(section, name string, members ...string) string {
	var b strings.Builder
	b.WriteString(`<section name="` + section + `"><attrib name="` + name + `" type="list-string">`)
	for _, m := range members {
		b.WriteString("<member>" + m + "</member>")
	}
	b.WriteString(`</attrib></section>`)
	return b.String()
}

// TestConvertScope checks that amber's scope, built from the conversion, decides URLs as
// FAST's rules do (§2.2.4.1-2.2.4.4, allowed_schemes, exclude_exts, crawlmode).
func TestConvertScope(t *testing.T) {
	schemes := `<attrib name="allowed_schemes" type="list-string"><member>http</member><member>https</member></attrib>`
	noExts := `<attrib name="exclude_exts" type="list-string"></attrib>`
	base := startURI + schemes + noExts
	type check struct {
		url  string
		hops string
		in   bool
	}
	tests := []struct {
		name   string
		body   string
		checks []check
	}{
		{"no include rules and fwdlinks yes: every site", base, []check{
			{"http://www.example.com/a", "L", true},
			{"https://elsewhere.org/deep/page", "L", true},
		}},
		{"fwdlinks no: the start URI's host only, any port and scheme", base +
			`<section name="crawlmode"><attrib name="fwdlinks" type="boolean">no</attrib></section>`, []check{
			{"http://www.example.com/a", "L", true},
			{"https://www.example.com:8443/a", "L", true},
			{"http://user@www.example.com/a", "L", true},
			{"http://example.com/", "L", false},
			{"http://sub.www.example.com/", "L", false},
			{"http://www.example.com.evil.org/", "L", false},
			{"http://other.org/a.png", "E", true}, // an embed: amber archives what a page needs
		}},
		{"include_domains exact", base + list("include_domains", "exact", "WWW.Example.com"), []check{
			{"http://www.example.com/x", "L", true},
			{"http://www.example.com:81/x", "L", true},
			{"http://example.com/x", "L", false},
			{"http://awww.example.com/x", "L", false},
			{"http://x.org/?u=http://www.example.com/", "L", false},
		}},
		{"include_domains suffix is a string suffix", base + list("include_domains", "suffix", "example.com"), []check{
			{"http://www.example.com/x", "L", true},
			{"http://example.com/x", "L", true},
			{"http://notexample.com/x", "L", true},
			{"http://example.com.org/x", "L", false},
			{"http://x.org/example.com", "L", false},
		}},
		{"include_domains prefix", base + list("include_domains", "prefix", "www."), []check{
			{"http://www.example.com/x", "L", true},
			{"http://www2.example.com/x", "L", false},
			{"http://web.www.org/", "L", false},
		}},
		{"include_domains regexp matches anywhere in the host, not beyond", base + list("include_domains", "regexp", `exa.ple`), []check{
			{"http://www.example.com/x", "L", true},
			{"http://exaxple.org/", "L", true},
			{"http://other.org/example", "L", false},
			{"http://exa/ple.org/", "L", false},
		}},
		{"include_domains regexp with anchors", base + list("include_domains", "regexp", `^www\.|\.org$`), []check{
			{"http://www.example.com/x", "L", true},
			{"http://a.www.example.com/x", "L", false},
			{"http://example.org/x", "L", true},
			{"http://example.org.com/x", "L", false},
			{"http://example.com/a.org", "L", false},
		}},
		{"include_domains regexp with a negated class", base + list("include_domains", "regexp", `^[^.]+\.example\.com$`, `(?i)ORG$`), []check{
			{"http://www.example.com/", "L", true},
			{"http://www.example.com:8080/x", "L", true},
			{"http://a.b.example.com/", "L", false},
			{"http://x.org/", "L", true},
			{"http://x.com/a.org", "L", false},
		}},
		{"include_domains regexp dot does not cross into the path", base + list("include_domains", "regexp", `a.*b`), []check{
			{"http://ab.com/", "L", true},
			{"http://a.com/b/", "L", false},
		}},
		{"include_uris prefix", base + list("include_uris", "prefix", "HTTP://WWW.example.com/docs/"), []check{
			{"http://www.example.com/docs/a", "L", true},
			{"http://www.example.com/Docs/a", "L", false},
			{"http://www.example.com/", "L", false},
		}},
		{"include_uris exact is compared canonically", base + list("include_uris", "exact", "http://www.example.com"), []check{
			{"http://www.example.com/", "L", true},
			{"http://www.example.com/a", "L", false},
		}},
		{"include_uris suffix", base + list("include_uris", "suffix", ".html"), []check{
			{"http://anywhere.org/a.html", "L", true},
			{"http://anywhere.org/a.htm", "L", false},
		}},
		{"include_uris regexp matches anywhere", base + list("include_uris", "regexp", `/news/[0-9]+`), []check{
			{"http://www.example.com/news/12/x", "L", true},
			{"http://www.example.com/news/x", "L", false},
		}},
		{"include_domains and include_uris both hold", base + list("include_domains", "exact", "www.example.com") +
			list("include_uris", "suffix", ".html"), []check{
			{"http://www.example.com/a.html", "L", true},
			{"https://www.example.com:8080/a.html", "L", true},
			{"http://www.example.com/a.php", "L", false},
			{"http://other.org/a.html", "L", false},
		}},
		{"include_domains suffix and a URI prefix that fixes its host", base + list("include_domains", "suffix", ".example.com") +
			list("include_uris", "prefix", "http://www.example.com/a/", "http://other.org/a/"), []check{
			{"http://www.example.com/a/1", "L", true},
			{"http://other.org/a/1", "L", false},
			{"http://www.example.com/b/1", "L", false},
		}},
		{"fwdlinks no and include_uris regexp", base + list("include_uris", "regexp", `\.html$`) +
			`<section name="crawlmode"><attrib name="fwdlinks" type="boolean">no</attrib></section>`, []check{
			{"http://www.example.com/a.html", "L", true},
			{"http://other.org/a.html", "L", false},
			{"http://www.example.com/a.php", "L", false},
		}},
		{"fwdlinks no and include_domains that leaves the start host out", base + list("include_domains", "exact", "other.org") +
			`<section name="crawlmode"><attrib name="fwdlinks" type="boolean">no</attrib></section>`, []check{
			{"http://www.example.com/a", "L", false},
			{"http://other.org/a", "L", false},
		}},
		{"exclude_domains beats include", base + list("exclude_domains", "suffix", "bad.example.com"), []check{
			{"http://bad.example.com/", "L", false},
			{"http://very.bad.example.com/", "E", false}, // excludes bind embeds too
			{"http://good.example.com/bad.example.com", "L", true},
		}},
		{"exclude_uris prefix and regexp", base + `<section name="exclude_uris">
			<attrib name="prefix" type="list-string"><member>http://www.example.com/private</member></attrib>
			<attrib name="regexp" type="list-string"><member>\?sid=</member></attrib></section>`, []check{
			{"http://www.example.com/private/a", "L", false},
			{"http://www.example.com/privately", "L", false},
			{"http://www.example.com/a?sid=1", "L", false},
			{"http://www.example.com/public", "L", true},
		}},
		{"allowed_schemes default: http only", startURI + noExts, []check{
			{"http://www.example.com/a", "L", true},
			{"https://www.example.com/a", "L", false},
		}},
		{"exclude_exts default", startURI + schemes, []check{
			{"http://www.example.com/a.jpg", "E", false},
			{"http://www.example.com/a.jpg?v=2", "E", false},
			{"http://www.example.com/a.jpg/", "L", true},
			{"http://www.example.com/a.JPG", "E", true}, // compared as written (.ASF is listed apart)
			{"http://www.example.com/a.ASF", "E", false},
			{"http://www.example.com/a.html", "L", true},
		}},
		{"DEPTH:1", base + `<section name="crawlmode"><attrib name="mode" type="string">DEPTH:1</attrib>
			<attrib name="reset_level" type="boolean">no</attrib></section>`, []check{
			{"http://www.example.com/a", "L", true},
			{"http://www.example.com/b", "LL", false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			decide := decider(t, collection(tt.body))
			for _, c := range tt.checks {
				d := decide(c.url, c.hops)
				if d.In != c.in {
					t.Errorf("%s (%s): in=%v (%s), want %v", c.url, c.hops, d.In, d.Reason, c.in)
				}
			}
		})
	}
}

func TestHostRegex(t *testing.T) {
	tests := []struct {
		expr string
		ok   bool
	}{
		{`example`, true},
		{`^www\.`, true},
		{`\.org$`, true},
		{`^a|b$`, true},
		{`(?i)Example`, true},
		{`a(^b)`, false},       // an anchor inside
		{`(?=www)`, false},     // lookahead: not RE2
		{`(a)\1`, false},       // backreference: not RE2
		{`a/b`, true},          // never matches a host, but valid
		{`[a-z/]+\.com`, true}, // the class loses '/'
		{"\U000F0000", false},  // a private-use rune amber uses as a placeholder
	}
	for _, tt := range tests {
		_, err := hostRegex(tt.expr)
		if (err == nil) != tt.ok {
			t.Errorf("hostRegex(%q): err=%v, want ok=%v", tt.expr, err, tt.ok)
		}
		if err != nil && !errors.Is(err, errNotExpressible) {
			t.Errorf("hostRegex(%q): %v does not wrap errNotExpressible", tt.expr, err)
		}
	}
}

func TestClassString(t *testing.T) {
	tests := []struct {
		ranges []rune
		want   string
	}{
		{[]rune{'a', 'c', 'x', 'x'}, `[a-cx]`},
		{[]rune{'a', 'b'}, `[ab]`},
		{[]rune{0, '@' - 1, 'B', 0x10FFFF}, `[^@A]`},
		{[]rune{'-', '-', '[', ']'}, `[\-\[-\]]`},
		{[]rune{0, 0x10FFFF}, `(?s:.)`},
		{[]rune{0x3b1, 0x3c9}, `[\x{3b1}-\x{3c9}]`},
	}
	for _, tt := range tests {
		if got := classString(tt.ranges); got != tt.want {
			t.Errorf("classString(%q) = %s, want %s", tt.ranges, got, tt.want)
		}
	}
}

func TestDomainRuleMatches(t *testing.T) {
	tests := []struct {
		kind, value, host string
		want              bool
	}{
		{"exact", "WWW.Example.COM", "www.example.com", true},
		{"exact", "bücher.de", "xn--bcher-kva.de", true},
		{"prefix", "www", "www2.example.com", true},
		{"suffix", ".example.com", "example.com", false},
		{"regexp", `^w+\.`, "www.x.org", true},
		{"regexp", `^w+\.`, "x.www.org", false},
	}
	for _, tt := range tests {
		got, err := domainRule{kind: tt.kind, value: tt.value}.matches(tt.host)
		if err != nil || got != tt.want {
			t.Errorf("%s %q matches %q = %v, %v; want %v", tt.kind, tt.value, tt.host, got, err, tt.want)
		}
	}
}

func TestNormURIPrefix(t *testing.T) {
	tests := []struct{ in, want string }{
		{"HTTP://WWW.Example.com/Docs/", "http://www.example.com/Docs/"},
		{"http://www.example.com:80/a", "http://www.example.com/a"},
		{"https://www.example.com:443/a", "https://www.example.com/a"},
		{"http://www.example.com:80", "http://www.example.com:80"}, // a prefix of :8080 too
		{"http://User@Host.com/", "http://User@host.com/"},
		{"/relative/path", "/relative/path"},
	}
	for _, tt := range tests {
		if got := normURIPrefix(tt.in); got != tt.want {
			t.Errorf("normURIPrefix(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

package crawlrule

import (
	"errors"
	"net/url"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func mustCompile(t testing.TB, policy, typ, pattern string) *Rule {
	t.Helper()
	r, err := Compile(policy, typ, pattern)
	if err != nil {
		t.Fatalf("Compile(%q, %q, %q): %v", policy, typ, pattern, err)
	}
	return r
}

// TestReferenceMatching is the reference's table "Crawl rule matching". The Elastic web crawler
// reference in spec/seeds lost the table's code cells (only "Begins with | YES" and so on are
// left); the open crawler's docs/features/CRAWL_RULES.md has the same table, with the same rule
// types and answers in the same order, and these rows are quoted from it.
func TestReferenceMatching(t *testing.T) {
	for _, tc := range []struct {
		row     string // the table's row as written
		path    string
		typ     string
		pattern string
		want    bool
	}{
		{"| `/foo/bar` | `begins` | `/foo` | YES |", "/foo/bar", "begins", "/foo", true},
		{"| `/foo/bar` | `begins` | `/*oo` | YES |", "/foo/bar", "begins", "/*oo", true},
		{"| `/bar/foo` | `begins` | `/foo` | NO |", "/bar/foo", "begins", "/foo", false},
		{"| `/foo/bar` | `begins` | `foo` | NO |", "/foo/bar", "begins", "foo", false},
		{"| `/blog/posts/hello-world` | `ends` | `world` | YES |", "/blog/posts/hello-world", "ends", "world", true},
		{"| `/blog/posts/hello-world` | `ends` | `hello-*` | YES |", "/blog/posts/hello-world", "ends", "hello-*", true},
		{"| `/blog/world-hello ` | `ends` | `world ` | NO |", "/blog/world-hello ", "ends", "world ", false},
		{"| `/blog/world-hello` | `ends` | `*world` | NO |", "/blog/world-hello", "ends", "*world", false},
		{"| `/fruits/bananas` | `contains` | `banana` | YES |", "/fruits/bananas", "contains", "banana", true},
		{"| `/fruits/apples` | `contains` | `banana` | NO |", "/fruits/apples", "contains", "banana", false},
		{"| `/2020` | `regex` | `\\/[0-9]{3,5}` | YES |", "/2020", "regex", `\/[0-9]{3,5}`, true},
		{"| `/20` | `regex` | `\\/[0-9]{3,5}` | NO |", "/20", "regex", `\/[0-9]{3,5}`, false},
		{"| `/2020` | `regex` | `[0-9]{3,5}` | NO |", "/2020", "regex", `[0-9]{3,5}`, false},
	} {
		t.Run(tc.row, func(t *testing.T) {
			for _, policy := range []string{"allow", "deny"} {
				if got := mustCompile(t, policy, tc.typ, tc.pattern).Match(tc.path); got != tc.want {
					t.Errorf("%s %s %q on %q = %v, want %v", policy, tc.typ, tc.pattern, tc.path, got, tc.want)
				}
			}
		})
	}
}

// TestReferenceOrder is the reference's table "Crawl rule order" (rows "1. 2. | DISALLOW" and
// "1. 2. | ALLOW": the same two rules in both orders), with spec/elastic.md §2's example.
func TestReferenceOrder(t *testing.T) {
	deny := mustCompile(t, "deny", "begins", "/blog")
	all := mustCompile(t, "allow", "regex", ".*")
	for _, tc := range []struct {
		name      string
		rules     List
		path      string
		wantIndex int
		want      Policy
	}{
		{"deny begins /blog, allow regex .*: DISALLOW", List{deny, all}, "/blog/2021/x", 0, Deny},
		{"allow regex .*, deny begins /blog: ALLOW", List{all, deny}, "/blog/2021/x", 0, Allow},
		{"deny begins /blog, allow regex .*: another path", List{deny, all}, "/about", 1, Allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i, r := tc.rules.Decide(tc.path)
			if i != tc.wantIndex || r == nil || r.Policy != tc.want {
				t.Errorf("Decide(%q) = %d, %v; want %d, a rule with policy %s", tc.path, i, r, tc.wantIndex, tc.want)
			}
		})
	}
}

// TestReferenceRestricting is the reference's "Restricting paths using crawl rules": the
// default rule (Allow if Regex .*), its two techniques (disallow the blog; allow only the blog,
// where "/" itself is disallowed and the crawl ends at once without a /blog entry point), and
// no rules at all (the implicit allow).
func TestReferenceRestricting(t *testing.T) {
	list := func(rules ...string) List {
		var l List
		for _, s := range rules {
			r, err := Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			l = append(l, r)
		}
		return l
	}
	for _, tc := range []struct {
		name  string
		rules List
		path  string
		want  int // index of the deciding rule, -1 for none
		allow bool
	}{
		{"default rule allows /", list("allow regex .*"), "/", 0, true},
		{"default rule allows a query", list("allow regex .*"), "/search?q=x", 0, true},
		{"disallow the blog: /blog", list("deny begins /blog", "allow regex .*"), "/blog", 0, false},
		{"disallow the blog: a post", list("deny begins /blog", "allow regex .*"), "/blog/2021/post.html", 0, false},
		{"disallow the blog: /blogger starts with /blog too", list("deny begins /blog", "allow regex .*"), "/blogger", 0, false},
		{"disallow the blog: /about", list("deny begins /blog", "allow regex .*"), "/about", 1, true},
		{"disallow the blog: /about/blog", list("deny begins /blog", "allow regex .*"), "/about/blog", 1, true},
		{"only the blog: /blog/x", list("allow begins /blog", "deny regex .*"), "/blog/x", 0, true},
		{"only the blog: / is disallowed", list("allow begins /blog", "deny regex .*"), "/", 1, false},
		{"only the blog: /about", list("allow begins /blog", "deny regex .*"), "/about", 1, false},
		{"no rules: implicit allow", nil, "/anything", -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i, r := tc.rules.Decide(tc.path)
			allow := r == nil || r.Policy == Allow
			if i != tc.want || allow != tc.allow || (i < 0) != (r == nil) || (r != nil && r != tc.rules[i]) {
				t.Errorf("Decide(%q) = %d, %v: allow %v; want rule %d, allow %v", tc.path, i, r, allow, tc.want, tc.allow)
			}
		})
	}
}

// TestMatch: the wildcard's corners and the traps of literal matching.
func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		typ, pattern, path string
		want               bool
	}{
		{"begins", "/", "/", true},
		{"begins", "*", "/", true},
		{"begins", "**", "/x", true},
		{"begins", "/a*b", "/ab", true},
		{"begins", "/a*b", "/a/x/b/c", true},
		{"begins", "/a*a", "/a", false}, // the two a's do not overlap
		{"begins", "/a*", "/b", false},
		{"begins", "/docs", "/DOCS", false}, // case-sensitive, as the open crawler's Ruby regexps
		{"begins", "/a?b", "/a?b=1", true},  // '?' is literal
		{"begins", "/a.b", "/axb", false},   // '.' is literal
		{"begins", "/x", "/a?next=/x", false},
		{"ends", ".pdf", "/a.pdf", true},
		{"ends", ".pdf", "/a.pdf?dl=1", false}, // spec §2: the query is part of what is matched
		{"ends", ".pdf*", "/a.pdf?dl=1", true},
		{"ends", "a*a", "/a", false},
		{"ends", "a*a", "/aba", true},
		{"ends", "/*/x", "/a/b/x", true},
		{"ends", "*", "/", true},
		{"contains", "/draft", "/products/draft-1", true},
		{"contains", "/draft", "/products/drafts", true},
		{"contains", "/draft", "/products/final", false},
		{"contains", "a*b*c", "/axbxc", true},
		{"contains", "a*b*c", "/cba", false},
		{"contains", "sessionid=", "/x?a=1&sessionid=2", true},
		{"regex", ".*", "/", true},
		{"regex", `\/docs\/v\d+\/`, "/docs/v2/intro", true},
		{"regex", `docs`, "/docs", false}, // anchored at the start
		{"regex", `\/a`, "/ab", true},     // not at the end
		{"regex", `\/a$`, "/ab", false},
		{"regex", `x|\/a`, "/a", true}, // the anchor covers every alternative
		{"regex", `x|\/a`, "/bx", false},
		{"regex", `\A\/a`, "/a", true},
		{"regex", `(?i)\/DOCS`, "/docs", true},
		{"regex", `(?<v>\/v\d)`, "/v1", true},
		{"regex", `.*`, "", true},
		{"regex", `\/a.*`, "/a", true},
		{"regex", `\/a.*`, "/b", false},
		{"regex", `\/a(.*)|\/b.*?`, "/bc", true},
		{"regex", `\/a(.*)|\/b.*?`, "/cb", false},
		{"regex", `\/a.+`, "/a", false}, // one character more is needed
		{"regex", `(?s)\/a.*`, "/a\nb", true},
		{"regex", `\/a.*$`, "/a\nb", false},
	} {
		if got := mustCompile(t, "deny", tc.typ, tc.pattern).Match(tc.path); got != tc.want {
			t.Errorf("%s %q on %q = %v, want %v", tc.typ, tc.pattern, tc.path, got, tc.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		policy, typ, pattern string
		rubyOnly             bool
	}{
		{"unknown policy", "block", "begins", "/x", false},
		{"empty policy", "", "begins", "/x", false},
		{"unknown type", "deny", "starts", "/x", false},
		{"empty pattern", "deny", "begins", "", false},
		{"empty regex", "deny", "regex", "", false},
		{"invalid regex", "deny", "regex", `[`, false},
		{"a parenthesis the anchor would hide", "deny", "regex", `a)(b`, false},
		{"lookahead", "deny", "regex", `\/(?=a)`, true},
		{"negative lookahead", "deny", "regex", `\/(?!a)`, true},
		{"lookbehind", "deny", "regex", `.*(?<=\.pdf)`, true},
		{"negative lookbehind", "deny", "regex", `.*(?<!x)y`, true},
		{"atomic group", "deny", "regex", `(?>ab)`, true},
		{"backreference", "deny", "regex", `\/(a)\1`, true},
		{"named backreference", "deny", "regex", `\/(?<x>a)\k<x>`, true},
		{"possessive quantifier", "deny", "regex", `\/a*+`, true},
		{"end of string before a newline", "deny", "regex", `\/a\Z`, true},
		{"hex digit class", "deny", "regex", `\/\h+`, true},
		{"absence operator", "deny", "regex", `(?~a)`, true},
		{"Ruby property", "deny", "regex", `\p{Alpha}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compile(tc.policy, tc.typ, tc.pattern)
			if err == nil {
				t.Fatalf("Compile(%q, %q, %q) = %v, want an error", tc.policy, tc.typ, tc.pattern, r)
			}
			if !errors.Is(err, ErrRule) {
				t.Errorf("error %v does not wrap ErrRule", err)
			}
			if rule := strconv.Quote(tc.policy + " " + tc.typ + " " + tc.pattern); !strings.Contains(err.Error(), rule) {
				t.Errorf("error %q does not quote the rule %s", err, rule)
			}
			var se *syntax.Error
			if got := errors.As(err, &se) && rubyOnly(se) != ""; got != tc.rubyOnly {
				t.Errorf("error %q: Ruby-only syntax %v, want %v", err, got, tc.rubyOnly)
			}
		})
	}
}

// TestPrefixForm: the ".*" a pattern ends with is dropped (it cannot change whether a prefix
// matches), nothing else.
func TestPrefixForm(t *testing.T) {
	for in, want := range map[string]string{
		`.*`:             `(?:)`,
		`\/.*`:           `/(?:)`,
		`(?s)\/a.*`:      `/a(?:)`,
		`\/a(.*)|\/b.*?`: `/(?:a()|b(?:))`,
		`\/a.*b`:         `\/a.*b`,
		`\/a.+`:          `\/a.+`,
		`\/a.*$`:         `\/a.*$`,
		`\/[0-9]{3,5}`:   `\/[0-9]{3,5}`,
	} {
		if got := prefixForm(in); got != want {
			t.Errorf("prefixForm(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Rule
		wantErr bool
	}{
		{in: "deny begins /blog", want: Rule{Policy: Deny, Type: Begins, Pattern: "/blog"}},
		{in: "  Allow  REGEX   .*  ", want: Rule{Policy: Allow, Type: Regex, Pattern: ".*"}},
		{in: "deny contains /a b/c", want: Rule{Policy: Deny, Type: Contains, Pattern: "/a b/c"}},
		{in: "deny\tends\t.pdf", want: Rule{Policy: Deny, Type: Ends, Pattern: ".pdf"}},
		{in: "DENY Ends  /x  y ", want: Rule{Policy: Deny, Type: Ends, Pattern: "/x  y"}},
		{in: "deny begins", wantErr: true},
		{in: "deny begins   ", wantErr: true},
		{in: "block begins /x", wantErr: true},
		{in: "deny starts /x", wantErr: true},
		{in: "deny regex (?=x)", wantErr: true},
		{in: "", wantErr: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if tc.wantErr {
				if err == nil || !errors.Is(err, ErrRule) {
					t.Fatalf("Parse(%q) = %v, %v; want an ErrRule", tc.in, got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Policy != tc.want.Policy || got.Type != tc.want.Type || got.Pattern != tc.want.Pattern {
				t.Errorf("Parse(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
			back, err := Parse(got.String())
			if err != nil || back.String() != got.String() {
				t.Errorf("%q does not read back: %v, %v", got.String(), back, err)
			}
		})
	}
}

func TestPathQuery(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://example.com", "/"},
		{"http://example.com/", "/"},
		{"https://example.com:8443/a/b.html", "/a/b.html"},
		{"http://example.com/x?y=1#frag", "/x?y=1"},
		{"http://example.com/x#frag", "/x"},
		{"http://example.com/x?", "/x?"},
		{"http://example.com?q=1", "/?q=1"},
		{"http://example.com/a%2Fb", "/a%2Fb"}, // as on the wire: not decoded to a second '/'
		{"http://example.com/caf%C3%A9", "/caf%C3%A9"},
		{"http://example.com/a b", "/a%20b"},
		{"http://example.com/q?a=%20b&c=d e", "/q?a=%20b&c=d e"},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := PathQuery(u); got != tc.want {
			t.Errorf("PathQuery(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}

// reference is the obvious implementation of begins, ends and contains: the open crawler's own
// translation into a regular expression (quote the pattern, '*' becomes ".*").
func reference(typ Type, pattern string) *regexp.Regexp {
	parts := strings.Split(pattern, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	body := strings.Join(parts, ".*")
	switch typ {
	case Begins:
		body = "^" + body
	case Ends:
		body += "$"
	}
	return regexp.MustCompile("(?s)" + body)
}

// FuzzCompile: compiling any pattern and matching any path never panics; begins, ends and
// contains agree with the reference translation; a regex matches exactly when the unanchored
// pattern's leftmost match starts at 0; the string form reads back.
func FuzzCompile(f *testing.F) {
	for _, s := range []struct {
		typ           uint8
		pattern, path string
	}{
		{0, "/foo", "/foo/bar"}, {0, "/*oo", "/foo/bar"}, {1, "hello-*", "/blog/posts/hello-world"},
		{1, "*world", "/blog/world-hello"}, {2, "banana", "/fruits/bananas"}, {3, `\/[0-9]{3,5}`, "/2020"},
		{3, `[0-9]{3,5}`, "/2020"}, {0, "/a*a", "/a"}, {1, "a*a", "/aba"}, {2, "**", ""}, {3, "(?=x)", "/"},
		{3, `a)(b`, "/ab"}, {3, `x|\/a`, "/a"}, {1, ".pdf", "/a.pdf?dl=1"}, {3, `.*`, "/"},
		{3, `\/a(.*)|b.*?`, "/ab"}, {3, `(?s)\/a.*`, "/a\n"}, {3, `(?:\/a|\/b.*).*$`, "/b\nc"},
	} {
		f.Add(s.typ, s.pattern, s.path)
	}
	types := []Type{Begins, Ends, Contains, Regex}
	f.Fuzz(func(t *testing.T, ti uint8, pattern, path string) {
		typ := types[int(ti)%len(types)]
		r, err := Compile("deny", string(typ), pattern)
		if err != nil {
			if !errors.Is(err, ErrRule) {
				t.Fatalf("error %v does not wrap ErrRule", err)
			}
			return
		}
		got := r.Match(path)
		if typ == Regex {
			loc := regexp.MustCompile(pattern).FindStringIndex(path)
			if want := loc != nil && loc[0] == 0; got != want {
				t.Fatalf("regex %q on %q = %v, want %v", pattern, path, got, want)
			}
		} else if !utf8.ValidString(pattern) || !utf8.ValidString(path) {
			// regexp reads invalid UTF-8 as U+FFFD; Match compares bytes, so the reference
			// does not apply.
		} else if want := reference(typ, pattern).MatchString(path); got != want {
			t.Fatalf("%s %q on %q = %v, want %v", typ, pattern, path, got, want)
		}
		if strings.TrimSpace(pattern) == pattern {
			back, err := Parse(r.String())
			if err != nil || back.Policy != r.Policy || back.Type != r.Type || back.Pattern != r.Pattern {
				t.Fatalf("%q reads back as %v, %v", r.String(), back, err)
			}
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	path := "/products/2024/catalogue/widgets/blue-widget-large.html?ref=home&utm_source=news"
	for _, rule := range []string{
		"deny begins /products", "deny begins /pro*/2024", "deny ends .html", "deny ends .pdf*",
		"deny contains /draft", "deny contains /catalogue/*large", `deny regex \/products\/\d{4}\/`, "allow regex .*",
	} {
		r, err := Parse(rule)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(rule, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Match(path)
			}
		})
	}
}

package extract

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"

	"github.com/amber-crawler/amber/internal/testsite"
)

// rulesPage is the page most Apply rows read: the cities example of the open crawler's
// EXTRACTION_RULES.md, plus authors, a product, inline and block markup, a script and
// fields of its own.
const rulesPage = `<!DOCTYPE html>
<html><head><title>Cities</title>
<meta class="elastic" name="topic" content="from the page">
<script type="application/ld+json">{"@type": "Place"}</script>
</head><body>
<div>Cities:</div>
<div class="city">Summerstay</div>
<div class="city">Drenchwell</div>
<div class="city">  Mezzo&shy;terran
</div>
<p class="author">Ada <b>Love</b>lace</p><p class="author">Charles<br>Babbage</p>
<p class="author">   </p>
<span class="product">Widget <script>var x = 1;</script>Pro</span>
<ul class="tags"><li>one</li><li>two</li></ul>
<span data-elastic-name="page_field">set by the page</span>
</body></html>`

// TestRulesetsApply applies rulesets to pages through ParseDocument and compares the custom
// fields.
func TestRulesetsApply(t *testing.T) {
	const origin = "https://totally-real-rpg.com"
	extract := func(field, selector, join string) ExtractionRule {
		return ExtractionRule{Action: ActionExtract, FieldName: field, Selector: selector, JoinAs: join, Source: SourceHTML}
	}
	fromURL := func(field, re, join string) ExtractionRule {
		return ExtractionRule{Action: ActionExtract, FieldName: field, Selector: re, JoinAs: join, Source: SourceURL}
	}
	set := func(field, selector, source, value string) ExtractionRule {
		return ExtractionRule{Action: ActionSet, FieldName: field, Selector: selector, Source: source, Value: value}
	}
	pageFields := []Field{{"topic", []string{"from the page"}, false}, {"page_field", []string{"set by the page"}, false}}
	tests := []struct {
		name     string
		pageURL  string
		rulesets []Ruleset
		want     []Field
	}{
		{
			name:     "extract array (the open crawler's cities example)",
			pageURL:  origin + "/cities",
			rulesets: []Ruleset{{Domain: origin, URLFilters: []URLFilter{{"ends", "/cities"}}, Rules: []ExtractionRule{extract("cities", ".city", JoinArray)}}},
			want:     append([]Field{{"cities", []string{"Summerstay", "Drenchwell", "Mezzo\u00adterran"}, true}}, pageFields...),
		},
		{
			name:     "join_as empty is array",
			pageURL:  origin + "/cities",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{extract("cities", ".city", "")}}},
			want:     append([]Field{{"cities", []string{"Summerstay", "Drenchwell", "Mezzo\u00adterran"}, true}}, pageFields...),
		},
		{
			name:     "extract string joins with a space",
			pageURL:  origin + "/cities",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{extract("cities", ".city", JoinString)}}},
			want:     append([]Field{{"cities", []string{"Summerstay Drenchwell Mezzo\u00adterran"}, false}}, pageFields...),
		},
		{
			name:     "text: inline elements join words, br and blocks separate, an empty match is left out",
			pageURL:  origin + "/",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{extract("authors", "p.author", "")}}},
			want:     append([]Field{{"authors", []string{"Ada Lovelace", "Charles Babbage"}, true}}, pageFields...),
		},
		{
			name:     "text: list items are blocks",
			pageURL:  origin + "/",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{extract("tags", "ul.tags", "")}}},
			want:     append([]Field{{"tags", []string{"one two"}, true}}, pageFields...),
		},
		{
			name:     "text: a script inside the match is left out, a selected script gives its text",
			pageURL:  origin + "/",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{extract("product", ".product", ""), extract("ld", `script[type="application/ld+json"]`, "")}}},
			want:     append([]Field{{"product", []string{"Widget Pro"}, true}, {"ld", []string{`{"@type": "Place"}`}, true}}, pageFields...),
		},
		{
			name:     "selector group, document order",
			pageURL:  origin + "/",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{extract("mixed", ".product, .city", "")}}},
			want:     append([]Field{{"mixed", []string{"Summerstay", "Drenchwell", "Mezzo\u00adterran", "Widget Pro"}, true}}, pageFields...),
		},
		{
			name:     "set html: matches",
			pageURL:  origin + "/",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{set("has_product", ".product", SourceHTML, "yes")}}},
			want:     append([]Field{{"has_product", []string{"yes"}, false}}, pageFields...),
		},
		{
			name:     "set html: no match writes nothing",
			pageURL:  origin + "/",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{set("has_cart", ".cart", "", "yes")}}},
			want:     pageFields,
		},
		{
			name:     "extract html: no match writes nothing",
			pageURL:  origin + "/",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{extract("cart", ".cart", JoinString)}}},
			want:     pageFields,
		},
		{
			name:     "url: capture group 1 (the open crawler's blog example)",
			pageURL:  origin + "/blog/2023/12/25/beginners-guide",
			rulesets: []Ruleset{{Domain: origin, URLFilters: []URLFilter{{"begins", "/blog"}}, Rules: []ExtractionRule{fromURL("publish_year", `blog\/([0-9]{4})`, JoinString)}}},
			want:     append([]Field{{"publish_year", []string{"2023"}, false}}, pageFields...),
		},
		{
			name:     "url: every capture group, as the open crawler's table shows",
			pageURL:  origin + "/posts/2023/01/20/post-1",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{fromURL("date", `posts\/([0-9]{4})\/([0-9]{2})\/([0-9]{2})`, JoinArray)}}},
			want:     append([]Field{{"date", []string{"2023", "01", "20"}, true}}, pageFields...),
		},
		{
			name:     "url: capture groups joined",
			pageURL:  origin + "/posts/2023/01/20/post-1",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{fromURL("date", `posts/(\d{4})/(\d{2})/(\d{2})`, JoinString)}}},
			want:     append([]Field{{"date", []string{"2023 01 20"}, false}}, pageFields...),
		},
		{
			name:     "url: a group that did not take part is left out",
			pageURL:  origin + "/b/x",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{fromURL("section", `/(a)/|/(b)/`, "")}}},
			want:     append([]Field{{"section", []string{"b"}, true}}, pageFields...),
		},
		{
			name:     "url: the whole match without groups, first match only",
			pageURL:  origin + "/item-12/item-34",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{fromURL("item", `item-\d+`, "")}}},
			want:     append([]Field{{"item", []string{"item-12"}, true}}, pageFields...),
		},
		{
			name:     "url: the regex sees the whole URL, query included",
			pageURL:  origin + "/search?lang=fr&q=x",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{fromURL("lang", `^https://[^/]+/search\?lang=(\w+)`, "")}}},
			want:     append([]Field{{"lang", []string{"fr"}, true}}, pageFields...),
		},
		{
			name:     "url: no match writes nothing",
			pageURL:  origin + "/about",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{fromURL("publish_year", `blog/(\d{4})`, "")}}},
			want:     pageFields,
		},
		{
			name:     "set url",
			pageURL:  origin + "/blog/2024/x",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{set("kind", `/blog/`, SourceURL, "post"), set("other", `/news/`, SourceURL, "news")}}},
			want:     append([]Field{{"kind", []string{"post"}, false}}, pageFields...),
		},
		{
			name:    "url filters: any one matching is enough",
			pageURL: origin + "/guide/intro.html?v=2",
			rulesets: []Ruleset{
				{Domain: origin, URLFilters: []URLFilter{{"begins", "/blog"}, {"ends", "?v=2"}}, Rules: []ExtractionRule{set("a", "body", "", "ends")}},
				{Domain: origin, URLFilters: []URLFilter{{"contains", "/intro"}}, Rules: []ExtractionRule{set("b", "body", "", "contains")}},
				{Domain: origin, URLFilters: []URLFilter{{"regex", `/guide/[a-z]+\.html`}}, Rules: []ExtractionRule{set("c", "body", "", "regex")}},
				{Domain: origin, URLFilters: []URLFilter{{"begins", "/gui*/"}}, Rules: []ExtractionRule{set("d", "body", "", "wildcard")}},
				{Domain: origin, URLFilters: []URLFilter{{"ends", ".html"}}, Rules: []ExtractionRule{set("e", "body", "", "not at the end: the query follows")}},
				{Domain: origin, URLFilters: []URLFilter{{"regex", `intro`}}, Rules: []ExtractionRule{set("f", "body", "", "regex anchored at the start")}},
			},
			want: append([]Field{{"a", []string{"ends"}, false}, {"b", []string{"contains"}, false}, {"c", []string{"regex"}, false}, {"d", []string{"wildcard"}, false}}, pageFields...),
		},
		{
			name:     "no url filters: every page of the domain",
			pageURL:  origin + "/any/where?x=1",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{set("site", "html", "", "rpg")}}},
			want:     append([]Field{{"site", []string{"rpg"}, false}}, pageFields...),
		},
		{
			name:    "another origin's rulesets do not apply",
			pageURL: origin + "/cities",
			rulesets: []Ruleset{
				{Domain: "http://totally-real-rpg.com", Rules: []ExtractionRule{set("a", "html", "", "http")}},
				{Domain: "https://www.totally-real-rpg.com", Rules: []ExtractionRule{set("b", "html", "", "www")}},
				{Domain: "https://totally-real-rpg.com:8443", Rules: []ExtractionRule{set("c", "html", "", "port")}},
				{Domain: "https://totally-real-rpg.co", Rules: []ExtractionRule{set("d", "html", "", "prefix")}},
			},
			want: pageFields,
		},
		{
			name:    "domains compare as origins: case, default port, trailing slash",
			pageURL: "https://Totally-Real-RPG.com:443/cities",
			rulesets: []Ruleset{
				{Domain: "HTTPS://TOTALLY-REAL-RPG.COM/", Rules: []ExtractionRule{set("a", "html", "", "upper")}},
				{Domain: "https://totally-real-rpg.com:443", Rules: []ExtractionRule{set("b", "html", "", "port")}},
			},
			want: append([]Field{{"a", []string{"upper"}, false}, {"b", []string{"port"}, false}}, pageFields...),
		},
		{
			name:    "a later rule replaces a field; an empty result keeps it",
			pageURL: origin + "/",
			rulesets: []Ruleset{
				{Domain: origin, Rules: []ExtractionRule{set("kind", "html", "", "first"), extract("kind", ".city", JoinString)}},
				{Domain: origin, Rules: []ExtractionRule{extract("kind", ".cart", "")}},
			},
			want: append([]Field{{"kind", []string{"Summerstay Drenchwell Mezzo\u00adterran"}, false}}, pageFields...),
		},
		{
			name:     "the page's own field wins over a rule's",
			pageURL:  origin + "/",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{set("page_field", "html", "", "from the rule"), set("rule_field", "html", "", "r")}}},
			want:     []Field{{"page_field", []string{"set by the page"}, false}, {"rule_field", []string{"r"}, false}, {"topic", []string{"from the page"}, false}},
		},
		{
			name:     "field names are trimmed and lower-cased",
			pageURL:  origin + "/",
			rulesets: []Ruleset{{Domain: origin, Rules: []ExtractionRule{set(" Site_Name ", "html", "", "rpg")}}},
			want:     append([]Field{{"site_name", []string{"rpg"}, false}}, pageFields...),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := CompileRulesets(tt.rulesets)
			if err != nil {
				t.Fatal(err)
			}
			cfg := DocConfig{Rulesets: rs}
			res, err := ParseDocument(tt.pageURL, "text/html; charset=utf-8", []byte(rulesPage), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Document.Fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRulesetsApplyDirect covers Apply without ParseDocument: a nil tree (no HTML), a nil
// Rulesets, and the limits on values.
func TestRulesetsApplyDirect(t *testing.T) {
	many := "<body>" + strings.Repeat("<p>abc</p>", 150) + "</body>"
	root, err := html.Parse(strings.NewReader(many))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := CompileRulesets([]Ruleset{{Domain: "http://a.example", Rules: []ExtractionRule{
		{Action: ActionExtract, FieldName: "paras", Selector: "p"},
		{Action: ActionExtract, FieldName: "joined", Selector: "p", JoinAs: JoinString},
		{Action: ActionSet, FieldName: "has_p", Selector: "p", Value: "yes"},
		{Action: ActionExtract, FieldName: "path", Selector: `^http://[^/]+(/\S*)`, Source: SourceURL},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		rs      *Rulesets
		pageURL string
		root    *html.Node
		limit   int
		want    map[string]int // field -> number of values
		lens    map[string]int // field -> length of the first value
	}{
		{"nil rulesets", nil, "http://a.example/x", root, 0, map[string]int{}, nil},
		{"no tree: url rules only", rs, "http://a.example/x", nil, 0, map[string]int{"path": 1}, map[string]int{"path": 2}},
		{"at most 100 values", rs, "http://a.example/x", root, 0, map[string]int{"paras": 100, "joined": 1, "has_p": 1, "path": 1}, map[string]int{"joined": 150*4 - 1}},
		{"joined value limited", rs, "http://a.example/x", root, 10, map[string]int{"paras": 100, "joined": 1, "has_p": 1, "path": 1}, map[string]int{"joined": 10}},
		{"unparsable page URL", rs, "http://a.example/%zz", root, 0, map[string]int{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]int{}
			lens := map[string]int{}
			for _, f := range tt.rs.Apply(tt.pageURL, tt.root, tt.limit) {
				got[f.Name] = len(f.Values)
				lens[f.Name] = len(f.Values[0])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("values per field (-want +got):\n%s", diff)
			}
			for name, n := range tt.lens {
				if lens[name] != n {
					t.Errorf("%s: first value is %d bytes, want %d", name, lens[name], n)
				}
			}
		})
	}
}

// TestRulesetsBinary checks that ParseBinary applies the url rules of the page's rulesets.
func TestRulesetsBinary(t *testing.T) {
	rs, err := CompileRulesets([]Ruleset{{Domain: "http://docs.example.com", URLFilters: []URLFilter{{"begins", "/docs/"}}, Rules: []ExtractionRule{
		{Action: ActionExtract, FieldName: "doc_version", Selector: `/docs/v(\d+)/`, Source: SourceURL},
		{Action: ActionSet, FieldName: "has_product", Selector: ".product", Value: "yes"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DocConfig{BinaryContentTypes: []string{"application/msword"}, Rulesets: rs}
	for _, tt := range []struct {
		url  string
		want []Field
	}{
		{"http://docs.example.com/docs/v2/guide.doc", []Field{{"doc_version", []string{"2"}, true}}},
		{"http://docs.example.com/other/v2/guide.doc", nil},
	} {
		doc, err := ParseBinary(tt.url, "application/msword", []byte("x"), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, doc.Fields); diff != "" {
			t.Errorf("%s: fields (-want +got):\n%s", tt.url, diff)
		}
	}
}

// TestCompileRulesetsErrors checks that every kind of mistake is refused up front, naming
// the ruleset, the rule and its field_name.
func TestCompileRulesetsErrors(t *testing.T) {
	ok := ExtractionRule{Action: ActionExtract, FieldName: "ok", Selector: "p"}
	with := func(r ExtractionRule) []Ruleset {
		return []Ruleset{
			{Domain: "https://example.com", Rules: []ExtractionRule{ok}},
			{Domain: "https://example.com", Rules: []ExtractionRule{ok, r}},
		}
	}
	html := func(field, sel string) []Ruleset {
		return with(ExtractionRule{Action: ActionExtract, FieldName: field, Selector: sel})
	}
	re := func(sel string) []Ruleset {
		return with(ExtractionRule{Action: ActionExtract, FieldName: "f", Selector: sel, Source: SourceURL})
	}
	rule2 := []string{"ruleset 2", "https://example.com", "rule 2"}
	tests := []struct {
		name     string
		rulesets []Ruleset
		want     []string // in the message
	}{
		{"reserved title", html("title", "p"), append(rule2, `"title"`, "schema")},
		{"reserved body_content", html("body_content", "p"), append(rule2, "body_content")},
		{"reserved url", html("url", "p"), append(rule2, `"url"`)},
		{"reserved id", html("id", "p"), append(rule2, `"id"`)},
		{"reserved after lower-casing", html(" URL_Path ", "p"), append(rule2, "url_path")},
		{"empty field name", html("", "p"), append(rule2, "field_name is empty")},
		{"field name with a dash", html("a-b", "p"), append(rule2, `"a-b"`)},
		{"field name starting with an underscore", html("_a", "p"), append(rule2, `"_a"`)},
		{"field name too long", html(strings.Repeat("a", 65), "p"), rule2},
		{"XPath from the root", html("f", "//div[@class='x']"), append(rule2, `field_name "f"`, "XPath")},
		{"XPath absolute", html("f", "/html/body/p"), append(rule2, "XPath")},
		{"XPath relative", html("f", "./p"), append(rule2, "XPath")},
		{"XPath axis", html("f", "descendant::p"), append(rule2, "XPath")},
		{"bad CSS", html("f", "p[class"), append(rule2, `"p[class"`)},
		{"bad CSS pseudo-class", html("f", "p:frobnicate"), rule2},
		{"empty selector", html("f", "  "), append(rule2, "selector is empty")},
		{"regex lookahead", re(`blog(?=/)`), append(rule2, "Ruby")},
		{"regex lookbehind", re(`(?<=blog/)\d+`), append(rule2, "Ruby")},
		{"regex negative lookbehind", re(`(?<!draft/)\d+`), append(rule2, "Ruby")},
		{"regex backreference", re(`(\d)\1`), append(rule2, "Ruby")},
		{"regex possessive", re(`\d++`), append(rule2, "Ruby")},
		{"regex atomic group", re(`(?>\d+)`), append(rule2, "Ruby")},
		{"regex syntax", re(`(\d+`), append(rule2, "missing closing )")},
		{"unknown action", with(ExtractionRule{Action: "copy", FieldName: "f", Selector: "p"}), append(rule2, `"copy"`)},
		{"set without value", with(ExtractionRule{Action: ActionSet, FieldName: "f", Selector: "p"}), append(rule2, "value")},
		{"unknown join_as", with(ExtractionRule{Action: ActionExtract, FieldName: "f", Selector: "p", JoinAs: "csv"}), append(rule2, `"csv"`)},
		{"unknown source", with(ExtractionRule{Action: ActionExtract, FieldName: "f", Selector: "p", Source: "xpath"}), append(rule2, `"xpath"`)},
		{"no rules", []Ruleset{{Domain: "https://example.com"}}, []string{"ruleset 1", "no rules"}},
		{"domain not http", []Ruleset{{Domain: "ftp://example.com", Rules: []ExtractionRule{ok}}}, []string{"ruleset 1", "ftp://example.com"}},
		{"domain with a path", []Ruleset{{Domain: "https://example.com/blog", Rules: []ExtractionRule{ok}}}, []string{"ruleset 1", "path"}},
		{"domain without host", []Ruleset{{Domain: "https://", Rules: []ExtractionRule{ok}}}, []string{"ruleset 1", "no host"}},
		{"domain relative", []Ruleset{{Domain: "example.com", Rules: []ExtractionRule{ok}}}, []string{"ruleset 1"}},
		{"url filter type", []Ruleset{{Domain: "https://example.com", URLFilters: []URLFilter{{"begins", "/a"}, {"starts", "/a"}}, Rules: []ExtractionRule{ok}}}, []string{"ruleset 1", "url filter 2", "starts"}},
		{"url filter empty pattern", []Ruleset{{Domain: "https://example.com", URLFilters: []URLFilter{{"contains", ""}}, Rules: []ExtractionRule{ok}}}, []string{"ruleset 1", "url filter 1"}},
		{"url filter Ruby regex", []Ruleset{{Domain: "https://example.com", URLFilters: []URLFilter{{"regex", `/(?!private)`}}, Rules: []ExtractionRule{ok}}}, []string{"ruleset 1", "url filter 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := CompileRulesets(tt.rulesets)
			if !errors.Is(err, ErrRule) {
				t.Fatalf("CompileRulesets = %v, %v; want an ErrRule", rs, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}

// TestCompileRulesetsValid checks spellings that compile.
func TestCompileRulesetsValid(t *testing.T) {
	for _, r := range []ExtractionRule{
		{Action: "EXTRACT", FieldName: "f", Selector: "div > p:nth-child(2n+1), a[href^='/docs']", JoinAs: "String", Source: "HTML"},
		{Action: "set", FieldName: "f", Selector: "p", Value: "v", JoinAs: "array"},
		{Action: "extract", FieldName: "f", Selector: `(?i)^https?://[^/]+/(?P<section>[a-z]+)/`, Source: "url"},
		{Action: "extract", FieldName: "f", Selector: `\A.*\z`, Source: "url"},
		{Action: "extract", FieldName: "f2", Selector: `p:not(.x)`},
	} {
		if _, err := CompileRulesets([]Ruleset{{Domain: "http://127.0.0.1:8080", Rules: []ExtractionRule{r}}}); err != nil {
			t.Errorf("%+v: %v", r, err)
		}
	}
	rs, err := CompileRulesets(nil)
	if err != nil || rs.NeedsHTML("http://a.example/") || rs.Apply("http://a.example/", nil, 0) != nil {
		t.Errorf("CompileRulesets(nil) = %v, %v; want a Rulesets that applies nothing", rs, err)
	}
}

// FuzzRulesets compiles a ruleset from fuzzed selectors and patterns and applies it to a
// fuzzed page: no panic, and every field written is a valid custom field with non-empty,
// valid UTF-8 values within the limits.
func FuzzRulesets(f *testing.F) {
	f.Add(".city", `blog/(\d{4})`, "/blog", "regex", rulesPage, "https://e.example/blog/2023/x")
	f.Add("p:nth-child(2n+1) > b, a[href]", `(a)|(b)`, "/*", "begins", `<p><b>x</b></p><a href=/>y</a>`, "https://e.example/b")
	f.Add("script", `.*`, ".html", "ends", "<script>a</script><table><td>x<tr>y", "https://e.example/x.html")
	f.Add(":root :empty", `()`, "x", "contains", strings.Repeat("<div>", 600), "https://e.example/x")
	f.Fuzz(func(t *testing.T, selector, re, pattern, typ, page, pageURL string) {
		const limit = 64
		rs, err := CompileRulesets([]Ruleset{{
			Domain:     "https://e.example",
			URLFilters: []URLFilter{{typ, pattern}},
			Rules: []ExtractionRule{
				{Action: ActionExtract, FieldName: "a", Selector: selector},
				{Action: ActionExtract, FieldName: "b", Selector: selector, JoinAs: JoinString},
				{Action: ActionSet, FieldName: "c", Selector: selector, Value: "v"},
				{Action: ActionExtract, FieldName: "d", Selector: re, Source: SourceURL},
				{Action: ActionSet, FieldName: "e", Selector: re, Source: SourceURL, Value: "w"},
			},
		}})
		if err != nil {
			if !errors.Is(err, ErrRule) {
				t.Fatalf("error %v is not an ErrRule", err)
			}
			return
		}
		res, err := ParseDocument(pageURL, "text/html", []byte(page), DocConfig{Rulesets: rs, MaxBodySize: limit})
		if err != nil {
			return
		}
		total := 0
		for _, fl := range res.Document.Fields {
			if !validFieldName(fl.Name) || IsReservedField(fl.Name) || len(fl.Values) == 0 || len(fl.Values) > maxFieldValues {
				t.Fatalf("field %q with %d values", fl.Name, len(fl.Values))
			}
			for _, v := range fl.Values {
				if v == "" || !utf8.ValidString(v) {
					t.Fatalf("field %s: value %q", fl.Name, v)
				}
				total += len(v)
			}
		}
		if total > limit {
			t.Fatalf("fields hold %d bytes, limit %d", total, limit)
		}
	})
}

// TestPruneTree checks the bounds put on the tree html rules read.
func TestPruneTree(t *testing.T) {
	tests := []struct {
		name                  string
		page                  string
		maxNodes, maxChildren int
		want                  string // the elements and texts left, in document order
	}{
		{"within bounds", "<p>a</p><p>b</p>", 100, 100, "html head body p a p b"},
		{"children cut", "<p>a</p><p>b</p><p>c</p><i>d</i>", 100, 2, "html head body p a p b"},
		{"nodes cut inside an element", "<div><p>a</p><p>b</p></div><p>c</p>", 7, 100, "html head body div p a p"},
		{"nodes cut between siblings", "<div><p>a</p></div><p>b</p><p>c</p>", 8, 100, "html head body div p a p b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := html.Parse(strings.NewReader(tt.page))
			if err != nil {
				t.Fatal(err)
			}
			pruneTree(root, tt.maxNodes, tt.maxChildren)
			var got []string
			var walk func(*html.Node)
			walk = func(n *html.Node) {
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Parent != n || (c.NextSibling == nil && n.LastChild != c) {
						t.Fatalf("broken links at %q", c.Data)
					}
					got = append(got, c.Data)
					walk(c)
				}
			}
			walk(root)
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("left %q, want %q", g, tt.want)
			}
		})
	}
}

// TestRulesetsHostilePage checks what html rules read of pages past the bounds: a page with
// more children than the tree keeps, and one nested deeper than html.Parse reads.
func TestRulesetsHostilePage(t *testing.T) {
	rs, err := CompileRulesets([]Ruleset{{Domain: "http://a.example", Rules: []ExtractionRule{
		{Action: ActionExtract, FieldName: "even", Selector: "p:nth-child(2n)"},
		{Action: ActionSet, FieldName: "late", Selector: ".late", Value: "yes"},
		{Action: ActionSet, FieldName: "deep", Selector: "div div", Value: "yes"},
		{Action: ActionSet, FieldName: "from_url", Selector: "/x", Source: SourceURL, Value: "yes"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		page string
		want map[string]int // field -> number of values
	}{
		{"many siblings", "<body>" + strings.Repeat("<p>x</p>", 5000) + "<span class=late>late</span>", map[string]int{"even": 100, "from_url": 1}},
		{"within the bounds", "<body>" + strings.Repeat("<p>x</p>", 10) + "<div><div class=late></div></div>", map[string]int{"even": 5, "late": 1, "deep": 1, "from_url": 1}},
		{"nested too deep for html.Parse", strings.Repeat("<div>", 600), map[string]int{"from_url": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseDocument("http://a.example/x", "text/html", []byte(tt.page), DocConfig{Rulesets: rs})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for _, f := range res.Document.Fields {
				got[f.Name] = len(f.Values)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("values per field (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkRulesets is ParseDocument of a 100 KiB page with an html and a url rule that
// apply (the page is parsed a second time, into a tree, for the html rule), to compare with
// BenchmarkDocument.
func BenchmarkRulesets(b *testing.B) {
	body := testsite.NewsPage(100 << 10)
	rs, err := CompileRulesets([]Ruleset{{Domain: "https://news.example.com", Rules: []ExtractionRule{
		{Action: ActionExtract, FieldName: "authors", Selector: "p.meta a[href^='/authors/']"},
		{Action: ActionExtract, FieldName: "section", Selector: `^https://[^/]+/(\w*)`, Source: SourceURL},
	}}})
	if err != nil {
		b.Fatal(err)
	}
	cfg := DocConfig{Rulesets: rs}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseDocument("https://news.example.com/", "text/html", body, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRulesetIDNDomain: a ruleset's domain written with a non-ASCII host applies to the pages
// of that host, whose URLs the crawl holds in punycode.
func TestRulesetIDNDomain(t *testing.T) {
	rs, err := CompileRulesets([]Ruleset{{Domain: "https://Bücher.example", Rules: []ExtractionRule{
		{Action: ActionSet, FieldName: "shop", Selector: "body", Value: "yes"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	root, err := html.Parse(strings.NewReader("<body>x</body>"))
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.Apply("https://xn--bcher-kva.example/a", root, 0); len(got) != 1 || got[0].Name != "shop" {
		t.Errorf("fields %+v, want shop", got)
	}
}

// TestJoinAsArrayOfOne checks the JSON of a rule's field that matched once: an array of
// one with join_as array (or none), a string with join_as string and with set, as in
// Elastic's crawler (issue 22); and that it reads back as written.
func TestJoinAsArrayOfOne(t *testing.T) {
	const origin = "https://example.com"
	page := `<html><body><p class="author">Ada</p><p class="tag">x</p><p class="tag">y</p></body></html>`
	tests := []struct {
		name string
		rule ExtractionRule
		want string // the field's JSON
	}{
		{"array, one match", ExtractionRule{Action: ActionExtract, FieldName: "f", Selector: ".author", JoinAs: JoinArray}, `"f":["Ada"]`},
		{"join_as empty, one match", ExtractionRule{Action: ActionExtract, FieldName: "f", Selector: ".author"}, `"f":["Ada"]`},
		{"url source, one match", ExtractionRule{Action: ActionExtract, FieldName: "f", Selector: `example\.(com)`, Source: SourceURL}, `"f":["com"]`},
		{"array, two matches", ExtractionRule{Action: ActionExtract, FieldName: "f", Selector: ".tag"}, `"f":["x","y"]`},
		{"string, one match", ExtractionRule{Action: ActionExtract, FieldName: "f", Selector: ".author", JoinAs: JoinString}, `"f":"Ada"`},
		{"string, two matches", ExtractionRule{Action: ActionExtract, FieldName: "f", Selector: ".tag", JoinAs: JoinString}, `"f":"x y"`},
		{"set", ExtractionRule{Action: ActionSet, FieldName: "f", Selector: ".author", Value: "yes", JoinAs: JoinArray}, `"f":"yes"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := CompileRulesets([]Ruleset{{Domain: origin, Rules: []ExtractionRule{tt.rule}}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := ParseDocument(origin+"/a", "text/html; charset=utf-8", []byte(page), DocConfig{Rulesets: rs})
			if err != nil {
				t.Fatal(err)
			}
			doc := NewSearchDocument(origin+"/a", res.Document, DocConfig{}, crawledAt)
			line, _ := doc.MarshalJSON()
			if !strings.HasSuffix(string(line), ","+tt.want+"}") {
				t.Errorf("JSON %s, want it to end with %s", line, tt.want)
			}
			var back SearchDocument
			if err := back.UnmarshalJSON(line); err != nil {
				t.Fatal(err)
			}
			again, _ := back.MarshalJSON()
			if string(again) != string(line) {
				t.Errorf("read back and written again:\n%s\nwant\n%s", again, line)
			}
		})
	}
}

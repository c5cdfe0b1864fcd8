package scope_test

import (
	"errors"
	"testing"

	"github.com/amber-crawler/amber/scope"
)

func mustRule(t *testing.T, s string) scope.Rule {
	t.Helper()
	r, err := scope.ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRulesFirst: the index of the first rule that matches, each kind of matcher matching as
// it does in a scope decision; parent_regex and ip never hold without a via or an address.
func TestRulesFirst(t *testing.T) {
	rules := []scope.Rule{
		{Host: "wiki.example.org", Regex: `https?://[^/]+/[^?]*\?(.*&)?action=edit(&.*)?`},
		mustRule(t, "surt:http://(org,example,wiki,)/images/"),
		mustRule(t, "contains:/wp-login.php"),
		mustRule(t, "parent_regex:.*"),
		mustRule(t, "ip:127.0.0.0/8"),
		{Host: "wiki.example.org", Contains: "Special:"},
	}
	rs, err := scope.CompileRules(rules, "")
	if err != nil {
		t.Fatal(err)
	}
	if rs.Len() != len(rules) {
		t.Errorf("Len() = %d, want %d", rs.Len(), len(rules))
	}
	tests := []struct {
		url  string
		want int
	}{
		{"http://wiki.example.org/index.php?title=Main_Page&action=edit", 0},
		{"https://wiki.example.org/index.php?action=edit&title=Main_Page", 0},
		{"http://wiki.example.org/index.php?title=Main_Page&action=editor", -1},
		{"http://other.example.org/index.php?title=Main_Page&action=edit", -1},
		{"https://wiki.example.org/images/a/ab/Plate.jpg", 1},
		{"http://notwiki.example.org/images/a/ab/Plate.jpg", -1},
		{"http://blog.example.net/wp-login.php?redirect_to=x", 2},
		{"http://wiki.example.org/index.php?title=Special:Random", 5},
		{"http://sub.wiki.example.org/index.php?title=Special:Random", 5},
		{"http://wiki.example.org/index.php?title=Main_Page", -1},
		{"not a url", -1},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			if got := rs.First(tt.url); got != tt.want {
				t.Errorf("First(%q) = %d, want %d", tt.url, got, tt.want)
			}
		})
	}
}

// TestCompileRulesErrors: an invalid rule is ErrRule, an unknown flavour ErrConfig; no rules
// match nothing.
func TestCompileRulesErrors(t *testing.T) {
	if _, err := scope.CompileRules([]scope.Rule{{Regex: "("}}, ""); !errors.Is(err, scope.ErrRule) {
		t.Errorf("invalid regex: err = %v, want ErrRule", err)
	}
	if _, err := scope.CompileRules(nil, "wide"); !errors.Is(err, scope.ErrConfig) {
		t.Errorf("unknown flavour: err = %v, want ErrConfig", err)
	}
	rs, err := scope.CompileRules(nil, scope.Brozzler)
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.First("http://example.org/"); got != -1 || rs.Len() != 0 {
		t.Errorf("no rules: First = %d, Len = %d, want -1, 0", got, rs.Len())
	}
}

// TestEmbed: which hop paths are a page's embeds in each flavour.
func TestEmbed(t *testing.T) {
	tests := []struct {
		hops                      string
		standard, brozzler, elast bool
	}{
		{"", false, false, false},
		{"L", false, false, false},
		{"LE", true, true, true},
		{"LLEE", true, true, true},
		{"LEEE", false, true, true},
		{"LX", true, false, false},
		{"LXX", false, false, false},
		{"LR", true, true, false},
		{"LRE", true, true, true},
		{"LI", true, true, false},
		{"P", true, false, false},
		{"LM", false, false, false},
	}
	for _, tt := range tests {
		for _, f := range []struct {
			fl   scope.Flavour
			want bool
		}{{scope.Standard, tt.standard}, {scope.Brozzler, tt.brozzler}, {scope.Elastic, tt.elast}} {
			if got := scope.Embed(f.fl, tt.hops); got != f.want {
				t.Errorf("Embed(%s, %q) = %v, want %v", f.fl, tt.hops, got, f.want)
			}
		}
	}
}

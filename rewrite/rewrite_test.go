package rewrite

import (
	"errors"
	"testing"
)

func TestApply(t *testing.T) {
	tests := []struct {
		name, rule, in, want string
		matched              bool
	}{
		{"literal", `*http://old/*http://new/*`, "http://old/a", "http://new/a", true},
		{"no match", `*http://old/*http://new/*`, "http://other/a", "http://other/a", false},
		{"first match only", `*a*b*`, "http://h/aaa", "http://h/baa", true},
		{"group $1", `@^(http://[^/]+)/print/(.*)$@$1/$2@`, "http://h/print/x?y", "http://h/x?y", true},
		{"group ${1}0 is group 1 then 0", `#(x)#${1}0#`, "http://h/x", "http://h/x0", true},
		{"group \\1", `#;jsessionid=[^?]*(\?|$)#\1#`, "http://h/a;jsessionid=F00?q=1", "http://h/a?q=1", true},
		{"named group", `!(?P<id>\d+)\.html!page?id=${id}!`, "http://h/42.html", "http://h/page?id=42", true},
		{"dotnet named group", `!(?<id>\d+)\.html!page?id=${id}!`, "http://h/7.html", "http://h/page?id=7", true},
		{"whole match", `*[0-9]+*<$&>*`, "http://h/a12", "http://h/a<12>", true},
		{"$0", `*[0-9]+*[$0]*`, "http://h/a12", "http://h/a[12]", true},
		{"dollar escaped", `*x*$$*`, "http://h/x", "http://h/$", true},
		{"lone dollar is literal", `*x*$y*`, "http://h/x", "http://h/$y", true},
		{"backslash not before digit is literal", `*x*\y*`, "http://h/x", `http://h/\y`, true},
		{"unmatched group is empty", `*a(b)?c*[$1]*`, "http://h/ac", "http://h/[]", true},
		{"empty replacement deletes", `!&?utm_[a-z]+=[^&]*!!`, "http://h/?a=1&utm_source=x", "http://h/?a=1", true},
		{"case-insensitive flag", `*(?i)SESSION=[0-9a-f]+**`, "http://h/?session=ab", "http://h/?", true},
		{"surrounding space trimmed", "  *a*b*\n", "http://h/a", "http://h/b", true},
		{"non-ASCII delimiter", "§a§b§", "http://h/a", "http://h/b", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(tt.rule)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.rule, err)
			}
			got, matched := r.Apply(tt.in)
			if got != tt.want || matched != tt.matched {
				t.Fatalf("Apply(%q) = %q, %v, want %q, %v", tt.in, got, matched, tt.want, tt.matched)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ name, rule string }{
		{"empty", ""},
		{"only space", "   "},
		{"white space delimiter", "\ta\tb\t"},
		{"two delimiters", "*a*"},
		{"four delimiters", "*a*b*c*"},
		{"text after the last delimiter", "*a*b*c"},
		{"empty pattern", "**b*"},
		{"bad regexp", "*a(*b*"},
		{"lookahead", "*a(?=b)*c*"},
		{"lookbehind", "*(?<=a)b*c*"},
		{"backreference in pattern", `*(a)\1*c*`},
		{"no such group $2", "*(a)*$2*"},
		{"no such group \\2", `*(a)*\2*`},
		{"no such named group", "*(a)*${x}*"},
		{"empty group name", "*(a)*${}*"},
		{"invalid UTF-8 delimiter", "\xffa\xffb\xff"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Parse(tt.rule); !errors.Is(err, ErrRule) {
				t.Fatalf("Parse(%q) error = %v, want ErrRule", tt.rule, err)
			}
		})
	}
}

func TestRules(t *testing.T) {
	rs, err := ParseAll([]string{`*http://old\.example/*http://www.example/*`, `*/index\.html$*/*`})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in, want string
		changed  bool
	}{
		{"http://old.example/a/index.html", "http://www.example/a/", true},
		{"http://www.example/a/index.html", "http://www.example/a/", true},
		{"http://old.example/a", "http://www.example/a", true},
		{"http://x/", "http://x/", false},
	}
	for _, tt := range tests {
		got, changed := rs.Apply(tt.in)
		if got != tt.want || changed != tt.changed {
			t.Errorf("Apply(%q) = %q, %v, want %q, %v", tt.in, got, changed, tt.want, tt.changed)
		}
	}
	if _, err := ParseAll([]string{"*a*b*", "*a*"}); !errors.Is(err, ErrRule) {
		t.Fatalf("ParseAll with a bad second rule: %v, want ErrRule", err)
	}
	if got, _ := (Rule{}).Apply("http://x/"); got != "http://x/" {
		t.Fatalf("zero Rule changed the URL: %q", got)
	}
	if r, _ := Parse(" *a*b* "); r.String() != "*a*b*" {
		t.Fatalf("String() = %q", r.String())
	}
}

package rewrite

import (
	"errors"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{"*a*b*", `@^(http://[^/]+)/print/(.*)$@$1/$2@`, `|(x)|\1${1}$$$&|`,
		"!(?<id>\\d+)!${id}!", "**b*", "*a(*b*", "*(a)*${x*", "§a§b§", " \t"} {
		f.Add(s, "http://h/a/print/x?y")
	}
	f.Fuzz(func(t *testing.T, rule, u string) {
		r, err := Parse(rule)
		if err != nil {
			if !errors.Is(err, ErrRule) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrRule", rule, err)
			}
			return
		}
		if r.String() != strings.TrimSpace(rule) {
			t.Fatalf("String() = %q for %q", r.String(), rule)
		}
		again, err := Parse(r.String())
		if err != nil || again.String() != r.String() {
			t.Fatalf("reparse of %q: %v", r.String(), err)
		}
		got, matched := r.Apply(u)
		if !matched && got != u {
			t.Fatalf("Apply(%q) changed the URL without a match: %q", u, got)
		}
	})
}

package config

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/platform"
)

// TestPlatformRules: scope.platform_rules as written (absent, false, true, a map of rules and
// platforms) becomes the crawl's platform rules, and crawl.yaml lists every rule with its
// value, the keys written kept; a flag's override replaces the map.
func TestPlatformRules(t *testing.T) {
	ps, err := platform.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	all := platform.IDs(ps)
	var wp []string
	for _, id := range all {
		if strings.HasPrefix(id, "wordpress/") {
			wp = append(wp, id)
		}
	}
	tests := []struct {
		name     string
		yaml     string
		override func(*File) error
		wantOff  bool
		wantOut  []string // rules off
	}{
		{name: "absent", yaml: ""},
		{name: "true", yaml: "scope: {platform_rules: true}"},
		{name: "false", yaml: "scope: {platform_rules: false}", wantOff: true},
		{name: "a rule off", yaml: "scope: {platform_rules: {mediawiki/history: false}}", wantOut: []string{"mediawiki/history"}},
		{name: "a platform off", yaml: "scope: {platform_rules: {wordpress: false}}", wantOut: wp},
		{name: "all off but one", yaml: "scope: {platform_rules: {all: false, mediawiki/edit: true}}",
			wantOut: slices.DeleteFunc(slices.Clone(all), func(id string) bool { return id == "mediawiki/edit" })},
		{name: "the flag over the file", yaml: "scope: {platform_rules: {mediawiki/edit: true}}", wantOff: true,
			override: func(f *File) error { f.Scope.PlatformRules = PlatformRules{PlatformRulesAll: false}; return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte("seeds: [http://a.example/]\n"+tt.yaml), "test.yaml")
			if err != nil {
				t.Fatal(err)
			}
			c, err := Build(f, Options{Dir: t.TempDir(), Override: tt.override})
			if err != nil {
				t.Fatal(err)
			}
			if c.Platforms.Off != tt.wantOff || !slices.Equal(c.Platforms.RulesOff, tt.wantOut) {
				t.Errorf("platforms %+v, want off %v, rules off %v", c.Platforms, tt.wantOff, tt.wantOut)
			}
			saved, err := Parse(c.EffectiveConfig, "crawl.yaml")
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range all {
				v, ok := saved.Scope.PlatformRules[id]
				if !ok || v == (tt.wantOff || slices.Contains(tt.wantOut, id)) {
					t.Errorf("crawl.yaml: %s = %v (listed %v)", id, v, ok)
				}
			}
			again, err := Build(saved, Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if again.Platforms.Off != c.Platforms.Off || !slices.Equal(again.Platforms.RulesOff, c.Platforms.RulesOff) {
				t.Errorf("resumed from crawl.yaml: %+v, want %+v", again.Platforms, c.Platforms)
			}
		})
	}
}

// TestPlatformRulesErrors: a key that is not a rule, a platform or all, and a value that is
// not a boolean, are errors.
func TestPlatformRulesErrors(t *testing.T) {
	for _, y := range []string{
		"scope: {platform_rules: {mediawiki/editt: false}}",
		"scope: {platform_rules: {typo3: false}}",
	} {
		f, err := Parse([]byte("seeds: [http://a.example/]\n"+y), "test.yaml")
		if err != nil {
			t.Fatalf("%s: %v", y, err)
		}
		if _, err := Build(f, Options{Dir: t.TempDir()}); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", y, err)
		}
	}
	for _, y := range []string{"scope: {platform_rules: maybe}", "scope: {platform_rules: [a]}", "scope: {platform_rules: {mediawiki/edit: sometimes}}"} {
		if _, err := Parse([]byte("seeds: [http://a.example/]\n"+y), "test.yaml"); err == nil {
			t.Errorf("%s: no error", y)
		}
	}
}

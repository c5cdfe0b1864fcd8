package elastic

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/scope"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, body string
		elastic    bool
		flavour    string
		seeds      int
		err        error
	}{
		{"amber", "seeds: [http://a.example/]\nworkers: 2\n", false, "", 1, nil},
		{"elastic", "domains:\n  - url: https://b.example\n    seed_urls: [https://b.example/start]\nmax_crawl_depth: 2\n", true, "elastic", 1, nil},
		{"elastic-unknown-key", "domains:\n  - url: https://b.example\nschedule: daily\n", false, "", 0, ErrConfig},
		{"amber-unknown-key", "seeds: [http://a.example/]\nwrokers: 2\n", false, "", 0, config.ErrConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, cv, err := Load(write(tc.name+".yml", tc.body))
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (cv != nil) != tc.elastic {
				t.Errorf("converted %v, want %v", cv != nil, tc.elastic)
			}
			if c.Scope.Flavour != tc.flavour || len(c.Seeds) != tc.seeds {
				t.Errorf("flavour %q seeds %d, want %q %d", c.Scope.Flavour, len(c.Seeds), tc.flavour, tc.seeds)
			}
		})
	}
	if _, _, err := Load(filepath.Join(dir, "missing.yml")); err == nil {
		t.Error("missing file: no error")
	}
}

// TestScopeConfigElastic: domains make the flavour elastic; an elastic crawl without domains
// takes its seeds' origins; a bad crawl rule names its domain.
func TestScopeConfigElastic(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		flavour    string
		domains    []string
		rules      []int
		depth      int
		err        string
	}{
		{"domains imply elastic", "seeds: [http://a.example/x]\nscope:\n  domains:\n    - url: http://a.example\n      crawl_rules: [deny begins /b, allow regex .*]\n  max_crawl_depth: 4\n",
			"elastic", []string{"http://a.example"}, []int{2}, 4, ""},
		{"seeds' origins", "seeds: [http://a.example/x, 'https://B.example:8443/y', http://a.example/z]\nscope: {flavour: elastic}\n",
			"elastic", []string{"http://a.example", "https://b.example:8443"}, []int{0, 0}, 0, ""},
		{"standard has none", "seeds: [http://a.example/x]\n", "standard", nil, nil, 0, ""},
		{"bad rule", "seeds: [http://a.example/x]\nscope:\n  domains:\n    - url: http://a.example\n      crawl_rules: ['deny regex /a(?!b)']\n",
			"", nil, nil, 0, "line 5"},
		{"bad flavour", "seeds: [http://a.example/x]\nscope: {flavour: heritrix}\n", "", nil, nil, 0, "standard, brozzler or elastic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.Parse([]byte(tc.yaml), "t.yaml")
			if err == nil {
				var sc scope.Config
				sc, err = c.ScopeConfig(scope.Standard)
				if err == nil {
					if tc.err != "" {
						t.Fatalf("no error, want %q", tc.err)
					}
					if string(sc.Flavour) != tc.flavour || len(sc.Domains) != len(tc.domains) {
						t.Fatalf("flavour %q domains %+v, want %q %v", sc.Flavour, sc.Domains, tc.flavour, tc.domains)
					}
					for i, d := range sc.Domains {
						if d.URL != tc.domains[i] || len(d.Rules) != tc.rules[i] {
							t.Errorf("domain %d: %s with %d rules, want %s with %d", i, d.URL, len(d.Rules), tc.domains[i], tc.rules[i])
						}
					}
					if tc.depth != 0 && (sc.MaxCrawlDepth == nil || *sc.MaxCrawlDepth != tc.depth) {
						t.Errorf("max crawl depth %v, want %d", sc.MaxCrawlDepth, tc.depth)
					}
					if _, err := scope.New(sc); err != nil {
						t.Errorf("scope.New: %v", err)
					}
					return
				}
			}
			if tc.err == "" || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
}

// TestDocumentsRulesets: the YAML's extraction rulesets compile, and a bad one is an error
// naming documents.extraction_rulesets.
func TestDocumentsRulesets(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		none       bool
		err        string
	}{
		{"none", "seeds: [http://a.example/]\n", true, ""},
		{"one", "documents:\n  extraction_rulesets:\n    - domain: http://a.example\n      rules: [{action: extract, field_name: byline, selector: .author, source: html}]\n", false, ""},
		{"xpath", "documents:\n  extraction_rulesets:\n    - domain: http://a.example\n      rules: [{action: extract, field_name: byline, selector: //div, source: html}]\n", false, "documents.extraction_rulesets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.Parse([]byte(tc.yaml), "t.yaml")
			if err != nil {
				t.Fatal(err)
			}
			rs, err := c.Documents.Rulesets()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, config.ErrConfig) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || (rs == nil) != tc.none {
				t.Fatalf("rulesets %v, err %v", rs != nil, err)
			}
		})
	}
}

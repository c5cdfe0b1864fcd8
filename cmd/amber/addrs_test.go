package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/scope"
)

// TestAddrsYAML: ip scope rules, politeness.per_ip and urls.mirrors/mirror_files from the YAML
// config into crawl.Config, and kept in crawl.yaml for a resumed run.
func TestAddrsYAML(t *testing.T) {
	files := t.TempDir()
	mirrorFile := filepath.Join(files, "mirrors.txt")
	if err := os.WriteFile(mirrorFile, []byte("# sites\nwww.example.net example.net old.example.net\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, c, err := yamlCrawlConfig(t, `
scope:
  accept: ["ip:10.0.0.0/8", {ip: "2001:db8::/32", host: example.org}]
  block: ["ip:207.46.197.0-100"]
politeness: {per_ip: true}
urls:
  mirrors: [[www.example.org, mirror.example.org]]
  mirror_files: [`+mirrorFile+`]
  rewrite_rules: ["*/old/*/new/*"]
`)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, what string, perIP bool, accept, block []scope.Rule, rewrite func(string) string) {
		t.Helper()
		if !perIP {
			t.Errorf("%s: PerIP false", what)
		}
		wantAccept := []scope.Rule{{IP: "10.0.0.0/8"}, {IP: "2001:db8::/32", Host: "example.org"}}
		if len(accept) != 2 || accept[0] != wantAccept[0] || accept[1] != wantAccept[1] {
			t.Errorf("%s: accept %+v, want %+v", what, accept, wantAccept)
		}
		if len(block) != 1 || block[0] != (scope.Rule{IP: "207.46.197.0-100"}) {
			t.Errorf("%s: block %+v", what, block)
		}
		for in, want := range map[string]string{
			"http://mirror.example.org/old/a": "http://www.example.org/new/a", // mirrors first, then the rules
			"http://old.example.net/x":        "http://www.example.net/x",
			"http://example.net/x":            "http://www.example.net/x",
			"http://www.example.org/x":        "http://www.example.org/x",
		} {
			if got := rewrite(in); got != want {
				t.Errorf("%s: %s rewritten %s, want %s", what, in, got, want)
			}
		}
	}
	check(t, "config", c.PerIP, c.Scope.Accept, c.Scope.Block, func(u string) string { s, _ := c.URLs.Rewrite.Apply(u); return s })
	again, back := readBack(t, c)
	var accept, block []scope.Rule
	for _, list := range []struct {
		specs []config.RuleSpec
		dst   *[]scope.Rule
	}{{again.Scope.Accept, &accept}, {again.Scope.Block, &block}} {
		for _, rs := range list.specs {
			r, err := rs.Rule()
			if err != nil {
				t.Fatal(err)
			}
			*list.dst = append(*list.dst, r)
		}
	}
	check(t, "crawl.yaml", back.PerIP, accept, block, func(u string) string { s, _ := back.URLs.Rewrite.Apply(u); return s })
}

func TestAddrsYAMLErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.txt")
	for _, yaml := range []string{
		"scope: {accept: [\"ip:10.0.0.0/33\"]}\n",
		"scope: {block: [{ip: \"207.46.197.0:0xffffffff00\"}]}\n",
		"urls: {mirrors: [[www.example.org]]}\n",
		"urls: {mirrors: [[a.example, b.example], [c.example, a.example]]}\n",
		"urls: {mirror_files: [" + missing + "]}\n",
		"politeness: {per_ip: maybe}\n",
	} {
		t.Run(yaml, func(t *testing.T) {
			if _, _, err := yamlCrawlConfig(t, yaml); err == nil {
				t.Errorf("no error for %q", yaml)
			}
		})
	}
}

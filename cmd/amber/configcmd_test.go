package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/internal/crawltest"
)

// TestConfigConvert runs `amber config convert` on Elastic files: the output is amber YAML
// that amber reads back, with its keys commented; what cannot be converted exits 2 naming
// the file and the key.
func TestConfigConvert(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("crawler.yml", `domains:
  - url: https://www.example.com
    crawl_rules:
      - {policy: deny, type: begins, pattern: /blog}
max_crawl_depth: 2
`)
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  []string // in stdout (success) or the error (failure)
	}{
		{"converts", []string{"config", "convert", good}, exitOK,
			[]string{"flavour: elastic # from domains", "- deny begins /blog", "max_crawl_depth: 2 # from max_crawl_depth", "url: https://www.example.com/"}},
		{"help", []string{"help", "config"}, exitOK, []string{"usage: amber config convert [--fast-domain NAME] [--strict] FILE", "FAST"}},
		{"no file", []string{"config", "convert"}, exitUsage, []string{"usage: amber config convert"}},
		{"missing file", []string{"config", "convert", filepath.Join(dir, "nope.yml")}, exitUsage, []string{"nope.yml"}},
		{"amber config", []string{"config", "convert", write("amber.yaml", "seeds: [https://example.com/]\n")}, exitUsage,
			[]string{"amber.yaml", "neither an Elastic Open Crawler config", "nor a FAST crawler configuration"}},
		{"fast", []string{"config", "convert", fastExample(t, "01"), "--strict=false"}, exitOK, []string{"# from "}},
		{"fast flag on elastic", []string{"config", "convert", "--fast-domain", "x", good}, exitUsage, []string{"not one"}},
		{"unknown key", []string{"config", "convert", write("k.yml", "domains:\n  - url: https://a.example\nmax_redirect: 3\n")}, exitUsage,
			[]string{"k.yml", "max_redirect", "line 3"}},
		{"credentials", []string{"config", "convert", write("a.yml", "domains:\n  - url: https://a.example\nauth:\n  - {domain: https://a.example, type: raw, header: x}\n")}, exitOK,
			[]string{"value: env:AMBER_AUTH_0_VALUE", "AMBER_AUTH_0_VALUE: the value of auth[0].header"}},
		{"unknown subcommand", []string{"config", "check", good}, exitUsage, []string{"check"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tc.args, nil, &stdout, &stderr)
			if code := exitCode(err); code != tc.code {
				t.Fatalf("exit %d (%v), want %d", code, err, tc.code)
			}
			text := stdout.String()
			if err != nil {
				text = err.Error()
			}
			for _, s := range tc.out {
				if !strings.Contains(text, s) {
					t.Errorf("output lacks %q:\n%s", s, text)
				}
			}
			if tc.name == "converts" {
				c, err := config.Parse(stdout.Bytes(), "converted")
				if err != nil || c.Scope.Flavour != "elastic" || len(c.Seeds) != 1 {
					t.Errorf("converted config reads back as %+v, %v", c, err)
				}
			}
		})
	}
}

// fastExample is the path of one of the FAST specification's §3 examples in config/fast
// testdata, by its number.
func fastExample(t *testing.T, n string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(crawltest.ModuleRoot(t), "config", "fast", "testdata", "examples", n+"-*.xml"))
	if err != nil || len(m) == 0 {
		t.Fatalf("no FAST example %s: %v", n, err)
	}
	return m[0]
}

// TestConfigConvertFASTAccount runs `amber config convert` on the FAST specification's §3
// examples: the output ends with the five headings of the account, and --strict exits 2 on
// exactly the examples holding what amber does not do (§3.1, §3.2, both forms of §3.3),
// naming each such attrib (config/fast's TestExamplesAccount checks every name).
func TestConfigConvertFASTAccount(t *testing.T) {
	heads := []string{"# Mapped (", "# The same as amber's behaviour (", "# Differs (", "# Ignored (", "# Refused ("}
	refused := map[string][]string{
		"01":  {"crawlmode/fwdredirects=no"},
		"02":  {"extract_links_from_dupes=no", "ftp_errors/550=DELETE:0", "link_extraction/img=no", "refresh=1440.0"},
		"03a": {"SubDomain[subdomain_1]/refresh=60.0"},
		"03b": {"subdomains/subdomain_1/refresh=60.0"},
	}
	for _, n := range []string{"01", "02", "03a", "03b", "04", "05", "06", "07", "08", "09", "10", "11", "12"} {
		t.Run(n, func(t *testing.T) {
			f := fastExample(t, n)
			var stdout, stderr bytes.Buffer
			if err := run(t.Context(), []string{"config", "convert", f}, nil, &stdout, &stderr); err != nil {
				t.Fatal(err)
			}
			for _, h := range heads {
				if !strings.Contains(stdout.String(), "\n"+h) {
					t.Errorf("no heading %q in:\n%s", h, stdout.String())
				}
			}
			stdout.Reset()
			err := run(t.Context(), []string{"config", "convert", "--strict", f}, nil, &stdout, &stderr)
			want := refused[n]
			if code, wantCode := exitCode(err), map[bool]int{true: exitUsage, false: exitOK}[len(want) > 0]; code != wantCode {
				t.Fatalf("--strict: exit %d (%v), want %d", code, err, wantCode)
			}
			for _, s := range want {
				if !strings.Contains(err.Error(), ": "+s+": ") {
					t.Errorf("--strict error does not name %s:\n%v", s, err)
				}
			}
		})
	}
}

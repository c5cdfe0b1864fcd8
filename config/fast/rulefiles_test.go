package fast

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/scope"
)

const ruleDir = "testdata/rules"

// scopeOf builds amber's scope from a conversion and returns a function deciding a URL a link
// on the first seed found (hop L).
func scopeOf(t *testing.T, cv *config.Converted) func(u string) scope.Decision {
	t.Helper()
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
	return func(u string) scope.Decision {
		cu, err := scope.Canonicalize(u, scope.Standard)
		if err != nil {
			t.Fatalf("canonicalize %s: %v", u, err)
		}
		return s.Decide(scope.Candidate{URL: cu, Hops: "L", Via: seed, Seed: seed})
	}
}

func fileAttrib(files ...string) string { return members("file", files...) }

// TestRuleFiles checks the file attrib of the include and exclude sections (§2.2.4.1-2.2.4.4):
// each line of a file is a rule of the section as the attrib of its type would be, files are
// read relative to BaseDir, and what amber cannot do is noted with the file and line.
func TestRuleFiles(t *testing.T) {
	schemes := members("allowed_schemes", "http", "https") + `<attrib name="exclude_exts" type="list-string"></attrib>`
	type check struct {
		url string
		in  bool
	}
	type note struct{ status, what string }
	tests := []struct {
		name   string
		body   string
		checks []check
		notes  []note
	}{
		{"include_domains file", section("include_domains", fileAttrib("lists/hosts.txt")), []check{
			{"http://archive.example.org/a", true}, // EXACT, spaces trimmed, compared in lowercase
			{"http://www.archive.example.org/a", false},
			{"https://a.museum.example/x", true},
			{"http://museum.example.org/", false},
			{"http://cdn.example.net/s.js", true},
			{"http://img42.example.net/p.jpg", true},
			{"http://img42.example.net.evil.org/", false},
			{"http://other.org/archive.example.org", false},
		}, nil},
		{"include_domains file and attribs together", section("include_domains", members("exact", "www.example.com"), fileAttrib("lists/hosts.txt")), []check{
			{"http://www.example.com/a", true},
			{"http://archive.example.org/", true},
			{"http://example.com/", false},
		}, nil},
		{"two files in one attrib", section("include_domains", fileAttrib("lists/hosts.txt", "crlf.txt")), []check{
			{"http://archive.example.org/", true},
			{"http://www.example.com/", true}, // after a byte order mark, before a CR
			{"http://any.example.org/", true},
			{"http://example.com/", false},
		}, nil},
		{"exclude_domains file", section("exclude_domains", fileAttrib("lists/bad-hosts.txt")), []check{
			{"http://ads.example.org/x", false},
			{"http://badads.example.org/x", false}, // a suffix is a string suffix
			{"http://cdn.tracker.example/t.js", false},
			{"http://www.example.com/", true},
		}, nil},
		{"include_uris file", section("include_uris", fileAttrib("uris.txt")), []check{
			{"http://www.example.com/collections/paintings", true},
			{"http://www.example.com/", true},
			{"http://www.example.com/about", false},
			{"http://elsewhere.org/page.html", true},
			{"http://elsewhere.org/news/12/today", true},
			{"http://elsewhere.org/news/today", false},
		}, nil},
		{"exclude_uris file", section("exclude_uris", fileAttrib("lists/bad-uris.txt")), []check{
			{"http://www.example.com/private/a", false},
			{"http://www.example.com/a?sid=3", false},
			{"http://www.example.com/db.bak", false},
			{"http://archive.example.org/", false},
			{"http://archive.example.org/a", true},
			{"http://www.example.com/public", true},
		}, nil},
		{"a file without rules", section("include_domains", fileAttrib("empty.txt")), []check{
			{"http://www.example.com/a", false}, // the section is not empty: its rules match no host
			{"http://other.org/", false},
		}, []note{{"note", "include_domains/file empty.txt"}}},
		{"a rule amber cannot express", section("include_uris", fileAttrib("lookaround.txt")), []check{
			{"http://www.example.com/a", true},
			{"http://other.org/private", false},
		}, []note{{"unsupported-yet", "include_uris/file lookaround.txt:2 regexp:(?<=/)private"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, err := convert(t, startURI+schemes+tt.body, ConvertOptions{BaseDir: ruleDir})
			if err != nil {
				t.Fatalf("Convert: %v", err)
			}
			decide := scopeOf(t, cv)
			for _, c := range tt.checks {
				if d := decide(c.url); d.In != c.in {
					t.Errorf("%s: in=%v (%s), want %v", c.url, d.In, d.Reason, c.in)
				}
			}
			for _, n := range tt.notes {
				if !hasNote(cv.Notes, n.status, n.what) {
					t.Errorf("no %s note naming %q in:\n%s", n.status, n.what, strings.Join(cv.Notes, "\n"))
				}
			}
			for _, n := range cv.Notes {
				if strings.HasPrefix(n, noteUnknown) || strings.Contains(n, "internal") {
					t.Errorf("note %q", n)
				}
			}
		})
	}
}

// TestRuleFilesLoad converts a file whose rules are in files named relative to its
// directory, and checks the rules and where each came from.
func TestRuleFilesLoad(t *testing.T) {
	cfg, cv, err := Load(filepath.Join(ruleDir, "crawler.xml"), "", false)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		key, source string
	}{
		{"scope.block[0]", "exclude_domains/file lists/bad-hosts.txt:1 suffix:ads.example.org"},
		{"scope.block[1]", "exclude_domains/file lists/bad-hosts.txt:2 ipmask:10.0.0.0/8"},
		{"scope.block[2]", "exclude_domains/file lists/bad-hosts.txt:3 exact:cdn.tracker.example"},
		{"scope.block[3]", "exclude_uris/file lists/bad-uris.txt:1 prefix:http://www.example.com/private/"},
		{"scope.block[6]", "exclude_uris/file lists/bad-uris.txt:4 exact:http://archive.example.org/"},
		{"scope.accept[0]", "include_domains/exact www.example.com"},
		{"scope.accept[1]", "include_domains/file lists/hosts.txt:4 exact:Archive.Example.org"},
		{"scope.accept[4]", `include_domains/file lists/hosts.txt:7 regexp:^img[0-9]+\.example\.net$`},
	}
	for _, c := range checks {
		if got := cv.Sources[c.key]; got != c.source {
			t.Errorf("source of %s = %q, want %q", c.key, got, c.source)
		}
	}
	if n := len(cfg.Scope.Accept); n != 5 {
		t.Errorf("%d accept rules, want 5: %v", n, cfg.Scope.Accept)
	}
	if len(cfg.Scope.Block) < 2 || cfg.Scope.Block[1].String() != "ip:10.0.0.0/8" {
		t.Errorf("scope.block[1] is not the file's ipmask rule: %v", cfg.Scope.Block)
	}
	out, err := Render(cv, "crawler.xml")
	if err != nil {
		t.Fatal(err)
	}
	checkConversion(t, cfg, out)
	decide := scopeOf(t, cv)
	for _, c := range []struct {
		url string
		in  bool
	}{
		{"http://www.example.com/a", true},
		{"http://www.example.com/private/a", false},
		{"http://archive.example.org/", false},
		{"http://archive.example.org/b", true},
		{"http://ads.example.org/", false},
		{"http://elsewhere.org/", false},
	} {
		if d := decide(c.url); d.In != c.in {
			t.Errorf("%s: in=%v (%s), want %v", c.url, d.In, d.Reason, c.in)
		}
	}
}

// TestRuleFilesInvalid checks that a rule file that cannot be read, is too large or holds a
// line that is not a rule of its section is an error at the file attrib, naming the file.
func TestRuleFilesInvalid(t *testing.T) {
	tmp := t.TempDir()
	big := filepath.Join(tmp, "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("suffix:.example.com\n", maxRuleFileBytes/20+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	many := filepath.Join(tmp, "many.txt")
	if err := os.WriteFile(many, []byte(strings.Repeat("exact:a\n", maxRuleFileRules+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	limit := filepath.Join(tmp, "limit.txt")
	if err := os.WriteFile(limit, []byte(strings.Repeat("exact:a\n", maxRuleFileRules)), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.Join(ruleDir, "lists", "hosts.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		sec     string
		file    string
		invalid bool
		names   string // what the error must name
	}{
		{"missing", "include_domains", "no-such.txt", true, filepath.Join(ruleDir, "no-such.txt")},
		{"a directory", "exclude_uris", "lists", true, filepath.Join(ruleDir, "lists")},
		{"a line that is not a rule", "include_domains", "bad-line.txt", true, filepath.Join(ruleDir, "bad-line.txt") + ":2"},
		{"an empty rule", "exclude_domains", "empty-rule.txt", true, filepath.Join(ruleDir, "empty-rule.txt") + ":1"},
		{"ipmask in a URI file", "include_uris", "lists/bad-hosts.txt", true, filepath.Join(ruleDir, "lists", "bad-hosts.txt") + ":2"},
		{"not UTF-8", "exclude_uris", "latin1.txt", true, filepath.Join(ruleDir, "latin1.txt")},
		{"larger than 1 MiB", "exclude_domains", big, true, big},
		{"more rules than the bound", "exclude_domains", many, true, many},
		{"as many rules as the bound", "exclude_domains", limit, false, ""},
		{"an absolute path", "include_domains", abs, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := startURI + "\n" + section(tt.sec, fileAttrib(tt.file))
			_, err := convert(t, body, ConvertOptions{BaseDir: ruleDir})
			if !tt.invalid {
				if err != nil {
					t.Fatalf("Convert: %v", err)
				}
				return
			}
			var fe *Error
			if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Convert: %v, want an *Error wrapping ErrInvalid", err)
			}
			want := "CrawlerConfig/DomainSpecification[name=c]/section[name=" + tt.sec + "]/attrib[name=file]"
			if diff := cmp.Diff(want, fe.Path); diff != "" || fe.Line != 2 {
				t.Errorf("error at %d %s, want 2 %s", fe.Line, fe.Path, want)
			}
			if !strings.Contains(fe.Msg, tt.names) {
				t.Errorf("error %q does not name %s", fe.Msg, tt.names)
			}
		})
	}
}

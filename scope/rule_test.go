package scope

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRule(t *testing.T) {
	tests := []struct {
		in   string
		want Rule
		text string
	}{
		{"surt:http://(org,archive,", Rule{SURT: "http://(org,archive,"}, "surt:http://(org,archive,"},
		{"surt:https://(org,archive,", Rule{SURT: "https://(org,archive,"}, "surt:https://(org,archive,"},
		{" SURT : (org,archive, ", Rule{SURT: "(org,archive,"}, "surt:(org,archive,"},
		{"ssurt:org,archive,//https:/", Rule{SSURT: "org,archive,//https:/"}, "ssurt:org,archive,//https:/"},
		{`regex:^https?://example\.com/a/.*$`, Rule{Regex: `^https?://example\.com/a/.*$`}, `regex:^https?://example\.com/a/.*$`},
		{"contains:/login", Rule{Contains: "/login"}, "contains:/login"},
		{"contains:a:b", Rule{Contains: "a:b"}, "contains:a:b"},
		{"host:example.com", Rule{Host: "example.com"}, "host:example.com"},
		{"host:Bücher.ch", Rule{Host: "Bücher.ch"}, "host:Bücher.ch"},
		{`parent_regex:^https://www\.youtube\.com/user/.*$`, Rule{ParentRegex: `^https://www\.youtube\.com/user/.*$`}, `parent_regex:^https://www\.youtube\.com/user/.*$`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRule(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseRule(%q) (-want +got):\n%s", tt.in, diff)
			}
			if s := got.String(); s != tt.text {
				t.Errorf("String() = %q, want %q", s, tt.text)
			}
		})
	}
	bad := []string{
		"", "surt", "nokind:x", "surt:", "surt:http://archive.org/", "regex:(", "regex:a{1001}",
		"parent_regex:[", "host:", "host:exa mple.com", "host:a/b", "contains: ", "regex", ":x",
	}
	for _, in := range bad {
		t.Run("bad/"+in, func(t *testing.T) {
			if r, err := ParseRule(in); !errors.Is(err, ErrRule) {
				t.Errorf("ParseRule(%q) = %+v, %v; want an ErrRule", in, r, err)
			}
		})
	}
}

func TestRuleFromMap(t *testing.T) {
	tests := []struct {
		in   map[string]string
		want Rule
		text string
	}{
		{map[string]string{"contains": "/login", "host": "example.com"},
			Rule{Contains: "/login", Host: "example.com"}, "contains:/login host:example.com"},
		{map[string]string{"parent_regex": `^https://www\.youtube\.com/user/.*$`, "regex": `^https://www\.youtube\.com/watch\?.*$`},
			Rule{Regex: `^https://www\.youtube\.com/watch\?.*$`, ParentRegex: `^https://www\.youtube\.com/user/.*$`},
			`regex:^https://www\.youtube\.com/watch\?.*$ parent_regex:^https://www\.youtube\.com/user/.*$`},
		{map[string]string{"host": "a.org", "ssurt": "org,a,", "surt": "http://(org,a,", "contains": "x"},
			Rule{SURT: "http://(org,a,", SSURT: "org,a,", Contains: "x", Host: "a.org"},
			"surt:http://(org,a, ssurt:org,a, contains:x host:a.org"},
		{map[string]string{"SURT": "http://(org,"}, Rule{SURT: "http://(org,"}, "surt:http://(org,"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, err := RuleFromMap(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RuleFromMap (-want +got):\n%s", diff)
			}
			if s := got.String(); s != tt.text {
				t.Errorf("String() = %q, want %q", s, tt.text)
			}
		})
	}
	bad := []map[string]string{
		nil, {}, {"nope": "x"}, {"regex": "("}, {"surt": "no-paren"}, {"host": ""},
		{"surt": "http://(a,", "SURT": "http://(b,"},
	}
	for i, in := range bad {
		if r, err := RuleFromMap(in); !errors.Is(err, ErrRule) {
			t.Errorf("bad[%d] RuleFromMap(%v) = %+v, %v; want an ErrRule", i, in, r, err)
		}
	}
}

func TestRuleValidate(t *testing.T) {
	for _, r := range []Rule{{}, {Regex: "("}, {SURT: "http://x/"}, {Host: "a b"}, {ParentRegex: "+"}} {
		if err := r.Validate(); !errors.Is(err, ErrRule) {
			t.Errorf("%+v.Validate() = %v, want an ErrRule", r, err)
		}
	}
	if err := (Rule{Contains: "x", Host: "example.com"}).Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
}

func TestParseSeedType(t *testing.T) {
	tests := []struct {
		in   string
		want SeedType
	}{
		{"", StandardSeed},
		{"one-page", OnePage},
		{"one-page+", OnePagePlus},
		{"standard", StandardSeed},
		{"standard+", StandardPlus},
		{"One-Page", OnePage},
		{"One-Page+", OnePagePlus},
		{"Standard", StandardSeed},
		{"Standard+", StandardPlus},
		{" STANDARD+ ", StandardPlus},
	}
	for _, tt := range tests {
		got, err := ParseSeedType(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseSeedType(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"onepage", "one page", "standard++", "x"} {
		if got, err := ParseSeedType(in); !errors.Is(err, ErrSeedType) {
			t.Errorf("ParseSeedType(%q) = %q, %v; want an ErrSeedType", in, got, err)
		}
	}
}

func TestParseFlavour(t *testing.T) {
	for in, want := range map[string]Flavour{"": Standard, "standard": Standard, "Brozzler": Brozzler} {
		if got, err := ParseFlavour(in); err != nil || got != want {
			t.Errorf("ParseFlavour(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFlavour("heritrix"); !errors.Is(err, ErrConfig) {
		t.Errorf("ParseFlavour(heritrix) error = %v", err)
	}
}

func TestRequiredLiteral(t *testing.T) {
	tests := map[string]string{
		`^https?://www\.example\.com/calendar/.*$`: "://www.example.com/calendar/",
		`.*calendar.*`:     "calendar",
		`(?i).*calendar.*`: "",
		`a|b`:              "",
		`(abc)+x`:          "abc",
		`(abcd){2,3}`:      "abcd",
		`(abcd){0,3}`:      "",
		`(`:                "",
	}
	for in, want := range tests {
		if got := requiredLiteral(in); got != want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", in, got, want)
		}
	}
}

package weburl

import (
	"errors"
	"testing"
)

func TestTrim(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  http://a/  ", "http://a/"},
		{"\x00\x1f http://a/b \x01", "http://a/b"},
		{"http://a/\tb\nc\rd", "http://a/bcd"},
		{"\u00a0http://a/\u00a0", "\u00a0http://a/\u00a0"}, // only C0 and space are trimmed
		{"http://a/x y", "http://a/x y"},
	}
	for _, tt := range tests {
		if got := Trim(tt.in); got != tt.want {
			t.Errorf("Trim(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEscape(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string) string
		in   string
		want string
	}{
		{"controls clean", EscapeControls, "a/b?c=d", "a/b?c=d"},
		{"controls", EscapeControls, "a b\x01\x7f\u00e9", "a%20b%01%7F\u00e9"},
		{"query clean", EscapeQuery, "a=1&b=%2f'`{}", "a=1&b=%2f'`{}"},
		{"query set", EscapeQuery, "q=a b\"<>#\x7f\x00", "q=a%20b%22%3C%3E%23%7F%00"},
		{"query non-ASCII", EscapeQuery, "q=\u00e9", "q=%C3%A9"},
		{"percent clean", FixPercent, "a%2Fb%e9", "a%2Fb%e9"},
		{"percent stray", FixPercent, "100%", "100%25"},
		{"percent bad hex", FixPercent, "%zz%4", "%25zz%254"},
		{"percent mixed", FixPercent, "%41%%41", "%41%25%41"},
		{"backslash path", FixBackslashes, `\\host\a\b?x=\y#\z`, "//host/a/b?x=\\y#\\z"},
		{"backslash fragment only", FixBackslashes, `/a#\b`, `/a#\b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.fn(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCutScheme(t *testing.T) {
	tests := []struct {
		in           string
		scheme, rest string
		ok           bool
	}{
		{"HTTP://a/", "HTTP", "//a/", true},
		{"git+ssh:x", "git+ssh", "x", true},
		{"a1.-+:", "a1.-+", "", true},
		{"1http://a", "", "1http://a", false},
		{":x", "", ":x", false},
		{"/a:b", "", "/a:b", false},
		{"nocolon", "", "nocolon", false},
	}
	for _, tt := range tests {
		scheme, rest, ok := CutScheme(tt.in)
		if scheme != tt.scheme || rest != tt.rest || ok != tt.ok {
			t.Errorf("CutScheme(%q) = %q, %q, %v; want %q, %q, %v", tt.in, scheme, rest, ok, tt.scheme, tt.rest, tt.ok)
		}
	}
}

func TestASCIIHost(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = ErrHost
	}{
		{"Example.COM", "example.com"},
		{"a_b.example", "a_b.example"}, // ASCII is only lowercased
		{"bücher.ch", "xn--bcher-kva.ch"},
		{"BÜCHER.CH", "xn--bcher-kva.ch"},
		{"ｅｘａｍｐｌｅ。ｃｏｍ", "example.com"},        // full-width forms and ideographic full stop mapped
		{"ä_b.example", "xn--_b-uia.example"}, // no STD3 rules: '_' stays (Lookup refused it)
		{"ｅ_x.example", "e_x.example"},        // mapped even with '_' (the old punycode fallback was not)
		{"-ä.example", "xn----0fa.example"},   // no hyphen checks
		{"faß.de", "xn--fa-hia.de"},           // non-transitional: ß kept
		{"a\u200cb\u00e9.example", ""},        // ZWNJ outside its context (CheckJoiners)
		{"\u05d0a\u00e9.example", ""},         // RTL and LTR in one label (CheckBidi)
	}
	for _, tt := range tests {
		got, err := ASCIIHost(tt.in)
		if tt.want == "" {
			if !errors.Is(err, ErrHost) {
				t.Errorf("ASCIIHost(%q) = %q, %v; want ErrHost", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ASCIIHost(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestIsHostname(t *testing.T) {
	for h, want := range map[string]bool{
		"example.com": true, "A-b_c.9": true, "": false, "a b": false, "a,b": false,
		"a$b": false, "[::1]": false, "xn--bcher-kva.ch": true, "é": false,
	} {
		if got := IsHostname(h); got != want {
			t.Errorf("IsHostname(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestDefaultPort(t *testing.T) {
	for scheme, want := range map[string]string{"http": "80", "https": "443", "ftp": "", "": ""} {
		if got := DefaultPort(scheme); got != want {
			t.Errorf("DefaultPort(%q) = %q, want %q", scheme, got, want)
		}
		if got, wantSpecial := IsSpecial(scheme), want != ""; got != wantSpecial {
			t.Errorf("IsSpecial(%q) = %v, want %v", scheme, got, wantSpecial)
		}
	}
}

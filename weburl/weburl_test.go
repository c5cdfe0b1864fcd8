package weburl

import (
	"errors"
	"strings"
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

// Rows marked wpt are from web-platform-tests' url/resources/urltestdata.json; the others
// follow the WHATWG URL Standard's host parser step by step.
func TestHost(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = ErrHost
	}{
		// Numeric spellings of loopback.
		{"127.0.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"0X7F.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"0x7F000001", "127.0.0.1"},
		{"0x7f.0x0.0x0.0x1", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"127.0.0.1.", "127.0.0.1"},      // one trailing dot
		{"127.000.000.001", "127.0.0.1"}, // leading zeros are octal, 000 is 0
		{"0000000000000000000000001", "0.0.0.1"},
		{"0xc0.0250.01", "192.168.0.1"},   // wpt (percent-decoded)
		{"0xc0.0250.01.", "192.168.0.1"},  // wpt
		{"4294967295", "255.255.255.255"}, // wpt
		{"0xffffffff", "255.255.255.255"}, // wpt
		{"0x.0x.0", "0.0.0.0"},            // wpt: "0x" alone is 0
		{"0x", "0.0.0.0"},                 // ends in a number, and is 0
		{"1.2.3.4", "1.2.3.4"},
		{"１２７.０.０.１", "127.0.0.1"}, // full-width digits: IDNA first, then IPv4
		{"１２７。１", "127.0.0.1"},     // ideographic full stop
		// Ends in a number but is no IPv4 address: invalid.
		{"1.2.3.4.5", ""},                      // wpt
		{"1.2.3.4.5.", ""},                     // wpt
		{"0..0x300", ""},                       // wpt
		{"256.256.256.256.256", ""},            // wpt
		{"1.2.3.08", ""},                       // wpt: 8 is no octal digit
		{"1.2.3.09", ""},                       // wpt
		{"09.2.3.4", ""},                       // wpt
		{"0x100.2.3.4", ""},                    // wpt
		{"foo.1.2.3.4", ""},                    // wpt
		{"foo.09", ""},                         // wpt
		{"foo.0x4", ""},                        // wpt
		{"foo.0x", ""},                         // wpt
		{"foo.0XFfFfFfFfFfFfFfFfFfAcE123", ""}, // wpt
		{"0999999999999999999", ""},            // wpt
		{"10000000000", ""},                    // wpt
		{"4294967296", ""},                     // wpt
		{"0xffffffff1", ""},                    // wpt
		{"256.256.256.256", ""},                // wpt
		{"192.168.0.257", ""},                  // wpt
		{"0x100000000", ""},                    // wpt
		{"256.0.0.1", ""},                      // wpt
		{"1.2.65536", ""},                      // the last of three parts fills two bytes
		{"1.16777216", ""},                     // the last of two parts fills three bytes
		{"99999999999999999999999999999", ""},  // no overflow
		{"example.123", ""},
		// Names: the last label is not a number.
		{"0x7f.0.0.0x7g", "0x7f.0.0.0x7g"},     // wpt
		{"10000000000.com", "10000000000.com"}, // wpt
		{"foo.09..", "foo.09.."},               // wpt: two trailing dots, a name
		{"1.2.3.4..", "1.2.3.4.."},
		{"0x7f.1a", "0x7f.1a"},
		{"123.example", "123.example"},
		{"Example.COM.", "example.com."},
		{"bücher.ch", "xn--bcher-kva.ch"},
		// Forbidden domain code points, also when IDNA mapping produces them.
		{"a b", ""},
		{"a%41", ""},
		{"a<b", ""},
		{"00：", ""}, // full-width colon maps to ':'
		// IPv6 literals (brackets removed) pass through lowercased.
		{"::1", "::1"},
		{"::FFFF:127.0.0.1", "::ffff:127.0.0.1"},
		{"2001:DB8::1", "2001:db8::1"},
		{"::1%eth0", ""},
		{"1:2", ""},
		{"::127.0.0.1.5", ""},
	}
	for _, tt := range tests {
		got, err := Host(tt.in)
		if tt.want == "" {
			if !errors.Is(err, ErrHost) {
				t.Errorf("Host(%q) = %q, %v; want ErrHost", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Host(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestEndsInNumber(t *testing.T) {
	for h, want := range map[string]bool{
		"": false, ".": false, "..": false, "1": true, "1.": true, "1..": false, "a.1": true,
		"a.0x": true, "a.0X1f": true, "a.0x1g": false, "a.x1": false, "a.1a": false, "1.a": false,
		"example.com": false, "0x": true, "00": true, "a.-1": false,
	} {
		if got := EndsInNumber(h); got != want {
			t.Errorf("EndsInNumber(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestParseIPv4(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = ErrHost
	}{
		{"0", "0.0.0.0"},
		{"1.2.3.4", "1.2.3.4"},
		{"1.2.3.4.", "1.2.3.4"},
		{"1.2.772", "1.2.3.4"},
		{"1.131844", "1.2.3.4"},
		{"16909060", "1.2.3.4"},
		{"0x1.0x2.0x3.0x4", "1.2.3.4"},
		{"01.02.03.04", "1.2.3.4"},
		{"255.255.65535", "255.255.255.255"},
		{"255.16777215", "255.255.255.255"},
		{"", ""},
		{".", ""},
		{"1..2", ""},
		{"1.2.3.4..", ""},
		{".1.2.3", ""},
		{"a", ""},
		{"0x1g", ""},
		{"08", ""},
		{"1.2.3.256", ""},
		{"1.2.65536", ""},
		{"1.16777216", ""},
		{"4294967296", ""},
		{"1 .2", ""},
		{"+1", ""},
	}
	for _, tt := range tests {
		got, err := ParseIPv4(tt.in)
		if tt.want == "" {
			if !errors.Is(err, ErrHost) {
				t.Errorf("ParseIPv4(%q) = %v, %v; want ErrHost", tt.in, got, err)
			}
			continue
		}
		if err != nil || got.String() != tt.want {
			t.Errorf("ParseIPv4(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestOrigin(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"http://example.com", "http://example.com", ""},
		{"HTTPS://WWW.Example.COM/", "https://www.example.com", ""},
		{" https://example.com:443 ", "https://example.com", ""},
		{"http://example.com:8080", "http://example.com:8080", ""},
		{"http://example.com:080", "http://example.com", ""},
		{"https://Bücher.example", "https://xn--bcher-kva.example", ""},
		{"http://[::1]:8080/", "http://[::1]:8080", ""},
		{"http://0x7f.1", "http://127.0.0.1", ""},
		{"ftp://example.com", "", "not an http"},
		{"example.com", "", "not an http"},
		{"http://", "", "no host"},
		{"http://u:p@example.com", "", "no user name"},
		{"http://example.com/a", "", "no path"},
		{"http://example.com/?q", "", "no path"},
		{"http://example.com#f", "", "no path"},
		{"http://example.com:0", "", "port"},
		{"http://example.com:70000", "", "port"},
		{"http://a b.example", "", ""}, // any error
	} {
		got, err := Origin(tc.in)
		switch {
		case tc.want != "" && (err != nil || got != tc.want):
			t.Errorf("Origin(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		case tc.want == "" && err == nil:
			t.Errorf("Origin(%q) = %q, want an error", tc.in, got)
		case tc.want == "" && !strings.Contains(err.Error(), tc.err):
			t.Errorf("Origin(%q): %v, want %q", tc.in, err, tc.err)
		}
		if err != nil && strings.Contains(err.Error(), ":p@") {
			t.Errorf("Origin(%q): the error quotes user info: %v", tc.in, err)
		}
	}
}

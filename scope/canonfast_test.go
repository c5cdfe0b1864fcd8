package scope

import "testing"

func TestIsCanonical(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"http://example.com/", true},
		{"https://www.example.com/a/b.html?x=1&y=2", true},
		{"http://127.0.0.1:8080/p/12.html", true},
		{"http://10.0.0.255/", true},
		{"https://a-b.example.org:8443/x;y=1,2/@me:~$+", true},
		{"http://example.com/?a=/b?c", true},
		{"http://example.com", false},            // no path
		{"HTTP://example.com/", false},           // scheme case
		{"http://Example.com/", false},           // host case
		{"http://example.com./", false},          // trailing dot
		{"http://a..b/", false},                  // empty label
		{"http://xn--bcher-kva.example/", false}, // punycode: IDNA checks it
		{"http://example.xn--p1ai/", false},      // punycode last label
		{"http://example.com:80/", false},        // default port
		{"https://example.com:443/", false},      // default port
		{"http://example.com:080/", false},       // leading zero
		{"http://example.com:65536/", false},     // port out of range
		{"http://example.com:/", false},          // empty port
		{"http://2130706433/", false},            // a number read as IPv4
		{"http://127.1/", false},                 // short IPv4
		{"http://0177.0.0.1/", false},            // octal
		{"http://256.1.1.1/", false},             // out of range
		{"http://example.com/a//b", false},       // kept in one flavour, not the other
		{"http://example.com/a/./b", false},      // dot segment
		{"http://example.com/a/..", false},       // dot segment at the end
		{"http://example.com/a%20b", false},      // escape
		{"http://example.com/a b", false},        // space
		{"http://example.com/a?", false},         // empty query
		{"http://example.com/a#f", false},        // fragment
		{"http://example.com/a?b#f", false},      // fragment
		{"http://example.com/(a)", false},        // escaped by the long way
		{"http://user@example.com/", false},      // userinfo
		{"http://[::1]/", false},                 // IPv6
		{"ftp://example.com/", false},            // scheme
		{" http://example.com/", false},          // space to trim
		{"http://example.com/a\\b", false},       // backslash
		{"http://example.com/?q=%41", false},     // escape in the query
		{"http://exa_mple.com/", false},          // underscore
	}
	for _, tt := range tests {
		if got := isCanonical(tt.url); got != tt.want {
			t.Errorf("isCanonical(%q) = %v, want %v", tt.url, got, tt.want)
		}
		checkCanonical(t, tt.url)
	}
}

// checkCanonical fails when isCanonical accepts raw but the long way changes it or refuses it,
// in either flavour.
func checkCanonical(t *testing.T, raw string) {
	t.Helper()
	if !isCanonical(raw) {
		return
	}
	for _, f := range []Flavour{Standard, Brozzler} {
		if got, err := canonicalize(raw, f); err != nil || got != raw {
			t.Errorf("isCanonical(%q) but the %s canonical form is %q (err %v)", raw, f, got, err)
		}
	}
}

func FuzzIsCanonical(f *testing.F) {
	for _, s := range []string{"http://example.com/", "https://a.b:8080/x?y=1&z=/", "http://1.2.3.4/a;b", "http://a.b/.~$+,;=:@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		checkCanonical(t, raw)
	})
}

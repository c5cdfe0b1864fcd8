package crawl

import (
	"net/url"
	"testing"
)

// hostKeyReference is hostKey by url.Parse alone.
func hostKeyReference(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return u.Host
}

func TestHostKey(t *testing.T) {
	tests := []struct {
		in, want string
		plain    bool // read by plainHost
	}{
		{"http://example.com/", "example.com", true},
		{"https://www.example.com:8443/a/b?c=d#e", "www.example.com:8443", true},
		{"http://127.0.0.1:40909/p/12.html", "127.0.0.1:40909", true},
		{"http://a.b", "a.b", true},
		{"http://a.b?q", "a.b", true},
		{"http://a.b#f", "a.b", true},
		{"http://a:/", "a:", true},
		{"http://:80/", ":80", true},
		{"http:///x", "", true},
		{"http://example.com/caf\u00e9", "example.com", true},
		{"http://Example.com/", "Example.com", false},
		{"HTTP://example.com/", "example.com", false},
		{"http://user@example.com/", "example.com", false},
		{"http://[::1]:80/", "[::1]:80", false},
		{"http://a:8x/", "", false},   // invalid port
		{"http://a:1:2/", "", false},  // invalid port
		{"http://a/%zz", "", false},   // invalid escape
		{"http://a/%41", "a", false},  // escapes go to url.Parse
		{"http://a/b\x01", "", false}, // control byte
		{"http://a b/", "", false},    // space in the host
		{"http://a/ b", "a", false},   // space in the path
		{"ftp://example.com/", "example.com", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := hostKey(tt.in); got != tt.want {
			t.Errorf("hostKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if _, ok := plainHost(tt.in); ok != tt.plain {
			t.Errorf("plainHost(%q) ok = %v, want %v", tt.in, ok, tt.plain)
		}
		if ref := hostKeyReference(tt.in); ref != tt.want {
			t.Errorf("reference(%q) = %q, want %q", tt.in, ref, tt.want)
		}
	}
}

func FuzzHostKey(f *testing.F) {
	for _, s := range []string{"http://example.com/", "https://a.b:1/c?d#e", "http://a:/", "http:///", "http://a/%zz", "http://u@h/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := hostKey(s), hostKeyReference(s); got != want {
			t.Fatalf("hostKey(%q) = %q, url.Parse reads %q", s, got, want)
		}
	})
}

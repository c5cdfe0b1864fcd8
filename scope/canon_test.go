package scope

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/purell"
)

func TestCanonicalize(t *testing.T) {
	tests := []struct {
		in       string
		standard string // "" = error
		brozzler string // "" = same as standard
	}{
		// §2.1, item by item.
		{"  HTTP://WWW.Example.COM  ", "http://www.example.com/", ""},                          // trim, lowercase scheme and host
		{"http://bücher.ch/", "http://xn--bcher-kva.ch/", ""},                                  // IDN to punycode
		{"http://BÜCHER.ch./", "http://xn--bcher-kva.ch/", ""},                                 // IDN mapping, trailing dot
		{"http://example.com./x", "http://example.com/x", ""},                                  // trailing dot
		{"http://example.com../x", "http://example.com/x", ""},                                 // all trailing dots (idempotent)
		{"http://example.com:80/a", "http://example.com/a", ""},                                // default port
		{"https://example.com:443/", "https://example.com/", ""},                               // default port
		{"http://example.com:443/", "http://example.com:443/", ""},                             // :443 is only default for https
		{"https://example.com:80/", "https://example.com:80/", ""},                             // :80 is only default for http
		{"http://example.com:0080/", "http://example.com/", ""},                                // port numerically
		{"http://example.com:/", "http://example.com/", ""},                                    // empty port
		{"http://example.com", "http://example.com/", ""},                                      // empty path
		{"http://example.com?q", "http://example.com/?q", ""},                                  // empty path with query
		{"http://example.com/a/./b/../c", "http://example.com/a/c", ""},                        // dot segments
		{"http://example.com/a/b/..", "http://example.com/a/", ""},                             // dot segments
		{"http://example.com/..", "http://example.com/", ""},                                   // above the root
		{"http://example.com/a#frag", "http://example.com/a", ""},                              // fragment
		{"http://example.com/a?b=1#f?g", "http://example.com/a?b=1", ""},                       // fragment after query
		{"http://example.com/%7Euser/%41", "http://example.com/~user/A", ""},                   // unnecessary escapes
		{"http://example.com/t%ef", "http://example.com/t%EF", ""},                             // uppercase escapes
		{"http://example.com/a b", "http://example.com/a%20b", ""},                             // necessary escapes
		{"http://example.com/é?é", "http://example.com/%C3%A9?%C3%A9", ""},                     // non-ASCII path and query
		{"http://example.com/?q=a b&r=%2f", "http://example.com/?q=a%20b&r=%2F", ""},           // query: escape, uppercase, no decoding
		{"http://example.com/100%", "http://example.com/100%25", ""},                           // stray percent
		{"http://example.com/?", "http://example.com/", ""},                                    // empty query separator
		{`http://example.com\a\b?x=\y`, `http://example.com/a/b?x=\y`, ""},                     // backslashes before ?
		{`http:\\example.com\a`, "http://example.com/a", ""},                                   // backslashes in the authority too
		{"http://example.com/Path/File.HTML?Q=A", "http://example.com/Path/File.HTML?Q=A", ""}, // case kept
		{"http://example.com/a//b", "http://example.com/a//b", "http://example.com/a/b"},       // // kept (standard) / collapsed (brozzler)
		{"http://example.com//", "http://example.com//", "http://example.com/"},
		{"http://exa\tmple.com/a\nb", "http://example.com/ab", ""}, // tabs and newlines removed
		{"http://user:p%41ss@Example.com/x", "http://user:pAss@example.com/x", ""},
		{"http://[::FFFF:1.2.3.4]:8080/", "http://[::ffff:1.2.3.4]:8080/", ""},
		{"http://1.2.3.4/", "http://1.2.3.4/", ""},
		{"http://a_b.example/", "http://a_b.example/", ""},
		{"HTTPS://Example.com:8443/App/", "https://example.com:8443/App/", ""},
		// One policy with fetch and extract (package weburl): WHATWG trimming, controls
		// encoded, UTS #46 mapping.
		{"\x00 http://example.com/a \x1f", "http://example.com/a", ""},             // C0 controls trimmed
		{"http://example.com/a\u00a0", "http://example.com/a%C2%A0", ""},           // a no-break space is not trimmed
		{"\u00a0http://example.com/", "", ""},                                      // ... so this is no URL
		{"http://example.com/a\x01b?c\x7fd", "http://example.com/a%01b?c%7Fd", ""}, // controls inside encoded
		{"http://a b@example.com/", "http://a%20b@example.com/", ""},
		{"http://ｅ_x.example/", "http://e_x.example/", ""}, // mapped although '_' is not STD3
		{"http://a\u200cb\u00e9.example/", "", ""},         // IDNA refuses it: no fallback
		// Numeric hosts are the IPv4 addresses browsers read (WHATWG URL IPv4 parser).
		{"http://2130706433/", "http://127.0.0.1/", ""},
		{"http://0x7f.1/", "http://127.0.0.1/", ""},
		{"http://127.1/", "http://127.0.0.1/", ""},
		{"http://0177.0.0.1/", "http://127.0.0.1/", ""},
		{"http://0x7F000001/", "http://127.0.0.1/", ""},
		{"http://127.0.0.1./", "http://127.0.0.1/", ""},
		{"http://0x7f.1../x", "http://127.0.0.1/x", ""}, // all trailing dots first (idempotent)
		{"HTTP://0X7F.0.0.1:80/a?b#c", "http://127.0.0.1/a?b", ""},
		{"https://0xc0.0250.01:8443/", "https://192.168.0.1:8443/", ""},
		{"http://u:p@017700000001/", "http://u:p@127.0.0.1/", ""},
		{"http://0x/", "http://0.0.0.0/", ""},      // "0x" alone is the number 0
		{"http://１２７。１/", "http://127.0.0.1/", ""}, // full-width, after IDNA mapping
		{"http://4294967295/", "http://255.255.255.255/", ""},
		{"http://10000000000.com/", "http://10000000000.com/", ""}, // last label not a number: a name
		{"http://0x7f.0.0.0x7g/", "http://0x7f.0.0.0x7g/", ""},
		{"http://1.2.3.4.5/", "", ""}, // ends in a number, no IPv4 address: invalid
		{"http://foo.0x/", "", ""},
		{"http://foo.09/", "", ""},
		{"http://example.123/", "", ""},
		{"http://256.0.0.1/", "", ""},
		{"http://4294967296/", "", ""},
		{"http://1.2.3.08/", "", ""},
		{"http://[::1]/", "http://[::1]/", ""}, // IPv6 literals as before
		{"http://[::127.0.0.1]:81/", "http://[::127.0.0.1]:81/", ""},
		// Other schemes: only scheme case and fragment.
		{"mailto:Foo@Example.com", "mailto:Foo@Example.com", ""},
		{"JavaScript:void(0)#x", "javascript:void(0)", ""},
		{"FTP://Example.com/a#b", "ftp://Example.com/a", ""},
		// Errors.
		{"", "", ""},
		{"/relative/path", "", ""},
		{"//example.com/x", "", ""},
		{"http://", "", ""},
		{"http:///x", "", ""},
		{"http:foo", "", ""},
		{"http://exa mple.com/", "", ""},
		{"http://example.com:99999/", "", ""},
		{"http://example.com:x/", "", ""},
		{"http://.../", "", ""},
		{"http://a,b.com/", "", ""},
		{"http://[fe80::1%25en0]/", "", ""},
	}
	for _, tt := range tests {
		for _, f := range []Flavour{Standard, Brozzler} {
			want := tt.standard
			if f == Brozzler && tt.brozzler != "" {
				want = tt.brozzler
			}
			t.Run(string(f)+"/"+tt.in, func(t *testing.T) {
				got, err := Canonicalize(tt.in, f)
				if want == "" {
					if !errors.Is(err, ErrURL) {
						t.Fatalf("Canonicalize(%q) = %q, %v; want an ErrURL", tt.in, got, err)
					}
					return
				}
				if err != nil || got != want {
					t.Fatalf("Canonicalize(%q) = %q, %v; want %q", tt.in, got, err, want)
				}
				again, err := Canonicalize(got, f)
				if err != nil || again != got {
					t.Fatalf("not idempotent: Canonicalize(%q) = %q, %v", got, again, err)
				}
			})
		}
	}
}

func TestSURT(t *testing.T) {
	tests := []struct{ in, want string }{
		// §2.2 table (the URL is canonicalised first).
		{"http://www.archive.org", "http://(org,archive,www,)/"},
		{"http://www.archive.org:8080/movies/movies.php", "http://(org,archive,www,:8080)/movies/movies.php"},
		{"http://user:pass@www.archive.org/x", "http://(org,archive,www,@user:pass)/x"},
		{"http://127.2.34.5/foo", "http://(127.2.34.5)/foo"},
		{"http://archive.org/ABOUT/Team.html", "http://(org,archive,)/about/team.html"},
		{"http://bücher.ch/", "http://(ch,xn--bcher-kva,)/"},
		// More: scheme kept, query not sorted, www kept, IPv6 not reversed.
		{"https://archive.org/", "https://(org,archive,)/"},
		{"http://archive.org/x?b=2&a=1", "http://(org,archive,)/x?b=2&a=1"},
		{"http://[::1]:8080/", "http://([::1]:8080)/"},
		{"http://localhost/", "http://(localhost,)/"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := Canonicalize(tt.in, Standard)
			if err != nil {
				t.Fatal(err)
			}
			if got := surtOf(c); got != tt.want {
				t.Errorf("SURT(%q) = %q, want %q", c, got, tt.want)
			}
		})
	}
}

func TestSSURT(t *testing.T) {
	tests := []struct{ in, want string }{
		// §2.3 examples.
		{"http://foo.example.org/path?q", "org,example,foo,//http:/path?q"},
		{"https://example.com:8443/app/", "com,example,//8443:https:/app/"},
		// Userinfo, case kept, query sorted on &, IP addresses.
		{"https://user@example.com:8443/App/", "com,example,//8443:https@user:/App/"},
		{"http://example.com/P?b=2&a=1&A=0", "com,example,//http:/P?A=0&a=1&b=2"},
		{"http://www.example.com/", "com,example,www,//http:/"},
		{"http://10.0.0.1/x", "10.0.0.1//http:/x"},
		{"http://[::1]/x", "[::1]//http:/x"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := Canonicalize(tt.in, Brozzler)
			if err != nil {
				t.Fatal(err)
			}
			if got := ssurtOf(c); got != tt.want {
				t.Errorf("SSURT(%q) = %q, want %q", c, got, tt.want)
			}
		})
	}
}

func TestSeedPrefix(t *testing.T) {
	// §3.1 table, and the traps around it.
	tests := []struct{ seed, want string }{
		{"https://archive.org/", "http://(org,archive,)/"},
		{"https://archive.org/about.html", "http://(org,archive,)/"},
		{"https://archive.org/about", "http://(org,archive,)/"},
		{"https://archive.org/about/", "http://(org,archive,)/about/"},
		{"http://ca.gov", "http://(gov,ca,"},
		{"http://www.ca.gov", "http://(gov,ca,www,"},
		{"http://example.com:8080/app/", "http://(com,example,:8080)/app/"},
		{"http://example.com:8080", "http://(com,example,:8080"},
		{"http://ca.gov?x=1", "http://(gov,ca,)/"},                               // a query makes a path: no subdomains
		{"http://ca.gov/a?next=/b/c", "http://(gov,ca,)/a?next=/b/"},             // cut after the last "/", query included
		{"http://example.com/search?q=a/b", "http://(com,example,)/search?q=a/"}, // (issue 9)
		{"http://example.com/search?q=ab", "http://(com,example,)/"},
		{"http://example.com/search?q=a%2Fb", "http://(com,example,)/"}, // an escaped slash is not a slash
		{"http://ca.gov/#top", "http://(gov,ca,)/"},                     // the fragment never counts
		{"http://ca.gov#top", "http://(gov,ca,"},
		{"http://Example.COM/Dir/Page.html", "http://(com,example,)/dir/"}, // lowercased
		{"http://1.2.3.4/x/", "http://(1.2.3.4)/x/"},
	}
	for _, tt := range tests {
		t.Run(tt.seed, func(t *testing.T) {
			c, err := Canonicalize(tt.seed, Standard)
			if err != nil {
				t.Fatal(err)
			}
			if got := seedPrefix(c, rawHasSlashPath(tt.seed)); got != tt.want {
				t.Errorf("prefix of %q = %q, want %q", tt.seed, got, tt.want)
			}
		})
	}
}

// surtOf is the scope SURT of a canonical URL in its own scheme (spec/scope.md §2.2).
func surtOf(canonical string) string {
	p, ok := split(canonical)
	if !ok {
		return ""
	}
	return string(appendSURT(nil, &p, surtForm{}))
}

// ssurtOf is the SSURT of a canonical URL (spec/scope.md §2.3).
func ssurtOf(canonical string) string {
	p, ok := split(canonical)
	if !ok {
		return ""
	}
	return string(appendSSURT(nil, &p))
}

// purellDotSegments is what purell's FlagRemoveDotSegments makes of path p (with a host),
// and what purell makes of p without it: both escaped by purell, as Canonicalize's
// result is.
func purellDotSegments(p string) (resolved, plain string) {
	norm := func(p string, f purell.NormalizationFlags) string {
		u := &url.URL{Scheme: "http", Host: "h", Path: p}
		return strings.TrimPrefix(purell.NormalizeURL(u, f), "http://h")
	}
	return norm(p, purell.FlagRemoveDotSegments), norm(removeDotSegments(p), 0)
}

func TestRemoveDotSegments(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/", "/"},
		{"/a/b", "/a/b"},
		{"a", "/a"},
		{"/a/./b/../c", "/a/c"},
		{"/a/b/..", "/a/"},
		{"/a/b/.", "/a/b/"},
		{"/..", "/"},
		{"/../..", "/"},
		{"/a/../../b", "/b"},
		{"//..", "/"},
		{"///..", "/"},
		{"////..", "//"},
		{"/a//../b", "/a/b"},
		{"/.a/..b/.../a.", "/.a/..b/.../a."},
		{"/a/..", "/"},
		{"..", "/"},
		{".", "/"},
		{"./a", "/a"},
		{"/a/b/c/../../..", "/"},
		{"/a/b/c/./../../g", "/a/g"},
		{"/" + strings.Repeat("../", 1000), "/"},
	}
	for _, tt := range tests {
		got := removeDotSegments(tt.in)
		if got != tt.want {
			t.Errorf("removeDotSegments(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if want, got := purellDotSegments(tt.in); got != want {
			t.Errorf("removeDotSegments(%q) = %q, purell gives %q", tt.in, got, want)
		}
	}
}

func FuzzRemoveDotSegments(f *testing.F) {
	for _, s := range []string{"/a/./b/../c", "//..", "/a/..", "..", "/.a/../.", "a/b/../../.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if p == "" {
			return // Canonicalize makes an empty path "/" first
		}
		if want, got := purellDotSegments(p); got != want {
			t.Fatalf("removeDotSegments(%q) = %q, purell gives %q", p, got, want)
		}
	})
}

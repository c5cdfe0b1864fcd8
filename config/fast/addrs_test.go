package fast

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/scope"
)

// TestConvertAddrs: ipmask and ip6mask rules become ip scope rules decided on the address of
// the URL's host, enforce_delay_per_ip becomes politeness.per_ip (FAST's default yes, not
// through a proxy), mirror_site_files becomes urls.mirrors.
func TestConvertAddrs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mirrors.txt"), []byte("www.example.com mirror.example.com\n# more\nb.example.org old.b.example.org\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hosts.txt"), []byte("ipmask:192.0.2.0:255.255.255.0\nip6mask:2001:db8::/32\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type check struct {
		url, addr string
		in        bool
	}
	tests := []struct {
		name    string
		body    string
		checks  []check
		perIP   bool
		mirrors [][]string
		note    string // a note this names
	}{
		{"include_domains ipmask", section("include_domains", members("ipmask", "207.46.197.0-100")), []check{
			{"http://other.example.org/a", "207.46.197.50", true},
			{"http://other.example.org/a", "207.46.197.101", false},
			{"http://other.example.org/a", "", false}, // no address: no-address
		}, true, nil, ""},
		{"include_domains ip6mask with an exact host: either lets a URL in", section("include_domains", members("ip6mask", "2002:CF2E:C500:0:0:0:0/60"), members("exact", "a.example.org")), []check{
			{"http://b.example.org/", "2002:cf2e:c500::1", true},
			{"http://a.example.org/", "10.0.0.1", true},
			{"http://b.example.org/", "2002:cf2e:c600::1", false},
		}, true, nil, ""},
		{"exclude_domains ipmask", section("exclude_domains", members("ipmask", "10.0.0.0/8")), []check{
			{"http://www.example.com/a", "10.1.1.1", false},
			{"http://www.example.com/a", "192.0.2.1", true},
		}, true, nil, ""},
		{"rule files", section("include_domains", members("file", "hosts.txt")), []check{
			{"http://x.example.net/", "192.0.2.200", true},
			{"http://x.example.net/", "2001:db8::5", true},
			{"http://x.example.net/", "198.51.100.1", false},
		}, true, nil, ""},
		{"ipmask and include_uris: both must hold", section("include_domains", members("ipmask", "10.0.0.0/8")) + section("include_uris", members("prefix", "http://x.example.net/docs/")), []check{
			{"http://x.example.net/docs/a", "10.0.0.1", true},
			{"http://x.example.net/other", "10.0.0.1", false},
			{"http://x.example.net/docs/a", "11.0.0.1", false},
		}, true, nil, ""},
		{"fwdlinks no: the start URIs' hosts at the mask's addresses", section("include_domains", members("ipmask", "10.0.0.0/8")) + section("crawlmode", attrib("fwdlinks", Boolean, "no")), []check{
			{"http://www.example.com/a", "10.0.0.1", true},
			{"http://www.example.com/a", "11.0.0.1", false},
			{"http://other.example.com/a", "10.0.0.1", false},
		}, true, nil, ""},
		{"enforce_delay_per_ip no", attrib("enforce_delay_per_ip", Boolean, "no"), nil, false, nil, ""},
		{"enforce_delay_per_ip yes", attrib("enforce_delay_per_ip", Boolean, "yes"), nil, true, nil, ""},
		{"enforce_delay_per_ip with a proxy", members("proxy", "proxy.example.org:3128"), nil, false, nil, "enforce_delay_per_ip"},
		{"mirror_site_files", members("mirror_site_files", "mirrors.txt"), nil, true,
			[][]string{{"www.example.com", "mirror.example.com"}, {"b.example.org", "old.b.example.org"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, err := convert(t, startURI+tt.body, ConvertOptions{BaseDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			cfg := cv.File
			if cfg.Politeness.PerIP != tt.perIP {
				t.Errorf("politeness.per_ip = %v, want %v", cfg.Politeness.PerIP, tt.perIP)
			}
			if !slices.EqualFunc(cfg.URLs.Mirrors, tt.mirrors, slices.Equal) {
				t.Errorf("urls.mirrors = %q, want %q", cfg.URLs.Mirrors, tt.mirrors)
			}
			if tt.note != "" && !slices.ContainsFunc(cv.Notes, func(n string) bool { return strings.Contains(n, tt.note) }) {
				t.Errorf("no note naming %q in:\n%s", tt.note, strings.Join(cv.Notes, "\n"))
			}
			if len(tt.checks) == 0 {
				return
			}
			sc, err := cfg.ScopeConfig(scope.Standard)
			if err != nil {
				t.Fatal(err)
			}
			s, err := scope.New(sc)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tt.checks {
				cand := scope.Candidate{URL: c.url, Hops: "L", Via: "http://www.example.com/", Seed: "http://www.example.com/"}
				if c.addr != "" {
					cand.Addr = netip.MustParseAddr(c.addr)
				}
				if d := s.Decide(cand); d.In != c.in {
					t.Errorf("%s at %q: in=%v (%s), want %v", c.url, c.addr, d.In, d.Reason, c.in)
				}
			}
		})
	}
}

// TestConvertAddrsInvalid: a malformed mask, one of the other family, a mirror file that is
// missing or not mirror groups are errors naming the attrib's line.
func TestConvertAddrsInvalid(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one.txt"), []byte("www.example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad-masks.txt"), []byte("ipmask:10.0.0.0/33\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, body string }{
		{"malformed ipmask", section("include_domains", members("ipmask", "10.0.0.0/33"))},
		{"the specification's 40-bit hex mask", section("exclude_domains", members("ipmask", "207.46.197.0:0xffffffff00"))},
		{"IPv6 in ipmask", section("include_domains", members("ipmask", "2001:db8::/32"))},
		{"IPv4 in ip6mask", section("exclude_domains", members("ip6mask", "10.0.0.0/8"))},
		{"malformed mask in a rule file", section("include_domains", members("file", "bad-masks.txt"))},
		{"missing mirror file", members("mirror_site_files", "none.txt")},
		{"mirror file with a group of one", members("mirror_site_files", "one.txt")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := convert(t, startURI+tt.body, ConvertOptions{BaseDir: dir})
			var fe *Error
			if !errors.Is(err, ErrInvalid) || !errors.As(err, &fe) || fe.Line == 0 {
				t.Errorf("convert = %v, want an invalid-attrib error with its line", err)
			}
		})
	}
}

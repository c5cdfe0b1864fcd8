package fast

import (
	"errors"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
	"github.com/amber-crawler/amber/scope"
)

// subDomain is a SubDomain element.
func subDomain(name string, body ...string) string {
	return `<SubDomain name="` + name + `">` + strings.Join(body, "") + `</SubDomain>`
}

// TestSubcollectionConvert: each subcollection (a SubDomain element, a section of
// subdomains) becomes an entry of subcollections with its settings, and its rules take the
// URLs FAST's rules would put in it; what amber cannot do is noted.
func TestSubcollectionConvert(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		want  []config.Subcollection // compared without Match and Except
		takes map[string][]string    // subcollection name -> URLs its rules take
		// leaves are URLs the rules of the only subcollection do not take.
		leaves []string
		notes  []string          // in the notes
		addrs  map[string]string // host -> its address, for ip rules (none: no address)
	}{
		{
			name: "settings of a SubDomain",
			body: subDomain("news",
				section("include_uris", members("prefix", "http://www.example.com/news/")),
				attrib("delay", Real, "2.5"), attrib("max_doc", Integer, "0"), attrib("cut_off", Integer, "1024"),
				members("headers", "X-Team: news", "User-Agent: newsbot"), attrib("use_javascript", Boolean, "no"),
				attrib("use_sitemaps", Boolean, "yes"), members("allowed_schemes", "HTTP", "https"),
				attrib("accept_compression", Boolean, "yes"), attrib("use_http_1_1", Boolean, "yes"),
				section("crawlmode", attrib("mode", String, "DEPTH:2"), attrib("fwdredirects", Boolean, "yes"))),
			want: []config.Subcollection{{Name: "news", Fetcher: "http", HostDelay: dur(2500 * time.Millisecond), URLsPerHost: new(int64(0)),
				ResponseSize: 1024, Headers: config.HeaderMap{"X-Team": "news", "User-Agent": "newsbot"}, Sitemaps: yes(),
				Schemes: []string{"http", "https"}, MaxHops: intp(2)}},
			takes:  map[string][]string{"news": {"http://www.example.com/news/", "http://www.example.com/news/2026/a.html"}},
			leaves: []string{"http://www.example.com/", "http://www.example.com/newsletter"},
		},
		{
			name: "domains and exclusions in subdomains",
			body: section("subdomains", section("intranet",
				section("include_domains", members("suffix", ".intra.example.com"), members("exact", "hr.example.com")),
				section("exclude_domains", members("prefix", "old.")),
				section("exclude_uris", members("regexp", `\.pdf$`)),
				attrib("delay", Real, "0"))),
			want:   []config.Subcollection{{Name: "intranet", HostDelay: dur(0)}},
			takes:  map[string][]string{"intranet": {"http://a.intra.example.com/", "https://hr.example.com/x"}},
			leaves: []string{"http://old.intra.example.com/", "http://hr.example.com/report.pdf", "http://www.example.com/", "http://intra.example.com.evil.example/"},
		},
		{
			name: "an exact host with a URI rule that does not fix its host",
			body: subDomain("s", section("include_domains", members("exact", "www.example.com")),
				section("include_uris", members("suffix", ".html"))),
			want:   []config.Subcollection{{Name: "s"}},
			takes:  map[string][]string{"s": {"http://www.example.com/a.html", "https://www.example.com:8443/b.html"}},
			leaves: []string{"http://www.example.com/a.php", "http://other.example.com/a.html"},
		},
		{
			name: "a suffix host with a URI suffix cannot be one rule",
			body: subDomain("s", section("include_domains", members("suffix", "example.com")),
				section("include_uris", members("suffix", ".html"))),
			want:   []config.Subcollection{{Name: "s"}},
			leaves: []string{"http://www.example.com/a.html"},
			notes:  []string{"unsupported-yet: SubDomain[s]/include_uris/suffix .html: amber cannot require both it and"},
		},
		{
			name: "rules of files",
			body: subDomain("s", section("include_domains", fileAttrib("lists/hosts.txt"))),
			want: []config.Subcollection{{Name: "s"}},
			takes: map[string][]string{"s": {"http://archive.example.org/", "http://www.museum.example/", "http://cdn.example.com/",
				"http://img42.example.net/"}},
			leaves: []string{"http://www.example.com/"},
		},
		{
			name: "the browser refuses headers and cut_off",
			body: subDomain("js", section("include_domains", members("exact", "app.example.com")),
				attrib("use_javascript", Boolean, "yes"), members("headers", "X-A: 1"), attrib("cut_off", Integer, "100")),
			want:  []config.Subcollection{{Name: "js", Fetcher: "browser"}},
			notes: []string{"refused: SubDomain[js]/headers, SubDomain[js]/cut_off=100: with use_javascript the browser"},
		},
		{
			name: "names amber takes, in file order",
			body: section("subdomains", section("a b", section("include_domains", members("exact", "a.example"))),
				section("a_b", section("include_domains", members("exact", "b.example")))) +
				subDomain("c", section("include_domains", members("exact", "c.example"))),
			want: []config.Subcollection{{Name: "a_b"}, {Name: "a_b-2"}, {Name: "c"}},
			takes: map[string][]string{"a_b": {"http://a.example/"}, "a_b-2": {"http://b.example/"},
				"c": {"http://c.example/"}},
			notes: []string{`differs: subdomains/"a b": amber names it a_b`},
		},
		{
			name: "a proxy beside a browser subcollection",
			body: subDomain("p", section("include_domains", members("exact", "p.example")), members("proxy", "proxy.example:3128")) +
				subDomain("js", section("include_domains", members("exact", "js.example")), attrib("use_javascript", Boolean, "yes")),
			want:  []config.Subcollection{{Name: "p"}, {Name: "js", Fetcher: "browser"}},
			notes: []string{"refused: SubDomain[p]/proxy: the crawl loads pages in the browser"},
		},
		{
			name:  "a proxy in an http crawl",
			body:  subDomain("p", section("include_domains", members("exact", "p.example")), members("proxy", "proxy.example:3128")),
			want:  []config.Subcollection{{Name: "p", Proxy: &config.ProxySpec{URL: "http://proxy.example:3128"}}},
			takes: map[string][]string{"p": {"http://p.example/"}},
		},
		{
			name:  "no rules: every URL",
			body:  subDomain("all", attrib("delay", Real, "1")),
			want:  []config.Subcollection{{Name: "all", HostDelay: dur(time.Second)}},
			takes: map[string][]string{"all": {"http://www.example.com/", "https://x.example.org/y"}},
			notes: []string{"note: SubDomain[all]: no include_domains or include_uris"},
		},
		{
			name: "deeper than the collection",
			body: section("crawlmode", attrib("mode", String, "DEPTH:1")) +
				subDomain("s", section("crawlmode", attrib("mode", String, "DEPTH:3"))),
			want:  []config.Subcollection{{Name: "s"}},
			notes: []string{"unsupported-yet: SubDomain[s]/crawlmode/mode=DEPTH:3: deeper than the collection's DEPTH:1"},
		},
		{
			name:  "no http or https",
			body:  subDomain("s", members("allowed_schemes", "ftp")),
			want:  []config.Subcollection{{Name: "s"}},
			notes: []string{"refused: SubDomain[s]/allowed_schemes ftp", "unsupported-yet: SubDomain[s]/allowed_schemes: neither http nor https"},
		},
		{
			name: "address masks, alone and with a URI rule",
			body: section("subdomains",
				section("lan", section("include_domains", members("ipmask", "10.0.0.0/8")),
					section("exclude_domains", members("ipmask", "10.9.0.0-255"))),
				section("v6docs", section("include_domains", members("ip6mask", "2001:db8::/32")),
					section("include_uris", members("prefix", "http://docs.example.org/")))),
			want:  []config.Subcollection{{Name: "lan"}, {Name: "v6docs"}},
			takes: map[string][]string{"lan": {"http://a.example.com/"}, "v6docs": {"http://docs.example.org/x"}},
			leaves: []string{"http://b.example.com/", "http://other.example.org/x", "http://www.example.org/docs/",
				"http://unresolved.example.com/", "http://docs.example.org.example.net/x"},
			addrs: map[string]string{"a.example.com": "10.1.2.3", "b.example.com": "10.9.0.7",
				"docs.example.org": "2001:db8::1", "other.example.org": "2001:db8::2", "www.example.org": "2001:db8::3",
				"docs.example.org.example.net": "2001:db8::4"},
		},
		{
			name:  "http/1.0 refused",
			body:  subDomain("s", attrib("use_http_1_1", Boolean, "no"), attrib("accept_compression", Boolean, "no")),
			want:  []config.Subcollection{{Name: "s"}},
			notes: []string{"refused: SubDomain[s]/use_http_1_1=no", "unsupported-yet: SubDomain[s]/accept_compression=no"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, err := convert(t, startURI+tt.body, ConvertOptions{BaseDir: ruleDir})
			if err != nil {
				t.Fatalf("Convert: %v", err)
			}
			got := cv.File.Subcollections
			rules, err := cv.File.CheckSubcollections(func(string) (string, bool) { return "", false })
			if err != nil {
				t.Fatalf("the converted subcollections do not check: %v", err)
			}
			var bare []config.Subcollection
			for _, s := range got {
				s.Match, s.Except = nil, nil
				bare = append(bare, s)
			}
			if diff := cmp.Diff(tt.want, bare); diff != "" {
				t.Errorf("subcollections (-want +got):\n%s", diff)
			}
			in := func(u string) string { return subOf(t, rules, u, tt.addrs) }
			for name, us := range tt.takes {
				for _, u := range us {
					if g := in(u); g != name {
						t.Errorf("%s is in %q, want %q", u, g, name)
					}
				}
			}
			for _, u := range tt.leaves {
				if g := in(u); g != "" {
					t.Errorf("%s is in %q, want none", u, g)
				}
			}
			all := strings.Join(cv.Notes, "\n")
			for _, n := range tt.notes {
				if !strings.Contains(all, n) {
					t.Errorf("no note %q in:\n%s", n, all)
				}
			}
		})
	}
}

// subOf is the name of the first subcollection whose rules take u ("" for none), matched as
// the crawl matches them: block rules of a scope, ip rules on the address addrs gives u's host.
func subOf(t *testing.T, rules []config.SubcollectionRules, u string, addrs map[string]string) string {
	t.Helper()
	cu, err := scope.Canonicalize(u, scope.Standard)
	if err != nil {
		t.Fatal(err)
	}
	pu, err := url.Parse(cu)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := netip.ParseAddr(addrs[pu.Hostname()]) // none: the zero Addr
	takes := func(rs []scope.Rule) bool {
		s, err := scope.New(scope.Config{Block: rs})
		if err != nil {
			t.Fatal(err)
		}
		d := s.Decide(scope.Candidate{URL: cu, Hops: "E", Addr: addr})
		return !d.In && strings.HasPrefix(d.Reason, scope.ReasonBlockPrefix)
	}
	for _, r := range rules {
		if (len(r.MatchRules) == 0 || takes(r.MatchRules)) && (len(r.ExceptRules) == 0 || !takes(r.ExceptRules)) {
			return r.Name
		}
	}
	return ""
}

// TestSubcollectionRuleFileErrors: a subcollection's rule file is read as the collection's:
// one that cannot be read is an error at its attrib.
func TestSubcollectionRuleFileErrors(t *testing.T) {
	body := startURI + section("subdomains", section("s", section("include_domains", fileAttrib("no-such.txt"))))
	_, err := convert(t, body, ConvertOptions{BaseDir: ruleDir})
	var fe *Error
	if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("Convert: %v, want an *Error wrapping ErrInvalid", err)
	}
	want := "CrawlerConfig/DomainSpecification[name=c]/section[name=subdomains]/section[name=s]/section[name=include_domains]/attrib[name=file]"
	if fe.Path != want || !strings.Contains(fe.Msg, filepath.Join(ruleDir, "no-such.txt")) {
		t.Errorf("error at %s (%s), want %s naming the file", fe.Path, fe.Msg, want)
	}
}

// TestSubcollectionRenderSecrets: Render writes a subcollection's proxy password and Cookie
// as env: references listed under Secrets; the conversion itself keeps them for amber crawl.
func TestSubcollectionRenderSecrets(t *testing.T) {
	body := startURI + subDomain("s", section("include_domains", members("exact", "a.example")),
		members("proxy", "http://bob:pr0xy-pw@proxy.example:3128"), members("headers", "Cookie: sid=s3cr3t", "X-A: 1"))
	cv, err := convert(t, body, ConvertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := cv.File.Subcollections[0]; s.Proxy == nil || s.Proxy.Password != "pr0xy-pw" || s.Headers["Cookie"] != "sid=s3cr3t" {
		t.Fatalf("converted subcollection %+v: want the password and cookie as given", s)
	}
	out, err := Render(cv, "t.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"pr0xy-pw", "s3cr3t", "***"} {
		if strings.Contains(string(out), secret) {
			t.Errorf("rendering holds %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{"password: env:AMBER_SUB_0_PROXY_PASSWORD", "Cookie: env:AMBER_SUB_0_COOKIE",
		"# - AMBER_SUB_0_PROXY_PASSWORD: the password of SubDomain[s]/proxy", "# - AMBER_SUB_0_COOKIE: the Cookie of SubDomain[s]/headers"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("rendering lacks %q:\n%s", want, out)
		}
	}
}

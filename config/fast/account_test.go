package fast

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/config"
)

// refusedInExamples names, for each of the specification's §3 examples, the attribs and
// sections amber does not do as they say: those under "Refused" in the rendering, and those a
// strict conversion fails on. The others are all mapped, the same as amber's behaviour,
// different as said, or ignored.
var refusedInExamples = map[string][]string{
	"01-simple": {"crawlmode/fwdredirects"}, // no: amber follows a page's redirect to any host
	"02-typical": {
		"extract_links_from_dupes", // no: amber reads the links of duplicates too
		"ftp_errors", "ftp_errors/4xx", "ftp_errors/550", "ftp_errors/5xx", "ftp_errors/int", "ftp_errors/net", "ftp_errors/ttl",
		"link_extraction/card", "link_extraction/go", // yes: no WML
		"link_extraction/embed", "link_extraction/img", // no: amber archives embeds
		"link_extraction/layer", "link_extraction/meta", // yes: not read
		"refresh", // refresh cycles
	},
	"03a-subcollection-element": {"SubDomain[subdomain_1]/refresh"},
	"03b-subcollection-section": {"subdomains/subdomain_1/refresh"},
	"04-login":                  nil,
	"05-node":                   nil,
	"06-workqueue":              nil,
	"07-variable-delay":         nil,
	"08-http-errors":            nil,
	"09-passwd":                 nil,
	"10-site-clustering":        nil,
	"11-post-payload":           nil,
	"12-feeding":                nil,
}

// TestExamplesAccount checks the account of each §3 example as amber config convert prints
// it: every attrib, section and element of the file (read here from the XML) is named under
// exactly one of the five headings, once, and nothing else is; those under "Refused" are
// refusedInExamples' and a strict conversion fails on exactly those, each error naming one.
func TestExamplesAccount(t *testing.T) {
	files, err := filepath.Glob("testdata/examples/*.xml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(refusedInExamples) {
		t.Fatalf("%d examples, want %d", len(files), len(refusedInExamples))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".xml")
		t.Run(name, func(t *testing.T) {
			want, ok := refusedInExamples[name]
			if !ok {
				t.Fatalf("refusedInExamples has no %s", name)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			names := xmlNames(t, data)
			_, cv, err := Load(f, "", false)
			if err != nil {
				t.Fatal(err)
			}
			out, err := Render(cv, f)
			if err != nil {
				t.Fatal(err)
			}
			heads := accountHeadings(t, out)
			under := map[string][]config.Disposition{}
			for d, tokens := range heads {
				for _, tok := range tokens {
					n := matchName(tok, names)
					if n == "" {
						t.Errorf("%s: %q names no attrib, section or element of the file", d, tok)
						continue
					}
					under[n] = append(under[n], d)
				}
			}
			var refused []string
			for _, n := range names {
				switch ds := under[n]; {
				case len(ds) != 1:
					t.Errorf("%s: under %v, want one heading, once", n, ds)
				case ds[0] == config.Refused:
					refused = append(refused, n)
				}
			}
			if diff := cmp.Diff(sorted(want), sorted(refused)); diff != "" {
				t.Errorf("refused (-want +got):\n%s", diff)
			}

			_, _, err = Load(f, "", true)
			if len(want) == 0 {
				if err != nil {
					t.Errorf("strict: %v, want no error", err)
				}
				return
			}
			if !errors.Is(err, ErrNotMapped) {
				t.Fatalf("strict: %v, want ErrNotMapped", err)
			}
			var failed []string
			for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
				var fe *Error
				if !errors.As(e, &fe) {
					t.Fatalf("%v is not an *Error", e)
				}
				toks := splitNames(fe.Msg)
				if len(toks) != 1 {
					t.Errorf("strict error %q names %d entries, want one", fe.Msg, len(toks))
					continue
				}
				failed = append(failed, matchName(toks[0], names))
			}
			if diff := cmp.Diff(sorted(want), sorted(failed)); diff != "" {
				t.Errorf("strict errors (-want +got):\n%s", diff)
			}
		})
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// xmlNames reads the names of every attrib, section and element (SubDomain, Login, Node) of
// the DomainSpecification of a FAST file, as the account names them: section names joined
// with "/", an element as Element[name], a name holding a slash, a quote or space quoted.
func xmlNames(t *testing.T, data []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false // §3.11 holds a bare &, as Parse reads it
	var stack, names []string
	depth := 0 // of elements under the DomainSpecification's
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			depth++
			if el.Name.Local == "CrawlerConfig" || el.Name.Local == "DomainSpecification" || el.Name.Local == "member" {
				stack = append(stack, "")
				continue
			}
			var name string
			for _, a := range el.Attr {
				if a.Name.Local == "name" {
					name = strings.TrimSpace(a.Value)
				}
			}
			part := quoteName(name)
			if el.Name.Local != "attrib" && el.Name.Local != "section" {
				part = el.Name.Local + "[" + name + "]"
			}
			var path []string
			for _, p := range stack {
				if p != "" {
					path = append(path, p)
				}
			}
			names = append(names, strings.Join(append(path, part), "/"))
			stack = append(stack, part)
		case xml.EndElement:
			depth--
			stack = stack[:len(stack)-1]
		}
	}
	if depth != 0 || len(names) == 0 {
		t.Fatalf("read %d names, depth %d at the end", len(names), depth)
	}
	return names
}

// accountHeadings reads the account of a rendering: the names listed under each heading.
func accountHeadings(t *testing.T, out []byte) map[config.Disposition][]string {
	t.Helper()
	heads := map[string]config.Disposition{}
	for d, h := range accountHeads {
		heads["# "+h] = d
	}
	_, acc, ok := strings.Cut(string(out), "\n# What amber makes of each attrib, section and element of the file")
	if !ok {
		t.Fatalf("no account in the rendering:\n%s", out)
	}
	got := map[config.Disposition][]string{}
	seen := map[config.Disposition]bool{}
	var cur config.Disposition
	for _, l := range strings.Split(acc, "\n")[1:] {
		if l == "" {
			break // the end of the account
		}
		if d, ok := heads[l]; ok {
			cur, seen[d] = d, true
			continue
		}
		if rest, ok := strings.CutPrefix(l, "# - "); ok {
			if cur == "" {
				t.Fatalf("a line before any heading: %q", l)
			}
			got[cur] = append(got[cur], splitNames(rest)...)
		}
	}
	if len(seen) != len(config.Dispositions) {
		t.Errorf("the account has %d headings, want %d:\n%s", len(seen), len(config.Dispositions), acc)
	}
	return got
}

// splitNames returns the names of an account line, "NAME, NAME=VALUE: ...": those before the
// first ": " outside quotes, separated by ", " outside quotes.
func splitNames(line string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(line); i++ {
		switch {
		case quoted && line[i] == '\\':
			i++
		case line[i] == '"':
			quoted = !quoted
		case !quoted && strings.HasPrefix(line[i:], ", "):
			out = append(out, line[start:i])
			start = i + 2
			i++
		case !quoted && strings.HasPrefix(line[i:], ": "):
			return append(out, line[start:i])
		}
	}
	return append(out, line[start:])
}

// matchName returns the name of names that tok, "NAME" or "NAME=VALUE", names; "" for none.
func matchName(tok string, names []string) string {
	for _, n := range names {
		if tok == n || strings.HasPrefix(tok, n+"=") {
			return n
		}
	}
	return ""
}

// TestAccount checks the disposition the account gives attribs whose answer depends on the
// value, on another attrib or on the fetcher, with the amber keys it names.
func TestAccount(t *testing.T) {
	type want struct {
		key   string // the entry's Key
		d     config.Disposition
		amber []string
	}
	same := func(key string) want { return want{key: key, d: config.Same} }
	refused := func(key string) want { return want{key: key, d: config.Refused} }
	tests := []struct {
		name string
		body string
		want []want
	}{
		{"values amber has or has not", attrib("accept_compression", Boolean, "yes") + attrib("use_http_1_1", Boolean, "no") +
			attrib("csum_cut_off", Integer, "0") + attrib("near_duplicate_detection", Boolean, "yes"),
			[]want{same("accept_compression=yes"), refused("use_http_1_1=no"), same("csum_cut_off=0"), refused("near_duplicate_detection=yes")}},
		{"the plain fetcher's links", section("link_extraction", attrib("a", Boolean, "yes"), attrib("action", Boolean, "yes"),
			attrib("frame", Boolean, "yes"), attrib("link", Boolean, "yes"), attrib("script_java", Boolean, "yes"), attrib("img", Boolean, "no"),
			attrib("comment", Boolean, "no")),
			[]want{same("link_extraction"), same("link_extraction/a=yes"), {key: "link_extraction/action=yes", d: config.Differs},
				same("link_extraction/frame=yes"), same("link_extraction/link=yes"), refused("link_extraction/script_java=yes"),
				refused("link_extraction/img=no"), same("link_extraction/comment=no")}},
		{"the browser's links", attrib("use_javascript", Boolean, "yes") + section("link_extraction", attrib("action", Boolean, "yes"),
			attrib("link", Boolean, "yes"), attrib("script_java", Boolean, "yes"), attrib("meta_refresh", Boolean, "yes")),
			[]want{{key: "use_javascript=yes", d: config.Differs, amber: []string{"fetcher"}}, refused("link_extraction/action=yes"),
				{key: "link_extraction/link=yes", d: config.Differs}, {key: "link_extraction/script_java=yes", d: config.Differs},
				same("link_extraction/meta_refresh=yes")}},
		{"the browser follows no form", attrib("use_javascript", Boolean, "yes") + section("link_extraction", attrib("action", Boolean, "no")),
			[]want{same("link_extraction/action=no")}},
		{"schemes", members("allowed_schemes", "http", "https"), []want{same("allowed_schemes")}},
		{"http only", members("allowed_schemes", "http"), []want{{key: "allowed_schemes", d: config.Mapped, amber: []string{"scope.block"}}}},
		{"ftp", members("allowed_schemes", "http", "ftp"), []want{refused("allowed_schemes")}},
		{"robots as amber's", attrib("robots_auth_ignore", Boolean, "yes") + attrib("robots_tout_ignore", Boolean, "no") + attrib("check_meta_robots", Boolean, "yes"),
			[]want{same("robots_auth_ignore=yes"), same("robots_tout_ignore=no"), same("check_meta_robots=yes")}},
		{"robots otherwise", attrib("robots_auth_ignore", Boolean, "no") + attrib("robots_tout_ignore", Boolean, "yes"),
			[]want{{key: "robots_auth_ignore=no", d: config.Mapped, amber: []string{"robots.disallow_on_auth"}},
				{key: "robots_tout_ignore=yes", d: config.Mapped, amber: []string{"robots.allow_on_timeout"}}}},
		{"without robots.txt", attrib("robots", Boolean, "no") + attrib("robots_ttl", Integer, "60"),
			[]want{{key: "robots=no", d: config.Mapped, amber: []string{"politeness.ignore_robots"}}, same("robots_ttl=60")}},
		{"conditional requests", attrib("if_modified_since", Boolean, "yes"), []want{{key: "if_modified_since=yes", d: config.Differs}}},
		{"no conditional requests", attrib("if_modified_since", Boolean, "no"), []want{same("if_modified_since=no")}},
		{"refresh", attrib("refresh", Real, "60") + attrib("refresh_mode", String, "scratch") + attrib("refresh_when_idle", Boolean, "yes"),
			[]want{refused("refresh=60"), same("refresh_mode=scratch"), refused("refresh_when_idle=yes")}},
		{"refresh adaptive", attrib("refresh_mode", String, "adaptive"), []want{refused("refresh_mode=adaptive")}},
		{"cookies", attrib("use_cookies", Boolean, "yes") + attrib("cookie_timeout", Integer, "60"),
			[]want{{key: "use_cookies=yes", d: config.Mapped, amber: []string{"cookies"}},
				{key: "cookie_timeout=60", d: config.Differs, amber: []string{"session_cookie_ttl"}}}},
		{"no cookies", attrib("cookie_timeout", Integer, "60"), []want{same("cookie_timeout=60")}},
		{"slacks without limits", section("limits", attrib("disk_free_slack", Integer, "3"), attrib("max_doc_slack", Integer, "1000")),
			[]want{{key: "limits", d: config.Mapped, amber: []string{"limits"}}, same("limits/disk_free_slack=3"), same("limits/max_doc_slack=1000")}},
		{"a slack with its limit", section("limits", attrib("max_doc", Integer, "10"), attrib("max_doc_slack", Integer, "5")),
			[]want{{key: "limits/max_doc=10", d: config.Differs, amber: []string{"limits.urls"}}, refused("limits/max_doc_slack=5")}},
		{"hops", section("crawlmode", attrib("mode", String, "DEPTH:2"), attrib("reset_level", Boolean, "no"), attrib("fwdredirects", Boolean, "yes")),
			[]want{{key: "crawlmode", d: config.Mapped, amber: []string{"scope"}}, {key: "crawlmode/mode=DEPTH:2", d: config.Differs, amber: []string{"scope.max_hops"}},
				same("crawlmode/reset_level=no"), same("crawlmode/fwdredirects=yes")}},
		{"hops restarted", section("crawlmode", attrib("mode", String, "DEPTH:2"), attrib("reset_level", Boolean, "yes")),
			[]want{refused("crawlmode/reset_level=yes")}},
		{"retries and index actions", section("http_errors", attrib("5xx", String, "DELETE:10, RETRY:3"), attrib("503", String, "RETRY:2")),
			[]want{{key: "http_errors", d: config.Mapped, amber: []string{"politeness.retries"}},
				{key: `http_errors/5xx="DELETE:10, RETRY:3"`, d: config.Differs, amber: []string{"politeness.retries.5XX"}},
				{key: "http_errors/503=RETRY:2", d: config.Mapped, amber: []string{"politeness.retries.503"}}}},
		{"passwd twice", section("passwd", attrib("https://a.example.org/", String, "jane:pw"), attrib("https://b.example.org/", String, "ann:pw"),
			attrib("https://a.example.org", String, "joe:pw2")),
			[]want{{key: `passwd/"https://a.example.org/"`, d: config.Differs},
				{key: `passwd/"https://b.example.org/"`, d: config.Differs, amber: []string{"auth[0]"}},
				{key: `passwd/"https://a.example.org"`, d: config.Differs, amber: []string{"auth[1]"}}}},
		{"storage", section("storage", attrib("clusters", Integer, "8")), []want{{key: "storage", d: config.Ignored}, {key: "storage/clusters=8", d: config.Ignored}}},
		{"unknown", attrib("frobnicate", Integer, "1") + section("frob", attrib("x", Integer, "1")),
			[]want{refused("frobnicate=1"), refused("frob"), refused("frob/x=1")}},
		{"a login's action", `<Login name="l">` + attrib("form", String, "https://a.example.com/login") + attrib("action", String, "POST") +
			section("parameters", attrib("user", String, "u")) + `</Login>`,
			[]want{{key: "Login[l]", d: config.Mapped, amber: []string{"logins[0]"}}, {key: "Login[l]/action=POST", d: config.Mapped, amber: []string{"logins[0].method"}},
				{key: "Login[l]/parameters/user", d: config.Mapped, amber: []string{"logins[0].parameters.user"}}}},
		{"levels", section("workqueue_priority", attrib("levels", Integer, "2"), attrib("put_scheme", String, "include"),
			section("1", section("include_domains", members("exact", "a.example.com")))),
			[]want{{key: "workqueue_priority/put_scheme=include", d: config.Mapped, amber: []string{"politeness.priority.rules"}},
				{key: "workqueue_priority/1", d: config.Mapped, amber: []string{"politeness.priority.rules[0]"}},
				{key: "workqueue_priority/1/include_domains/exact", d: config.Mapped, amber: []string{"politeness.priority.rules[0].match"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cv, err := convert(t, startURI+tt.body, ConvertOptions{})
			if err != nil {
				t.Fatal(err)
			}
			byKey := map[string]config.Accounted{}
			for _, e := range cv.Account.Entries {
				byKey[e.Key] = e
			}
			for _, w := range tt.want {
				e, ok := byKey[w.key]
				if !ok {
					t.Errorf("no entry %s in %v", w.key, cv.Account.Entries)
					continue
				}
				if e.Disposition != w.d || (w.amber != nil && !slices.Equal(e.Amber, w.amber)) {
					t.Errorf("%s: %s %v (%s), want %s %v", w.key, e.Disposition, e.Amber, e.Why, w.d, w.amber)
				}
			}
		})
	}
}

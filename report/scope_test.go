package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/status"
)

// elasticInput is a crawl of the elastic flavour whose crawl.log has every reason that
// flavour gives, and a Standard out-of-scope URL for contrast.
func elasticInput() Input {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	const seed = "http://www.example.com/"
	n := 0
	line := func(code int, u, hops string, ann ...string) Line {
		n++
		l := Line{Time: t0.Add(time.Duration(n) * time.Second), Status: code, Size: -1, URL: u, Hops: hops,
			Via: seed, Seed: seed, Annotations: ann}
		if code > 0 {
			l.Size, l.MIME, l.Via = 100, "text/html", ""
		}
		return l
	}
	out := func(u, hops, reason string) Line { return line(status.OutOfScope, u, hops, "scope:"+reason) }
	return Input{
		Collection: "elastic",
		Seeds:      []SeedInfo{{URL: seed, Type: "standard"}},
		Lines: []Line{
			line(200, seed, ""),
			out("http://elsewhere.example.net/", "L", "out-of-domain"),
			out("http://elsewhere.example.net/y", "LL", "out-of-domain"),
			out("https://elsewhere.example.net/x", "L", "out-of-domain"),
			out("http://www.example.com/blog/2021/a.html", "L", "crawl-rule:1:deny:begins:/blog"),
			out("http://www.example.com/blog/2021/b.html", "LL", "crawl-rule:1:deny:begins:/blog"),
			out("http://www.example.com/products/draft-1", "L", "crawl-rule:2:deny:contains:/draft"),
			out("http://www.example.com/x.bak", "L", "crawl-rule:3:deny:ends:.bak"),
			out("http://www.example.com/a/y.bak", "L", "crawl-rule:3:deny:ends:.bak"),
			out("http://www.example.com/?page=2", "L", "crawl-rule:4:deny:regex:.*page=.*"),
			out("http://www.example.com/?page=3", "L", "crawl-rule:4:deny:regex:.*page=.*"),
			out("http://www.example.com/deep/3.html", "LLL", "max-depth"),
			out("http://www.example.com/deep/5.html", "MLLLL", "max-depth"),
			out("http://www.example.com/deep/r.html", "LLRL", "max-depth"),
			out("http://other.example.org/x/1.html", "L", "out-of-scope"),
		},
	}
}

// writeElastic writes elasticInput's reports (writeInput) and returns their directory.
func writeElastic(t *testing.T) string {
	t.Helper()
	out, _ := writeInput(t, elasticInput())
	return out
}

// TestScopeReportElastic: the elastic flavour's reasons are counted, and each host says what
// would bring its URLs in: the domain to add, an allow crawl rule before the rule that denied
// them (their common directory, else their common prefix, else the rule's removal), the
// max_crawl_depth that takes the deepest in.
func TestScopeReportElastic(t *testing.T) {
	dir := writeElastic(t)
	data, err := os.ReadFile(filepath.Join(dir, ScopeReportJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var rep ScopeReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string][]ScopeSuggestion{}
	rules := map[string]string{}
	for _, h := range rep.Hosts {
		got[h.Host] = h.Suggestions
		rules[h.Host] = h.SuggestedRule
	}
	want := map[string][]ScopeSuggestion{
		"www.example.com": {
			{Reason: "crawl-rule:1:deny:begins:/blog", URLs: 2,
				Suggestion: "add crawl rule 'allow begins /blog/2021/' before crawl rule 1 (deny begins /blog)"},
			{Reason: "crawl-rule:2:deny:contains:/draft", URLs: 1,
				Suggestion: "add crawl rule 'allow begins /products/' before crawl rule 2 (deny contains /draft)"},
			{Reason: "crawl-rule:3:deny:ends:.bak", URLs: 2, Suggestion: "remove crawl rule 3 (deny ends .bak)"},
			{Reason: "crawl-rule:4:deny:regex:.*page=.*", URLs: 2,
				Suggestion: "add crawl rule 'allow begins /?page=' before crawl rule 4 (deny regex .*page=.*)"},
			{Reason: "max-depth", URLs: 3, Suggestion: "raise max_crawl_depth to 5"},
		},
		"elsewhere.example.net": {
			{Reason: "out-of-domain", URLs: 2, Suggestion: "add domain http://elsewhere.example.net"},
			{Reason: "out-of-domain", URLs: 1, Suggestion: "add domain https://elsewhere.example.net"},
		},
		"other.example.org": nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("suggestions (-want +got):\n%s", diff)
	}
	if r := rules["other.example.org"]; r != "surt:http://(org,example,other,)/x/" {
		t.Errorf("Standard suggestion for other.example.org = %q", r)
	}
	wantReasons := map[string]int64{"out-of-domain": 3, "crawl-rule:1:deny:begins:/blog": 2,
		"crawl-rule:2:deny:contains:/draft": 1, "crawl-rule:3:deny:ends:.bak": 2, "crawl-rule:4:deny:regex:.*page=.*": 2,
		"max-depth": 3, "out-of-scope": 1}
	if diff := cmp.Diff(wantReasons, rep.Totals.Reasons); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}

	text, err := os.ReadFile(filepath.Join(dir, ScopeReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"suggestion for crawl-rule:1:deny:begins:/blog (brings in 2): add crawl rule 'allow begins /blog/2021/' before crawl rule 1 (deny begins /blog)\n",
		"suggestion for out-of-domain (brings in 1): add domain https://elsewhere.example.net\n",
		"suggestion for max-depth (brings in 3): raise max_crawl_depth to 5\n",
		"crawl-rule:3:deny:ends:.bak L http://www.example.com/x.bak http://www.example.com/ http://www.example.com/\n",
		"suggested rule (brings in 1): surt:http://(org,example,other,)/x/\n",
	} {
		if !strings.Contains(string(text), line) {
			t.Errorf("scope-report.txt lacks %q:\n%s", line, text)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, HTMLReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"<div>add crawl rule &#39;allow begins /blog/2021/&#39; before crawl rule 1 (deny begins /blog) (crawl-rule:1:deny:begins:/blog: 2)</div>",
		"<div>raise max_crawl_depth to 5 (max-depth: 3)</div>",
	} {
		if !strings.Contains(string(page), s) {
			t.Errorf("report.html lacks %q", s)
		}
	}
}

func TestSuggestion(t *testing.T) {
	for _, tc := range []struct {
		reason, url, hops, want string
	}{
		{"out-of-domain", "https://cdn.example.net:8443/a.js", "L", "add domain https://cdn.example.net:8443"},
		{"out-of-domain", "http://User@cdn.example.net/a", "L", "add domain http://cdn.example.net"},
		{"crawl-rule:1:deny:begins:/blog", "http://www.example.com/blog/2021/post.html", "L",
			"add crawl rule 'allow begins /blog/2021/' before crawl rule 1 (deny begins /blog)"},
		{"crawl-rule:1:deny:begins:/blog", "http://www.example.com/blog", "L",
			"add crawl rule 'allow begins /blog' before crawl rule 1 (deny begins /blog)"},
		{"crawl-rule:2:deny:regex:.*", "http://www.example.com/", "L", "remove crawl rule 2 (deny regex .*)"},
		{"crawl-rule:12:deny:contains:a:b", "http://www.example.com/x/a:b", "L",
			"add crawl rule 'allow begins /x/' before crawl rule 12 (deny contains a:b)"},
		{"max-depth", "http://www.example.com/deep", "LLLL", "raise max_crawl_depth to 5"},
		{"max-depth", "http://www.example.com/deep", "LLLLMLL", "raise max_crawl_depth to 3"},
		{"out-of-scope", "http://www.example.com/", "L", ""},
		{"block:contains:/login", "http://www.example.com/login", "L", ""},
		{"max-hops", "http://www.example.com/", "LLLL", ""},
	} {
		if got := Suggestion(tc.reason, tc.url, tc.hops); got != tc.want {
			t.Errorf("Suggestion(%q, %q, %q) = %q, want %q", tc.reason, tc.url, tc.hops, got, tc.want)
		}
	}
}

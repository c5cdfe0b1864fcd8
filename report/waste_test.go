package report

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/amber-crawler/amber/scope"
)

// TestWasteFamilies: the URLs of a host fall into the families a person would name: a token
// with few values in its group is kept, one with many is a wildcard, numbers read "#".
func TestWasteFamilies(t *testing.T) {
	var titles []string
	for i := range 40 {
		titles = append(titles, fmt.Sprintf("Article_%c%d", 'A'+i%26, i))
	}
	tests := []struct {
		name string
		urls func() []string
		want []string // the patterns, sorted
	}{
		{
			name: "mediawiki without path info",
			urls: func() []string {
				var us []string
				for _, ti := range titles {
					us = append(us,
						"http://w.test/index.php?title="+ti,
						"http://w.test/index.php?title="+ti+"&action=edit",
						"http://w.test/index.php?title="+ti+"&action=history",
						"http://w.test/index.php?title=Special:WhatLinksHere/"+ti,
						"http://w.test/index.php?title="+ti+"&oldid="+fmt.Sprint(len(us)))
				}
				return us
			},
			want: []string{"/index.php?action=edit&title=*", "/index.php?action=history&title=*",
				"/index.php?oldid=#&title=*", "/index.php?title=*", "/index.php?title=Special:WhatLinksHere/*"},
		},
		{
			name: "a calendar nobody told amber about",
			urls: func() []string {
				var us []string
				for y := 2000; y < 2030; y++ {
					for m := 1; m <= 12; m++ {
						us = append(us, fmt.Sprintf("http://c.test/events/calendar/%d-%02d", y, m))
					}
				}
				for _, ti := range titles {
					us = append(us, "http://c.test/events/"+strings.ToLower(ti))
				}
				return us
			},
			want: []string{"/events/*", "/events/calendar/#"},
		},
		{
			name: "one page",
			urls: func() []string { return []string{"http://a.test/"} },
			want: []string{"/"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var items []wasteItem
			for _, u := range tt.urls() {
				items = append(items, wasteItem{url: u})
			}
			fs := inferFamilies(items)
			var got []string
			for _, fm := range fs.list {
				got = append(got, fm.pattern)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("families (-want +got):\n%s", diff)
			}
			for _, it := range items {
				if fs.match(parseURLShape(it.url)) == nil {
					t.Errorf("%s: in no family", it.url)
				}
			}
		})
	}
}

// wasteSite is a crawl of one host for the waste report: families of URLs, each with what
// its fetches gave.
type wasteSite struct {
	host string
	fams []wasteFam
}

type wasteFam struct {
	format string // fmt format with one %d
	n      int
	status int
	text   [2]int // textShingles, textNew; {0, 0}: not measured
	dup    bool
}

func (s *wasteSite) crawl() []Line {
	at := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	var lines []Line
	for _, f := range s.fams {
		for i := range f.n {
			l := Line{Time: at, Status: f.status, Size: 1000, URL: "http://" + s.host + fmt.Sprintf(f.format, i), MIME: "text/html",
				Hops: "L", Extra: map[string]any{}}
			if f.text != [2]int{} {
				l.Extra[ExtraTextShingles], l.Extra[ExtraTextNew] = float64(f.text[0]), float64(f.text[1])
			}
			if f.dup {
				l.Annotations = []string{"duplicate:digest"}
			}
			lines = append(lines, l)
			at = at.Add(time.Second)
		}
	}
	return lines
}

// TestWasteReport: the waste report names the families that took many fetches and gave
// little new content, on a host whose platform amber knows nothing of, each with a block rule
// that leaves out only them, tried on the crawl's own URLs; families that gave content are
// not named.
func TestWasteReport(t *testing.T) {
	site := &wasteSite{host: "shop.test", fams: []wasteFam{
		{format: "/product/item-%d", n: 200, status: 200, text: [2]int{100, 70}},
		{format: "/product/item-%d?sort=price", n: 200, status: 200, text: [2]int{100, 2}},
		{format: "/cart/add?item=%d", n: 150, status: 302},
		{format: "/product/item-%d/print", n: 100, status: 200, dup: true},
		{format: "/img/%d.jpg", n: 150, status: 200},
		{format: "/news/%d", n: 30, status: 200, text: [2]int{50, 1}},
	}}
	rep, b, dir := writeScopeReport(t, Input{Collection: "w", Lines: site.crawl()})
	if rep.Waste == nil {
		t.Fatalf("no waste report:\n%s", b)
	}
	type row struct {
		Fetches, Wasted, New int64
		Families             []string
	}
	var got []row
	for _, p := range rep.Waste.Proposals {
		r := row{Fetches: p.Fetches, Wasted: p.Wasted, New: p.New}
		for _, f := range p.Families {
			r.Families = append(r.Families, f.Pattern)
		}
		got = append(got, r)
		// The rule, as a block rule of a crawl, leaves out the family's URLs and none of the
		// products.
		rule, err := scope.ParseRule(p.Rule)
		if err != nil {
			t.Fatalf("rule %q: %v", p.Rule, err)
		}
		rs, err := scope.CompileRules([]scope.Rule{rule}, scope.Standard)
		if err != nil {
			t.Fatal(err)
		}
		if rs.First(p.Families[0].Example) < 0 {
			t.Errorf("rule %s does not match its example %s", p.Rule, p.Families[0].Example)
		}
		for _, keep := range []string{"http://shop.test/product/item-7", "http://shop.test/img/7.jpg"} {
			if rs.First(keep) >= 0 {
				t.Errorf("rule %s leaves out %s", p.Rule, keep)
			}
		}
	}
	want := []row{
		{Fetches: 200, Wasted: 200, Families: []string{"/product/*?sort=price"}},
		{Fetches: 150, Wasted: 150, Families: []string{"/cart/add?item=#"}},
		{Fetches: 100, Wasted: 100, Families: []string{"/product/*/print"}},
		{Fetches: 30, Wasted: 30, Families: []string{"/news/#"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("proposals (-want +got):\n%s", diff)
	}
	txt, err := os.ReadFile(filepath.Join(dir, ScopeReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(txt), "\n== waste: ") || !strings.Contains(string(txt), "/cart/add?item=#") {
		t.Errorf("scope-report.txt has no waste section:\n%s", txt)
	}
	html, err := os.ReadFile(filepath.Join(dir, HTMLReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), `id="waste-table"`) || !strings.Contains(string(html), "/product/*?sort=price") {
		t.Errorf("report.html shows no top families")
	}
}

// TestWasteNone: a crawl whose fetches all gave new content has no waste report.
func TestWasteNone(t *testing.T) {
	site := &wasteSite{host: "a.test", fams: []wasteFam{
		{format: "/p/%d", n: 300, status: 200, text: [2]int{100, 90}},
		{format: "/img/%d.png", n: 300, status: 200},
	}}
	_, b, _ := writeScopeReport(t, Input{Collection: "w", Lines: site.crawl()})
	if strings.Contains(string(b), `"waste"`) {
		t.Errorf("waste report on a crawl without waste:\n%s", b)
	}
}

// TestScopeReportPlatformRules: the scope report lists the crawl's platform rules with the
// URLs each left out, most first, and those only a scope reason names.
func TestScopeReportPlatformRules(t *testing.T) {
	at := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	in := Input{Collection: "p", PlatformRules: []PlatformRule{
		{ID: "mediawiki/edit", On: true, Why: "Edit forms."},
		{ID: "mediawiki/history", On: true, Why: "Histories."},
		{ID: "wordpress/login", On: false, Why: "Login."},
	}}
	add := func(u, reason string) {
		in.Lines = append(in.Lines, Line{Time: at, Status: -5000, Size: -1, URL: u, Hops: "L", Annotations: []string{"scope:" + reason}})
		in.URLs = append(in.URLs, URLState{URL: u, State: "rejected", Status: -5000, Reason: reason, Hops: "L"})
	}
	add("http://w.test/index.php?title=A&action=edit", "platform:mediawiki/edit")
	add("http://w.test/index.php?title=B&action=edit", "platform:mediawiki/edit")
	add("http://w.test/index.php?title=A&action=history", "platform:mediawiki/history")
	add("http://w.test/index.php?title=Special:Search", "platform:mediawiki/special")
	rep, _, dir := writeScopeReport(t, in)
	want := []ScopePlatformRule{
		{ID: "mediawiki/edit", On: true, LeftOut: 2, Why: "Edit forms."},
		{ID: "mediawiki/history", On: true, LeftOut: 1, Why: "Histories."},
		{ID: "mediawiki/special", On: true, LeftOut: 1},
		{ID: "wordpress/login", Why: "Login."},
	}
	if diff := cmp.Diff(want, rep.PlatformRules); diff != "" {
		t.Errorf("platform rules (-want +got):\n%s", diff)
	}
	txt, err := os.ReadFile(filepath.Join(dir, ScopeReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"mediawiki/edit 2 Edit forms.\n", "rules that left nothing out: 0 on, 1 off\n"} {
		if !strings.Contains(string(txt), s) {
			t.Errorf("scope-report.txt has no %q:\n%s", s, txt)
		}
	}
}

// TestWasteMediaWiki: the waste report of a real crawl of Debian's MediaWiki 1.39 with 150
// articles and the platform rules off (its crawl.log, testdata/waste) names the edit forms,
// the special pages, the old revisions and the histories first, each with a rule; the
// captures none of its rules match are the articles, category and file pages and what they
// embed, all but a few.
func TestWasteMediaWiki(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "waste", "mediawiki-rules-off.crawl.log.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := readCrawlLog(zr)
	if err != nil {
		t.Fatal(err)
	}
	rep, _, _ := writeScopeReport(t, Input{Collection: "mw-off", Lines: lines})
	if rep.Waste == nil || len(rep.Waste.Proposals) < 4 || len(rep.Waste.Hosts) != 1 {
		t.Fatalf("waste report: %+v", rep.Waste)
	}
	var first []string
	var rules []scope.Rule
	for i, p := range rep.Waste.Proposals {
		r, err := scope.ParseRule(p.Rule)
		if err != nil {
			t.Fatalf("rule %q: %v", p.Rule, err)
		}
		rules = append(rules, r)
		if i < 4 {
			first = append(first, p.Rule)
		}
	}
	for _, want := range []string{`title=Special:`, `action=edit`, `oldid=`, `action=history`} {
		if !slices.ContainsFunc(first, func(r string) bool { return strings.Contains(r, want) }) {
			t.Errorf("the first four rules %q have none for %s", first, want)
		}
	}
	rs, err := scope.CompileRules(rules, scope.Standard)
	if err != nil {
		t.Fatal(err)
	}
	// What the rules leave: content, or machinery they missed.
	machinery := regexp.MustCompile(`[?&](action|oldid|diff|returnto|printable)=|title=(Special|Talk):`)
	var left, missed int
	last := map[string]Line{} // a URL's last line
	for _, l := range lines {
		last[l.URL] = l
	}
	for _, l := range last {
		if l.Status <= 0 || rs.First(l.URL) >= 0 {
			continue
		}
		left++
		if machinery.MatchString(l.URL) {
			missed++
			t.Logf("not left out: %s", l.URL)
		}
	}
	if h := rep.Waste.Hosts[0]; h.Saved+int64(left) != h.Fetches {
		t.Errorf("host figures %+v, want saved + %d left = fetches", h, left)
	}
	if missed*5 >= left {
		t.Errorf("%d of the %d captures the rules leave are machinery, want under 20%%", missed, left)
	}
}

// writeScopeReport writes the reports of in into a new directory and returns the scope report
// as scope-report.json holds it, that file, and the directory.
func writeScopeReport(t *testing.T, in Input) (ScopeReport, []byte, string) {
	t.Helper()
	dir := t.TempDir()
	if err := Write(dir, in); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ScopeReportJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var rep ScopeReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return rep, b, dir
}

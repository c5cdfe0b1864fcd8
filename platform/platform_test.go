package platform

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/amber-crawler/amber/chain"
	"github.com/amber-crawler/amber/extract"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/frontier"
	"github.com/amber-crawler/amber/hop"
	"github.com/amber-crawler/amber/report"
	"github.com/amber-crawler/amber/status"
)

// fakeFront is the frontier's metadata, in memory; the other methods are not used.
type fakeFront struct {
	chain.Frontier
	meta map[string][]byte
}

func (f *fakeFront) PutMeta(key string, v []byte) error { f.meta[key] = v; return nil }
func (f *fakeFront) ScanMeta(prefix string, fn func(string, []byte) error) error {
	for k, v := range f.meta {
		if strings.HasPrefix(k, prefix) {
			if err := fn(k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func newGuard(t *testing.T, cfg Config, front *fakeFront) *Guard {
	t.Helper()
	if front == nil {
		front = &fakeFront{meta: map[string][]byte{}}
	}
	g, err := New(cfg, chain.Env{Front: front})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// page is a fetched page of a host: its generator, header and links, as After sees them.
type page struct {
	url       string
	generator string
	header    http.Header
	links     []string
}

func (p page) record() *chain.Record {
	r := &chain.Record{Claim: frontier.NewClaim(frontier.URL{URL: p.url, Hops: "L"}, nil)}
	h := p.header
	if h == nil {
		h = http.Header{}
	}
	r.Result = &fetch.Result{Exchanges: []*fetch.Exchange{{URL: p.url, StatusCode: 200, Header: h}}}
	r.Content.Generator = p.generator
	for _, l := range p.links {
		r.Content.Links = append(r.Content.Links, extract.Outlink{URL: l, Hop: hop.Link})
	}
	return r
}

func (g *Guard) see(t *testing.T, p page) {
	t.Helper()
	if _, err := g.Recognizer().After(context.Background(), p.record()); err != nil {
		t.Fatal(err)
	}
}

// TestBuiltin: every built-in file parses; ids are PLATFORM/NAME and unique; every rule says
// why; every platform can be recognised.
func TestBuiltin(t *testing.T) {
	ps, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"discourse", "dokuwiki", "drupal", "joomla", "mediawiki", "phpbb", "wordpress"}
	if got := Names(ps); !slices.Equal(got, want) {
		t.Errorf("platforms %v, want %v", got, want)
	}
	seen := map[string]bool{}
	for _, id := range IDs(ps) {
		if seen[id] {
			t.Errorf("rule %s twice", id)
		}
		seen[id] = true
	}
	for _, p := range ps {
		for _, r := range p.Rules {
			if !strings.HasPrefix(r.ID, p.Name+"/") || len(r.Why) < 20 || len(r.Match) == 0 || r.Text() == "" {
				t.Errorf("%s: id, why %q or match %q missing", r.ID, r.Why, r.Text())
			}
		}
	}
}

// decideCase is a URL of a recognised host and the reason it is left out, "" when kept.
type decideCase struct {
	url  string
	want string
}

func checkDecide(t *testing.T, g *Guard, tests []decideCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			got, out := g.Decide(tt.url, "LL")
			if out != (tt.want != "") || got != tt.want {
				t.Errorf("Decide(%q) = %q, %v; want %q", tt.url, got, out, tt.want)
			}
		})
	}
}

// TestMediaWiki: the rules of a recognised MediaWiki host, on the URLs of Debian's 1.39 (as
// crawled from it: index.php?title=X) and of short-URL wikis (/wiki/X).
func TestMediaWiki(t *testing.T) {
	g := newGuard(t, Config{}, nil)
	g.see(t, page{url: "http://wiki.example.org/index.php?title=Main_Page", generator: "MediaWiki 1.39.17"})
	g.see(t, page{url: "https://en.example.org/wiki/Main_Page", generator: "MediaWiki 1.41.0"})
	w := "http://wiki.example.org"
	checkDecide(t, g, []decideCase{
		{w + "/index.php?title=Main_Page", ""},
		{w + "/index.php?title=Eastern_forest_1", ""},
		{w + "/index.php?title=Category:Harbours", ""},
		{w + "/index.php?title=Category:Harbours&pagefrom=Old+bridge+8", ""},
		{w + "/index.php?title=File:Plate_1.jpg", ""},
		{w + "/index.php?title=Talk:Main_Page", ""},
		{w + "/index.php?title=User:Admin", ""},
		{w + "/images/1/1f/Plate_1.jpg", ""},
		{w + "/images/thumb/1/1f/Plate_1.jpg/300px-Plate_1.jpg", ""},
		{w + "/load.php?lang=en&modules=skins.vector.styles.legacy&only=styles&skin=vector", ""},
		{w + "/load.php?modules=oojs-ui-core.icons&image=alert&variant=invert&format=rasterized&skin=vector&version=15g2h", ""},
		{w + "/index.php?title=Special:AllPages", ""},
		{w + "/index.php?title=Special:AllPages&from=Old+bridge", ""},
		{w + "/index.php?title=Special:FilePath/Plate_1.jpg", ""},
		{w + "/index.php?title=Special_relativity", ""}, // not the Special namespace
		{w + "/index.php?title=Editing_guide", ""},
		{w + "/index.php?title=Main_Page&redaction=edit", ""},
		{w + "/opensearch_desc.php", ""},
		{w + "/index.php?title=Main_Page&action=edit", "platform:mediawiki/edit"},
		{w + "/index.php?title=Main_Page&action=edit&section=1", "platform:mediawiki/edit"},
		{w + "/index.php?title=Talk:Main_Page&action=edit&redlink=1", "platform:mediawiki/edit"},
		{w + "/index.php?action=submit&title=Main_Page", "platform:mediawiki/edit"},
		{w + "/index.php?title=Main_Page&veaction=edit", "platform:mediawiki/edit"},
		{w + "/index.php?title=Main_Page&action=history", "platform:mediawiki/history"},
		{w + "/index.php?title=Main_Page&oldid=174", "platform:mediawiki/revisions"},
		{w + "/index.php?title=Main_Page&diff=175&oldid=174", "platform:mediawiki/revisions"},
		{w + "/index.php?curid=1", "platform:mediawiki/revisions"},
		{w + "/index.php?title=Main_Page&action=info", "platform:mediawiki/info"},
		{w + "/index.php?title=Main_Page&action=credits", "platform:mediawiki/info"},
		{w + "/index.php?title=Main_Page&action=watch", "platform:mediawiki/page-actions"},
		{w + "/index.php?title=Main_Page&action=raw", "platform:mediawiki/page-actions"},
		{w + "/index.php?title=Special:CreateAccount&returnto=Main+Page", "platform:mediawiki/special"},
		{w + "/index.php?title=Special:UserLogin&returnto=Category%3AHarbours", "platform:mediawiki/special"},
		{w + "/index.php?title=Special:WhatLinksHere/Eastern_forest_1", "platform:mediawiki/special"},
		{w + "/index.php?title=Special:RecentChanges&feed=atom", "platform:mediawiki/special"},
		{w + "/index.php/Special:Random", "platform:mediawiki/special"},
		{"https://en.example.org/wiki/Special:Search/Harbour", "platform:mediawiki/special"},
		{"https://en.example.org/wiki/Spezial:Letzte_%C3%84nderungen", "platform:mediawiki/special"},
		{w + "/index.php?title=Main_Page&printable=yes", "platform:mediawiki/printable"},
		{w + "/index.php?title=Main_Page&useskin=monobook", "platform:mediawiki/variants"},
		{w + "/index.php?search=harbour&fulltext=1", "platform:mediawiki/search"},
		{w + "/api.php?action=rsd", "platform:mediawiki/api"},
		{"https://en.example.org/w/api.php?action=query&format=json", "platform:mediawiki/api"},
		{"https://en.example.org/w/rest.php/v1/page/Main_Page", "platform:mediawiki/api"},
		{"http://other.example.org/index.php?title=Main_Page&action=edit", ""}, // not recognised
		{"http://wiki.example.org:8080/index.php?title=Main_Page&action=edit", ""},
	})
}

// TestWordPress: the rules of a recognised WordPress host (Debian's 6.1, theme Twenty
// Twenty-Three, day-and-name permalinks); shortlinks only once pretty permalinks were seen.
func TestWordPress(t *testing.T) {
	g := newGuard(t, Config{}, nil)
	b := "http://blog.example.org"
	g.see(t, page{url: b + "/", header: http.Header{"Link": {`<` + b + `/wp-json/>; rel="https://api.w.org/"`}}})
	if got, _ := g.Decide(b+"/?p=9", "LL"); got != "" {
		t.Errorf("shortlink before pretty permalinks were seen: %q, want kept", got)
	}
	g.see(t, page{url: b + "/", links: []string{b + "/2026/12/07/hello-world/", b + "/category/gardens/"}})
	checkDecide(t, g, []decideCase{
		{b + "/", ""},
		{b + "/2026/12/07/hello-world/", ""},
		{b + "/2026/12/07/feedback-on-a-login-form/", ""},
		{b + "/about/", ""},
		{b + "/about/reading-list/", ""},
		{b + "/category/gardens/", ""},
		{b + "/tag/mills/", ""},
		{b + "/page/2/", ""},
		{b + "/2026/10/", ""},
		{b + "/author/admin/", ""},
		{b + "/feed/", ""},
		{b + "/wp-content/uploads/2026/10/plate-12.jpg", ""},
		{b + "/wp-content/uploads/2026/10/plate-12-300x225.jpg", ""},
		{b + "/wp-includes/js/comment-reply.min.js?ver=6.1.9", ""},
		{b + "/wp-includes/blocks/navigation/style.min.css?ver=6.1.9", ""},
		{b + "/wp-content/themes/twentytwentythree/assets/fonts/dm-sans/DMSans-Regular.woff2", ""},
		{b + "/wp-login.php", "platform:wordpress/login"},
		{b + "/wp-login.php?redirect_to=http%3A%2F%2Fblog.example.org%2F&reauth=1", "platform:wordpress/login"},
		{b + "/wp-admin/", "platform:wordpress/login"},
		{b + "/wp-signup.php", "platform:wordpress/login"},
		{b + "/wp-json/", "platform:wordpress/api"},
		{b + "/wp-json/wp/v2/posts/9", "platform:wordpress/api"},
		{b + "/wp-json/oembed/1.0/embed?url=http%3A%2F%2Fblog.example.org%2Fabout%2F&format=xml", "platform:wordpress/api"},
		{b + "/?rest_route=/wp/v2/posts", "platform:wordpress/api"},
		{b + "/xmlrpc.php?rsd", "platform:wordpress/api"},
		{b + "/wp-includes/wlwmanifest.xml", "platform:wordpress/api"},
		{b + "/?p=9", "platform:wordpress/shortlinks"},
		{b + "/?page_id=2", "platform:wordpress/shortlinks"},
		{b + "/2026/12/07/hello-world/feed/", "platform:wordpress/feeds"},
		{b + "/comments/feed/", "platform:wordpress/feeds"},
		{b + "/category/gardens/feed/", "platform:wordpress/feeds"},
		{b + "/2026/11/20/a-post/?replytocom=147", "platform:wordpress/replytocom"},
		{b + "/?s=harbour", "platform:wordpress/search"},
		{b + "/search/harbour/", "platform:wordpress/search"},
		{b + "/2026/12/07/hello-world/embed/", "platform:wordpress/embeds"},
	})
}

// TestOtherPlatforms: the rules of platforms without a Debian package here (Drupal 7 and
// later, Joomla! 3-5, phpBB 3, Discourse, DokuWiki), on the URL structure of their default
// installs, recognised by their generator or cookies.
func TestOtherPlatforms(t *testing.T) {
	g := newGuard(t, Config{}, nil)
	d, j, f, c, k := "http://drupal.example.org", "http://joomla.example.org", "http://forum.example.org", "https://discourse.example.org", "http://doku.example.org"
	g.see(t, page{url: d + "/", header: http.Header{"X-Generator": {"Drupal 7 (http://drupal.org)"}}})
	g.see(t, page{url: j + "/", generator: "Joomla! - Open Source Content Management"})
	g.see(t, page{url: f + "/index.php", header: http.Header{"Set-Cookie": {"phpbb3_abcde_sid=0123456789abcdef0123456789abcdef; path=/; HttpOnly"}}})
	g.see(t, page{url: c + "/", generator: "Discourse 3.2.1 - https://github.com/discourse/discourse version 1234"})
	g.see(t, page{url: k + "/doku.php", generator: "DokuWiki"})
	checkDecide(t, g, []decideCase{
		{d + "/node/1", ""},
		{d + "/blog/calendar-of-events", ""},
		{d + "/users/jane", ""},
		{d + "/sites/default/files/field/image/photo.jpg", ""},
		{d + "/rss.xml", ""},
		{d + "/user/login?destination=node/1%23comment-form", "platform:drupal/user"},
		{d + "/?q=user/register", "platform:drupal/user"},
		{d + "/node/1/edit", "platform:drupal/node-actions"},
		{d + "/node/add", "platform:drupal/node-actions"},
		{d + "/comment/reply/5", "platform:drupal/comment-reply"},
		{d + "/search/node?keys=harbour", "platform:drupal/search"},
		{d + "/admin/content", "platform:drupal/admin"},
		{d + "/filter/tips", "platform:drupal/filter-tips"},
		{d + "/articles?order=title&sort=asc", "platform:drupal/sort"},
		{d + "/calendar/2026-12", "platform:drupal/calendar"},
		{d + "/calendar-node-field-date/month/2026-12", "platform:drupal/calendar"},
		{d + "/events?mini=2027-01", "platform:drupal/calendar"},
		{j + "/index.php?option=com_content&view=article&id=12&Itemid=101", ""},
		{j + "/index.php/login-tips", ""},
		{j + "/images/joomla_black.png", ""},
		{j + "/index.php?option=com_users&view=login", "platform:joomla/users"},
		{j + "/index.php/component/users/?view=registration&Itemid=101", "platform:joomla/users"},
		{j + "/index.php?option=com_content&view=article&id=12&tmpl=component&print=1", "platform:joomla/print"},
		{j + "/index.php?option=com_mailto&tmpl=component&link=abc", "platform:joomla/mailto"},
		{j + "/index.php?format=feed&type=rss", "platform:joomla/feeds"},
		{j + "/index.php?option=com_search&searchword=harbour", "platform:joomla/search"},
		{j + "/administrator/", "platform:joomla/admin"},
		{f + "/viewforum.php?f=2", ""},
		{f + "/viewtopic.php?t=5", ""},
		{f + "/viewtopic.php?t=5&start=15", ""},
		{f + "/styles/prosilver/theme/stylesheet.css?assets_version=3", ""},
		{f + "/viewtopic.php?t=5&sid=0123456789abcdef0123456789abcdef", "platform:phpbb/sid"},
		{f + "/ucp.php?mode=login", "platform:phpbb/ucp"},
		{f + "/posting.php?mode=reply&t=5", "platform:phpbb/posting"},
		{f + "/search.php?search_id=unanswered", "platform:phpbb/search"},
		{f + "/memberlist.php?mode=viewprofile&u=2", "platform:phpbb/memberlist"},
		{f + "/viewtopic.php?p=12", "platform:phpbb/post-links"},
		{f + "/viewforum.php?f=2&sk=t&sd=d", "platform:phpbb/sort"},
		{c + "/t/welcome/7", ""},
		{c + "/t/welcome/7?page=2", ""},
		{c + "/c/general/4", ""},
		{c + "/uploads/default/original/1X/logo.png", ""},
		{c + "/login", "platform:discourse/auth"},
		{c + "/t/welcome/7/3", "platform:discourse/post-numbers"},
		{c + "/raw/7", "platform:discourse/raw-print"},
		{c + "/t/welcome/7.rss", "platform:discourse/machine"},
		{c + "/latest.json", "platform:discourse/machine"},
		{c + "/search?q=harbour", "platform:discourse/search"},
		{k + "/doku.php?id=start", ""},
		{k + "/lib/exe/fetch.php?media=wiki:dokuwiki-128.png", ""},
		{k + "/lib/exe/css.php?t=dokuwiki&tseed=1", ""},
		{k + "/doku.php?id=start&do=edit", "platform:dokuwiki/edit"},
		{k + "/doku.php?id=start&do=revisions", "platform:dokuwiki/revisions"},
		{k + "/doku.php?id=start&rev=1700000000", "platform:dokuwiki/revisions"},
		{k + "/doku.php?id=start&do=backlink", "platform:dokuwiki/lists"},
		{k + "/doku.php?id=start&do=login&sectok=", "platform:dokuwiki/login"},
		{k + "/doku.php?id=start&do=export_raw", "platform:dokuwiki/export"},
		{k + "/doku.php?do=search&q=harbour", "platform:dokuwiki/search"},
	})
}

// TestDecideHops: seeds, robots.txt and embeds are never left out; links and redirects of
// links are.
func TestDecideHops(t *testing.T) {
	g := newGuard(t, Config{}, nil)
	g.see(t, page{url: "http://wiki.example.org/", generator: "MediaWiki 1.39.17"})
	u := "http://wiki.example.org/index.php?title=Special:UserLogin"
	for _, tt := range []struct {
		hops string
		out  bool
	}{{"", false}, {"P", false}, {"LE", false}, {"LLX", false}, {"LRE", false}, {"L", true}, {"LL", true}, {"LM", true}, {"LEL", true}} {
		if _, out := g.Decide(u, tt.hops); out != tt.out {
			t.Errorf("hops %q: left out %v, want %v", tt.hops, out, tt.out)
		}
	}
}

// TestConfig: rules and platforms switched off, all of them off, and names that are neither.
func TestConfig(t *testing.T) {
	w := "http://wiki.example.org"
	edit, hist := w+"/index.php?title=X&action=edit", w+"/index.php?title=X&action=history"
	mw := page{url: w + "/", generator: "MediaWiki 1.39.17"}
	tests := []struct {
		name       string
		cfg        Config
		edit, hist bool
	}{
		{"default", Config{}, true, true},
		{"a rule off", Config{RulesOff: []string{"mediawiki/history"}}, true, false},
		{"a platform off", Config{RulesOff: []string{"mediawiki"}}, false, false},
		{"another platform off", Config{RulesOff: []string{"wordpress"}}, true, true},
		{"all off", Config{Off: true}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGuard(t, tt.cfg, nil)
			g.see(t, mw)
			if _, out := g.Decide(edit, "LL"); out != tt.edit {
				t.Errorf("edit left out %v, want %v", out, tt.edit)
			}
			if _, out := g.Decide(hist, "LL"); out != tt.hist {
				t.Errorf("history left out %v, want %v", out, tt.hist)
			}
			// Rules lists every rule, on or off, for crawl.yaml and the scope report.
			for _, r := range g.Rules() {
				switch r.ID {
				case "mediawiki/edit":
					if r.On != tt.edit {
						t.Errorf("Rules: %+v, want on %v", r, tt.edit)
					}
				case "mediawiki/history":
					if r.On != tt.hist {
						t.Errorf("Rules: %+v, want on %v", r, tt.hist)
					}
				}
			}
		})
	}
	if _, err := New(Config{RulesOff: []string{"mediawiki/editt"}}, chain.Env{}); !errors.Is(err, ErrConfig) {
		t.Errorf("unknown rule: err = %v, want ErrConfig", err)
	}
}

// TestBefore: a URL queued before its host was recognised is left out when claimed, as a
// link left out at discovery is logged.
func TestBefore(t *testing.T) {
	g := newGuard(t, Config{}, nil)
	u := frontier.URL{URL: "http://wiki.example.org/index.php?title=X&action=history", Hops: "LL"}
	r := &chain.Record{Claim: frontier.NewClaim(u, nil)}
	if v, _ := g.Before(context.Background(), r); v.Done {
		t.Fatalf("before recognition: %+v, want proceed", v)
	}
	g.see(t, page{url: "http://wiki.example.org/", generator: "MediaWiki 1.39.17"})
	v, err := g.Before(context.Background(), r)
	want := chain.Outcome{Status: status.OutOfScope, Annotations: []string{"scope:platform:mediawiki/history"},
		Denied: report.DenyOutOfScope, ScopeReason: "platform:mediawiki/history"}
	if err != nil || !v.Done || !slices.Equal(v.Outcome.Annotations, want.Annotations) || v.Outcome.Status != want.Status ||
		v.Outcome.ScopeReason != want.ScopeReason || v.Outcome.Denied != want.Denied {
		t.Errorf("after recognition: %+v, %v; want %+v", v, err, want)
	}
}

// TestRecognition: the signals of each kind, the host's own URLs only, the recognised hosts
// kept in the metadata and read back by a new Guard (a resumed crawl), and a host left alone
// after its first responses showed nothing.
func TestRecognition(t *testing.T) {
	front := &fakeFront{meta: map[string][]byte{}}
	g := newGuard(t, Config{}, front)
	g.see(t, page{url: "http://a.example/", links: []string{"http://cdn.example/wp-content/themes/x.css"}})
	g.see(t, page{url: "http://b.example/", links: []string{"http://b.example/w/load.php?lang=en&modules=startup"}})
	g.see(t, page{url: "http://c.example/x", header: http.Header{"X-Drupal-Cache": {"HIT"}}})
	g.see(t, page{url: "https://d.example:8443/", generator: "WordPress 6.4"})
	g.see(t, page{url: "https://d.example:8443/", links: []string{"https://d.example:8443/2024/01/post/"}})
	want := map[string][]string{"b.example": {"mediawiki"}, "c.example": {"drupal"}, "d.example:8443": {"wordpress"}}
	if got := g.HostPlatforms(); !equalHosts(got, want) {
		t.Errorf("HostPlatforms() = %v, want %v", got, want)
	}
	if got := string(front.meta[metaHost+"d.example:8443"]); got != "wordpress pretty-permalinks" {
		t.Errorf("metadata of d.example:8443 = %q", got)
	}
	again := newGuard(t, Config{}, front)
	if got := again.HostPlatforms(); !equalHosts(got, want) {
		t.Errorf("restored HostPlatforms() = %v, want %v", got, want)
	}
	if got, _ := again.Decide("https://d.example:8443/?p=4", "LL"); got != "platform:wordpress/shortlinks" {
		t.Errorf("restored trait: Decide = %q", got)
	}
	for range maxLooks {
		g.see(t, page{url: "http://e.example/"})
	}
	g.see(t, page{url: "http://e.example/", generator: "MediaWiki 1.39.17"})
	if got := g.HostPlatforms()["e.example"]; got != nil {
		t.Errorf("host looked at %d times: recognised %v, want left alone", maxLooks+1, got)
	}
}

func equalHosts(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestParseErrors: files that must not load.
func TestParseErrors(t *testing.T) {
	valid := "name: x\ndetect: {generator: '^X'}\nrules:\n  - {id: a, why: leaves out the things, match: ['contains:/a']}\n"
	tests := map[string]string{
		"unknown key":       valid + "extra: 1\n",
		"bad name":          strings.Replace(valid, "name: x", "name: X!", 1),
		"no signal":         strings.Replace(valid, "detect: {generator: '^X'}", "detect: {}", 1),
		"bad regex":         strings.Replace(valid, "'^X'", "'('", 1),
		"no why":            strings.Replace(valid, "why: leaves out the things, ", "", 1),
		"no match":          strings.Replace(valid, "match: ['contains:/a']", "match: []", 1),
		"bad matcher":       strings.Replace(valid, "contains:/a", "regex:(", 1),
		"parent_regex":      strings.Replace(valid, "contains:/a", "parent_regex:.*", 1),
		"unknown trait":     strings.Replace(valid, "{id: a,", "{id: a, when: t,", 1),
		"id twice":          valid + "  - {id: a, why: leaves out the things, match: ['contains:/b']}\n",
		"no rules":          "name: x\ndetect: {generator: '^X'}\n",
		"file name differs": "",
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			var err error
			if name == "file name differs" {
				_, err = LoadFS(fstest.MapFS{"y.yaml": {Data: []byte(valid)}})
			} else {
				_, err = Parse([]byte(text))
			}
			if !errors.Is(err, ErrRules) {
				t.Errorf("err = %v, want ErrRules", err)
			}
		})
	}
	if _, err := Parse([]byte(valid)); err != nil {
		t.Errorf("valid file: %v", err)
	}
}

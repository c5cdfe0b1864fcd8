package crawl_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
)

// contentSite serves, on every host: / (HTML) linking to a plain text file, an XHTML page, a
// page with an X-Amber-Class header, a page served without Content-Type, a redirect served
// as application/octet-stream, and a style sheet whose background image only it names; each
// page links to a page of its own (/from-NAME), which is how a test sees whether the crawl
// followed its links.
type contentSite struct{}

func (contentSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	page := func(ct, name string) {
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		} else {
			w.Header()["Content-Type"] = nil // no sniffing by net/http: served without one
		}
		fmt.Fprintf(w, `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>%s</title></head><body><p>the %s page</p><a href="/from-%s">on</a></body></html>`, name, name, name)
	}
	switch r.URL.Path {
	case "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>home</title><link rel="stylesheet" href="/style.css"></head><body class="bg"><h1>home</h1>
<a href="/text.txt">text</a> <a href="/page.xhtml">xhtml</a> <a href="/header.html">header</a>
<a href="/untyped">untyped</a> <a href="/moved">moved</a></body></html>`)
	case "/text.txt":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "plain text, naming http://www.example.com/from-text\n")
	case "/page.xhtml":
		page("application/xhtml+xml", "xhtml")
	case "/header.html":
		w.Header().Set("X-Amber-Class", "internal, secret")
		page("text/html; charset=utf-8", "header")
	case "/untyped":
		page("", "untyped")
	case "/moved":
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Location", "/after.html")
		w.WriteHeader(http.StatusFound)
	case "/after.html":
		page("text/html; charset=utf-8", "after")
	case "/style.css":
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, ".bg { background: url(/bg.png) }\n")
	case "/bg.png", "/favicon.ico":
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	default:
		if strings.HasPrefix(r.URL.Path, "/from-") {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body><p>an end</p></body></html>", r.URL.Path)
			return
		}
		http.NotFound(w, r)
	}
}

func headerRule(t *testing.T, name, pattern string) crawl.HeaderRule {
	t.Helper()
	r, err := crawl.NewHeaderRule(name, pattern)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestContentFilter crawls contentSite with FAST's allowed_types (Content.Types),
// uri_search_mime (Content.LinkTypes) and exclude_headers (Content.ExcludeHeaders), with both
// fetchers: a response left out is archived and logged with its reason (crawl.log
// annotation, metadata record, content-excluded event), its links are not followed and it has
// no search document; a redirect is followed whatever its type.
func TestContentFilter(t *testing.T) {
	const home = "http://www.example.com/"
	all := []string{"", "after.html", "from-after", "from-header", "from-untyped", "from-xhtml", "header.html", "moved", "page.xhtml", "text.txt", "untyped"}
	tests := []struct {
		name    string
		content func(t *testing.T) crawl.ContentConfig
		// fetched: the paths with a response (besides robots.txt, the favicon and the style
		// sheet and its image, which the browser loads with /); notes: path -> the annotation it must have.
		fetched []string
		notes   map[string]string
		noDoc   []string // pages whose search document is not written (all the others are)
		events  []string // content-excluded events: "path reason label"
	}{
		{name: "none", content: func(*testing.T) crawl.ContentConfig { return crawl.ContentConfig{} }, fetched: all},
		{name: "all-types", content: func(*testing.T) crawl.ContentConfig {
			return crawl.ContentConfig{Types: []string{"*/*"}, LinkTypes: []string{"*/*"}}
		}, fetched: all},
		{name: "types", content: func(*testing.T) crawl.ContentConfig {
			return crawl.ContentConfig{Types: []string{"TEXT/HTML", "text/css", "image/*"}}
		},
			fetched: []string{"", "after.html", "from-after", "from-header", "from-untyped", "header.html", "moved", "page.xhtml", "text.txt", "untyped"},
			notes:   map[string]string{"page.xhtml": "type-excluded:application/xhtml+xml", "text.txt": "type-excluded:text/plain"},
			noDoc:   []string{"page.xhtml"},
			events:  []string{"page.xhtml type-excluded application/xhtml+xml", "text.txt type-excluded text/plain"},
		},
		{name: "untyped-sniffed", content: func(*testing.T) crawl.ContentConfig {
			return crawl.ContentConfig{Types: []string{"text/plain", "text/css", "image/png", "application/xhtml+xml"}}
		},
			// / itself is HTML: nothing beyond it.
			fetched: []string{""},
			notes:   map[string]string{"": "type-excluded:text/html"},
			noDoc:   []string{""},
			events:  []string{" type-excluded text/html"},
		},
		{name: "headers", content: func(t *testing.T) crawl.ContentConfig {
			return crawl.ContentConfig{ExcludeHeaders: []crawl.HeaderRule{headerRule(t, "x-amber-class", `\bsecret\b`)}}
		},
			fetched: []string{"", "after.html", "from-after", "from-untyped", "from-xhtml", "header.html", "moved", "page.xhtml", "text.txt", "untyped"},
			notes:   map[string]string{"header.html": "header-excluded:X-Amber-Class"},
			noDoc:   []string{"header.html"},
			events:  []string{"header.html header-excluded X-Amber-Class"},
		},
		{name: "headers-no-match", content: func(t *testing.T) crawl.ContentConfig {
			return crawl.ContentConfig{ExcludeHeaders: []crawl.HeaderRule{headerRule(t, "X-Amber-Class", `^secret$`), headerRule(t, "X-Absent", `.*`)}}
		}, fetched: all},
		{name: "link-types", content: func(*testing.T) crawl.ContentConfig {
			return crawl.ContentConfig{LinkTypes: []string{"text/css", "application/*"}}
		},
			fetched: []string{""},
			notes:   map[string]string{"": "links-not-searched:text/html"},
		},
		{name: "link-types-wildcard", content: func(*testing.T) crawl.ContentConfig {
			return crawl.ContentConfig{LinkTypes: []string{"text/*"}}
		},
			fetched: []string{"", "after.html", "from-after", "from-header", "from-untyped", "header.html", "moved", "page.xhtml", "text.txt", "untyped"},
			notes:   map[string]string{"page.xhtml": "links-not-searched:application/xhtml+xml"},
		},
	}
	for _, fetcher := range fetchers() {
		for _, tt := range tests {
			t.Run(fetcher+"/"+tt.name, func(t *testing.T) {
				ts, err := testsite.StartHandler(contentSite{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ts.Close() })
				cfg := fastConfig(t, ts, fetcher)
				cfg.Content = tt.content(t)
				lines := runFAST(t, cfg)
				var fetched []string
				for _, l := range lines {
					path := strings.TrimPrefix(l.URL, home)
					if l.Status <= 0 || path == "robots.txt" || path == "style.css" || path == "bg.png" || path == "favicon.ico" {
						continue
					}
					fetched = append(fetched, path)
					note, want := tt.notes[path]
					var got []string
					for _, a := range l.Annotations {
						if strings.Contains(a, "excluded:") || strings.HasPrefix(a, "links-not-searched:") {
							got = append(got, a)
						}
					}
					if (want && !slices.Equal(got, []string{note})) || (!want && len(got) > 0) {
						t.Errorf("%s: annotations %v, want %q", path, l.Annotations, note)
					}
				}
				sort.Strings(fetched)
				if !slices.Equal(fetched, tt.fetched) {
					t.Errorf("fetched %q\nwant    %q", fetched, tt.fetched)
				}
				docs := documentURLs(t, cfg.Dir)
				for _, p := range tt.fetched {
					if p == "moved" || p == "text.txt" || p == "untyped" {
						// A redirect and a text file have no document anyway; a page served
						// without Content-Type has one with the plain fetcher only.
						continue
					}
					if got, want := slices.Contains(docs, home+p), !slices.Contains(tt.noDoc, p); got != want {
						t.Errorf("document of %q written: %v, want %v", p, got, want)
					}
				}
				var events []string
				for _, e := range readEventsFile(t, filepath.Join(cfg.Dir, crawl.EventsFile)) {
					if e["event.action"] == crawl.ActionContentExcluded {
						label := e["labels.type"]
						if label == nil {
							label = e["labels.header"]
						}
						events = append(events, fmt.Sprintf("%s %v %v", strings.TrimPrefix(fmt.Sprint(e["url.full"]), home), e["event.reason"], label))
					}
				}
				sort.Strings(events)
				if !slices.Equal(events, tt.events) {
					t.Errorf("content-excluded events %q, want %q", events, tt.events)
				}
				reports, err := warccheck.ValidateDir(filepath.Join(cfg.Dir, crawl.WARCDir))
				if err != nil {
					t.Fatal(err)
				}
				marked := map[string]string{}
				responses := map[string]bool{}
				for _, r := range reports {
					if !r.OK() {
						t.Errorf("%s: %v", r.Path, r.Errors)
					}
					for _, rec := range r.Records {
						path := strings.TrimPrefix(rec.TargetURI, home)
						switch rec.Type {
						case "response":
							responses[path] = true
						case "metadata":
							if v := rec.Field("excluded"); v != "" {
								marked[path] = v
							}
						}
					}
				}
				for _, p := range tt.fetched {
					if !responses[p] {
						t.Errorf("no response record of %q", p)
					}
				}
				wantMarked := map[string]string{}
				for p, n := range tt.notes {
					if kind, what, ok := strings.Cut(n, "-excluded:"); ok {
						wantMarked[p] = kind + ":" + what
					}
				}
				if fmt.Sprint(marked) != fmt.Sprint(wantMarked) {
					t.Errorf("metadata excluded: %v, want %v", marked, wantMarked)
				}
			})
		}
	}
}

// TestContentFilterCSS: with the plain fetcher a style sheet is a URL of its own, searched
// for links unless Content.LinkTypes leaves text/css out.
func TestContentFilterCSS(t *testing.T) {
	for _, tt := range []struct {
		linkTypes []string
		bg        bool // bg.png fetched
	}{
		{nil, true},
		{[]string{"text/html", "application/xhtml+xml"}, false},
		{[]string{"text/html", "text/css"}, true},
	} {
		t.Run(strings.Join(tt.linkTypes, ","), func(t *testing.T) {
			ts, err := testsite.StartHandler(contentSite{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ts.Close() })
			cfg := fastConfig(t, ts, crawl.FetcherHTTP)
			cfg.Content.LinkTypes = tt.linkTypes
			last := lastLines(runFAST(t, cfg))
			css := last["http://www.example.com/style.css"]
			if css.Status != 200 {
				t.Fatalf("style.css: status %d, want 200", css.Status)
			}
			if got := slices.Contains(css.Annotations, "links-not-searched:text/css"); got == tt.bg {
				t.Errorf("style.css annotations %v: links-not-searched %v, want %v", css.Annotations, got, !tt.bg)
			}
			if bg := last["http://www.example.com/bg.png"]; (bg.Status == 200) != tt.bg {
				t.Errorf("bg.png: status %d, fetched want %v", bg.Status, tt.bg)
			}
		})
	}
}

// TestContentConfigValidate: MIME types are type/subtype with a field either * or without
// one; header rules come from NewHeaderRule, which wants a field name and an RE2 pattern.
func TestContentConfigValidate(t *testing.T) {
	for _, tt := range []struct {
		name   string
		types  []string
		links  []string
		header [2]string // name, pattern for NewHeaderRule; empty: none
		ok     bool
	}{
		{"empty", nil, nil, [2]string{}, true},
		{"exact", []string{"text/html", "Application/PDF"}, []string{"text/vnd.wap.wml"}, [2]string{}, true},
		{"wildcards", []string{"text/*", "*/*", "*/xml"}, []string{"*/*"}, [2]string{}, true},
		{"no subtype", []string{"text"}, nil, [2]string{}, false},
		{"empty subtype", []string{"text/"}, nil, [2]string{}, false},
		{"partial wildcard", []string{"text/x-*"}, nil, [2]string{}, false},
		{"partial wildcard in links", nil, []string{"appl*/pdf"}, [2]string{}, false},
		{"two slashes", []string{"text/html/x"}, nil, [2]string{}, false},
		{"parameters", []string{"text/html; charset=utf-8"}, nil, [2]string{}, false},
		{"header", nil, nil, [2]string{"X-Robots-Tag", "noarchive"}, true},
		{"header name with space", nil, nil, [2]string{"X Robots", "a"}, false},
		{"header bad regexp", nil, nil, [2]string{"Server", "a(b"}, false},
		{"header backreference", nil, nil, [2]string{"Server", `(a)\1`}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := crawl.DefaultConfig()
			cfg.Dir = t.TempDir()
			cfg.Scope.Seeds = basicConfig(t, nil, cfg.Dir).Scope.Seeds
			cfg.Content = crawl.ContentConfig{Types: tt.types, LinkTypes: tt.links}
			var err error
			if tt.header[0] != "" {
				var r crawl.HeaderRule
				r, err = crawl.NewHeaderRule(tt.header[0], tt.header[1])
				cfg.Content.ExcludeHeaders = []crawl.HeaderRule{r}
			}
			if err == nil {
				err = cfg.Validate()
			}
			if (err == nil) != tt.ok {
				t.Fatalf("err %v, want ok %v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, crawl.ErrConfig) {
				t.Errorf("err %v does not wrap crawl.ErrConfig", err)
			}
		})
	}
}

// TestMatchType: FAST's wildcards stand for a whole field, and types match in any case.
func TestMatchType(t *testing.T) {
	for _, tt := range []struct {
		patterns []string
		mt       string
		want     bool
	}{
		{[]string{"text/html"}, "text/html", true},
		{[]string{"text/html"}, "TEXT/HTML", true},
		{[]string{"Text/Html"}, "text/html", true},
		{[]string{"text/html"}, "text/htmlx", false},
		{[]string{"text/html"}, "text/plain", false},
		{[]string{"text/*"}, "text/plain", true},
		{[]string{"text/*"}, "texts/plain", false},
		{[]string{"text/*"}, "application/text", false},
		{[]string{"*/xml"}, "application/xml", true},
		{[]string{"*/xml"}, "application/rss+xml", false},
		{[]string{"*/*"}, "application/octet-stream", true},
		{[]string{"application/pdf", "text/*"}, "text/csv", true},
		{nil, "text/html", false},
	} {
		if got := crawl.MatchType(tt.patterns, tt.mt); got != tt.want {
			t.Errorf("MatchType(%q, %q) = %v, want %v", tt.patterns, tt.mt, got, tt.want)
		}
	}
}

// cookieSite sets a session cookie and one with Max-Age on /, which links to /p/1 and /p/2;
// it records the Cookie header each /p/ page was asked with.
type cookieSite struct {
	mu  sync.Mutex        // guards got
	got map[string]string // path -> Cookie
}

func (s *cookieSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch {
	case r.URL.Path == "/":
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "abc", Path: "/"})
		http.SetCookie(w, &http.Cookie{Name: "pref", Value: "x", Path: "/", MaxAge: 3600})
		fmt.Fprint(w, `<html><body><a href="/p/1">1</a> <a href="/p/2">2</a></body></html>`)
	case strings.HasPrefix(r.URL.Path, "/p/"):
		s.mu.Lock()
		s.got[r.URL.Path] = r.Header.Get("Cookie")
		s.mu.Unlock()
		fmt.Fprint(w, `<html><body>a page</body></html>`)
	default:
		http.NotFound(w, r)
	}
}

// TestSessionCookieTTL: with FAST's cookie_timeout (SessionCookieTTL) a session cookie
// leaves the jar that long after it was set (here at once), a cookie with its own expiry
// stays; without it, both are sent for the whole run. The plain fetcher only: the browser
// fetcher's Chromium keeps its own cookies, which the jar does not expire.
func TestSessionCookieTTL(t *testing.T) {
	for _, tt := range []struct {
		ttl  time.Duration
		want string
	}{
		{0, "pref=x; session=abc"},
		{time.Nanosecond, "pref=x"},
	} {
		t.Run(tt.ttl.String(), func(t *testing.T) {
			site := &cookieSite{got: map[string]string{}}
			ts, err := testsite.StartHandler(site)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ts.Close() })
			cfg := fastConfig(t, ts, crawl.FetcherHTTP)
			cfg.Fetch.Jar = fetch.NewJar()
			cfg.SessionCookieTTL = tt.ttl
			runFAST(t, cfg)
			for _, p := range []string{"/p/1", "/p/2"} {
				parts := strings.Split(site.got[p], "; ")
				sort.Strings(parts)
				if got := strings.Join(parts, "; "); got != tt.want {
					t.Errorf("%s: Cookie %q, want %q", p, got, tt.want)
				}
			}
		})
	}
}

// TestSessionCookieTTLValidate: a negative SessionCookieTTL is refused, naming the field.
func TestSessionCookieTTLValidate(t *testing.T) {
	for _, tt := range []struct {
		ttl time.Duration
		ok  bool
	}{{0, true}, {time.Second, true}, {-time.Second, false}} {
		cfg := basicConfig(t, nil, t.TempDir())
		cfg.SessionCookieTTL = tt.ttl
		err := cfg.Validate()
		var fe *crawl.FieldError
		if tt.ok != (err == nil) || (err != nil && (!errors.As(err, &fe) || fe.Field != "SessionCookieTTL")) {
			t.Errorf("SessionCookieTTL %v: err %v, want ok %v", tt.ttl, err, tt.ok)
		}
	}
}

// postSite answers every path with a page; / links to /search, /secure/a, /secure/b and
// /other, and a POST is answered with a link to /found-PATH. It records each request as
// "METHOD PATH BODY".
type postSite struct {
	mu   sync.Mutex // guards reqs
	reqs []string
}

func (s *postSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.reqs = append(s.reqs, r.Method+" "+r.URL.Path+" "+string(body))
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" || r.URL.Path == "/favicon.ico" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch {
	case r.URL.Path == "/":
		fmt.Fprint(w, `<html><body><a href="/search">s</a> <a href="/secure/a">a</a> <a href="/secure/b">b</a> <a href="/other">o</a></body></html>`)
	case r.Method == http.MethodPost && r.Header.Get("Content-Type") == "application/x-www-form-urlencoded":
		fmt.Fprintf(w, `<html><body><a href="/found%s">found</a></body></html>`, strings.ReplaceAll(r.URL.Path, "/", "-"))
	default:
		fmt.Fprint(w, `<html><body>a page</body></html>`)
	}
}

// TestPostPayload: FAST's post_payload (PostPayloads) makes the requests for an exact URL and
// for the URLs under a prefix (the longest winning) POST requests with the body, with both
// fetchers (the browser's through the plain HTTP client: a page load is a GET); the POST is
// archived with its body, its crawl.log line says post, and its answer's links are followed.
func TestPostPayload(t *testing.T) {
	for _, fetcher := range fetchers() {
		t.Run(fetcher, func(t *testing.T) {
			site := &postSite{}
			ts, err := testsite.StartHandler(site)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ts.Close() })
			cfg := fastConfig(t, ts, fetcher)
			cfg.PostPayloads = []crawl.PostPayload{
				{URL: "HTTP://WWW.EXAMPLE.COM/search", Body: "q=archives&x=1"},
				{URL: "http://www.example.com/secure/", Prefix: true, Body: "token=1"},
				{URL: "http://www.example.com/secure/b", Prefix: true, Body: "token=2"},
				{URL: "http://www.example.com/oth", Body: "exact only"},
			}
			last := lastLines(runFAST(t, cfg))
			site.mu.Lock()
			reqs := slices.Clone(site.reqs)
			site.mu.Unlock()
			var got []string
			for _, r := range reqs {
				if !strings.Contains(r, "/robots.txt") && !strings.Contains(r, "/favicon.ico") {
					got = append(got, r)
				}
			}
			sort.Strings(got)
			want := []string{"GET / ", "GET /found-search ", "GET /found-secure-a ", "GET /found-secure-b ", "GET /other ",
				"POST /search q=archives&x=1", "POST /secure/a token=1", "POST /secure/b token=2"}
			if !slices.Equal(got, want) {
				t.Errorf("requests\n%q\nwant\n%q", got, want)
			}
			for _, p := range []string{"search", "secure/a", "secure/b", "other", ""} {
				l := last["http://www.example.com/"+p]
				posted := p != "other" && p != ""
				if l.Status != 200 || slices.Contains(l.Annotations, "post") != posted {
					t.Errorf("/%s: status %d annotations %v, want 200 and post %v", p, l.Status, l.Annotations, posted)
				}
			}
			reports, err := warccheck.ValidateDir(filepath.Join(cfg.Dir, crawl.WARCDir))
			if err != nil {
				t.Fatal(err)
			}
			var bodies []string
			for _, r := range reports {
				if !r.OK() {
					t.Errorf("%s: %v", r.Path, r.Errors)
				}
				for _, rec := range r.Records {
					if rec.Type != "request" {
						continue
					}
					if block := recordBlock(t, r.Path, rec.Offset); strings.HasPrefix(block, "POST ") {
						head, body, _ := strings.Cut(block, "\r\n\r\n")
						if !strings.Contains(head, "\r\nContent-Type: application/x-www-form-urlencoded\r\n") {
							t.Errorf("POST request record without its Content-Type:\n%s", head)
						}
						bodies = append(bodies, strings.SplitN(head, " ", 3)[1]+" "+body)
					}
				}
			}
			sort.Strings(bodies)
			if want := []string{"/search q=archives&x=1", "/secure/a token=1", "/secure/b token=2"}; !slices.Equal(bodies, want) {
				t.Errorf("POST request records %q, want %q", bodies, want)
			}
		})
	}
}

// TestPostPayloadValidate: a payload's URL must be an http or https URL.
func TestPostPayloadValidate(t *testing.T) {
	for _, tt := range []struct {
		url string
		ok  bool
	}{
		{"http://www.example.com/search", true},
		{"https://www.example.com/", true},
		{"ftp://www.example.com/", false},
		{"/search", false},
		{"http:///search", false},
		{"", false},
	} {
		cfg := basicConfig(t, nil, t.TempDir())
		cfg.PostPayloads = []crawl.PostPayload{{URL: tt.url, Body: "a=b"}}
		err := cfg.Validate()
		var fe *crawl.FieldError
		if tt.ok != (err == nil) || (err != nil && (!errors.As(err, &fe) || fe.Field != "PostPayloads[0]")) {
			t.Errorf("%q: err %v, want ok %v", tt.url, err, tt.ok)
		}
	}
}

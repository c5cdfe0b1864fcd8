package crawl_test

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/amber-crawler/amber/contentfilter"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/internal/crawltest"
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

// unfetchedNotes are the notes and events of TestContentFilter's case with the plain fetcher:
// those of the paths whose body it does not fetch are type-not-fetched.
func unfetchedNotes(notes map[string]string, events, unfetched []string) (map[string]string, []string, []string) {
	out := maps.Clone(notes)
	evs := slices.Clone(events)
	for _, p := range unfetched {
		out[p] = strings.Replace(out[p], "type-excluded:", "type-not-fetched:", 1)
		for i, e := range evs {
			if path, rest, _ := strings.Cut(e, " "); path == p {
				evs[i] = path + " " + strings.Replace(rest, "type-excluded", "type-not-fetched", 1)
			}
		}
	}
	return out, evs, unfetched
}

func headerRule(t *testing.T, name, pattern string) contentfilter.HeaderRule {
	t.Helper()
	r, err := contentfilter.NewHeaderRule(name, pattern)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestContentFilter crawls contentSite with FAST's allowed_types (Content.Types),
// uri_search_mime (Content.LinkTypes) and exclude_headers (Content.ExcludeHeaders), with both
// fetchers: a response left out is archived and logged with its reason (crawl.log
// annotation, metadata record, content-excluded event), its links are not followed and it has
// no search document; a redirect is followed whatever its type. With the plain fetcher, a
// response whose Content-Type is a type Types leaves out is not fetched: no response record,
// its request and a metadata record saying so (notFetched), type-not-fetched:TYPE.
func TestContentFilter(t *testing.T) {
	const home = "http://www.example.com/"
	all := []string{"", "after.html", "from-after", "from-header", "from-untyped", "from-xhtml", "header.html", "moved", "page.xhtml", "text.txt", "untyped"}
	tests := []struct {
		name    string
		content func(t *testing.T) contentfilter.Config
		// fetched: the paths with a response (besides robots.txt, the favicon and the style
		// sheet and its image, which the browser loads with /); notes: path -> the annotation it must have.
		fetched []string
		notes   map[string]string
		noDoc   []string // pages whose search document is not written (all the others are)
		events  []string // content-excluded events: "path reason label"
		// unfetched are the paths of notes whose body the plain fetcher does not fetch: their
		// note type-excluded:TYPE is type-not-fetched:TYPE then, and so is their event's reason.
		unfetched []string
	}{
		{name: "none", content: func(*testing.T) contentfilter.Config { return contentfilter.Config{} }, fetched: all},
		{name: "all-types", content: func(*testing.T) contentfilter.Config {
			return contentfilter.Config{Types: []string{"*/*"}, LinkTypes: []string{"*/*"}}
		}, fetched: all},
		{name: "types", content: func(*testing.T) contentfilter.Config {
			return contentfilter.Config{Types: []string{"TEXT/HTML", "text/css", "image/*"}}
		},
			fetched:   []string{"", "after.html", "from-after", "from-header", "from-untyped", "header.html", "moved", "page.xhtml", "text.txt", "untyped"},
			notes:     map[string]string{"page.xhtml": "type-excluded:application/xhtml+xml", "text.txt": "type-excluded:text/plain"},
			noDoc:     []string{"page.xhtml"},
			events:    []string{"page.xhtml type-excluded application/xhtml+xml", "text.txt type-excluded text/plain"},
			unfetched: []string{"page.xhtml", "text.txt"},
		},
		{name: "untyped-sniffed", content: func(*testing.T) contentfilter.Config {
			return contentfilter.Config{Types: []string{"text/plain", "text/css", "image/png", "application/xhtml+xml"}}
		},
			// / itself is HTML: nothing beyond it.
			fetched:   []string{""},
			notes:     map[string]string{"": "type-excluded:text/html"},
			noDoc:     []string{""},
			events:    []string{" type-excluded text/html"},
			unfetched: []string{""},
		},
		{name: "headers", content: func(t *testing.T) contentfilter.Config {
			return contentfilter.Config{ExcludeHeaders: []contentfilter.HeaderRule{headerRule(t, "x-amber-class", `\bsecret\b`)}}
		},
			fetched: []string{"", "after.html", "from-after", "from-untyped", "from-xhtml", "header.html", "moved", "page.xhtml", "text.txt", "untyped"},
			notes:   map[string]string{"header.html": "header-excluded:X-Amber-Class"},
			noDoc:   []string{"header.html"},
			events:  []string{"header.html header-excluded X-Amber-Class"},
		},
		{name: "headers-no-match", content: func(t *testing.T) contentfilter.Config {
			return contentfilter.Config{ExcludeHeaders: []contentfilter.HeaderRule{headerRule(t, "X-Amber-Class", `^secret$`), headerRule(t, "X-Absent", `.*`)}}
		}, fetched: all},
		{name: "link-types", content: func(*testing.T) contentfilter.Config {
			return contentfilter.Config{LinkTypes: []string{"text/css", "application/*"}}
		},
			fetched: []string{""},
			notes:   map[string]string{"": "links-not-searched:text/html"},
		},
		{name: "link-types-wildcard", content: func(*testing.T) contentfilter.Config {
			return contentfilter.Config{LinkTypes: []string{"text/*"}}
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
				notes, events := tt.notes, tt.events
				var unfetched []string
				if fetcher == crawl.FetcherHTTP {
					notes, events, unfetched = unfetchedNotes(tt.notes, tt.events, tt.unfetched)
				}
				lines := runFAST(t, cfg)
				var fetched []string
				for _, l := range lines {
					path := strings.TrimPrefix(l.URL, home)
					if l.Status <= 0 || path == "robots.txt" || path == "style.css" || path == "bg.png" || path == "favicon.ico" {
						continue
					}
					fetched = append(fetched, path)
					note, want := notes[path]
					var got []string
					for _, a := range l.Annotations {
						if strings.Contains(a, "excluded:") || strings.HasPrefix(a, "links-not-searched:") || strings.HasPrefix(a, "type-not-fetched:") {
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
				var gotEvents []string
				for _, e := range crawltest.ReadEvents(t, filepath.Join(cfg.Dir, crawl.EventsFile)) {
					if e["event.action"] == contentfilter.ActionExcluded {
						label := e["labels.type"]
						if label == nil {
							label = e["labels.header"]
						}
						gotEvents = append(gotEvents, fmt.Sprintf("%s %v %v", strings.TrimPrefix(fmt.Sprint(e["url.full"]), home), e["event.reason"], label))
					}
				}
				sort.Strings(gotEvents)
				if !slices.Equal(gotEvents, events) {
					t.Errorf("content-excluded events %q, want %q", gotEvents, events)
				}
				reports, err := warccheck.ValidateDir(filepath.Join(cfg.Dir, crawl.WARCDir))
				if err != nil {
					t.Fatal(err)
				}
				marked, notFetched := map[string]string{}, map[string]string{}
				responses, requests := map[string]bool{}, map[string]bool{}
				for _, r := range reports {
					if !r.OK() {
						t.Errorf("%s: %v", r.Path, r.Errors)
					}
					for _, rec := range r.Records {
						path := strings.TrimPrefix(rec.TargetURI, home)
						switch rec.Type {
						case "response":
							responses[path] = true
						case "request":
							requests[path] = true
						case "metadata":
							if v := rec.Field("excluded"); v != "" {
								marked[path] = v
							}
							if v := rec.Field("notFetched"); v != "" {
								notFetched[path] = v
							}
						}
					}
				}
				for _, p := range tt.fetched {
					if got, want := responses[p], !slices.Contains(unfetched, p); got != want || !requests[p] {
						t.Errorf("%q: a response record %v, want %v; a request record %v", p, got, want, requests[p])
					}
				}
				wantMarked, wantNotFetched := map[string]string{}, map[string]string{}
				for p, n := range notes {
					if kind, what, ok := strings.Cut(n, "-excluded:"); ok {
						wantMarked[p] = kind + ":" + what
					}
					if what, ok := strings.CutPrefix(n, "type-not-fetched:"); ok {
						wantNotFetched[p] = "type:" + what
					}
				}
				if fmt.Sprint(marked) != fmt.Sprint(wantMarked) {
					t.Errorf("metadata excluded: %v, want %v", marked, wantMarked)
				}
				if fmt.Sprint(notFetched) != fmt.Sprint(wantNotFetched) {
					t.Errorf("metadata notFetched: %v, want %v", notFetched, wantNotFetched)
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
			cfg.Content = contentfilter.Config{Types: tt.types, LinkTypes: tt.links}
			var err error
			if tt.header[0] != "" {
				var r contentfilter.HeaderRule
				r, err = contentfilter.NewHeaderRule(tt.header[0], tt.header[1])
				cfg.Content.ExcludeHeaders = []contentfilter.HeaderRule{r}
			}
			if err == nil {
				err = cfg.Validate()
			}
			if (err == nil) != tt.ok {
				t.Fatalf("err %v, want ok %v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, crawl.ErrConfig) && !errors.Is(err, contentfilter.ErrConfig) {
				t.Errorf("err %v wraps neither crawl.ErrConfig nor contentfilter.ErrConfig", err)
			}
		})
	}
}

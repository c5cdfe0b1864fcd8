package crawl_test

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"fmt"
	"html"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/browser"
	"github.com/amber-crawler/amber/crawl"
	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/crawltest"
	"github.com/amber-crawler/amber/internal/testsite"
	"github.com/amber-crawler/amber/internal/warccheck"
	"github.com/amber-crawler/amber/login"
	"github.com/amber-crawler/amber/scope"
)

// memberSite is www.example.com with a login form (a session cookie set by the form's page,
// a hidden CSRF token bound to it), members' pages that redirect to the form without a
// logged-in session, a session that ends after maxViews members' pages, and /private/, a
// Basic realm.
type memberSite struct {
	maxViews int

	mu       sync.Mutex
	tokens   map[string]string // CSRF token by session id
	views    map[string]int    // members' pages served by logged-in session id
	logins   int
	posted   []string // the bodies of the login POSTs
	loggedIn map[string]bool
}

func newMemberSite(t *testing.T, maxViews int) (*memberSite, *testsite.Server) {
	s := &memberSite{maxViews: maxViews, tokens: map[string]string{}, views: map[string]int{}, loggedIn: map[string]bool{}}
	site, err := testsite.StartHandler(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { site.Close() })
	return s, site
}

func (s *memberSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	page := func(title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>%s</title><h1>%s</h1>%s", title, title, body)
	}
	sid := ""
	if c, err := r.Cookie("sid"); err == nil {
		sid = c.Value
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := r.URL.Path
	switch {
	case p == "/":
		page("Home", `<a href="/members/">Members</a> <a href="/private/report.html">Report</a> <a href="/about.html">About</a>`)
	case p == "/about.html":
		page("About", "public")
	case p == "/favicon.ico" || p == "/robots.txt":
		http.NotFound(w, r)
	case p == "/login.html":
		if _, ok := s.tokens[sid]; !ok {
			sid = rand.Text()
			s.tokens[sid] = rand.Text()
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/", HttpOnly: true})
		}
		page("Log in", fmt.Sprintf(`<form action="/search"><input name=q></form>
<form method=post action="session"><input type=hidden name=csrf value="%s">
<input name=user><input type=password name=pass><input type=checkbox name=remember checked>
<button name=go value=1>Log in</button></form>`, html.EscapeString(s.tokens[sid])))
	case p == "/session" && r.Method == http.MethodPost:
		b, _ := io.ReadAll(r.Body)
		s.posted = append(s.posted, string(b))
		r.Body = io.NopCloser(bytes.NewReader(b))
		if err := r.ParseForm(); err != nil || s.tokens[sid] == "" || r.PostForm.Get("csrf") != s.tokens[sid] {
			http.Error(w, "bad CSRF token", http.StatusForbidden)
			return
		}
		if r.PostForm.Get("user") != "alice" || r.PostForm.Get("pass") != "s3cret" {
			http.Redirect(w, r, "/login.html", http.StatusSeeOther)
			return
		}
		s.loggedIn[sid] = true
		s.views[sid] = 0
		s.logins++
		http.Redirect(w, r, "/members/", http.StatusSeeOther)
	case strings.HasPrefix(p, "/members/"):
		if !s.loggedIn[sid] || s.views[sid] >= s.maxViews {
			delete(s.loggedIn, sid)
			http.Redirect(w, r, "/login.html?next="+p, http.StatusFound)
			return
		}
		s.views[sid]++
		switch p {
		case "/members/":
			page("Members", `Members only. <a href="a.html">A</a> <a href="b.html">B</a> <a href="c.html">C</a>`)
		default:
			page("Member page "+strings.TrimSuffix(filepath.Base(p), ".html"), "Members only.")
		}
	case strings.HasPrefix(p, "/private/"):
		if u, pw, ok := r.BasicAuth(); !ok || u != "alice" || pw != "realm-pw" {
			w.Header().Set("WWW-Authenticate", `Basic realm="Private Zone"`)
			http.Error(w, "authorization required", http.StatusUnauthorized)
			return
		}
		if p == "/private/report.html" {
			page("Private report", `Confidential. <a href="annex.html">Annex</a>`)
			return
		}
		page("Private annex", "Confidential too.")
	default:
		http.NotFound(w, r)
	}
}

// TestCrawlLogin crawls the members' site with each fetcher: the crawl logs in (a GET of
// the form's page, the POST with the CSRF token, its redirect) before the first page, captures
// the members' pages as 200s with their content, logs in again once when the session ends
// and fetches that page again, answers the realm's 401 once and then sends the credential
// ahead; the WARC holds the POST with its body.
func TestCrawlLogin(t *testing.T) {
	for _, fetcher := range []string{crawl.FetcherHTTP, crawl.FetcherBrowser} {
		t.Run(fetcher, func(t *testing.T) {
			var chromium string
			if fetcher == crawl.FetcherBrowser {
				chromium = crawltest.Chromium(t)
			}
			srv, site := newMemberSite(t, 4)
			cfg := basicConfig(t, site, t.TempDir())
			cfg.Fetcher = fetcher
			if fetcher == crawl.FetcherBrowser {
				cfg.Browser = browser.Config{Path: chromium, PageTimeout: 60 * time.Second, BehaviorTimeout: 5 * time.Second}
				cfg.Scope.Flavour = scope.Brozzler
			}
			cfg.HostConcurrency = 1 // the members' pages one after the other: one session ends
			cfg.Fetch.Jar = fetch.NewJar()
			cfg.Fetch.HTTPAuthAllowed = true
			cfg.Fetch.Auth = []fetch.OriginAuth{{Realm: "Private Zone", Basic: &fetch.BasicAuth{Username: "alice", Password: "realm-pw"}}}
			cfg.Logins = []login.Spec{{Name: "members", HTMLForm: "http://www.example.com/login.html", Autofill: true,
				Parameters: []login.Field{{Name: "user", Value: "alice"}, {Name: "pass", Value: "s3cret"}},
				Sites:      []string{"www.example.com"}, ReloginIfFailed: true}}
			res, err := crawl.Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.End != crawl.EndFinished {
				t.Fatalf("end %q", res.End)
			}

			// Two logins: before the first page, and when the session ended.
			srv.mu.Lock()
			logins, posted := srv.logins, slices.Clone(srv.posted)
			srv.mu.Unlock()
			if logins != 2 || len(posted) != 2 {
				t.Errorf("%d logins, %d posts; want 2", logins, len(posted))
			}

			// The WARC: every page captured 200 in the end, the realm's 401 once, the login's
			// exchanges, and the POST with its body.
			reports, err := warccheck.ValidateDir(filepath.Join(cfg.Dir, crawl.WARCDir))
			if err != nil {
				t.Fatal(err)
			}
			statuses := map[string][]int{}
			var postBodies []string
			for _, r := range reports {
				if !r.OK() {
					t.Errorf("%s: %v", r.Path, r.Errors)
				}
				for _, rec := range r.Records {
					switch rec.Type {
					case "response", "revisit": // a second login's identical pages are revisits
						p := strings.TrimPrefix(rec.TargetURI, "http://www.example.com")
						statuses[p] = append(statuses[p], rec.HTTPStatus)
					case "request":
						block := recordBlock(t, r.Path, rec.Offset)
						if strings.HasPrefix(block, "POST /session HTTP/1.1\r\n") {
							_, body, _ := strings.Cut(block, "\r\n\r\n")
							postBodies = append(postBodies, body)
						}
					}
				}
			}
			for p, want := range map[string][]int{
				"/members/":            {200, 200, 200}, // the two logins' redirects and the page
				"/private/report.html": {401, 200},
				"/private/annex.html":  {200},
				"/about.html":          {200},
				"/login.html":          {200, 200},
				"/session":             {303, 303},
			} {
				if got := statuses[p]; !slices.Equal(got, want) {
					t.Errorf("%s: responses %v, want %v", p, got, want)
				}
			}
			// The page whose session had ended: its logged-out redirect, then the page.
			ended := ""
			for _, p := range []string{"/members/a.html", "/members/b.html", "/members/c.html"} {
				if slices.Equal(statuses[p], []int{302, 200}) {
					ended = p
				} else if !slices.Equal(statuses[p], []int{200}) {
					t.Errorf("%s: responses %v, want [200] or [302 200]", p, statuses[p])
				}
			}
			if ended == "" {
				t.Errorf("no members' page was fetched logged out and again: %v", statuses)
			}
			if len(postBodies) != 2 {
				t.Fatalf("%d POST /session requests in the WARC, want 2", len(postBodies))
			}
			for i, b := range postBodies {
				if b != posted[i] || !strings.HasPrefix(b, "csrf=") || !strings.Contains(b, "&user=alice&pass=s3cret&remember=on&go=1") {
					t.Errorf("POST body %d in the WARC %q; the server got %q", i, b, posted[i])
				}
			}

			// crawl.log: the login's lines as prerequisites of the page that needed them.
			lines := crawltest.ReadCrawlLog(t, filepath.Join(cfg.Dir, crawl.CrawlLogFile))
			var loginLines, challenge, loggedOut int
			for _, l := range lines {
				switch {
				case slices.Contains(l.Annotations, "login:submit"):
					loginLines++
					if l.URL != "http://www.example.com/session" || !strings.HasSuffix(l.Hops, "P") || l.Status != 303 {
						t.Errorf("login line %+v", l)
					}
				case slices.Contains(l.Annotations, "auth-challenge"):
					challenge++
					if l.URL != "http://www.example.com/private/report.html" || l.Status != 401 {
						t.Errorf("challenge line %+v", l)
					}
				case slices.Contains(l.Annotations, "logged-out"):
					loggedOut++
					if l.URL != "http://www.example.com"+ended || l.Status != 302 {
						t.Errorf("logged-out line %+v", l)
					}
				}
			}
			if loginLines != 2 || challenge != 1 || loggedOut != 1 {
				t.Errorf("crawl.log: %d login submissions, %d auth challenges, %d logged-out pages; want 2, 1, 1", loginLines, challenge, loggedOut)
			}

			// The pages have their content: the search documents of the protected pages.
			docs, _ := readDocuments(t, filepath.Join(cfg.Dir, crawl.DocumentsFile))
			titles := map[string]string{}
			for _, d := range docs {
				titles[strings.TrimPrefix(d.URL, "http://www.example.com")] = d.Title
			}
			for p, want := range map[string]string{"/members/": "Members", "/members/a.html": "Member page a",
				"/members/b.html": "Member page b", "/members/c.html": "Member page c",
				"/private/report.html": "Private report", "/private/annex.html": "Private annex"} {
				if titles[p] != want {
					t.Errorf("%s: document titled %q, want %q", p, titles[p], want)
				}
			}

			// events.jsonl: two login events, successes, without the password.
			var events []map[string]any
			for _, ev := range crawltest.ReadEvents(t, filepath.Join(cfg.Dir, crawl.EventsFile)) {
				if ev["event.action"] == login.ActionLogin {
					events = append(events, ev)
				}
			}
			if len(events) != 2 {
				t.Errorf("%d login events, want 2", len(events))
			}
			for _, ev := range events {
				if ev["event.outcome"] != "success" || ev["labels.login"] != "members" {
					t.Errorf("login event %v", ev)
				}
			}
			for _, f := range []string{crawl.EventsFile, crawl.CrawlLogFile} {
				b, err := os.ReadFile(filepath.Join(cfg.Dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(b, []byte("s3cret")) || bytes.Contains(b, []byte("realm-pw")) {
					t.Errorf("%s holds a password", f)
				}
			}
		})
	}
}

// recordBlock returns the block of the WARC record at offset in a gzipped WARC file.
func recordBlock(t *testing.T, path string, offset int64) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "\r\n\r\n")
	if !ok {
		t.Fatalf("record at %d has no block", offset)
	}
	return strings.TrimSuffix(block, "\r\n\r\n")
}

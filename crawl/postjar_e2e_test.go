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

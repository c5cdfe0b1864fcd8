package browser

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/amber-crawler/amber/fetch"
	"github.com/amber-crawler/amber/internal/crawltest"
)

// cookieSite sets cookies three ways (a page's Set-Cookie, a script, a response fetched by
// the plain fetcher) and keeps the Cookie header of every request it gets.
type cookieSite struct {
	*httptest.Server
	mu   sync.Mutex        // guards sent
	sent map[string]string // request URI -> its Cookie header
}

func newCookieSite(t *testing.T) *cookieSite {
	s := &cookieSite{sent: map[string]string{}}
	page := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!DOCTYPE html><html><head><title>t</title></head><body>%s</body></html>", body)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s1", Path: "/", HttpOnly: true})
		page(w, "logged in")
	})
	mux.HandleFunc("/script-cookie", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<script>document.cookie = "consent=yes; path=/";</script>consent given`)
	})
	mux.HandleFunc("/plain-cookie", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "plain", Value: "p1", Path: "/"})
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("set"))
	})
	mux.HandleFunc("/members", func(w http.ResponseWriter, r *http.Request) {
		page(w, "members")
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.sent[r.RequestURI] = r.Header.Get("Cookie")
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// cookieStep loads a page in the browser, or fetches it with the plain fetcher.
type cookieStep struct {
	plain bool
	path  string
	want  *string // the Cookie header the site got for path; nil: not checked
}

func cookie(s string) *string { return &s }

// TestSharedJar: with the jar in Config.Jar and the client's config, the crawl's cookies go
// with later requests of both fetchers, whichever set them (a page's response, a script, the
// plain fetcher), also in a new browser (RecycleAfter 1: each page in a fresh Chromium with a
// fresh profile); without it, a new browser has none.
func TestSharedJar(t *testing.T) {
	path := crawltest.Chromium(t)
	for _, tc := range []struct {
		name    string
		jar     bool // in the client's config and Config.Jar, as the crawl does
		recycle int
		steps   []cookieStep
	}{
		{"session cookie in a new browser", true, 1, []cookieStep{
			{path: "/login"},
			{path: "/members?1", want: cookie("session=s1")},
			{plain: true, path: "/members?2", want: cookie("session=s1")},
		}},
		{"no jar: a new browser has no cookies", false, 1, []cookieStep{
			{path: "/login"},
			{path: "/members?1", want: cookie("")},
			{plain: true, path: "/members?2", want: cookie("")},
		}},
		{"a script's cookie reaches the plain fetcher, whose cookie joins Chromium's", true, 50, []cookieStep{
			{path: "/script-cookie"},
			{plain: true, path: "/members?1", want: cookie("consent=yes")},
			{plain: true, path: "/plain-cookie"},
			{path: "/members?2", want: cookie("consent=yes; plain=p1")},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newCookieSite(t)
			jar := fetch.NewJar()
			fc := fetch.Config{UserAgent: "amber-test/1.0", AllowPrivate: true}
			if tc.jar {
				fc.Jar = jar
			}
			client, err := fetch.NewClient(fc)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { client.Close() })
			cfg := Config{Path: path, Client: client, PageTimeout: 45 * time.Second,
				RecycleAfter: tc.recycle, Logger: slog.New(slog.DiscardHandler)}
			if tc.jar {
				cfg.Jar = jar
			}
			f, err := New(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			for _, st := range tc.steps {
				u := s.URL + st.path
				if st.plain {
					ex, err := client.Do(t.Context(), fetch.Request{URL: u})
					if err != nil {
						t.Fatalf("plain %s: %v", st.path, err)
					}
					ex.Close()
				} else {
					ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
					p, err := f.Load(ctx, fetch.Request{URL: u})
					cancel()
					if err != nil {
						t.Fatalf("browser %s: %v", st.path, err)
					}
					p.Close()
				}
				if st.want == nil {
					continue
				}
				s.mu.Lock()
				got, ok := s.sent[st.path]
				s.mu.Unlock()
				if !ok {
					t.Fatalf("%s was not requested", st.path)
				}
				if got != *st.want {
					t.Errorf("%s sent Cookie %q, want %q", st.path, got, *st.want)
				}
			}
		})
	}
}

// TestWithJarCookies: Chromium's cookies first, then the jar's of other names.
func TestWithJarCookies(t *testing.T) {
	jar := fetch.NewJar()
	const u = "http://www.example.com/x"
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	jar.SetCookies(pu, []*http.Cookie{{Name: "a", Value: "jar"}, {Name: "b", Value: "two words"}})
	for _, tc := range []struct {
		url      string
		chromium []string
		want     string
	}{
		{u, nil, `a=jar; b="two words"`},
		{u, []string{"a=chromium"}, `a=chromium; b="two words"`},
		{u, []string{"c=1; a=chromium"}, `c=1; a=chromium; b="two words"`},
		{u, []string{"a=1; b=2"}, "a=1; b=2"},
		{"http://www.example.org/x", []string{"a=1"}, "a=1"},
		{"http://www.example.org/x", nil, ""},
	} {
		if got := withJarCookies(jar, tc.url, tc.chromium); got != tc.want {
			t.Errorf("withJarCookies(%s, %q) = %q, want %q", tc.url, tc.chromium, got, tc.want)
		}
	}
}

package fetch

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cookieSite is a test site for every host name: a path ending in /set answers with a
// Set-Cookie field for each "c" query parameter (and the status of "status", default 200);
// every request's Cookie fields are kept; /private answers 403 without the cookie sid=s1.
type cookieSite struct {
	mu  sync.Mutex
	got []string
}

func (s *cookieSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.got = append(s.got, strings.Join(r.Header.Values("Cookie"), "|"))
	s.mu.Unlock()
	switch {
	case strings.HasSuffix(r.URL.Path, "/set"):
		for _, c := range r.URL.Query()["c"] {
			w.Header().Add("Set-Cookie", c)
		}
		code := http.StatusOK
		switch r.URL.Query().Get("status") {
		case "302":
			w.Header().Set("Location", "/elsewhere")
			code = http.StatusFound
		case "404":
			code = http.StatusNotFound
		case "500":
			code = http.StatusInternalServerError
		}
		w.WriteHeader(code)
	case r.URL.Path == "/private":
		if c, err := r.Cookie("sid"); err != nil || c.Value != "s1" {
			http.Error(w, "log in first", http.StatusForbidden)
			return
		}
		io.WriteString(w, "secret page")
	default:
		io.WriteString(w, "page")
	}
}

// last returns the Cookie fields of the last request ("" for none; several joined by |).
func (s *cookieSite) last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got[len(s.got)-1]
}

func setURL(base string, status string, cookies ...string) string {
	q := url.Values{"c": cookies}
	if status != "" {
		q.Set("status", status)
	}
	return base + "?" + q.Encode()
}

func fetchOK(t *testing.T, c *Client, req Request) *Exchange {
	t.Helper()
	ex, err := c.Do(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	return ex
}

// TestCookieSession: a session cookie set by one page is sent to the next, with a jar only.
func TestCookieSession(t *testing.T) {
	site := &cookieSite{}
	srv := httptest.NewServer(site)
	defer srv.Close()
	base := "http://www.site.test:" + portOf(t, srv.URL)
	for _, tt := range []struct {
		name string
		jar  http.CookieJar
		want int
	}{
		{"with jar", NewJar(), http.StatusOK},
		{"without jar", nil, http.StatusForbidden},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, Config{AllowPrivate: true, Jar: tt.jar})
			fetchOK(t, c, Request{URL: setURL(base+"/login/set", "", "sid=s1; Path=/; HttpOnly")})
			if ex := fetchOK(t, c, Request{URL: base + "/private"}); ex.StatusCode != tt.want {
				t.Errorf("page B: status %d, want %d", ex.StatusCode, tt.want)
			}
		})
	}
}

// TestCookieScope: the jar sends cookies where RFC 6265 and the public suffix list allow,
// and nowhere else.
func TestCookieScope(t *testing.T) {
	site := &cookieSite{}
	plain := httptest.NewServer(site)
	defer plain.Close()
	secure := httptest.NewUnstartedServer(site)
	secure.Config.ErrorLog = log.New(io.Discard, "", 0)
	secure.StartTLS()
	defer secure.Close()
	p, s := portOf(t, plain.URL), portOf(t, secure.URL)
	h := func(host string) string { return "http://" + host + ":" + p }
	tests := []struct {
		name    string
		set     string   // where the cookies are set (a URL ending in /set)
		cookies []string // its Set-Cookie fields
		want    map[string]string
	}{
		{name: "host only", set: h("a.test") + "/set", cookies: []string{"a=1"}, want: map[string]string{
			h("a.test") + "/x": "a=1", h("www.a.test") + "/": "", h("b.test") + "/": "", h("test") + "/": "",
			"https://a.test:" + s + "/": "a=1", // cookies do not keep to a port or scheme (RFC 6265 §8.5)
		}},
		{name: "domain", set: h("www.a.test") + "/set", cookies: []string{"d=1; Domain=a.test"}, want: map[string]string{
			h("a.test") + "/": "d=1", h("other.a.test") + "/": "d=1", h("b.test") + "/": "", h("xa.test") + "/": "",
		}},
		{name: "domain of another site", set: h("a.test") + "/set", cookies: []string{"e=1; Domain=b.test"}, want: map[string]string{
			h("b.test") + "/": "", h("a.test") + "/": "",
		}},
		{name: "suffix trap", set: h("www.test.com") + "/set", cookies: []string{"f=1; Domain=test.com"}, want: map[string]string{
			h("test.com") + "/": "f=1", h("testanother.com") + "/": "", h("anothertest.com") + "/": "",
		}},
		{name: "public suffix com", set: h("www.shop.com") + "/set", cookies: []string{"g=1; Domain=com"}, want: map[string]string{
			h("www.shop.com") + "/": "", h("other.com") + "/": "",
		}},
		{name: "public suffix co.uk", set: h("a.example.co.uk") + "/set", cookies: []string{"h=1; Domain=.co.uk"}, want: map[string]string{
			h("a.example.co.uk") + "/": "", h("b.example.co.uk") + "/": "", h("other.co.uk") + "/": "",
		}},
		{name: "registrable domain under co.uk", set: h("a.example.co.uk") + "/set", cookies: []string{"i=1; Domain=example.co.uk"},
			want: map[string]string{h("b.example.co.uk") + "/": "i=1", h("other.co.uk") + "/": ""}},
		{name: "private suffix", set: h("me.github.io") + "/set", cookies: []string{"j=1; Domain=github.io"}, want: map[string]string{
			h("you.github.io") + "/": "", h("me.github.io") + "/": "",
		}},
		{name: "path", set: h("a.test") + "/dir/set", cookies: []string{"p=1; Path=/dir"}, want: map[string]string{
			h("a.test") + "/dir": "p=1", h("a.test") + "/dir/x": "p=1", h("a.test") + "/directory": "", h("a.test") + "/": "",
		}},
		{name: "default path", set: h("a.test") + "/a/b/set", cookies: []string{"q=1"}, want: map[string]string{
			h("a.test") + "/a/b/c": "q=1", h("a.test") + "/a/x": "",
		}},
		{name: "order", set: h("a.test") + "/dir/set", cookies: []string{"a=1; Path=/", "b=2; Path=/dir", "c=3; Path=/"},
			want: map[string]string{h("a.test") + "/dir/x": "b=2; a=1; c=3", h("a.test") + "/": "a=1; c=3"}},
		{name: "secure", set: "https://a.test:" + s + "/set", cookies: []string{"s=1; Secure"}, want: map[string]string{
			"https://a.test:" + s + "/": "s=1", h("a.test") + "/": "",
		}},
		{name: "quoted value", set: h("a.test") + "/set", cookies: []string{`v="a b"`}, want: map[string]string{
			h("a.test") + "/": `v="a b"`,
		}},
		{name: "deleted", set: h("a.test") + "/set", cookies: []string{"x=1", "x=; Max-Age=0", "y=2"}, want: map[string]string{
			h("a.test") + "/": "y=2",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, Config{AllowPrivate: true, Jar: NewJar()})
			fetchOK(t, c, Request{URL: setURL(tt.set, "", tt.cookies...)})
			got := map[string]string{}
			for u := range tt.want {
				fetchOK(t, c, Request{URL: u})
				got[u] = site.last()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Cookie sent (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCookieEveryResponse: cookies of redirects, errors and responses cut short are kept.
func TestCookieEveryResponse(t *testing.T) {
	site := &cookieSite{}
	srv := httptest.NewServer(site)
	defer srv.Close()
	base := "http://a.test:" + portOf(t, srv.URL)
	for _, status := range []string{"302", "404", "500"} {
		t.Run(status, func(t *testing.T) {
			c := newTestClient(t, Config{AllowPrivate: true, Jar: NewJar()})
			fetchOK(t, c, Request{URL: setURL(base+"/set", status, "k="+status)})
			fetchOK(t, c, Request{URL: base + "/next"})
			if got := site.last(); got != "k="+status {
				t.Errorf("Cookie %q, want k=%s", got, status)
			}
		})
	}
	t.Run("truncated", func(t *testing.T) {
		raw := newRawServer(t,
			[]step{{write: "HTTP/1.1 200 OK\r\nSet-Cookie: t=1\r\nContent-Length: 100\r\n\r\nshort", close: true}},
			[]step{{write: "HTTP/1.1 204 No Content\r\n\r\n"}})
		c := newTestClient(t, Config{AllowPrivate: true, Jar: NewJar()})
		if ex := fetchOK(t, c, Request{URL: raw.url("/a")}); ex.Truncated != "disconnect" {
			t.Fatalf("Truncated %q, want disconnect", ex.Truncated)
		}
		ex := fetchOK(t, c, Request{URL: raw.url("/b")})
		if !strings.Contains(string(ex.Request), "\r\nCookie: t=1\r\n") {
			t.Errorf("second request has no cookie:\n%s", ex.Request)
		}
	})
}

// TestCookieSources: a request's own Cookie is sent as it is; configured Cookie fields come
// before the jar's cookies, which do not repeat their names.
func TestCookieSources(t *testing.T) {
	site := &cookieSite{}
	srv := httptest.NewServer(site)
	defer srv.Close()
	p := portOf(t, srv.URL)
	tests := []struct {
		name   string
		cfg    Config
		url    string
		header http.Header
		want   string
	}{
		{name: "jar", url: "http://a.test:" + p + "/", want: "sid=s1; n=2"},
		{name: "request's own", url: "http://a.test:" + p + "/", header: http.Header{"Cookie": {"own=1"}}, want: "own=1"},
		{name: "global and jar", cfg: Config{Header: http.Header{"Cookie": {"consent=yes"}}},
			url: "http://a.test:" + p + "/", want: "consent=yes; sid=s1; n=2"},
		{name: "origin wins over global and jar", cfg: Config{
			Header:       http.Header{"Cookie": {"consent=yes"}},
			OriginHeader: map[string]http.Header{"http://a.test:" + p: {"Cookie": {"pre=1; sid=configured"}}}},
			url: "http://a.test:" + p + "/", want: "pre=1; sid=configured; n=2"},
		{name: "configured, no jar cookies here", cfg: Config{Header: http.Header{"Cookie": {"consent=yes"}}},
			url: "http://b.test:" + p + "/", want: "consent=yes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.AllowPrivate = true
			tt.cfg.Jar = NewJar()
			c := newTestClient(t, tt.cfg)
			// Set while sending a Cookie of its own: the response's cookies are kept all the same.
			fetchOK(t, c, Request{URL: setURL("http://a.test:"+p+"/set", "", "sid=s1", "n=2"),
				Header: http.Header{"Cookie": {"own=0"}}})
			if got := site.last(); got != "own=0" {
				t.Errorf("setting request sent Cookie %q, want own=0", got)
			}
			ex := fetchOK(t, c, Request{URL: tt.url, Header: tt.header})
			if got := site.last(); got != tt.want {
				t.Errorf("Cookie %q, want %q", got, tt.want)
			}
			if n := strings.Count(string(ex.Request), "Cookie:"); n != 1 {
				t.Errorf("%d Cookie fields in the request, want 1:\n%s", n, ex.Request)
			}
		})
	}
}

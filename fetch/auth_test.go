package fetch

import (
	"errors"
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

// headerRecorder is a handler that keeps the Authorization header of each request.
type headerRecorder struct {
	mu  sync.Mutex
	got []string
}

func (h *headerRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.got = append(h.got, r.Header.Get("Authorization"))
	h.mu.Unlock()
	if r.URL.Path == "/redirect" {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		return
	}
	io.WriteString(w, "ok")
}

func (h *headerRecorder) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	got := h.got
	h.got = nil
	return got
}

// TestAuthOrigin: credentials go to their exact origin only, over http only when allowed.
func TestAuthOrigin(t *testing.T) {
	rec := &headerRecorder{}
	plain := httptest.NewServer(rec)
	defer plain.Close()
	other := httptest.NewServer(rec)
	defer other.Close()
	secure := httptest.NewUnstartedServer(rec)
	secure.Config.ErrorLog = log.New(io.Discard, "", 0)
	secure.StartTLS()
	defer secure.Close()
	p, o, s := portOf(t, plain.URL), portOf(t, other.URL), portOf(t, secure.URL)
	basic := &BasicAuth{Username: "alice", Password: "pa ss:wörd"}
	basicHeader := "Basic " + "YWxpY2U6cGEgc3M6d8O2cmQ=" // base64("alice:pa ss:wörd")

	tests := []struct {
		name        string
		auth        []OriginAuth
		allowHTTP   bool
		url         string
		reqHeader   http.Header
		connectPort string // ConnectTo the URL's port 80 or 443 to this one
		want        string
	}{
		{name: "exact http origin", auth: []OriginAuth{{Origin: "http://a.test:" + p, Basic: basic}}, allowHTTP: true,
			url: "http://a.test:" + p + "/x", want: basicHeader},
		{name: "http not allowed", auth: []OriginAuth{{Origin: "http://a.test:" + p, Basic: basic}},
			url: "http://a.test:" + p + "/x"},
		{name: "https", auth: []OriginAuth{{Origin: "https://a.test:" + s, Basic: basic}},
			url: "https://a.test:" + s + "/x", want: basicHeader},
		{name: "raw", auth: []OriginAuth{{Origin: "https://a.test:" + s, Raw: "Bearer tok-123"}},
			url: "https://a.test:" + s + "/", want: "Bearer tok-123"},
		{name: "origin spelled otherwise", auth: []OriginAuth{{Origin: "HTTPS://A.Test:" + s + "/", Raw: "Bearer t"}},
			url: "https://a.test:" + s + "/", want: "Bearer t"},
		{name: "IDN origin", auth: []OriginAuth{{Origin: "https://bücher.test:" + s, Raw: "Bearer t"}},
			url: "https://xn--bcher-kva.test:" + s + "/", want: "Bearer t"},
		{name: "default port written", auth: []OriginAuth{{Origin: "http://a.test:80", Raw: "Bearer t"}}, allowHTTP: true,
			url: "http://a.test/", connectPort: p, want: "Bearer t"},
		{name: "default port omitted", auth: []OriginAuth{{Origin: "https://a.test", Raw: "Bearer t"}},
			url: "https://a.test:443/", connectPort: s, want: "Bearer t"},
		{name: "other port", auth: []OriginAuth{{Origin: "http://a.test:" + p, Basic: basic}}, allowHTTP: true,
			url: "http://a.test:" + o + "/"},
		{name: "default port is another port", auth: []OriginAuth{{Origin: "https://a.test", Raw: "Bearer t"}},
			url: "https://a.test:" + s + "/"},
		{name: "other scheme", auth: []OriginAuth{{Origin: "https://a.test:" + p, Basic: basic}}, allowHTTP: true,
			url: "http://a.test:" + p + "/"},
		{name: "other scheme https", auth: []OriginAuth{{Origin: "http://a.test:" + s, Basic: basic}}, allowHTTP: true,
			url: "https://a.test:" + s + "/"},
		{name: "other host", auth: []OriginAuth{{Origin: "http://a.test:" + p, Basic: basic}}, allowHTTP: true,
			url: "http://b.test:" + p + "/"},
		{name: "subdomain", auth: []OriginAuth{{Origin: "http://a.test:" + p, Basic: basic}}, allowHTTP: true,
			url: "http://www.a.test:" + p + "/"},
		{name: "parent domain", auth: []OriginAuth{{Origin: "http://www.a.test:" + p, Basic: basic}}, allowHTTP: true,
			url: "http://a.test:" + p + "/"},
		{name: "suffix trap", auth: []OriginAuth{{Origin: "http://test.com:" + p, Basic: basic}}, allowHTTP: true,
			url: "http://testanother.com:" + p + "/"},
		{name: "ip origin", auth: []OriginAuth{{Origin: "http://127.0.0.1:" + p, Raw: "Bearer ip"}}, allowHTTP: true,
			url: "http://2130706433:" + p + "/", want: "Bearer ip"},
		{name: "caller's header wins", auth: []OriginAuth{{Origin: "https://a.test:" + s, Basic: basic}},
			url: "https://a.test:" + s + "/", reqHeader: http.Header{"Authorization": {"Caller x"}}, want: "Caller x"},
		{name: "user info wins", auth: []OriginAuth{{Origin: "https://a.test:" + s, Basic: basic}},
			url: "https://bob:pw@a.test:" + s + "/", want: "Basic Ym9iOnB3"},
		{name: "one of several", auth: []OriginAuth{
			{Origin: "https://a.test:" + s, Raw: "Bearer a"}, {Origin: "https://b.test:" + s, Raw: "Bearer b"}},
			url: "https://b.test:" + s + "/", want: "Bearer b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{AllowPrivate: true, Auth: tt.auth, HTTPAuthAllowed: tt.allowHTTP}
			if tt.connectPort != "" {
				cfg.ConnectTo = []ConnectTo{{ToPort: tt.connectPort}}
			}
			c := newTestClient(t, cfg)
			rec.take()
			ex, err := c.Do(t.Context(), Request{URL: tt.url, Header: tt.reqHeader})
			if err != nil {
				t.Fatal(err)
			}
			defer ex.Close()
			if diff := cmp.Diff([]string{tt.want}, rec.take()); diff != "" {
				t.Errorf("Authorization received (-want +got):\n%s", diff)
			}
			if tt.want != "" && strings.Count(string(ex.Request), "Authorization: ") != 1 {
				t.Errorf("request does not have one Authorization field:\n%s", ex.Request)
			}
		})
	}
}

// TestAuthNotOnRedirect: a redirect to another origin, followed by the caller as a new
// request, carries no credentials; one back to the same origin does.
func TestAuthNotOnRedirect(t *testing.T) {
	rec := &headerRecorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	p := portOf(t, srv.URL)
	c := newTestClient(t, Config{AllowPrivate: true, HTTPAuthAllowed: true,
		Auth: []OriginAuth{{Origin: "http://a.test:" + p, Raw: "Bearer a"}}})
	url := "http://a.test:" + p + "/redirect?to=http://evil.test:" + p + "/robots.txt"
	var got []string
	for range 2 {
		ex, err := c.Do(t.Context(), Request{URL: url})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec.take()...)
		url = ex.Header.Get("Location")
		ex.Close()
	}
	if diff := cmp.Diff([]string{"Bearer a", ""}, got); diff != "" {
		t.Errorf("Authorization received (-want +got):\n%s", diff)
	}
}

// TestHeaders: Config.Header and Config.OriginHeader, their precedence and their order in
// the request.
func TestHeaders(t *testing.T) {
	srv := newRawServer(t, []step{{write: "HTTP/1.1 204 No Content\r\n\r\n"}})
	port := srv.port()
	cfg := Config{
		AllowPrivate: true,
		Header: http.Header{
			"X-Global": {"g1", "g2"},
			"x-lower":  {"kept as written"},
			"Accept":   {"text/html"},
			"X-Both":   {"global"},
		},
		OriginHeader: map[string]http.Header{
			"http://a.test:" + port: {"X-Both": {"origin"}, "X-Origin": {"o"}, "User-Agent": {"origin-agent/1"}},
			"http://b.test:" + port: {"X-B": {"b"}},
		},
	}
	c := newTestClient(t, cfg)
	tests := []struct {
		name   string
		url    string
		header http.Header
		want   string // the header lines after Host
	}{
		{name: "global and origin", url: "http://a.test:" + port + "/",
			want: "User-Agent: origin-agent/1\r\nAccept-Encoding: gzip\r\nAccept: text/html\r\nX-Both: origin\r\n" +
				"X-Global: g1\r\nX-Global: g2\r\nx-lower: kept as written\r\nX-Origin: o\r\nConnection: keep-alive\r\n\r\n"},
		{name: "global only", url: "http://c.test:" + port + "/",
			want: "User-Agent: " + testUA + "\r\nAccept-Encoding: gzip\r\nAccept: text/html\r\nX-Both: global\r\n" +
				"X-Global: g1\r\nX-Global: g2\r\nx-lower: kept as written\r\nConnection: keep-alive\r\n\r\n"},
		{name: "other origin", url: "http://b.test:" + port + "/",
			want: "User-Agent: " + testUA + "\r\nAccept-Encoding: gzip\r\nAccept: text/html\r\nX-B: b\r\nX-Both: global\r\n" +
				"X-Global: g1\r\nX-Global: g2\r\nx-lower: kept as written\r\nConnection: keep-alive\r\n\r\n"},
		{name: "subdomain is another origin", url: "http://www.a.test:" + port + "/",
			want: "User-Agent: " + testUA + "\r\nAccept-Encoding: gzip\r\nAccept: text/html\r\nX-Both: global\r\n" +
				"X-Global: g1\r\nX-Global: g2\r\nx-lower: kept as written\r\nConnection: keep-alive\r\n\r\n"},
		{name: "request wins", url: "http://a.test:" + port + "/",
			header: http.Header{"X-Both": {"request"}, "X-Lower": {"request"}, "User-Agent": {"req-agent"}, "Accept": {"*/*"}},
			want: "User-Agent: req-agent\r\nAccept-Encoding: gzip\r\nAccept: */*\r\nX-Both: request\r\n" +
				"X-Global: g1\r\nX-Global: g2\r\nX-Lower: request\r\nX-Origin: o\r\nConnection: keep-alive\r\n\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 { // the same bytes every time
				ex, err := c.Do(t.Context(), Request{URL: tt.url, Header: tt.header})
				if err != nil {
					t.Fatal(err)
				}
				_, got, _ := strings.Cut(string(ex.Request), "\r\n")
				_, got, _ = strings.Cut(got, "\r\n") // after the Host line
				ex.Close()
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("header (-want +got):\n%s", diff)
				}
			}
		})
	}
	// The Config's maps were copied: changing them afterwards changes nothing.
	cfg.Header.Set("X-Global", "changed")
	ex, err := c.Do(t.Context(), Request{URL: "http://c.test:" + port + "/"})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	if strings.Contains(string(ex.Request), "changed") {
		t.Errorf("the client uses the caller's map:\n%s", ex.Request)
	}
}

// TestAuthHeaderConfig: NewClient refuses invalid credentials and headers, and its errors
// never show a secret.
func TestAuthHeaderConfig(t *testing.T) {
	const secret = "s3cr3t"
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{name: "ok", cfg: Config{
			Auth: []OriginAuth{{Origin: "https://a.test", Basic: &BasicAuth{"u", secret}},
				{Origin: "http://a.test:8080/", Raw: "Bearer " + secret}},
			Header:       http.Header{"X-A": {"1"}, "Cookie": {"c=" + secret}, "User-Agent": {"x"}},
			OriginHeader: map[string]http.Header{"https://a.test": {"X-Key": {secret}}},
		}},
		{name: "both basic and raw", cfg: Config{Auth: []OriginAuth{
			{Origin: "https://a.test", Basic: &BasicAuth{"u", secret}, Raw: secret}}}, wantErr: true},
		{name: "neither", cfg: Config{Auth: []OriginAuth{{Origin: "https://a.test"}}}, wantErr: true},
		{name: "colon in user", cfg: Config{Auth: []OriginAuth{
			{Origin: "https://a.test", Basic: &BasicAuth{"u:" + secret, secret}}}}, wantErr: true},
		{name: "newline in password", cfg: Config{Auth: []OriginAuth{
			{Origin: "https://a.test", Basic: &BasicAuth{"u", secret + "\r\nX: y"}}}}, wantErr: true},
		{name: "newline in raw", cfg: Config{Auth: []OriginAuth{{Origin: "https://a.test", Raw: secret + "\n"}}}, wantErr: true},
		{name: "origin with path", cfg: Config{Auth: []OriginAuth{{Origin: "https://a.test/x", Raw: secret}}}, wantErr: true},
		{name: "origin with user info", cfg: Config{Auth: []OriginAuth{{Origin: "https://u:" + secret + "@a.test", Raw: "x"}}}, wantErr: true},
		{name: "origin with bad user info", cfg: Config{Auth: []OriginAuth{{Origin: "https://u:" + secret + "%zz@a.test", Raw: "x"}}}, wantErr: true},
		{name: "origin ftp", cfg: Config{Auth: []OriginAuth{{Origin: "ftp://a.test", Raw: secret}}}, wantErr: true},
		{name: "origin without host", cfg: Config{Auth: []OriginAuth{{Origin: "a.test", Raw: secret}}}, wantErr: true},
		{name: "origin twice", cfg: Config{Auth: []OriginAuth{{Origin: "https://a.test", Raw: secret},
			{Origin: "https://A.test:443", Raw: secret}}}, wantErr: true},
		{name: "prefix and realms", cfg: Config{Auth: []OriginAuth{
			{Prefix: "https://a.test/private/", Basic: &BasicAuth{"u", secret}},
			{Prefix: "https://a.test/private/", Realm: "r", Basic: &BasicAuth{"u", secret}},
			{Realm: "r", Basic: &BasicAuth{"u", secret}},
			{Origin: "https://a.test", Realm: "r", Basic: &BasicAuth{"u", secret}}}}},
		{name: "origin and prefix", cfg: Config{Auth: []OriginAuth{
			{Origin: "https://a.test", Prefix: "https://a.test/x/", Raw: secret}}}, wantErr: true},
		{name: "no origin prefix or realm", cfg: Config{Auth: []OriginAuth{{Basic: &BasicAuth{"u", secret}}}}, wantErr: true},
		{name: "realm with raw", cfg: Config{Auth: []OriginAuth{{Realm: "r", Raw: "Basic " + secret}}}, wantErr: true},
		{name: "realm with newline", cfg: Config{Auth: []OriginAuth{{Realm: "r\n", Basic: &BasicAuth{"u", secret}}}}, wantErr: true},
		{name: "prefix with user info", cfg: Config{Auth: []OriginAuth{{Prefix: "https://u:" + secret + "@a.test/x/", Raw: "x"}}}, wantErr: true},
		{name: "prefix with fragment", cfg: Config{Auth: []OriginAuth{{Prefix: "https://a.test/x/#f", Raw: secret}}}, wantErr: true},
		{name: "prefix ftp", cfg: Config{Auth: []OriginAuth{{Prefix: "ftp://a.test/x/", Raw: secret}}}, wantErr: true},
		{name: "prefix relative", cfg: Config{Auth: []OriginAuth{{Prefix: "/x/", Raw: secret}}}, wantErr: true},
		{name: "prefix twice", cfg: Config{Auth: []OriginAuth{{Prefix: "https://a.test/x/", Raw: secret},
			{Prefix: "https://A.test:443/x/", Raw: secret}}}, wantErr: true},
		{name: "realm twice", cfg: Config{Auth: []OriginAuth{{Realm: "r", Basic: &BasicAuth{"u", secret}},
			{Realm: "r", Basic: &BasicAuth{"v", secret}}}}, wantErr: true},
		{name: "header Host", cfg: Config{Header: http.Header{"Host": {"x"}}}, wantErr: true},
		{name: "header Content-Length", cfg: Config{Header: http.Header{"Content-Length": {"1"}}}, wantErr: true},
		{name: "header transfer-encoding", cfg: Config{Header: http.Header{"transfer-encoding": {"chunked"}}}, wantErr: true},
		{name: "header Connection", cfg: Config{Header: http.Header{"Connection": {"close"}}}, wantErr: true},
		{name: "header Authorization", cfg: Config{Header: http.Header{"Authorization": {secret}}}, wantErr: true},
		{name: "header Proxy-Authorization", cfg: Config{OriginHeader: map[string]http.Header{
			"https://a.test": {"Proxy-Authorization": {secret}}}}, wantErr: true},
		{name: "header Accept-Encoding", cfg: Config{Header: http.Header{"Accept-Encoding": {"br"}}}, wantErr: true},
		{name: "header name not a token", cfg: Config{Header: http.Header{"X Y": {"1"}}}, wantErr: true},
		{name: "header value with CRLF", cfg: Config{Header: http.Header{"X-Key": {secret + "\r\nHost: evil"}}}, wantErr: true},
		{name: "header without value", cfg: Config{Header: http.Header{"X-Key": {}}}, wantErr: true},
		{name: "header twice", cfg: Config{Header: http.Header{"X-Key": {"1"}, "x-key": {"2"}}}, wantErr: true},
		{name: "origin header value with LF", cfg: Config{OriginHeader: map[string]http.Header{
			"https://a.test": {"X-Key": {secret + "\n"}}}}, wantErr: true},
		{name: "origin header bad origin", cfg: Config{OriginHeader: map[string]http.Header{
			"https://a.test/path": {"X-Key": {"1"}}}}, wantErr: true},
		{name: "origin header origin twice", cfg: Config{OriginHeader: map[string]http.Header{
			"https://a.test": {"X-Key": {"1"}}, "https://a.test:443": {"X-Key": {"1"}}}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.UserAgent = testUA
			c, err := NewClient(tt.cfg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				if !errors.Is(err, ErrConfig) {
					t.Errorf("error %v does not wrap ErrConfig", err)
				}
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error shows the secret: %v", err)
				}
				return
			}
			c.Close()
		})
	}
}

// TestRedacted: Redacted masks every secret and leaves the Config it was called on as it was.
func TestRedacted(t *testing.T) {
	const secret = "s3cr3t"
	cfg := Config{
		UserAgent: testUA,
		Auth: []OriginAuth{
			{Origin: "https://a.test", Basic: &BasicAuth{"alice", secret}},
			{Origin: "https://b.test", Raw: "Bearer " + secret},
			{Origin: "https://c.test", Basic: &BasicAuth{"nopass", ""}},
		},
		Header:       http.Header{"Cookie": {"sid=" + secret}, "X-A": {"1"}},
		OriginHeader: map[string]http.Header{"https://a.test": {"cookie": {"k=" + secret}, "X-B": {"2"}}},
		Proxy:        mustParseURL(t, "http://pu:"+secret+"@proxy.test:3128"),
	}
	r := cfg.Redacted()
	want := Config{
		UserAgent: testUA,
		Auth: []OriginAuth{
			{Origin: "https://a.test", Basic: &BasicAuth{"alice", "***"}},
			{Origin: "https://b.test", Raw: "***"},
			{Origin: "https://c.test", Basic: &BasicAuth{"nopass", ""}},
		},
		Header:       http.Header{"Cookie": {"***"}, "X-A": {"1"}},
		OriginHeader: map[string]http.Header{"https://a.test": {"cookie": {"***"}, "X-B": {"2"}}},
	}
	if diff := cmp.Diff(want, r, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Proxy" }, cmp.Ignore())); diff != "" {
		t.Errorf("Redacted (-want +got):\n%s", diff)
	}
	if got := RedactedURL(r.Proxy); got != "http://pu:***@proxy.test:3128" {
		t.Errorf("RedactedURL(Redacted().Proxy) = %q", got)
	}
	if got := RedactedURL(cfg.Proxy); got != "http://pu:***@proxy.test:3128" {
		t.Errorf("RedactedURL(Proxy) = %q", got)
	}
	lower := "cookie" // as written in cfg, not canonical
	if s := strings.Join([]string{cfg.Auth[0].Basic.Password, cfg.Auth[1].Raw, cfg.Header.Get("Cookie"),
		cfg.OriginHeader["https://a.test"][lower][0], cfg.Proxy.String()}, " "); strings.Count(s, secret) != 5 {
		t.Errorf("Redacted changed the original: %s", s)
	}
}

func TestRedactUserinfo(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://u:pw@h/p?q#f", "http://u:***@h/p?q#f"},
		{"http://u@h/", "http://u@h/"},
		{"http://h/a@b:c", "http://h/a@b:c"},
		{"http://h/?x=u:pw@h", "http://h/?x=u:pw@h"},
		{"https://u:p@w@h:8080", "https://u:***@h:8080"},
		{"no scheme u:pw@h", "no scheme u:pw@h"},
		{"http://:pw@h", "http://:***@h"},
	}
	for _, tt := range tests {
		if got := redactUserinfo(tt.in); got != tt.want {
			t.Errorf("redactUserinfo(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func mustParseURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

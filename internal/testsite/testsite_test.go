package testsite

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuards serves a site whose _routes.txt guards paths with basic auth, a bearer token and
// a cookie, and sets that cookie: each request gets the answer its headers earn, and the
// request log records the headers sent.
func TestGuards(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		"_routes.txt": `# comments and blank lines are skipped

a.test /private/* basic alice s3cret
a.test /api/data.json bearer T0KEN
a.test /login.html set-cookie session=abc
a.test /account.html need-cookie session=abc
a.test /old.html 301 /new.html
`,
		"a.test/private/index.html": "private",
		"a.test/api/data.json":      `{"ok":true}`,
		"a.test/login.html":         "login",
		"a.test/account.html":       "account",
		"a.test/public.html":        "public",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Start(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		name, path string
		header     map[string]string
		basic      []string
		want       int
		setCookie  string
	}{
		{name: "public", path: "/public.html", want: 200},
		{name: "basic missing", path: "/private/", want: 401},
		{name: "basic wrong", path: "/private/", basic: []string{"alice", "nope"}, want: 401},
		{name: "basic right", path: "/private/", basic: []string{"alice", "s3cret"}, want: 200},
		{name: "bearer missing", path: "/api/data.json", want: 401},
		{name: "bearer wrong", path: "/api/data.json", header: map[string]string{"Authorization": "Bearer x"}, want: 401},
		{name: "bearer right", path: "/api/data.json", header: map[string]string{"Authorization": "Bearer T0KEN"}, want: 200},
		{name: "sets cookie", path: "/login.html", want: 200, setCookie: "session=abc; Path=/"},
		{name: "cookie missing", path: "/account.html", want: 403},
		{name: "cookie wrong", path: "/account.html", header: map[string]string{"Cookie": "session=x"}, want: 403},
		{name: "cookie right", path: "/account.html", header: map[string]string{"Cookie": "a=1; session=abc"}, want: 200},
		{name: "route", path: "/old.html", want: 301},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), "GET", "http://"+s.Addr+tc.path, nil)
			req.Host = "a.test"
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			if tc.basic != nil {
				req.SetBasicAuth(tc.basic[0], tc.basic[1])
			}
			res, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("status %d, want %d", res.StatusCode, tc.want)
			}
			if got := res.Header.Get("Set-Cookie"); got != tc.setCookie {
				t.Errorf("Set-Cookie %q, want %q", got, tc.setCookie)
			}
		})
	}
	var sawBearer, sawCookie bool
	for _, r := range s.Requests() {
		if r.Host != "a.test" {
			t.Errorf("request logged for host %q", r.Host)
		}
		sawBearer = sawBearer || (r.URI == "/api/data.json" && r.Authorization == "Bearer T0KEN")
		sawCookie = sawCookie || (r.URI == "/account.html" && strings.Contains(r.Cookie, "session=abc"))
	}
	if !sawBearer || !sawCookie {
		t.Errorf("request log lacks the headers sent (bearer %v, cookie %v): %+v", sawBearer, sawCookie, s.Requests())
	}
}

// TestRoutesErrors: a malformed rule is an error naming the line.
func TestRoutesErrors(t *testing.T) {
	for _, line := range []string{
		"a.test /x basic alice",
		"a.test /x bearer",
		"a.test /x set-cookie nameonly",
		"a.test /x need-cookie a=1 b=2",
		"a.test /x",
		"a.test /x teapot",
	} {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "_routes.txt"), []byte("# first\n"+line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Start(root)
		if err == nil {
			s.Close()
			t.Errorf("%q: no error", line)
			continue
		}
		if !strings.Contains(err.Error(), ":2:") {
			t.Errorf("%q: error %q does not name line 2", line, err)
		}
	}
}

// TestElasticSite loads testdata/sites/elastic (issue 12's site): its guards parse and hold.
func TestElasticSite(t *testing.T) {
	s, err := Start(filepath.Join("..", "..", "testdata", "sites", "elastic"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		host, path, auth string
		want             int
	}{
		{"www.example.com", "/", "", 200},
		{"www.example.com", "/private/", "", 401},
		{"www.example.com", "/private/", "Basic YWxpY2U6czNjcmV0", 200}, // alice:s3cret
		{"www.example.com", "/members/", "", 403},
		{"api.example.com", "/v1/status.json", "", 401},
		{"api.example.com", "/v1/status.json", "Bearer T0KEN-42", 200},
		{"www.example.com", "/sitemaps/pages.dat", "", 200},
		{"docs.example.com", "/docs/v2/guide.pdf?dl=1", "", 200},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", "http://"+s.Addr+tc.path, nil)
		req.Host = tc.host
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("%s%s (auth %q): %d, want %d", tc.host, tc.path, tc.auth, res.StatusCode, tc.want)
		}
	}
}
